"""The local pipeline end to end (prhub_local.runner.run_pipeline: moto + the real handlers), measured.

Cases, each in a fresh interpreter so its peak RSS is its own (the embedded moto
server included), engine scorer:

- verl-week: verl's week 2026-05-04..10 (Asia/Shanghai) from the shared export;
- synthetic-N: N synthetic PRs over four weeks (the scale case; see SIZES for why N stops where it does).

Per case: wall time of each stage, taken from the handler invocations (the local runner's
`invoke` hook) and from the renderers, and the process's peak RSS. The model fan-out
(bench.llm_fanout) and GitHub requests per PR (bench.github_requests) are their own benchmarks.

    python -m bench.pipeline [--quick]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench import synthetic

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
CACHE = ROOT / ".prhub" / "bench-cache"
VERL_WEEK = {"repo": "verl-project/verl", "since": "2026-05-04", "until": "2026-05-10", "tz": "Asia/Shanghai"}
WORKERS = 4
# `make bench` keeps to a busy month's size to stay inside its 10-minute budget; the 10,000-PR range takes about
# ten minutes on its own on 2 cores (`python -m bench.pipeline --synthetic 10000`, docs/performance.md).
SYNTHETIC_N = 500


class Recorder:
    """Timestamps of every handler invocation and of the instrumented functions, thread-safe."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float, int]] = []
        self.lock = threading.Lock()

    def add(self, name: str, start: float, end: float, items: int = 0) -> None:
        with self.lock:
            self.spans.append((name, start, end, items))

    def invoke(self, name: str, handler: Callable[[Any, Any], Any], event: Any, context: Any) -> Any:
        """The local runner's hook: time each handler call."""
        start = time.perf_counter()
        try:
            return handler(event, context)
        finally:
            records = len(event.get("Records", [])) if isinstance(event, dict) else 0
            self.add(name, start, time.perf_counter(), records)

    def wrap(self, module: Any, attr: str, name: str) -> Callable[[], None]:
        original = getattr(module, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.add(name, start, time.perf_counter())

        setattr(module, attr, timed)
        return lambda: setattr(module, attr, original)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        names = sorted({s[0] for s in self.spans})
        for name in names:
            spans = [s for s in self.spans if s[0] == name]
            out[name] = {"calls": len(spans), "busy_s": round(sum(e - b for _, b, e, _ in spans), 3),
                         "span_s": round(max(e for _, _, e, _ in spans) - min(b for _, b, _, _ in spans), 3),
                         "items": sum(n for *_, n in spans)}
        return out


@contextmanager
def instrumented(recorder: Recorder) -> Iterator[None]:
    """Time the report function's steps where flow and render_all look them up (module attributes)."""
    from prhub.engine import analysis
    from prhub.model import narrator
    from prhub.site.render import html, markdown, pdf

    undo = [recorder.wrap(analysis, "analyse_period", "analysis"),
            recorder.wrap(narrator, "model_narrative", "narrative"),
            recorder.wrap(markdown, "render_markdown", "render.md"), recorder.wrap(html, "render_html", "render.html"),
            recorder.wrap(pdf, "render_pdf", "render.pdf")]
    try:
        yield
    finally:
        for restore in undo:
            restore()


def case_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one case in this (fresh) process."""
    from prhub_local.runner import run_pipeline

    recorder = Recorder()
    kind = spec["kind"]
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        args: dict[str, Any] = {"scorer": "heuristic", "workers": WORKERS}
        if kind == "verl-week":
            args.update(VERL_WEEK, source=f"jsonl:{DATA}")
        elif kind == "synthetic":
            path = synthetic.write_jsonl(Path(tmp) / "synthetic.jsonl", spec["n"], days=28)
            args.update(repo=synthetic.REPO, since="2026-01-05", until="2026-02-01", tz="Asia/Shanghai",
                        source=f"jsonl:{path}")
        stack.enter_context(instrumented(recorder))
        started = time.perf_counter()
        result = run_pipeline(**args, out=Path(tmp) / "site", state=Path(tmp) / "state", invoke=recorder.invoke,
                              progress=lambda _msg: None, timeout=1800)
        wall = time.perf_counter() - started
        report = result.report
        prs = len(report["prs"]) + len(report["unscored"])
        stages = recorder.summary()
        out: dict[str, Any] = {
            "case": spec["name"], "prs": prs, "scored": len(report["prs"]), "unscored": len(report["unscored"]),
            "wall_s": round(wall, 2), "pipeline_s": round(result.timings.get("pipeline_s", 0), 2),
            "setup_s": round(result.timings.get("setup_s", 0), 2), "stages": stages,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "output_bytes": {name: p.stat().st_size for name, p in result.paths.items()},
            "scorer": report.get("scorer", {}),
        }
        return out


def run_case(spec: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "bench.pipeline", "--child", json.dumps(spec)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return {"case": spec["name"], "error": lines[-1] if lines else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _stage_note(r: dict[str, Any]) -> str:
    st = r["stages"]

    def s(name: str, key: str = "busy_s") -> str:
        return f"{st[name][key]:.2f}s" if name in st else "-"

    return (f"plan {s('PlanFunction')}, score {s('ScoreFunction', 'span_s')} "
            f"({st.get('ScoreFunction', {}).get('calls', 0)} batches), report {s('ReportFunction')} "
            f"[analysis {s('analysis')}, narrative {s('narrative')}, md {s('render.md')}, html {s('render.html')}, "
            f"pdf {s('render.pdf')}]; setup {r['setup_s']:.1f}s; peak RSS {r['peak_rss_mb']:.0f} MB")


def run(quick: bool = False, synthetic_n: int | None = None) -> dict[str, Any]:
    specs: list[dict[str, Any]] = []
    if DATA.exists():
        specs.append({"name": "verl-week", "kind": "verl-week"})
    n = synthetic_n or (300 if quick else SYNTHETIC_N)
    specs.append({"name": f"synthetic-{n}", "kind": "synthetic", "n": n})
    results = [run_case(spec) for spec in specs]
    rows = []
    for r in results:
        if "error" in r:
            rows.append([f"pipeline {r['case']}", "n/a", r["error"]])
            continue
        rows.append([f"pipeline {r['case']} ({r['prs']:,} PRs)", f"{r['pipeline_s']:.1f} s", _stage_note(r)])
    skipped = [] if DATA.exists() else [["pipeline verl-week", "skipped", f"{DATA} is absent"]]
    return {"cases": results, "rows": rows + skipped}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--synthetic", type=int, metavar="N", help=f"synthetic PRs (default {SYNTHETIC_N})")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(case_child(json.loads(args.child))))
        return
    for name, value, note in run(args.quick, args.synthetic)["rows"]:
        print(f"{name:<44} {value:>9}  {note}")


if __name__ == "__main__":
    main()
