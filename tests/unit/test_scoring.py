"""Per-PR rules of the engine: modules, type, breaking, importance, insight, key, refs, reverts."""
from __future__ import annotations

import pytest
from prhub.engine.scoring import ENGINE_VERSION, HeuristicScorer, modules_from_title, parse_title, score_pull

from tests.unit.engine_support import CONFIG, VERL_TEMPLATE, change, make_pr


def kinds(scored) -> list[str]:
    return [r.kind for r in scored.risks]


# -- modules -------------------------------------------------------------------------------------------------------

def test_modules_come_from_the_title_tag_first():
    pr = make_pr("[BREAKING][megatron, fsdp] fix: shard the optimizer", labels=["rollout"])
    assert score_pull(pr, CONFIG).modules == ["megatron", "fsdp"]


def test_modules_from_title_skips_breaking_and_part_markers():
    assert modules_from_title("[1/N][rollout] feat: x") == ["rollout"]
    # a type word in brackets names no place (diffusers' "[chore] remove X" stood under "chore 模块")
    assert modules_from_title("[chore] remove controlnet implementations") == []
    assert modules_from_title("[Refactor][single_controller] small fixes") == ["single_controller"]
    assert modules_from_title("[BREAKING] [ray, megatron] feat: x") == ["ray", "megatron"]
    assert modules_from_title("fix: no tag") == []


def test_a_revert_belongs_to_the_modules_of_the_reverted_change():
    assert modules_from_title('Revert "[fsdp] fix: emit outputs (#6293)"') == ["fsdp"]


def test_modules_fall_back_to_labels_then_path_map_then_scope_then_folder():
    files = [change("verl/workers/rollout/vllm.py"), change("verl/workers/rollout/base.py"), change("docs/x.md")]
    assert score_pull(make_pr("fix: x", files, labels=["Rollout "]), CONFIG).modules == ["rollout"]
    mapped = CONFIG.with_overrides(module_map={"verl/workers/rollout/": "rollout", "docs/": "doc"})
    assert score_pull(make_pr("fix: x", files), mapped).modules == ["rollout", "doc"]
    assert score_pull(make_pr("feat(trainer): x", files), CONFIG).modules == ["trainer"]
    assert score_pull(make_pr("fix something", files), CONFIG).modules == ["verl"]
    assert score_pull(make_pr("fix something", []), CONFIG).modules == ["misc"]


def test_a_type_tag_with_a_scope_names_the_scope_as_the_module():
    # ms-swift's "[Bugfix (rlhf)] skip model reload …" had been the module "bugfix (rlhf)" in its week's highlights,
    # and verl's "[feat, SFT]" the modules sft and feat
    from prhub.engine import conventions
    from prhub.engine.scoring import modules_from_title

    assert modules_from_title("[Bugfix (rlhf)] skip model reload during colocate vLLM init") == ["rlhf"]
    assert modules_from_title("[feat, SFT] Support LigerKernel for SFT") == ["sft"]
    assert modules_from_title("[1/N][rollout, trainer] x") == ["rollout", "trainer"]
    # ruff tags its rule sets in code: "[`pylint`] …" had made the module "`pylint`" (printed as code in its brief)
    assert modules_from_title("[`pylint`] Detect more exotic NaN literals in `PLW0177`") == ["pylint"]
    assert conventions.words("[Bugfix (rlhf)] skip model reload")[0] == "bugfix"  # the tag's type word is read


