"""Model calls in parallel: a 34-PR verl week through the local pipeline, the fake model answering in 300 ms.

    python -m bench.llm_fanout [--workers 1,4,8] [--latency 0.3]

For each worker count, `prhub run --scorer llm` (run_pipeline: the real
flow on embedded moto, N score workers) reports 2026-05-04..10 (Asia/Shanghai)
from ../shared/data/verl-project-verl/pulls.jsonl against the fake OpenAI server.
Printed per run: the pipeline's wall time (plan, score, report with rendering; moto
start-up excluded), the model phase (first PR call to the narrative's answer), the
sequential model time PRs x latency, and the ideal ceil(PRs / workers) x latency +
one narrative call. `run()` returns the figures ("rows" for the bench table).
"""
from __future__ import annotations

import argparse
import math
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from prhub_local.runner import run_pipeline
from prhub_local.template import default_root, load_template
from tests.fakes.openai_server import FakeOpenAI, data_block

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO, SINCE, UNTIL, TZ = "verl-project/verl", "2026-05-04", "2026-05-10", "Asia/Shanghai"
LATENCY = 0.3


def one_run(workers: int, latency: float = LATENCY) -> dict[str, Any]:
    """One `prhub run --scorer llm` of the verl week with `workers` score workers; its figures."""
    saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PRHUB_LLM_MODEL")}
    with FakeOpenAI(latency=latency) as fake, tempfile.TemporaryDirectory() as tmp:
        os.environ.update({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-bench",
                           "PRHUB_LLM_MODEL": "fake-model"})
        try:
            started = time.monotonic()
            result = run_pipeline(repo=REPO, since=SINCE, until=UNTIL, tz=TZ, source=f"jsonl:{DATA}",
                                        scorer="llm", lang="zh", out=Path(tmp) / "site", state=Path(tmp) / "state",
                                        workers=workers, progress=lambda message: None,
                                        # moto keeps its state per process: a fresh prefix is a fresh stack,
                                        # so no run finds an earlier run's cached scores.
                                        prefix=f"fanout{workers}-{secrets.token_hex(3)}")
            total = time.monotonic() - started
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        pr_numbers = [data_block(c, "engine_features")["number"] for c in fake.calls
                      if data_block(c, "engine_features") is not None]
        pr_times = [t for t, c in zip(fake.call_times, fake.calls, strict=True)
                    if data_block(c, "engine_features") is not None]
        narrative_times = [t for t, c in zip(fake.call_times, fake.calls, strict=True)
                           if data_block(c, "week_facts") is not None]
        prs = result.report["stats"]["pr_count"]
        model_phase = (max(narrative_times or pr_times) + latency - min(pr_times)) if pr_times else 0.0
        scoring_phase = (max(pr_times) + latency - min(pr_times)) if pr_times else 0.0
        return {
            "workers": workers, "prs": prs, "pr_calls": len(pr_times), "narrative_calls": len(narrative_times),
            # the same PR asked twice: a message delivered twice to two workers at once (at-least-once SQS)
            "duplicate_pr_calls": len(pr_numbers) - len(set(pr_numbers)),
            "latency_s": latency, "run_total_s": round(total, 2),
            "pipeline_s": round(result.timings.get("pipeline_s", total), 2),
            "scoring_phase_s": round(scoring_phase, 2), "model_phase_s": round(model_phase, 2),
            "sequential_s": round(prs * latency, 2),
            "ideal_s": round(math.ceil(prs / workers) * latency + latency, 2),
            "scored_by_llm": result.report["scorer"].get("llm_prs"),
            "tokens_in": result.report["scorer"].get("tokens_in"),
            "tokens_out": result.report["scorer"].get("tokens_out"),
        }


def score_batch_size() -> int:
    """ScoreQueueMapping's BatchSize in template.yaml: one worker scores that many PRs one after another."""
    template = load_template(default_root() / "template.yaml")
    return int(template["Resources"]["ScoreQueueMapping"]["Properties"].get("BatchSize", 10))


def run(workers: tuple[int, ...] = (1, 4, 8), latency: float = LATENCY) -> dict[str, Any]:
    """Figures for each worker count, plus bench-table rows."""
    if not DATA.exists():
        return {"skipped": f"{DATA} is absent", "rows": [["llm fan-out", "skipped", f"{DATA} is absent"]]}
    runs = [one_run(n, latency) for n in workers]
    batch = score_batch_size()
    for r in runs:
        # A worker takes up to `batch` messages at once and scores them in turn: part of the gap to the ideal.
        r["score_batch_size"] = batch
    rows = []
    for r in runs:
        rows.append([f"llm fan-out, {r['workers']} workers: scoring phase", f"{r['scoring_phase_s']:.2f} s",
                     f"{r['pr_calls']} PR calls at {latency:g} s each; sequential {r['sequential_s']:.1f} s, "
                     f"ideal ceil({r['prs']}/{r['workers']})x{latency:g} = "
                     f"{math.ceil(r['prs'] / r['workers']) * latency:.1f} s"])
        rows.append([f"llm fan-out, {r['workers']} workers: pipeline", f"{r['pipeline_s']:.2f} s",
                     f"plan+score+report with rendering; model phase {r['model_phase_s']:.2f} s vs ideal "
                     f"{r['ideal_s']:.1f} s (incl. the narrative call); {r['tokens_in']} tokens in, "
                     f"{r['tokens_out']} out"])
    return {"runs": runs, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_fanout", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,4,8", help="comma-separated worker counts (default 1,4,8)")
    parser.add_argument("--latency", type=float, default=LATENCY, help="fake model latency per call, seconds")
    args = parser.parse_args(argv)
    figures = run(tuple(int(n) for n in args.workers.split(",")), args.latency)
    if "skipped" in figures:
        print(figures["skipped"])
        return 0
    print(f"ScoreQueue BatchSize {figures['runs'][0]['score_batch_size']} (template.yaml); latency {args.latency:g} s")
    header = ("workers", "PRs", "PR calls", "pipeline s", "scoring s", "model s", "sequential s", "ideal s",
              "speed-up")
    print(" | ".join(header))
    for r in figures["runs"]:
        speedup = r["sequential_s"] / r["scoring_phase_s"] if r["scoring_phase_s"] else float("nan")
        print(" | ".join(str(v) for v in (r["workers"], r["prs"], r["pr_calls"], r["pipeline_s"], r["scoring_phase_s"],
                                          r["model_phase_s"], r["sequential_s"], r["ideal_s"],
                                          f"{speedup:.1f}x")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
