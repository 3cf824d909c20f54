"""A run set up as deployed: tokens only in Secrets Manager, read by name. Its logs (DEBUG, every logger)
never show a token, and every AWS call a function makes is one its role in template.yaml allows.

One local pipeline run (moto in its own process, the fake GitHub needing the token, the fake model
server needing the key) feeds both checks; the run is module-scoped because it takes a while.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
import requests
from aws_lambda_powertools import Logger
from botocore.client import BaseClient

from prhub_local.runner import direct_invoke, run_pipeline
from prhub_local.sample import SAMPLE_DIR
from tests.fakes import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.unit.test_template import can, load_template

pytestmark = pytest.mark.slow

GITHUB_TOKEN = "ghp_" + "TESTonlyQ7xZ1vB9nM3kL5pR8sT2wY4uI6oE0"  # split: a fake, not a leaked token
LLM_KEY = "sk-TESTonly-9fK2mQ7vX1zB8nL3pR5sT0wY4uI6oE"
SAMPLE = json.loads((SAMPLE_DIR / "sample.json").read_text())


class KeyCheckingOpenAI(FakeOpenAI):
    """The fake model server, refusing any key but the one stored in the secret."""

    def _answer(self, request: dict[str, Any], authorization: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        if authorization != f"Bearer {LLM_KEY}":
            return 401, {"error": {"message": "wrong API key", "type": "invalid_request_error"}}, {}
        return super()._answer(request, authorization)


class Capture(logging.Handler):
    """Keeps everything a log record could print: message, arguments, extra fields, traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.names: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        self.names.add(record.name)
        parts = [record.getMessage(), repr(record.args)]
        parts += [repr(v) for k, v in record.__dict__.items() if k not in ("msg", "args")]
        if record.exc_info:
            parts.append(logging.Formatter().formatException(record.exc_info))
        self.texts.append("\n".join(parts))


class Tee(io.StringIO):
    def __init__(self, stream: Any) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text)
        return super().write(text)


@dataclass
class RunRecord:
    report: dict[str, Any]
    logs: Capture
    printed: str
    calls: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)  # function, service, op, params
    env: dict[str, str] = field(default_factory=dict)  # the functions' environment during the run


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                requests.get(f"{url}/moto-api/", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def run(moto_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunRecord]:
    params = load_template()["Parameters"]
    with pytest.MonkeyPatch.context() as mp:
        for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                            "AWS_DEFAULT_REGION": "us-east-1", "POWERTOOLS_LOG_LEVEL": "DEBUG",
                            "LOG_LEVEL": "DEBUG"}.items():
            mp.setenv(name, value)
        for name in ("GITHUB_TOKEN", "OPENAI_API_KEY", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            mp.delenv(name, raising=False)
        # The deployed functions' environment names the secrets (the local runner leaves the names out).
        mp.setenv("GITHUB_TOKEN_SECRET", params["GitHubTokenSecretName"]["Default"])
        mp.setenv("LLM_API_KEY_SECRET", params["LlmApiKeySecretName"]["Default"])
        sm = boto3.client("secretsmanager", endpoint_url=moto_endpoint)
        sm.create_secret(Name=params["GitHubTokenSecretName"]["Default"], SecretString=GITHUB_TOKEN)
        sm.create_secret(Name=params["LlmApiKeySecretName"]["Default"], SecretString=json.dumps({"api_key": LLM_KEY}))

        calls: list[tuple[str, str, str, dict[str, Any]]] = []
        current = threading.local()
        env: dict[str, str] = {}
        original = BaseClient._make_api_call

        def spy(self: BaseClient, operation: str, params: dict[str, Any]) -> Any:
            function = getattr(current, "function", None)
            if function:
                calls.append((function, self.meta.service_model.service_name, operation, params))
            return original(self, operation, params)

        def invoke(name: str, handler: Any, event: Any, context: Any) -> Any:
            import os

            env.update(os.environ)
            current.function = name
            try:
                return direct_invoke(name, handler, event, context)
            finally:
                current.function = None

        capture = Capture()
        root = logging.getLogger()
        # Powertools' service logger does not propagate, and takes its own handler to be the first one:
        # set it up as a handler module would, then listen after it.
        Logger(service="prhub")
        watched = [root, logging.getLogger("prhub")]
        saved = [(lg, lg.level) for lg in watched]
        for lg in watched:
            lg.addHandler(capture)
            lg.setLevel(logging.DEBUG)
        mp.setattr(BaseClient, "_make_api_call", spy)
        out, err = Tee(sys.stdout), Tee(sys.stderr)
        try:
            with FakeGitHub.from_export(SAMPLE_DIR / SAMPLE["file"], SAMPLE["config"]["repo"],
                                        token=GITHUB_TOKEN) as gh, KeyCheckingOpenAI() as model, \
                    contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                mp.setenv("GITHUB_API_URL", gh.url)
                mp.setenv("OPENAI_BASE_URL", model.base_url)
                # Two days of the sample's week (8 PRs): every function and call of the week, at a quarter of its
                # DEBUG logging (botocore's records of each call are most of this run's time).
                result = run_pipeline(source="github", scorer="llm", lang="en", out=tmp_path_factory.mktemp("site"),
                                      since="2026-06-01", until="2026-06-02",
                                      state=None, endpoint_url=moto_endpoint, workers=2, invoke=invoke,
                                      timeout=300)
                assert gh.counts["graphql"] > 0 and gh.counts.get("fault_401", 0) == 0, "the token came from the secret"
                assert model.answered > 0, "the model key came from the secret"
        finally:
            for lg, level in saved:
                lg.removeHandler(capture)
                lg.setLevel(level)
        yield RunRecord(result.report, capture, out.getvalue() + err.getvalue(), calls, env)


def test_the_run_used_both_secrets_and_the_model(run: RunRecord) -> None:
    assert run.report["scorer"]["kind"] == "llm"
    assert run.report["stats"]["pr_count"] > 0
    read = {(f, p["SecretId"]) for f, s, op, p in run.calls if op == "GetSecretValue"}
    assert {name for _, name in read} == {"prhub/github-token", "prhub/llm-api-key"}


def test_logs_never_show_a_token_or_key(run: RunRecord) -> None:
    assert len(run.logs.texts) > 50, "DEBUG logs were captured"
    assert any(name.startswith("prhub") for name in run.logs.names), sorted(run.logs.names)
    haystack = "\n".join(run.logs.texts) + run.printed
    for secret in (GITHUB_TOKEN, LLM_KEY):
        for fragment in (secret, secret[4:20], secret[-16:]):  # whole, or a recognisable piece
            assert fragment not in haystack, f"a secret fragment was logged: {fragment[:4]}…"


# ------------------------------------------------------------------ every call allowed by the role

_RESOURCE_PARAM = {"dynamodb": "TableName", "sqs": "QueueUrl", "s3": "Bucket", "ssm": "Name",
                   "secretsmanager": "SecretId", "cloudfront": "DistributionId"}
_ACTION = {  # API operations whose IAM action has another name
    ("sqs", "SendMessageBatch"): "SendMessage", ("sqs", "DeleteMessageBatch"): "DeleteMessage",
    ("sqs", "ChangeMessageVisibilityBatch"): "ChangeMessageVisibility", ("s3", "ListObjectsV2"): "ListBucket",
    ("s3", "HeadObject"): "GetObject", ("s3", "DeleteObjects"): "DeleteObject", ("s3", "ListObjects"): "ListBucket",
}
_TRANSACT = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem",
             "Get": "GetItem"}


