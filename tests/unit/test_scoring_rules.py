"""The importance rule table (prhub.engine.rules): the classes issue 23 found missed, and repositories' conventions."""
from __future__ import annotations

import pytest
from prhub.core.config import RepoConfig
from prhub.core.errors import InputError
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine import headline, narrative, rules
from prhub.engine.analysis import analyse_period
from prhub.engine.changes import versions_named
from prhub.engine.classify import layout_module
from prhub.engine.scoring import facts, score_pull

from tests.unit.engine_support import CONFIG, change, history_entry, make_pr

WEEK = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")


def small_fixes(n: int) -> list:
    return [make_pr(f"[trainer] fix: handle an empty batch in step {i}", [change(f"pkg/trainer/s{i}.py", 3, 1)],
                    number=200 + i) for i in range(n)]


def subsystem_removal():
    gone = [change(f"pkg/interactions/{name}.py", 0, 300, status="removed")
            for name in ("base", "gsm8k", "weather", "registry")]
    return make_pr("[BREAKING] [env] refactor: deprecate pkg/interactions",
                   [*gone, change("docs/interaction.rst", 0, 400, status="removed"),
                    change("pkg/trainer/main.py", 5, 30)],
                   number=6074)


def test_a_breaking_removal_of_a_subsystem_is_key_and_in_the_weeks_top_third():
    # Issue 23: verl #6074 (-2,009 lines, tagged [env]) scored 4.5 beside one-line fixes: the [env] tag capped it.
    week = [subsystem_removal(), *small_fixes(8),
            make_pr("[rollout] feat: add a beam search sampler", [change("pkg/rollout/beam.py", 120, 0)], number=300)]
    scored = sorted((score_pull(p, CONFIG) for p in week), key=lambda s: -s.importance)
    removal = next(s for s in scored if s.number == 6074)
    assert removal.key and removal.importance >= 7.0, removal.reasons
    assert scored.index(removal) < len(scored) / 3
    assert any("removes a whole subsystem (pkg/interactions" in r for r in removal.reasons)


def test_a_small_deprecation_is_not_a_subsystem_removal():
    pr = make_pr("[BREAKING][env] refactor: deprecate one helper", [change("pkg/env/util.py", 2, 20)])
    assert not any("subsystem" in r for r in score_pull(pr, CONFIG).reasons)


def test_an_upgrade_users_install_is_not_scored_as_a_chore():
    bump = make_pr("[misc] chore: bump numpy to 2.0", [change("requirements.txt", 1, 1), change("setup.py", 1, 1)],
                   number=1)
    pinned = make_pr("📌 vLLM >= 0.7.1 for device fix", [change("setup.py", 1, 1)], number=2)
    dev_tool = make_pr("[ci] update ruff to 0.9", [change("requirements-dev.txt", 1, 1)], number=3)
    scored = {s.number: s for s in (score_pull(p, CONFIG) for p in (bump, pinned, dev_tool))}
    assert any("dependency users install (numpy" in r for r in scored[1].reasons)
    assert any("dependency users install (vLLM>=0.7.1)" in r for r in scored[2].reasons)
    assert scored[1].importance > scored[3].importance and scored[2].importance > scored[3].importance
    assert not any("users install" in r for r in scored[3].reasons)


def test_a_dockerfile_build_variable_is_not_a_dependency_pin():
    text = "Build args are overridable: `GPU_ARCH`, and the pinned `FA_TAG` / `TE_TAG` / `VLLM_TAG`."
    assert versions_named(text, "description") == []
    assert [p.name for p in versions_named("pin vllm to 0.8.4", "title")] == ["vllm"]


def test_a_fix_whose_description_explains_what_went_wrong_counts_more():
    files = [change("pkg/trainer/loss.py", 12, 4)]
    bare = make_pr("fix: guard the loss scale", files, number=1)
    explained = make_pr("fix: guard the loss scale", files, number=2, body=(
        "The loss scale was applied twice when gradient accumulation was on, because the trainer multiplied it "
        "before and after the micro-batches were summed. This happens when accumulation steps exceed one."))
    assert score_pull(explained, CONFIG).importance > score_pull(bare, CONFIG).importance
    assert "the description explains what went wrong" in score_pull(explained, CONFIG).reasons


