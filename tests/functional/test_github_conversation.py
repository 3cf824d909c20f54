"""The review conversation through `--source github`: a verl week against the fake GitHub, whose seeded truth
(tests/fakes/github_conversation.py) each PR's reviewers, threads, comments and opening time must equal, through
GraphQL and through REST (where a thread's resolution is unknown)."""
from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import pytest
from prhub.core.models import PullRequest
from prhub.core.period import Period
from prhub.sources.github import GitHubSource, threads_of
from prhub.sources.graphql import GraphQLSource
from prhub.sources.http import MemoryEtagCache
from prhub.sources.source import JsonlSource

from tests.conftest import VERL as REPO
from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import seeded

WEEK = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")


@pytest.fixture(scope="module")
def truth(verl_jsonl: JsonlSource) -> dict[int, PullRequest]:
    """The week's PRs with a seeded conversation; its first PR busier than the listing's first page holds."""
    week = [verl_jsonl.get(REPO, ref) for ref in verl_jsonl.list_merged(REPO, WEEK)]
    return {pr.number: pr for pr in seeded(week, busy=[week[0].number])}


@pytest.fixture
def fake(truth: dict[int, PullRequest]) -> Any:
    with FakeGitHub(truth.values(), REPO) as gh:
        yield gh


def conversation(pr: PullRequest, resolution: bool = True) -> tuple[Any, ...]:
    threads = pr.review_threads if resolution else [replace(t, is_resolved=None) for t in pr.review_threads]
    return pr.created_at, pr.reviews, threads, pr.comments


def options(**more: object) -> dict[str, Any]:
    return {"token": "t", "etag_cache": MemoryEtagCache(), "sleep": lambda s: None, **more}


def test_the_truth_has_what_the_tests_must_find(truth: dict[int, PullRequest]) -> None:
    threads = [t for pr in truth.values() for t in pr.review_threads]
    assert {t.is_resolved for t in threads} == {True, False} and any(t.is_outdated for t in threads)
    assert any(r.state == "CHANGES_REQUESTED" for pr in truth.values() for r in pr.reviews)
    assert any(not pr.reviews for pr in truth.values())  # merged without review
    authors = {c.author for pr in truth.values() for c in pr.comments}
    assert any(a.endswith("[bot]") for a in authors) and "ghost" in authors
    busy = next(iter(truth.values()))
    assert len(busy.review_threads) > 20 and len(busy.review_threads[0].comments) > 10 and len(busy.comments) > 30


def test_graphql_gives_each_pr_the_fakes_conversation_within_the_request_target(
        fake: FakeGitHub, truth: dict[int, PullRequest]) -> None:
    source = GraphQLSource(api_url=fake.url, **options())
    got = [source.get(REPO, ref) for ref in source.list_merged(REPO, WEEK)]
    assert [p.number for p in got] == sorted(truth, key=lambda n: (truth[n].merged_at, n))
    for pr in got:
        assert conversation(pr) == conversation(truth[pr.number]), pr.number
    # The listing (1 page), one follow-up for the busy PR's threads, issue comments and long thread, then its
    # second page of threads' replies is complete: no per-PR conversation request.
    assert fake.counts["graphql"] <= 3 and fake.counts["review_comments"] == fake.counts["issue_comments"] == 0
    assert sum(fake.counts.values()) <= 1.3 * len(got)


def test_rest_gives_the_same_with_resolution_unknown_and_asks_only_where_the_pull_counts_comments(
        fake: FakeGitHub, truth: dict[int, PullRequest]) -> None:
    source = GitHubSource(api_url=fake.url, **options())
    got = [source.get(REPO, ref) for ref in source.list_merged(REPO, WEEK)]
    for pr in got:
        assert all(t.is_resolved is None for t in pr.review_threads)
        assert conversation(pr) == conversation(truth[pr.number], resolution=False), pr.number
    with_threads = sum(1 for pr in truth.values() if pr.review_threads)
    assert fake.counts["review_comments"] == with_threads  # one page each: the busy PR's 40-odd fit in one of 100
    assert fake.counts["issue_comments"] == sum(1 for pr in truth.values() if pr.comments)
    assert fake.counts["reviews"] == len(got)


