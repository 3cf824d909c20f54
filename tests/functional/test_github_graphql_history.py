"""GraphQLSource.history against the fake GitHub: the comparison periods one aliased search slice each, beside the
authors' first merges FIRSTS_PER_QUERY aliased searches a query, in the same requests; equal to the export's history,
whatever fails."""
from __future__ import annotations

import json
import math
from datetime import date, timedelta
from typing import Any

import pytest
from prhub.core.config import RepoConfig
from prhub.core.errors import SourceError
from prhub.core.history import COMPARISONS, History
from prhub.core.models import PullRequest
from prhub.core.period import Period, parse_timestamp
from prhub.engine.scoring import modules_for, modules_from_title
from prhub.sources.github import LOGIN
from prhub.sources.graphql import GraphQLSource
from prhub.sources.graphql_history import FIRSTS_PER_QUERY, SLICES_PER_QUERY
from prhub.sources.source import JsonlSource

from tests.conftest import VERL_EXPORT
from tests.fakes import FakeGitHub
from tests.functional.test_github_graphql import source_for
from tests.functional.test_github_source import REPO, WEEK, FakeClock, make_pull

VERL = "verl-project/verl"


def folders(pr: PullRequest) -> list[str]:
    """A tagger that reads paths, as the flow's module tagging can."""
    return sorted({f.filename.split("/", 1)[0] for f in pr.files})


def record(authors: int = 60, earlier: int = 230) -> list[PullRequest]:
    """`earlier` PRs over the four weeks before WEEK, each of `authors` authors' first merge long before them (two
    merges each, the later one first by number), PRs inside WEEK by all of them and by two new ones."""
    start = WEEK.start_utc
    span = (start - WEEK.previous(COMPARISONS)[0].start_utc).total_seconds()
    pulls = [make_pull(1000 + i, start - timedelta(seconds=span * (i + 0.5) / earlier)) for i in range(earlier)]
    for k in range(authors):
        for n, days in ((2 * k + 1, 200 + k), (2 * k + 2, 300 + k)):  # the second has the older merge
            pulls.append(PullRequest(**{**make_pull(n, start - timedelta(days=days)).__dict__,
                                        "author": f"author-{k}"}))
    inside = [f"author-{k}" for k in range(authors)] + ["newcomer", "newcomer-2"]
    pulls += [PullRequest(**{**make_pull(5000 + i, start + timedelta(minutes=i + 1)).__dict__, "author": who})
              for i, who in enumerate(inside)]
    return pulls


def export_of(pulls: list[PullRequest]) -> JsonlSource:
    return JsonlSource([json.dumps(p.to_export()) for p in pulls], "x.jsonl")


def assert_same_history(got: History, want: History) -> None:
    assert [e["number"] for e in got.earlier] == [e["number"] for e in want.earlier]
    assert got.earlier == want.earlier  # title, author, merge time, url, modules
    logins = {name for name in want.first_merged if LOGIN.match(name)}
    assert {k: v for k, v in got.first_merged.items() if k in logins} == {k: want.first_merged[k] for k in logins}


def test_history_is_the_exports_in_one_query_per_25_authors_with_the_periods_in_the_first() -> None:
    pulls = record()
    authors = {p.author for p in pulls if WEEK.contains(p.merged_at)} | {"Ada Lovelace"}  # a display name
    with FakeGitHub(pulls, REPO) as gh:
        history = source_for(gh).history(REPO, WEEK, authors, folders)
        counts = dict(gh.counts)
    assert_same_history(history, export_of(pulls).history(REPO, WEEK, authors, folders))
    assert len(history.earlier) == 230 and history.reach == ""  # GitHub sees the whole repository
    assert "newcomer" not in history.first_merged and "newcomer-2" not in history.first_merged  # new
    assert history.first_merged["ada lovelace"] == ""  # not a login: never searched, never called new
    logins = 62  # 60 authors and 2 newcomers; the display name costs nothing
    # Each period's 57 or 58 PRs are one page: the four pages come in the first query, beside 25 first merges.
    assert counts == {"graphql": math.ceil(logins / FIRSTS_PER_QUERY)}  # 3, not 3 pages + 3 first-merge queries


