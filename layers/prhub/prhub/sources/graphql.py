"""GitHub's GraphQL API as a Source: a page of up to 100 merged PRs, with their files, labels,
merge commit and review conversation (reviews, review threads, issue comments), in one request; diff
text from REST only where the engine reads it.

How it spends GitHub's budgets (docs/github.md has the design):

- listing: `search(type: ISSUE, query: "repo:O/N is:pr is:merged merged:A..B")`, sliced so no
  search passes GitHub's 1,000-result cap; files, reviews, threads and comments beyond a PR's
  first page (and a thread's replies beyond its first) are fetched for those PRs only, several
  per request (aliases);
- details: `list_merged` keeps what it loaded (in memory, and in the payload store that all
  workers share), so `get` usually needs only the PR's diff: one REST request with
  `Accept: application/vnd.github.diff`, or `/files` when GitHub answers 406 (over 300
  files or 20,000 lines). The diff's part (hunks, old paths) is stored under the PR's head
  commit, so a re-run of the same range sends no detail request at all;
- history: the comparison periods' PRs in one light listing over their span (titles, labels, paths),
  and the authors' first merges 25 aliased `search(first: 1)` a query (see `history`); these ride along in
  the listing's own queries where they can (`Ahead`), so a week's history usually sends nothing of its own;
- limits: `first` stays within 1..100 and the query far under the 500,000-node limit; the
  points budget (`rateLimit { cost remaining resetAt }`) is checked before each query and
  waited for, or handed back as RetryLater when the wait outlasts the caller's deadline;
  `RATE_LIMITED` errors, secondary limits (200/403/429, Retry-After), 5xx, timeouts
  (GitHub answers 502 for a query that ran too long: the page size is halved, and doubled back after each
  page that passes), cut-off and
  reset responses, and answers with partial data and `errors` are retried, bounded, and
  never drop a PR silently: a listing either has every PR or raises.

Requests go through the client the REST source uses too (prhub.sources.http.GitHubClient), with
GraphQL's own budget (PointsBudget). Without a token (GraphQL needs one) or on a server without GraphQL
(404), the REST source the GraphQL source holds (`rest`) does the work.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import requests

from prhub.cloud import metrics, secrets, tracing
from prhub.core.errors import SourceError, SourceUnavailable
from prhub.core.history import COMPARISONS, History, Tagger, comparison_span, history_entry
from prhub.core.models import Comment, FileChange, PullRef, PullRequest, Review, ReviewThread
from prhub.core.period import Period, format_timestamp, parse_timestamp, zone
from prhub.engine.changes import is_generated
from prhub.sources.diffs import FileDiff, hunks_complete, split_diff
from prhub.sources.github import FILES_CAP, LOGIN, SEARCH_CAP, GitHubSource, co_authors_from
from prhub.sources.http import (
    CachedResponse,
    EtagCache,
    Fault,
    GitHubClient,
    OnClient,
    RateLimit,
    answered,
    message,
    options_from_env,
    read_rate,
)
from prhub.sources.source import ListPage

log = logging.getLogger(__name__)

PAGE = 100  # GitHub's maximum for `first`
MIN_PAGE = 10  # below this a timing-out search page is a GitHub problem, not a page-size one
MORE_PER_REQUEST = 10  # further pages (a PR's files, reviews, threads, comments; a thread's replies) per query
DIFF_MEDIA_TYPE = "application/vnd.github.diff"
DIFF_MAX_FILES = 300  # beyond these GitHub answers the diff media type with 406 "too_large"
DIFF_MAX_LINES = 20_000
STATUS = {"ADDED": "added", "DELETED": "removed", "MODIFIED": "modified", "RENAMED": "renamed",
          "COPIED": "copied", "CHANGED": "changed"}  # PatchStatus -> the REST names
MAX_KEPT = 20_000  # listed PRs kept in memory for get(); a long-lived worker must not grow without bound

ACTOR = "login __typename"
PAGE_INFO = "pageInfo { hasNextPage endCursor }"
FILES = f"totalCount {PAGE_INFO} nodes {{ path additions deletions changeType }}"
REVIEWS = f"totalCount {PAGE_INFO} nodes {{ state body submittedAt author {{ {ACTOR} }} }}"
COMMENTS = f"{PAGE_INFO} nodes {{ author {{ {ACTOR} }} body createdAt url }}"
# The listing's first page of the conversation. Nested connections multiply GitHub's price: each of a page's 100
# PRs may have THREADS threads of REPLIES comments, so the page costs 1 + 6 x 100 + 100 x THREADS requests / 100
# = 26 points (docs/github.md); a PR or thread with more gets its further pages in a follow-up query.
THREADS, REPLIES, ISSUE_COMMENTS = 20, 10, 30
# A slice's last page, whose length the earlier pages' `issueCount` tells, asks only the PRs left and spends what the
# page would have cost on larger conversation pages (the largest of these within both the nodes and the points of a
# page of the page size), so a busy PR there needs no follow-up query: (threads, replies per thread, issue comments).
CONVERSATION_SIZES = ((THREADS, REPLIES, ISSUE_COMMENTS), (30, 10, 50), (50, 20, 60), (100, 20, 100), (100, 50, 100),
                      (100, 100, 100))


def _thread_fields(replies: int) -> str:
    return f"id isResolved isOutdated path line originalLine comments(first: {replies}) {{ {COMMENTS} }}"


def _pull_fields(threads: int = THREADS, replies: int = REPLIES, comments: int = ISSUE_COMMENTS) -> str:
    return f"""number title body url createdAt mergedAt baseRefName headRefOid additions deletions changedFiles
      author {{ {ACTOR} }} mergedBy {{ {ACTOR} }}
      mergeCommit {{ oid message }}
      labels(first: 100) {{ nodes {{ name }} }}
      commits(first: 1) {{ totalCount }}
      reviews(first: 100) {{ {REVIEWS} }}
      files(first: 100) {{ {FILES} }}
      reviewThreads(first: {threads}) {{ {PAGE_INFO} nodes {{ {_thread_fields(replies)} }} }}
      comments(first: {comments}) {{ {COMMENTS} }}"""


def _pull_nodes(threads: int, replies: int, comments: int) -> int:
    """Nodes one PR of a listing page asks: itself, labels, commits, reviews, files, threads, replies, comments."""
    return 1 + 100 + 1 + 100 + 100 + threads + threads * replies + comments


def conversation_sizes(first: int, page: int) -> tuple[int, int, int]:
    """The conversation's first pages for a listing page of `first` PRs where the page size is `page`: the standard
    ones, or larger ones when fewer PRs are left than a page holds, within that page's nodes and points (each PR's
    labels, commits, reviews, files, threads and comments connections, and its threads' replies: 6 + threads)."""
    nodes, points = page * _pull_nodes(THREADS, REPLIES, ISSUE_COMMENTS), page * (6 + THREADS)
    fits = [size for size in CONVERSATION_SIZES
            if first * _pull_nodes(*size) <= nodes and first * (6 + size[0]) <= points]
    return fits[-1] if fits else CONVERSATION_SIZES[0]