def test_the_conversation_survives_the_fault_mix(fake: FakeGitHub, truth: dict[int, PullRequest]) -> None:
    for kind in ("secondary", "429", "502", "partial", "cut", "cut-connection", "timeout"):
        fake.inject(kind, path="/graphql", retry_after=1)
    fake.inject("502", path="/graphql", query=r"node\(id", retry_after=1)  # the busy thread's follow-up too
    for kind in ("502", "cut", "429"):
        fake.inject(kind, path="/comments", times=2, retry_after=1)
    graphql = GraphQLSource(api_url=fake.url, **options(backoff_base=0.01))
    rest = GitHubSource(api_url=fake.url, **options(backoff_base=0.01))
    by_graphql = [graphql.get(REPO, ref) for ref in graphql.list_merged(REPO, WEEK)]
    by_rest = [rest.get(REPO, ref) for ref in rest.list_merged(REPO, WEEK)]
    assert sum(f.times for f in fake.faults) == 0, "every injected fault was served"
    assert [conversation(p) for p in by_graphql] == [conversation(truth[p.number]) for p in by_graphql]
    assert [conversation(p) for p in by_rest] == [conversation(truth[p.number], False) for p in by_rest]


def test_the_payload_store_carries_the_conversation_to_another_worker(
        fake: FakeGitHub, truth: dict[int, PullRequest]) -> None:
    store = MemoryEtagCache()
    refs = GraphQLSource(api_url=fake.url, **options(etag_cache=store)).list_merged(REPO, WEEK)
    fake.reset_counts()
    worker = GraphQLSource(api_url=fake.url, **options(etag_cache=store))  # nothing kept in memory
    got = [worker.get(REPO, ref) for ref in refs]
    assert fake.counts["graphql"] == 0
    assert [conversation(p) for p in got] == [conversation(truth[p.number]) for p in got]


def test_an_export_without_a_conversation_still_reads(verl_jsonl: JsonlSource) -> None:
    """The shared data has none of the fields: none is made up on reading."""
    pr = verl_jsonl.get(REPO, verl_jsonl.list_merged(REPO, Period(date(2026, 5, 4), date(2026, 5, 10), "UTC"))[0])
    assert conversation(pr) == (None, [], [], [])


def rest_comment(cid: int, reply_to: int | None = None, line: int | None = 3, original: int | None = 3,
                 login: str = "amy", kind: str = "User") -> dict[str, Any]:
    row: dict[str, Any] = {"id": cid, "path": "a.py", "line": line, "original_line": original, "body": f"c{cid}",
                           "user": {"login": login, "type": kind}, "created_at": "2026-05-04T01:00:00Z",
                           "html_url": f"https://github.com/o/r/pull/1#discussion_r{cid}"}
    if reply_to is not None:
        row["in_reply_to_id"] = reply_to
    return row


def test_rest_review_comments_group_into_threads_by_the_comment_they_answer() -> None:
    rows = [rest_comment(30, reply_to=10), rest_comment(10), rest_comment(20, line=None, original=7),
            rest_comment(40, reply_to=30),  # a reply to a reply: followed to its thread's first comment
            rest_comment(50, reply_to=5, login="ci", kind="Bot"),  # its thread's first comment was deleted
            rest_comment(60, line=None, original=None)]  # on the file, not a line: not outdated
    threads = threads_of(rows)
    assert [[c.body for c in t.comments] for t in threads] == [["c10", "c30", "c40"], ["c20"], ["c50"], ["c60"]]
    assert [(t.line, t.is_outdated, t.is_resolved) for t in threads] == [
        (3, False, None), (7, True, None), (3, False, None), (None, False, None)]
    assert threads[2].comments[0].author == "ci[bot]"  # bots spelled as the contributor lists spell them
    assert threads[0].comments[0].url.endswith("#discussion_r10")