# -- type ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("title", "files", "expected"), [
    ("[rollout] feat: add beam search", None, "feat"),
    ("[doc] doc: explain the config", None, "docs"),
    ("perf(trainer): fuse kernels", None, "perf"),
    ("[ci] chore: cache wheels", None, "chore"),
    ('Revert "[rollout] feat: add beam search"', None, "revert"),
    ('[model] fix: Revert "[model] feat: add MiniCPM"', None, "revert"),
    ("Fix crash when batch is empty", None, "fix"),
    ("Support Mistral models", None, "feat"),
    ("Update reward_function.rst", [change("docs/reward_function.rst")], "docs"),
    ("Tidy the workflow", [change(".github/workflows/ci.yml")], "ci"),
    ("More cases", [change("tests/test_a.py")], "test"),
    # A bare title on library code is judged by its lines, not called a chore (trl's titles name no type).
    ("Whatever", [change("pkg/a.py")], "feat"),
    ("Whatever", [change("pkg/a.py", additions=5, deletions=40)], "refactor"),
    ("Whatever", [change("uv.lock")], "chore"),
    ("🔬 SFT simplification", [change("trl/trainer/sft_trainer.py", 597, 526)], "refactor"),
    ("⬆️ Bump dev version", [change("setup.cfg")], "chore"),
    ("Release: v0.20", [change("setup.cfg")], "chore"),
    ("Suggest similar feature names on CLI", None, "feat"),
    ("Make cache tracking resilient to unexpected files", None, "fix"),
    ("Don't use libc::LOCK_* on Solaris", None, "fix"),
    ("⛰️ Reduce peak vram consumption with a selective log_softmax", None, "perf"),
    ("🔂 Use vLLM prefix caching for speedup", None, "perf"),
    # slime titles a fix "bugfix" (8 of its PRs had read as refactor or feat), trl "Hotfix CI: …"
    ("bugfix", [change("slime/backends/a.py", 3, 9)], "fix"),
    ("Hotfix CI: Mark tests as xfail", [change("tests/test_a.py")], "fix"),
    # tokio's doc comments live in its .rs files: the title's words say docs ("document …" had read as a feature)
    ("runtime: document interaction with fork()", [change("tokio/src/runtime/mod.rs", 20, 0)], "docs"),
    ("sync: clarify that recv returns None once closed", [change("tokio/src/sync/mpsc.rs", 6, 2)], "docs"),
    ("io: Explain how to flush stdout/stderr", [change("tokio/src/io/stdout.rs", 30, 0)], "docs"),
    ("Add docs and good defaults for `DistillationTrainer`", None, "docs"),
    # a message clarified, an EXPLAIN plan, a document store or the docs' CI are code
    ("Clarify warning for using `features` in `patch`", [change("src/cargo/a.rs", 20, 4)], "feat"),
    ("Clarify the error message when a path is missing", [change("src/a.rs", 9, 9)], "refactor"),
    ("Explain plan for streaming queries", [change("src/plan.rs", 200, 0)], "feat"),
    ("Document loader for PDFs", [change("src/loaders/pdf.py", 200, 0)], "feat"),
    ("Update doc CI", [change(".github/workflows/docs.yml")], "ci"),
    # a formatter's docstring handling is code; "Address" is no "add"; a test documented is a test
    ("Add support for docstring code formatting", [change("src/format.rs", 300, 20)], "feat"),
    ("Address doc review comments", [change("src/a.rs", 5, 5)], "refactor"),
    ("Document the num_items_in_batch denominator bug", [change("tests/test_distill.py", 30, 2)], "test"),
])
def test_type_from_prefix_verbs_and_paths(title, files, expected):
    assert score_pull(make_pr(title, files), CONFIG).type == expected


def test_parse_title_strips_tags_and_reads_bang_and_scope():
    assert parse_title("[BREAKING][fsdp] feat(ckpt)!: new format") == ("new format", "feat", "ckpt", True)
    assert parse_title("[BREAKING][refact]: move workers") == ("move workers", None, None, False)


# -- breaking ------------------------------------------------------------------------------------------------------

def test_declared_breaking_tag_bang_and_body():
    for title, body in (("[BREAKING][fsdp] feat: x", ""), ("feat!: x", ""), ("feat: x", "BREAKING CHANGE: renamed")):
        scored = score_pull(make_pr(title, body=body), CONFIG)
        assert scored.breaking and scored.breaking_reason
        assert "breaking" in kinds(scored)
    assert "title_convention" not in kinds(score_pull(make_pr("[BREAKING][fsdp] feat: x"), CONFIG))