def test_a_fix_that_quotes_its_exception_is_not_judged_a_silent_correctness_fix():
    # verl's tuning weeks: crash fixes whose description says "never initialized" or explains the cause scored as
    # silent correctness fixes; the traceback means the failure announced itself.
    files = [change("pkg/trainer/async_trainer.py", 4, 0)]
    crash = make_pr("fix: initialize the dump executor in the async trainer", files, number=1, body=(
        "The async trainer skips super().__init__(), so the dump executor is never initialized. This causes an "
        "AttributeError when generations are dumped during validation, because the executor does not exist."))
    silent = make_pr("fix: initialize the dump executor in the async trainer", files, number=2, body=(
        "The async trainer skips super().__init__(), so the dump executor is never initialized and every dumped "
        "generation was silently written with the previous step's rewards, because the executor was shared."))
    crashed, wrong = score_pull(crash, CONFIG), score_pull(silent, CONFIG)
    assert wrong.importance > crashed.importance
    assert not any(r.startswith(("the description explains", "the description shows results")) for r in crashed.reasons)
    assert "the description explains what went wrong" in wrong.reasons


def test_a_fix_of_what_training_computes_that_came_out_wrong_counts_more():
    # verl #3332 (loss not normalised over gradient-accumulation steps, grade 2) sat below the key line.
    files = [change("pkg/trainer/sft_trainer.py", 4, 2)]
    bare = make_pr("[trainer] fix: loss calculations for grad accumulation steps", files, number=1)
    told = make_pr("[trainer] fix: loss calculations for grad accumulation steps", files, number=2, body=(
        "For gradient accumulation steps over micro batches, the loss should be normalised before calling "
        "backward(); it was not, so every run with accumulation trained on a scaled loss."))
    scored = score_pull(told, CONFIG)
    assert scored.importance >= score_pull(bare, CONFIG).importance + 1.0
    assert "what training computes came out wrong (normalised)" in scored.reasons


def test_a_fix_titled_as_a_chore_is_judged_as_a_fix_not_capped_as_one():
    # verl #5610 "[model] chore: Fix Qwen3-235B precision issues on NPU" (grade 2) was capped at 3.0 as a chore.
    pr = make_pr("[model] chore: Fix Qwen3-235B precision issues on NPU", [change("pkg/models/qwen3.py", 130, 2)])
    scored = score_pull(pr, CONFIG)
    assert scored.type == "fix" and scored.importance > 4.0
    assert not any("convention" in r for r in scored.reasons)
    assert score_pull(make_pr("chore: tidy the model registry", [change("pkg/models/qwen3.py", 130, 2)]),
                      CONFIG).importance <= 3.0


def test_a_housekeeping_word_after_the_repositorys_name_is_its_feature():
    # cargo #16073 "Define cargo script's target-dir ..." was capped as script housekeeping.
    cargo = RepoConfig(repo="rust-lang/cargo", language="en")
    files = [change("src/cargo/util/context/mod.rs", 100, 60), change("tests/testsuite/script.rs", 10, 5)]
    feature = score_pull(make_pr("refactor: Define cargo script's target-dir using build-dir templating", files), cargo)
    assert not any(r.startswith("housekeeping") for r in feature.reasons), feature.reasons
    chore = score_pull(make_pr("refactor: tidy the release script", files), cargo)
    assert any(r.startswith("housekeeping") for r in chore.reasons)


def test_a_housekeeping_word_that_names_the_repositorys_own_source_is_its_work():
    # cargo: a new lint is the product, not lint housekeeping.
    cargo = RepoConfig(repo="rust-lang/cargo", language="en")
    lint = make_pr("feat(lints): Add non_kebab_case_bin lint",
                   [change("src/cargo/lints/rules/non_kebab_case_bin.rs", 250, 0, status="added"),
                    change("tests/testsuite/lints/non_kebab_case_bin.rs", 120, 0, status="added")])
    assert score_pull(lint, cargo).importance >= 6.0
    tidy = make_pr("fix lint warnings", [change("src/cargo/ops/fix.rs", 30, 30)])
    assert score_pull(tidy, cargo).importance <= 3.5


