"""Cold start: what importing each Lambda handler (functions/<name>/app.py) costs, against `import boto3`.

Each handler is imported in a fresh interpreter with `python -X importtime`, its
directory and layers/prhub on PYTHONPATH (as in Lambda), and the environment
template.yaml gives it (dummy values). Reported: the import time of `app` (median of
several fresh processes after one that warms the .pyc cache), its ratio to `import
boto3` measured the same way, each run paired with one of the handler's (every handler
needs boto3, so it is the floor; the ratio is of the fastest runs of each, the least
disturbed on a shared machine; the target is at most MAX_RATIO), the heaviest packages it pulls
in, and whether a library or module it must not load comes in, and through which
chain of imports (no handler loads analysis, rendering, template, model or
idempotency code at import).

    python -m bench.coldstart
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ("plan", "score", "report", "pages", "deliver")
MAX_RATIO = 1.5  # a handler's import against `import boto3` in the same run
RUNS = 7
# Libraries and modules a handler must not load at import, and the handlers they are banned from.
NOT_FOR_WORKERS = ("fpdf", "jinja2", "openai", "playwright", "moto", "prhub.engine.analysis", "prhub.site.render",
                   "prhub.model.client", "prhub.model.answers", "prhub.model.scorer", "prhub.model.narrator",
                   "prhub.engine.narrative", "aws_lambda_powertools.utilities.idempotency")
# The report function imports its analysis and rendering with its first report (the sweep rarely needs them).
RENDERING = ("fpdf", "jinja2", "prhub.site.render", "prhub.engine.analysis")
# PagesFunction renders with every message it takes: its renderers may come at import, nothing else banned may.
FORBIDDEN = {**{name: NOT_FOR_WORKERS for name in ("score", "plan", "report", "deliver")},
             "pages": tuple(m for m in NOT_FOR_WORKERS if m not in RENDERING)}
LAMBDA_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing", "POWERTOOLS_SERVICE_NAME": "prhub", "RUNS_TABLE": "runs",
    "RESULTS_TABLE": "results", "CACHE_TABLE": "cache", "IDEMPOTENCY_TABLE": "idem",
    "SCORE_QUEUE_URL": "http://127.0.0.1:1/q/score", "REPORT_QUEUE_URL": "http://127.0.0.1:1/q/report",
    "PAGES_QUEUE_URL": "http://127.0.0.1:1/q/pages",
    "SITE_BUCKET": "site",
}


@dataclass
class Node:
    name: str
    self_us: int
    cumulative_us: int
    depth: int
    children: list[Node] = field(default_factory=list)


def parse_importtime(stderr: str) -> list[Node]:
    """The import tree from `-X importtime` output (printed in post-order, two spaces per level)."""
    pending: list[Node] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        self_us, cumulative, name = line[len("import time:"):].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        node = Node(name.strip(), int(self_us), int(cumulative), depth)
        while pending and pending[-1].depth > depth:
            node.children.insert(0, pending.pop())
        pending.append(node)
    return pending


def find(node: Node, name: str) -> Node | None:
    if node.name == name:
        return node
    for child in node.children:
        hit = find(child, name)
        if hit:
            return hit
    return None


def chain_to(node: Node, prefix: str) -> list[str] | None:
    """The import chain from `node` to the first module named `prefix` or `prefix.*`."""
    if node.name == prefix or node.name.startswith(prefix + "."):
        return [node.name]
    for child in node.children:
        sub = chain_to(child, prefix)
        if sub:
            return [node.name, *sub]
    return None


def import_once(function: str, module: str = "app") -> tuple[float, list[Node]]:
    """Import `module` in a fresh interpreter set up as the handler's; (wall seconds of the process, import tree)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHON"))}, **LAMBDA_ENV,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "functions" / function), str(ROOT / "layers" / "prhub")])}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], env=env,
                          cwd=ROOT / "functions" / function, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        tail = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")][-3:]
        raise RuntimeError(" / ".join(tail) or f"exit {proc.returncode}")
    return wall, parse_importtime(proc.stderr)


