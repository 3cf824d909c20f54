"""`make bench`: run every benchmark, print one table, write bench/results.json.

    python -m bench                      everything (under 10 minutes on 2 idle cores)
    python -m bench --only coldstart,layer_size
    python -m bench --quick              smaller sizes, for a smoke run

Each benchmark module has `run(...) -> dict` whose "rows" are [measure, value, notes];
the rest of the dict is the raw figures, kept in results.json.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import textwrap
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import (
    brief,
    coldstart,
    github_requests,
    layer_size,
    llm_fanout,
    pipeline,
    pull_pages,
    render_week,
    report_scaling,
    zh_share,
    zh_text,
)

RESULTS = Path(__file__).resolve().parent / "results.json"


def benchmarks(quick: bool) -> dict[str, Callable[[], dict[str, Any]]]:
    return {
        "coldstart": coldstart.run,
        "layer_size": layer_size.run,
        "report_scaling": lambda: report_scaling.run((100, 1000) if quick else report_scaling.SIZES),
        "pipeline": lambda: pipeline.run(quick=quick),
        "llm_fanout": lambda: llm_fanout.run(4, ("week",) if quick else tuple(llm_fanout.CASES)),
        "github_requests": github_requests.run,
        "render_week": render_week.run,
        "zh_share": zh_share.run,
        "zh_text": zh_text.run,
        "brief": brief.run,
        "pull_pages": lambda: pull_pages.run((100, 1000) if quick else pull_pages.SIZES),
    }


def machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine()}


def print_table(rows: list[list[str]]) -> None:
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    note_width = 118 - width - value_width
    print(f"{'measure':<{width}}  {'value':>{value_width}}  notes")
    print("-" * (width + value_width + 4 + note_width))
    for name, value, note in rows:
        lines = textwrap.wrap(note, note_width) or [""]
        print(f"{name:<{width}}  {value:>{value_width}}  {lines[0]}")
        for more in lines[1:]:
            print(f"{'':<{width}}  {'':>{value_width}}  {more}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated: " + ", ".join(benchmarks(False)))
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    chosen = benchmarks(args.quick)
    if args.only:
        names = [n.strip() for n in args.only.split(",")]
        unknown = [n for n in names if n not in chosen]
        if unknown:
            parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
        chosen = {n: chosen[n] for n in names}
    started = time.perf_counter()
    results: dict[str, Any] = {}
    rows: list[list[str]] = []
    for name, bench in chosen.items():
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            # Powertools prints metrics (EMF) to stdout in local runs: keep stdout for the table.
            with contextlib.redirect_stdout(sys.stderr):
                result = bench()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            message = f"{type(exc).__name__}: {exc}"
            result = {"error": message, "rows": [[name, "error", message]]}
        result["elapsed_s"] = round(time.perf_counter() - t0, 1)
        results[name] = result
        rows.extend(result["rows"])
    total = time.perf_counter() - started
    rows.append(["make bench total", f"{total:.0f} s", f"{machine()['cpus']} CPUs, Python {machine()['python']}"])
    print_table(rows)
    document = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine(),
                "quick": args.quick, "total_s": round(total, 1), "results": results}
    out = Path(args.out)
    if args.only and out.exists():
        # A partial run refreshes its own entries and keeps the other benchmarks' last figures.
        previous = json.loads(out.read_text())
        document = {**previous, "results": {**previous.get("results", {}), **results},
                    "partial_update": {"at": document["generated_at"], "only": list(chosen)}}
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")
    tmp.replace(out)
    print(f"\nwritten {out}", file=sys.stderr)
    return 1 if any("error" in r for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
