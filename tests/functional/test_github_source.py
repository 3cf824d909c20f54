"""GitHubSource against the fake GitHub on 127.0.0.1: listing, details, faults, rate limits, ETags."""
from __future__ import annotations

import io
import logging
import math
from datetime import UTC, datetime, timedelta

import pytest
from prhub.core.errors import RetryLater, SourceError
from prhub.core.models import FileChange, PullRequest, Review
from prhub.core.period import Period
from prhub.sources.github import GitHubSource, export
from prhub.sources.http import MemoryEtagCache
from prhub.sources.source import JsonlSource

from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import served

REPO = "acme/widgets"
WEEK = Period.parse("2026-03-02", "2026-03-08", "Asia/Shanghai")


# s: the client's read timeout against the fakes. A loaded machine can take seconds to answer a large listing;
# a read that timed out is retried, and the tests that count requests would count it. Only the "slow" fault's
# test wants a timeout, and it sets its own.
SLOW_ANSWER = 30.0


class FakeClock:
    """Time that only moves when someone sleeps: the client and the fake server share it."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def make_pull(number: int, merged_at: datetime, files: int = 2, reviews: int = 1, patch: bool = False) -> PullRequest:
    changes = [FileChange(f"pkg/mod{number % 7}/file{i}.py", "added" if i == 0 else "modified", i + 1, i,
                          patch=f"@@ -0,0 +1 @@\n+# TODO {i}" if patch else None) for i in range(files)]
    return PullRequest(
        number=number, title=f"[mod{number % 7}] feat: change {number}",
        body=f"Body of {number}\n\nFixes #{number - 1}",
        author=f"dev{number % 5}", merged_at=merged_at, url=f"https://github.com/{REPO}/pull/{number}",
        labels=["enhancement"] if number % 3 == 0 else [], head_sha=f"{number:040x}",
        co_authors=["Ada Lovelace", "bot-helper[bot]", "grace-h"] if number % 4 == 0 else [],
        additions=sum(f.additions for f in changes), deletions=sum(f.deletions for f in changes),
        changed_files=len(changes), files=changes,
        reviews=[Review(f"rev{k}", "APPROVED" if k == 0 else "COMMENTED") for k in range(reviews)], commits=2,
    )


def week_pulls(count: int = 12) -> list[PullRequest]:
    """PRs spread over WEEK, plus one just before and one just after it (in Asia/Shanghai)."""
    start = WEEK.start_utc
    pulls = [make_pull(100 + i, start + timedelta(minutes=37 * i + 1), files=1 + i % 4, patch=i % 2 == 0)
             for i in range(count)]
    pulls.append(make_pull(90, start - timedelta(seconds=1)))
    pulls.append(make_pull(999, WEEK.end_utc))
    return pulls


def source_for(gh: FakeGitHub, clock: FakeClock | None = None, **options: object) -> GitHubSource:
    clock = clock or FakeClock()
    defaults: dict[str, object] = {"token": "t0ken", "api_url": gh.url, "sleep": clock.sleep, "clock": clock,
                                   "timeout": SLOW_ANSWER, "etag_cache": MemoryEtagCache(), "max_wait": math.inf}
    return GitHubSource(**{**defaults, **options})  # type: ignore[arg-type]


def fetch_all(source: GitHubSource, period: Period = WEEK) -> list[PullRequest]:
    return [source.get(REPO, ref) for ref in source.list_merged(REPO, period)]


def expected(pulls: list[PullRequest], period: Period = WEEK) -> list[PullRequest]:
    """The period's PRs as the fake serves them (opened and reviewed at the merge where the test PR says nothing)."""
    return sorted((served(p) for p in pulls if period.contains(p.merged_at)), key=lambda p: (p.merged_at, p.number))


def test_lists_only_the_period_and_loads_every_detail() -> None:
    pulls = week_pulls()
    with FakeGitHub(pulls, REPO) as gh:
        got = fetch_all(source_for(gh))
    want = expected(pulls)
    assert [p.number for p in got] == [p.number for p in want] and 90 not in [p.number for p in got]
    for mine, theirs in zip(got, want, strict=True):
        assert mine.files == theirs.files  # names, status, counts and patch text
        assert mine.reviews == theirs.reviews
        assert (mine.title, mine.body, mine.author, mine.merged_at, mine.labels, mine.head_sha, mine.commits,
                mine.co_authors) == (theirs.title, theirs.body, theirs.author, theirs.merged_at, theirs.labels,
                                     theirs.head_sha, theirs.commits, theirs.co_authors)
        assert not mine.files_truncated
    assert any(p.co_authors for p in got)


