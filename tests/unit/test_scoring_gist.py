"""The zh one-line per PR (prhub.engine.gist): what it does and why it matters, technical names kept as written."""
from __future__ import annotations

from prhub.engine import gist
from prhub.engine.scoring import score_pull

from tests.unit.engine_support import CONFIG, change, make_pr

ZH = CONFIG.with_overrides(language="zh")


def facts(description: str, kind: str = "feat", number: int = 1, **values) -> gist.Facts:
    base = {"modules": ["ckpt", "rollout"], "breaking": False, "fix_class": "", "new_object": "",
            "default_change": False, "only": "", "body": ""}
    return gist.Facts(number, kind, description, **{**base, **values})


def test_a_capability_reads_as_chinese_around_the_names_it_keeps():
    line = gist.zh_line(facts("sharded delta weight sync over NCCL for disaggregated rollout", new_object="sharded",
                              number=2))
    assert line.startswith("新增 sharded delta weight sync over NCCL，用于 disaggregated rollout")
    assert "权重" in line and line.endswith("。")
    assert gist.zh_line(facts("Add support for PF-PPO", modules=[])).startswith("新增对 PF-PPO 的支持")
    assert gist.zh_line(facts("TensorLoRARequest support newer vLLM versions", modules=["vllm"])) \
        == "让 TensorLoRARequest 支持 newer vLLM versions（vllm）。"


def test_fixes_say_what_was_wrong_and_lead_with_it_in_some_lines():
    silent = gist.zh_line(facts("exclude the never-routed token from MoE metrics", "fix", 3, fix_class="silent"))
    assert silent == "旧行为不报错，但结果是错的：排除 never-routed token from MoE metrics。"
    oom = gist.zh_line(facts("fix build_npu_attn_mask oom", "fix", 5, fix_class="oom"))
    assert oom == "避免 OOM 中断任务：修复 build_npu_attn_mask oom。"
    hang = gist.zh_line(facts("deadlock in gradient all-reduce", "fix", 4, fix_class="stuck"))
    assert hang == "修复 deadlock in gradient all-reduce，此前可能让任务卡死。"


def test_measured_effects_breaks_defaults_and_housekeeping():
    saved = gist.zh_line(facts("add save_lora_only checkpoint support",
                               body="This reduces checkpoint size from ~54 GiB to ~150 MiB for a 27B model."))
    assert saved.endswith("实测 54 GiB → 150 MiB。")
    assert gist.effect("Throughput is 1.8x faster on 8xH100.") == "实测提速 1.8x"
    assert gist.effect("memory use reduced by 30% at the peak") == "实测减少 30%"
    breaking = gist.zh_line(facts("remove the legacy worker", "refactor", 5, breaking=True))
    assert breaking == "移除 legacy worker，属于破坏性变更，升级时需调整用法。"
    default = gist.zh_line(facts("make reward loop the default", "feat", 6, default_change=True))
    assert default.startswith("将 reward loop 设为默认") and "默认行为随之改变" in default
    assert gist.zh_line(facts("update the install guide", "docs", only="docs")) == "更新 install guide（只涉及文档）。"
    assert gist.zh_line(facts('"[fsdp] fix: x"', "revert")).endswith("撤销此前的改动。")


def test_the_line_shape_follows_the_facts_not_one_template():
    lines = {gist.zh_line(facts(f"add thing {i}", fix_class=fix, number=i, only=only, breaking=i % 3 == 0))
             for i, (fix, only) in enumerate([("", ""), ("silent", ""), ("crash", ""), ("", "ci"), ("stuck", ""),
                                              ("", "docs"), ("numerics", ""), ("", "")])}
    shapes = {line.replace("thing", "").split(" ", 1)[0] + str(line.count("，")) for line in lines}
    assert len(shapes) >= 5


def test_zh_reports_get_the_chinese_line_and_en_reports_the_authors_opening():
    pr = make_pr("[fsdp] fix: sync merged LoRA weights before context exit", [change("pkg/fsdp.py", 30, 6)],
                 body="### What does this PR do?\n\nThe rollout got stale weights because the iterator was lazy.\n")
    assert score_pull(pr, ZH).summary.startswith("同步 merged LoRA weights before context exit")
    assert score_pull(pr, CONFIG).summary == "The rollout got stale weights because the iterator was lazy."
    chinese = make_pr("[fsdp] fix: 修复 rollout 卡住",
                      body="### What does this PR do?\n\n修复了长序列下 rollout 卡住的问题。\n")
    assert score_pull(chinese, ZH).summary == "修复了长序列下 rollout 卡住的问题。"  # the author's own Chinese stays