def test_the_repositorys_own_conventions_are_read():
    files = [change("pkg/a.py", 200, 20)]
    plain = score_pull(make_pr("feat: a new exporter", files), CONFIG)
    highlighted = score_pull(make_pr("feat: a new exporter", files, labels=["highlight"]), CONFIG)
    chore = score_pull(make_pr("feat: a new exporter", files, labels=["dependencies"]), CONFIG)
    assert highlighted.importance > plain.importance > chore.importance
    assert chore.importance <= 3.0 and any("convention" in r for r in chore.reasons)
    entry = score_pull(make_pr("feat: a new exporter", [*files, change("CHANGELOG.md", 2, 0)]), CONFIG)
    assert entry.importance > plain.importance and "writes its own changelog entry" in entry.reasons


def test_a_documentation_site_ships_its_docs():
    pr = make_pr("Add a guide to deploying on Kubernetes", [change("docs/deploy/kubernetes.md", 400, 0)])
    assert score_pull(pr, CONFIG).importance <= 2.5
    site = CONFIG.with_overrides(product_kinds=("docs",))
    assert score_pull(pr, site).importance > 2.5


def test_convention_keys_are_lists_of_names_and_survive_a_round_trip():
    config = RepoConfig.from_dict({"repo": "o/r", "chore_labels": ["deps"], "highlight_labels": ["release-notes"],
                                   "product_kinds": ["docs"]})
    assert config.chore_labels == ("deps",) and RepoConfig.from_dict(config.to_dict()) == config
    with pytest.raises(InputError, match="chore_labels must be a list of names"):
        RepoConfig.from_dict({"repo": "o/r", "chore_labels": "deps"})


def test_importance_says_which_rules_fired_and_the_cap_that_bound_it():
    # GIVEN a fix of a wrong result with tests, and a feature that only touches docs and CI, tagged [ci]
    fix = make_pr("fix: wrong loss normalisation", [change("pkg/loss.py", 200, 20), change("tests/test_loss.py")])
    support = make_pr("[ci] feat: add a build matrix", [change("docs/conf.py", 40), change(".github/w.yml", 9)])
    # WHEN judged THEN the fired rules are the first of the fix group with its points, the others in table order
    judged = rules.importance(facts(fix, CONFIG))
    fired = {f.rule.name: f.points for f in judged.fired}
    assert list(fired)[:2] == ["fix_silent", "size"] and fired["fix_silent"] == 2.5 and 2.3 < fired["size"] < 2.4
    assert "fix_crash" not in fired and "with_tests" in fired and judged.cap is None and judged.caps == ()
    assert judged.score == score_pull(fix, CONFIG).importance and list(judged.reasons) == \
        score_pull(fix, CONFIG).reasons[:len(judged.reasons)]
    # AND equal caps bind together: the cap is the first by name, the reason one of theirs
    for lang in ("en", "zh"):
        capped = rules.importance(facts(support, CONFIG.with_overrides(language=lang)))
        assert [c.name for c in capped.caps] == ["cap_support", "cap_tagged"] and capped.cap is capped.caps[0]
        assert capped.score == 3.0 and capped.reasons[-1] in {c.phrase.say(lang, tags="ci") for c in capped.caps}


def test_every_rule_says_why_in_both_languages():
    facts = {"what": "x", "lines": 1, "word": "w", "ref": "1", "label": "l", "tags": "t", "why": "y", "n": 3,
             "kind": "k", "id": "CVE-2026-1"}
    for rule in (*rules.RULES, *rules.CAPS):
        if rule.phrase is not None:
            for lang in ("en", "zh"):
                assert rule.phrase.say(lang, **facts).strip()


