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

`GraphQLSource` composes one collaborator per concern, each its own module: the listing
(prhub.sources.graphql_listing), the details (graphql_details), the history (graphql_history), the further pages
they share (graphql_pages), the points budget (graphql_budget), the query and its retries (graphql_query), and
what is asked of GitHub's schema and read from its nodes (graphql_nodes). The source itself decides only which
API serves: requests go through the client the REST source uses too (prhub.sources.http.GitHubClient), with
GraphQL's own budget. Without a token (GraphQL needs one) or on a server without GraphQL (404), the REST source
the GraphQL source holds (`rest`) does the work.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from prhub.cloud import secrets, tracing
from prhub.core.history import History, Tagger
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.sources.github import GitHubSource
from prhub.sources.graphql_budget import PointsBudget
from prhub.sources.graphql_details import Details, Listed
from prhub.sources.graphql_history import HistoryListing
from prhub.sources.graphql_listing import Listing
from prhub.sources.graphql_nodes import PAGE
from prhub.sources.graphql_query import Endpoint, GraphQLUnavailable, Salvage, graphql_endpoint, retried
from prhub.sources.http import EtagCache, GitHubClient, OnClient, RateLimit, options_from_env
from prhub.sources.source import ListPage

log = logging.getLogger(__name__)


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
        self.budget = PointsBudget(self.http)
        self.endpoint = Endpoint(self.http, self.graphql_url, self.budget)
        self.graphql = bool(self.http.token)  # GraphQL needs authentication; without a token REST serves
        listed = Listed(self.payloads)
        self.histories = HistoryListing(self._ask)
        self.details = Details(self.http, self.rest, listed, self._ask, co_authors)
        self.listing = Listing(self.http, self._ask, listed, self.histories.ahead, page_size, co_authors)

    @classmethod
    def from_env(cls, env: Mapping[str, str], reader: secrets.Secrets | None = None,
                 **options: Any) -> GraphQLSource:
        """A source on GITHUB_API_URL with GITHUB_TOKEN (or the GITHUB_TOKEN_SECRET secret); see options_from_env."""
        return cls(**{**options_from_env(env, reader), **options})

    @property
    def points(self) -> RateLimit | None:
        """The GraphQL budget as last read, separate from REST's (`http.rate`)."""
        return self.budget.points

    @property
    def page_size(self) -> int:
        """PRs a search page asks now (halved while GitHub times out, doubled back after each page that passes)."""
        return self.listing.page_size

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
        return self.endpoint.query(query, variables)

    def _ask(self, query: str, variables: dict[str, Any], *, shrinkable: bool = False,
             salvage: Salvage | None = None) -> dict[str, Any]:
        """`query` asked until answered whole (prhub.sources.graphql_query.retried), through this source's `query`:
        every collaborator's queries pass there, one place to watch them."""
        return retried(self.query, self.http, query, variables, shrinkable=shrinkable, salvage=salvage)

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
                yield from self.listing.pages(repo, period, resume)
                return
            except GraphQLUnavailable as exc:
                self._without_graphql(exc)
        yield ListPage(self.rest.list_merged(repo, period), None)

    # --- history ------------------------------------------------------------------------------

    @tracing.traced("github history")
    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The comparison periods' PRs and the authors' first merges (prhub.sources.graphql_history), or REST's."""
        if not self.graphql:
            return self.rest.history(repo, period, authors, tag)
        try:
            return self.histories.history(repo, period, authors, tag)
        except GraphQLUnavailable as exc:
            self._without_graphql(exc)
            return self.rest.history(repo, period, authors, tag)

    @tracing.traced("github record")
    def read_file(self, repo: str, path: str) -> str | None:
        """A file of the default branch, through REST's contents API (raw, and revalidated by its ETag)."""
        return self.rest.read_file(repo, path)

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The span's PRs in the history's light listing (titles, labels, paths), sliced at the search cap."""
        if not self.graphql:
            return self.rest.record(repo, span, tag)
        try:
            return self.histories.record(repo, span, tag)
        except GraphQLUnavailable as exc:
            self._without_graphql(exc)
            return self.rest.record(repo, span, tag)

    # --- details ------------------------------------------------------------------------------

    def payload(self, repo: str, number: int) -> dict[str, Any] | None:
        """A listed PR in the export format (everything but diff text): what a score message can carry."""
        return self.details.payload(repo, number)

    def listed_head(self, repo: str, number: int) -> str:
        """The head of a PR this process listed (get() serves that same PR); "" after a fallback to REST."""
        return self.details.head(repo, number) if self.graphql else ""

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """From the listing's own nodes (files up to FILES_CAP); no diff is fetched."""
        if not self.graphql:
            return self.rest.touched(repo, ref)
        return self.details.touched(repo, ref)

    @tracing.traced("github get")
    def get(self, repo: str, ref: PullRef) -> PullRequest:
        if not self.graphql:
            return self.rest.get(repo, ref)
        try:
            pr = self.details.pull(repo, ref.number)
        except GraphQLUnavailable as exc:
            self._without_graphql(exc)
            return self.rest.get(repo, ref)
        return self.details.with_diff(repo, pr)
