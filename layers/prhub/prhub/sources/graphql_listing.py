"""The merged PRs of a period through GraphQL (`Listing`): `search(type: ISSUE, query: "repo:O/N is:pr is:merged
merged:A..B")`, a page of up to 100 PRs with their files, labels, merge commit and review conversation in one
request, sliced so no search passes GitHub's 1,000-result cap. Their further pages ride in the next page's query
(prhub.sources.graphql_pages), the history asks ahead in them (prhub.sources.graphql_history.Ahead), and every
PR listed is kept for the details (prhub.sources.graphql_details.Listed).

A page GitHub gives up on (502: the query ran too long) is asked again at half the size, which grows back after
each page that passes; a page answered but for some of its PRs is made whole by asking those PRs alone.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from prhub.core.errors import SourceError
from prhub.core.models import PullRef
from prhub.core.period import Period, format_timestamp, parse_timestamp, zone
from prhub.sources.graphql_details import Listed
from prhub.sources.graphql_history import Ahead, ahead_parts, without_ahead_errors
from prhub.sources.graphql_nodes import PAGE, PULL, RATE, conversation_sizes, cut_slice, pull_fields, pull_request
from prhub.sources.graphql_pages import MORE_PER_REQUEST, apply_more, more_pages, more_parts, pending
from prhub.sources.graphql_query import Ask, QueryTimeout
from prhub.sources.http import GitHubClient
from prhub.sources.source import ListPage

log = logging.getLogger(__name__)

MIN_PAGE = 10  # below this a timing-out search page is a GitHub problem, not a page-size one


def _search_query(params: list[str], pulls: list[str], roots: list[str], fields: str = PULL) -> str:
    """A listing page (each PR's `fields`), with further pages of the previous page's PRs (`more_parts`) riding
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


class Listing:
    """Search pages of merged PRs, `page_size` PRs a page (shrunk while GitHub times out, grown back after)."""

    def __init__(self, http: GitHubClient, ask: Ask, listed: Listed, ahead: Callable[[str, Period], Ahead],
                 page_size: int = PAGE, co_authors: bool = True) -> None:
        self.http, self.ask, self.listed, self.ahead, self.co_authors = http, ask, listed, ahead, co_authors
        self.page_size = max(1, min(PAGE, page_size))
        self.full_page = self.page_size  # what page_size grows back to after a timeout's shrink

    def pages(self, repo: str, period: Period, resume: dict[str, Any] | None) -> Iterator[ListPage]:
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
        ahead = self.ahead(repo, period)  # a resumed listing's earlier pages: history asks those
        while slices:
            start, stop = (parse_timestamp(s) for s in slices[0])
            carry = pending(held[0])[:MORE_PER_REQUEST] if held else []
            search, data = self._page(repo, period, start, stop, after, carry, left, ahead)
            if held:
                apply_more(repo, carry, data)
                yield ListPage(self._keep(repo, period, held[0], ahead), held[1])
                held = None
            total = int(search.get("issueCount") or 0)
            cut = cut_slice(start, stop, total) if after is None else None
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
            if slices and pending(nodes):
                held = (nodes, resumed)
            else:
                yield ListPage(self._keep(repo, period, nodes, ahead), resumed)

    def _page(self, repo: str, period: Period, start: datetime, stop: datetime, after: str | None,
                        carry: list[tuple[dict[str, Any], str]], left: int | None = None,
                        ahead: Ahead | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A search page (its `search`) and the whole answer, which holds the `carry` pages (`more_parts`) and what
        it asks `ahead`. When fewer than a page are `left`, the page asks those only, with larger conversation pages
        (conversation_sizes)."""
        tz = zone(period.tz)
        merged = f"{start.astimezone(tz).isoformat()}..{stop.astimezone(tz).isoformat()}"
        owner, name = repo.split("/", 1)
        params, more, pulls, roots = more_parts(carry)
        history_params, history_variables, history_roots, asked = ahead_parts(ahead)
        q = f"repo:{repo} is:pr is:merged merged:{merged} sort:created-asc"
        while True:
            first = min(self.page_size, left) if left and left > 0 else self.page_size
            fields = pull_fields(*conversation_sizes(first, self.page_size))
            query = _search_query(params + history_params, pulls, roots + history_roots, fields)
            variables = {**more, **history_variables, "owner": owner, "name": name, "first": first, "after": after,
                         "q": q}

            salvage = partial(self._salvaged, repo, q, after, fields, ahead)
            try:
                data = self.ask(query, variables, shrinkable=self.page_size > MIN_PAGE, salvage=salvage)
            except QueryTimeout:
                if self.page_size <= MIN_PAGE and history_roots:
                    # What the history carries may be what runs too long: never a reason for the listing to fail.
                    history_params, history_variables, history_roots, asked = ahead_parts(None)
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
        if (kept := without_ahead_errors(data, errors)) is not None:
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
        carry = pending([n for n in nodes if isinstance(n, dict)])[:MORE_PER_REQUEST]
        params, variables, pulls, roots = more_parts(carry)
        if ahead is not None:
            ahead.see(n for n in nodes if isinstance(n, dict))
        history_params, history_variables, history_roots, history_asked = ahead_parts(ahead)
        asked = " ".join(f"m{k}: search(type: ISSUE, query: $q, first: 1, after: $m{k}) "
                         f"{{ nodes {{ ... on PullRequest {{ {fields} }} }} }}" for k in range(len(wanted)))
        declared = "".join(f", {p}" for p in [*params, *history_params,
                                              *(f"$m{k}: String" for k in range(len(wanted)))])
        owner, name = repo.split("/", 1)
        answer = self.ask(
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
        apply_more(repo, carry, answer)
        self.http.stats["salvaged_nodes"] += len(wanted)
        log.info("GitHub left %d PRs out of a listing page: asked for those alone", len(wanted))
        return {**data, "search": {**search, "nodes": nodes}}

    def _keep(self, repo: str, period: Period, nodes: list[dict[str, Any]],
              ahead: Ahead | None = None) -> list[PullRef]:
        """Finish the nodes (further files and reviews pages), keep them for get(), return their refs."""
        nodes = [n for n in nodes if n.get("mergedAt") and period.contains(parse_timestamp(str(n["mergedAt"])))]
        more_pages(self.ask, repo, nodes, ahead)
        return self.listed.keep(repo, (pull_request(node, self.co_authors) for node in nodes))


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