@pytest.mark.parametrize(("path", "repo", "module"), [
    ("src/cargo/ops/cargo_add/mod.rs", "cargo", "ops"),
    ("crates/cargo-util/src/paths.rs", "cargo", "cargo-util"),
    ("trl/trainer/grpo_trainer.py", "trl", "trainer"),
    ("trl/core.py", "trl", "trl"),
    ("verl/workers/rollout/vllm.py", "verl", "workers"),
    ("README.md", "trl", "root"),
    # workflows are the CI a [ci] tag names (torchmetrics had "CI 流水线" and "github 模块" side by side)
    (".github/workflows/greetings.yml", "torchmetrics", "ci"), (".circleci/config.yml", "x", "ci"),
    # a package named like a word of the repository's name (every pytorch-lightning PR read "lightning 模块")
    ("src/lightning/pytorch/trainer/trainer.py", "pytorch-lightning", "trainer"),
    ("src/lightning/fabric/fabric.py", "pytorch-lightning", "fabric"),
    # a folder of one folder per subsystem: gh's pkg/cmd/<command>/ read "cmd 模块" for nearly every PR
    ("pkg/cmd/repo/license/list.go", "cli", "repo"), ("internal/config/config.go", "cli", "config"),
    ("cmd/gh/main.go", "cli", "gh"), ("pkg/cmd/factory.go", "cli", "cmd"),
    # caddy's modules/<subsystem>/: its quarter had a "modules 模块" of 9 PRs
    ("modules/caddyhttp/reverseproxy/healthchecks.go", "caddy", "caddyhttp"),
    ("modules/standard/imports.go", "caddy", "standard"),
    # a JVM project's source sets and packages: okhttp's every PR read "commonJvmAndroid 模块", a Java project's "main"
    ("okhttp/src/commonJvmAndroid/kotlin/okhttp3/internal/dns/DnsCache.kt", "okhttp", "dns"),
    ("okhttp-dnsoverhttps/src/main/kotlin/okhttp3/dnsoverhttps/DnsOverHttps.kt", "okhttp", "okhttp-dnsoverhttps"),
    ("src/main/java/com/acme/shop/http/Client.java", "shop", "http"), ("src/io/net/tcp/stream.rs", "x", "io"),
    # a distribution's folder holding the package: pydantic-ai's week was one "pydantic_ai_slim 模块" of 37 PRs
    ("pydantic_ai_slim/pydantic_ai/models/openai.py", "pydantic-ai", "models"),
    ("py-polars/src/polars/dataframe/frame.py", "polars", "dataframe"),
    ("pydantic_evals/pydantic_evals/dataset.py", "pydantic-ai", "pydantic_evals"),  # a package of its own
])
def test_modules_follow_the_repositorys_own_layout(path, repo, module):
    assert layout_module(path, repo) == module


def test_conventional_scopes_and_emoji_titles_give_modules_and_types():
    cargo = RepoConfig(repo="rust-lang/cargo", language="en")
    scoped = score_pull(make_pr("fix(trim-paths): remap all paths", [change("src/cargo/core/compiler/mod.rs")]), cargo)
    assert (scoped.modules, scoped.type) == (["trim-paths"], "fix")
    trl = RepoConfig(repo="huggingface/trl", language="en")
    emoji = score_pull(make_pr("🎯 [SFT] add token accuracy metric", [change("trl/trainer/sft_trainer.py", 90, 2)]),
                       trl)
    assert (emoji.modules, emoji.type) == (["sft"], "feat")
    bare = score_pull(make_pr("👐 FSDP2+GRPO", [change("trl/trainer/grpo_trainer.py", 33, 7)]), trl)
    assert (bare.modules, bare.type) == (["trainer"], "feat")


