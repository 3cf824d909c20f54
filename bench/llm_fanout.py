"""Model calls in parallel: verl PRs through the local pipeline, the fake model answering in a fixed latency.

    python -m bench.llm_fanout [--workers 4] [--cases week,300]

Two cases: the 34-PR verl week 2026-05-04..10 with the model answering in 0.3 s, and about 300 PRs
(2026-03-03..05-10) at 2 s. Each runs `prhub run --scorer llm` (run_pipeline: the real flow on embedded
moto, N score workers, each scoring its SQS batch with up to PRHUB_LLM_CONCURRENCY calls at once) against
the fake OpenAI server. Printed per case: the model time on the critical path (first PR call received to last
PR answer sent, plus the narrative call's own duration; the queue hop between scoring and the report is
excluded), the ideal ceil(PRs / C) x latency + one narrative latency with C = workers x calls per invocation,
and their ratio (target <= 1.2); beside them the process's CPU time over the scoring (workers, moto and the fake
share this process: a CPU time near the scoring time says the CPU, not the model, set the pace). Calls per
invocation are what the run really allows: PRHUB_LLM_CONCURRENCY (default prhub.model.scorers.DEFAULT_CONCURRENCY), at
most the ScoreQueue batch template.yaml sets. Then each case's floor: the same calls alone (floor_run), the
least ratio this host's CPU allows. `run()` returns the figures ("rows" for the bench table).
"""
from __future__ import annotations

import argparse
import bisect
import json
import math
import multiprocessing
import os
import secrets
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from prhub.core.config import WatchList
from prhub.flow.deps import model_settings
from prhub.model.scorers import Scorers

from prhub_local.embedded import patched_env
from prhub_local.runner import batch_size, run_pipeline
from prhub_local.template import default_root, load_template
from tests.fakes.openai_server import FakeOpenAI, data_block

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO, TZ = "verl-project/verl", "Asia/Shanghai"
CASES = {"week": ("2026-05-04", "2026-05-10", 0.3), "300": ("2026-03-03", "2026-05-10", 2.0)}
TARGET = 1.2


def one_run(workers: int, since: str, until: str, latency: float) -> dict[str, Any]:
    """One `prhub run --scorer llm` of the range with `workers` score workers; its figures."""
    with (FakeOpenAI(latency=latency) as fake, tempfile.TemporaryDirectory() as tmp,
          patched_env(model_env(fake.base_url))):
        per_call = calls_per_invocation()
        load_before = os.getloadavg()[0]
        cpu = CpuClock().start()
        started = time.monotonic()
        try:
            result = run_pipeline(repo=REPO, since=since, until=until, tz=TZ, source=f"jsonl:{DATA}",
                                  scorer="llm", lang="zh", out=Path(tmp) / "site", state=Path(tmp) / "state",
                                  workers=workers, progress=lambda message: None,
                                  # moto keeps its state per process: a fresh prefix is a fresh stack,
                                  # so no run finds an earlier run's cached scores.
                                  prefix=f"fanout{workers}-{secrets.token_hex(3)}")
        finally:
            cpu.stop()
        total = time.monotonic() - started
        load = (load_before, os.getloadavg()[0])
        pr_spans = [(a, b, data_block(r, "engine_features")["number"]) for a, b, r in fake.spans
                    if data_block(r, "engine_features") is not None]
        narrative_spans = [(a, b) for a, b, r in fake.spans if data_block(r, "week_facts") is not None]
    prs = result.report["stats"]["pr_count"]
    concurrency = workers * per_call
    scoring = (max(b for _, b, _ in pr_spans) - min(a for a, _, _ in pr_spans)) if pr_spans else 0.0
    # The process's CPU from the first PR call to the last answer: near the scoring time, the CPU sets the pace
    scoring_cpu = (cpu.at(max(b for _, b, _ in pr_spans)) - cpu.at(min(a for a, _, _ in pr_spans))) if pr_spans else 0.0
    narrating = sum(b - a for a, b in narrative_spans)
    ideal = math.ceil(prs / concurrency) * latency + latency
    numbers = [n for _, _, n in pr_spans]
    return {
        "workers": workers, "calls_per_invocation": per_call, "concurrency": concurrency, "prs": prs,
        "pr_calls": len(pr_spans), "narrative_calls": len(narrative_spans),
        # the same PR asked twice: a message delivered twice to two workers at once (at-least-once SQS)
        "duplicate_pr_calls": len(numbers) - len(set(numbers)),
        "latency_s": latency, "run_total_s": round(total, 2),
        "pipeline_s": round(result.timings.get("pipeline_s", total), 2),
        "scoring_phase_s": round(scoring, 2), "narrative_s": round(narrating, 2),
        "scoring_cpu_s": round(scoring_cpu, 2), "cpu_ms_per_pr": round(scoring_cpu / max(1, prs) * 1000, 1),
        "model_critical_s": round(scoring + narrating, 2), "sequential_s": round((prs + 1) * latency, 2),
        "ideal_s": round(ideal, 2), "ratio": round((scoring + narrating) / ideal, 3),
        # the 1-minute load average before and after: the workers, moto and the fake model share one process,
        # so on a busy host the CPU each PR needs, not the model, sets the pace
        "load_1min": [round(v, 1) for v in load],
        "scored_by_llm": result.report["scorer"].get("llm_prs"),
        "tokens_in": result.report["scorer"].get("tokens_in"),
        "tokens_out": result.report["scorer"].get("tokens_out"),
    }


