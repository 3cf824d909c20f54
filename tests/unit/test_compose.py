"""The report's one writer: analysis, title, run notes and narrative set in one place, keys in report.json's order."""
from __future__ import annotations

import json
from dataclasses import replace

from prhub.core.history import History
from prhub.core.period import Period
from prhub.core.report import Analysis, Changes, Narrative, Report
from prhub.engine import narrative
from prhub.engine.scoring import score_pull
from prhub.model import answers
from prhub.report import compose

from tests.golden.cases import load
from tests.unit.engine_support import CONFIG, change, history_entry, make_pr

WEEK = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
SCORER = {"kind": "heuristic", "model": None, "prompt_version": "engine-test"}
# A first, whole-repo report without review data or judgements (`reviews`, `learning` only come with some).
FIRST = [k for k in Report.__annotations__ if k not in ("revision", "changes", "slice", "reviews", "learning")]


def week() -> tuple[list, list]:
    prs = [make_pr("[rollout] feat: support prefix caching", [change("pkg/rollout/vllm.py", 200, 10)], number=1,
                   author="alice", merged_at="2026-06-15T02:00:00Z"),
           make_pr("[rollout] fix: prefix caching crash (follow-up of #1)", [change("pkg/rollout/vllm.py", 5, 1)],
                   number=2, author="dave", merged_at="2026-06-16T02:00:00Z")]
    history = [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    return [score_pull(p, CONFIG) for p in prs], history


def test_the_report_has_the_title_the_run_notes_and_the_engines_narrative():
    scored, history = week()
    report = compose.report(scored, [], WEEK, CONFIG, History.of(history, WEEK), "2026-06-22T01:00:00Z", SCORER,
                            run_notes=["export line skipped: {bad"])
    assert report["title"] == "acme/trainer weekly report, 2026-W25, Jun 15–21"
    assert report["notes"][-1] == "export line skipped: {bad" and len(report["notes"]) >= 2  # after the analysis's
    draft = compose.draft(scored, [], WEEK, CONFIG, History.of(history, WEEK), "2026-06-22T01:00:00Z", SCORER)
    assert {k: report[k] for k in Narrative.__annotations__} == narrative.engine_narrative(draft)
    assert report["scorer"] == SCORER


def test_keys_are_in_report_json_order():
    scored, history = week()
    report = compose.report(scored, [], WEEK, CONFIG, History.of(history, WEEK), "2026-06-22T01:00:00Z", SCORER)
    assert list(Report.__annotations__) == [*Analysis.__annotations__, "title", "trend_notes", "risk_notes",
                                            "relation_notes", "revision", "changes", "summary_evidence", "learning"]
    # `slice` is only in a report narrowed to paths, `revision` and `changes` only in a revision; every other
    # key is always there, in this order.
    assert list(report) == FIRST
    assert set(report) == set(load("en-small"))  # the golden files hold the same fields
    assert json.loads(json.dumps(report)) == report  # report.json is its plain serialisation
    sliced = compose.report(scored, [], WEEK, replace(CONFIG, paths=("pkg/trainer/**",), slice="trainer"),
                            History.of(history, WEEK), "2026-06-22T01:00:00Z", SCORER)
    assert list(sliced) == [k for k in Report.__annotations__
                            if k not in ("revision", "changes", "reviews", "learning")]
    assert sliced["slice"] == {"name": "trainer", "paths": ["pkg/trainer/**"]}
    assert sliced["title"] == "acme/trainer (trainer) weekly report, 2026-W25, Jun 15–21"
    assert sliced["notes"][-1] == "This report covers only the PRs touching pkg/trainer/**."


def test_a_revision_says_which_and_what_changed_in_report_json_and_a_note():
    scored, history = week()
    changes: Changes = {"since": "2026-06-22T01:00:00Z", "scored": [2], "failed": []}
    for lang, said in (("en", "revision 2: made again with the results of 1 PR that arrived after the revision "
                              "published 2026-06-22T01:00:00Z (#2)"),
                       ("zh", "第 2 版：2026-06-22T01:00:00Z 发布上一版之后又收到 1 个 PR 的结果（#2），据此重新生成")):
        config = replace(CONFIG, language=lang)
        report = compose.report(scored, [], WEEK, config, History.of(history, WEEK), "2026-06-22T03:00:00Z",
                                SCORER, revision=2, changes=changes)
        # the two revision keys last
        assert list(report) == [k for k in Report.__annotations__ if k not in ("slice", "reviews", "learning")]
        assert (report["revision"], report["changes"]) == (2, changes)
        assert report["notes"][-1] == said


def test_a_narrator_writes_the_narrative_scorer_and_notes_and_reads_the_titled_draft():
    scored, history = week()
    seen = []

    def narrator(draft):
        seen.append(draft["title"])
        written = narrative.engine_narrative(draft)
        return {**written, "summary": "Two PRs.", "scorer": {**draft["scorer"], "narrative_by": {"summary": "llm"}},
                "notes": [*draft["notes"], "narrative: a note"]}

    report = compose.report(scored, [], WEEK, CONFIG, History.of(history, WEEK),
                            "2026-06-22T01:00:00Z", SCORER, narrator=narrator)
    assert seen == [report["title"]]
    assert report["summary"] == "Two PRs." and report["scorer"]["narrative_by"] == {"summary": "llm"}
    assert report["notes"][-1] == "narrative: a note"
    assert list(report) == [k for k in FIRST if k != "summary_evidence"]  # the model's summary: not the engine's


def test_the_model_narrator_writes_the_sections_the_report_types():
    assert tuple(Narrative.__annotations__) == answers.SECTIONS
