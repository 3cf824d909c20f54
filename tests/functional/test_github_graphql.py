"""GraphQLSource against the fake GitHub on 127.0.0.1: bulk listing, diffs, limits, faults, fallbacks."""
from __future__ import annotations

import json
import math
import os
from datetime import UTC, datetime, timedelta

import boto3
import pytest
import yaml
from moto import mock_aws
from prhub.cloud.cache import DynamoCache
from prhub.core.errors import RetryLater, SourceError
from prhub.core.models import Comment, FileChange, PullRequest, Review, ReviewThread
from prhub.core.period import Period
from prhub.sources.graphql import GraphQLSource
from prhub.sources.graphql_details import needs_diff
from prhub.sources.graphql_nodes import ISSUE_COMMENTS, REPLIES, THREADS, conversation_sizes
from prhub.sources.http import CacheEtags, MemoryEtagCache

from tests.fakes import FakeGitHub
from tests.functional.test_github_etag_dynamo import TEMPLATE, _CfnLoader
from tests.functional.test_github_source import REPO, SLOW_ANSWER, WEEK, FakeClock, expected, make_pull

HUNK = "@@ -1,3 +1,4 @@\n import os\n-old = 1\n+new = 2\n+# TODO: drop this\n "


def pull(number: int, minutes: int, files: list[FileChange] | None = None, **fields: object) -> PullRequest:
    base = make_pull(number, WEEK.start_utc + timedelta(minutes=minutes))
    changes = files if files is not None else [
        FileChange(f"pkg/a{number}.py", "modified", 2, 1, patch=HUNK),
        FileChange(f"docs/b{number}.md", "added", 3, 0, patch="@@ -0,0 +1,3 @@\n+a\n+b\n+c")]
    values = {**base.__dict__, "files": changes, "additions": sum(f.additions for f in changes),
              "deletions": sum(f.deletions for f in changes), "changed_files": len(changes), **fields}
    return PullRequest(**values)  # type: ignore[arg-type]


def week(count: int = 12) -> list[PullRequest]:
    """PRs inside WEEK, plus one just before and one just after it."""
    pulls = [pull(100 + i, 37 * i + 1) for i in range(count)]
    pulls.append(make_pull(90, WEEK.start_utc - timedelta(seconds=1)))
    pulls.append(make_pull(999, WEEK.end_utc))
    return pulls


def source_for(gh: FakeGitHub, clock: FakeClock | None = None, **options: object) -> GraphQLSource:
    clock = clock or FakeClock()
    defaults: dict[str, object] = {"token": "t0ken", "api_url": gh.url, "sleep": clock.sleep, "clock": clock,
                                   "timeout": SLOW_ANSWER, "etag_cache": MemoryEtagCache(), "max_wait": math.inf}
    return GraphQLSource(**{**defaults, **options})  # type: ignore[arg-type]


def fetch_all(source: GraphQLSource, period: Period = WEEK) -> list[PullRequest]:
    return [source.get(REPO, ref) for ref in source.list_merged(REPO, period)]


def assert_same(got: list[PullRequest], want: list[PullRequest]) -> None:
    assert [p.number for p in got] == [p.number for p in want]
    for mine, theirs in zip(got, want, strict=True):
        assert mine.files == theirs.files, mine.number  # names, status, counts, old paths, binary, patch text
        assert mine.reviews == theirs.reviews
        assert (mine.title, mine.body, mine.author, mine.merged_at, mine.url, mine.labels, mine.head_sha,
                mine.commits, mine.co_authors, mine.base_ref, mine.additions, mine.deletions, mine.changed_files,
                mine.files_truncated) == (
            theirs.title, theirs.body, theirs.author, theirs.merged_at, theirs.url, theirs.labels, theirs.head_sha,
            theirs.commits, theirs.co_authors, theirs.base_ref, theirs.additions, theirs.deletions,
            theirs.changed_files, theirs.files_truncated)


def test_one_query_lists_a_week_and_one_diff_loads_each_pr() -> None:
    pulls = week()
    with FakeGitHub(pulls, REPO) as gh:
        got = fetch_all(source_for(gh))
        assert gh.counts["graphql"] == 1 and gh.counts["diff"] == 12
        assert gh.counts["pull"] == gh.counts["files"] == gh.counts["reviews"] == gh.counts["commit"] == 0
        # The page, 1 + 6 x 100 + 100 x THREADS (20) requests, and the 4 comparison periods' first pages it carries
        # for the history (Ahead), 4 x (1 + 3 x 100): 3,805 requests / 100 (docs/github.md)
        assert gh.points_spent == 38
    assert_same(got, expected(pulls))
    assert any(p.co_authors for p in got) and any(p.labels for p in got)