def _needs(service: str, operation: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(IAM action, physical resource name) pairs one API call needs."""
    if service == "dynamodb" and operation in ("TransactWriteItems", "TransactGetItems"):
        return [(f"dynamodb:{_TRANSACT[kind]}", body["TableName"])
                for item in params["TransactItems"] for kind, body in item.items()]
    if service == "dynamodb" and operation in ("BatchWriteItem", "BatchGetItem"):
        return [(f"dynamodb:{operation}", table) for table in params["RequestItems"]]
    if service == "s3" and operation == "CopyObject":
        return [("s3:GetObject", params["CopySource"]["Bucket"]), ("s3:PutObject", params["Bucket"])]
    if service == "sqs" and operation in ("GetQueueUrl",):
        return [("sqs:GetQueueUrl", params["QueueName"])]
    resource = str(params[_RESOURCE_PARAM[service]])
    if service == "dynamodb" and params.get("IndexName"):  # an index is its own resource: "<table>/index/<name>"
        resource += f"/index/{params['IndexName']}"
    return [(f"{service}:{_ACTION.get((service, operation), operation)}", resource)]


def _logical_names(env: dict[str, str]) -> dict[str, str]:
    """Physical name -> logical id / parameter, through the Globals environment the handlers ran with."""
    names: dict[str, str] = {}
    for var, value in load_template()["Globals"]["Function"]["Environment"]["Variables"].items():
        if isinstance(value, dict) and "Ref" in value and env.get(var):
            names[env[var]] = value["Ref"]
            names[env[var].rsplit("/", 1)[-1]] = value["Ref"]  # a queue URL's last part is its name
    return names


def test_every_aws_call_is_allowed_by_the_functions_role(run: RunRecord) -> None:
    names = _logical_names(run.env)
    seen: dict[str, set[str]] = {}
    denied = []
    for function, service, operation, params in run.calls:
        for action, physical in _needs(service, operation, params):
            table, index, index_name = physical.partition("/index/")
            logical = (f"{names.get(table, table)}/index/{index_name}" if index and action.startswith("dynamodb:")
                       else names.get(physical, names.get(physical.rsplit("/", 1)[-1], physical)))
            seen.setdefault(function, set()).add(action)
            if logical not in can(function, action):
                denied.append(f"{function}: {action} on {logical}")
    assert not denied, "\n".join(sorted(set(denied)))
    # Not vacuous: each function did real work through AWS.
    assert {"sqs:SendMessage", "dynamodb:PutItem", "secretsmanager:GetSecretValue"} <= seen["PlanFunction"]
    assert {"dynamodb:GetItem", "secretsmanager:GetSecretValue"} <= seen["ScoreFunction"]  # the run; the key
    assert {"s3:PutObject", "dynamodb:Query"} <= seen["ReportFunction"]
