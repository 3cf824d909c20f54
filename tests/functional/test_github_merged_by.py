"""Who merged a PR, from both GitHub sources (issue 26): GraphQL's `mergedBy`, REST's `merged_by`. The
self-merged-without-review risk rests on it; a null merger (a deleted account) or an unsaid one claims none."""
from __future__ import annotations

import pytest
import requests
from prhub.core.models import PullRequest
from prhub.core.period import format_timestamp

from tests.fakes import FakeGitHub
from tests.functional.test_github_graphql import source_for as graphql_source
from tests.functional.test_github_source import REPO
from tests.functional.test_github_source import source_for as rest_source
from tests.unit.test_reviews import WEEK, analysed, talked

SOURCES = {"graphql": graphql_source, "rest": rest_source}


def conversation_week() -> list[PullRequest]:
    """Three reviewed PRs (the repository usually reviews), then three unreviewed: merged by their author, by
    someone else, and by a deleted account (GitHub answers null)."""
    hour = "2026-06-17T0{}:00:00Z".format
    prs = [talked(1, reviews_after={"carol": 2}, merged_by="carol", merged_at=hour(1)),
           talked(2, author="dave", reviews_after={"carol": 3}, merged_by="carol",
                  merged_at=hour(2)),
           talked(3, author="erin", reviews_after={"dave": 1}, merged_by="erin", merged_at=hour(3)),
           talked(4, author="gina", merged_by="gina", merged_at=hour(4)),
           talked(5, author="hana", merged_by="carol", merged_at=hour(5)),
           talked(6, author="ivan", merged_by="ghost", merged_at=hour(6))]
    return prs


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_merged_by_is_read_and_only_the_author_merging_unreviewed_is_self_merged(kind: str) -> None:
    truth = conversation_week()
    with FakeGitHub(truth, REPO) as gh:
        source = SOURCES[kind](gh)
        got = {ref.number: source.get(REPO, ref) for ref in source.list_merged(REPO, WEEK)}
    assert {n: p.merged_by for n, p in got.items()} == {1: "carol", 2: "carol", 3: "erin", 4: "gina",
                                                        5: "carol", 6: ""}
    # The PRs as read carry the merger through the export format, as `prhub export` writes them
    assert all(PullRequest.from_export(p.to_export()).merged_by == p.merged_by for p in got.values())
    result = analysed([got[n] for n in sorted(got)])
    assert result["reviews"]["unreviewed"] == [4, 5, 6]
    assert result["reviews"]["self_merged"] == [4]
    details = {p["number"]: [r["detail"] for r in p["risks"] if r["kind"] == "unreviewed"] for p in result["prs"]}
    assert details[4] == ["self-merged without a review by anyone but its author"]
    assert details[5] == details[6] == ["merged without a review by anyone but its author"]


def test_the_fake_answers_null_for_a_deleted_merger_as_github_does() -> None:
    pr = conversation_week()[5]
    with FakeGitHub([pr], REPO) as gh:
        pull = requests.get(f"{gh.url}/repos/{REPO}/pulls/{pr.number}",
                            headers={"Authorization": "token t0ken"}, timeout=10).json()
    assert pull["merged_by"] is None and pull["merged_at"] == format_timestamp(pr.merged_at)