def test_the_listing_gives_each_listed_prs_head_without_a_request() -> None:
    pulls = week(3)
    with FakeGitHub(pulls, REPO) as gh:
        planner = source_for(gh)
        refs = planner.list_merged(REPO, WEEK)
        gh.reset_counts()
        heads = {ref.number: planner.listed_head(REPO, ref.number) for ref in refs}
        assert planner.listed_head(REPO, 90) == ""  # merged before the week: not listed
        assert dict(gh.counts) == {}
        got = {ref.number: planner.get(REPO, ref).head_sha for ref in refs}
    # the head the score worker's cache key is made of (get), each a real commit
    assert heads == got and all(len(h) == 40 for h in heads.values())


def test_renames_binaries_bots_and_deleted_accounts_read_as_rest_gives_them() -> None:
    files = [FileChange("pkg/new_name.py", "renamed", 1, 1, previous_filename="pkg/old_name.py",
                        patch="@@ -3 +3 @@\n-x = 1\n+x = 2"),
             FileChange("img/logo.png", "added", 0, 0, binary=True),
             FileChange("pkg/gone.py", "removed", 0, 2, patch="@@ -1,2 +0,0 @@\n-import os\n-print(os)"),
             FileChange("pkg/with space.py", "modified", 1, 0, patch="@@ -1 +1,2 @@\n a\n+b")]
    pulls = [pull(7, 5, files, author="renovate[bot]", reviews=[Review("ghost", "APPROVED")])]
    with FakeGitHub(pulls, REPO) as gh:
        got = fetch_all(source_for(gh))
    assert_same(got, expected(pulls))


def test_a_rerun_with_the_same_store_sends_no_detail_request() -> None:
    pulls = week()
    store = MemoryEtagCache()
    with FakeGitHub(pulls, REPO) as gh:
        first = fetch_all(source_for(gh, etag_cache=store))
        gh.reset_counts()
        renamed = first[0].number
        gh.pulls[renamed] = PullRequest(**{**gh.pulls[renamed].__dict__, "title": "retitled after merge",
                                           "labels": ["late-label"]})
        again = fetch_all(source_for(gh, etag_cache=store))
        assert dict(gh.counts) == {"graphql": 1}  # the listing; diffs come from the store, keyed by head commit
    assert (again[0].title, again[0].labels) == ("retitled after merge", ["late-label"])  # fresh from the listing
    assert_same(again[1:], first[1:])
    assert again[0].files == first[0].files


def test_a_worker_in_another_process_reads_the_planners_payload_and_fetches_only_the_diff() -> None:
    pulls = week(3)
    store = MemoryEtagCache()  # stands in for the stack's CacheTable, shared by planner and workers
    with FakeGitHub(pulls, REPO) as gh:
        planner = source_for(gh, etag_cache=store)
        refs = planner.list_merged(REPO, WEEK)
        payload = planner.payload(REPO, refs[0].number)
        assert payload is not None and all("patch" not in f for f in payload["files"])
        assert json.loads(json.dumps(payload)) == payload  # it can travel on a queue message
        gh.reset_counts()
        worker = source_for(gh, etag_cache=store)
        got = [worker.get(REPO, ref) for ref in refs]
        assert dict(gh.counts) == {"diff": 3}
        gh.reset_counts()
        lonely = source_for(gh)  # no payload anywhere: one GraphQL query for the PR, then its diff
        alone = lonely.get(REPO, refs[1])
        assert dict(gh.counts) == {"graphql": 1, "diff": 1}
    assert_same(got, expected(pulls))
    assert_same([alone], [expected(pulls)[1]])


def test_files_and_reviews_beyond_the_first_page_are_fetched_only_for_the_prs_that_have_more() -> None:
    big = [FileChange(f"src/m{i // 40}/f{i}.py", "modified", 1, 0, patch="@@ -1 +1,2 @@\n a\n+b") for i in range(250)]
    huge = [FileChange(f"gen/f{i}.txt", "added", 1, 0) for i in range(3100)]
    pulls = [*week(5), pull(500, 50, big), pull(501, 60, huge),
             pull(502, 70, reviews=[Review(f"r{k}", "COMMENTED") for k in range(130)])]
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh)
        refs = source.list_merged(REPO, WEEK)
        # The first page, then the further pages of three PRs batched by alias: 500 needs 2 more files pages,
        # 501 needs 29 (capped at 3,000 files like REST), 502 one more reviews page.
        assert gh.counts["graphql"] == 1 + 29
        loaded = {ref.number: source.get(REPO, ref) for ref in refs}
    assert [f.filename for f in loaded[500].files] == [f.filename for f in big]
    assert len(loaded[501].files) == 3000 and loaded[501].files_truncated and loaded[501].changed_files == 3100
    assert len(loaded[502].reviews) == 130
    assert gh.counts["files"] >= 1  # 501: too many files for the diff media type, /files instead



