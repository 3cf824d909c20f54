"""A week through the fake GitHub's conversation (issue 26, "Done when"): the report's reviewers, unresolved threads,
follow-ups and timing equal the fake's truth, through GraphQL, and through REST with resolution unknown.

The truth is tests/fakes/github_conversation's seeded conversation as the fake serves it; the expectations below
read it directly (logins, resolution flags, times), not through prhub.engine.reviews.
"""
from __future__ import annotations

import statistics

import pytest
from prhub.core.history import History
from prhub.engine.scoring import score_pull
from prhub.report.compose import report as compose_report

from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import seeded
from tests.functional import test_github_graphql as graphql
from tests.functional import test_github_source as rest
from tests.functional.test_github_source import REPO, WEEK
from tests.unit.engine_support import CONFIG


def _people(login: str) -> bool:
    return login != "ghost" and not CONFIG.is_bot(login)


def _analysed(got):
    scored = [score_pull(p, CONFIG) for p in got]
    listing = [{"number": p.number, "title": p.title, "author": p.author, "url": p.url,
                "merged_at": p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ")} for p in got]
    return compose_report(scored, [], WEEK, CONFIG, History.of(listing, WEEK), "2026-06-22T01:00:00Z",
                          {"kind": "heuristic", "model": None, "prompt_version": "t"})


@pytest.fixture(scope="module")
def truth():
    return [p for p in seeded(graphql.week(24)) if WEEK.contains(p.merged_at)]


@pytest.mark.parametrize("kind", ["graphql", "rest"])
def test_the_weeks_reviews_are_the_fakes_truth(kind, truth):
    with FakeGitHub(truth, REPO) as gh:
        got = graphql.fetch_all(graphql.source_for(gh)) if kind == "graphql" else rest.fetch_all(rest.source_for(gh))
    result = _analysed(got)
    entries = {p["number"]: p for p in result["prs"]}
    for pr in truth:  # each PR's reviewers: its reviews' people, the author aside
        want = sorted({r.reviewer for r in pr.reviews if r.reviewer != pr.author and _people(r.reviewer)},
                      key=str.lower)
        assert sorted(entries[pr.number]["reviewers"], key=str.lower) == want, pr.number
    opened = {(pr.number, t.path, t.line) for pr in truth for t in pr.review_threads
              if any(_people(c.author) for c in t.comments)}
    unresolved = {(pr.number, t.path, t.line) for pr in truth for t in pr.review_threads
                  if t.is_resolved is False and any(_people(c.author) for c in t.comments)}
    found = {(t["pr"], t["path"], t["line"]) for t in result["reviews"]["unresolved"]}
    if kind == "graphql":  # every unresolved thread of the truth, and no resolved one
        assert unresolved and found == unresolved
        assert result["reviews"]["unknown_threads"] == 0
    else:  # REST has no resolution: none claimed, every thread counted as unknown
        assert found == set() and result["reviews"]["unknown_threads"] == len(opened)
    promised = {pr.number for pr in truth for t in pr.review_threads for c in t.comments
                if _people(c.author) and ("follow-up PR" in c.body or "fix later" in c.body or "后续 PR" in c.body
                                          or "TODO after this lands" in c.body)}
    assert promised and {f["pr"] for f in result["reviews"]["follow_ups"]} == promised
    merge = [(pr.merged_at - pr.created_at).total_seconds() / 3600 for pr in truth]
    timing = result["reviews"]["timing"]["merge"]
    assert timing["pr_count"] == len(truth)
    assert timing["median_hours"] == pytest.approx(statistics.median(merge), abs=0.1)
    assert timing["slowest_hours"] == pytest.approx(max(merge), abs=0.05)