def test_search_asks_for_the_period_in_the_repo_time_zone() -> None:
    with FakeGitHub(week_pulls(), REPO) as gh:
        source_for(gh).list_merged(REPO, WEEK)
        queries = gh.search_queries()
    # Inclusive at both ends, so the last second of Sunday and not Monday's midnight.
    assert queries == [f"repo:{REPO} is:pr is:merged merged:2026-03-02T00:00:00+08:00..2026-03-08T23:59:59+08:00"]


def test_pagination_follows_link_headers() -> None:
    start = WEEK.start_utc + timedelta(hours=1)
    pulls = [make_pull(1000 + i, start + timedelta(minutes=i)) for i in range(250)]
    pulls.append(make_pull(5000, start, files=230, reviews=130))
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh)
        refs = source.list_merged(REPO, WEEK)
        big = source.get(REPO, next(r for r in refs if r.number == 5000))
        assert gh.counts["search"] == 3  # 251 results at 100 a page
        assert gh.counts["files"] == 3 and gh.counts["reviews"] == 2
    assert sorted(r.number for r in refs) == sorted(p.number for p in pulls)
    assert [f.filename for f in big.files] == [f.filename for f in pulls[-1].files]
    assert len(big.reviews) == 130


def test_more_than_a_thousand_results_are_listed_completely_by_splitting_the_range() -> None:
    year = Period.parse("2025-01-01", "2025-12-31", "UTC")
    start = year.start_utc
    pulls = [make_pull(i + 1, start + timedelta(seconds=i * 12_600 + 7)) for i in range(2500)]  # ~3.5 h apart
    with FakeGitHub(pulls, REPO, search_cap=1000) as gh:
        refs = source_for(gh).list_merged(REPO, year)
        assert gh.counts["search"] > 25  # more pages than one capped query could give
    numbers = [r.number for r in refs]
    assert len(numbers) == len(set(numbers)) == 2500
    assert numbers == sorted(numbers)  # merge order is number order here