def test_a_pages_further_pages_ride_along_in_the_next_pages_query() -> None:
    # Two pages of 5; one busy PR on each (130 reviews: a second reviews page). The first page's follow-up is asked
    # in the second page's query, so only the last page's own follow-up is a request of its own: 3, not 4.
    busy = {102, 107}
    pulls = [pull(100 + i, 37 * i + 1, reviews=[Review(f"r{k}", "COMMENTED") for k in range(130 if 100 + i in busy
                                                                                            else 2)])
             for i in range(10)]
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh, page_size=5)
        pages = list(source.list_pages(REPO, WEEK))
        assert gh.counts["graphql"] == 2 + 1
        loaded = {ref.number: source.get(REPO, ref) for page in pages for ref in page.refs}
        # A planner that stops after the held first page resumes at the second, and lists each PR once.
        first = next(source_for(gh, page_size=5).list_pages(REPO, WEEK))
        rest = list(source_for(gh, page_size=5).list_pages(REPO, WEEK, json.loads(json.dumps(first.resume))))
    assert [[r.number for r in page.refs] for page in pages] == [[100, 101, 102, 103, 104], [105, 106, 107, 108, 109]]
    assert {n: len(pr.reviews) for n, pr in loaded.items()} == {n: 130 if n in busy else 2 for n in range(100, 110)}
    assert [r.number for page in [first, *rest] for r in page.refs] == list(range(100, 110))
    assert first.resume is not None and rest[-1].resume is None


def test_a_slices_short_last_page_reads_a_busy_conversation_without_a_follow_up() -> None:
    # Pages of 5 and 7 PRs: the second page asks the 2 left (the first page's issueCount said 7), and with the
    # points and nodes of a page of 5 it reads 30 threads and 45 comments whole (beyond the standard 20 and 30), so
    # the listing is its 2 pages. In a page of 10 (no short last page) the same PR needs a follow-up.
    at = datetime(2026, 1, 1, tzinfo=UTC)
    threads = [ReviewThread(f"pkg/f{t}.py", tuple(Comment(f"r{k}", f"point {t}.{k}", at) for k in range(8)), False,
                            line=t + 1) for t in range(30)]
    talk = [Comment(f"c{k}", f"comment {k}", at) for k in range(45)]
    pulls = [pull(100 + i, 37 * i + 1, **({"review_threads": threads, "comments": talk} if i == 6 else {}))
             for i in range(7)]
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh, page_size=5)
        refs = source.list_merged(REPO, WEEK)
        assert gh.counts["graphql"] == 2
        busy = source.get(REPO, refs[-1])
        gh.reset_counts()
        source_for(gh, page_size=10).list_merged(REPO, WEEK)  # one page of 10: a follow-up for the busy PR
        assert gh.counts["graphql"] == 2
    assert conversation_sizes(2, 5) > conversation_sizes(5, 5) == (THREADS, REPLIES, ISSUE_COMMENTS)
    assert [len(t.comments) for t in busy.review_threads] == [8] * 30 and len(busy.comments) == 45
    assert [c.body for t in busy.review_threads for c in t.comments] == [c.body for t in threads for c in t.comments]

def test_more_than_a_thousand_results_are_sliced_and_listed_completely() -> None:
    start = WEEK.start_utc + timedelta(hours=1)
    pulls = [pull(1 + i, 0, [FileChange("a.py", "modified", 1, 0)], merged_at=start + timedelta(seconds=97 * i))
             for i in range(2100)]
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh)
        refs = source.list_merged(REPO, WEEK)
        assert gh.counts["graphql"] >= 22  # sliced in three (one first page wasted), 7 pages each
    assert [r.number for r in refs] == list(range(1, 2101))