def test_the_first_merge_is_the_oldest_one_the_search_sorts_first() -> None:
    pulls = record(authors=3, earlier=5)
    with FakeGitHub(pulls, REPO) as gh:
        history = source_for(gh).history(REPO, WEEK, ["author-0"], folders)
    oldest = min(p.merged_at for p in pulls if p.author == "author-0")
    assert history.first_merged == {"author-0": oldest.strftime("%Y-%m-%dT%H:%M:%SZ")}  # not the lower number's


@pytest.mark.parametrize(("kind", "options"), [
    ("exhausted", {"reset_in": 40}),  # 200 with a RATE_LIMITED error: waited out
    ("secondary", {"retry_after": 7}), ("429", {"retry_after": 7}), ("502", {}), ("timeout", {}),
    ("partial", {}), ("cut", {}), ("cut-connection", {}),
])
@pytest.mark.parametrize("query", [r"merged:\d{4}-\d\d-\d\dT[^ ]*\.\.", "a0: search"])  # the listing, the firsts
def test_faults_on_the_history_queries_lose_nothing(kind: str, options: dict, query: str) -> None:
    pulls = record(authors=30)
    authors = {p.author for p in pulls if WEEK.contains(p.merged_at)}
    clock = FakeClock()
    with FakeGitHub(pulls, REPO, clock=clock) as gh:
        gh.inject(kind, path="/graphql", query=query, times=2, **options)
        history = source_for(gh, clock).history(REPO, WEEK, authors, folders)
        assert sum(f.times for f in gh.faults) == 0  # both faults were met
    assert_same_history(history, export_of(pulls).history(REPO, WEEK, authors, folders))


def test_a_first_merge_search_that_stays_partial_raises_instead_of_calling_authors_new() -> None:
    pulls = record(authors=5, earlier=5)
    with FakeGitHub(pulls, REPO) as gh:
        gh.inject("partial", path="/graphql", query="a0: search", times=50)
        with pytest.raises(SourceError, match="GraphQL errors"):
            source_for(gh, max_tries=3).history(REPO, WEEK, ["author-1"], folders)


def test_without_graphql_the_rest_history_serves() -> None:
    pulls = record(authors=3, earlier=5)
    with FakeGitHub(pulls, REPO, graphql=False) as gh:
        history = source_for(gh).history(REPO, WEEK, ["author-0", "newcomer"], folders)
        assert gh.counts["search"] == COMPARISONS + 2  # REST: a listing per period, a search per author
    assert set(history.first_merged) == {"author-0"} and len(history.earlier) == 5


