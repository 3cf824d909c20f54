"""Issue 26's "Done when", end to end: a verl week through `prhub run --source github` against the fake GitHub serving
a seeded review conversation gives, in report.json, each PR's reviewers, every unresolved thread of the fake's truth
and no resolved one, the follow-ups promised and the review timing, all read here from the truth itself (logins,
flags, times), not through prhub.engine.reviews. The same through REST (no token: GraphQL needs one), where a
thread's resolution is unknown: none claimed unresolved, each counted as unknown.

The truth is tests/fakes/github_conversation's `seeded` conversation as the fake answers it (`served`)."""
from __future__ import annotations

import json
import statistics
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest
from prhub.core.period import Period
from prhub.sources.source import JsonlSource

from prhub_local.cli import main
from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import REPLIES, seeded, served

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"
WEEK = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")
PROMISES = REPLIES[2:6]  # the seeded replies that promise a follow-up
BOTS = RepoConfig(repo=REPO)  # the default bot judgement, as the run's config has it

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"real data not present at {DATA}")]


def person(login: str, author: str) -> bool:
    return login not in ("", "ghost", author) and not BOTS.is_bot(login)


@pytest.fixture(scope="module")
def truth() -> list[PullRequest]:
    export = JsonlSource.from_path(str(DATA))
    week = [export.get(REPO, ref) for ref in export.list_merged(REPO, WEEK)]
    return [served(pr) for pr in seeded(week, busy=[week[0].number])]


def run_report(work: Path, truth: list[PullRequest], monkeypatch: pytest.MonkeyPatch, token: str | None) -> tuple:
    for name in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE", "OPENAI_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    if token:
        monkeypatch.setenv("GITHUB_TOKEN", token)
    with FakeGitHub(truth, REPO, token=token) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        code = main(["run", "--repo", REPO, "--since", "2026-05-04", "--until", "2026-05-10", "--tz", "Asia/Shanghai",
                     "--source", "github", "--scorer", "heuristic", "--lang", "en", "--out", str(work / "site"),
                     "--state", str(work / "state"), "--quiet"])
        counts = dict(gh.counts)
    assert code == 0
    path = work / "site" / REPO / "reports" / "2026-05-04-to-2026-05-10" / "en" / "report.json"
    return json.loads(path.read_text("utf-8")), counts


def hours(start: Any, end: Any) -> float:
    return round((end - start).total_seconds() / 3600, 1)


def first_review_hours(pr: PullRequest) -> float | None:
    times = [r.submitted_at for r in pr.reviews if person(r.reviewer, pr.author)]
    times += [c.created_at for t in pr.review_threads for c in t.comments if person(c.author, pr.author)]
    known = [t for t in times if t is not None and t >= pr.created_at]
    return hours(pr.created_at, min(known)) if known else None


def figures(values: dict[int, float | None]) -> dict[str, Any]:
    known = {n: v for n, v in values.items() if v is not None}
    slowest = max(known, key=lambda n: (known[n], -n))
    return {"median_hours": round(statistics.median(known.values()), 1), "slowest_hours": known[slowest],
            "slowest_pr": slowest, "pr_count": len(known)}


def assert_reviews_are_the_truth(report: dict, truth: list[PullRequest], resolution: bool) -> None:
    entries = {p["number"]: p for p in report["prs"]}
    assert sorted(entries) == sorted(p.number for p in truth)
    for pr in truth:  # each PR's reviewers: its reviews' people, the author aside
        want = sorted({r.reviewer for r in pr.reviews if person(r.reviewer, pr.author)}, key=str.lower)
        assert sorted(entries[pr.number].get("reviewers", []), key=str.lower) == want, pr.number
    # A thread by its first comment from a person (a bot's thread is no reviewer's concern): its link, its path
    people_threads = {(pr.number, first.url, t.path): t for pr in truth for t in pr.review_threads
                      if (first := next((c for c in t.comments if person(c.author, "")), None))}
    found = {(t["pr"], t["url"], t["path"]) for t in report["reviews"]["unresolved"]}
    if resolution:  # every unresolved thread of the truth, and no resolved one
        want_open = {key for key, t in people_threads.items() if t.is_resolved is False}
        assert want_open and any(t.is_resolved for t in people_threads.values())
        assert found == want_open
        assert report["reviews"]["unknown_threads"] == 0
    else:
        assert found == set() and report["reviews"]["unknown_threads"] == len(people_threads)
    promised = {pr.number for pr in truth for t in pr.review_threads for c in t.comments
                if person(c.author, "") and c.body in PROMISES}
    assert promised and {f["pr"] for f in report["reviews"]["follow_ups"]} == promised
    timing = report["reviews"]["timing"]
    assert timing["merge"] == figures({pr.number: hours(pr.created_at, pr.merged_at) for pr in truth})
    assert timing["first_review"] == figures({pr.number: first_review_hours(pr) for pr in truth})


def test_graphql_run_reports_the_fakes_reviews(tmp_path: Path, truth, monkeypatch) -> None:
    report, counts = run_report(tmp_path, truth, monkeypatch, token="s3cret")
    assert counts.get("graphql", 0) >= 1 and counts.get("reviews", 0) == 0  # GraphQL read the conversation
    assert_reviews_are_the_truth(report, truth, resolution=True)


def test_rest_run_reports_the_same_with_resolution_unknown(tmp_path: Path, truth, monkeypatch) -> None:
    report, counts = run_report(tmp_path, truth, monkeypatch, token=None)
    assert counts.get("graphql", 0) == 0 and counts.get("reviews", 0) == len(truth)  # REST read it
    assert_reviews_are_the_truth(report, truth, resolution=False)


def test_the_truth_is_not_trivial(truth) -> None:
    assert date(2026, 5, 4) <= truth[0].merged_at.date() and len(truth) > 20
    assert any(t.is_resolved for pr in truth for t in pr.review_threads)
    assert any(first_review_hours(pr) is None for pr in truth)  # some PRs nobody reviewed