def test_a_listing_can_stop_after_any_page_and_resume_from_plain_json() -> None:
    pulls = week(23)
    with FakeGitHub(pulls, REPO) as gh:
        pages = source_for(gh, page_size=5).list_pages(REPO, WEEK)
        first = next(pages)
        assert first.resume is not None and len(first.refs) == 5
        resume = json.loads(json.dumps(first.resume))  # what a queue message would carry
        rest = list(source_for(gh, page_size=5).list_pages(REPO, WEEK, resume))
    numbers = [r.number for page in [first, *rest] for r in page.refs]
    assert sorted(numbers) == [p.number for p in expected(pulls)] and len(numbers) == 23
    assert rest[-1].resume is None


def test_the_points_budget_is_waited_for_before_it_runs_out() -> None:
    clock = FakeClock()
    pulls = week(120)
    with FakeGitHub(pulls, REPO, points_limit=30, clock=clock) as gh:
        source = source_for(gh, clock, page_size=50)  # 13 points a page (1 + 6 x 50 + 50 x 20 requests / 100); 3 pages
        refs = source.list_merged(REPO, WEEK)
        assert gh.counts["rate_limited"] == 0 and gh.counts["graphql"] == 3  # never asked with too few points
    assert len(refs) == 120
    assert any(s > 3000 for s in clock.sleeps)  # it slept to the reset (an hour away)


def test_rate_limited_answers_are_waited_out_or_handed_back() -> None:
    clock = FakeClock()
    with FakeGitHub(week(), REPO, clock=clock) as gh:
        gh.inject("exhausted", path="/graphql", reset_in=40)
        assert len(source_for(gh, clock).list_merged(REPO, WEEK)) == 12
        assert gh.counts["rate_limited"] == 1 and any(39 <= s <= 41 for s in clock.sleeps)

        gh.inject("exhausted", path="/graphql", reset_in=600)
        short = source_for(gh, clock, deadline=lambda: 60.0)
        with pytest.raises(RetryLater) as caught:
            short.list_merged(REPO, WEEK)
        assert 590 <= caught.value.retry_after <= 620


@pytest.mark.parametrize("kind", ["secondary", "403-retry-after", "429"])
def test_secondary_limits_are_slept_as_told(kind: str) -> None:
    clock = FakeClock()
    with FakeGitHub(week(), REPO, clock=clock) as gh:
        gh.inject(kind, path="/graphql", times=2, retry_after=7)
        got = fetch_all(source_for(gh, clock))
        assert gh.counts[f"fault_{kind}"] == 2
    assert len(got) == 12 and clock.sleeps.count(7) == 2


@pytest.mark.parametrize("kind", ["502", "timeout", "partial", "cut", "cut-connection"])
def test_faults_on_the_graphql_path_lose_no_pr(kind: str) -> None:
    pulls = week(30)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject(kind, path="/graphql", times=2)
        source = source_for(gh, page_size=40)
        got = fetch_all(source)
        assert sum(f.times for f in gh.faults) == 0
    assert_same(got, expected(pulls))
    if kind in ("502", "timeout"):
        # GitHub gave up twice (40 -> 20 -> 10); each page that passed doubled it back
        assert source.http.stats["page_shrinks"] == 2 and source.page_size == 40


def test_an_answer_that_stays_partial_raises_instead_of_dropping_prs() -> None:
    with FakeGitHub(week(), REPO) as gh:
        gh.inject("partial", path="/graphql", times=50)
        with pytest.raises(SourceError, match="GraphQL errors"):
            source_for(gh, max_tries=3).list_merged(REPO, WEEK)


@pytest.mark.parametrize("kind", ["502", "cut", "cut-connection", "429"])
def test_faults_on_the_diff_lose_no_patch(kind: str) -> None:
    pulls = week(4)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject(kind, path=r"/pulls/\d+$", times=2, retry_after=1)
        got = fetch_all(source_for(gh))
        assert sum(f.times for f in gh.faults) == 0
    assert_same(got, expected(pulls))


def test_a_diff_github_will_not_render_is_read_from_files() -> None:
    pulls = week(3)
    with FakeGitHub(pulls, REPO, diff_max_lines=4) as gh:  # every PR here has 6 changed lines: 406
        source = source_for(gh)
        refs = source.list_merged(REPO, WEEK)
        got = [source.get(REPO, ref) for ref in refs]
        assert gh.counts["diff"] == 3 and gh.counts["files"] == 3
    assert_same(got, expected(pulls))


def test_prs_without_readable_lines_need_no_diff() -> None:
    art = [FileChange("img/a.png", "added", 0, 0, binary=True), FileChange("uv.lock", "modified", 300, 200)]
    pulls = [pull(1, 5, art), pull(2, 6)]
    assert not needs_diff(pulls[0]) and needs_diff(pulls[1])
    with FakeGitHub(pulls, REPO) as gh:
        got = fetch_all(source_for(gh))
        assert gh.counts["diff"] == 1
    assert [p.number for p in got] == [1, 2]