def spied(source: GraphQLSource, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every query the source sends, answered or not."""
    queries: list[str] = []
    real = source.query

    def query(text: str, variables: dict[str, Any]) -> dict[str, Any]:
        queries.append(text)
        return real(text, variables)

    monkeypatch.setattr(source, "query", query)
    return queries


def with_busy_pr(pulls: list[PullRequest]) -> list[PullRequest]:
    """The pulls, the first of WEEK's with more files than the listing's first page of them (a follow-up query)."""
    busy = next(p for p in pulls if WEEK.contains(p.merged_at))
    many = make_pull(busy.number, busy.merged_at, files=150)
    return [PullRequest(**{**p.__dict__, "files": many.files, "changed_files": 150, "additions": many.additions,
                           "deletions": many.deletions}) if p is busy else p for p in pulls]


def test_the_listing_carries_the_history_and_history_then_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    pulls = with_busy_pr(record(authors=3, earlier=40))
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh)
        queries = spied(source, monkeypatch)
        refs = source.list_merged(REPO, WEEK)
        authors = {r.author for r in refs}
        history = source.history(REPO, WEEK, authors, folders)
        # The page with the 4 comparison periods' first pages, then the busy PR's follow-up with the authors' first
        # merges (those became known with the page); the history sends nothing of its own.
        assert len(queries) == gh.counts["graphql"] == 2
        assert [f"hs{i}: search" in queries[0] for i in range(COMPARISONS + 1)] == [True] * COMPARISONS + [False]
        assert "ha0: search" not in queries[0] and "ha4: search" in queries[1]  # 3 authors and 2 newcomers
    with FakeGitHub(pulls, REPO) as gh:
        alone = source_for(gh).history(REPO, WEEK, authors, folders)  # nothing carried: its own query
        assert gh.counts == {"graphql": 1}
    assert history == alone
    assert_same_history(history, export_of(pulls).history(REPO, WEEK, authors, folders))
    assert set(history.first_merged) == {"author-0", "author-1", "author-2"}  # the newcomers are new


def test_what_the_listing_did_not_carry_the_history_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    pulls = record(authors=3, earlier=40)  # no busy PR: no query after the page carries the first merges
    authors = {p.author for p in pulls if WEEK.contains(p.merged_at)}
    with FakeGitHub(pulls, REPO) as gh:
        source = source_for(gh)
        queries = spied(source, monkeypatch)
        source.list_merged(REPO, WEEK)
        history = source.history(REPO, WEEK, authors, folders)
        assert len(queries) == 2 and " s0: search" not in queries[1] and "a4: search" in queries[1]
        # Taken once: a second history of the week asks GitHub again, all of it.
        assert source.history(REPO, WEEK, authors, folders) == history
        assert len(queries) == 3 and " s3: search" in queries[2]
        # Listed for another week, carried for that one: this week's history asks all of it.
        source.list_merged(REPO, Period(WEEK.since + timedelta(days=7), WEEK.until + timedelta(days=7), WEEK.tz))
        assert source.history(REPO, WEEK, authors, folders) == history
        assert " s3: search" in queries[-1]
    assert_same_history(history, export_of(pulls).history(REPO, WEEK, authors, folders))


def test_a_carried_slice_that_came_back_partial_is_dropped_and_asked_by_history(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pulls = [p for p in record(authors=3, earlier=40) if not WEEK.contains(p.merged_at)]  # WEEK merged nothing
    with FakeGitHub(pulls, REPO) as gh:
        fresh = source_for(gh).history(REPO, WEEK, set(), folders)
        gh.reset_counts()
        # The week's search has no node, so the fake's partial answer nulls a node of the first carried slice.
        gh.inject("partial", path="/graphql", query="hs0: search")
        source = source_for(gh)
        queries = spied(source, monkeypatch)
        assert source.list_merged(REPO, WEEK) == []
        assert len(queries) == 1 and gh.faults[-1].times == 0  # the page stood: the slice was dropped, not retried
        history = source.history(REPO, WEEK, set(), folders)
        assert len(queries) == 2 and " s0: search" in queries[1] and " s1: search" not in queries[1]
    assert history == fresh and len(history.earlier) == 40


@pytest.fixture(scope="module")
def verl() -> tuple[JsonlSource, list[PullRequest]]:
    if not VERL_EXPORT.exists():
        pytest.skip(f"shared data not present: {VERL_EXPORT}")
    jsonl = JsonlSource.from_path(str(VERL_EXPORT))
    everything = Period(date(2000, 1, 1), date(2100, 1, 1), "UTC")  # past MAX_DAYS on purpose: the whole file
    return jsonl, [jsonl.get(VERL, ref) for ref in jsonl.list_merged(VERL, everything)]


@pytest.mark.parametrize(("since", "until"), [("2026-05-04", "2026-05-10"), ("2026-05-04", "2026-08-02")])
def test_verl_history_from_graphql_is_the_exports(verl: tuple[JsonlSource, list[PullRequest]],
                                                  since: str, until: str) -> None:
    jsonl, pulls = verl
    period = Period.parse(since, until, "Asia/Shanghai")
    authors = {ref.author for ref in jsonl.list_merged(VERL, period)}
    config = RepoConfig(VERL, tz="Asia/Shanghai")

    def engine(pr: PullRequest) -> list[str]:  # the flow's tagger: trends compare modules as the engine tags them
        return modules_for(pr, config)

    with FakeGitHub(pulls, VERL) as gh:
        source = GraphQLSource(token="t", api_url=gh.url, sleep=lambda s: None)
        history = source.history(VERL, period, authors, engine)
        requests = sum(gh.counts.values())
    want = jsonl.history(VERL, period, authors, engine)
    assert [e["number"] for e in history.earlier] == [e["number"] for e in want.earlier]
    # Modules too, but for a PR with more than 100 files (the history reads its first 100 paths).
    wide = {p.number for p in pulls if len(p.files) > 100}
    assert [e for e in history.earlier if e["number"] not in wide] == [e for e in want.earlier
                                                                       if e["number"] not in wide]
    logins = {a.lower() for a in authors if LOGIN.match(a.lower())}
    assert {k: v for k, v in history.first_merged.items() if k in logins} == \
        {k: v for k, v in want.first_merged.items() if k in logins}
    assert set(history.first_merged) - logins == {a.lower() for a in authors} - logins  # display names: not new
    firsts = math.ceil(len(logins) / FIRSTS_PER_QUERY)
    if period.days == 7:  # the target counts these in its requests per PR
        pages = max(math.ceil(sum(1 for e in want.earlier if p.contains(parse_timestamp(e["merged_at"]))) / 100)
                    for p in period.previous(COMPARISONS))
        assert requests == max(pages, firsts) == 1  # the four weeks' pages and the 17 logins: one request
    else:  # four slices of three months (under the cap each), paged by 100 side by side, the first merges beside
        pages = max(math.ceil(sum(1 for e in want.earlier if p.contains(parse_timestamp(e["merged_at"]))) / 100)
                    for p in period.previous(COMPARISONS))
        assert len(want.earlier) > 1000 and requests == max(pages, firsts)


@pytest.mark.parametrize(("graphql", "since"), [(True, "2026-03-09"), (False, "2025-05-12")])
def test_the_dashboards_weeks_from_github_are_the_exports(verl: tuple[JsonlSource, list[PullRequest]],
                                                          graphql: bool, since: str) -> None:
    # What the report step lists for the dashboard (Source.record): GraphQL's listing is the history's (its
    # slicing past the search cap is tested above), so four weeks; REST's search over 47 weeks, past the cap.
    jsonl, pulls = verl
    span = Period.parse(since, "2026-04-05", "Asia/Shanghai")
    config = RepoConfig(VERL, tz="Asia/Shanghai")

    def engine(pr: PullRequest) -> list[str]:
        return modules_for(pr, config)

    with FakeGitHub(pulls, VERL, graphql=graphql) as gh:
        got = GraphQLSource(token="t", api_url=gh.url, sleep=lambda s: None).record(VERL, span, engine)
        requests = dict(gh.counts)
    want = jsonl.record(VERL, span, engine)
    assert (got.reach, want.reach) == ("", "2024-10-31T08:35:35Z") and got.first_merged == {}
    assert [(e["number"], e["title"], e["author"], e["merged_at"]) for e in got.earlier] == [
        (e["number"], e["title"], e["author"], e["merged_at"]) for e in want.earlier]
    pages = math.ceil(len(want.earlier) / 100)
    if graphql:  # modules as the engine tags them, but for a PR past the 100 paths the listing reads
        wide = {p.number for p in pulls if len(p.files) > 100}
        assert [e for e in got.earlier if e["number"] not in wide] == [e for e in want.earlier
                                                                       if e["number"] not in wide]
        assert requests == {"graphql": pages}
    else:  # no files in REST's search: the modules its titles tag (as the engine does, when they tag any)
        assert len(want.earlier) > 1000
        tagged = [bool(modules_from_title(e["title"])) for e in want.earlier]
        assert sum(tagged) > 0.9 * len(tagged)  # verl's titles carry their modules
        # the same tags; without files they keep the title's order, where the engine puts first the one its source
        # bears (trends count a PR's modules as a set)
        assert [sorted(g["modules"]) for g, t in zip(got.earlier, tagged, strict=True) if t] == [
            sorted(w["modules"]) for w, t in zip(want.earlier, tagged, strict=True) if t]
        assert requests.get("graphql", 0) == 0 and requests["search"] <= 2 * pages + 4  # split while past the cap


def test_a_year_past_the_search_cap_comes_in_slices_asked_side_by_side(
        verl: tuple[JsonlSource, list[PullRequest]]) -> None:
    # The dashboard's year on a first run (Source.record): one probe page says it is past the cap, then it is cut
    # into SLICES_PER_QUERY slices whose pages come one query per round, not a page of 100 after another.
    jsonl, pulls = verl
    span = Period.parse("2025-05-05", "2026-05-03", "Asia/Shanghai")
    with FakeGitHub(pulls, VERL) as gh:
        got = GraphQLSource(token="t", api_url=gh.url, sleep=lambda s: None).record(VERL, span, folders)
        requests = dict(gh.counts)
    want = jsonl.record(VERL, span, folders)
    n = len(want.earlier)
    assert n > 1000 and [(e["number"], e["merged_at"]) for e in got.earlier] == [
        (e["number"], e["merged_at"]) for e in want.earlier]
    # the probe, then rounds of pages; a slice may hold up to twice the mean (merges are not uniform)
    assert requests == {"graphql": requests["graphql"]} and requests["graphql"] <= 1 + math.ceil(
        2 * n / (100 * SLICES_PER_QUERY)) < math.ceil(n / 100)
