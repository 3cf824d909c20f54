"""The engine's narrative: sections, languages, and numbers that come from the report."""
from __future__ import annotations

import re

import pytest
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine import narrative, observations, summary, telling, wording
from prhub.engine.analysis import analyse_period
from prhub.engine.scoring import score_pull
from prhub.report import compose

from tests.unit.engine_support import CONFIG, change, history_entry, make_pr

WEEK = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
SECTIONS = {"summary", "highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes", "suggestions"}


def week_report(language: str) -> dict:
    prs = [
        make_pr("[BREAKING][rollout] feat: support the async rollout backend",
                [change("pkg/rollout/async.py", 400, 20), change("tests/test_async.py", 60, 0)], number=11,
                author="alice", merged_at="2026-06-15T03:00:00Z"),
        make_pr("[rollout] fix: async rollout deadlock (follow-up of #11)", [change("pkg/rollout/async.py", 4, 1)],
                number=12, author="newbie", merged_at="2026-06-16T03:00:00Z"),
        make_pr('Revert "[trainer] feat: entropy bonus"', [change("pkg/trainer/loss.py", 2, 40)], number=13,
                author="bob", merged_at="2026-06-17T03:00:00Z"),
        make_pr("[doc] docs: typo", [change("docs/a.md", 1, 1)], number=14, author="bob",
                merged_at="2026-06-18T03:00:00Z"),
    ]
    history = [history_entry(5, "[trainer] feat: entropy bonus", "2026-06-10T03:00:00Z", "alice"),
               history_entry(6, "[trainer] fix: x", "2026-06-02T03:00:00Z", "bob")]
    history += [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    config = CONFIG.with_overrides(language=language)
    return analyse_period([score_pull(p, config) for p in prs], [], WEEK, config, History.of(history, WEEK),
                          "2026-06-22T00:00:00Z",
                        {"kind": "heuristic", "model": None, "prompt_version": "t"})


def test_english_narrative_quotes_the_reports_numbers():
    report = week_report("en")
    text = narrative.engine_narrative(report)
    assert set(text) == SECTIONS
    stats = report["stats"]
    # the title block, just above the summary, gives the lines and the average scores: not said twice
    assert text["summary"].startswith(f"{stats['pr_count']} PRs were merged, {stats['key_pr_count']} of them key, "
                                      f"by {stats['authors']} authors (1 not seen in the 2 weeks before).\n\n")
    assert "average importance" not in text["summary"] and f"+{stats['additions']}/" not in text["summary"]
    # highlights by theme: the rollout cluster, told by its lead #11, names its follow-up #12
    assert text["highlights"][0]["prs"] == [11, 12]
    # only #11 breaks: it is marked where it stands, not by a flag over the item that would cover #12 too
    assert text["highlights"][0]["text"].startswith(
        "rollout: support the async rollout backend (#11, breaking); async rollout deadlock")
    assert "#11 is marked breaking by its author: follow its description before upgrading." in \
        text["highlights"][0]["text"]  # what follows from a breaking PR, from why the engine found it breaking
    assert all(h["prs"][0] in {p["number"] for p in report["prs"] if p["key"]} for h in text["highlights"])
    assert text["relation_notes"] == [{"text": "#13 reverts #5, not re-landed yet", "prs": [5, 13], "evidence": [
        {"pr": 13, "field": "title", "fact": "[trainer] feat: entropy bonus"}]}]  # the revert's title names it
    assert not text["key_changes"]  # the one theme is told whole in the highlights
    # risks at a glance names #11 just above: the follow-up points up instead of naming it again
    assert text["suggestions"][0] == ("Read the breaking changes above (1 PR) before upgrading and note the migration "
                                      "in the release notes.")
    assert "Follow up the reverted changes not re-landed yet (#5)." in text["suggestions"]  # the change, not #13
    # the highlights tell #11 with its migration: the risks at a glance point there (the renderer names #11)
    assert {"text": "breaking changes: #11, in the highlights above", "prs": [11]} in [
        {k: n[k] for k in ("text", "prs")} for n in text["risk_notes"]]


def test_every_number_in_the_narrative_is_in_the_report():
    report = week_report("en")
    facts = set(re.findall(r"\d+(?:\.\d+)?", repr(report)))
    for section in narrative.engine_narrative(report).values():
        for number in re.findall(r"\d+(?:\.\d+)?", repr(section)):
            assert number in facts


def test_chinese_narrative():
    text = narrative.engine_narrative(week_report("zh"))
    assert text["summary"].startswith("本周合并 4 个 PR")  # a Monday–Sunday week
    assert text["relation_notes"][0]["text"] == "#13 回滚了 #5，尚未重新合入"
    assert all(re.search(r"[\u4e00-\u9fff]", s) for s in text["suggestions"])
    assert text["highlights"][0]["text"].startswith("rollout 模块：#11（破坏性变更）支持异步 rollout 后端；#12 修复")
    assert "迁移：作者标注为破坏性变更，升级前请按 #11 的说明修改用法。" in text["highlights"][0]["text"]
    assert "平均重要度" not in text["summary"] and "平均洞察度" not in text["summary"] and "行" not in text["summary"]
    assert "个主题" not in text["summary"]  # a count of groups the page shows nowhere, which the en one never said
    assert "此前 2 周未出现过的 1 位" in text["summary"]


def test_an_empty_week_still_reads():
    config = CONFIG.with_overrides(language="en")
    report = analyse_period([], [], WEEK, config, History.of([], WEEK), "2026-06-22T00:00:00Z", {"kind": "heuristic"})
    text = narrative.engine_narrative(report)
    assert text["summary"] == "No pull requests were merged this week."
    assert text["highlights"] == [] and text["suggestions"] == []


def test_an_empty_week_after_busy_ones_has_no_module_falling():
    # issue 46: every module of an empty week showed as falling
    earlier = [history_entry(100 + i, f"[trainer, rollout] fix: thing {i}", f"2026-06-0{1 + i % 7}T08:00:00Z")
               for i in range(12)]
    report = analyse_period([], [], WEEK, CONFIG, History.of(earlier, WEEK), "2026-06-22T00:00:00Z",
                            {"kind": "heuristic"})
    assert report["modules"] and {m["trend"] for m in report["modules"]} == {"steady"}
    assert narrative.engine_narrative(report)["trend_notes"] == []


def test_titles_say_their_dates_as_the_language_writes_them():
    zh = compose.title("verl-project/verl", WEEK, "zh")
    assert zh == "verl-project/verl 2026 年第 25 周周报（6 月 15 日至 21 日）"
    across = Period.parse("2026-06-29", "2026-07-05", "UTC")
    assert compose.title("o/r", across, "zh") == "o/r 2026 年第 27 周周报（6 月 29 日至 7 月 5 日）"
    new_year = Period.parse("2025-12-29", "2026-01-04", "UTC")
    assert compose.title("o/r", new_year, "zh") == "o/r 2026 年第 1 周周报（2025 年 12 月 29 日至 2026 年 1 月 4 日）"
    assert compose.title("verl-project/verl", WEEK, "en") == "verl-project/verl weekly report, 2026-W25, Jun 15–21"


def test_a_report_without_analysis_sections_still_gets_a_narrative():
    minimal = {"language": "en", "stats": {"pr_count": 1, "key_pr_count": 0, "authors": 1, "new_contributors": [],
                                           "additions": 1, "deletions": 0, "avg_importance": 2.0, "avg_insight": 0.0}}
    text = narrative.engine_narrative(minimal)
    assert text["summary"].startswith("1 PR was merged, 0 of them key, by 1 author.")  # no "(0 first-time)"
    assert text["key_changes"] == [] and text["risk_notes"] == []


def test_zero_counts_are_not_spelled_out():
    report = week_report("zh")
    report["reverts"] = []
    summary = narrative.engine_narrative(report)["summary"]
    assert "0 条回滚" not in summary and "1 个破坏性变更" in summary
    report["clusters"] = []
    report["modules"] = [{"name": "doc", "pr_count": 2, "prs": [14, 15], "baseline": 0.0, "delta": 2.0,
                          "trend": "new"}]  # #14 is a docs fix, not key; #15 is not in the week's PRs
    # A module none of whose PRs is key is no key change (issue 23: docs PRs made `doc` the week's centre).
    assert narrative.engine_narrative(report)["key_changes"] == []


def test_key_changes_name_the_lead_change_without_its_title_tags():
    report = week_report("en")
    report["clusters"][0]["title"] = "rollout: async, deadlock"  # a theme of shared title terms
    text = narrative._key_changes(report, zh=False)[0]["text"]  # no highlight told its members before
    # sentences, not a bare list: the lead says what it does, the other member what it does
    assert text.startswith("#11 leads 2 related PRs: support the async rollout backend. With it: async rollout "
                           "deadlock") and "(#12)" in text and "[BREAKING]" not in text


def test_a_zh_theme_is_a_paragraph_told_by_its_lead_and_the_others_reasons():
    text = narrative._key_changes(week_report("zh"), zh=True)[0]["text"]  # no highlight told its members before
    # the lead's title in Chinese with its files, then the other member's own line: no stock reason
    assert text.startswith("#11 支持异步 rollout 后端，属于破坏性变更，共 2 个文件、+460/−20 行。")
    assert "同组的 #12 修复异步 rollout 死锁" in text and "修复卡死问题" not in text
    assert "support the async rollout backend" not in text and "相关 PR（" not in text


def test_a_theme_the_highlights_told_whole_is_not_told_again_in_the_key_changes():
    for lang, member in (("zh", "修复异步 rollout 死锁"), ("en", "async rollout deadlock")):
        told = narrative.engine_narrative(week_report(lang))
        assert member in told["highlights"][0]["text"]  # the highlight tells #12 by its line
        assert not any({11, 12} & set(change["prs"]) for change in told["key_changes"])
        # without the highlights, the same theme is a key change told by its lead and its member
        change = narrative._key_changes(week_report(lang), lang == "zh")[0]
        assert change["prs"] == [11, 12] and {f["pr"] for f in change["evidence"]} >= {11, 12}


def test_a_theme_the_highlights_led_goes_on_to_the_members_they_did_not_tell():
    report = week_report("zh")
    described = frozenset({11, 12})  # the highlights told the lead and one member
    third = dict(report["prs"][1], number=14, title="[rollout] feat: add rollout timing metrics", summary="",
                 importance=5.0, key=True)
    report["prs"].append(third)
    report["clusters"][0]["prs"].append(14)
    text = narrative._key_changes(report, True, described)[0]["text"]
    # the lead named by its headline only (the highlights told its line), then what the others add
    assert text.startswith("#11（支持异步 rollout 后端）之外，同组还有 #14 ") and "另有 #12" in text
    assert "属于破坏性变更" not in text and "涉及 2 个文件" not in text


def test_a_single_pr_trend_is_singular():
    report = week_report("en")
    report["modules"] = [{"name": "fsdp", "pr_count": 1, "prs": [12], "baseline": 3.5, "delta": -2.5,
                          "trend": "fading"}]
    assert narrative.engine_narrative(report)["trend_notes"][0]["text"] == (
        "fsdp: 1 PR this week vs 3.5/week over the previous 4 (fading)")


def test_the_summary_names_the_lead_changes_and_leaves_their_lines_to_the_highlights():
    told = narrative.engine_narrative(week_report("zh"))
    summary = told["summary"]
    # the highlights just above tell #11 and #12 by their lines: the summary points there, it does not repeat them
    assert "最值得先读的是 rollout 模块的 #11 和 #12（见上文亮点）" in summary
    assert {11, 12} <= {n for item in told["highlights"] for n in item["prs"]}
    assert "支持异步 rollout 后端" not in summary
    assert "[BREAKING]" not in summary and "support the async" not in summary


# -- headlines that agree with the body (issue 25) -----------------------------

def _unscored_week(scored: int, waiting: int, lang: str):
    from prhub.core.config import RepoConfig
    from prhub.core.history import History
    from prhub.core.period import Period
    from prhub.engine.scoring import score_pull
    from prhub.report import compose

    from tests.unit.engine_support import make_pr

    week = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
    config = RepoConfig("o/r", tz="Asia/Shanghai", language=lang)
    prs = [score_pull(make_pr(f"[trainer] fix: thing {n}", number=n, merged_at="2026-06-16T02:00:00Z"), config)
           for n in range(1, scored + 1)]
    unscored = [{"number": n, "title": f"t{n}", "url": f"https://github.com/o/r/pull/{n}", "reason": "r"}
                for n in range(100, 100 + waiting)]
    return compose.report(prs, unscored, week, config, History.of([], week), "2026-06-22T01:00:00Z",
                          {"kind": "heuristic", "model": None, "prompt_version": "t"})


def test_a_week_of_unscored_prs_is_headed_by_its_merged_count_never_none_merged() -> None:
    zh = _unscored_week(0, 33, "zh")
    assert zh["stats"]["pr_count"] == 33 and zh["stats"]["unscored_count"] == 33
    assert zh["summary"].startswith("本周合并 33 个 PR，均尚未评分") and "没有合并" not in zh["summary"]
    en = _unscored_week(0, 33, "en")
    assert en["summary"].startswith("33 PRs were merged this week; none is scored yet")


def test_a_partly_scored_week_says_how_many_are_not_scored_yet() -> None:
    zh = _unscored_week(1, 31, "zh")
    assert zh["stats"]["pr_count"] == 32 and zh["stats"]["unscored_count"] == 31
    assert zh["summary"].startswith("本周合并 32 个 PR，其中 31 个尚未评分；已评分的 1 个中关键 PR")
    en = _unscored_week(1, 31, "en")
    assert en["summary"].startswith("32 PRs were merged (31 not scored yet; the figures are the other 1's)")
    assert _unscored_week(2, 0, "en")["summary"].startswith("2 PRs were merged, ")


def test_the_notes_on_the_engine_standing_in_for_the_model_are_in_the_reports_language() -> None:
    from prhub.engine.wording import cause_words
    from prhub.model.answers import FALLBACK, fallback_notes

    prs = [{"number": n, "reasons": [FALLBACK + "the run's token budget is spent (llm.max_tokens_per_run 10)"]}
           for n in (3, 5)]
    assert fallback_notes({"language": "zh", "prs": prs}) == [  # type: ignore[typeddict-item]
        "2 个 PR 由引擎代替模型评分：本次运行的 token 预算已用完（#3、#5）"]
    assert fallback_notes({"language": "en", "prs": prs}) == [  # type: ignore[typeddict-item]
        "2 PRs scored by the engine instead of the model: the run's token budget is spent (#3, #5)"]
    assert cause_words("zh", "the model was unavailable (timeout)") == "模型不可用（timeout）"
    assert cause_words("zh", "something new") == "something new"  # an unknown cause is kept, not lost


def test_stand_ins_kept_from_an_earlier_run_say_so_and_how_to_ask_the_model_again() -> None:
    from prhub.core.models import ScoredPR
    from prhub.model.answers import FALLBACK, fallback_notes, from_earlier_run

    spent = FALLBACK + "budget exhausted: the run's token budget is spent (llm.max_tokens_per_run 10)"
    kept = [from_earlier_run(ScoredPR(n, "t", "u", "a", "2026-05-06T00:00:00Z", [], "fix", False, 3, 2, False, "",
                                      [], [], 1, 1, 1, "heuristic", reasons=["rules", spent])) for n in (3, 5)]
    assert from_earlier_run(kept[0]) == kept[0]  # marked once
    prs = [{"number": p.number, "reasons": p.reasons} for p in kept] + [{"number": 9, "reasons": [spent]}]
    en = fallback_notes({"language": "en", "prs": prs})  # type: ignore[typeddict-item]
    assert en == ["1 PR scored by the engine instead of the model: budget exhausted (#9)",
                  "2 PRs with the engine's score kept from an earlier run in which the model did not score them: "
                  "budget exhausted (#3, #5); this run spent nothing on them, and `prhub run --retry-model` asks "
                  "the model again"]
    zh = fallback_notes({"language": "zh", "prs": prs})  # type: ignore[typeddict-item]
    assert "沿用此前一次运行" in zh[1] and "模型预算已用完" in zh[1] and "--retry-model" in zh[1]


def test_every_engine_sentence_keeps_its_evidence_and_the_fact_guard_checks_it():
    from prhub.model.factguard import check_narrative

    for language in ("zh", "en"):
        report = week_report(language)
        text = narrative.engine_narrative(report)
        items = [i for s in ("highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes")
                 for i in text[s]]
        assert items and all(i["evidence"] for i in items)
        assert all({"pr", "field", "fact"} == set(e) for i in items for e in i["evidence"])
        assert summary.evidence(report)
        assert check_narrative({**report, **text, "summary_evidence": summary.evidence(report)}) == []
        forged = {**report, **text, "highlights": [{**text["highlights"][0], "evidence": [
            {"pr": 11, "field": "title", "fact": "adds a GPU kernel"}]}]}
        assert any("does not say it" in e for e in check_narrative(forged))  # a fact the PR's title does not say
        invented = {**report, **text, "highlights": [{"text": "#11 makes training 3x faster.", "prs": [11]}]}
        assert any("ratio" in e for e in check_narrative(invented))


def test_an_english_line_is_the_title_whatever_the_description_opens_with():
    def lead_highlight(body: str) -> dict:
        pr = make_pr("[trainer] feat: add the entropy bonus", [change("pkg/trainer/loss.py", 80, 4)], number=21,
                     body=body, merged_at="2026-06-16T03:00:00Z")
        config = CONFIG.with_overrides(language="en")
        report = analyse_period([score_pull(pr, config)], [], WEEK, config, History.of([], WEEK),
                                "2026-06-22T00:00:00Z", {"kind": "heuristic", "model": None, "prompt_version": "t"})
        return narrative.engine_narrative(report)["highlights"][0]

    # An English line is the title, as a changelog's: a description's first sentence is as often context
    # (cargo #17071: "PR #16722 introduced a check that fires an internal error…"), so it changes nothing
    before = lead_highlight("### What does this PR do?\n\nThe loss gains an entropy bonus that keeps exploration up.\n")
    after = lead_highlight("### What does this PR do?\n\nPR #7 introduced a check that fires inside the loop.\n")
    assert before["text"] == after["text"] == "trainer: add the entropy bonus (#21)."
    assert not any(e["field"] == "body" for e in before["evidence"] + after["evidence"])
    gone = lead_highlight("")
    assert not any(e["field"] == "body" for e in gone["evidence"])  # no description: the title's words only
    assert {"pr": 21, "field": "title", "fact": "add the entropy bonus"} in gone["evidence"]


def _entry(number: int, title: str, key: bool, importance: float) -> dict:
    return {"number": number, "title": title, "type": "feat", "modules": ["trainer"], "key": key, "breaking": False,
            "importance": importance, "summary": "", "changed_files": 1, "additions": 1, "deletions": 0}


def test_a_modules_paragraph_states_the_modules_own_counts_which_the_guard_accepts():
    from prhub.model.factguard import check_narrative

    prs = [_entry(31, "[trainer] feat: add the entropy bonus", True, 7), _entry(32, "[trainer] feat: add metrics",
                                                                                 True, 6),
           _entry(33, "[trainer] feat: add a flag", False, 2), _entry(34, "[trainer] feat: add a hook", True, 5),
           {**_entry(35, "[rollout] feat: add a backend", True, 6), "modules": ["rollout"]}]
    report = {"language": "zh", "period": {"since": "2026-06-15", "until": "2026-06-21"}, "prs": prs,
              "stats": {"pr_count": 5, "key_pr_count": 4, "authors": 1, "new_contributors": []},
              "modules": [{"name": "trainer", "pr_count": 4, "prs": [31, 32, 33, 34]},
                          {"name": "rollout", "pr_count": 1, "prs": [35]}], "reverts": [], "risks": []}
    by_number = {p["number"]: p for p in prs}
    # #31 was told with a theme above: the paragraph covers the rest, but counts the module's own PRs
    change = narrative._module_change(report["modules"][0], [32, 33, 34], by_number, report, "本周", True)
    # under the module's own heading, the paragraph does not name the module again
    assert change["text"].startswith("本周共 4 个 PR，其中关键 3 个，除上文外：#32 ")
    assert change["theme"] == "trainer 模块"
    assert "3 个 PR" not in change["text"]  # 4 − 1: a remainder no table shows
    assert check_narrative({**report, "key_changes": [change]}) == []  # 3: trainer's key PRs, no other count
    english = narrative._module_change(report["modules"][0], [32, 33, 34], by_number, report, "this week", False)
    assert english["text"].startswith("4 PRs touched it (3 key); besides those above: add metrics (#32); ")


def test_a_risk_note_names_the_first_pins_and_its_evidence_keeps_them_all():
    detail = "依赖版本：trtllm 1.3.0rc15, megatron-core==0.17.0, transformers==5.3.0"
    report = {"risks": [{"kind": "dependency_pin", "prs": [41], "detail": detail,
                         "items": [{"pr": 41, "detail": detail}]}]}
    note = observations.risk_notes(report, True)[0]
    assert note["text"] == "依赖版本变更：#41，trtllm 1.3.0rc15、megatron-core==0.17.0 等"  # the label said once
    assert note["evidence"] == [{"pr": 41, "field": "risks", "fact": detail}]
    short = {"risks": [{"kind": "dependency_pin", "prs": [41], "detail": "依赖版本：vllm 0.17→0.18", "items": []}]}
    assert observations.risk_notes(short, True)[0]["text"] == "依赖版本变更：#41，vllm 0.17→0.18"


@pytest.mark.parametrize("zh, wanted", [
    (True, "超大改动：2 个 PR，例如 #41：改动 2070 行，涉及 28 个文件"),
    (False, "very large changes: 2 PRs, e.g. #41: 2070 changed lines in 28 files")])
def test_risks_at_a_glance_says_how_large_and_leaves_the_split_to_the_details(zh: bool, wanted: str):
    # verl 07-13 read "改动 2070 行（+2056/−14），涉及 28 个文件" above the same line in the details
    detail = wording.say("zh" if zh else "en", "large", size=2070, additions=2056, deletions=14, n=28, threshold=1000)
    sizes = {"additions": 2056, "deletions": 14, "changed_files": 28}
    report = {"prs": [{"number": 41, "importance": 9.1, "key": True, **sizes},
                      {"number": 42, "importance": 8.0, "key": True, **sizes}],
              "risks": [{"kind": "large_change", "prs": [41, 42], "detail": detail,
                         "items": [{"pr": 41, "detail": detail}]}]}
    note = observations.risk_notes(report, zh)[0]
    assert note["text"] == wanted and "+2056/−14" in note["evidence"][0]["fact"]  # the evidence keeps the split


def test_a_chinese_title_convention_lists_its_folders_with_the_enumeration_comma():
    from prhub.engine.risks import tag_mismatch
    files = [change("pkg/loss.py"), change("tests/test_loss.py")]
    assert tag_mismatch(["doc"], files, CONFIG.with_overrides(language="zh")) == "标注为 [doc]，但只改动了 pkg、tests"
    assert tag_mismatch(["doc"], files, CONFIG) == "tagged [doc] but touches only pkg, tests"


def test_a_chinese_list_of_prs_takes_the_enumeration_comma():
    assert telling.refs_text([1, 2, 3], zh=True) == "#1、#2、#3" and telling.refs_text([1, 2]) == "#1, #2"
    made = narrative.engine_narrative(week_report("zh"))
    texts = [made["summary"], *made["suggestions"],
             *(n["text"] for s in ("highlights", "key_changes", "trend_notes") for n in made[s])]
    assert not any(re.search(r"#\d+, #\d+", t) for t in texts)


def test_the_busiest_modules_take_a_space_only_beside_latin():
    # trl 06-08 read "改动最集中的模块是 实验特性、trainer、对话模板"
    def said(*busiest: str) -> str:
        return summary._notable_zh(summary._Notable([], list(busiest), 0, 0, 0), {})[0]
    assert said("experimental", "trainer") == "关键 PR 最多的模块是实验特性、trainer"
    assert said("rollout", "experimental") == "关键 PR 最多的模块是 rollout、实验特性"


def test_a_highlight_that_counts_the_rest_of_its_subject_hands_the_renderers_none_to_list_again():
    # ruff 2026-06-08 read "（另见 #25651、#25823、#25822 等 4 个）。（#25833）": the renderer listed the fourth again
    prs = [_entry(40 + i, f"[trainer] feat: add part {i}", i < 2, 8 - i) for i in range(8)]
    report = {"language": "zh", "prs": prs, "reverts": [], "risks": []}
    note = narrative._theme_highlight("trainer", prs, report, True, set())
    assert "等 6 个" in note["text"]
    named = {int(n) for n in re.findall(r"#(\d+)", note["text"])}
    assert set(note["prs"]) == named and len(named) == 5
    from prhub.site.render.view import view

    from tests.golden.cases import load
    shown = view({**load("zh-week"), "highlights": [note]})
    assert next(s for s in shown.sections if s.id == "highlights").data[0]["prs"] == []


def test_a_second_heading_of_one_subsystem_names_its_lead_when_the_headline_knows_only_the_diff():
    # ruff 2026-06-08 had "### ty_python_semantic 模块：新功能：改动 2 个文件，多为新增"
    by_number = {1: {**_entry(1, "feat: a", True, 7), "headline": "新增 a"},
                 2: {**_entry(2, "feat: b", True, 6), "headline": "新功能：改动 2 个文件，多为新增"},
                 3: {**_entry(3, "feat: c", True, 5), "headline": "新增 c"}}
    changes = [{"theme": "core 模块", "text": "", "prs": [1]}, {"theme": "core 模块", "text": "", "prs": [2]},
               {"theme": "core 模块", "text": "", "prs": [3]}]
    headings = [c["theme"] for c in narrative._distinct_headings(changes, by_number, True)]
    assert headings == ["core 模块", "core 模块（#2）", "core 模块：新增 c"]


def test_the_summary_leaves_out_what_is_none_and_counts_one_module_as_one():
    # mypy 2026-06-08 read "by 3 authors (0 first-time)" and "The busiest modules were mypy"
    stats = {"pr_count": 3, "key_pr_count": 2, "authors": 3, "new_contributors": []}
    assert summary._figures_en(stats) == "3 PRs were merged, 2 of them key, by 3 authors."
    assert summary._figures_zh(stats, "本周") == "本周合并 3 个 PR，其中关键 PR 2 个，来自 3 位作者。"
    assert summary._figures_zh({**stats, "new_contributors": ["a"]}, "本周").endswith("3 位作者（新贡献者 1 位）。")
    assert summary._notable_en(summary._Notable([], ["mypy"], 0, 0, 0))[0] == "Most key PRs were in mypy"


def test_dependency_changes_are_checked_against_images_only_where_the_pins_build_images():
    def asked(modules: list[str], zh: bool) -> list[str]:
        report = {"risks": [{"kind": "dependency_pin", "prs": [41], "detail": "#41：依赖版本：vllm 0.17→0.18"}],
                  "prs": [{"number": 41, "key": False, "modules": modules}], "reverts": [], "modules": [],
                  "stats": {"new_contributors": []}}
        return observations.suggestions(report, zh)

    # verl pins its trtllm image in docker/: the images must match
    assert asked(["docker"], True) == ["核对上文的依赖版本变更与部署镜像是否一致。"]
    # vite's docs site and pydantic-ai's library have no image: their pins are their users' to know about
    assert asked(["docs"], True) == ["确认上文的依赖版本变更对下游用户的影响，并写进发布说明。"]
    assert asked(["core"], False) == ["Check what the dependency changes above (1 PR) mean for downstream users and "
                                      "note them in the release notes."]


def test_a_breaking_member_is_marked_where_it_stands_in_either_shape_of_line():
    # a revert's line opens with its number ("#11 reverts #5"): the en mark had found no "(#11)" to go beside
    broken = {"number": 11, "breaking": True, "breaking_reason": "", "headline": "新增 x", "title": "add x",
              "summary": "新增 x。", "type": "feat", "modules": [], "changed_files": 1, "additions": 1, "deletions": 0}
    undone = {"reverts": [{"pr": 11, "reverts": 5}]}
    assert telling.member_line(broken, undone, False, marked=True) == "#11 (breaking) reverts #5"
    assert telling.member_line(broken, undone, True, marked=True) == "#11（破坏性变更）回滚了 #5"
    assert telling.member_line(broken, {}, False, marked=True).endswith("(#11, breaking)")
    assert telling.member_line(broken, {}, True, marked=True).startswith("#11（破坏性变更）")
    assert telling.member_line(broken, {}, False).endswith("(#11)")  # the item's flag says it


def test_the_summary_names_the_modules_with_the_most_key_prs_and_says_so():
    # gh 2024-10-21: seven acceptance-test PRs (none key) and one PR each in attestation, api and extension had read
    # "the busiest modules were attestation, api, extension"
    prs = [{"number": n, "key": n in (1, 2, 3, 9)} for n in range(1, 10)]
    modules = [{"name": "acceptance", "pr_count": 5, "prs": [4, 5, 6, 7, 8]},
               {"name": "api", "pr_count": 1, "prs": [1]}, {"name": "attestation", "pr_count": 3, "prs": [2, 3, 9]}]
    assert summary._busiest({"prs": prs, "modules": modules}) == ["attestation", "api"]
    assert summary._notable_en(summary._Notable([], ["attestation", "api"], 0, 0, 0))[0] == \
        "Most key PRs were in attestation, api"
    # ruff 2026-06-22 named ruff_python_parser third, one of seven modules with one key PR beside ty's 76
    ruff = [{"name": "ty", "pr_count": 80, "prs": list(range(1, 77))},
            {"name": "ruff_linter", "pr_count": 9, "prs": [77, 78, 79]},
            *({"name": f"ruff_{i}", "pr_count": 2, "prs": [80 + i]} for i in range(7))]
    keyed = [{"number": n, "key": True} for n in range(1, 87)]
    assert summary._busiest({"prs": keyed, "modules": ruff}) == ["ty", "ruff_linter"]


def test_the_summary_counts_the_reverts_the_risks_count():
    # okhttp 2025-10-06: the risks said "回滚：2 个 PR" and the summary "1 条回滚记录"; #9141 "revert some Renovate
    # config" names no reverted PR, so it makes no chain
    report = {"prs": [], "modules": [], "reverts": [{"pr": 9115, "reverts": 9100, "relanded_by": None}],
              "risks": [{"kind": "revert", "prs": [9115, 9141]}]}
    seen = summary._notable(report)
    assert seen.reverts == 2
    assert summary._notable_zh(seen, {})[-1] == "需要留意的有 2 条回滚记录"
    assert summary._notable_en(seen)[-1] == "2 reverts need attention"


def test_an_english_line_drops_its_titles_full_stop():
    # diffusers #12152 "[chore] remove controlnet implementations outside controlnet module." had read
    # "… controlnet module. (#12152)." in the en highlights
    entry = {"number": 12152, "title": "[chore] remove controlnet implementations outside controlnet module.",
             "breaking": False, "summary": "", "measured": ""}
    assert telling.pr_line(entry, False) == "Remove controlnet implementations outside controlnet module"
    entry["title"] = "Wait for the queue..."
    assert telling.pr_line(entry, False) == "Wait for the queue..."


def test_a_theme_tells_a_key_member_by_its_line_and_a_minor_one_by_its_number():
    # ruff's "Minor followup to severity display" (3.6, not key) had been told by its line beside what it followed
    lead = {"number": 1, "importance": 7.0, "key": True, "breaking": False, "type": "feat", "title": "a"}
    minor = {"number": 2, "importance": 3.6, "key": False, "breaking": False, "type": "feat", "title": "b"}
    key = {"number": 3, "importance": 5.0, "key": True, "breaking": False, "type": "fix", "title": "c"}
    told, others = narrative._told_members([lead, minor], set())
    assert [p["number"] for p in told] == [1] and others == [2]
    told, others = narrative._told_members([lead, minor, key], set())
    assert [p["number"] for p in told] == [1, 3] and others == [2]


def test_a_breaking_flag_covers_an_item_only_when_all_it_names_breaks():
    # verl's July: "[破坏性变更] #6951 …（另见 #7003、#7039）" read as if the two it listed broke too
    assert narrative._breaking_marks(1, 1, False, True) == ("[破坏性变更] ", False)
    assert narrative._breaking_marks(1, 1, True, True) == ("", True)  # marked in place: "#6951（破坏性变更）…"
    assert narrative._breaking_marks(1, 2, False, False) == ("", True)
    assert narrative._breaking_marks(0, 2, True, False) == ("", False)