def test_enterprise_server_has_graphql_under_api_graphql(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGitHub(week(3), REPO, prefix="/api/v3", token="env-token") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "env-token")
        monkeypatch.delenv("GITHUB_TOKEN_SECRET", raising=False)
        monkeypatch.delenv("CACHE_TABLE", raising=False)
        source = GraphQLSource.from_env(os.environ)  # what Deps builds for the "github" source
        assert isinstance(source, GraphQLSource) and source.graphql_url.endswith("/api/graphql")
        got = fetch_all(source)
        assert gh.counts["graphql"] == 1 and gh.counts["fault_401"] == 0
    assert len(got) == 3


def test_without_graphql_or_without_a_token_the_rest_api_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    pulls = week(4)
    with FakeGitHub(pulls, REPO, graphql=False) as gh:
        got = fetch_all(source_for(gh))
        assert gh.counts["not_found"] == 1 and gh.counts["graphql"] == 0 and gh.counts["pull"] == 4
    assert [p.number for p in got] == [p.number for p in expected(pulls)]
    with FakeGitHub(pulls, REPO) as gh:
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        monkeypatch.delenv("GITHUB_TOKEN_SECRET", raising=False)
        anonymous = source_for(gh, token=None)
        assert anonymous.graphql is False
        assert [p.number for p in fetch_all(anonymous)] == [p.number for p in expected(pulls)]
        assert gh.counts["graphql"] == 0


def test_a_missing_repository_is_a_clear_error() -> None:
    with FakeGitHub(week(), REPO) as gh, pytest.raises(SourceError, match="nobody/nothing not found"):
        source_for(gh).list_merged("nobody/nothing", WEEK)


def test_a_query_github_refuses_is_an_error_at_once_not_a_retry() -> None:
    with FakeGitHub(week(), REPO) as gh:
        source = source_for(gh)
        with pytest.raises(SourceError, match="refused the query.*`first` or `last`"):
            source.query('query { search(query: "repo:acme/widgets", type: ISSUE) { issueCount } }', {})
        assert gh.counts["graphql_invalid"] == 1 and source.stats["retries"] == 0


def test_planner_and_worker_lambdas_share_payloads_and_diffs_through_the_cache_table() -> None:
    props = yaml.load(TEMPLATE.read_text(), Loader=_CfnLoader)["Resources"]["CacheTable"]["Properties"]
    pulls = week(6)
    with mock_aws(), FakeGitHub(pulls, REPO) as gh:
        table = boto3.resource("dynamodb", region_name="us-east-1").create_table(
            TableName="cache", BillingMode="PAY_PER_REQUEST", KeySchema=props["KeySchema"],
            AttributeDefinitions=props["AttributeDefinitions"])
        shared = CacheEtags(DynamoCache(boto3.client("dynamodb", region_name="us-east-1"), table.name))
        refs = source_for(gh, etag_cache=shared).list_merged(REPO, WEEK)  # the plan function
        gh.reset_counts()
        worker = source_for(gh, etag_cache=CacheEtags(DynamoCache(boto3.client("dynamodb", region_name="us-east-1"),
                                                                  "cache")))  # a score function: nothing in memory
        got = [worker.get(REPO, ref) for ref in refs]
        assert dict(gh.counts) == {"diff": 6}
        gh.reset_counts()
        again = [source_for(gh, etag_cache=CacheEtags(DynamoCache(boto3.client("dynamodb", region_name="us-east-1"),
                                                                   "cache"))).get(REPO, ref) for ref in refs]
        assert dict(gh.counts) == {}  # a later worker (a re-run): payload and diff both from the table
        keys = sorted(item["key"] for item in table.scan()["Items"])
    assert_same(got, expected(pulls))
    assert_same(again, got)
    assert len(keys) == 12 and all(k.startswith(("etag#graphql:pr:", "etag#graphql:diff:")) for k in keys)


def test_a_spent_points_budget_does_not_hold_back_rest_diff_requests() -> None:
    clock = FakeClock()
    with FakeGitHub(week(3), REPO, points_limit=38, clock=clock) as gh:
        source = source_for(gh, clock)
        refs = source.list_merged(REPO, WEEK)  # 38 points (the page and the history's slices): the budget is empty
        assert source.points is not None and source.points.remaining == 0
        got = [source.get(REPO, ref) for ref in refs]
        assert gh.counts["diff"] == 3
    assert len(got) == 3 and clock.sleeps == []
