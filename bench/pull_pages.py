"""Publishing with per-PR pages, for 100, 1,000 and 10,000 PRs: the longest invocation and the critical path.

    python -m bench.pull_pages [--sizes 100,1000,10000] [--sample 2]

For each size, on the synthetic weeks of bench.report_scaling (engine-scored) and in-memory adapters
(tests/fakes/memory.py: no network, so the figures are compute, not S3 latency):

- the report invocation: compose the report, render its four files, publish them, fan out (pulls.json and the
  PagesQueue messages of PAGES_PER_MESSAGE PRs each);
- a PagesFunction invocation: `--sample` of those messages are handed to pages_message and timed; the others
  are not rendered, and the critical path extrapolates from the slowest sample (said in the notes);
- the critical path: report invocation + ceil(n / CONCURRENCY) pages in turn at the sampled cost per page.
  Each sampled invocation gets a Lambda-like context of PagesFunction's timeout, so a slow one hands its
  remaining pages back to the queue (counted as "requeued") instead of running past it.

Every invocation is checked against its function's timeout in template.yaml (ReportFunction 600 s,
PagesFunction 120 s).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import time
from datetime import date
from typing import Any

from bench import report_scaling, synthetic

SIZES = (100, 1000, 10_000)
CONCURRENCY = 4  # PagesQueueMapping's MaximumConcurrency in template.yaml
TIMEOUTS = {"ReportFunction": 600.0, "PagesFunction": 120.0}


class Remaining:
    """A Lambda context whose clock starts now, with `seconds` to run."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return int((self.end - time.monotonic()) * 1000)


SCORED_MAX = 1000  # engine-scored synthetic PRs prepared per size; larger sizes repeat them (see _inputs)


def _inputs(n: int) -> tuple[list[Any], list[dict[str, Any]]]:
    """n scored PRs and their history. Past SCORED_MAX the 1,000 scored PRs are repeated under new numbers
    (same files, so the file relations are denser than in a real week): scoring 10,000 PRs would take the
    whole of `make bench`'s budget, and the pages' cost does not depend on how the PRs were scored."""
    from prhub.core.models import ScoredPR

    base = min(n, SCORED_MAX)
    data = json.loads(gzip.decompress(report_scaling.prepare(base).read_bytes()))
    rows = [{**d, "number": d["number"] + k * 10 * SCORED_MAX, "url": f"{d['url']}-{k}" if k else d["url"]}
            for k in range(math.ceil(n / base)) for d in data["scored"]][:n]
    return [ScoredPR.from_dict(r) for r in rows], data["history"]


def measure(n: int, sample: int) -> dict[str, Any]:
    from prhub.core.config import RepoConfig, WatchList
    from prhub.core.history import History
    from prhub.core.period import Period
    from prhub.flow import pages
    from prhub.flow.messages import PagesMessage
    from prhub.model import narrator
    from prhub.report import compose
    from prhub.site import publish as site
    from prhub.site.render import render_all

    from tests.fakes.memory import memory_stack

    scored, history = _inputs(n)
    config = RepoConfig(synthetic.REPO, tz=report_scaling.TZ, scorer="heuristic")
    until = date.fromordinal(report_scaling.SINCE.toordinal() + report_scaling.DAYS - 1)
    period = Period.parse(report_scaling.SINCE.isoformat(), until.isoformat(), report_scaling.TZ)
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": synthetic.REPO, "language": "zh"}]})))
    scorer = {"kind": "heuristic", "model": None, "prompt_version": "bench"}

    started = time.perf_counter()
    run_history = History.of(history, period)
    report = compose.report(scored, [], period, config, run_history, "2026-02-02T00:00:00Z",
                            scorer,  # type: ignore[arg-type]
                            narrator=lambda draft: narrator.model_narrative(draft, config))
    site.publish_report(stack.bucket, report, render_all(report, "zh"), "zh")
    fan_started = time.perf_counter()  # as publish: the PR pages' pulls.json before the dashboard reads it
    pages.publish_facts(report, scored, stack.deps, run_history)
    fan_out = time.perf_counter() - fan_started
    site.rebuild_indexes(stack.bucket, synthetic.REPO, "", "zh")
    fan_started = time.perf_counter()  # as announce: the PR pages queued
    messages = pages.queue_pages(report, "zh", scored, stack.deps)
    fan_out += time.perf_counter() - fan_started
    report_invocation = time.perf_counter() - started

    queued = stack.queue.take("memory://pages")
    batches = []
    for message in queued[:sample]:
        # As in Lambda: the invocation sees its time left and hands back what it cannot finish.
        deps = stack.deps.invoked(Remaining(TIMEOUTS["PagesFunction"]))
        t = time.perf_counter()
        answer = pages.pages_message(PagesMessage.of(message.body), deps)
        batches.append({"seconds": time.perf_counter() - t, "pages": answer["pages"], "requeued": answer["requeued"]})
    slowest = max(b["seconds"] for b in batches)
    per_page = sum(b["seconds"] for b in batches) / max(1, sum(b["pages"] for b in batches))
    # Critical path: every page rendered once, CONCURRENCY at a time, at the sampled cost per page.
    waves = math.ceil(n / CONCURRENCY)
    longest = max(report_invocation, slowest)
    return {"n": n, "messages": messages, "report_invocation_s": round(report_invocation, 2),
            "fan_out_s": round(fan_out, 3), "sampled_batches": batches, "slowest_batch_s": round(slowest, 2),
            "per_page_s": round(per_page, 3),
            "critical_path_s": round(report_invocation + waves * per_page, 1),
            "longest_invocation_s": round(longest, 2),
            "sampled": min(sample, len(queued)), "within_timeouts": report_invocation < TIMEOUTS["ReportFunction"]
            and slowest < TIMEOUTS["PagesFunction"]}


def row(r: dict[str, Any]) -> list[str]:
    return [f"PR pages, {r['n']:,} PRs",
                     f"longest {r['longest_invocation_s']} s, critical path {r['critical_path_s']} s",
                     f"{r['messages']} PagesQueue messages of ≤10 pages at concurrency {CONCURRENCY}; report "
                     f"invocation {r['report_invocation_s']} s (fan-out {r['fan_out_s']} s); slowest of "
                     f"{r['sampled']} sampled invocations {r['slowest_batch_s']} s ({r['per_page_s']} s a page, "
                     f"{sum(b['requeued'] for b in r['sampled_batches'])} pages handed back), the other pages "
                     f"extrapolated from them; "
                     + ("every invocation under its timeout" if r["within_timeouts"] else "A TIMEOUT IS EXCEEDED")
                     + (f"; the {r['n']:,} PRs repeat 1,000 scored ones" if r["n"] > SCORED_MAX else "")]


def run(sizes: tuple[int, ...] = SIZES, sample: int = 2) -> dict[str, Any]:
    results = [measure(n, sample) for n in sizes]
    return {"rows": [row(r) for r in results], "sizes": results, "concurrency": CONCURRENCY, "timeouts": TIMEOUTS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--sample", type=int, default=2)
    args = parser.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        result = measure(n, args.sample)
        print(" | ".join(row(result)), flush=True)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