BREAK_CASES = {
    "removed module": ([change("pkg/legacy.py", 0, 80, status="removed")], "removes public module pkg/legacy.py"),
    "deleted imported file": (
        [change("pkg/helpers.py", 0, 30, status="removed"),
         change("pkg/main.py", 1, 1, patch="@@ -1,2 +1,2 @@\n-from pkg.helpers import tidy\n+import os\n")],
        "deletes pkg/helpers.py, which other code imported"),
    "moved module": ([change("pkg/new_home.py", 0, 0, status="renamed", previous="pkg/old_home.py")],
                     "moves public module pkg/old_home.py to pkg/new_home.py"),
    "removed config key": (
        [change("pkg/config/ppo.yaml", 0, 1, patch="@@ -3,3 +3,2 @@\n   lr: 1e-6\n-  use_legacy_sampler: false\n")],
        "removes config key use_legacy_sampler"),
    "removed CLI option": (
        [change("pkg/cli.py", 0, 1,
                patch='@@ -9 +9 @@\n-    parser.add_argument("--fast-path", action="store_true")\n')],
        "removes CLI option --fast-path"),
    "renamed API": (
        [change("pkg/api.py", 1, 1, patch="@@ -1 +1 @@\n-def build_trainer(cfg):\n+def make_trainer(cfg):\n")],
        "renames public API in pkg/api.py: build_trainer → make_trainer"),
    "changed yaml default": (
        [change("pkg/config/ppo.yaml", 1, 1, patch="@@ -1 +1 @@\n-  micro_batch: 8\n+  micro_batch: 4\n")],
        "changes the default of micro_batch in pkg/config/ppo.yaml from 8 to 4"),
    "changed dataclass default": (
        [change("pkg/conf.py", 1, 1,
                patch="@@ -5 +5 @@\n-    clip_ratio: float = 0.2\n+    clip_ratio: float = 0.3\n")],
        "changes the default of clip_ratio in pkg/conf.py from 0.2 to 0.3"),
}


@pytest.mark.parametrize("case", sorted(BREAK_CASES))
def test_inferred_breaking_changes_carry_their_reason(case):
    files, reason = BREAK_CASES[case]
    scored = score_pull(make_pr("[trainer] refactor: tidy up", files), CONFIG)
    assert scored.breaking
    assert reason in scored.breaking_reason
    details = {r.kind: r.detail for r in scored.risks}
    assert reason in details["breaking"]
    assert "without [BREAKING]" in details["title_convention"]


def test_ordinary_changes_are_not_breaking():
    files = [change("pkg/api.py", 3, 1, patch="@@ -1 +1,3 @@\n def build(cfg):\n-    x = 1\n+    x = 2\n+    y = 3\n"),
             change("pkg/_private.py", 0, 10, status="removed"), change("tests/test_old.py", 0, 10, status="removed"),
             change("pkg/config/ppo.yaml", 1, 0, patch="@@ -1 +1,2 @@\n   lr: 1\n+  warmup: 10\n")]
    scored = score_pull(make_pr("[trainer] fix: x", files), CONFIG)
    assert not scored.breaking and scored.breaking_reason == ""


def test_a_module_moved_into_a_package_of_its_name_breaks_no_import():
    # polars #26190: io/delta.py became io/delta/functions.py beside a new io/delta/__init__.py; `import io.delta`
    # works as before, and the week had led with it as a breaking change
    into = [change("py/io/delta/functions.py", 0, 0, status="renamed", previous="py/io/delta.py"),
            change("py/io/delta/__init__.py", 5, 0, status="added")]
    assert not score_pull(make_pr("perf: Refactor scan_delta", into), CONFIG).breaking
    whole = [change("py/io/delta/__init__.py", 0, 0, status="renamed", previous="py/io/delta.py")]
    assert not score_pull(make_pr("perf: Refactor scan_delta", whole), CONFIG).breaking
    removed = [change("trl/cli.py", 0, 80, status="removed"), change("trl/cli/__init__.py", 80, 0, status="added")]
    assert not score_pull(make_pr("refactor: split the CLI", removed), CONFIG).breaking  # the same move, listed so
    # without the package's __init__.py the old path is gone
    assert score_pull(make_pr("perf: Refactor scan_delta", into[:1]), CONFIG).breaking


