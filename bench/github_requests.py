"""GitHub requests per PR, REST and GraphQL: a verl week and a 3-month range, first run and re-run.

    python -m bench.github_requests

Runs each source against the fake GitHub on 127.0.0.1 fed
../shared/data/verl-project-verl/pulls.jsonl the way one run uses it: the planner lists the
range and asks the source for its history (`Source.history`: the COMPARISONS periods before it
and the first merge of each of the range's authors; history lookups), then every PR's details are
loaded, as the score workers do (GraphQL's listing asks the history ahead, so its history lookups are only what
the listing did not carry). The re-run keeps the state of the first (ETag cache / payload
store), as a second run of the same range in the deployed stack would; its history is asked again,
since a report's history comes from the repository's own record and never from the state (REST's
searches then answer 304s, GraphQL's POSTs cannot be conditional).

Every PR carries a seeded review conversation (tests/fakes/github_conversation.py: reviews, threads,
replies, issue comments; a few PRs busier than the listing's first page), and the first run meets the
fault mix the tests use (5xx, cut bodies, reset connections, secondary limits, 429s, partial and
timed-out GraphQL answers). Requests are HTTP requests the fake answered (GraphQL and REST, 304s and
faults included), the history lookups included. The dashboard's year (`Source.record` over the 52
weeks before the range, as a first run's report step asks) is counted apart, per PR of that year.
Points are what the fake's GraphQL charged (`rateLimit.cost`). `run()` returns the figures and
"rows" for the bench table.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from prhub.core.models import PullRequest
from prhub.core.period import Period
from prhub.sources.github import GitHubSource
from prhub.sources.graphql import GraphQLSource
from prhub.sources.http import MemoryEtagCache
from prhub.sources.source import JsonlSource, Source

from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import seeded

# The fault mix of tests/functional/test_github_conversation.py: (kind, path pattern, times).
FAULTS = (("secondary", "/graphql", 1), ("429", "/graphql", 1), ("502", "/graphql", 1), ("partial", "/graphql", 1),
          ("cut", "/graphql", 1), ("cut-connection", "/graphql", 1), ("timeout", "/graphql", 1),
          ("502", "/comments", 2), ("cut", "/comments", 2), ("429", "/comments", 2), ("502", r"/pulls/\d+$", 2))

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"
RANGES = (("week", "2026-05-04", "2026-05-10"), ("3 months", "2026-05-04", "2026-08-02"))
TZ = "Asia/Shanghai"
SOURCES: dict[str, Callable[..., Source]] = {"rest": GitHubSource, "graphql": GraphQLSource}


def no_modules(pr: PullRequest) -> list[str]:
    """The bench's tagger: it counts requests, which modules do not change."""
    return []


def _pass(gh: FakeGitHub, source: Source, period: Period) -> dict[str, Any]:
    """One run: plan (listing + history), then every PR's details; counted by the fake."""
    gh.reset_counts()
    started = time.perf_counter()
    refs = source.list_merged(REPO, period)
    before = sum(gh.counts.values())
    history = source.history(REPO, period, {ref.author for ref in refs}, no_modules)
    lookups = sum(gh.counts.values()) - before
    pulls = [source.get(REPO, ref) for ref in refs]
    seconds = time.perf_counter() - started
    prs = max(1, len(refs))
    requests = sum(gh.counts.values())  # faults included: each is a request GitHub answered
    diffs = gh.counts["diff"]
    return {"prs": len(refs), "requests": requests, "not_modified": gh.counts["not_modified"],
            "history_lookups": lookups, "earlier": len(history.earlier),
            "first_merged": len(history.first_merged), "by_kind": dict(sorted(gh.counts.items())),
            "per_pr": round(requests / prs, 3), "without_diffs_per_pr": round((requests - diffs) / prs, 3),
            "diffs_per_pr": round(diffs / prs, 3), "points": gh.points_spent,
            "points_per_pr": round(gh.points_spent / prs, 3), "seconds": round(seconds, 3), "pulls": pulls}


