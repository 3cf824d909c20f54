"""The week's analysis on small weeks built in the tests: stats, modules and trends, hot files, reverts, clusters."""
from __future__ import annotations

import json
import random
from dataclasses import replace

from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine import observations
from prhub.engine.analysis import analyse_period
from prhub.engine.scoring import score_pull

from tests.unit.engine_support import CONFIG, change, history_entry, make_pr

WEEK = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
SCORER = {"kind": "heuristic", "model": None, "prompt_version": "engine-test"}
FIELDS = {"schema", "repo", "period", "generated_at", "language", "scorer", "stats", "prs", "modules", "hot_files",
          "clusters", "reverts", "risks", "highlights", "key_changes", "trends", "summary", "suggestions", "unscored",
          "notes"}


def report(prs, history=(), unscored=(), config=CONFIG):
    scored = [score_pull(p, config) for p in prs]
    listing = [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    return analyse_period(scored, list(unscored), WEEK, config, History.of([*history, *listing], WEEK),
                          "2026-06-22T01:00:00Z", SCORER)


def week_prs():
    return [
        make_pr("[rollout, vllm] feat: support prefix caching", [change("pkg/rollout/vllm.py", 200, 10),
                                                                  change("tests/test_vllm.py", 50, 0)], number=1,
                author="alice", merged_at="2026-06-15T02:00:00Z", reviews=[("carol", "APPROVED")]),
        make_pr("[rollout] fix: prefix caching crash with LoRA (follow-up of #1)",
                [change("pkg/rollout/vllm.py", 5, 1), change("uv.lock", 300, 300)], number=2, author="dave",
                merged_at="2026-06-16T02:00:00Z", reviews=[("carol", "APPROVED"), ("erin", "COMMENTED")]),
        make_pr("[trainer] feat: add entropy bonus", [change("pkg/trainer/loss.py", 40, 2),
                                                      change("uv.lock", 10, 10)], number=3, author="alice",
                merged_at="2026-06-17T02:00:00Z"),
        make_pr("[doc] docs: typo in README", [change("README.md", 1, 1)], number=4, author="frank",
                merged_at="2026-06-18T02:00:00Z"),
    ]


def test_report_carries_every_field_and_the_stats_add_up():
    result = report(week_prs(), history=[history_entry(90, "[rollout] fix: x", "2026-06-01T00:00:00Z", "alice")])
    assert set(result) == FIELDS | {"reviews"}  # its PRs carry reviews: the period's review facts follow them
    stats = result["stats"]
    assert stats["pr_count"] == 4 and stats["authors"] == 3
    assert stats["additions"] == 200 + 50 + 5 + 300 + 40 + 10 + 1
    assert stats["key_pr_count"] == sum(p["key"] for p in result["prs"])
    assert stats["new_contributors"] == ["dave", "frank"]  # alice merged before the week
    assert stats["types"] == {"feat": 2, "docs": 1, "fix": 1}
    assert stats["reviewers"] == [{"login": "carol", "reviews": 2}, {"login": "erin", "reviews": 1}]
    assert [p["number"] for p in result["prs"]][-1] == 4  # the typo fix ranks last
    assert result["period"] == {"since": "2026-06-15", "until": "2026-06-21", "tz": "Asia/Shanghai"}


def test_a_pr_counts_once_per_module_and_hot_files_ignore_lock_files():
    result = report(week_prs())
    modules = {m["name"]: m for m in result["modules"]}
    assert modules["rollout"]["pr_count"] == 2 and modules["rollout"]["prs"] == [1, 2]
    assert modules["vllm"]["prs"] == [1]
    assert result["hot_files"] == [{"path": "pkg/rollout/vllm.py", "pr_count": 2, "prs": [1, 2]}]


def test_trends_against_the_previous_four_weeks():
    history = []
    for week, day in enumerate(("2026-05-18", "2026-05-25", "2026-06-01", "2026-06-08")):
        history.append(history_entry(200 + week, "[trainer] fix: a", f"{day}T03:00:00Z"))
        history.append(history_entry(300 + week, "[trainer] fix: b", f"{day}T04:00:00Z"))
        history.append(history_entry(400 + week, "[ci] chore: c", f"{day}T05:00:00Z", modules=["ci"]))
        history.append(history_entry(500 + week, "[rollout] fix: d", f"{day}T05:00:00Z"))
    result = report(week_prs(), history=history)
    modules = {m["name"]: m for m in result["modules"]}
    assert modules["trainer"] | {"prs": None} == {"name": "trainer", "pr_count": 1, "prs": None, "baseline": 2.0,
                                                  "delta": -1.0, "trend": "fading"}
    assert modules["rollout"]["baseline"] == 1.0 and modules["rollout"]["trend"] == "steady"
    assert modules["ci"] == {"name": "ci", "pr_count": 0, "prs": [], "baseline": 1.0, "delta": -1.0,
                             "trend": "fading"}
    assert modules["vllm"]["trend"] == "new"
    assert result["trends"]["weeks"] == [
        {"since": "2026-05-18", "until": "2026-05-24", "pr_count": 4},
        {"since": "2026-05-25", "until": "2026-05-31", "pr_count": 4},
        {"since": "2026-06-01", "until": "2026-06-07", "pr_count": 4},
        {"since": "2026-06-08", "until": "2026-06-14", "pr_count": 4},
        {"since": "2026-06-15", "until": "2026-06-21", "pr_count": 4},
    ]


def test_rising_module():
    history = [history_entry(10, "[rollout] fix: a", "2026-06-08T03:00:00Z")]
    prs = [make_pr(f"[rollout] fix: thing {i}", [change(f"pkg/r{i}.py")], number=i,
                   merged_at="2026-06-16T03:00:00Z") for i in range(1, 4)]
    assert report(prs, history)["modules"][0] | {"prs": None} == {
        "name": "rollout", "pr_count": 3, "prs": None, "baseline": 0.25, "delta": 2.75, "trend": "rising"}


def test_the_follow_ups_watch_a_rising_module_not_the_top_level_files():
    # gh's October ended "关注活跃度…上升的模块：仓库根目录": its README and go.mod are no part anyone watches
    history = [history_entry(10, "[rollout] fix: a", "2026-06-08T03:00:00Z"),
               history_entry(11, "docs: a", "2026-06-08T03:00:00Z", modules=["root"])]
    prs = [make_pr(f"[rollout] fix: thing {i}", [change(f"pkg/r{i}.py")], number=i,
                   merged_at="2026-06-16T03:00:00Z") for i in range(1, 4)]
    prs += [make_pr(f"chore: top file {i}", [change(f"NOTES{i}.txt")], number=i, merged_at="2026-06-16T03:00:00Z")
            for i in range(4, 7)]
    result = report(prs, history)
    assert {m["name"] for m in result["modules"] if m["trend"] == "rising"} >= {"rollout", "root"}
    said = [s for s in observations.suggestions(result, False) if s.startswith("Watch")]
    assert said == ["Watch the modules gaining activity: rollout."]


def test_without_earlier_history_there_are_no_newcomers_and_a_note_says_so():
    result = report(week_prs())
    assert result["stats"]["new_contributors"] == []
    assert any("no history" in n for n in result["notes"])


def test_revert_chain_across_weeks_through_history():
    history = [history_entry(50, "[rollout] feat: resume generation on abort", "2026-06-03T03:00:00Z"),
               history_entry(60, 'Revert "[rollout] feat: resume generation on abort"', "2026-06-10T03:00:00Z")]
    reland = make_pr("[rollout] feat: resume generation on abort", [change("pkg/rollout/abort.py")], number=70,
                     merged_at="2026-06-17T03:00:00Z")
    result = report([reland], history)
    assert result["reverts"] == [{"pr": 60, "reverts": 50, "relanded_by": 70,
                                  "title": "[rollout] feat: resume generation on abort", "relanded_how": "reland"}]


def test_revert_in_the_week_by_number_and_by_title():
    original = make_pr("[fsdp] fix: emit outputs (#6293)", [change("pkg/fsdp.py")], number=6350,
                       merged_at="2026-06-15T03:00:00Z")
    revert = make_pr('Revert "[fsdp] fix: emit outputs (#6293)"', [change("pkg/fsdp.py")], number=6360,
                     body="Reverts acme/trainer#6350", merged_at="2026-06-16T03:00:00Z")
    reland = make_pr("[fsdp] fix: emit outputs", [change("pkg/fsdp.py"), change("tests/test_fsdp.py")],
                     number=6386, merged_at="2026-06-18T03:00:00Z")
    untitled_revert = make_pr('Revert "[ci] chore: pin torch-npu"', [change("docker/Dockerfile.npu")], number=6400,
                              merged_at="2026-06-19T03:00:00Z")
    pinned = history_entry(6390, "[ci] chore: pin torch-npu", "2026-06-12T03:00:00Z")
    result = report([original, revert, reland, untitled_revert], [pinned])
    assert result["reverts"] == [
        {"pr": 6360, "reverts": 6350, "relanded_by": 6386, "title": "[fsdp] fix: emit outputs (#6293)",
         "relanded_how": "reland"},
        {"pr": 6400, "reverts": 6390, "relanded_by": None, "title": "[ci] chore: pin torch-npu"},
    ]
    cluster = next(c for c in result["clusters"] if 6360 in c["prs"])
    assert cluster["prs"] == [6350, 6360, 6386]


def test_clusters_join_references_and_shared_files_and_have_titles():
    result = report(week_prs())
    assert result["clusters"] == [{"title": "rollout: support prefix caching", "prs": [1, 2], "modules": ["rollout"],
                                   "reason": "cross-references, 1 shared file, common title terms"}]


def test_unrelated_prs_sharing_only_a_busy_file_do_not_cluster():
    prs = [make_pr(f"[m{i}] fix: topic{i} alpha{i}", [change("pkg/trainer.py"), change(f"pkg/own{i}.py")],
                   number=i, merged_at="2026-06-16T03:00:00Z") for i in range(1, 9)]
    assert report(prs)["clusters"] == []


def test_a_path_names_its_last_part_not_the_type_it_lives_in():
    # polars 2026-01-19: a hash_rows deadlock "of 0-width DataFrame" and UB in `DataFrame::transpose_from_dtype`
    # share only polars' central type; a path's qualifier is where the method lives, no subject of its own
    def fix(title, path, number):
        return make_pr(title, [change(path, 9, 3)], number=number, merged_at="2026-06-16T03:00:00Z")

    prs = [fix("fix: Fix deadlock on `hash_rows()` of 0-width DataFrame", "crates/polars-core/src/hash.rs", 26154),
           fix("fix(rust): Fix UB in `DataFrame::transpose_from_dtype`", "crates/polars-ops/src/transpose.rs", 26203),
           fix("fix: guard `DataFrame::transpose_from_dtype` on empty input", "crates/polars-ops/src/t2.rs", 26204)]
    assert [c["prs"] for c in report(prs)["clusters"]] == [[26203, 26204]]  # the same method: one subject


def test_risks_are_aggregated_per_kind_with_details():
    prs = week_prs() + [make_pr("[rollout] refactor: drop old sampler", [change("pkg/sampler.py", 0, 40, "removed")],
                                number=5, merged_at="2026-06-19T03:00:00Z")]
    risks = {r["kind"]: r for r in report(prs)["risks"]}
    assert list(risks)[0] == "breaking"
    assert risks["breaking"]["prs"] == [5]
    assert risks["breaking"]["detail"] == "#5: removes public module pkg/sampler.py"
    assert risks["missing_tests"]["prs"] == [2, 3, 5]
    assert all(item["detail"] for r in risks.values() for item in r["items"])


def test_unscored_prs_are_listed_and_counted_in_the_weeks_trend():
    unscored = [{"number": 9, "title": "x", "url": "u", "reason": "GitHub said 502 three times"}]
    result = report(week_prs(), unscored=unscored)
    assert result["unscored"] == unscored
    assert result["stats"]["pr_count"] == 5 == result["trends"]["weeks"][-1]["pr_count"]  # every merged PR
    assert result["stats"]["unscored_count"] == 1  # the averages are of the scored PRs only
    assert result["stats"]["avg_importance"] == report(week_prs())["stats"]["avg_importance"]
    assert any("could not be scored" in n for n in result["notes"])


def test_same_input_same_report_whatever_the_order():
    prs = week_prs()
    history = [history_entry(90, "[rollout] fix: x", "2026-06-01T00:00:00Z", "alice")]
    first = json.dumps(report(prs, history), sort_keys=True)
    shuffled = prs[:]
    random.Random(7).shuffle(shuffled)
    assert json.dumps(report(shuffled, list(reversed(history))), sort_keys=True) == first


def test_an_empty_week():
    result = report([])
    assert result["stats"]["pr_count"] == 0 and result["stats"]["avg_importance"] == 0.0
    assert result["prs"] == [] and result["clusters"] == [] and result["hot_files"] == []


def test_a_short_history_says_how_far_first_time_looks_back():
    result = report(week_prs(), history=[history_entry(90, "[rollout] fix: x", "2026-05-20T00:00:00Z", "alice")])
    assert "first-time contributors are judged against the history since 2026-05-20 only" in result["notes"]
    long_ago = history_entry(80, "[rollout] fix: y", "2025-01-01T00:00:00Z", "zed")
    assert not any("first-time" in n for n in report(week_prs(), history=[long_ago])["notes"])
    # eight months is short still: a maintainer with no PR in them (vite's, in an export of 33 weeks) is no newcomer
    months = report(week_prs(), history=[history_entry(81, "[rollout] fix: z", "2025-10-01T00:00:00Z", "zed")])
    assert "first-time contributors are judged against the history since 2025-10-01 only" in months["notes"]
    assert months["stats"]["new_contributors_window"] == 37


def test_generated_files_and_lock_files_do_not_relate_prs():
    prs = [make_pr(f"[m{i}] fix: topic{i}", [change("pkg/config/_generated_ppo.yaml"), change("uv.lock"),
                                            change("pkg/config/_generated_sft.yaml"), change(f"pkg/own{i}.py")],
                   number=i, merged_at="2026-06-16T03:00:00Z") for i in range(1, 3)]
    result = report(prs)
    assert result["clusters"] == [] and result["hot_files"] == []


def test_clusters_stay_small_when_many_prs_are_linked():
    prs = [make_pr(f"[rollout] feat: speculative decoding part {i}", [change("pkg/rollout/spec.py")], number=i,
                   body=f"follow-up of #{i - 1}", merged_at="2026-06-16T03:00:00Z") for i in range(1, 15)]
    sizes = [len(c["prs"]) for c in report(prs)["clusters"]]
    assert max(sizes) <= 6 and sum(sizes) >= 12


def test_stats_say_how_far_back_new_contributors_were_judged():
    fresh = report(week_prs(), history=[history_entry(90, "[rollout] fix: x", "2026-05-18T00:00:00Z", "zed")])
    assert fresh["stats"]["history_since"] == "2026-05-18"
    assert fresh["stats"]["new_contributors_window"] == 4  # the four listed trend weeks are all it knows
    assert fresh["stats"]["new_contributors"]
    long_ago = report(week_prs(), history=[history_entry(80, "[rollout] fix: y", "2025-01-01T00:00:00Z", "zed")])
    assert long_ago["stats"]["new_contributors_window"] == 0
    none = report(week_prs())["stats"]
    assert (none["history_since"], none["new_contributors_window"], none["new_contributors"]) == ("", 0, [])


def test_prs_that_only_share_files_are_not_one_theme():
    # Issue 23: a loss-computation change landed in a worker-primitives theme because both edit the same files.
    files = ["pkg/engine/impl.py", "pkg/engine/base.py", "tests/test_engine.py"]
    prs = [make_pr("[megatron] feat: chunked entropy", [change(f, 80) for f in files], number=1,
                   merged_at="2026-06-15T02:00:00Z"),
           make_pr("[worker] chore: tinker primitives", [change(f, 5) for f in files], number=2,
                   merged_at="2026-06-16T02:00:00Z")]
    assert report(prs)["clusters"] == []


def same_object_prs():
    """Two PRs whose descriptions name the same function, their titles nothing in common."""
    files = ["pkg/megatron/impl.py", "tests/test_engine.py"]
    return [make_pr("[megatron] feat: chunked entropy", [change(f, 80) for f in files], number=1,
                    body="Computes `entropy_from_logits` in chunks to cap the peak memory of long sequences.",
                    merged_at="2026-06-15T02:00:00Z"),
            make_pr("[worker] fix: guard an empty batch", [change(f, 5) for f in files], number=2,
                    body="`entropy_from_logits` returned NaN for an empty batch after the chunking change.",
                    merged_at="2026-06-16T02:00:00Z")]


def test_prs_naming_the_same_object_join_and_the_theme_is_named_by_its_lead():
    clusters = report(same_object_prs())["clusters"]
    assert [c["prs"] for c in clusters] == [[1, 2]]
    assert clusters[0]["title"] == "megatron: chunked entropy"


def test_the_names_a_description_gives_join_prs_in_every_report_language():
    # arrow-rs 2026-08-03 grouped its variant PRs one way in en and another in zh: the grouping read the summary,
    # which a zh report builds from the translated title, so a name only the description gave was lost in zh
    prs = same_object_prs()
    zh = report(prs, config=replace(CONFIG, language="zh"))
    assert [c["prs"] for c in zh["clusters"]] == [c["prs"] for c in report(prs)["clusters"]] == [[1, 2]]
    assert "entropy_from_logits" not in " ".join(p["summary"] for p in zh["prs"])  # the zh summary does not say it


def test_flags_of_the_command_a_template_runs_join_nothing():
    # arrow-rs 2026-08-03 joined a geometry fix to four lint PRs: every description lists the same test command
    # ("cargo clippy --workspace --all-targets --all-features") and two of them share a crate
    tested = "## Are these changes tested?\n\n- `cargo clippy --workspace --all-targets --all-features`\n- unit tests"
    prs = [make_pr("geo: fix wraparound bound width", [change("pkg/geo/bounding.py", 12)], number=1,
                   body=f"The wraparound width used the wrong end.\n\n{tested}", merged_at="2026-06-15T02:00:00Z"),
           make_pr("Enable the allow_attributes lint for geo", [change("pkg/geo/interval.py", 20)], number=2,
                   body=f"Part of the lint sweep.\n\n{tested}", merged_at="2026-06-16T02:00:00Z")]
    assert report(prs)["clusters"] == []


def test_a_zh_theme_is_named_without_quoting_an_english_title():
    # arrow-rs 2026-08-17's related PRs read "arrow-cmp：“Speed up eq/neq of a byte-view array against a short…”":
    # 21 of 95 zh cluster titles of the busiest weeks of six exports quoted their lead's English title
    files = ["pkg/cmp/byte_view.py", "tests/test_byte_view.py"]
    prs = [make_pr("[cmp] perf: Speed up eq/neq of a byte-view array against a short scalar",
                   [change(f, 90) for f in files], number=1, body="`eq_short_scalar` skips the prefix compare.",
                   merged_at="2026-06-15T02:00:00Z"),
           make_pr("[cmp] test: sweep byte-view scalar comparison across a size range", [change(files[1], 40)],
                   number=2, body="Benchmarks `eq_short_scalar` (#1).", merged_at="2026-06-16T02:00:00Z")]
    clusters = report(prs, config=replace(CONFIG, language="zh"))["clusters"]
    assert [c["prs"] for c in clusters] == [[1, 2]]
    assert clusters[0]["title"] == "cmp：性能 #1 等 2 个 PR"


def test_one_shared_file_and_one_title_word_do_not_join():
    # Issue 45 (verl #6724, #6790): a checkpoint rename touches one line of the new async trainer.
    prs = [make_pr("[ckpt] refactor: rename the trainer arg", [change("pkg/ckpt/base.py", 80),
                                                               change("pkg/trainer/separate_async.py", 2)],
                   number=1, merged_at="2026-06-15T02:00:00Z"),
           make_pr("[trainer] feat: a runnable separate async trainer", [change("pkg/trainer/separate_async.py", 300),
                                                                        change("pkg/rollout/server.py", 20)],
                   number=2, merged_at="2026-06-17T02:00:00Z")]
    assert report(prs)["clusters"] == []


def test_a_doc_note_joins_neither_a_fix_it_mentions_in_passing_nor_one_it_shares_a_name_with():
    fix = make_pr("[algo] fix: carry running_return through observation spans", [change("pkg/algos.py", 40)],
                  body="`running_return` was reset at each observation span.", number=1,
                  merged_at="2026-06-15T02:00:00Z")
    passing = make_pr("[doc] fix: note the megatron commit MTP needs", [change("docs/advance/mtp.md", 3)],
                      body="pre-commit fails on main for an unrelated file, a ruff-format diff from #1.", number=2,
                      merged_at="2026-06-16T02:00:00Z")
    naming = make_pr("[doc] fix: explain running_return", [change("docs/algo/reinforce.md", 3)],
                     body="Documents `running_return` for multi-turn rollouts.", number=3,
                     merged_at="2026-06-16T03:00:00Z")
    assert report([fix, passing, naming])["clusters"] == []


def test_a_doc_note_joins_the_pr_it_documents():
    feature = make_pr("[rollout] feat: add `rollout.prefix_cache` option", [change("pkg/rollout/cache.py", 90)],
                      number=1, merged_at="2026-06-15T02:00:00Z")
    note = make_pr("[doc] docs: document the prefix cache of #1", [change("docs/rollout.md", 30)],
                   body="Explains `rollout.prefix_cache` added in #1.", number=2, merged_at="2026-06-16T02:00:00Z")
    assert [c["prs"] for c in report([feature, note])["clusters"]] == [[1, 2]]
    stabilised = make_pr("feat: stabilize `build.build-dir`", [change("src/core/layout.rs", 90)], number=3,
                         merged_at="2026-06-15T02:00:00Z")
    guide = make_pr("docs: cross-link the build-dir guide", [change("src/doc/guide.md", 30)],
                    body="Follow-up of #3.", number=4, merged_at="2026-06-16T02:00:00Z")
    assert [c["prs"] for c in report([stabilised, guide])["clusters"]] == [[3, 4]]


def test_a_theme_is_named_by_its_files_subsystem_when_the_title_tag_is_elsewhere():
    # Issue 45 (verl #6216, #6248): memory snapshots tagged [tool] change the utils' memory and profiler code.
    prs = [make_pr("[tool] feat: memory snapshot collection clears its history",
                   [change("trainer/utils/memory_utils.py", 60), change("trainer/utils/profiler/profile.py", 20)],
                   body="`memory_snapshot.clear_history` after each dump.", number=1,
                   merged_at="2026-06-15T02:00:00Z"),
           make_pr("[tool] fix: memory snapshot collection on old torch", [change("trainer/utils/memory_utils.py", 8)],
                   body="`memory_snapshot.clear_history` is not in torch 2.4.", number=2,
                   merged_at="2026-06-16T02:00:00Z")]
    clusters = report(prs)["clusters"]
    assert [c["title"].split(":")[0] for c in clusters] == ["utils"]
    abbreviated = [make_pr("[ckpt] fix: resume from the latest step", [change("pkg/checkpoint_engine/base.py", 30)],
                           body="`ckpt.resume_step` was off by one.", number=1, merged_at="2026-06-15T02:00:00Z"),
                   make_pr("[ckpt] feat: keep the last k steps", [change("pkg/checkpoint_engine/keep.py", 30)],
                           body="`ckpt.resume_step` skips deleted steps.", number=2, merged_at="2026-06-16T02:00:00Z")]
    assert [c["title"].split(":")[0] for c in report(abbreviated)["clusters"]] == ["ckpt"]
    workflows = [make_pr(f"[ci] chore: pin the ascend runner image {i}", [change(".github/workflows/npu.yml", 3),
                                                                           change(f"tests/npu/run_{i}.sh", 3)],
                         body="Pins `npu_runner.image` to 8.1.", number=i, merged_at="2026-06-15T02:00:00Z")
                 for i in (1, 2)]
    assert [c["title"].split(":")[0] for c in report(workflows)["clusters"]] == ["ci"]  # the files' kind is CI
    # a crate named for a short tag is its: ruff's [ty] work in crates/ty_python_semantic had stood under a second
    # theme, "ty_python_semantic 模块", beside "ty 模块"
    crate = [make_pr(f"[ty] Narrow tagged unions {i}", [change(f"crates/ty_python_semantic/src/types/narrow{i}.rs", 40),
                                                         change("crates/ty_python_semantic/src/types/narrow.rs", 9)],
                     body="`narrow_tagged_union` handles literal tags.", number=i, merged_at="2026-06-15T02:00:00Z")
             for i in (1, 2)]
    assert [c["title"].split(":")[0] for c in report(crate)["clusters"]] == ["ty"]


def test_two_groups_one_weak_link_meets_stay_apart():
    # A follow-up pair on retiring sync mode, a pair on PD rollout: one class both fixes mention does not chain them.
    prs = [make_pr("[vllm] feat: retire the sync mode", [change("pkg/rollout/vllm_sync.py", 300)], number=1,
                   merged_at="2026-06-15T02:00:00Z"),
           make_pr("[rollout] fix: explain the retired sync mode (follow-up of #1)",
                   [change("pkg/rollout/vllm_sync.py", 10)], body="Suggests `AsyncReplica` instead.", number=2,
                   merged_at="2026-06-16T02:00:00Z"),
           make_pr("[sglang] feat: prefill-decode rollout", [change("pkg/rollout/pd.py", 400)], number=3,
                   merged_at="2026-06-17T02:00:00Z"),
           make_pr("[rollout] feat: vllm prefill-decode (follow-up of #3)", [change("pkg/rollout/pd.py", 90)],
                   body="Subclasses `AsyncReplica` for the decode side.", number=4, merged_at="2026-06-18T02:00:00Z")]
    assert sorted(c["prs"] for c in report(prs)["clusters"]) == [[1, 2], [3, 4]]


def test_several_files_that_are_both_prs_substance_join_within_a_module():
    files = ["pkg/tools/registry.py", "pkg/tools/function_tool.py", "tests/test_tools.py"]
    prs = [make_pr("[tool] feat: simpler function-based registration", [change(f, 60) for f in files], number=1,
                   merged_at="2026-06-15T02:00:00Z"),
           make_pr("[tool] refactor: initialise them in the worker",
                   [*(change(f, 30) for f in files), change("pkg/worker.py", 20)], number=2,
                   merged_at="2026-06-16T02:00:00Z")]
    assert [c["prs"] for c in report(prs)["clusters"]] == [[1, 2]]


def test_a_headlines_place_goes_only_where_it_opens_the_line():
    from prhub.engine.narrative import _placeless

    # the fallback's place after its type label or its number goes; the same words inside a sentence stay
    assert _placeless("#7340 修复：megatron 模块，改动 3 个文件", "megatron 模块") == "#7340 修复：改动 3 个文件"
    assert _placeless("#12 文档，改动 1 个文件", "文档") == "#12 改动 1 个文件"
    assert _placeless("#5 更新文档，新增示例", "文档") == "#5 更新文档，新增示例"
