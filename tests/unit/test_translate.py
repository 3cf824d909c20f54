"""The title translator (prhub.engine.translate) and its reviewed glossary."""
from __future__ import annotations

import json
import re

import pytest
from prhub.engine import translate


@pytest.mark.parametrize(("title", "zh"), [
    ("[trainer] fix: return NaN for empty tensors in compute_metrics", "compute_metrics 对空张量返回 NaN"),
    ("[megatron] fix: add missing FP8 padding for router replay", "为 router replay 补上缺失的 FP8 padding"),
    ("fix memory leakage when initializing multiple tools", "修复初始化多个工具时的内存泄漏"),
    ("support decouple ppo for v1 separate_async", "为 v1 separate_async 支持 decouple ppo"),
    ("avoid redundant clone in the actor", "避免 actor 中的多余的 clone"),
    ("remove x86_64-apple-darwin from CI and tests", "从 CI 和测试中移除 x86_64-apple-darwin"),
    ("chore(deps): bump serde to 1.0.200", "将 serde 升级到 1.0.200"),
    ("make `reward_extra_info` optional in `reward_result`", "让 `reward_result` 中的 `reward_extra_info` 变为可选"),
    ("use uv for the docker image", "Docker 镜像改用 uv"),
    ("Refactor `Layout` into `BuildDirLayout`", "将 `Layout` 重构为 `BuildDirLayout`"),
    ("update triton-ascend and fix npu ut", "更新 triton-ascend 并修复 npu 单元测试"),
    ("🪂 Don't gather logits in SFT to avoid hanging", "不再在 SFT 中汇总 logits，以避免卡死"),
    ("feat(config): Allow `build.dir` on Windows", "在 Windows 上允许 `build.dir`"),
])
def test_title_structures_read_in_chinese_order(title: str, zh: str) -> None:
    assert translate.title(title) == zh


def test_identifiers_paths_flags_and_versions_stay_verbatim() -> None:
    zh = translate.title("fix typo in docs/prep/data.rst for `--max-len` with vLLM v0.8.5")
    for kept in ("docs/prep/data.rst", "`--max-len`", "vLLM", "v0.8.5"):
        assert kept in zh
    assert zh.startswith("修正")  # a typo is corrected, not repaired


def test_what_the_glossary_does_not_know_stays_english() -> None:
    assert translate.title("add frobnicator widgets") == "新增 frobnicator widgets"


def test_a_title_without_a_verb_says_only_the_title() -> None:
    assert translate.title("[rollout] fix: max_num_seqs not take effect", "fix") == "修复 max_num_seqs 不生效的问题"
    assert translate.title("[doc] browsergym example script") == "browsergym 示例脚本"


def test_short_sentences_translate_and_long_ones_are_left_alone() -> None:
    assert translate.sentence("Remove the unused import.") == "移除未使用的导入"
    assert translate.sentence("This " + "very " * 20 + "long sentence explains things.") == ""
    assert translate.sentence("The results are below.") == ""  # no verb the glossary knows


def test_the_glossary_is_a_reviewed_data_file() -> None:
    data = json.loads(translate.GLOSSARY.read_text(encoding="utf-8"))
    for part in ("verbs", "nouns", "attributes"):
        keys = list(data[part])
        assert keys == [k.lower() for k in keys], part  # looked up in lower case
        assert all(isinstance(v, str) and v for v in data[part].values()), part
    raw = translate.GLOSSARY.read_text(encoding="utf-8")
    for part in ("verbs", "nouns", "attributes"):
        block = raw.split(f'"{part}": {{', 1)[1].split("}", 1)[0]
        keys = re.findall(r'"([^"]+)":', block)  # json keeps a repeated key's last value silently
        assert len(keys) == len(set(keys)), [k for k in keys if keys.count(k) > 1]
    domains = ("训练", "推理", "并行", "检查点", "权重同步", "kernel", "工作流", "打包", "编译器", "文档", "优势")
    values = {v for part in ("verbs", "nouns") for v in data[part].values()}
    assert all(word in values for word in domains)


def test_untrusted_titles_translate_without_error() -> None:
    for hostile in ("", "   ", "(((", "``", "for for for", "fix fix", "add to", "; ;", "a" * 5000,
                    "<script>x</script>"):
        assert isinstance(translate.title(hostile), str)
