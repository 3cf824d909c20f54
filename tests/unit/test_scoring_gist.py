"""The zh one-line per PR (prhub.engine.gist): the title's action in Chinese, then only what the PR states."""
from __future__ import annotations

from prhub.engine import gist
from prhub.engine.scoring import score_pull

from tests.unit.engine_support import CONFIG, change, make_pr

ZH = CONFIG.with_overrides(language="zh")
# Clauses the line used to pick by module or fix class, true of some PRs and false of others (issue 23).
STOCK = ("改进训练与推理之间的权重", "数据与智能体流程多了一种用法", "多了一种可选的运行组件", "此前会悄然改变训练结果",
         "旧行为不报错，但结果是错的", "影响训练算出的数值", "扩展了可训练的模型", "算法层面多了一个选项")


def facts(description: str, kind: str = "feat", number: int = 1, **values) -> gist.Facts:
    base = {"modules": ["ckpt", "rollout"], "breaking": False, "fix_class": "", "new_object": "",
            "default_change": False, "only": "", "body": ""}
    return gist.Facts(number, kind, description, **{**base, **values})


def test_a_title_reads_in_chinese_order_with_its_names_kept():
    assert gist.zh_line(facts("add missing FP8 padding for router replay", "fix")) == \
        "为 router replay 补上缺失的 FP8 padding。"
    assert gist.zh_line(facts("return NaN for empty tensors in compute_data_metrics", "fix")) == \
        "compute_data_metrics 对空张量返回 NaN。"


def test_no_clause_is_chosen_by_module_or_fix_class():
    lines = [gist.zh_line(facts(description, kind, number, fix_class=fix, new_object=what, modules=modules))
             for number, (description, kind, fix, what, modules) in enumerate([
                 ("enable fully async to log_val_generations", "feat", "", "async", ["fully_async"]),
                 ("add compute_score timing metrics to agent loop", "feat", "", "agent", ["reward"]),
                 ("flowgrpo trainer", "feat", "", "trainer", ["trainer"]),
                 ("skip a redundant clone to avoid OOM", "fix", "numerics", "", ["fsdp"]),
                 ("warn instead of silently skipping the batch", "fix", "silent", "", ["trainer"]),
                 ("sharded delta weight sync over NCCL", "feat", "", "sharded", ["ckpt"])])]
    for line in lines:
        assert not any(clause in line for clause in STOCK), line
        assert "（" not in line  # no module tag: the modules are no fact about what the PR does
    assert lines[2] == "新功能：“flowgrpo trainer”。"  # nothing beyond the title (its type, its words): quoted


def test_measured_effects_breaks_defaults_and_housekeeping_come_from_the_pr():
    saved = gist.zh_line(facts("add save_lora_only checkpoint support",
                               body="This reduces checkpoint size from ~54 GiB to ~150 MiB for a 27B model."))
    assert saved.endswith("据描述实测 54 GiB → 150 MiB。")
    assert gist.effect("Throughput is 1.8x faster on 8xH100.") == "据描述实测提速 1.8x"
    assert gist.effect("memory use reduced by 30% at the peak") == "据描述实测减少 30%"
    assert gist.effect("We refactored the loop.") == ""
    breaking = gist.zh_line(facts("remove the legacy worker", "refactor", 5, breaking=True))
    assert breaking == "移除旧版 worker，属于破坏性变更。"
    default = gist.zh_line(facts("make reward loop the default", "feat", 6, default_change=True))
    assert default == "将 reward loop 设为默认，修改了默认值。"
    assert gist.zh_line(facts("update the install guide", "docs", only="docs")) == "更新 install 指南，只改文档。"
    assert gist.zh_line(facts('Revert "[fsdp] fix: x"', "revert")) == "回滚 “[fsdp] fix: x”。"


def test_zh_reports_get_the_chinese_line_and_en_reports_the_authors_opening():
    pr = make_pr("[fsdp] fix: sync merged LoRA weights before context exit", [change("pkg/fsdp.py", 30, 6)],
                 body="### What does this PR do?\n\nThe rollout got stale weights because the iterator was lazy.\n")
    assert score_pull(pr, ZH).summary == "在上下文退出前同步合并后的 LoRA 权重。"
    assert score_pull(pr, CONFIG).summary == "The rollout got stale weights because the iterator was lazy."
    chinese = make_pr("[fsdp] fix: 修复 rollout 卡住",
                      body="### What does this PR do?\n\n修复了长序列下 rollout 卡住的问题。\n")
    assert score_pull(chinese, ZH).summary == "修复了长序列下 rollout 卡住的问题。"  # the author's own Chinese stays


def test_only_deps_is_said_of_a_pr_whose_code_is_dependencies_alone():
    # hono #5108 removed three benchmark suites, their package.json and yarn.lock beside their code: "只改依赖" had
    # said it changed nothing but dependencies
    removed = make_pr("chore(benchmark): remove not used benchmarks", [
        change("benchmarks/webapp/hono.js", 0, 18, "removed"), change("benchmarks/handle-event/index.js", 0, 152,
                                                                       "removed"),
        change("benchmarks/handle-event/package.json", 0, 21, "removed"),
        change("benchmarks/handle-event/yarn.lock", 0, 678, "removed")])
    assert "只改依赖" not in score_pull(removed, ZH).summary
    bump = make_pr("chore(deps): bump vite to 8.0.1", [change("package.json", 1, 1), change("pnpm-lock.yaml", 40, 40)])
    assert "只改依赖" in score_pull(bump, ZH).summary