def boto3_ms(function: str) -> float:
    """Milliseconds of `import boto3` in a fresh interpreter set up as the handler's."""
    _, roots = import_once(function, "boto3")
    return next(n.cumulative_us for n in roots if n.name == "boto3") / 1000


def measure(function: str, runs: int = RUNS) -> dict[str, Any]:
    """Import time of one handler and what it pulls in."""
    if not (ROOT / "functions" / function / "app.py").exists():
        return {"function": function, "error": f"functions/{function}/app.py does not exist yet"}
    try:
        import_once(function)  # writes the .pyc files, as a deployed package has them
        boto3_ms(function)
        # Each handler sample is paired with an `import boto3` just before it, so both see the same machine; the
        # ratio is taken of the fastest of each (the runs least disturbed by other work), the times are medians.
        floors, samples = [], []
        for _ in range(runs):
            floors.append(boto3_ms(function))
            samples.append(import_once(function))
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        return {"function": function, "error": f"import failed: {exc}"}
    trees = [next((n for n in roots if n.name == "app"), None) for _, roots in samples]
    if any(tree is None for tree in trees):
        return {"function": function, "error": "app was not imported"}
    app = trees[0]
    assert app is not None
    heaviest = sorted(_flatten(app), key=lambda n: -n.cumulative_us)
    top = [n for n in heaviest if n.depth == app.depth + 1 or "." not in n.name][:6]
    pulled = {}
    for lib in FORBIDDEN[function]:
        chain = chain_to(app, lib)
        if chain:
            pulled[lib] = " > ".join(chain)
    fastest = min(t.cumulative_us for t in trees if t) / 1000
    return {
        "function": function,
        "import_ms": round(statistics.median(t.cumulative_us for t in trees if t) / 1000, 1),
        "boto3_ms": round(statistics.median(floors), 1),
        "ratio_to_boto3": round(fastest / min(floors), 2),
        "process_ms": round(statistics.median(wall for wall, _ in samples) * 1000, 1),
        "modules": sum(1 for _ in _flatten(app)),
        "heaviest": [{"module": n.name, "ms": round(n.cumulative_us / 1000, 1)} for n in top if n is not app][:5],
        "forbidden_imports": pulled,
        "ok": not pulled,
    }


def _flatten(node: Node) -> list[Node]:
    out = [node]
    for child in node.children:
        out.extend(_flatten(child))
    return out


def run() -> dict[str, Any]:
    results = [measure(name) for name in FUNCTIONS]
    floor = statistics.median(r["boto3_ms"] for r in results if "boto3_ms" in r) if results else 0.0
    rows = [["cold start: import boto3", f"{floor:.0f} ms",
             f"the floor (median of the paired runs); target: each handler <= {MAX_RATIO}x"]]
    for r in results:
        if "error" in r:
            rows.append([f"cold start {r['function']}", "n/a", r["error"]])
            continue
        r["ok"] = r["ok"] and r["ratio_to_boto3"] <= MAX_RATIO
        heavy = ", ".join(f"{h['module']} {h['ms']:.0f}" for h in r["heaviest"][:3])
        banned = "none" if not r["forbidden_imports"] else "FAIL: " + "; ".join(
            f"{k} via {v}" for k, v in r["forbidden_imports"].items())
        rows.append([f"cold start {r['function']} (import app)", f"{r['import_ms']:.0f} ms",
                     f"{r['ratio_to_boto3']:.2f}x boto3 ({'OK' if r['ok'] else 'FAIL'}); {r['modules']} modules; "
                     f"heaviest ms: {heavy}; banned: {banned}"])
    return {"boto3_ms": floor, "max_ratio": MAX_RATIO, "handlers": results, "rows": rows}


def main() -> None:
    for name, value, note in run()["rows"]:
        print(f"{name:<36} {value:>10}  {note}")


if __name__ == "__main__":
    main()
