"""Print the "related PRs" clusters of named weeks of the exports, and time `clusters_of` on a year.

    python -m bench.clusters [--weeks verl:2026-05-04 cargo:2026-06-08 ...] [--year verl:2026 verl:last]

Each cluster: its title, members (number, modules, title) and reason, for reading the groupings by eye before
and after a change of the analysis (issue 45). Weeks are Monday–Sunday in the repository's zone (verl UTC+8,
cargo and trl UTC). A year line times `clusters_of` alone on
the year's scored PRs (best of 3); `verl:last` is the 365 days up to the export's last merge.
"""
from __future__ import annotations

import argparse
import time
from datetime import date, datetime, timedelta

from prhub.core.config import RepoConfig
from prhub.core.models import ScoredPR
from prhub.core.period import Period
from prhub.engine.analysis import _known
from prhub.engine.clusters import clusters_of
from prhub.engine.reverts import revert_chains
from prhub.engine.scoring import score_pull

from bench.calibrate import SHARED, load

REPOS = {"verl": ("verl-project/verl", "Asia/Shanghai"), "cargo": ("rust-lang/cargo", "UTC"),
         "trl": ("huggingface/trl", "UTC")}
DEFAULT_WEEKS = ["verl:2026-05-04", "verl:2026-06-15", "cargo:2026-06-08"]


def _config(repo_key: str) -> RepoConfig:
    repo, tz = REPOS[repo_key]
    return RepoConfig(repo=repo, tz=tz, language="en")


def _scored(repo_key: str, start: datetime, end: datetime) -> list[ScoredPR]:
    config = _config(repo_key)
    prs = load(SHARED / config.repo.replace("/", "-") / "pulls.jsonl")
    return [score_pull(p, config) for p in prs if start <= p.merged_at < end]


def show_week(spec: str) -> None:
    key, monday = spec.split(":")
    period = Period(date.fromisoformat(monday), date.fromisoformat(monday) + timedelta(days=6), REPOS[key][1])
    prs = _scored(key, period.start_utc, period.end_utc)
    by_number = {p.number: p for p in prs}
    reverts = revert_chains(prs, _known(prs, []))
    clusters = clusters_of(prs, reverts, _config(key))
    print(f"== {spec} ({len(prs)} PRs, {len(clusters)} clusters)")
    for c in clusters:
        print(f"  {c['title']}  [{c['reason']}]")
        for n in c["prs"]:
            p = by_number[n]
            print(f"    #{n} {','.join(p.modules)} | {p.title[:90]}")


def time_year(spec: str) -> None:
    """`verl:2026` a calendar year, `verl:last` the 365 days up to the export's last merge."""
    key, year = spec.split(":")
    if year == "last":
        end = load(SHARED / _config(key).repo.replace("/", "-") / "pulls.jsonl")[-1].merged_at + timedelta(seconds=1)
        start = end - timedelta(days=365)
    else:
        period = Period(date(int(year), 1, 1), date(int(year), 12, 31), REPOS[key][1])
        start, end = period.start_utc, period.end_utc
    prs = _scored(key, start, end)
    reverts = revert_chains(prs, _known(prs, []))
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        clusters = clusters_of(prs, reverts, _config(key))
        best = min(best, time.perf_counter() - started)
    print(f"== year {spec}: {len(prs)} PRs, {len(clusters)} clusters, clusters_of best of 3: {best:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weeks", nargs="*", default=DEFAULT_WEEKS)
    parser.add_argument("--year", nargs="*", default=["verl:2026", "verl:last"])
    args = parser.parse_args()
    for spec in args.weeks:
        show_week(spec)
    for spec in args.year:
        time_year(spec)


if __name__ == "__main__":
    main()