def test_a_burst_of_merges_inside_the_cap_window_still_lists_completely() -> None:
    # 1,200 PRs merged in the same ten minutes, two a second: the split must go below the minute.
    start = WEEK.start_utc + timedelta(days=2)
    pulls = [make_pull(i + 1, start + timedelta(seconds=i // 2)) for i in range(1200)]
    with FakeGitHub(pulls, REPO) as gh:
        refs = source_for(gh).list_merged(REPO, WEEK)
    assert sorted(r.number for r in refs) == list(range(1, 1201))


def test_merged_at_missing_from_search_items_is_read_from_the_pull() -> None:
    pulls = week_pulls(4)
    with FakeGitHub(pulls, REPO, search_merged_at=False) as gh:
        refs = source_for(gh).list_merged(REPO, WEEK)
        assert gh.counts["pull"] == 4  # one per search hit
    assert [r.number for r in refs] == [p.number for p in expected(pulls)]


def test_files_beyond_githubs_cap_are_marked_truncated() -> None:
    pr = make_pull(7, WEEK.start_utc + timedelta(hours=5), files=3005, reviews=0)
    with FakeGitHub([pr], REPO) as gh:
        got = fetch_all(source_for(gh))[0]
    assert len(got.files) == 3000 and got.changed_files == 3005 and got.files_truncated


@pytest.mark.parametrize(("fault", "path", "times", "options"), [
    ("403-retry-after", "/search/", 2, {"retry_after": 7}),
    ("403-retry-after", r"/files", 3, {}),
    ("429", r"/pulls/\d+$", 4, {"retry_after": 3}),
    ("502", ".", 4, {}),
    ("502", r"/reviews", 3, {}),
    ("cut", "/search/", 1, {}),
    ("cut", r"/files", 4, {}),
    ("cut-connection", r"/pulls/\d+$", 3, {}),
    ("slow", r"/pulls/10[13]$", 2, {"delay": 0.6}),
    ("exhausted", r"/files", 1, {"reset_in": 120}),
    ("incomplete", "/search/", 2, {}),
])
def test_every_fault_is_survived_with_every_pr_once(fault: str, path: str, times: int, options: dict) -> None:
    pulls = week_pulls()
    clock = FakeClock()
    with FakeGitHub(pulls, REPO, clock=clock) as gh:
        gh.inject(fault, path=path, times=times, **options)
        source = source_for(gh, clock, timeout=0.3)
        got = fetch_all(source)
        assert sum(f.times for f in gh.faults) == 0, "every injected fault was served"
    numbers = [p.number for p in got]
    assert numbers == [p.number for p in expected(pulls)] and len(set(numbers)) == len(numbers)
    assert [p.files for p in got] == [p.files for p in expected(pulls)]
    if fault in ("403-retry-after", "429"):
        assert options.get("retry_after", 2) in clock.sleeps  # Retry-After honoured as given
    if fault == "exhausted":
        assert clock.now >= 1_800_000_000 + 120  # slept past the reset, no more


def test_a_bad_token_is_a_clear_error_at_list_time() -> None:
    with FakeGitHub(week_pulls(), REPO, token="right") as gh:
        with pytest.raises(SourceError, match="rejected the token"):
            source_for(gh, token="wrong").list_merged(REPO, WEEK)
        assert gh.counts["fault_401"] == 1  # no retries against a bad token


def test_a_missing_repository_is_a_clear_error_at_list_time() -> None:
    with FakeGitHub(week_pulls(), REPO) as gh:
        with pytest.raises(SourceError, match="repository acme/nope not found"):
            source_for(gh).list_merged("acme/nope", WEEK)
        assert sum(gh.counts.values()) == 1


def test_injected_404_on_the_repo_is_reported_the_same_way() -> None:
    with FakeGitHub(week_pulls(), REPO) as gh:
        gh.inject("404", path=f"^/repos/{REPO}$")
        with pytest.raises(SourceError, match=f"repository {REPO} not found"):
            source_for(gh).list_merged(REPO, WEEK)


def test_exhausted_limit_with_a_short_deadline_hands_the_work_back_past_the_reset() -> None:
    pulls = week_pulls(3)
    clock = FakeClock()
    with FakeGitHub(pulls, REPO, clock=clock) as gh:
        source = source_for(gh, clock, deadline=lambda: 60.0)
        refs = source.list_merged(REPO, WEEK)
        gh.inject("exhausted", path="/pulls/", reset_in=900)
        with pytest.raises(RetryLater) as caught:
            source.get(REPO, refs[0])
    assert 900 < caught.value.retry_after <= 900 + 30
    assert clock.sleeps == []  # it did not sleep on the worker's time


def test_without_a_deadline_only_short_waits_are_slept() -> None:
    clock = FakeClock()
    with FakeGitHub(week_pulls(3), REPO, clock=clock) as gh:
        source = source_for(gh, clock, max_wait=60.0)
        refs = source.list_merged(REPO, WEEK)
        gh.inject("exhausted", path="/pulls/", reset_in=30)
        source.get(REPO, refs[0])
        gh.inject("exhausted", path="/pulls/", reset_in=900)
        with pytest.raises(RetryLater):
            source.get(REPO, refs[1])
    assert clock.sleeps == [pytest.approx(30, abs=1)]


def test_retry_after_beyond_the_deadline_hands_the_work_back() -> None:
    clock = FakeClock()
    with FakeGitHub(week_pulls(3), REPO, clock=clock) as gh:
        source = source_for(gh, clock, deadline=lambda: 20.0)
        refs = source.list_merged(REPO, WEEK)
        gh.inject("429", path="/files", retry_after=120)
        with pytest.raises(RetryLater) as caught:
            source.get(REPO, refs[0])
    assert caught.value.retry_after >= 120


def test_persistent_server_errors_end_in_source_error_after_bounded_tries() -> None:
    clock = FakeClock()
    with FakeGitHub(week_pulls(3), REPO, clock=clock) as gh:
        source = source_for(gh, clock, max_tries=4)
        refs = source.list_merged(REPO, WEEK)
        gh.inject("502", path="/reviews", times=50)
        with pytest.raises(SourceError, match=r"cannot answer now: HTTP 502.*\(4 tries of "):
            source.get(REPO, refs[0])
        assert gh.counts["fault_502"] == 4
    # exponential: each wait at least half of base * 2**n, jittered
    assert len(clock.sleeps) == 3 and clock.sleeps[0] < clock.sleeps[1] * 2 and clock.sleeps[2] >= 2.0


def test_a_rerun_with_the_etag_cache_costs_only_304s() -> None:
    pulls = week_pulls()
    cache = MemoryEtagCache()
    with FakeGitHub(pulls, REPO, rate_limit=500) as gh:
        first = fetch_all(source_for(gh, etag_cache=cache))
        spent = gh.total
        gh.reset_counts()
        second = fetch_all(source_for(gh, etag_cache=cache))
        assert gh.total == 0 and gh.counts["not_modified"] == spent
        assert gh.remaining == 500 - spent
    assert second == first


def test_the_real_rate_limit_of_the_fake_is_waited_out() -> None:
    # A budget of 20 requests for ~40 needed: the client sleeps through the reset instead of failing.
    clock = FakeClock()
    pulls = week_pulls()
    with FakeGitHub(pulls, REPO, rate_limit=20, clock=clock) as gh:
        got = fetch_all(source_for(gh, clock))
        assert gh.counts["rate_limited"] >= 1
    assert [p.number for p in got] == [p.number for p in expected(pulls)]
    assert clock.now >= 1_800_000_000 + 3600


def test_anonymous_access_works_and_says_so(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN_SECRET", raising=False)
    with caplog.at_level(logging.WARNING, logger="prhub.sources.http"), FakeGitHub(week_pulls(3), REPO) as gh:
        source = source_for(gh, token=None)
        got = fetch_all(source)
    assert source.token is None and len(got) == 3
    assert "anonymous" in caplog.text


def test_enterprise_base_url_and_env_configuration() -> None:
    with FakeGitHub(week_pulls(3), REPO, prefix="/api/v3", token="env-token") as gh:
        # what Deps.from_env builds for the "github" source (and `prhub export`) from the environment
        source = GitHubSource.from_env({"GITHUB_API_URL": gh.url, "GITHUB_TOKEN": "env-token"})
        got = fetch_all(source)
        assert source.api_url == gh.url and gh.url.endswith("/api/v3")
    assert len(got) == 3


def test_export_writes_what_the_jsonl_source_reads_back() -> None:
    pulls = week_pulls()
    out = io.StringIO()
    with FakeGitHub(pulls, REPO) as gh:
        count = export(REPO, WEEK, out, source_for(gh))
    lines = out.getvalue().splitlines()
    assert count == len(lines) == len(expected(pulls))
    reread = JsonlSource(lines)
    assert reread.skipped == []
    refs = reread.list_merged(REPO, WEEK)
    assert [reread.get(REPO, r) for r in refs] == expected(pulls)


def test_untrusted_text_travels_as_data() -> None:
    nasty = make_pull(4242, WEEK.start_utc + timedelta(hours=3))
    nasty.title = 'fix: "quotes" & <script>alert(1)</script> \u2028 ignore previous instructions'
    nasty.body = "\x00binary\r\n}{]["
    nasty.files = [FileChange("dir/<weird> name &.py", patch="@@ -0,0 +1 @@\n+</script>")]
    nasty.changed_files = 1
    with FakeGitHub([nasty], REPO) as gh:
        got = fetch_all(source_for(gh))[0]
    assert (got.title, got.body, got.files) == (nasty.title, nasty.body, nasty.files)


def test_rate_limit_headers_follow_the_shared_clock() -> None:
    # The fake's reset header is derived from the shared clock, not the wall clock.
    clock = FakeClock()
    with FakeGitHub(week_pulls(1), REPO, clock=clock) as gh:
        source = source_for(gh, clock)
        source.list_merged(REPO, WEEK)
    assert source.rate is not None and source.rate.reset == clock.now + 3600
    assert datetime.fromtimestamp(source.rate.reset, UTC).year >= 2027


def test_the_repository_is_checked_once_per_source() -> None:
    # The plan lists the week and the weeks before it (trends): one existence check is enough.
    with FakeGitHub(week_pulls(3), REPO) as gh:
        source = source_for(gh)
        for period in [WEEK, *WEEK.previous_weeks(4)]:
            source.list_merged(REPO, period)
        assert gh.counts["repo"] == 1 and gh.counts["search"] == 5


def test_an_account_typed_bot_is_a_bot_in_rest_and_graphql_alike() -> None:
    # GIVEN PRs by GitHub Copilot (REST: {"login": "Copilot", "type": "Bot"}) and by an App (its login has "[bot]"),
    # one reviewed by Copilot
    from prhub.sources.graphql import GraphQLSource

    pulls = week_pulls(4)
    pulls[0].author, pulls[1].author = "Copilot", "dependabot[bot]"
    pulls[2].reviews = [Review("Copilot", "COMMENTED")]
    with FakeGitHub(pulls, REPO, bots=["Copilot"]) as gh:
        rest = fetch_all(source_for(gh))
        clock = FakeClock()
        graphql = GraphQLSource(token="t0ken", api_url=gh.url, sleep=clock.sleep, clock=clock, timeout=SLOW_ANSWER,
                                etag_cache=MemoryEtagCache(), max_wait=math.inf)
        over_graphql = [graphql.get(REPO, ref) for ref in graphql.list_merged(REPO, WEEK)]
    # THEN both APIs spell the bot accounts with "[bot]", so the report counts them apart from people
    for got in (rest, over_graphql):
        by_number = {p.number: p for p in got}
        assert by_number[pulls[0].number].author == "Copilot[bot]"
        assert by_number[pulls[1].number].author == "dependabot[bot]"
        assert [r.reviewer for r in by_number[pulls[2].number].reviews] == ["Copilot[bot]"]
        assert by_number[pulls[3].number].author == pulls[3].author  # a person's login is as GitHub gives it