def test_dropping_a_runtime_version_breaks_its_users_and_says_what_they_do():
    # polars #25984 "Drop Python 3.9 support" was in its week's table only, not flagged (a reviewer's reading)
    from prhub.engine import headline

    dropped = score_pull(make_pr("feat(python): Drop Python 3.9 support", [change("pyproject.toml", 2, 2)]), CONFIG)
    assert dropped.breaking and dropped.breaking_reason == "no longer supports Python 3.9"
    assert headline.migration_step(dropped.breaking_reason, dropped.title, False) == (
        "Python 3.9 is no longer supported: move to a newer Python before upgrading", True)
    zh = score_pull(make_pr("CHORE Drop Python 3.9, add 3.13", [change("pyproject.toml", 2, 2)]),
                    CONFIG.with_overrides(language="zh"))
    assert zh.breaking_reason == "不再支持 Python 3.9"
    squeezed = score_pull(make_pr("Drop py3.9 support", [change("pyproject.toml", 2, 2)]), CONFIG)
    assert headline.migration_step(squeezed.breaking_reason, squeezed.title, False)[0] == \
        "Python 3.9 is no longer supported: move to a newer Python before upgrading"
    # not a dependency's version, nor code for an old runtime, nor the repository's own CI matrix
    for title in ("Drop vLLM 0.16 support", "Remove Python 2-only methods from URLOpen audit"):
        assert not score_pull(make_pr(title, [change("pkg/a.py", 2, 9)]), CONFIG).breaking
    for title in ("ci: drop Python 3.9", "Drop Node 18 as CI target"):
        assert not score_pull(make_pr(title, [change(".github/workflows/ci.yml", 2, 9)]), CONFIG).breaking


def test_a_scope_that_abbreviates_a_subsystem_is_said_as_its_name():
    # tokio titles its runtime work "rt:" and "runtime:": one module, not "runtime" beside a "fading" rt; the
    # listing's records (no files) say it the same
    from prhub.engine.scoring import modules_for

    assert modules_for(make_pr("rt: add runtime name", [change("tokio/src/runtime/builder.rs")]), CONFIG) == ["runtime"]
    assert modules_for(make_pr("rt: add runtime name", []), CONFIG) == ["runtime"]
    assert modules_for(make_pr("fix(ws): close frames", [change("src/helper/websocket/index.ts")]), CONFIG) == \
        ["websocket"]
    # a repository whose folder is called so keeps the short name; other short scopes are no guess (ui is not utils)
    assert modules_for(make_pr("fix(ws): x", [change("packages/ws/lib/index.js")]), CONFIG) == ["ws"]
    assert modules_for(make_pr("fix(ui): x", [change("src/utils/a.ts")]), CONFIG) == ["ui"]


# -- importance and key --------------------------------------------------------------------------------------------

def test_a_one_line_silent_corruption_fix_outranks_a_huge_generated_config():
    fix = make_pr("[trainer] fix: silent data loss when resuming from checkpoint",
                  [change("pkg/checkpoint.py", 1, 1)])
    generated = make_pr("[cfg] chore: regenerate configs", [change("pkg/config/_generated_ppo.yaml", 2000, 0)])
    assert score_pull(fix, CONFIG).importance > score_pull(generated, CONFIG).importance


def test_typo_and_docs_fixes_rank_low_and_capabilities_high():
    typo = score_pull(make_pr("[doc] fix: typo in README", [change("README.md", 1, 1)]), CONFIG)
    docs = score_pull(make_pr("[doc] feat: add a tutorial for PPO", [change("docs/ppo.md", 400, 0)]), CONFIG)
    ci = score_pull(make_pr("[ci] fix: retry flaky job", [change(".github/workflows/ci.yml", 3, 1)]), CONFIG)
    feature = score_pull(make_pr("[rollout] feat: support speculative decoding backend",
                                 [change("pkg/rollout/spec.py", 300, 10), change("tests/test_spec.py", 80, 0)]), CONFIG)
    assert typo.importance <= 1.0 and "typo/wording fix" in typo.reasons
    assert docs.importance <= 3.0 and "documentation only" in docs.reasons
    assert ci.importance <= 2.5
    assert feature.importance >= 6.0 and "new capability" in feature.reasons
    assert feature.key and not docs.key and not typo.key


def test_correctness_fix_on_core_path_beats_the_same_fix_in_examples():
    core = score_pull(make_pr("[fsdp] fix: deadlock in gradient all-reduce", [change("pkg/fsdp.py", 5, 2)]), CONFIG)
    example = score_pull(make_pr("[example] fix: deadlock in demo script", [change("examples/run.sh", 5, 2)]), CONFIG)
    assert core.importance > example.importance
    assert "fixes a hang (deadlock)" in core.reasons