THREADS_PAGE = f"{PAGE_INFO} nodes {{ {_thread_fields(REPLIES)} }}"
PULL = _pull_fields()
# A connection's further pages, by field: what a follow-up query selects of each.
MORE_FIELDS = {"files": FILES, "reviews": REVIEWS, "reviewThreads": THREADS_PAGE, "comments": COMMENTS}
RATE = "rateLimit { cost remaining resetAt limit }"


def _search_query(params: list[str], pulls: list[str], roots: list[str], fields: str = PULL) -> str:
    """A listing page (each PR's `fields`), with further pages of the previous page's PRs (`_more_parts`) riding
    along."""
    extra = "".join(f", {p}" for p in params)
    return f"""query($owner: String!, $name: String!, $q: String!, $first: Int!, $after: String{extra}) {{
  {RATE}
  repository(owner: $owner, name: $name) {{ nameWithOwner {' '.join(pulls)} }}
  search(type: ISSUE, query: $q, first: $first, after: $after) {{
    issueCount
    pageInfo {{ hasNextPage endCursor }}
    edges {{ cursor }}
    nodes {{ ... on PullRequest {{ {fields} }} }}
  }}
  {' '.join(roots)}
}}"""

ONE_QUERY = f"""query($owner: String!, $name: String!, $number: Int!) {{
  {RATE}
  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{ {PULL} }} }}
}}"""


# History: the comparison periods' PRs with what `tag` reads for modules (title, labels, paths), and the opening and
# first reviews (who, when: the review timing of the weeks before, issue 26); no bodies, review text or line counts.
# The reviews cost 1 point a page of 100; their text and the threads' replies (where follow-ups are promised) would
# cost some 21 more, so a promise is followed across weeks where the history's source reads it whole (an export).
EARLIER_REVIEWS = 10  # a PR's first reviews: enough to find the first by a person past the review bots


LISTED = f"number title url mergedAt author {{ {ACTOR} }} labels(first: 100) {{ nodes {{ name }} }} " \
         f"files(first: 100) {{ nodes {{ path }} }}"
EARLIER_FIELDS = f"{LISTED} createdAt reviews(first: {EARLIER_REVIEWS}) " \
                 f"{{ nodes {{ state submittedAt author {{ {ACTOR} }} }} }}"
RECORD_FIELDS = LISTED  # the dashboard's record (Source.record) reads no timing: no reviews' point
# History and record listings ask several search slices in one query (aliases `s0`, `s1`, ...), each a page of 100:
# a week's four comparison periods come in one round trip instead of a page of 100 after another, and a year past the
# search cap in a few. A slice of EARLIER_FIELDS asks 100 x (1 + 100 + 100 + 10) = 21,100 nodes, so the query stays
# far under the 500,000-node limit; it costs what its slices cost apart (points add up per connection).
SLICES_PER_QUERY = 10
Slice = tuple[datetime, datetime, str | None]  # a search slice's merge times (inclusive) and the cursor it is at


# Each alias is one search connection of first 1: 25 cost 1 point and ask for 25 nodes, far within the
# 500,000-node limit. GitHub documents no alias limit; its secondary limits count a query (not its aliases) as
# one GraphQL point of 2,000 a minute. Whether each aliased search also draws on the search API's own 30 a
# minute is not documented: 25 stays below it even if it does.
FIRSTS_PER_QUERY = 25
FIRST_FIELDS = "issueCount nodes { ... on PullRequest { number mergedAt } }"


Salvage = Callable[[dict[str, Any], list[dict[str, Any]]], "dict[str, Any] | None"]
AHEAD = "h"  # the prefix of the history's aliases in listing queries (`hs<i>`, `ha<i>`; see Ahead)
AHEAD_ALIAS = re.compile(rf"{AHEAD}[sa]\d+")


class Ahead:
    """The history a listing asks ahead, so the planner's `history` that follows needs no request of its own: the
    comparison periods' first pages ride in the listing's first query, and the first merges of the authors listed so
    far in each query that follows (the next page, a salvage, further pages), FIRSTS_PER_QUERY at a time. Aliases
    are prefixed AHEAD. `history` takes what came and asks for the rest, as it does when nothing was carried (a
    listing in another invocation, or one that failed)."""

    def __init__(self, repo: str, period: Period) -> None:
        self.repo, self.period, self.tz = repo, period, zone(period.tz)
        self.before = format_timestamp(period.start_utc - timedelta(seconds=1))
        self.slices = [(p.start_utc, p.end_utc - timedelta(seconds=1)) for p in period.previous(COMPARISONS)]
        self.pages: dict[tuple[datetime, datetime], dict[str, Any]] = {}  # a slice's first page, as answered
        self.firsts: dict[str, str | None] = {}  # login -> first merge ("" undated); None: none before
        self.seen: list[str] = []  # the logins listed, in order
        self.asked: set[str] = set()  # asked, answered or not (a login a failed query asked, history asks again)
        self.slices_asked = False

    def see(self, nodes: Iterable[dict[str, Any]]) -> None:
        """The listed PRs' authors, as history asks for them: lower-case logins (display names are never asked)."""
        for node in nodes:
            if isinstance(node, dict) and node.get("mergedAt") and \
                    self.period.contains(parse_timestamp(str(node["mergedAt"]))):
                login = _actor(node.get("author")).lower()
                if LOGIN.match(login) and login not in self.seen:
                    self.seen.append(login)

    def parts(self) -> tuple[list[str], dict[str, Any], list[str], tuple[list[Slice], list[str]]]:
        """What the next query carries (`_history_parts`: the slices the first time, then the authors not asked yet),
        and what it asks, for `take`."""
        batch: list[Slice] = [] if self.slices_asked else [(low, high, None) for low, high in self.slices]
        self.slices_asked = True
        logins = [login for login in self.seen if login not in self.asked][:FIRSTS_PER_QUERY]
        self.asked.update(logins)
        params, variables, roots = _history_parts(self.repo, self.tz, EARLIER_FIELDS, batch, logins, self.before,
                                                  AHEAD)
        return params, variables, roots, (batch, logins)

    def take(self, data: dict[str, Any], asked: tuple[list[Slice], list[str]]) -> None:
        """Keep what an answer carries; an alias it lacks (a salvage dropped it) is left to history."""
        batch, logins = asked
        for i, (low, high, _) in enumerate(batch):
            if isinstance(page := data.get(f"{AHEAD}s{i}"), dict):
                self.pages[(low, high)] = page
        for i, login in enumerate(logins):
            if isinstance(search := data.get(f"{AHEAD}a{i}"), dict):
                nodes = [n for n in search.get("nodes") or [] if isinstance(n, dict)]
                self.firsts[login] = (str(nodes[0].get("mergedAt") or "") if nodes else "") \
                    if int(search.get("issueCount") or 0) else None


