"""History from the source: the comparison periods' PRs and each author's first merge come from the
repository's own record (the export, or GitHub's search), never from the runs a state holds."""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from prhub.core.models import PullRequest
from prhub.core.period import Period, format_timestamp
from prhub.sources.source import JsonlSource

from tests.fakes import FakeGitHub
from tests.functional.test_github_source import REPO, WEEK, make_pull, source_for


def modules_of(pr: PullRequest) -> list[str]:
    return ["tagged"]


def pulls() -> list[PullRequest]:
    start = WEEK.start_utc
    return [
        make_pull(10, start - timedelta(days=300)),  # dev0, long before the comparison window
        make_pull(20, start - timedelta(days=10)),  # dev0 again, inside it
        make_pull(31, start - timedelta(days=3)),  # dev1
        make_pull(40, start + timedelta(hours=2)),  # dev0: not new
        make_pull(41, start + timedelta(hours=3)),  # dev1: not new
        make_pull(42, start + timedelta(hours=4)),  # dev2: new
        make_pull(50, WEEK.end_utc + timedelta(days=1)),  # after the week: never history
    ]


def test_the_export_gives_the_comparison_periods_and_first_merges() -> None:
    source = JsonlSource([json.dumps(p.to_export()) for p in pulls()], "x.jsonl")
    history = source.history(REPO, WEEK, ["dev0", "DEV1", "dev2"], modules_of)
    assert [e["number"] for e in history.earlier] == [20, 31]  # the four weeks before, oldest first
    assert all(e["modules"] == ["tagged"] for e in history.earlier)
    at = {p.number: format_timestamp(p.merged_at) for p in pulls()}
    assert history.first_merged == {"dev0": at[10], "dev1": at[31]}  # the first merge, however old
    assert "dev2" not in history.first_merged  # new: no merge before the period
    assert history.reach == at[10]


def test_github_gives_the_same_history_from_its_search() -> None:
    with FakeGitHub(pulls(), REPO) as gh:
        history = source_for(gh).history(REPO, WEEK, ["dev0", "dev1", "dev2"], modules_of)
        searches = gh.counts["search"]
    assert [e["number"] for e in history.earlier] == [20, 31]
    assert set(history.first_merged) == {"dev0", "dev1"}
    assert history.first_merged["dev0"]  # the oldest merge search found
    assert searches == 4 + 3  # one listing per comparison week, one first-merge search per author


def test_verl_history_knows_long_standing_authors(verl_export: Path) -> None:
    source = JsonlSource.from_path(str(verl_export))
    week = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
    refs = source.list_merged("verl-project/verl", week)
    authors = {r.author for r in refs}
    history = source.history("verl-project/verl", week, authors, modules_of)
    # Guangming Sheng and Yan Bai had merged dozens of PRs since 2024-11: never "new" in June 2026.
    assert {"Guangming Sheng", "Yan Bai"} <= authors
    assert {"guangming sheng", "yan bai"} <= set(history.first_merged)
    assert history.reach.startswith("2024-10-31")
    assert all(week.previous(4)[0].start_utc.isoformat()[:10] <= e["merged_at"][:10] for e in history.earlier)