def test_measured_performance_gain_scores_above_unmeasured():
    files = [change("pkg/kernels.py", 60, 10)]
    measured = make_pr("[perf] perf: fuse the log-prob kernel", files, body="Throughput goes from 1.2k to 1.8k "
                       "tokens/s, 1.5x faster on 8xH100.")
    unmeasured = make_pr("[perf] perf: fuse the log-prob kernel", files, body="Should be faster.")
    a, b = score_pull(measured, CONFIG), score_pull(unmeasured, CONFIG)
    assert a.importance > b.importance
    assert "performance gain with measured numbers" in a.reasons


def test_breaking_and_large_removals_score_high():
    removal = make_pr("[BREAKING][rollout] refactor: remove the legacy vLLM 0.5 backend",
                      [change("pkg/rollout/legacy.py", 0, 1800, status="removed"), change("tests/test_r.py", 0, 50)])
    scored = score_pull(removal, CONFIG)
    assert scored.importance >= 8.0
    assert "breaking change" in scored.reasons
    assert any(r.startswith("large removal/migration") for r in scored.reasons)


def test_version_bumps_stay_low():
    bump = score_pull(make_pr("[docker] chore: bump vllm to 0.9.2", [change("docker/Dockerfile.vllm", 1, 1),
                                                                     change("requirements.txt", 1, 1)]), CONFIG)
    assert bump.importance <= 3.5


def test_key_follows_the_configured_threshold():
    pr = make_pr("[rollout] fix: handle empty prompts", [change("pkg/rollout.py", 10, 2)])
    score = score_pull(pr, CONFIG).importance
    assert score_pull(pr, CONFIG.with_overrides(key_threshold=score)).key
    assert not score_pull(pr, CONFIG.with_overrides(key_threshold=score + 0.1)).key


def test_importance_and_insight_stay_in_range_with_one_decimal():
    huge = make_pr("[BREAKING][a, b] feat: support everything, fix crash, 10x faster",
                   [change(f"pkg/m{i}.py", 900, 900, status="removed") for i in range(20)],
                   body="Because the old path was wrong. Throughput 3x. However trade-off. Tested with pytest.\n" * 50)
    scored = score_pull(huge, CONFIG)
    for value in (scored.importance, scored.insight):
        assert 0.0 <= value <= 10.0 and round(value, 1) == value


# -- insight, summary, key points ----------------------------------------------------------------------------------

FILLED = """### What does this PR do?

Rollouts hang when a sequence exceeds the KV cache because the scheduler never frees the slot.
This frees slots on abort and retries the request once.

### Design & Code Changes

- free the slot in `Scheduler.abort`
- retry aborted requests once, then fail loudly

### Test

Added `tests/test_scheduler.py`; on 8xH100 the hang rate went from 3% of steps to 0%, throughput unchanged
(1.02x). The trade-off: one retry can hide a real engine bug, so the second failure raises.
"""


def test_unfilled_template_has_no_insight_and_a_filled_one_has_much():
    empty = score_pull(make_pr("[rollout] fix: hang", body=VERL_TEMPLATE), CONFIG)
    filled = score_pull(make_pr("[rollout] fix: hang", body=VERL_TEMPLATE.replace(
        "### What does this PR do?", FILLED, 1)), CONFIG)
    assert empty.insight <= 0.5
    assert empty.summary == "Hang" and empty.key_points == []
    assert filled.insight >= 6.0
    assert filled.summary.startswith("Rollouts hang when a sequence exceeds the KV cache")
    assert filled.key_points[:2] == ["Free the slot in Scheduler.abort",  # cleaned: a sentence, first letter up
                                     "Retry aborted requests once, then fail loudly"]
    why = next(r for r in filled.reasons if r.startswith("insight "))
    assert all(part in why for part in ("says why", "a design section", "measured results", "weighs trade-offs",
                                        "test evidence"))
    empty_why = next(r for r in empty.reasons if r.startswith("insight "))
    assert empty_why.endswith("the description adds nothing to the title")


