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


@pytest.mark.parametrize(("title", "zh"), [
    # a condition: during / without (the purpose's own condition is said with the purpose)
    ("fix: preserve generation config during merge", "在合并期间保留生成配置"),
    ("fix: preserve GPT-OSS weights without expert parallelism", "在不使用专家并行时保留 GPT-OSS 权重"),
    ("fix: skip redundant clone in get_named_tensor_buckets to avoid OOM during SGLang weight sync",
     "跳过 get_named_tensor_buckets 中的多余的 clone，以避免 SGLang 权重同步期间的 OOM"),
    # the means: via / using / over a name
    ("feat: support sglang ROCm backend via aiter defaults", "通过 aiter 默认支持 sglang ROCm 后端"),
    ("feat: sharded delta weight sync over NCCL for disaggregated rollout",
     "为分离式 rollout 提供基于 NCCL 的分片的增量权重同步"),  # opened by an attribute: a noun phrase, no verb
    # kept from happening; made from; moved from A to B; put somewhere
    ("fix: stop the policy from sampling vision placeholder tokens", "阻止策略采样视觉占位的 token"),
    ("fix: build RL tokenizer/processor from HFModelConfig", "基于 HFModelConfig 构建 RL tokenizer/processor"),
    ("feat: migrate fused logprob/entropy from GPTModel.forward monkey-patch to Megatron output_processor hook",
     "将融合的 logprob/entropy 从 GPTModel.forward monkey-patch 迁移到 Megatron output_processor 钩子"),
    ("fix: offload process_vision_info to a thread executor to unblock the agent-loop event loop",
     "将 process_vision_info 卸载到线程池，以避免阻塞 agent-loop 事件循环"),
    # any purpose verb, and the serial comma before it or before "and"
    ("chore: upgrade vllm, nccl and numpy > 2.0.0, to resolve packages dependency error",
     "升级 vllm、nccl 和 numpy > 2.0.0，以解决包依赖错误"),
    ("feat: per-unit LoRA summon, FSDP1/2 compatibility, and strip-modules support",
     "逐单元的 LoRA summon、FSDP1/2 兼容性和 strip-modules 支持"),
    # "X support for Y"; a trouble "with" Y; "with A and B" keeps its "and" inside
    ("feat: PP/VPP support for the steady delta export", "为稳定的增量导出支持 PP/VPP"),
    ("fix: sort buffers in fsdp2_load_full_state_dict to prevent NCCL deadlock with heterogeneous buffers",
     "在 fsdp2_load_full_state_dict 中排序缓冲区，以防止带有异构缓冲区的 NCCL 死锁"),
    ("feat: async generation dump with exception propagation and streaming write",
     "带有异常传播和流式写入的异步生成转储"),
    ("fix: backfill missing state for DSD optimizer checkpoint", "为 DSD 优化器检查点补齐缺失的状态"),
    ("refactor: rename misleading `trainer` arg to `actor_wg`", "将有误导性的 `trainer` 参数重命名为 `actor_wg`"),
])
def test_more_title_structures_read_in_chinese_order(title: str, zh: str) -> None:
    assert translate.title(title) == zh


def test_glossary_entry_kinds() -> None:
    # an attribute is read before a noun's stem: "merged" is 合并后的, not the noun "merge"
    assert translate.title("sync merged LoRA weights") == "同步合并后的 LoRA 权重"
    # a phrase entry keeps a component's name whole although the glossary knows one of its words ("loop" is not
    # a noun of its own; "event loop" is)
    assert translate.title("make reward loop the default") == "将 reward loop 设为默认"
    assert "事件循环" in translate.title("unblock the event loop")
    # names the team keeps: router replay, trl chat
    assert translate.title("add missing FP8 padding for router replay") == "为 router replay 补上缺失的 FP8 padding"
    assert translate.title("remove trl chat") == "移除 trl chat"


def test_a_verb_left_in_english_marks_the_line_untranslated() -> None:
    from prhub.engine import gist

    said = translate.title("add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine")
    assert "enabled" in said and translate.leftover(said)
    assert gist.doing("add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine", "feat") == \
        "新功能：“add Qwen3.5 GRPO trainer demo with EP enabled using VeOmniEngine”"  # quoted, never half translated


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
    for part in ("verbs", "nouns", "attributes", "modules"):
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


def test_zh_prose_names_generic_modules_in_chinese_and_keeps_proper_names():
    from prhub.engine.translate import glossary, module

    assert module("doc") == "文档" and module("Algo") == "算法" and module("tests") == "测试"
    for name in ("megatron", "fsdp", "rollout", "vllm", "veomni", "trainer"):  # proper names stay as spelled
        assert module(name) == name
    nouns = glossary()["nouns"]  # the table agrees with the glossary where both name a word
    data = json.loads(translate.GLOSSARY.read_text(encoding="utf-8"))
    clash = {k for k, v in data["modules"].items() if k in nouns and nouns[k] != v}
    assert clash <= {"examples", "ci"}, clash  # an examples/ folder holds 示例, "examples" in a title are 样本


def test_an_acronyms_english_plural_is_dropped_and_the_acronym_kept():
    from prhub.engine import translate

    assert "AMD GPU" in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")
    assert "GPUs" not in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")
    assert "GPU" in translate.title("[hardware] feat: enable FlashAttention on AMD GPUs")


def test_a_parenthesis_that_opens_with_a_verb_is_translated_as_a_clause():
    said = translate.title("[megatron] feat: add Muon optimizer support (expose Megatron-Core TensorParallelMuon)")
    assert said.endswith("（暴露 Megatron-Core TensorParallelMuon）")
    assert translate.title("[trainer] fix: handle empty batches (GRPO, RLOO)").endswith("（GRPO、RLOO）")
