"""The local pipeline end to end (prhub_local.runner.run_pipeline: moto + the real handlers), measured.

Cases, each in a fresh interpreter so its peak RSS is its own (the embedded moto server included), engine scorer,
PR pages and every rendering included:

- week: verl's week 2026-05-04..10 (Asia/Shanghai, 34 PRs) through `prhub run`'s runner on a fresh state;
- week-memory: the same work in one process on the in-memory adapters (tests/fakes/memory.py: plan -> score ->
  report -> PR pages), the floor the runner is compared with (issue 25: at most 2x);
- year: 2025-08-23..2026-08-22 (1,649 PRs) on a fresh state (target: at most 15x the week's time, 800 MB);
- year-after-weeks: the same year on a state where its weeks already ran (untimed, on that state first), so
  every score and PR page is reused (target: at most 3x the week's time); `--year-again` times the year on a
  state where the year itself ran instead (the same reuse, without the weeks' ten minutes);
- month-N: N synthetic PRs over four weeks (bench/synthetic.py; 5,000 for issue 24's month): its peak RSS (1.5 GB);
- week-deployed: the week run again on its own state in the deployed stack's shape: the scorer auto (not
  heuristic) and the model key's secret named as template.yaml names it (LLM_API_KEY_SECRET, no OPENAI_API_KEY;
  the embedded Secrets Manager holds no such secret, as a stack without a model): the plan must still store every
  cached result (issue 46, item 11), so no score batch runs.

Per case: wall time (the runner's, from the embedded AWS's start to the site copied and the state saved), the
handler stages from the runner's `invoke` hook and the renderers, and the process's peak RSS. The ratios are taken
within one run of this benchmark, so a busy machine slows both sides of each. A reuse case's state takes minutes
to make, and this host's speed drifts over minutes (the same week took 2.9 s and 4.0 s ten minutes apart), so the
week is timed again just before and just after the reuse case, and its ratio is given against their mean too.

    python -m bench.pipeline [--quick] [--only week,year,week-deployed,...] [--month 5000] [--year-again]
"""
from __future__ import annotations

import argparse
import json
import os
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


YEAR = {"repo": "verl-project/verl", "since": "2025-08-23", "until": "2026-08-22", "tz": "Asia/Shanghai"}
MONTH_N = 5000
MONTH = {"since": "2026-01-05", "until": "2026-02-01", "tz": "Asia/Shanghai"}  # synthetic's 28 days
TARGETS = {"week_ratio": 2.0, "week_mb": 400, "year_ratio": 15.0, "year_mb": 800, "year_again_ratio": 3.0,
           "month_mb": 1536}


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _status_kb(pid: int | str, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from /proc: no psutil here)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


class ChildMemory(threading.Thread):
    """Samples the PR-page renderers' memory (prhub_local/render_pool) while a case runs.

    Not RUSAGE_CHILDREN: Linux counts in a child's ru_maxrss the parent's RSS at the fork before its exec, so a
    spawned renderer "peaked" at whatever the run's process held when it started the pool (246 MB, against 94 MB
    the renderer itself held). Here each child's own high-water mark (VmHWM, since its exec) is read every
    `every` s (it only grows: the last reading before it exits is its peak within one interval), and the run's
    process and its children together (VmRSS summed at each reading): what the machine holds at once."""

    def __init__(self, every: float = 0.5) -> None:
        super().__init__(daemon=True, name="child-memory")
        self.every, self.stopped = every, threading.Event()
        self.renderer_kb = self.total_kb = 0

    def run(self) -> None:
        me = os.getpid()
        while not self.stopped.wait(self.every):
            kids = _children(me)
            self.renderer_kb = max([self.renderer_kb, *(_status_kb(k, "VmHWM") for k in kids)])
            self.total_kb = max(self.total_kb, _status_kb(me, "VmRSS") + sum(_status_kb(k, "VmRSS") for k in kids))

    def stop(self) -> dict[str, float]:
        self.stopped.set()
        self.join()
        return {"renderer_peak_rss_mb": round(self.renderer_kb / 1024, 1),
                "total_peak_rss_mb": round(self.total_kb / 1024, 1)}


def _weeks(since: str, until: str) -> list[tuple[str, str]]:
    """The Monday-Sunday weeks a range covers, cut to it (its first and last may be short)."""
    from datetime import date, timedelta

    first, last = date.fromisoformat(since), date.fromisoformat(until)
    out, day = [], first
    while day <= last:
        end = min(last, day + timedelta(days=6 - day.weekday()))
        out.append((day.isoformat(), end.isoformat()))
        day = end + timedelta(days=1)
    return out