def test_a_bots_generated_description_has_no_insight():
    # langgraph's dependabot PRs scored insight 6.5 each ("作者自述 655 词、说明了动机、附图…": upstream's release
    # notes pasted by the bot), so its week of bumps averaged 4.7 beside ruff's 1.6 of long human descriptions
    notes = FILLED.replace("Rollouts", "Bumps requests from 2.32.0 to 2.33.0. Release notes: rollouts")
    files = [change("requirements.txt", 1, 1)]
    assert score_pull(make_pr("chore(deps): bump requests", files, body=notes, author="alice"), CONFIG).insight >= 5
    bot = score_pull(make_pr("chore(deps): bump requests", files, body=notes, author="dependabot[bot]"), CONFIG)
    assert bot.insight == 0.0
    assert next(r for r in bot.reasons if r.startswith("insight ")) == "insight 0.0: a bot's generated description"


def test_summary_keeps_the_descriptions_language():
    body = "### What does this PR do?\n\n修复了长序列下 rollout 卡住的问题，原因是调度器没有释放槽位。\n"
    assert score_pull(make_pr("[rollout] fix: hang", body=body), CONFIG).summary.startswith("修复了长序列下")


# -- references and reverts ----------------------------------------------------------------------------------------

def test_references_are_collected_without_the_prs_own_number():
    pr = make_pr("[rollout] fix: follow-up of #7001 (#7278)", number=7300,
                 body="Follow-up of https://github.com/acme/trainer/pull/7100, see #7300 and #7001.")
    assert score_pull(pr, CONFIG).refs == [7001, 7100, 7278]


def test_revert_number_from_the_body_wins_over_the_title_suffix():
    pr = make_pr('Revert "[fsdp] fix: emit outputs (#6293)"', body="Reverts acme/trainer#6350", number=6360)
    scored = score_pull(pr, CONFIG)
    assert scored.type == "revert" and scored.reverts == 6350
    assert {r.kind: r.detail for r in scored.risks}["revert"] == "reverts #6350"
    assert "missing_tests" not in kinds(scored)


def test_revert_without_number_names_the_reverted_title():
    scored = score_pull(make_pr('Revert "[rollout] feat: resume on abort"'), CONFIG)
    assert scored.reverts is None
    assert {r.kind: r.detail for r in scored.risks}["revert"] == "reverts “[rollout] feat: resume on abort”"


# -- determinism and the Scorer ------------------------------------------------------------------------------------

def test_same_input_same_judgement():
    pr = make_pr("[rollout] fix: hang", body=FILLED, files=[change("pkg/a.py"), change("pkg/b.py", status="removed")])
    assert score_pull(pr, CONFIG).to_dict() == score_pull(pr, CONFIG).to_dict()


def test_heuristic_scorer_is_the_engine():
    pr = make_pr("[rollout] fix: hang", body=FILLED)
    scorer = HeuristicScorer(language="en")
    assert scorer.kind == "heuristic" and scorer.prompt_version == f"{ENGINE_VERSION}-en"
    assert scorer.score(pr, CONFIG, budget=None).to_dict() == score_pull(pr, CONFIG).to_dict()  # type: ignore[arg-type]


def test_a_breaking_prefix_word_declares_a_break():
    scored = score_pull(make_pr("[trainer] breaking: pass dataset as a required argument"), CONFIG)
    assert scored.breaking and scored.breaking_reason == "declared breaking in the title"
    assert "title_convention" not in kinds(scored)


def test_conventional_revert_names_its_target():
    scored = score_pull(make_pr('revert: "Use Mcore GPTModel"'), CONFIG)
    assert scored.type == "revert"
    assert {r.kind: r.detail for r in scored.risks}["revert"] == "reverts “Use Mcore GPTModel”"


@pytest.mark.parametrize(("title", "breaking"), [
    ("[trainer] chore: enable the V1 trainer by default", True),
    ("[megatron] fix: set ETP default to null", True),
    ("[rollout] feat: revert default value of max_num_seqs", True),
    ("[rollout] fix: add a default value check for request ids", False),
    ("[ci] feat: run pre-commit on all files by default", False),  # CI-only: no user sees it
])
def test_a_title_that_changes_a_default_is_breaking(title, breaking):
    files = [change(".github/workflows/lint.yml")] if title.startswith("[ci]") else [change("pkg/conf.py")]
    scored = score_pull(make_pr(title, files), CONFIG)
    assert scored.breaking is breaking
    assert (scored.breaking_reason == "changes a default, as its title says") is breaking  # not the title again
