"""Traces as X-Ray receives them: PlanFunction run as in Lambda with active tracing, against a fake X-Ray daemon.

The X-Ray SDK sends each finished subsegment as one UDP datagram to AWS_XRAY_DAEMON_ADDRESS: the header
{"format":"json","version":1}, a newline, the subsegment's JSON (aws_xray_sdk.core.emitters.udp_emitter). In
Lambda the function's own segment is the service's (a facade: never sent), named by _X_AMZN_TRACE_ID. The
handler runs in a subprocess: the SDK patches botocore and requests for the whole process.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import tracing

from prhub_local.template import Stack
from tests.fakes import FakeGitHub
from tests.functional.test_github_source import REPO, WEEK, week_pulls
from tests.functional.test_plan_handler import items

ROOT = Path(__file__).resolve().parents[2]
TRACE_ROOT = "1-67a1b2c3-0123456789abcdef01234567"
HEADER = b'{"format":"json","version":1}\n'
INVOKE = """
import json, sys
import app
from prhub_local.runner import LambdaContext

print(json.dumps(app.handler(json.loads(sys.argv[1]), LambdaContext("PlanFunction"))))
print(json.dumps(sorted(m for m in sys.modules if m.startswith("aws_xray_sdk"))))
"""


def run_plan(event: dict[str, Any], **env: str) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """PlanFunction invoked once in a fresh interpreter set up as Lambda's: (answer, X-Ray modules, datagrams)."""
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(0.2)
    lambda_env = {"LAMBDA_TASK_ROOT": str(ROOT / "functions" / "plan"), "AWS_LAMBDA_FUNCTION_NAME": "PlanFunction",
                  "_X_AMZN_TRACE_ID": f"Root={TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1",
                  "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{daemon.getsockname()[1]}",
                  "POWERTOOLS_TRACE_DISABLED": "false",  # as template.yaml sets it (the local stack: "true")
                  "PYTHONPATH": os.pathsep.join([str(ROOT / "functions" / "plan"), str(ROOT / "layers" / "prhub"),
                                                 str(ROOT)])}
    try:
        proc = subprocess.run([sys.executable, "-c", INVOKE, json.dumps(event)], cwd=ROOT / "functions" / "plan",
                              env={**os.environ, **lambda_env, **env}, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        datagrams = []
        while True:
            try:
                data = daemon.recv(65535)
            except TimeoutError:
                break
            assert data.startswith(HEADER), data[:80]
            datagrams.append(json.loads(data[len(HEADER):]))
    finally:
        daemon.close()
    answer, modules = (json.loads(line) for line in proc.stdout.strip().splitlines()[-2:])
    return answer, modules, datagrams


@pytest.fixture
def stack(served_stack: Stack) -> Stack:
    """The handler runs in a subprocess: it reaches the stack through the moto server."""
    return served_stack


def names(entity: dict[str, Any]) -> list[str]:
    return [entity["name"], *(n for child in entity.get("subsegments", []) for n in names(child))]


def test_a_traced_plan_sends_its_handler_github_and_aws_calls_as_subsegments(stack: Stack) -> None:
    with FakeGitHub(week_pulls(3), REPO) as gh:
        answer, _, sent = run_plan({"repo": REPO, "since": str(WEEK.since), "until": str(WEEK.until),
                                    "tz": WEEK.tz, "source": "github"},
                                   GITHUB_API_URL=gh.url, GITHUB_TOKEN="t0ken")
    assert answer["ok"] and answer["runs"][0]["expected"] == 3, answer
    # Every subsegment belongs to the invocation's trace, under the function's (facade) segment.
    assert sent and {s["trace_id"] for s in sent} == {TRACE_ROOT}
    everything = [n for s in sent for n in names(s)]
    [handler] = [s for s in sent if s["name"] == "## handler"]
    assert handler["annotations"] == {"ColdStart": True, "Service": "prhub"}
    # The named work, GitHub's requests under it (requests patched), and each AWS service the plan calls.
    assert {"## plan listing", "## github history"} <= set(everything)
    assert "127.0.0.1" in everything  # the GitHub requests, named by host
    assert {"ssm", "dynamodb", "sqs"} <= set(everything), everything  # the SDK names them by endpoint prefix
    assert len(items(stack, "RunsTable")) == 1


def test_tracing_switched_off_loads_no_x_ray_code_and_sends_nothing(stack: Stack) -> None:
    answer, modules, sent = run_plan({"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"},
                                     POWERTOOLS_TRACE_DISABLED="true")
    assert answer["ok"], answer
    assert modules == [] and sent == []


def test_tracing_follows_powertools_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)
    monkeypatch.delenv("POWERTOOLS_TRACE_DISABLED", raising=False)
    assert not tracing.enabled()  # outside Lambda: the CLI, the local runner, the tests
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    assert tracing.enabled()
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    assert not tracing.enabled() and tracing.tracer() is None