def _run(recorder: Recorder, args: dict[str, Any], tmp: Path, state: Path, **extra: Any) -> dict[str, Any]:
    from prhub_local.runner import run_pipeline

    started = time.perf_counter()
    result = run_pipeline(**args, out=tmp / "site", state=state, invoke=recorder.invoke, progress=lambda _msg: None,
                          **extra)
    wall = time.perf_counter() - started
    report = result.report
    return {"prs": len(report["prs"]) + len(report["unscored"]), "scored": len(report["prs"]),
            "unscored": len(report["unscored"]), "wall_s": round(wall, 2),
            "pipeline_s": round(result.timings.get("pipeline_s", 0), 2),
            "setup_s": round(result.timings.get("setup_s", 0), 2),
            "output_bytes": {name: p.stat().st_size for name, p in result.paths.items()}}


def _args(kind: str, tmp: Path, spec: dict[str, Any]) -> dict[str, Any]:
    # The deployed shape leaves the scorer to the watch list (auto), which the model key's secret then decides.
    args: dict[str, Any] = {"workers": WORKERS} if kind == "week-deployed" else {"scorer": "heuristic",
                                                                                "workers": WORKERS}
    if kind in ("week", "week-deployed", "year", "year-after-weeks", "year-again"):
        args.update(VERL_WEEK if kind.startswith("week") else YEAR, source=f"jsonl:{DATA}")
    else:  # month
        path = synthetic.write_jsonl(tmp / "synthetic.jsonl", spec["n"], days=28)
        args.update(MONTH, repo=synthetic.REPO, source=f"jsonl:{path}")
    return args


def case_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one case in this (fresh) process."""
    kind = spec["kind"]
    if kind == "week-memory":
        return {"case": spec["name"], **in_memory(VERL_WEEK), "peak_rss_mb": _peak_mb()}
    recorder = Recorder()
    with ExitStack() as stack:
        tmp = Path(spec["tmp"]) if "tmp" in spec else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        state = tmp / "state"
        args = _args(spec.get("for", kind), tmp, spec)
        if kind == "prepare":  # the state a reuse case runs on, untimed, in a process of its own (run_case)
            t, periods = time.perf_counter(), _before(spec["for"])
            for since, until in periods:
                _run(Recorder(), {**args, "since": since, "until": until}, tmp, state)
            return {"runs_before": len(periods), "before_s": round(time.perf_counter() - t, 1)}
        if kind == "week-deployed":  # the functions' environment as template.yaml gives it, then the week once
            os.environ.pop("OPENAI_API_KEY", None)
            os.environ["LLM_API_KEY_SECRET"] = deployed_key_secret()
            _run(Recorder(), args, tmp, state)
        stack.enter_context(instrumented(recorder))
        children = ChildMemory()
        children.start()
        out = _run(recorder, args, tmp, state)
        return {"case": spec["name"], **out, "stages": recorder.summary(), "peak_rss_mb": _peak_mb(),
                **children.stop()}


def deployed_key_secret() -> str:
    """The model key secret's name template.yaml gives the functions (LlmApiKeySecretName's default)."""
    from prhub_local.template import load_template

    return str(load_template(ROOT / "template.yaml")["Parameters"]["LlmApiKeySecretName"]["Default"])


def _before(kind: str) -> list[tuple[str, str]]:
    """The periods run on a reuse case's state before it: the year's weeks (or the year itself), as a person
    running them would."""
    return _weeks(YEAR["since"], YEAR["until"]) if kind == "year-after-weeks" else [(YEAR["since"], YEAR["until"])]


def in_memory(period: dict[str, str]) -> dict[str, Any]:
    """The week's plan -> score -> report -> PR pages in this process on tests/fakes/memory.py's adapters, with the
    watch list the local runner uses: the work `prhub run` does, without moto, threads or queues' polling."""
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
    from prhub.core.config import WatchList
    from prhub.flow.messages import PagesMessage, ReportMessage
    from prhub.flow.pages import pages_message
    from prhub.flow.plan import plan
    from prhub.flow.publish import report_message
    from prhub.flow.score import score_record

    from prhub_local.runner import LambdaContext
    from prhub_local.sample import local_watchlist
    from prhub_local.template import load_template
    from tests.fakes.memory import SETTINGS, memory_stack

    started = time.perf_counter()
    stack = memory_stack(WatchList.parse(local_watchlist(load_template(ROOT / "template.yaml"), None)))
    runs = plan({**period, "source": f"jsonl:{DATA}", "scorer": "heuristic"}, stack.deps)
    steps = {"score": 0, "report": 0, "pages": 0}
    while True:
        score, report = stack.queue.take(SETTINGS.score_queue_url), stack.queue.take(SETTINGS.report_queue_url)
        pages = stack.queue.take(SETTINGS.pages_queue_url)
        if not (score or report or pages):
            break
        for m in score:
            score_record(SQSRecord({"messageId": m.id, "receiptHandle": m.id, "body": json.dumps(m.body),
                                    "attributes": {"ApproximateReceiveCount": str(m.receives)},
                                    "messageAttributes": {}, "eventSource": "aws:sqs"}), stack.deps)
        for m in report:
            report_message(ReportMessage.of(m.body), stack.deps.invoked(LambdaContext("ReportFunction")))
        for m in pages:
            pages_message(PagesMessage.of(m.body), stack.deps)
        steps.update(score=steps["score"] + len(score), report=steps["report"] + len(report),
                     pages=steps["pages"] + sum(len(m.body["numbers"]) for m in pages))
    wall = time.perf_counter() - started
    [run] = runs
    reported = stack.store.runs[str(run["run_id"])]
    return {"prs": int(run["expected"]), "wall_s": round(wall, 2), "steps": steps, "status": reported.status}


