"""How the report function's time and memory grow with the number of PRs.

For each size, a fresh interpreter does what ReportFunction does after loading the
run's results (flow.publish.publish_run): compose.draft (the analysis, title and notes), the narrative
(narrator.model_narrative, the engine's text without a model), then each rendering on its own
(report.json, report.md, index.html, report.pdf). The scored PRs come from the
synthetic generator scored by the engine, prepared once per size and cached under
.prhub/bench-cache. Reported per stage: wall seconds and tracemalloc peak (a second
pass, since tracing slows code down; sizes up to 1,000); per size: the process's peak RSS, which is what
counts against a 1,024 MB Lambda. Growth is given as the exponent k of t ~ n^k between
the two largest sizes (1 is linear); k > 1.3 is flagged.

    python -m bench.report_scaling [--sizes 100,1000,3000,10000]
"""
from __future__ import annotations

import argparse
import gc
import gzip
import json
import math
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from bench import synthetic

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".prhub" / "bench-cache"
SIZES = (100, 1000, 3000, 10_000)
LAMBDA_MB = 1024
SINCE = date(2026, 1, 5)
DAYS = 28
TZ = "Asia/Shanghai"
STAGES = ("analysis", "narrative", "json", "markdown", "html", "pdf")
FLAG_EXPONENT = 1.3


def prepare(n: int, seed: int = 11) -> Path:
    """Scored PRs (engine) and the history before them, as the report function loads them; cached."""
    from prhub.core.config import RepoConfig
    from prhub.core.models import PullRequest
    from prhub.engine.scoring import ENGINE_VERSION, score_pull

    # Keyed by what produced it: a changed engine or generator must not reuse stale scores.
    path = CACHE / f"report-input-{n}-{seed}-{ENGINE_VERSION}-g{synthetic.VERSION}.json.gz"
    if path.exists():
        return path
    config = RepoConfig(synthetic.REPO, tz=TZ, scorer="heuristic")
    scored = [score_pull(PullRequest.from_export(row), config).to_dict()
              for row in synthetic.generate(n, seed=seed, since=SINCE, days=DAYS, first_number=100_000)]
    # Four earlier weeks at the same pace, with numbers below this period's: trends and revert chains need them.
    earlier = date.fromordinal(SINCE.toordinal() - 28)
    history = []
    for row in synthetic.generate(n, seed=seed + 1, since=earlier, days=28, first_number=1000):
        entry = score_pull(PullRequest.from_export(row), config)
        history.append({"number": entry.number, "title": entry.title, "author": entry.author,
                        "merged_at": entry.merged_at, "url": entry.url, "modules": entry.modules})
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(gzip.compress(json.dumps({"scored": scored, "history": history}).encode()))
    tmp.rename(path)
    return path


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stages(path: Path) -> list[tuple[str, Callable[[], Any]]]:
    """The report function's steps after loading results, as callables sharing one report."""
    from prhub.core.config import RepoConfig
    from prhub.core.history import History
    from prhub.core.models import ScoredPR
    from prhub.core.period import Period
    from prhub.model import narrator
    from prhub.report import compose
    from prhub.site.render.html import render_html
    from prhub.site.render.markdown import render_markdown
    from prhub.site.render.pdf import render_pdf

    data = json.loads(gzip.decompress(path.read_bytes()))
    scored = [ScoredPR.from_dict(d) for d in data["scored"]]
    history = data["history"]
    config = RepoConfig(synthetic.REPO, tz=TZ, scorer="heuristic")
    period = Period.parse(SINCE.isoformat(), date.fromordinal(SINCE.toordinal() + DAYS - 1).isoformat(), TZ)
    scorer = {"kind": "heuristic", "model": None, "prompt_version": "bench"}
    state: dict[str, Any] = {}

    def build() -> None:
        state["draft"] = compose.draft(scored, [], period, config, History.of(history, period),
                                       "2026-02-02T00:00:00Z", scorer)

    def narrate() -> None:
        state["report"] = {**state["draft"], **narrator.model_narrative(state["draft"], config)}

    return [
        ("analysis", build),
        ("narrative", narrate),
        ("json", lambda: json.dumps(state["report"], ensure_ascii=False, indent=2).encode()),
        ("markdown", lambda: render_markdown(state["report"]).encode()),
        ("html", lambda: render_html(state["report"]).encode()),
        ("pdf", lambda: render_pdf(state["report"])),
    ]


