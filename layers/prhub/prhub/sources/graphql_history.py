"""The history a report compares its period with, through GraphQL (`HistoryListing`): the comparison periods' PRs
in a light listing over their span (titles, labels, paths, the first reviews), and the authors' first merges, 25
aliased `search(first: 1)` a query; the dashboard's record of a span the same way, without the reviews.

A listing asks part of it ahead (`Ahead`): the comparison periods' first pages ride in its first query, the first
merges of the authors listed so far in the queries that follow, so a week's history usually sends nothing of its
own. `HistoryListing.ahead` is where a listing (prhub.sources.graphql_listing) gets the Ahead to fill.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from prhub.core.errors import SourceError
from prhub.core.history import COMPARISONS, History, Tagger, comparison_span, history_entry
from prhub.core.models import FileChange, PullRequest, Review
from prhub.core.period import Period, format_timestamp, parse_timestamp, zone
from prhub.sources.github import LOGIN
from prhub.sources.graphql_nodes import (
    ACTOR,
    PAGE,
    PAGE_INFO,
    RATE,
    connection_nodes,
    cut_slice,
    labels_of,
    login_of,
    moment,
)
from prhub.sources.graphql_query import Ask

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
                login = login_of(node.get("author")).lower()
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


def without_ahead_errors(data: dict[str, Any], errors: list[dict[str, Any]]
                          ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The answer and errors less the history aliases (Ahead) that came back with an error, which history then asks
    itself; None when no error is in one."""
    dropped = {str(e["path"][0]) for e in errors if e.get("path") and AHEAD_ALIAS.fullmatch(str(e["path"][0]))}
    if not dropped:
        return None
    return ({key: value for key, value in data.items() if key not in dropped},
            [e for e in errors if not e.get("path") or str(e["path"][0]) not in dropped])


def ahead_parts(ahead: Ahead | None) -> tuple[list[str], dict[str, Any], list[str], tuple[list[Slice], list[str]]]:
    """What a query carries ahead (Ahead.parts), nothing without an Ahead."""
    return ahead.parts() if ahead is not None else ([], {}, [], ([], []))


class HistoryListing:
    """History and record listings through GraphQL, each query asked until answered whole (`ask`)."""

    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self._ahead: dict[str, Ahead] = {}  # per repository, the history its last listing asked ahead

    def ahead(self, repo: str, period: Period) -> Ahead:
        """What a listing of the repository's `period` asks ahead for the history that follows it (kept until that
        history takes it, or the next listing of the repository replaces it)."""
        ahead = self._ahead[repo] = Ahead(repo, period)
        return ahead

    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The comparison periods' PRs (modules by `tag` from titles, labels and paths), one search slice per
        period, and beside them in the same queries the authors' first merges, FIRSTS_PER_QUERY to a query: per
        login one search `author:L merged:<=T sort:created-asc` with `first: 1`, whose `issueCount` says whether
        they merged before and whose node (their oldest PR) gives the date. A week's history is one request.
        GitHub's search cannot sort by merge time: the date is the merge of their first-opened PR, which may not
        be their first merge. A display name (an export's or a co-author trailer's) cannot be searched: recorded
        as not new. What the period's listing asked ahead (Ahead) is taken, not asked again."""
        wanted = sorted({a.lower() for a in authors})
        logins = [name for name in wanted if LOGIN.match(name)]
        before = format_timestamp(period.start_utc - timedelta(seconds=1))
        slices = [(p.start_utc, p.end_utc - timedelta(seconds=1)) for p in period.previous(COMPARISONS)]
        ahead = self._ahead.pop(repo, None)  # taken once: a later history of the period asks GitHub again
        if ahead is not None and (ahead.before, ahead.slices) != (before, slices):
            ahead = None  # the listing was of another period
        earlier, first = self._listed(repo, comparison_span(period), tag, EARLIER_FIELDS, slices, logins, before,
                                      ahead)
        first.update({name: "" for name in wanted if not LOGIN.match(name)})  # display names: never called new
        return History(earlier, dict(sorted(first.items())))

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The span's PRs in the history's light listing (titles, labels, paths), sliced at the search cap."""
        return History(self._listed(repo, span, tag, RECORD_FIELDS)[0], {})

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
            cut = cut_slice(low, high, total, min(SLICES_PER_QUERY, -(-total // PAGE))) if after is None else None
            if cut:
                return [(parse_timestamp(a), parse_timestamp(b), None) for a, b in cut]
            for node in search.get("nodes") or []:
                if isinstance(node, dict) and node.get("mergedAt"):
                    pr = _history_pull(node)
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
            data = self.ask(*_history_query(repo, tz, fields, batch, asked, before))
            first.update(_first_merges_in(repo, data, asked))
            more = [rest for i, (low, high, after) in enumerate(batch)
                    for rest in read(data.get(f"s{i}"), low, high, after)]
            todo = more + todo
        prs = sorted(found.values(), key=lambda pr: (pr.merged_at, pr.number))
        return [history_entry(pr, tag(pr)) for pr in prs], first


def _history_pull(node: dict[str, Any]) -> PullRequest:
    """What `tag` reads of a history node (files past the first 100 do not change a PR's modules much), and what
    the planner reads of its conversation: opening and first reviews."""
    return PullRequest(
        number=int(node["number"]), title=str(node.get("title") or ""), body="", author=login_of(node.get("author")),
        merged_at=parse_timestamp(str(node["mergedAt"])), url=str(node.get("url") or ""), labels=labels_of(node),
        files=[FileChange(str(f["path"]), "modified", 0, 0) for f in connection_nodes(node, "files")],
        created_at=moment(node.get("createdAt")),
        reviews=[Review(login_of(r.get("author")), str(r.get("state")), "", moment(r.get("submittedAt")))
                 for r in connection_nodes(node, "reviews") if r.get("state") != "PENDING"])


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