def _fake_elsewhere(latency: float, urls: Any, done: Any, answered: Any) -> None:
    """floor_run's fake model, in a process of its own: its URL out, then its calls' spans once `done` is set."""
    with FakeOpenAI(latency=latency) as fake:
        urls.put(fake.base_url)
        done.wait()
        answered.put([(a, b) for a, b, _ in fake.spans])


def model_env(base_url: str) -> dict[str, str]:
    """The environment naming the fake at `base_url` as the run's model (for patched_env)."""
    return {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench", "PRHUB_LLM_MODEL": "fake-model"}


def floor_run(workers: int, since: str, until: str, latency: float) -> dict[str, Any]:
    """The same PRs' model calls alone: each of `workers` threads sends its batches' real prompts through its own
    ChatModel, calls_per_invocation at once, one batch after another, with no AWS, queue, engine or guard in the
    way (all prepared before the clock starts), the fake in a process of its own as a provider is. Its ratio is the
    least this host's CPU leaves the pipeline: the client's own work per call (the openai SDK's) already costs that."""
    from prhub.core.models import PullRequest
    from prhub.core.period import Period
    from prhub.engine.scoring import score_pull
    from prhub.model import answers, client
    from prhub.model.endpoint import Endpoint
    from prhub.model.prompting import pr_prompt
    from prhub.model.scorer import PR_ANSWER_TOKENS

    config = WatchList.parse("{}").get(REPO).with_overrides(scorer="llm")
    period = Period.parse(since, until, TZ)
    prs = [pr for pr in (PullRequest.from_export(json.loads(line))
                         for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip())
           if period.contains(pr.merged_at)]
    prompts = [pr_prompt(pr, score_pull(pr, config), config).messages for pr in prs]
    spawn = multiprocessing.get_context("spawn")  # not a fork of this process's threads
    urls, answered, done = spawn.Queue(), spawn.Queue(), spawn.Event()
    server = spawn.Process(target=_fake_elsewhere, args=(latency, urls, done, answered), daemon=True)
    server.start()
    try:
        base_url = urls.get(timeout=120)
        with patched_env(model_env(base_url)):
            per_call = calls_per_invocation()
            chats = [client.ChatModel(Endpoint(base_url, "fake-model", "sk-bench")) for _ in range(workers)]
            batches = [prompts[i:i + per_call] for i in range(0, len(prompts), per_call)]
            lock = threading.Lock()
            ready = threading.Barrier(workers)

            def worker(chat: client.ChatModel) -> None:
                ready.wait()  # the workers' first batches arrive together, as the plan's messages do
                with ThreadPoolExecutor(max_workers=per_call) as pool:
                    while True:
                        with lock:
                            if not batches:
                                return
                            batch = batches.pop(0)
                        list(pool.map(lambda m: chat.complete(m, "prhub_pr", answers.PR_SCHEMA, PR_ANSWER_TOKENS),
                                      batch))

            with ThreadPoolExecutor(max_workers=workers) as each:
                list(each.map(worker, chats))  # a failed call fails the floor, not a silent thread
        done.set()
        spans = answered.get(timeout=120)
    finally:
        done.set()
        server.join(timeout=10)
        if server.is_alive():
            server.kill()
    scoring = max(b for _, b in spans) - min(a for a, _ in spans)
    concurrency = workers * per_call
    ideal = math.ceil(len(prs) / concurrency) * latency + latency
    # the narrative's own duration: the fake's latency (its CPU is the one call's, as above)
    return {"prs": len(prs), "latency_s": latency, "concurrency": concurrency, "scoring_s": round(scoring, 2),
            "ideal_s": round(ideal, 2), "ratio": round((scoring + latency) / ideal, 3)}


class CpuClock:
    """The process's CPU time (every thread's), sampled every 20 ms from a thread of its own."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True, name="cpu-clock")

    def start(self) -> CpuClock:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            self.samples.append((time.monotonic(), time.process_time()))
            if self._done.wait(0.02):
                return

    def at(self, moment: float) -> float:
        """CPU seconds used by `moment` (the last sample at or before it)."""
        return self.samples[max(0, bisect.bisect_right(self.samples, (moment, math.inf)) - 1)][1]


def calls_per_invocation() -> int:
    """Model calls one score invocation makes at once, as the score service decides it (prhub.model.scorers), at most
    the batch of PRs it is handed (template.yaml's ScoreQueue mapping). Read with the run's environment set."""
    config = WatchList.parse("{}").get(REPO).with_overrides(scorer="llm")
    return min(Scorers(model_settings(os.environ), None).concurrency(config),
               batch_size(load_template(default_root() / "template.yaml"), "ScoreQueue"))


def run(workers: int = 4, cases: tuple[str, ...] = tuple(CASES)) -> dict[str, Any]:
    """Figures for each case and its floor (floor_run), plus bench-table rows."""
    if not DATA.exists():
        return {"skipped": f"{DATA} is absent", "rows": [["llm fan-out", "skipped", f"{DATA} is absent"]]}
    runs = [one_run(workers, *CASES[c]) for c in cases]
    floors = [floor_run(workers, *CASES[c]) for c in cases]
    rows = [[f"llm fan-out, {r['prs']} PRs at {r['latency_s']:g} s", f"{r['model_critical_s']:.2f} s",
             f"ratio {r['ratio']:.2f} to the ideal {r['ideal_s']:.1f} s (C = {r['workers']} workers x "
             f"{r['calls_per_invocation']} calls = {r['concurrency']}); the calls alone {f['ratio']:.2f}; "
             f"sequential {r['sequential_s']:.0f} s; "
             f"pipeline {r['pipeline_s']:.1f} s; CPU {r['scoring_cpu_s']:.1f} s over the scoring "
             f"({r['cpu_ms_per_pr']:.0f} ms a PR); {r['tokens_in']} tokens in, {r['tokens_out']} out"]
            for r, f in zip(runs, floors, strict=True)]
    return {"runs": runs, "floors": floors, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_fanout", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4, help="score workers (default 4)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    args = parser.parse_args(argv)
    figures = run(args.workers, tuple(args.cases.split(",")))
    if "skipped" in figures:
        print(figures["skipped"])
        return 0
    header = ("PRs", "latency s", "C", "PR calls", "dup calls", "scoring s", "CPU s", "CPU ms/PR", "narrative s",
              "model s", "ideal s", "ratio", "pipeline s", "load")
    print(" | ".join(header))
    for r in figures["runs"]:
        print(" | ".join(str(v) for v in (r["prs"], r["latency_s"], r["concurrency"], r["pr_calls"],
                                          r["duplicate_pr_calls"], r["scoring_phase_s"], r["scoring_cpu_s"],
                                          r["cpu_ms_per_pr"], r["narrative_s"],
                                          r["model_critical_s"], r["ideal_s"], f"{r['ratio']:.2f}",
                                          r["pipeline_s"], "-".join(f"{v:g}" for v in r["load_1min"]))))
    print("\nthe model calls alone, no pipeline (floor_run: the least ratio this host allows)")
    print(" | ".join(("PRs", "latency s", "C", "scoring s", "ideal s", "ratio")))
    for f in figures["floors"]:
        print(" | ".join(str(f[k]) for k in ("prs", "latency_s", "concurrency", "scoring_s", "ideal_s", "ratio")))
    worst = max(r["ratio"] for r in figures["runs"])
    print(f"worst ratio {worst:.2f} (target <= {TARGET})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
