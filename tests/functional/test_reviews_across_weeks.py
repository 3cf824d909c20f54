"""Review facts across weeks (issue 26): a follow-up promised in one week is marked done in the week whose PR takes it
up, as revert chains are followed across weeks; review timing is compared with the weeks before where their history
carries the times, and says nothing where it does not. Two weeks of an export through the planner's history
(flow.plan._history: the source's history, its entries with what each earlier PR's conversation says)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from prhub.core.history import History
from prhub.core.models import Comment, PullRequest
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.flow.plan import _history
from prhub.report.compose import report as compose_report
from prhub.sources.source import JsonlSource

from tests.unit.engine_support import CONFIG
from tests.unit.test_reviews import SCORER, URL, talked

WEEK1 = Period.parse("2026-06-08", "2026-06-14", "Asia/Shanghai")
WEEK2 = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
PROMISE = "Thanks! I will fix the padding mask later in a follow-up PR."


def week_one() -> list[PullRequest]:
    """#1 promises a follow-up (nobody takes it up that week), #2 promises one that #3 takes up the same week."""
    return [
        talked(1, opened_hours=20, reviews_after={"carol": 2}, merged_at="2026-06-09T02:00:00Z",
               comments=[Comment("alice", PROMISE, None, f"{URL}/1#issuecomment-1")]),
        talked(2, author="dave", opened_hours=10, reviews_after={"carol": 4}, merged_at="2026-06-10T02:00:00Z",
               comments=[Comment("dave", "We'll handle the dedup later in a separate PR.", None,
                                 f"{URL}/2#issuecomment-2")]),
        talked(3, author="dave", opened_hours=6, reviews_after={"erin": 1}, merged_at="2026-06-11T02:00:00Z",
               body="Dedup the rollout buffer, as promised in #2."),
    ]


def week_two() -> list[PullRequest]:
    """#10 takes up #1's promise; #11 refers to #2, whose promise #3 had taken up already."""
    return [
        talked(10, opened_hours=30, reviews_after={"carol": 6}, merged_at="2026-06-16T02:00:00Z",
               body="Masks the padding, the follow-up of #1."),
        talked(11, author="erin", opened_hours=50, reviews_after={"dave": 20}, merged_at="2026-06-17T02:00:00Z",
               body="More dedup after #2."),
        talked(12, author="frank", opened_hours=4, reviews_after={"carol": 1}, merged_at="2026-06-18T02:00:00Z"),
    ]


def export(tmp_path: Path, prs: list[PullRequest]) -> JsonlSource:
    path = tmp_path / "pulls.jsonl"
    path.write_text("".join(json.dumps(p.to_export()) + "\n" for p in prs), encoding="utf-8")
    return JsonlSource.from_path(str(path))


def week_report(source: JsonlSource, period: Period, prs: list[PullRequest]) -> dict:
    history = _history(source, CONFIG, period, {p.author for p in prs})
    got = [source.get(CONFIG.repo, ref) for ref in source.list_merged(CONFIG.repo, period)]
    assert [p.number for p in got] == [p.number for p in prs]
    return compose_report([score_pull(p, CONFIG) for p in got], [], period, CONFIG, history,
                          "2026-06-22T01:00:00Z", SCORER)


def test_a_follow_up_promised_one_week_is_marked_done_the_week_a_pr_takes_it_up(tmp_path: Path) -> None:
    source = export(tmp_path, [*week_one(), *week_two()])
    first = week_report(source, WEEK1, week_one())
    # Week 1: #1's promise is open (a risk), #2's is done by #3 the same week
    assert [(f["pr"], f["done_by"]) for f in first["reviews"]["follow_ups"]] == [(1, None), (2, 3)]
    assert [r["kind"] for p in first["prs"] if p["number"] == 1 for r in p["risks"]].count("follow_up") == 1
    second = week_report(source, WEEK2, week_two())
    # Week 2: #1's promise (from the history) is done by #10; #2's, done in week 1 already, is not claimed by #11
    assert [(f["pr"], f["done_by"], f["text"]) for f in second["reviews"]["follow_ups"]] == [
        (1, 10, PROMISE.removeprefix("Thanks! "))]  # the promising sentence, as its own week quoted it
    assert not any(r["kind"] == "follow_up" for p in second["prs"] for r in p["risks"])


def test_review_timing_is_compared_with_the_weeks_before(tmp_path: Path) -> None:
    source = export(tmp_path, [*week_one(), *week_two()])
    timing = week_report(source, WEEK2, week_two())["reviews"]["timing"]
    # This week: first reviews 6, 20, 1 h after opening; merges 30, 50, 4 h after
    assert timing["first_review"] == {"median_hours": 6.0, "slowest_hours": 20.0, "slowest_pr": 11, "pr_count": 3}
    assert timing["merge"] == {"median_hours": 30.0, "slowest_hours": 50.0, "slowest_pr": 11, "pr_count": 3}
    # Week 1 (the comparison periods' PRs): first reviews 2, 4, 1 h; merges 20, 10, 6 h
    assert timing["before_first_review_median_hours"] == 2.0
    assert timing["before_merge_median_hours"] == 10.0 and timing["before_pr_count"] == 3


def test_history_without_the_times_says_nothing_rather_than_zero(tmp_path: Path) -> None:
    # Week 1 exported without its conversation (as the shared data is): no times in the history entries
    bare = [replace(p, created_at=None, reviews=[], comments=[], review_threads=[]) for p in week_one()]
    source = export(tmp_path, [*bare, *week_two()])
    history = _history(source, CONFIG, WEEK2, {"alice"})
    assert history.earlier and not any("created_at" in e or "promises" in e for e in history.earlier)
    timing = week_report(source, WEEK2, week_two())["reviews"]["timing"]
    assert timing["before_pr_count"] == 0
    assert timing["before_first_review_median_hours"] is None and timing["before_merge_median_hours"] is None
    assert isinstance(History.from_dict(history.to_dict()), History)


def test_the_later_week_renders_the_earlier_follow_up_as_done(tmp_path: Path) -> None:
    from tests.unit.render_support import pdf_text, render_all_strict

    second = week_report(export(tmp_path, [*week_one(), *week_two()]), WEEK2, week_two())
    out = render_all_strict(second)
    md = out["report.md"].decode()
    line = next(li for li in md.splitlines() if "padding mask" in li)
    assert line.startswith("- \\#1 alice") and "done by [\\#10](<https://github.com/acme/trainer/pull/10>)" in line
    html = out["index.html"].decode()
    assert "padding mask" in html and "/pull/10" in html.split("padding mask", 1)[1].split("</li>", 1)[0]
    assert "done by #10" in " ".join(pdf_text(out["report.pdf"], tmp_path).split())