TRACE_MAX = 1000  # tracing slows a 10,000-PR analysis down several-fold: larger sizes report peak RSS only


def child(path: Path, trace: bool) -> dict[str, Any]:
    """Run in a fresh process: time each stage, then (small sizes) trace each stage's allocations in a second pass."""
    base = _rss_mb()
    steps = stages(path)
    loaded = _rss_mb()
    seconds: dict[str, float] = {}
    sizes: dict[str, int] = {}
    for name, step in steps:
        started = time.perf_counter()
        out = step()
        seconds[name] = time.perf_counter() - started
        if isinstance(out, bytes):
            sizes[name] = len(out)
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    traced: dict[str, float] = {}
    for name, step in steps if trace else []:
        gc.collect()
        tracemalloc.start()
        step()
        traced[name] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return {"seconds": seconds, "traced_peak_mb": traced, "output_bytes": sizes, "rss_start_mb": round(base, 1),
            "rss_loaded_mb": round(loaded, 1), "peak_rss_mb": round(peak_rss, 1)}


def measure(n: int) -> dict[str, Any]:
    path = prepare(n)
    trace = ["--trace"] if n <= TRACE_MAX else []
    proc = subprocess.run([sys.executable, "-m", "bench.report_scaling", "--child", str(path), *trace], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return {"n": n, "error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return {"n": n, **json.loads(proc.stdout.strip().splitlines()[-1])}


def exponent(small: dict[str, Any], large: dict[str, Any], stage: str) -> float | None:
    a, b = small["seconds"][stage], large["seconds"][stage]
    if a <= 0 or b <= 0 or max(a, b) < 0.02:  # too fast to say anything about growth
        return None
    return round(math.log(b / a) / math.log(large["n"] / small["n"]), 2)


def run(sizes: tuple[int, ...] = SIZES) -> dict[str, Any]:
    results = [measure(n) for n in sizes]
    ok = [r for r in results if "error" not in r]
    rows = []
    for r in results:
        if "error" in r:
            rows.append([f"report n={r['n']}", "n/a", r["error"]])
            continue
        total = sum(r["seconds"].values())
        traced = r["traced_peak_mb"]
        per = ", ".join(f"{s} {r['seconds'][s]:.2f}s" + (f"/{traced[s]:.0f}MB" if s in traced else "") for s in STAGES)
        rows.append([f"report n={r['n']:,} (time, peak RSS)", f"{total:.2f} s",
                     f"{r['peak_rss_mb']:.0f} MB of {LAMBDA_MB} MB; {per}"])
    growth: dict[str, float | None] = {}
    if len(ok) >= 2:
        small, large = ok[-2], ok[-1]
        growth = {s: exponent(small, large, s) for s in STAGES}
        flagged = [s for s, k in growth.items() if k is not None and k > FLAG_EXPONENT]
        shown = ", ".join(f"{s} {k}" if k is not None else f"{s} -" for s, k in growth.items())
        rows.append([f"report growth n={small['n']:,}->{large['n']:,} (k in t~n^k)",
                     "FLAG" if flagged else "linear", shown + (f"; super-linear: {', '.join(flagged)}" if flagged
                                                                else "")])
        rows.append(["report peak RSS at largest n", f"{large['peak_rss_mb']:.0f} MB",
                     "fits a 1,024 MB Lambda" if large["peak_rss_mb"] < LAMBDA_MB else "EXCEEDS a 1,024 MB Lambda"])
    return {"sizes": results, "growth_exponent": growth, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child), args.trace)))
        return
    for name, value, note in run(tuple(int(s) for s in args.sizes.split(",")))["rows"]:
        print(f"{name:<44} {value:>9}  {note}")


if __name__ == "__main__":
    main()