def child_env() -> dict[str, str]:
    """The cases' environment, with compiled bytecode kept as an installed package keeps it: under
    PYTHONDONTWRITEBYTECODE (set on this machine) every case compiled moto, botocore and prhub from source again,
    seconds that `prhub run` (importing moto) paid and the in-memory floor mostly did not. The bytecode goes to a
    cache of its own (PYTHONPYCACHEPREFIX), never beside the sources; `warm_up` fills it before the first case."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) and "PYTHONPYCACHEPREFIX" not in env:
        env["PYTHONPYCACHEPREFIX"] = str(CACHE / "pycache")
    return env


def warm_up() -> None:
    """The week once, untimed, so the first timed case finds the bytecode and the OS's file cache warm."""
    if DATA.exists():
        run_case({"name": "warm-up", "kind": "week"})


def run_case(spec: dict[str, Any]) -> dict[str, Any]:
    """One case in a fresh interpreter. A reuse case's state is made by another one first: made in the timed
    case's process, the 53 weeks' runs left it at 1.7 GB before the year began (its figure, not the year's)."""
    if spec["kind"] not in ("year-after-weeks", "year-again"):
        return _child(spec)
    with tempfile.TemporaryDirectory() as tmp:
        before = _child({"name": spec["name"], "kind": "prepare", "for": spec["kind"], "tmp": tmp})
        if "error" in before:
            return {"case": spec["name"], "error": f"making its state: {before['error']}"}
        beside = [_child({"name": "week", "kind": "week"})]  # the week again, timed beside the case (see above)
        timed = _child({**spec, "tmp": tmp})
        beside.append(_child({"name": "week", "kind": "week"}))
        return {**timed, **before, "weeks_beside_s": [w["wall_s"] for w in beside if "error" not in w]}


