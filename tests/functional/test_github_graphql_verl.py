"""Acceptance on real data: the GraphQL source (against the fake fed verl's export) equals the export."""
from __future__ import annotations

import time

import pytest
from prhub.core.config import RepoConfig
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.sources.graphql import GraphQLSource
from prhub.sources.http import MemoryEtagCache
from prhub.sources.source import JsonlSource

from tests.conftest import VERL as REPO
from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import served

WEEKS = [("2026-05-04", "2026-05-10"), ("2026-08-10", "2026-08-16")]


def source(fake: FakeGitHub, **options: object) -> GraphQLSource:
    return GraphQLSource(token="t", api_url=fake.url, etag_cache=MemoryEtagCache(),  # type: ignore[arg-type]
                         **{"sleep": lambda s: None, **options})


def file_facts(pr: object) -> list[tuple]:
    return [(f.filename, f.status, f.additions, f.deletions, f.previous_filename, f.patch)  # type: ignore[attr-defined]
            for f in pr.files]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("since", "until"), WEEKS)
def test_graphql_source_gives_the_same_prs_files_line_counts_and_scores_as_the_export(
        verl_jsonl: JsonlSource, verl_github: FakeGitHub, since: str, until: str) -> None:
    period = Period.parse(since, until, "Asia/Shanghai")
    config = RepoConfig(REPO, tz="Asia/Shanghai")
    github = source(verl_github)
    verl_github.reset_counts()

    refs = github.list_merged(REPO, period)
    want = verl_jsonl.list_merged(REPO, period)
    assert len(want) > 20
    assert refs == want  # number, title, author, merge time, url; same order
    for ref in refs:
        mine, theirs = github.get(REPO, ref), served(verl_jsonl.get(REPO, ref))
        assert file_facts(mine) == file_facts(theirs), ref.number
        assert (mine.additions, mine.deletions, mine.changed_files, mine.body, mine.co_authors, mine.head_sha) == (
            theirs.additions, theirs.deletions, theirs.changed_files, theirs.body, theirs.co_authors, theirs.head_sha)
        assert score_pull(mine, config) == score_pull(theirs, config), ref.number
    # The targets for a verl week (the listing of this week alone; bench.github_requests adds history).
    assert verl_github.counts["graphql"] <= 3 and verl_github.counts["diff"] <= len(refs)
    assert sum(verl_github.counts.values()) <= 1.3 * len(refs)


def test_verl_week_with_every_graphql_fault_still_lists_and_loads_every_pr_once(
        verl_jsonl: JsonlSource, verl_github: FakeGitHub) -> None:
    period = Period.parse(*WEEKS[0], "Asia/Shanghai")
    for kind in ("secondary", "429", "403-retry-after", "502", "timeout", "partial", "cut", "cut-connection",
                 "exhausted"):
        verl_github.inject(kind, path="/graphql", retry_after=1, reset_in=1)
    for kind in ("502", "cut", "cut-connection", "429"):
        verl_github.inject(kind, path=r"/pulls/\d+$", times=3, retry_after=1)
    github = source(verl_github, sleep=time.sleep, backoff_base=0.05)  # real sleeps: the fake's budget resets in 1 s
    loaded = [github.get(REPO, ref) for ref in github.list_merged(REPO, period)]
    assert sum(f.times for f in verl_github.faults) == 0, "every injected fault was served"
    want = [verl_jsonl.get(REPO, ref) for ref in verl_jsonl.list_merged(REPO, period)]
    assert [p.number for p in loaded] == [p.number for p in want]
    assert [file_facts(p) for p in loaded] == [file_facts(p) for p in want]
