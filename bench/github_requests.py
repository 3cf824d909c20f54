"""GitHub requests per PR for a verl week: first run, and a re-run with the ETag cache (304s are free).

    python -m bench.github_requests

Runs GitHubSource (list + details of every PR) against the fake GitHub on
127.0.0.1 fed ../shared/data/verl-project-verl/pulls.jsonl, and counts what the
fake answered. `run()` returns the figures (and "rows" for the bench table).
"""
from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from typing import Any

from prhub.github import GitHubSource, MemoryEtagCache
from prhub.period import Period
from prhub.sources import JsonlSource

from tests.fakes import FakeGitHub

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"
WEEKS = (("2026-05-04", "2026-05-10"), ("2026-08-10", "2026-08-16"))
TZ = "Asia/Shanghai"


def _pass(gh: FakeGitHub, cache: MemoryEtagCache, period: Period) -> dict[str, Any]:
    gh.reset_counts()
    source = GitHubSource(token="bench", api_url=gh.url, etag_cache=cache)
    started = time.perf_counter()
    refs = source.list_merged(REPO, period)
    for ref in refs:
        source.get(REPO, ref)
    seconds = time.perf_counter() - started
    counted = gh.total
    not_modified = gh.counts["not_modified"]
    return {"prs": len(refs), "requests": counted + not_modified, "counted": counted, "not_modified": not_modified,
            "by_kind": {k: v for k, v in sorted(gh.counts.items()) if k != "not_modified"},
            "per_pr": round((counted + not_modified) / max(1, len(refs)), 2),
            "counted_per_pr": round(counted / max(1, len(refs)), 2), "seconds": round(seconds, 3)}


def measure(since: str, until: str, data: Path = DATA) -> dict[str, Any]:
    """One week: the first run and a re-run sharing the ETag cache."""
    jsonl = JsonlSource.from_path(str(data))
    period = Period.parse(since, until, TZ)
    # The whole export, so the search has to pick the week out of it as GitHub would.
    everything = Period(date(2000, 1, 1), period.until, "UTC")  # past MAX_DAYS on purpose: built, not parsed
    pulls = [jsonl.get(REPO, ref) for ref in jsonl.list_merged(REPO, everything)]
    cache = MemoryEtagCache()
    with FakeGitHub(pulls, REPO) as gh:
        first = _pass(gh, cache, period)
        rerun = _pass(gh, cache, period)
    return {"week": f"{since}..{until} {TZ}", "first": first, "rerun": rerun}


def run() -> dict[str, Any]:
    if not DATA.exists():
        return {"skipped": f"no data at {DATA}", "rows": [["github requests/PR", "n/a", f"no data at {DATA}"]]}
    weeks = [measure(since, until) for since, until in WEEKS]
    rows = []
    for week in weeks:
        first, rerun = week["first"], week["rerun"]
        rows.append([f"github requests/PR {week['week'][:10]} first", f"{first['per_pr']:.2f}",
                     f"{first['requests']} requests for {first['prs']} PRs, all counted against the limit "
                     f"({', '.join(f'{k} {v}' for k, v in first['by_kind'].items())}); {first['seconds']:.2f} s"])
        rows.append([f"github requests/PR {week['week'][:10]} re-run", f"{rerun['counted_per_pr']:.2f}",
                     f"counted per PR with the ETag cache: {rerun['counted']} counted, {rerun['not_modified']} "
                     f"304s ({rerun['per_pr']:.2f} sent per PR); {rerun['seconds']:.2f} s"])
    return {"weeks": weeks, "rows": rows}


def main() -> None:
    result = run()
    print(f"{'measure':<40} {'value':>6}  notes")
    for name, value, note in result["rows"]:
        print(f"{name:<40} {value:>6}  {note}")


if __name__ == "__main__":
    main()