def measure(kind: str, since: str, until: str, pulls: list[PullRequest]) -> dict[str, Any]:
    """The first run and a re-run with the same state, for one source kind and range."""
    period = Period.parse(since, until, TZ)
    cache = MemoryEtagCache()
    with FakeGitHub(seeded(pulls), REPO) as gh:
        make = SOURCES[kind]
        for fault, path, times in FAULTS:
            gh.inject(fault, path=path, times=times, retry_after=0)
        options = {"token": "bench", "api_url": gh.url, "etag_cache": cache, "sleep": lambda s: None}
        first = _pass(gh, make(**options), period)
        rerun = _pass(gh, make(**options), period)
        gh.reset_counts()
        year = make(**{**options, "etag_cache": MemoryEtagCache()}).record(
            REPO, Period(period.since - timedelta(days=364), period.since - timedelta(days=1), TZ), no_modules)
        prs = max(1, len(year.earlier))
        dashboard = {"prs": len(year.earlier), "requests": sum(gh.counts.values()), "points": gh.points_spent,
                     "per_pr": round(sum(gh.counts.values()) / prs, 3),
                     "points_per_pr": round(gh.points_spent / prs, 3)}
    return {"source": kind, "range": f"{since}..{until} {TZ}", "first": first, "rerun": rerun, "year": dashboard}


def same_as_export(result: dict[str, Any], jsonl: JsonlSource, since: str, until: str) -> bool:
    """Whether the run loaded the same PRs, files and line counts as the export has for the range."""
    want = [jsonl.get(REPO, ref) for ref in jsonl.list_merged(REPO, Period.parse(since, until, TZ))]

    def facts(prs: list[PullRequest]) -> list[tuple[Any, ...]]:
        return [(p.number, p.additions, p.deletions, p.changed_files,
                 [(f.filename, f.status, f.additions, f.deletions) for f in p.files]) for p in prs]

    return facts(result["first"]["pulls"]) == facts(want) == facts(result["rerun"]["pulls"])


def run() -> dict[str, Any]:
    if not DATA.exists():
        return {"skipped": f"no data at {DATA}", "rows": [["github requests/PR", "n/a", f"no data at {DATA}"]]}
    jsonl = JsonlSource.from_path(str(DATA))
    # The whole export, so the search has to pick the range out of it as GitHub would.
    everything = Period(date(2000, 1, 1), date(2100, 1, 1), "UTC")  # past MAX_DAYS on purpose: built, not parsed
    pulls = [jsonl.get(REPO, ref) for ref in jsonl.list_merged(REPO, everything)]
    results, rows = [], []
    for name, since, until in RANGES:
        for kind in SOURCES:
            result = measure(kind, since, until, pulls)
            result["same_as_export"] = same_as_export(result, jsonl, since, until)
            first, rerun = result["first"], result["rerun"]
            label = f"github {kind} {name} ({first['prs']} PRs)"
            rows.append([f"{label} first: requests/PR", f"{first['per_pr']:.2f}",
                         f"{first['requests']} requests ({', '.join(f'{k} {v}' for k, v in first['by_kind'].items())}"
                         f"), {first['history_lookups']} of them history lookups ({first['earlier']} earlier PRs, "
                         f"{first['first_merged']} authors not new); {first['without_diffs_per_pr']:.2f}/PR "
                         f"without diffs; same PRs, files and lines as the export: {result['same_as_export']}; "
                         f"{first['seconds']:.2f} s"])
            rows.append([f"{label} first: diffs/PR", f"{first['diffs_per_pr']:.2f}",
                         "REST requests with Accept: application/vnd.github.diff"])
            if kind == "graphql":
                rows.append([f"{label} first: points/PR", f"{first['points_per_pr']:.3f}",
                             f"{first['points']} GraphQL points (rateLimit.cost) in all"])
            rows.append([f"{label} re-run: requests/PR", f"{rerun['per_pr']:.2f}",
                         f"{rerun['requests']} requests, {rerun['not_modified']} of them 304s, "
                         f"{rerun['history_lookups']} history lookups "
                         f"({', '.join(f'{k} {v}' for k, v in rerun['by_kind'].items())}); "
                         f"{rerun['points']} points; {rerun['seconds']:.2f} s"])
            year = result["year"]
            rows.append([f"github {kind} dashboard year before {since} ({year['prs']} PRs): requests/PR",
                         f"{year['per_pr']:.3f}", f"{year['requests']} requests, {year['points']} points "
                         f"({year['points_per_pr']:.3f}/PR); with the {name}'s first run: "
                         f"{(first['requests'] + year['requests']) / max(1, first['prs']):.2f} requests per PR of the "
                         f"{name}"])
            for run_ in (first, rerun):
                del run_["pulls"]  # the figures go to results.json, the PRs do not
            results.append(result)
    return {"ranges": results, "rows": rows}


def main() -> None:
    result = run()
    width = max(len(r[0]) for r in result["rows"])
    print(f"{'measure':<{width}} {'value':>6}  notes")
    for name, value, note in result["rows"]:
        print(f"{name:<{width}} {value:>6}  {note}")


if __name__ == "__main__":
    main()