def analysed(prs):
    scored = [score_pull(p, CONFIG) for p in prs]
    history = [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    return analyse_period(scored, [], WEEK, CONFIG, History.of(history, WEEK), "2026-06-22T00:00:00Z",
                          {"kind": "heuristic", "model": None, "prompt_version": "t"})


def test_no_theme_is_led_by_a_pr_that_is_not_key_and_a_theme_without_one_is_no_key_change():
    # Issue 23: a CI fix that is not key headed the first key-change section of a week.
    prs = [
        make_pr("[ci] fix: the `ray_cluster_setup` step times out", [change(".github/workflows/e2e.yml", 30, 10)],
                number=1, merged_at="2026-06-15T03:00:00Z"),
        make_pr("[ci] chore: cache the `ray_cluster_setup` images", [change(".github/workflows/e2e.yml", 5, 2)],
                number=2, merged_at="2026-06-16T03:00:00Z"),
        make_pr("[rollout] feat: support the async `AgentLoopManager` backend",
                [change("pkg/rollout/agent_loop.py", 400, 20), change("tests/test_agent_loop.py", 60, 0)],
                number=3, merged_at="2026-06-17T03:00:00Z"),
        make_pr("[rollout] fix: `AgentLoopManager` deadlock on shutdown", [change("pkg/rollout/agent_loop.py", 8, 2)],
                number=4, merged_at="2026-06-18T03:00:00Z"),
    ]
    report = analysed(prs)
    by_number = {p["number"]: p for p in report["prs"]}
    assert not by_number[1]["key"] and by_number[3]["key"]
    assert sorted(c["prs"] for c in report["clusters"]) == [[1, 2], [3, 4]]
    assert report["clusters"][0]["prs"] == [3, 4]  # the cluster with a key PR first
    text = narrative.engine_narrative(report)
    # without the highlights' claim on them, only the theme with a key PR is a key change
    changes = narrative._key_changes(report, report["language"] == "zh")
    assert [c["prs"] for c in changes if c["prs"] in ([1, 2], [3, 4])] == [[3, 4]]
    must = set(narrative.must_name(report))  # the top three are highlighted, key or not (issue 45)
    for note in text["highlights"]:
        assert by_number[note["prs"][0]]["key"] or note["prs"][0] in must


def test_what_a_chore_removes_is_not_what_it_repairs():
    # hono #5108 "chore(benchmark): remove not used benchmarks" scored 9.8, the month's lead: "not used" read as a
    # silently changed result, and an editor's benchmarks/deno/.vscode/settings.json as a config its users load.
    files = [change(f"benchmarks/deno/{name}.ts", 0, 20, status="removed") for name in ("fast", "faster", "oak")]
    files.append(change("benchmarks/deno/.vscode/settings.json", 0, 7, status="removed"))
    removal = score_pull(make_pr("chore(benchmark): remove not used benchmarks", files, number=760), CONFIG)
    assert not removal.breaking and not removal.key
    assert not any("silently" in r for r in removal.reasons)
    # an experiment's config and a benchmark suite's module are nothing users load (peft #3115 "Remove deprecated
    # Bone experiments" was breaking for method_comparison/experiments/.../adapter_config.json; trl #2085 scored 8.9)
    gone = [change("method_comparison/experiments/bone/llama-3B/adapter_config.json", 0, 20, status="removed"),
            change("benchmark/benchmark_level1.py", 0, 90, status="removed")]
    assert not score_pull(make_pr("Remove deprecated Bone experiments", gone, number=761), CONFIG).breaking
    kept = [change("pkg/configs/default.yaml", 0, 20, status="removed")]
    assert score_pull(make_pr("Remove the default config", kept, number=762), CONFIG).breaking
    # ... while a chore that names what it repairs still counts it, and so does a fix that removes
    repair = facts(make_pr("chore: lr schedule not applied after resume", [change("pkg/sched.py", 20, 4)]), CONFIG)
    assert "fix_silent" in {f.rule.name for f in rules.importance(repair).fired}
    fix = facts(make_pr("fix: remove the stale cache that returns wrong logits", [change("pkg/cache.py", 5, 30)]),
                CONFIG)
    assert "fix_silent" in {f.rule.name for f in rules.importance(fix).fired}


def test_a_title_that_only_mentions_a_default_changes_none():
    # axum #3550 "Make it easier to visually scan for default features" was a breaking highlight ("changes a default")
    files = [change("axum/src/lib.rs", 20, 18)]
    assert not score_pull(make_pr("Make it easier to visually scan for default features", files, number=780),
                          CONFIG).breaking
    # ruff #23929 "[ty] Make the default database truly statically infallible" (an internal type) led its week as
    # breaking, with "迁移：依赖旧默认值之处需显式设置原值" and a docs-out-of-step risk
    assert not score_pull(make_pr("[ty] Make the default database truly statically infallible", files, number=782),
                          CONFIG).breaking
    for title in ("make vllm the default rollout", "Make Megatron Bridge default", "change the default lr",
                  "Drop a few rules from the preview default set", "Add newly stabilized rules to defaults"):
        assert score_pull(make_pr(title, files, number=781), CONFIG).breaking, title  # ruff #23879 was not
    assert not score_pull(make_pr("[trainer] feat: add reward loop config to default config", files, number=783),
                          CONFIG).breaking  # a section added to the default config file


def test_a_changed_default_names_the_way_back_its_author_gives():
    # ruff #26157 "Make warning diagnostics produce exit code 1 by default" said "set the old default explicitly"
    # while its description names the opt-out
    body = ("Make warning diagnostics produce exit code 1 by default. Add `--exit-zero-on-warning` as an explicit "
            "command-line opt-out. Keep `terminal.error-on-warning` configurable.")
    title = "[ty] Make warnings fail by default"
    files = [change("crates/ty/src/args.rs", 40, 5)]
    for lang, step in (("en", "use `--exit-zero-on-warning` where you rely on the old behaviour"),
                       ("zh", "依赖旧行为之处改用 `--exit-zero-on-warning`")):
        pr = score_pull(make_pr(title, files, body=body), CONFIG.with_overrides(language=lang))
        assert pr.breaking and headline.migration_step(pr.breaking_reason, title, lang == "zh") == (step, True)
    plain = score_pull(make_pr(title, files, body="Warnings now fail."), CONFIG)
    assert headline.migration_step(plain.breaking_reason, title, False)[0] == \
        "set the old default explicitly where you rely on it"


def test_a_default_the_repository_calls_its_build_or_tests_breaks_no_user():
    # polars #28358 "build: Set the default `dev` profile to `line-tables-only`" led its week as a breaking change
    manifest = [change("Cargo.toml", 2, 2)]
    assert not score_pull(make_pr("build: Set the default `dev` profile to `line-tables-only`", manifest,
                                  number=782), CONFIG).breaking
    assert not score_pull(make_pr("test: set the default seed to 0", [change("pkg/sampler.py", 2, 2)], number=783),
                          CONFIG).breaking
    # the same words in a PR the repository does not call tooling still change what users get
    assert score_pull(make_pr("Set the default `dev` profile to `line-tables-only`", manifest, number=784),
                      CONFIG).breaking


def test_a_fix_that_closes_a_security_advisory_is_a_key_fix_and_a_dependency_bump_for_one_is_not():
    # caddy's "forward_auth: `copy_headers` does not strip client-supplied identity headers (Fixes GHSA-7r4p-vjf4-
    # gxv4)" read as a feature of 5.3; cargo #17031 "Fix CVE-2026-5222 and CVE-2026-5223" scored 4.8
    own = score_pull(make_pr("forward_auth: `copy_headers` does not strip client-supplied identity headers "
                             "(Fixes GHSA-7r4p-vjf4-gxv4)", [change("modules/caddyhttp/auth.go", 20, 4)]), CONFIG)
    assert own.type == "fix" and own.key, (own.type, own.importance)
    assert any("GHSA-7R4P-VJF4-GXV4" in r for r in own.reasons), own.reasons
    plain = score_pull(make_pr("fix(forward_auth): `copy_headers` strips client-supplied identity headers",
                               [change("modules/caddyhttp/auth.go", 20, 4)]), CONFIG)
    assert plain.type == "fix" and own.importance >= plain.importance + 2.0, (own.importance, plain.importance)
    bump = score_pull(make_pr("Bump `transformers` floor to >=5.5.0 for CVE-2026-5241",
                              [change("pyproject.toml", 1, 1), change("pkg/compat.py", 2, 2)]), CONFIG)
    assert bump.type == "chore" and not any("CVE" in r for r in bump.reasons), bump.reasons


def test_a_repositorys_dev_tooling_is_no_public_module_and_a_release_pr_is_a_chore():
    # arrow-rs #10451 ("Update version to 59.2.0, update changelog generation to git-cliff") was a breaking
    # highlight for deleting dev/release/label_issues.py; its "Prepare for 58.1.0 release" PRs were refactors
    release = make_pr("Update version to 59.2.0, update changelog generation to git-cliff",
                      [change("Cargo.toml", 40, 40), change("CHANGELOG.md", 200, 0), change("cliff.toml", 80, 0),
                       change("dev/release/label_issues.py", 0, 120, status="removed"),
                       change("dev/release/update_change_log.sh", 10, 30)])
    scored = score_pull(release, CONFIG)
    assert not scored.breaking and scored.type == "chore"
    for title in ("Prepare for `58.1.0` release", "Prepare for 57.1.0 release: Changelog and Version", "Release 0.1.1"):
        assert score_pull(make_pr(title, [change("Cargo.toml", 40, 40), change("CHANGELOG.md", 200, 0),
                                          change("dev/release/README.md", 2, 2)]), CONFIG).type == "chore", title
    # a library's module of that name is no tooling
    assert score_pull(make_pr("Remove the dev helpers", [change("pkg/dev/helpers.py", 0, 120, status="removed")]),
                      CONFIG).breaking


def test_a_benchmark_ships_to_no_user_and_weighs_as_a_test():
    # arrow-rs #10512 "bench(parquet): cover DELTA_BYTE_ARRAY large values in the arrow_writer benchmark" (one
    # file under parquet/benches/) was a 6.4 feature, ranked second of an 80-PR week
    bench = make_pr("bench(parquet): cover DELTA_BYTE_ARRAY large values in the arrow_writer benchmark",
                    [change("parquet/benches/arrow_writer.rs", 180, 4)])
    scored = score_pull(bench, CONFIG)
    assert scored.type == "test" and not scored.key
    # a fix's size is its shipped code's: a 1,265-line benchmark beside it adds no weight (lmdeploy #4633)
    shipped = [change("pkg/serve/parser.py", 60, 40), change("tests/test_parser.py", 30, 10)]
    with_bench = score_pull(make_pr("fix: avoid per-request tokenizer work in parsers",
                                    [*shipped, change("benchmark/benchmark_chat.py", 1265, 0)]), CONFIG)
    alone = score_pull(make_pr("fix: avoid per-request tokenizer work in parsers", shipped), CONFIG)
    assert with_bench.importance == alone.importance


@pytest.mark.parametrize("title, kind", [
    # what users meet changes: ruff's and mypy's changelogs file these as features ("Changed"), not internal work
    ("Improve handling of builtin symbols in linter rules", "feat"),
    ("Show fixes by default", "feat"),
    ("Respect `--output-format` with `--watch`", "feat"),
    ("Narrow match captures based on previous cases", "feat"),
    # an improvement of speed is performance, of its docs documentation
    ("Improve parquet BinaryView / StringView decoder performance (up to -35%)", "perf"),
    ("Improve value and reference passing efficiency", "perf"),
    ("Improve the performance docs", "docs"),
    # work saved is performance, not a fix (ruff's ty week typed 20 such PRs as fixes and features)
    ("[ty] Avoid string allocations in implicit attribute queries", "perf"),
    ("Avoid cloning parsed TOML manifest in `ManifestErrorContext`", "perf"),
    ("[ty] Reduce bound typevar identity overhead", "perf"),
    ("Avoid panic when the manifest is empty", "fix"),
])
def test_a_title_that_changes_behaviour_is_a_feature_and_one_that_speeds_up_is_perf(title: str, kind: str):
    assert score_pull(make_pr(title, [change("pkg/core.py", 30, 30)]), CONFIG).type == kind


def test_a_behaviour_verb_on_tests_alone_is_a_test():
    assert score_pull(make_pr("Skip the flaky rollout test on CPU", [change("tests/test_rollout.py", 3, 1)]),
                      CONFIG).type == "test"


def test_a_behaviour_verb_about_tests_docs_or_a_deprecation_and_a_number_that_is_no_version():
    for title in ("Improve `coalesce` kernel tests", "Improve consistency of some rule docs",
                  "Mark `foo` as deprecated"):
        assert score_pull(make_pr(title, [change("pkg/core.py", 30, 30)]), CONFIG).type != "feat", title
    assert score_pull(make_pr("Release 0.16.0", [change("pkg/core.py", 3, 3)]), CONFIG).type == "chore"
    assert score_pull(make_pr("Release 2 GPUs after rollout", [change("pkg/core.py", 30, 30)]), CONFIG).type != "chore"
    assert score_pull(make_pr("Improve error handling for latency tracking", [change("pkg/core.py", 30, 30)]),
                      CONFIG).type != "perf"