def _without_ahead_errors(data: dict[str, Any], errors: list[dict[str, Any]]
                          ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The answer and errors less the history aliases (Ahead) that came back with an error, which history then asks
    itself; None when no error is in one."""
    dropped = {str(e["path"][0]) for e in errors if e.get("path") and AHEAD_ALIAS.fullmatch(str(e["path"][0]))}
    if not dropped:
        return None
    return ({key: value for key, value in data.items() if key not in dropped},
            [e for e in errors if not e.get("path") or str(e["path"][0]) not in dropped])


def _ahead_parts(ahead: Ahead | None) -> tuple[list[str], dict[str, Any], list[str], tuple[list[Slice], list[str]]]:
    return ahead.parts() if ahead is not None else ([], {}, [], ([], []))


class GraphQLUnavailable(SourceError):
    """This server or token cannot use GraphQL: the REST source takes over."""


class QueryTimeout(SourceUnavailable):
    """GitHub gave up on the query (502/504, or a timeout error): a smaller page may pass."""


class PartialAnswer(SourceError):
    """The answer carried `errors` beside its data: some of it is missing (`data` and `errors` as answered, when the
    answer was JSON)."""

    def __init__(self, message: str, data: dict[str, Any] | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.data, self.errors = data, errors or []


def graphql_endpoint(api_url: str) -> str:
    """GitHub's GraphQL endpoint for a REST base URL: `/graphql` beside api.github.com's REST API,
    `/api/graphql` on GitHub Enterprise Server, whose REST API is at `/api/v3`."""
    base = api_url.rstrip("/")
    return base[: -len("/v3")] + "/graphql" if base.endswith("/api/v3") else base + "/graphql"


def needs_diff(pr: PullRequest) -> bool:
    """Whether the engine reads this PR's diff text: TODOs, version pins, API breaks and prompts read added
    and removed lines of any file but generated ones, and a rename's old path is only in the diff."""
    return any(f.status in ("renamed", "copied") or (f.changes > 0 and not is_generated(f.filename))
               for f in pr.files)


def _actor(actor: Any) -> str:
    """A login as REST spells it: bots carry `[bot]` there, and a deleted account is "ghost"."""
    if not isinstance(actor, dict) or not actor.get("login"):
        return "ghost"
    login = str(actor["login"])
    return f"{login}[bot]" if actor.get("__typename") == "Bot" and not login.endswith("[bot]") else login


def _query_answer(response: requests.Response) -> requests.Response | Fault:
    """How a query's answer is read: a 502 or 504 is GitHub giving up on a query that ran too long, raised as
    QueryTimeout instead of asked again as it is (a smaller page may pass); other 5xx are faults to retry."""
    if response.status_code in (502, 504):
        raise QueryTimeout(f"GitHub gave up on the query ({response.status_code})")
    return answered(response)


class PointsBudget:
    """GraphQL's points budget, apart from REST's (`GitHubClient.rate`): read from each answer's headers and its
    `rateLimit`, and checked before each query, which waits for the reset when what is left would not pay for it."""

    def __init__(self, http: GitHubClient) -> None:
        self.http = http
        self.points: RateLimit | None = None
        self.last_cost = 1  # what the last query cost: the least the next one needs left in the budget

    def before(self) -> None:
        points = self.points
        if points is None or points.remaining >= self.last_cost:
            return
        wait = points.reset - self.http.clock()
        if wait > 0:
            self.points = None  # after the wait the budget is full again; the next answer says so
            metrics.count("RateLimitWaits")
            self.http.wait(wait, "GraphQL points budget")

    def note(self, response: requests.Response) -> None:
        rate = read_rate(response.headers)
        if rate is not None:
            self.points = rate

    def wait(self, response: requests.Response) -> float | None:
        if response.status_code == 200:
            return self._limited(response)
        return self.http.limit_wait(response) if response.status_code in (403, 429) else None

    def _limited(self, response: requests.Response) -> float | None:
        """Seconds to wait when a 200 answer is a rate-limit error (GitHub answers the primary limit,
        and sometimes a secondary one, with 200 and `errors`), else None."""
        if b"rate limit" not in response.content.lower() and b"RATE_LIMITED" not in response.content:
            return None  # the common case, without parsing a large page twice
        try:
            errors = response.json().get("errors") or []
        except (ValueError, AttributeError):
            return None
        limited = [e for e in errors if isinstance(e, dict) and (
            e.get("type") == "RATE_LIMITED" or "rate limit" in str(e.get("message", "")).lower())]
        if not limited:
            return None
        self.http.stats["rate_limited"] += 1
        return self.http.limit_wait(response) or 60.0

    def charge(self, data: Any) -> None:
        """What a query's `rateLimit` says: the points left, and what the next query needs at least."""
        rate = data.get("rateLimit") if isinstance(data, dict) else None
        if isinstance(rate, dict) and "remaining" in rate:
            self.points = RateLimit(int(rate.get("limit") or 0), int(rate["remaining"]),
                                    parse_timestamp(str(rate["resetAt"])).timestamp())
            self.http.stats["points"] += int(rate.get("cost") or 0)
            self.last_cost = max(1, int(rate.get("cost") or 1))


class GraphQLSource(OnClient):
    """GitHub as a Source through GraphQL (the REST source's interface and `deadline`), over `http` (a
    GitHubClient; made from `token`, `api_url` and the client's `options` when not given). `rest`, a
    GitHubSource on the same client, serves where GraphQL cannot.

    `payloads` is where listed PRs and their diffs' parts are kept for the workers (default: the ETag cache,
    which is the stack's CacheTable when CACHE_TABLE is set, so every worker sees what the planner listed).
    """

    def __init__(self, token: str | None = None, api_url: str | None = None, *, graphql_url: str | None = None,
                 payloads: EtagCache | None = None, page_size: int = PAGE, co_authors: bool = True,
                 http: GitHubClient | None = None, **options: Any) -> None:
        self.http = http if http is not None else GitHubClient(token, api_url, **options)
        self.rest = GitHubSource(http=self.http, co_authors=co_authors)
        self.co_authors = co_authors
        self.graphql_url = graphql_url or graphql_endpoint(self.http.api_url)
        self.payloads: EtagCache = payloads if payloads is not None else self.http.etag_cache
        self.page_size = max(1, min(PAGE, page_size))
        self.full_page = self.page_size  # what page_size grows back to after a timeout's shrink
        self.budget = PointsBudget(self.http)
        self.graphql = bool(self.http.token)  # GraphQL needs authentication; without a token REST serves
        self._kept: dict[tuple[str, int], PullRequest] = {}
        self._ahead: dict[str, Ahead] = {}  # per repository, the history its last listing asked ahead

    @classmethod
    def from_env(cls, env: Mapping[str, str], reader: secrets.Secrets | None = None,
                 **options: Any) -> GraphQLSource:
        """A source on GITHUB_API_URL with GITHUB_TOKEN (or the GITHUB_TOKEN_SECRET secret); see options_from_env."""
        return cls(**{**options_from_env(env, reader), **options})

    @property
    def points(self) -> RateLimit | None:
        """The GraphQL budget as last read, separate from REST's (`http.rate`)."""
        return self.budget.points

    def pages(self, path: str, params: dict[str, Any]) -> list[Any]:
        """Every page of a REST list endpoint (what organisation listings read)."""
        return self.rest.pages(path, params)

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        return self.rest.notes(repo, period, lang)

    def warnings(self, repo: str, period: Period) -> list[str]:
        return self.rest.warnings(repo, period)

    def _without_graphql(self, exc: GraphQLUnavailable) -> None:
        """From now on the REST source serves."""
        log.warning("%s: using the REST API instead", exc)
        self.graphql = False

    # --- queries ------------------------------------------------------------------------------

    def query(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """Run one GraphQL query; its `data`. Raises PartialAnswer when `errors` came with the data,
        QueryTimeout when GitHub gave up, GraphQLUnavailable when there is no GraphQL to ask."""
        response = self.http.send("POST", self.graphql_url, _query_answer, limits=self.budget, tally="graphql",
                                  body={"query": query, "variables": variables})
        answer = self._decoded(response)
        self.budget.charge(answer.get("data"))
        return self._data(answer, variables)

    def _decoded(self, response: requests.Response) -> dict[str, Any]:
        """The answer's JSON document, or the error its status means."""
        status = response.status_code
        if status == 401:
            raise SourceError(f"GitHub rejected the token (401 {message(response)}): "
                              "check GITHUB_TOKEN or the token secret")
        if status in (403, 404, 410):
            raise GraphQLUnavailable(f"no GraphQL at {self.graphql_url} ({status} {message(response)})")
        if status != 200:
            raise SourceError(f"GitHub answered the query with {status}: {message(response)}")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise PartialAnswer("GitHub's answer to the query was cut off or is not JSON")
        return answer

    def _data(self, answer: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
        """The answer's `data`, when its `errors` leave it whole."""
        errors = [e for e in answer.get("errors") or [] if isinstance(e, dict)]
        if any(e.get("type") == "NOT_FOUND" and (e.get("path") or [None])[0] == "repository" for e in errors):
            raise SourceError(f"repository {variables.get('owner')}/{variables.get('name')} not found at "
                              f"{self.http.api_url} (or the token cannot see it)")
        if errors and any("timeout" in str(e.get("message", "")).lower() for e in errors):
            raise QueryTimeout(f"GitHub timed out on the query: {errors[0].get('message')}")
        if "data" not in answer:  # refused before it ran (a malformed or too large query): asking again won't help
            raise SourceError(f"GitHub refused the query: {'; '.join(str(e.get('message')) for e in errors[:3])}")
        data = answer.get("data")
        if errors or not isinstance(data, dict):
            self.http.stats["partial"] += 1
            raise PartialAnswer(f"GraphQL errors: {'; '.join(str(e.get('message')) for e in errors[:3])}",
                                data if isinstance(data, dict) else None, errors)
        return data

    def _query_retrying(self, query: str, variables: dict[str, Any], *, shrinkable: bool = False,
                        salvage: Salvage | None = None) -> dict[str, Any]:
        """`query`, asked again (with backoff) while GitHub leaves parts of the answer out or gives up on it.
        A `shrinkable` query's timeout goes to the caller instead, which can ask for a smaller page. `salvage`
        may make a partial answer whole for less than the query again (None: it cannot)."""
        for attempt in range(self.http.max_tries):
            try:
                return self.query(query, variables)
            except (PartialAnswer, QueryTimeout) as exc:
                if salvage is not None and isinstance(exc, PartialAnswer) and exc.data is not None:
                    whole = salvage(exc.data, exc.errors)
                    if whole is not None:
                        return whole
                if attempt + 1 == self.http.max_tries or (shrinkable and isinstance(exc, QueryTimeout)):
                    raise
                self.http.wait(self.http.backoff(attempt), f"GraphQL answer ({exc})")
        raise AssertionError("unreachable")

    # --- listing ------------------------------------------------------------------------------

    @tracing.traced("github list_merged")
    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        refs = [ref for page in self.list_pages(repo, period) for ref in page.refs]
        return sorted({r.number: r for r in refs}.values(), key=lambda r: (r.merged_at, r.number))

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        """The listing one search page at a time (see ListPage), or REST's where GraphQL cannot serve: one page
        of the whole range (a PR GraphQL listed before it gave up is listed again; the planner keeps one)."""
        if self.graphql:
            try:
                yield from self._search_pages(repo, period, resume)
                return
            except GraphQLUnavailable as exc:
                self._without_graphql(exc)
        yield ListPage(self.rest.list_merged(repo, period), None)

    def _search_pages(self, repo: str, period: Period, resume: dict[str, Any] | None) -> Iterator[ListPage]:
        """Search pages, sliced below the search cap; every PR they yield is kept for get().

        A page whose PRs have further pages (files, reviews, threads, comments) is held until the next page is
        asked, and the first MORE_PER_REQUEST of those further pages ride along in that page's query: a page's
        follow-up costs a request of its own only on the listing's last page (or past MORE_PER_REQUEST). A held
        page is yielded with its own resume state, so a planner that stops after it lists the next page again."""
        end = period.end_utc - timedelta(seconds=1)  # search ranges are inclusive at both ends
        state = resume or {"slices": [[format_timestamp(period.start_utc), format_timestamp(end)]], "after": None}
        slices: list[list[str]] = [list(s) for s in state["slices"]]
        after: str | None = state.get("after")
        held: tuple[list[dict[str, Any]], dict[str, Any] | None] | None = None
        left: int | None = None  # PRs of the slice not listed yet, once a page of it has said its issueCount
        ahead = self._ahead[repo] = Ahead(repo, period)  # a resumed listing's earlier pages: history asks those
        while slices:
            start, stop = (parse_timestamp(s) for s in slices[0])
            carry = _pending(held[0])[:MORE_PER_REQUEST] if held else []
            search, data = self._search_graphql(repo, period, start, stop, after, carry, left, ahead)
            if held:
                _apply_more(repo, carry, data)
                yield ListPage(self._keep(repo, period, held[0], ahead), held[1])
                held = None
            total = int(search.get("issueCount") or 0)
            cut = _cut(start, stop, total) if after is None else None
            if cut:
                slices[:1] = cut
                continue
            nodes = [n for n in search.get("nodes") or [] if isinstance(n, dict)]
            ahead.see(nodes)
            info = search.get("pageInfo") or {}
            if info.get("hasNextPage") and info.get("endCursor"):
                # after a resume the slice's earlier pages are unknown: counted from the total, an overestimate
                left = (total if after is None or left is None else left) - len(search.get("nodes") or [])
                after = str(info["endCursor"])
            else:
                slices.pop(0)
                after, left = None, None
            resumed = {"slices": [list(s) for s in slices], "after": after} if slices else None
            if slices and _pending(nodes):
                held = (nodes, resumed)
            else:
                yield ListPage(self._keep(repo, period, nodes, ahead), resumed)

    def _search_graphql(self, repo: str, period: Period, start: datetime, stop: datetime, after: str | None,
                        carry: list[tuple[dict[str, Any], str]], left: int | None = None,
                        ahead: Ahead | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A search page (its `search`) and the whole answer, which holds the `carry` pages (`_more_parts`) and what
        it asks `ahead`. When fewer than a page are `left`, the page asks those only, with larger conversation pages
        (conversation_sizes)."""
        tz = zone(period.tz)
        merged = f"{start.astimezone(tz).isoformat()}..{stop.astimezone(tz).isoformat()}"
        owner, name = repo.split("/", 1)
        params, more, pulls, roots = _more_parts(carry)
        history_params, history_variables, history_roots, asked = _ahead_parts(ahead)
        q = f"repo:{repo} is:pr is:merged merged:{merged} sort:created-asc"
        while True:
            first = min(self.page_size, left) if left and left > 0 else self.page_size
            fields = _pull_fields(*conversation_sizes(first, self.page_size))
            query = _search_query(params + history_params, pulls, roots + history_roots, fields)
            variables = {**more, **history_variables, "owner": owner, "name": name, "first": first, "after": after,
                         "q": q}

            salvage = partial(self._salvaged, repo, q, after, fields, ahead)
            try:
                data = self._query_retrying(query, variables, shrinkable=self.page_size > MIN_PAGE, salvage=salvage)
            except QueryTimeout:
                if self.page_size <= MIN_PAGE and history_roots:
                    # What the history carries may be what runs too long: never a reason for the listing to fail.
                    history_params, history_variables, history_roots, asked = _ahead_parts(None)
                    log.warning("GitHub timed out on the smallest search page: asking it without the history")
                    continue
                if self.page_size <= MIN_PAGE:
                    raise
                self.page_size = max(MIN_PAGE, self.page_size // 2)
                self.http.stats["page_shrinks"] += 1
                log.warning("GitHub timed out on a search page: asking %d PRs a page", self.page_size)
                continue
            search = data.get("search")
            if not isinstance(search, dict):
                raise SourceError(f"GitHub's search for {repo} answered no results object")
            # A page passed: the next asks twice as many again, up to the configured size. A timeout is often
            # GitHub's moment, not the page's weight; a shrink kept for the rest of the listing cost a long
            # range many more pages (and points) than the one timeout did. A range that stays heavy times
            # out again and shrinks again: at most one extra request per shrunk page that passed.
            self.page_size = min(self.full_page, self.page_size * 2)
            if ahead is not None:
                ahead.take(data, asked)
            return search, data

    def _salvaged(self, repo: str, q: str, after: str | None, fields: str, ahead: Ahead | None,
                  data: dict[str, Any], errors: list[dict[str, Any]]) -> dict[str, Any] | None:
        """A listing page GitHub answered but for some of its PRs (every error's path is `search.nodes.<i>...`), made
        whole by asking those PRs again, each a `search(first: 1)` after the cursor before it, all in one query: a
        retry of a node or two instead of the page, with the first further pages of the PRs it did bring and the
        first merges of their authors (`ahead`). An error in a history alias drops that alias: history asks it. None
        when the errors are elsewhere or a cursor is missing."""
        if (kept := _without_ahead_errors(data, errors)) is not None:
            data, errors = kept
            if not errors:
                return data
        search = data.get("search")
        located = _missing_nodes(search, errors, after) if isinstance(search, dict) else None
        if not isinstance(search, dict) or located is None:
            return None
        wanted, cursors = located
        nodes = list(search.get("nodes") or [])
        # The PRs the page did bring: their further pages ride along, as they would in the next page's query.
        carry = _pending([n for n in nodes if isinstance(n, dict)])[:MORE_PER_REQUEST]
        params, variables, pulls, roots = _more_parts(carry)
        if ahead is not None:
            ahead.see(n for n in nodes if isinstance(n, dict))
        history_params, history_variables, history_roots, history_asked = _ahead_parts(ahead)
        asked = " ".join(f"m{k}: search(type: ISSUE, query: $q, first: 1, after: $m{k}) "
                         f"{{ nodes {{ ... on PullRequest {{ {fields} }} }} }}" for k in range(len(wanted)))
        declared = "".join(f", {p}" for p in [*params, *history_params,
                                              *(f"$m{k}: String" for k in range(len(wanted)))])
        owner, name = repo.split("/", 1)
        answer = self._query_retrying(
            f"query($owner: String!, $name: String!, $q: String!{declared}) {{ {RATE} "
            f"repository(owner: $owner, name: $name) {{ nameWithOwner {' '.join(pulls)} }} {asked} "
            f"{' '.join(roots + history_roots)} }}",
            {**variables, **history_variables, "owner": owner, "name": name, "q": q,
             **{f"m{k}": c for k, c in enumerate(cursors)}})
        if ahead is not None:
            ahead.take(answer, history_asked)
        for k, i in enumerate(wanted):
            got = [n for n in (answer.get(f"m{k}") or {}).get("nodes") or [] if isinstance(n, dict)]
            if not got:
                return None
            nodes[i] = got[0]
        _apply_more(repo, carry, answer)
        self.http.stats["salvaged_nodes"] += len(wanted)
        log.info("GitHub left %d PRs out of a listing page: asked for those alone", len(wanted))
        return {**data, "search": {**search, "nodes": nodes}}

    def _keep(self, repo: str, period: Period, nodes: list[dict[str, Any]],
              ahead: Ahead | None = None) -> list[PullRef]:
        """Finish the nodes (further files and reviews pages), keep them for get(), return their refs."""
        nodes = [n for n in nodes if n.get("mergedAt") and period.contains(parse_timestamp(str(n["mergedAt"])))]
        self._more_pages(repo, nodes, ahead)
        if len(self._kept) > MAX_KEPT:
            self._kept.clear()
        refs = []
        for node in nodes:
            pr = self._pull(node)
            self._kept[(repo, pr.number)] = pr
            self.payloads.put(self._payload_key(repo, pr.number), CachedResponse(pr.head_sha, pr.to_export()))
            refs.append(pr.ref)
        return refs

    def _more_pages(self, repo: str, nodes: list[dict[str, Any]], ahead: Ahead | None = None) -> None:
        """Fetch the connections beyond each node's first page, in place, MORE_PER_REQUEST to a query (aliases):
        a PR's files, reviews, threads and comments by its number, a thread's replies by its id (`node`); with
        what is asked `ahead` riding along."""
        owner, name = repo.split("/", 1)
        while True:
            todo = _pending(nodes)
            if not todo:
                return
            batch = todo[:MORE_PER_REQUEST]
            params, variables, pulls, roots = _more_parts(batch)
            history_params, history_variables, history_roots, asked = _ahead_parts(ahead)
            query = (f"query($owner: String!, $name: String!, {', '.join(params + history_params)}) {{ {RATE} "
                     f"repository(owner: $owner, name: $name) {{ nameWithOwner {' '.join(pulls)} }} "
                     f"{' '.join(roots + history_roots)} }}")
            data = self._query_retrying(query, {**variables, **history_variables, "owner": owner, "name": name})
            _apply_more(repo, batch, data)
            if ahead is not None:
                ahead.take(data, asked)

    def _pull(self, node: dict[str, Any]) -> PullRequest:
        files = [_file_change(f) for f in _nodes(node, "files")][:FILES_CAP]
        commit = node.get("mergeCommit") or {}
        changed = int(node.get("changedFiles") or len(files))
        return PullRequest(
            number=int(node["number"]), title=str(node.get("title") or ""), body=str(node.get("body") or ""),
            author=_actor(node.get("author")), merged_at=parse_timestamp(str(node["mergedAt"])),
            url=str(node.get("url") or ""), labels=_labels(node),
            co_authors=co_authors_from(str(commit.get("message") or "")) if self.co_authors else [],
            base_ref=str(node.get("baseRefName") or "main"),
            head_sha=str(node.get("headRefOid") or commit.get("oid") or ""),
            additions=int(node.get("additions") or 0), deletions=int(node.get("deletions") or 0),
            changed_files=changed, files=files, files_truncated=changed > len(files),
            # Pending reviews are drafts nobody else sees yet.
            reviews=[Review(_actor(r.get("author")), str(r.get("state")), str(r.get("body") or ""),
                            _moment(r.get("submittedAt"))) for r in _nodes(node, "reviews")
                     if r.get("state") != "PENDING"],
            commits=(node.get("commits") or {}).get("totalCount"),
            created_at=_moment(node.get("createdAt")),
            review_threads=[_thread(t) for t in _nodes(node, "reviewThreads")],
            comments=[_comment(c) for c in _nodes(node, "comments")],
            # null (a deleted account) or absent: the source does not say, and no self-merge is claimed
            merged_by=_actor(node["mergedBy"]) if node.get("mergedBy") else "",
        )

    # --- history ------------------------------------------------------------------------------

    @tracing.traced("github history")
    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The comparison periods' PRs (modules by `tag` from titles, labels and paths), one search slice per
        period, and beside them in the same queries the authors' first merges, FIRSTS_PER_QUERY to a query: per
        login one search `author:L merged:<=T sort:created-asc` with `first: 1`, whose `issueCount` says whether
        they merged before and whose node (their oldest PR) gives the date. A week's history is one request.
        GitHub's search cannot sort by merge time: the date is the merge of their first-opened PR, which may not
        be their first merge. A display name (an export's or a co-author trailer's) cannot be searched: recorded
        as not new. What the period's listing asked ahead (Ahead) is taken, not asked again."""
        if not self.graphql:
            return self.rest.history(repo, period, authors, tag)
        wanted = sorted({a.lower() for a in authors})
        logins = [name for name in wanted if LOGIN.match(name)]
        before = format_timestamp(period.start_utc - timedelta(seconds=1))
        slices = [(p.start_utc, p.end_utc - timedelta(seconds=1)) for p in period.previous(COMPARISONS)]
        ahead = self._ahead.pop(repo, None)  # taken once: a later history of the period asks GitHub again
        if ahead is not None and (ahead.before, ahead.slices) != (before, slices):
            ahead = None  # the listing was of another period
        try:
            earlier, first = self._listed(repo, comparison_span(period), tag, EARLIER_FIELDS, slices, logins, before,
                                          ahead)
        except GraphQLUnavailable as exc:
            self._without_graphql(exc)
            return self.rest.history(repo, period, authors, tag)
        first.update({name: "" for name in wanted if not LOGIN.match(name)})  # display names: never called new
        return History(earlier, dict(sorted(first.items())))

    @tracing.traced("github record")
    def read_file(self, repo: str, path: str) -> str | None:
        """A file of the default branch, through REST's contents API (raw, and revalidated by its ETag)."""
        return self.rest.read_file(repo, path)

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The span's PRs in the history's light listing (titles, labels, paths), sliced at the search cap."""
        if not self.graphql:
            return self.rest.record(repo, span, tag)
        try:
            return History(self._listed(repo, span, tag, RECORD_FIELDS)[0], {})
        except GraphQLUnavailable as exc:
            self._without_graphql(exc)
            return self.rest.record(repo, span, tag)

    def _listed(self, repo: str, span: Period, tag: Tagger, fields: str,
                slices: list[tuple[datetime, datetime]] | None = None, logins: Iterable[str] = (),
                before: str = "", ahead: Ahead | None = None) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The PRs merged in `span` as history entries, read SLICES_PER_QUERY search slices to a query (`slices`,
        inclusive whole seconds; the whole span when None), and the first merge before `before` of each of
        `logins`, FIRSTS_PER_QUERY to a query beside them; a slice's first page or a first merge the listing asked
        `ahead` is not asked again. A slice past the search cap is cut where its first page says so: into slices of
        at most 80% of the cap, and into as many as a query asks at once when its PRs fill more pages than that, so
        the cut's pages come in parallel rather than one after another."""
        start, stop = span.start_utc, span.end_utc - timedelta(seconds=1)  # search ranges are inclusive
        tz = zone(span.tz)
        found: dict[int, PullRequest] = {}

        def read(search: Any, low: datetime, high: datetime, after: str | None) -> list[Slice]:
            """A slice's page: its PRs into `found`; what is left of the slice (its cut, or its next page)."""
            if not isinstance(search, dict):
                raise SourceError(f"GitHub's search for {repo} answered no results object")
            total = int(search.get("issueCount") or 0)
            # cut into as many slices as a query asks when its PRs fill that many pages: they come in parallel
            cut = _cut(low, high, total, min(SLICES_PER_QUERY, -(-total // PAGE))) if after is None else None
            if cut:
                return [(parse_timestamp(a), parse_timestamp(b), None) for a, b in cut]
            for node in search.get("nodes") or []:
                if isinstance(node, dict) and node.get("mergedAt"):
                    pr = self._history_pull(node)
                    if start <= pr.merged_at <= stop:
                        found[pr.number] = pr
            info = search.get("pageInfo") or {}
            return [(low, high, str(info["endCursor"]))] if info.get("hasNextPage") and info.get("endCursor") else []

        pages, firsts = (ahead.pages, ahead.firsts) if ahead is not None else ({}, {})
        todo: list[Slice] = []
        for low, high in slices or [(start, stop)]:
            page = pages.get((low, high))
            todo += [(low, high, None)] if page is None else read(page, low, high, None)
        logins = list(logins)
        first = {login: merged for login in logins if (merged := firsts.get(login)) is not None}
        waiting = [login for login in logins if login not in firsts]
        while todo or waiting:
            batch, asked = todo[:SLICES_PER_QUERY], waiting[:FIRSTS_PER_QUERY]
            todo, waiting = todo[len(batch):], waiting[len(asked):]
            data = self._query_retrying(*_history_query(repo, tz, fields, batch, asked, before))
            first.update(_first_merges_in(repo, data, asked))
            more = [rest for i, (low, high, after) in enumerate(batch)
                    for rest in read(data.get(f"s{i}"), low, high, after)]
            todo = more + todo
        prs = sorted(found.values(), key=lambda pr: (pr.merged_at, pr.number))
        return [history_entry(pr, tag(pr)) for pr in prs], first

    @staticmethod
    def _history_pull(node: dict[str, Any]) -> PullRequest:
        """What `tag` reads of a history node (files past the first 100 do not change a PR's modules much), and what
        the planner reads of its conversation: opening and first reviews."""
        return PullRequest(
            number=int(node["number"]), title=str(node.get("title") or ""), body="", author=_actor(node.get("author")),
            merged_at=parse_timestamp(str(node["mergedAt"])), url=str(node.get("url") or ""), labels=_labels(node),
            files=[FileChange(str(f["path"]), "modified", 0, 0) for f in _nodes(node, "files")],
            created_at=_moment(node.get("createdAt")),
            reviews=[Review(_actor(r.get("author")), str(r.get("state")), "", _moment(r.get("submittedAt")))
                     for r in _nodes(node, "reviews") if r.get("state") != "PENDING"])

    # --- details ------------------------------------------------------------------------------

    @staticmethod
    def _payload_key(repo: str, number: int) -> str:
        return f"graphql:pr:{repo}#{number}"

    @staticmethod
    def _diff_key(repo: str, number: int, head_sha: str) -> str:
        return f"graphql:diff:{repo}#{number}@{head_sha}"

    def payload(self, repo: str, number: int) -> dict[str, Any] | None:
        """A listed PR in the export format (everything but diff text): what a score message can carry."""
        pr = self._kept.get((repo, number))
        return pr.to_export() if pr else None

    def listed_head(self, repo: str, number: int) -> str:
        """The head of a PR this process listed (get() serves that same PR); "" after a fallback to REST."""
        pr = self._kept.get((repo, number)) if self.graphql else None
        return pr.head_sha if pr is not None else ""

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """From the listing's own nodes (files up to FILES_CAP); no diff is fetched."""
        if not self.graphql:
            return self.rest.touched(repo, ref)
        pr = self._kept.get((repo, ref.number))
        if pr is None:
            stored = self.payloads.get(self._payload_key(repo, ref.number))
            pr = PullRequest.from_export(stored.body) if stored else self._load_one(repo, ref.number)
        return [name for f in pr.files for name in (f.filename, f.previous_filename) if name]

    @tracing.traced("github get")
    def get(self, repo: str, ref: PullRef) -> PullRequest:
        if not self.graphql:
            return self.rest.get(repo, ref)
        pr = self._kept.get((repo, ref.number))
        if pr is None:
            stored = self.payloads.get(self._payload_key(repo, ref.number))
            pr = PullRequest.from_export(stored.body) if stored else None
        if pr is None:
            try:
                pr = self._load_one(repo, ref.number)
            except GraphQLUnavailable as exc:
                self._without_graphql(exc)
                return self.rest.get(repo, ref)
        if not needs_diff(pr):
            return pr
        # A merged PR's diff at its head commit never changes: kept without revalidation. Only the diff's part
        # is kept (hunks, old paths): titles, labels and reviews come fresh from each listing.
        key = self._diff_key(repo, pr.number, pr.head_sha)
        kept = self.payloads.get(key) if pr.head_sha else None
        if kept is not None:
            rows = {path: (patch, previous, bool(binary)) for path, (patch, previous, binary) in kept.body.items()}
        else:
            rows = self._diff_rows(repo, pr)
            if pr.head_sha:
                self.payloads.put(key, CachedResponse(pr.head_sha, {path: list(row) for path, row in rows.items()}))
        files = []
        for f in pr.files:
            patch, previous, binary = rows.get(f.filename, (None, None, False))
            files.append(FileChange(f.filename, f.status, f.additions, f.deletions,
                                    previous or f.previous_filename, binary or f.binary, patch))
        return PullRequest(**{**pr.__dict__, "files": files})

    def _load_one(self, repo: str, number: int) -> PullRequest:
        """A PR the listing did not leave here (another process listed it, its payload expired)."""
        owner, name = repo.split("/", 1)
        data = self._query_retrying(ONE_QUERY, {"owner": owner, "name": name, "number": number})
        node = (data.get("repository") or {}).get("pullRequest")
        if not isinstance(node, dict):
            raise SourceError(f"PR #{number} of {repo} not found")
        if not node.get("mergedAt"):
            raise SourceError(f"PR #{number} of {repo} is not merged")
        self._more_pages(repo, [node])
        return self._pull(node)

    def _diff_rows(self, repo: str, pr: PullRequest) -> dict[str, tuple[str | None, str | None, bool]]:
        """path -> (hunks, old path, binary) from the PR's diff, or from /files when the diff is too large for
        GitHub to render."""
        if pr.changed_files <= DIFF_MAX_FILES and pr.additions + pr.deletions <= DIFF_MAX_LINES:
            diff = self._diff(repo, pr)
            if diff is not None:
                return {d.path: (d.patch, d.previous_path, d.binary) for d in diff}
        self.http.stats["files_fallback"] += 1
        return {str(row["filename"]): (row.get("patch"), row.get("previous_filename"), False)
                for row in self.rest.pages(f"repos/{repo}/pulls/{pr.number}/files", {"per_page": 100})}

    def _diff(self, repo: str, pr: PullRequest) -> list[FileDiff] | None:
        """The PR's whole diff by file, or None when GitHub will not render it (406 too_large).

        A diff that lacks a listed file or ends inside a hunk was cut off in transit: asked again."""
        url = self.http.url(f"repos/{repo}/pulls/{pr.number}")
        listed = {f.filename for f in pr.files}
        for attempt in range(self.http.max_tries):
            response = self.http.send("GET", url, answered, headers=self.http.headers(DIFF_MEDIA_TYPE), tally="rest")
            self.http.stats["diffs"] += 1
            if response.status_code == 406:
                log.info("diff of #%d too large for GitHub (%s): reading /files", pr.number, message(response))
                return None
            if response.status_code == 404:
                raise SourceError(f"PR #{pr.number} of {repo} not found")
            if response.status_code != 200:
                raise SourceError(f"GitHub answered {response.status_code} for the diff of #{pr.number}: "
                                  f"{message(response)}")
            files = split_diff(response.content.decode("utf-8", errors="replace"))
            # A cut answer ends early: the files after the cut are missing, the last one may end mid-hunk.
            if listed <= {d.path for d in files} and (not files or hunks_complete(files[-1].patch)):
                return files
            self.http.stats["cut_diffs"] += 1
            if attempt + 1 < self.http.max_tries:
                self.http.wait(self.http.backoff(attempt), "diff cut off")
        log.warning("the diff of #%d kept arriving incomplete: reading /files", pr.number)
        return None


def _nodes(node: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The objects among a connection field's nodes (an absent or null connection has none)."""
    return [n for n in (node.get(field) or {}).get("nodes") or [] if isinstance(n, dict)]


def _pending(nodes: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """(holder, field) of every connection with a further page: the PRs' own, then their threads' replies."""
    todo = []
    for node in nodes:
        todo += [(node, field) for field in MORE_FIELDS if _has_more(node, field)]
        todo += [(thread, "comments") for thread in _nodes(node, "reviewThreads") if _has_more(thread, "comments")]
    return todo


def _more_parts(batch: list[tuple[dict[str, Any], str]]) -> tuple[list[str], dict[str, Any], list[str], list[str]]:
    """The aliased fields that ask the next page of each (holder, field) of `batch`: (variable declarations,
    variables, fields under `repository` (a PR's, by number), fields at the root (a thread's, by `node(id)`))."""
    params: list[str] = []
    variables: dict[str, Any] = {}
    pulls: list[str] = []
    roots: list[str] = []
    for i, (holder, field) in enumerate(batch):
        params.append(f"$a{i}: String")
        variables[f"a{i}"] = holder[field]["pageInfo"]["endCursor"]
        page = f"{field}(first: 100, after: $a{i}) {{ {MORE_FIELDS[field]} }}"
        if "number" in holder:
            pulls.append(f"p{i}: pullRequest(number: {int(holder['number'])}) {{ {page} }}")
        else:  # a review thread
            params.append(f"$t{i}: ID!")
            variables[f"t{i}"] = str(holder["id"])
            roots.append(f"p{i}: node(id: $t{i}) {{ ... on PullRequestReviewThread {{ {page} }} }}")
    return params, variables, pulls, roots


def _apply_more(repo: str, batch: list[tuple[dict[str, Any], str]], data: dict[str, Any]) -> None:
    """Append the further pages an answer to `_more_parts(batch)` holds to their holders' connections, in place."""
    repository = data.get("repository") or {}
    for i, (holder, field) in enumerate(batch):
        more = ((repository if "number" in holder else data).get(f"p{i}") or {}).get(field)
        if not isinstance(more, dict):
            raise SourceError(f"GitHub answered no {field} page for {_named(holder)} of {repo}")
        holder[field]["nodes"] = [*(holder[field].get("nodes") or []), *(more.get("nodes") or [])]
        holder[field]["pageInfo"] = more.get("pageInfo") or {}


def _missing_nodes(search: dict[str, Any], errors: list[dict[str, Any]],
                   after: str | None) -> tuple[list[int], list[str | None]] | None:
    """The page positions the errors name (`search.nodes.<i>...`) and the cursor before each (the page's `after` for
    the first), or None when an error is elsewhere or a cursor is not there."""
    nodes, edges = search.get("nodes") or [], search.get("edges") or []
    missing: set[int] = set()
    for error in errors:
        path = error.get("path") or []
        if len(path) < 3 or path[:2] != ["search", "nodes"] or not isinstance(path[2], int) \
                or not 0 <= path[2] < len(nodes):
            return None
        missing.add(path[2])
    wanted = sorted(missing)
    cursors = [after if i == 0 else (edges[i - 1] or {}).get("cursor") if i - 1 < len(edges) else None
               for i in wanted]
    if not wanted or any(c is None for i, c in zip(wanted, cursors, strict=True) if i > 0):
        return None
    return wanted, cursors


def _first_merges_in(repo: str, data: dict[str, Any], logins: list[str]) -> dict[str, str]:
    """login -> first merge, from the answer's `a<i>` searches, for the logins that merged before (issueCount)."""
    first: dict[str, str] = {}
    for i, login in enumerate(logins):
        search = data.get(f"a{i}")
        if not isinstance(search, dict):
            raise SourceError(f"GitHub answered no first-merge search for {login} in {repo}")
        if int(search.get("issueCount") or 0):
            nodes = [n for n in search.get("nodes") or [] if isinstance(n, dict)]
            first[login] = str(nodes[0].get("mergedAt") or "") if nodes else ""
    return first


def _cut(start: datetime, stop: datetime, total: int, at_least: int = 1) -> list[list[str]] | None:
    """A slice's first page says `total`: past the search cap, the slices it is cut into, `at_least` of them (None:
    it is listed)."""
    if total > SEARCH_CAP and stop > start:
        parts = max(-(-total // (SEARCH_CAP * 4 // 5)), at_least)  # aim at 80% of the cap: merges are not uniform
        log.info("search %s..%s has %d results: %d slices", start, stop, total, parts)
        return _split(start, stop, parts)
    if total > SEARCH_CAP:
        log.warning("%d PRs merged within one second at %s: only %d can be listed", total, start, SEARCH_CAP)
    return None


def _has_more(holder: dict[str, Any], field: str) -> bool:
    conn = holder.get(field) or {}
    if field == "files" and len(conn.get("nodes") or []) >= FILES_CAP:  # GitHub lists no more files than REST
        return False
    return bool((conn.get("pageInfo") or {}).get("hasNextPage") and (conn.get("pageInfo") or {}).get("endCursor"))


def _named(holder: dict[str, Any]) -> str:
    return f"PR #{holder['number']}" if "number" in holder else f"review thread {holder.get('id')}"


def _moment(value: Any) -> datetime | None:
    return parse_timestamp(str(value)) if value else None


def _comment(c: dict[str, Any]) -> Comment:
    """An issue comment or a review comment; its author spelled as contributors are (bots with "[bot]")."""
    return Comment(_actor(c.get("author")), str(c.get("body") or ""), _moment(c.get("createdAt")),
                   str(c.get("url") or ""))


def _thread(t: dict[str, Any]) -> ReviewThread:
    """A review thread; an outdated one has lost its `line` to newer commits: where it was first is kept."""
    line = t.get("line") if t.get("line") is not None else t.get("originalLine")
    return ReviewThread(path=str(t.get("path") or ""), comments=tuple(_comment(c) for c in _nodes(t, "comments")),
                        is_resolved=bool(t.get("isResolved")), is_outdated=bool(t.get("isOutdated")),
                        line=None if line is None else int(line))


def _labels(node: dict[str, Any]) -> list[str]:
    return [str(lb["name"]) for lb in _nodes(node, "labels")]


def _file_change(f: dict[str, Any]) -> FileChange:
    """A `files` node as REST's /files row reads: PatchStatus by its REST name; hunks and old paths come from
    the diff."""
    return FileChange(filename=str(f["path"]), status=STATUS.get(str(f.get("changeType")), "modified"),
                      additions=int(f.get("additions") or 0), deletions=int(f.get("deletions") or 0))


def _history_parts(repo: str, tz: Any, fields: str, batch: list[Slice], logins: list[str], before: str,
                   prefix: str = "") -> tuple[list[str], dict[str, Any], list[str]]:
    """Aliased searches: `<prefix>s<i>` a page of 100 of each slice (from its cursor), `<prefix>a<i>` the oldest
    merged PR of each login before `before`; as (variable declarations, variables, root fields)."""
    params: list[str] = []
    parts: list[str] = []
    variables: dict[str, Any] = {}
    for i, (low, high, after) in enumerate(batch):
        merged = f"{low.astimezone(tz).isoformat()}..{high.astimezone(tz).isoformat()}"
        variables[f"{prefix}q{i}"] = f"repo:{repo} is:pr is:merged merged:{merged} sort:created-asc"
        variables[f"{prefix}c{i}"] = after
        params += [f"${prefix}q{i}: String!", f"${prefix}c{i}: String"]
        parts.append(f"{prefix}s{i}: search(type: ISSUE, query: ${prefix}q{i}, first: {PAGE}, after: ${prefix}c{i}) "
                     f"{{ issueCount {PAGE_INFO} nodes {{ ... on PullRequest {{ {fields} }} }} }}")
    for i, login in enumerate(logins):
        variables[f"{prefix}f{i}"] = f"repo:{repo} is:pr is:merged author:{login} merged:<={before} sort:created-asc"
        params.append(f"${prefix}f{i}: String!")
        parts.append(f"{prefix}a{i}: search(type: ISSUE, query: ${prefix}f{i}, first: 1) {{ {FIRST_FIELDS} }}")
    return params, variables, parts


def _history_query(repo: str, tz: Any, fields: str, batch: list[Slice],
                   logins: list[str], before: str) -> tuple[str, dict[str, Any]]:
    """One query of the history's aliased searches (`_history_parts`)."""
    params, variables, parts = _history_parts(repo, tz, fields, batch, logins, before)
    return f"query({', '.join(params)}) {{ {RATE} {' '.join(parts)} }}", variables


def _split(start: datetime, stop: datetime, parts: int) -> list[list[str]]:
    """[start, stop] (whole seconds, inclusive) in `parts` adjacent, non-overlapping slices."""
    seconds = int((stop - start).total_seconds())
    parts = max(2, min(parts, seconds + 1))
    bounds = [start + timedelta(seconds=seconds * k // parts) for k in range(parts + 1)]
    slices = []
    for k in range(parts):
        low = bounds[k] if k == 0 else bounds[k] + timedelta(seconds=1)
        high = bounds[k + 1]
        if low <= high:
            slices.append([format_timestamp(low), format_timestamp(high)])
    return slices