def _child(spec: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "bench.pipeline", "--child", json.dumps(spec)], cwd=ROOT,
                          capture_output=True, text=True, timeout=7200, env=child_env())
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return {"case": spec["name"], "error": lines[-1] if lines else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _stage_note(r: dict[str, Any]) -> str:
    st = r.get("stages") or {}

    def s(name: str, key: str = "busy_s") -> str:
        return f"{st[name][key]:.2f}s" if name in st else "-"

    return (f"plan {s('PlanFunction')}, score {s('ScoreFunction', 'span_s')} "
            f"({st.get('ScoreFunction', {}).get('calls', 0)} batches), report {s('ReportFunction')} "
            f"[pdf {s('render.pdf')}], pages {s('PagesFunction', 'span_s')} "
            f"({st.get('PagesFunction', {}).get('items', 0)} messages); setup {r.get('setup_s', 0):.1f}s; "
            f"peak RSS {r['peak_rss_mb']:.0f} MB (each page renderer at most {r.get('renderer_peak_rss_mb', 0):.0f} MB,"
            f" all together at most {r.get('total_peak_rss_mb', 0):.0f} MB)")


CASES = ("week", "week-memory", "year", "year-after-weeks", "month", "week-deployed")


def specs(only: tuple[str, ...] = CASES, month: int = MONTH_N, year_again: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind in only:
        if kind == "month":
            out.append({"name": f"month-{month}", "kind": "month", "n": month})
        elif DATA.exists():
            name = "year-again" if kind == "year-after-weeks" and year_again else kind
            out.append({"name": name, "kind": name})
    return out


def _ratio(a: dict[str, Any] | None, b: dict[str, Any] | None) -> float | None:
    if not a or not b or "error" in a or "error" in b or not b.get("wall_s"):
        return None
    return round(float(a["wall_s"]) / float(b["wall_s"]), 2)


def rows(results: list[dict[str, Any]]) -> list[list[str]]:
    by = {r["case"]: r for r in results}
    week = by.get("week")
    out = []
    for r in results:
        if "error" in r:
            out.append([f"pipeline {r['case']}", "n/a", r["error"]])
            continue
        name = f"pipeline {r['case']} ({r['prs']:,} PRs)"
        if r["case"] == "week-memory":
            out.append([name, f"{r['wall_s']:.1f} s", f"one process, in-memory adapters ({r['steps']['pages']} "
                        f"pages); peak RSS {r['peak_rss_mb']:.0f} MB"])
            continue
        note = _stage_note(r)
        if r["case"] == "week-deployed":
            batches = (r.get("stages") or {}).get("ScoreFunction", {})
            stored = r["prs"] - batches.get("items", 0)
            note = (f"run again, the model key's secret named (auto scorer): the plan stored {stored} of "
                    f"{r['prs']} PRs, {batches.get('calls', 0)} score batches" + ("" if stored == r["prs"] else
                                                                                    ": MISSED") + "; " + note)
        if "runs_before" in r:
            note = f"after {r['runs_before']} runs on its state ({r['before_s']:.0f} s, untimed); " + note
        out.append([name, f"{r['wall_s']:.1f} s", note])
    t = TARGETS
    for label, a, b, target in (("week / week in memory", week, by.get("week-memory"), t["week_ratio"]),
                                ("year fresh / week", by.get("year"), week, t["year_ratio"]),
                                ("year after its weeks / week", by.get("year-after-weeks"), week,
                                 t["year_again_ratio"]),
                                ("year again / week", by.get("year-again"), week, t["year_again_ratio"])):
        ratio = _ratio(a, b)
        if ratio is not None:
            out.append([f"ratio {label}", f"{ratio:.2f}x", f"target at most {target:g}x"
                        + ("" if ratio <= target else ": MISSED")])
        if ratio is not None and a and (beside := a.get("weeks_beside_s")):
            mean = sum(beside) / len(beside)
            near = round(float(a["wall_s"]) / mean, 2)
            out.append([f"ratio {label} timed beside it", f"{near:.2f}x",
                        f"weeks just before and after: {', '.join(f'{w:.2f} s' for w in beside)}; target at most "
                        f"{target:g}x" + ("" if near <= target else ": MISSED")])
    for case, key in (("week", "week_mb"), ("year", "year_mb")):
        if case in by and "error" not in by[case]:
            for label, mb in (("", by[case]["peak_rss_mb"]), (" with renderers", by[case].get("total_peak_rss_mb", 0))):
                out.append([f"peak RSS {case}{label}", f"{mb:.0f} MB", f"target at most {t[key]} MB"
                            + ("" if mb <= t[key] else ": MISSED")])
    for r in results:
        if r["case"].startswith("month-") and "error" not in r:
            for label, mb in (("", r["peak_rss_mb"]), (" with renderers", r.get("total_peak_rss_mb", 0))):
                out.append([f"peak RSS {r['case']}{label}", f"{mb:.0f} MB", f"target at most {t['month_mb']} MB"
                            + ("" if mb <= t["month_mb"] else ": MISSED")])
    if not DATA.exists():
        out.append(["pipeline verl cases", "skipped", f"{DATA} is absent"])
    return out


def run(quick: bool = False, synthetic_n: int | None = None, only: tuple[str, ...] | None = None,
        year_again: bool = False) -> dict[str, Any]:
    """`make bench`'s entry: the week, its in-memory floor and a synthetic month (`quick`: 300 PRs, else
    SYNTHETIC_N); the year and the 5,000-PR month take too long for its budget (`python -m bench.pipeline`)."""
    chosen = only or ("week", "week-memory", "month")
    warm_up()
    results = [run_case(spec) for spec in specs(chosen, synthetic_n or (300 if quick else SYNTHETIC_N), year_again)]
    return {"cases": results, "rows": rows(results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--child")
    parser.add_argument("--quick", action="store_true", help="the week, its floor and a 300-PR month")
    parser.add_argument("--only", help=f"cases, comma-separated, of {','.join(CASES)}")
    parser.add_argument("--month", type=int, default=MONTH_N, metavar="N", help=f"synthetic PRs (default {MONTH_N})")
    parser.add_argument("--year-again", action="store_true",
                        help="time the year on a state where the year ran, instead of its 53 weeks")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(case_child(json.loads(args.child))))
        return
    only = tuple(args.only.split(",")) if args.only else (("week", "week-memory", "month") if args.quick else CASES)
    warm_up()
    results = []
    for spec in specs(only, 300 if args.quick else args.month, args.year_again):
        results.append(run_case(spec))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    for name, value, note in rows(results):
        print(f"{name:<44} {value:>9}  {note}")
    if args.json:
        Path(args.json).write_text(json.dumps({"cases": results, "rows": rows(results)}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
