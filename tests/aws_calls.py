"""Records the AWS calls each Lambda function makes, as the IAM actions and stack resources they need.

A pytest plugin, off unless asked for: `PRHUB_RECORD_AWS_CALLS=calls.json pytest -p tests.aws_calls -n 0 ...`
(one process: the file is written by whichever process ends last).
Every botocore client made in the session gets a `before-parameter-build` hook (the operation's own
parameters, before serialisation). A call counts for a function when the handler module of that
function (functions/<name>/app.py, as the template's CodeUri says) is on the calling thread's stack,
so calls the tests or the local runner make themselves (creating the stack, polling a queue the way
Lambda's event source mapping does) are left out. Physical names are turned back into the
template's logical ids through the Globals environment the handler runs with (RUNS_TABLE -> RunsTable).

At the end of the session the file holds {"calls": [{function, action, resource, operation, count}]}.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

import botocore.session
import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD_ENV = "PRHUB_RECORD_AWS_CALLS"
INDEX = "/index/"  # a table's index, as a resource: "<table>/index/<name>"

# API operations whose IAM action has another name (the service authorization reference).
_ACTION = {
    ("sqs", "SendMessageBatch"): "sqs:SendMessage", ("sqs", "DeleteMessageBatch"): "sqs:DeleteMessage",
    ("sqs", "ChangeMessageVisibilityBatch"): "sqs:ChangeMessageVisibility",
    ("s3", "ListObjectsV2"): "s3:ListBucket", ("s3", "ListObjects"): "s3:ListBucket",
    ("s3", "HeadObject"): "s3:GetObject", ("s3", "DeleteObjects"): "s3:DeleteObject",
    ("s3", "HeadBucket"): "s3:ListBucket",
}
# A transaction is authorised item by item, as the item's own action on the item's table
# (DynamoDB developer guide, "Using IAM with DynamoDB transactions").
_TRANSACT = {"Put": "dynamodb:PutItem", "Update": "dynamodb:UpdateItem", "Delete": "dynamodb:DeleteItem",
             "ConditionCheck": "dynamodb:ConditionCheckItem", "Get": "dynamodb:GetItem"}
_RESOURCE_PARAM = {"dynamodb": "TableName", "sqs": "QueueUrl", "s3": "Bucket", "ssm": "Name",
                   "secretsmanager": "SecretId", "cloudfront": "DistributionId"}


def needs(service: str, operation: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """(IAM action, physical resource name) pairs one API call needs."""
    if service == "dynamodb" and operation in ("TransactWriteItems", "TransactGetItems"):
        return [(_TRANSACT[kind], body["TableName"]) for item in params["TransactItems"] for kind, body in item.items()]
    if service == "dynamodb" and operation in ("BatchWriteItem", "BatchGetItem"):
        return [(f"dynamodb:{operation}", table) for table in params["RequestItems"]]
    action = _ACTION.get((service, operation), f"{service}:{operation}")
    resource = str(params.get(_RESOURCE_PARAM.get(service, ""), ""))
    if service == "dynamodb" and params.get("IndexName"):  # IAM authorises a Query of an index on the index's ARN
        resource += f"{INDEX}{params['IndexName']}"
    return [(action, resource)]


def logical_names(environment: dict[str, str], variables: dict[str, Any]) -> dict[str, str]:
    """Physical name -> logical id (or parameter), through the template's Globals environment."""
    names: dict[str, str] = {}
    for var, value in variables.items():
        if isinstance(value, dict) and "Ref" in value and environment.get(var):
            names[environment[var]] = value["Ref"]
    return names


def logical_name(physical: str, names: dict[str, str]) -> str:
    """The logical id of a physical name; a name under a prefix the environment names (NOTIFY_SECRET_PREFIX,
    ending in "/") maps to that prefix's parameter, as the role's `prefix*` resource does."""
    if physical in names:
        return names[physical]
    table, index, index_name = physical.partition(INDEX)
    if index:  # "<table>/index/<name>", as the role's "${Table.Arn}/index/<name>"
        return f"{logical_name(table, names)}{INDEX}{index_name}"
    for name, logical in names.items():
        if name.endswith("/") and physical.startswith(name):
            return logical
    return physical


class Recorder:
    """Counts (function, action, resource, operation) for calls made under a handler module."""

    def __init__(self, template: dict[str, Any]) -> None:
        self.handlers = {
            str((ROOT / r["Properties"]["CodeUri"] / "app.py").resolve()): logical
            for logical, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
        self.variables = template["Globals"]["Function"]["Environment"]["Variables"]
        self.counts: Counter[tuple[str, str, str, str]] = Counter()
        self.unattributed = 0
        self._files: dict[str, str | None] = {}  # code file -> function (realpath once per file)
        self._lock = threading.Lock()
        self._started: weakref.WeakKeyDictionary[threading.Thread, str] = weakref.WeakKeyDictionary()

    def function(self) -> str | None:
        """The function whose handler module is on this thread's stack, or that started this thread (a batch's
        pool works for its invocation), if any."""
        frame: Any = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if name not in self._files:
                self._files[name] = self.handlers.get(os.path.realpath(name))
            if self._files[name]:
                return self._files[name]
            frame = frame.f_back
        return self._started.get(threading.current_thread())

    def on_call(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        function = self.function()
        if function is None:
            with self._lock:
                self.unattributed += 1
            return
        service = model.service_model.service_name
        names = logical_names(dict(os.environ), self.variables)
        with self._lock:
            for action, physical in needs(service, model.name, params):
                self.counts[(function, action, logical_name(physical, names), model.name)] += 1

    def install(self, mp: pytest.MonkeyPatch) -> None:
        original = botocore.session.Session.create_client
        recorder = self

        def create_client(session: Any, *args: Any, **kwargs: Any) -> Any:
            client = original(session, *args, **kwargs)
            client.meta.events.register("before-parameter-build", recorder.on_call)
            return client

        mp.setattr(botocore.session.Session, "create_client", create_client)
        start = threading.Thread.start

        def started_by(thread: threading.Thread) -> None:
            function = recorder.function()
            if function is not None:
                recorder._started[thread] = function
            start(thread)

        mp.setattr(threading.Thread, "start", started_by)

    def dump(self, path: Path) -> None:
        calls = [{"function": f, "action": a, "resource": r, "operation": o, "count": n}
                 for (f, a, r, o), n in sorted(self.counts.items())]
        path.write_text(json.dumps({"calls": calls, "unattributed": self.unattributed}, indent=1))


_state: dict[str, Any] = {}


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get(RECORD_ENV)
    if not target:
        return
    from tests.unit.test_template import load_template

    recorder = Recorder(load_template())
    mp = pytest.MonkeyPatch()
    recorder.install(mp)
    _state.update(recorder=recorder, mp=mp, target=Path(target))


def pytest_unconfigure(config: pytest.Config) -> None:
    if "recorder" in _state:
        _state["recorder"].dump(_state["target"])
        _state["mp"].undo()
        _state.clear()
