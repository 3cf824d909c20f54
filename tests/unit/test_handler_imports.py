"""What each Lambda handler loads, checked in a fresh interpreter set up as Lambda's (bench/coldstart measures it).

The score worker runs for every PR: it must not pay for analysis, rendering, templates, the model's client or
idempotency, at import or when the engine scores. The plan function needs none of them either, and the report
function loads them with its first report (its sweep, every 15 minutes, usually has nothing to report).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.coldstart import LAMBDA_ENV, NOT_FOR_WORKERS

ROOT = Path(__file__).resolve().parents[2]

# After the import, the score worker's engine path: Deps from the environment, the scorer a run without a model
# gets, and one PR of the sample scored.
SCORE_ONE = """
import json, sys
import app
from prhub.core.config import RepoConfig
from prhub.flow.deps import Deps
from prhub.core.period import Period
from prhub.sources.source import JsonlSource

class Budget:
    exhausted = ""
    def reserve(self, tokens): return True
    def settle(self, reserved, spent): pass

deps = Deps.from_env()
config = RepoConfig("acme/rocket", language="en")
scorer = deps.scorers.scorer(config)
source = JsonlSource.from_path(sys.argv[1])
pr = source.get("acme/rocket", source.list_merged("acme/rocket", Period.parse("2026-06-01", "2026-06-07", "UTC"))[0])
assert scorer.score(pr, config, Budget()).scored_by == "heuristic"
print(json.dumps(sorted(sys.modules)))
"""


def loaded(function: str, code: str, *args: str) -> set[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHON", "OPENAI_", "LLM_"))},
           **LAMBDA_ENV,
           "PYTHONPATH": os.pathsep.join([str(ROOT / "functions" / function), str(ROOT / "layers" / "prhub")])}
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT / "functions" / function,
                          capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def banned(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in NOT_FOR_WORKERS))


@pytest.mark.parametrize("function, service", [("score", "score"), ("plan", "plan"), ("report", "publish")])
def test_the_handlers_import_no_report_model_or_idempotency_code(function: str, service: str) -> None:
    modules = loaded(function, "import json, sys, app; print(json.dumps(sorted(sys.modules)))")
    assert "prhub.flow.deps" in modules and f"prhub.flow.{service}" in modules
    assert banned(modules) == [] and "prhub.engine.scoring" not in modules
    # The X-Ray SDK builds a botocore client as it loads: the tracer comes with the first invocation
    # (prhub.cloud.tracing).
    assert "prhub.cloud.tracing" in modules and not any(m.startswith("aws_xray_sdk") for m in modules)
    others = {"prhub.flow.plan", "prhub.flow.score", "prhub.flow.publish"} - {f"prhub.flow.{service}"}
    assert others.isdisjoint(modules)
    # Libraries the layer loads with their first use, off the cold start: zoneinfo (it reads sysconfig) with the
    # first time zone, difflib with a watch list that is wrong, Powertools' event data classes with a batch.
    # Powertools' batch utility (asyncio) with the report function's first batch (prhub.cloud.batch).
    assert {"zoneinfo", "difflib", "sysconfig", "asyncio", "aws_lambda_powertools.utilities.batch",
            "aws_lambda_powertools.utilities.data_classes"}.isdisjoint(modules)


def test_the_engine_scores_a_pr_without_loading_them_either() -> None:
    sample = ROOT / "prhub_local" / "sample" / "acme-rocket.jsonl"
    modules = loaded("score", SCORE_ONE, str(sample))
    assert "prhub.engine.scoring" in modules and banned(modules) == []
