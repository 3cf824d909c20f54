"""The GraphQL listing's page size after GitHub gives up on a page (issue 26: a shrink kept for the whole
listing cost a long range many more pages than the timeout itself)."""
from __future__ import annotations

import pytest
from prhub.core.errors import SourceError

from tests.fakes import FakeGitHub
from tests.functional.test_github_graphql import assert_same, fetch_all, source_for, week
from tests.functional.test_github_source import REPO, WEEK, expected


@pytest.mark.parametrize("kind", ["502", "timeout"])
def test_the_page_size_grows_back_after_a_page_passes(kind: str) -> None:
    # GIVEN 60 PRs listed 20 a page, and GitHub giving up on the first page once
    pulls = week(60)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject(kind, path="/graphql", times=1)
        source = source_for(gh, page_size=20)
        # WHEN the range is listed
        pages = [page.refs for page in source.list_pages(REPO, WEEK)]
        got = fetch_all(source)
    # THEN the page that timed out is asked at 10, the next ones at 20 again: 10 + 20 + 20 + 10,
    # not six pages of 10; and no PR is lost or listed twice
    assert [len(refs) for refs in pages] == [10, 20, 20, 10]
    assert len({ref.number for refs in pages for ref in refs}) == 60
    assert source.page_size == 20 and source.http.stats["page_shrinks"] == 1
    assert_same(got, expected(pulls))


def test_timeouts_in_a_row_shrink_to_the_floor_and_lose_no_pr() -> None:
    # GIVEN GitHub giving up three times in a row: 40 -> 20 -> 10, then at the floor the query is asked again
    pulls = week(50)
    with FakeGitHub(pulls, REPO) as gh:
        for _ in range(3):
            gh.inject("timeout", path="/graphql", times=1)
        source = source_for(gh, page_size=40)
        pages = [page.refs for page in source.list_pages(REPO, WEEK)]
    # THEN every PR is listed once, in pages no larger than asked
    sizes = [len(refs) for refs in pages]
    assert sum(sizes) == 50 and len({ref.number for refs in pages for ref in refs}) == 50
    assert sizes == [10, 20, 20] and source.http.stats["page_shrinks"] == 2


def test_truncated_answers_do_not_shrink_the_page() -> None:
    # A cut body or reset connection is the network, not the query's weight: asked again at the same size
    pulls = week(30)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject("cut", path="/graphql", times=1)
        gh.inject("cut-connection", path="/graphql", times=1)
        source = source_for(gh, page_size=30)
        pages = [page.refs for page in source.list_pages(REPO, WEEK)]
    assert [len(refs) for refs in pages] == [30] and source.http.stats["page_shrinks"] == 0


def test_timeouts_at_the_smallest_page_still_raise() -> None:
    with FakeGitHub(week(12), REPO) as gh:
        gh.inject("timeout", path="/graphql", times=50)
        with pytest.raises(SourceError):
            source_for(gh, page_size=20, max_tries=3).list_merged(REPO, WEEK)


def test_a_page_that_times_out_with_the_history_it_carries_is_listed_without_it() -> None:
    # GIVEN GitHub giving up on every query that carries the history's first comparison slice
    pulls = week(12)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject("timeout", path="/graphql", query="hs0: search", times=50)
        source = source_for(gh, page_size=20, max_tries=3)
        # WHEN the range is listed and its history asked
        refs = source.list_merged(REPO, WEEK)
        authors = {ref.author for ref in refs}
        listed = gh.counts["graphql"]
        history = source.history(REPO, WEEK, authors, lambda pr: [])
        # THEN the smallest page is asked without the history, which asks its own query afterwards
        assert len(refs) == 12 and gh.counts["graphql"] == listed + 1
    with FakeGitHub(pulls, REPO) as gh:
        assert history == source_for(gh).history(REPO, WEEK, authors, lambda pr: [])
