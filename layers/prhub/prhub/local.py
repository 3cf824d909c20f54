"""The local runner: the real handlers on an embedded AWS (moto in server mode on 127.0.0.1).

`run_pipeline(...)` is what `prhub run` calls, and what tests and benchmarks
call directly. It

1. starts moto (`ThreadedMotoServer`, a free port) unless an endpoint is given;
2. creates the tables, queues (with their redrive policies), bucket and SSM
   parameter from template.yaml's own Properties, and the functions'
   environment from its Globals, so the local run cannot drift from the stack;
3. restores the state directory (tables, bucket, queue messages);
4. invokes PlanFunction, then lets N worker threads poll ScoreQueue and one
   thread ReportQueue, calling the handlers with Lambda's SQS event shape,
   deleting only the records not listed in `batchItemFailures` and handing the
   failed ones back after a short retry delay (see Poller);
5. finishes when every run is reported and the queues are drained, invoking
   the sweep when the queues are empty but a run is stuck;
6. saves the state and copies the bucket to the output directory.

Each worker thread loads its own copy of the handler modules, as each Lambda
execution environment has its own: module-level objects (the BatchProcessor)
are never shared between concurrent invocations. `invoke` wraps every handler
call, which is where fault injection hooks in.
"""
from __future__ import annotations

import base64
import copy
import importlib.util
import json
import logging
import os
import shutil
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from prhub import aws
from prhub.config import WatchList
from prhub.errors import InputError, PrhubError
from prhub.period import Period

REGION = "us-east-1"
SAMPLE_DIR = Path(__file__).parent / "sample"
LOCAL_VISIBILITY_TIMEOUT = 2  # s: the queues' timeout and the retry delay of failed records, so retries and
#                              DLQ moves happen within a run, with SQS's real semantics
FUNCTIONS = ("PlanFunction", "ScoreFunction", "ReportFunction")

Invoker = Callable[[str, Callable[[Any, Any], Any], Any, Any], Any]
Progress = Callable[[str], None]


class PipelineError(PrhubError):
    """The local run could not finish (timeout, a report that keeps failing)."""


def default_root() -> Path:
    """The project checkout holding template.yaml and functions/ (the package lives in layers/prhub/prhub)."""
    return Path(__file__).resolve().parents[3]


# -- template.yaml ------------------------------------------------------------------------------------

class _CfnLoader(yaml.SafeLoader):
    """YAML loader that keeps CloudFormation's short tags (!Ref, !GetAtt, !Sub, ...) as their long forms."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def load_template(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_CfnLoader)  # noqa: S506 - a SafeLoader subclass


# -- the embedded AWS ---------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serialize_moto(handler: Any) -> None:
    """Make one moto service handle one request at a time, as atomic as the real service.

    moto is not thread-safe. DynamoDB: transact_write_items restores whole tables on a failed condition
    (a duplicate result), erasing writes other workers made meanwhile (lost `done` counts, double wins,
    500s). SQS: two concurrent ReceiveMessage calls can both pick a message due for the dead-letter queue
    and the second fails moving it (a 500). The local pollers use short polls, so a lock is held briefly.
    The lock is re-entrant: a second wrapping (a profiler, a test hook) must not deadlock.
    """
    original = handler.call_action
    if getattr(original, "serialized", False):
        return
    lock = threading.RLock()

    def call_action(self: Any) -> Any:
        with lock:
            return original(self)

    call_action.serialized = True  # type: ignore[attr-defined]
    handler.call_action = call_action


class _NoTableCopy:
    """Stands in for the `copy` module inside moto's transact_write_items: its rollback backup is the live table."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value


def cheap_moto_transactions() -> None:
    """Roll back a failed moto transaction from copies of the items it targets, not of whole tables.

    moto backs up every table a transaction touches with copy.deepcopy before each TransactWriteItems;
    the flow stores each result in one, so a run of N PRs cost O(N^2) (a year of verl, 1,852 PRs,
    crawled at a few PRs a second). With requests serialized (serialize_moto), only the
    targeted items can change, so restoring those is the same rollback.
    """
    import moto.dynamodb.models as models
    from moto.dynamodb.models.dynamo_type import DynamoType

    backend = models.DynamoDBBackend
    original = backend.transact_write_items
    if getattr(original, "cheap", False):
        return

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved = []
        for entry in transact_items:
            _, op = next(iter(entry.items()))
            table = self.tables.get(op.get("TableName"))
            attrs = op.get("Key") or op.get("Item")
            if table is None or not attrs or table.hash_key_attr not in attrs:
                continue
            hash_key = DynamoType(attrs[table.hash_key_attr])
            range_key = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr in attrs else None
            saved.append((table, hash_key, range_key, copy.deepcopy(table.get_item(hash_key, range_key))))
        models.copy = _NoTableCopy  # type: ignore[assignment]
        try:
            original(self, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(saved):
                if item is None:
                    table.delete_item(hash_key, range_key)
                elif range_key is not None:
                    table.items[hash_key][range_key] = item
                else:
                    table.items[hash_key] = item
            raise
        finally:
            models.copy = copy  # type: ignore[assignment]

    transact_write_items.cheap = True  # type: ignore[attr-defined]
    backend.transact_write_items = transact_write_items  # type: ignore[method-assign]


def cheap_moto_sqs_clock() -> None:
    """Give moto's SQS a plain clock: every SendMessage computes the queue's attributes, which checks each
    queued message's visibility through datetime arithmetic, so sending N messages cost N^2 datetime calls
    (10,000 PRs: minutes in the plan step). time.time() gives the same milliseconds about 25x cheaper."""
    import moto.sqs.models as models

    original = models.unix_time_millis
    if getattr(original, "cheap", False):
        return

    def unix_time_millis(dt: Any = None) -> float:
        return original(dt) if dt is not None else time.time() * 1000.0

    unix_time_millis.cheap = True  # type: ignore[attr-defined]
    models.unix_time_millis = unix_time_millis  # type: ignore[assignment]


class EmbeddedAws:
    """moto in server mode on 127.0.0.1, in this process."""

    def __init__(self) -> None:
        from moto.dynamodb.responses import DynamoHandler
        from moto.server import ThreadedMotoServer
        from moto.sqs.responses import SQSResponse

        serialize_moto(DynamoHandler)
        cheap_moto_transactions()  # relies on the serialization above
        serialize_moto(SQSResponse)
        cheap_moto_sqs_clock()
        self.port = free_port()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> EmbeddedAws:
        # One access-log line per AWS call would drown the progress lines.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


def aws_env(endpoint_url: str | None, fake_credentials: bool) -> dict[str, str]:
    env = {"AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", REGION)}
    if endpoint_url:
        env["AWS_ENDPOINT_URL"] = endpoint_url
    if fake_credentials:
        env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_SESSION_TOKEN="testing",
                   AWS_DEFAULT_REGION=REGION)
    return env


@contextmanager
def patched_env(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the handlers (they read Settings.from_env), then put things back."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    aws.reset()
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        aws.reset()


def _client(service: str) -> Any:
    # prhub.aws keeps one client per thread and service (reset when patched_env changes the endpoint).
    return aws.client(service)


# -- the stack ------------------------------------------------------------------------------------------

@dataclass
class Stack:
    """The local resources made from template.yaml: physical names by logical id, and the functions' env."""

    template: dict[str, Any]
    prefix: str
    tables: dict[str, str] = field(default_factory=dict)
    queues: dict[str, str] = field(default_factory=dict)  # logical id -> URL
    queue_arns: dict[str, str] = field(default_factory=dict)
    buckets: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def resources(self, kind: str) -> dict[str, dict[str, Any]]:
        return {k: v.get("Properties") or {} for k, v in self.template["Resources"].items() if v["Type"] == kind}

    def function_env(self) -> dict[str, str]:
        """The functions' environment for a local run. Secrets are referenced by name and are not part of
        the stack, so the names are left out: the ecosystem's GITHUB_TOKEN / OPENAI_API_KEY stand in."""
        return {k: v for k, v in self.env.items() if not k.endswith("_SECRET")}

    def physical(self, logical: str) -> str | None:
        for names in (self.tables, self.queues, self.buckets, self.parameters):
            if logical in names:
                return names[logical]
        return None


def create_stack(template: dict[str, Any], prefix: str, watchlist: str | None = None,
                 visibility_timeout: int | None = LOCAL_VISIBILITY_TIMEOUT) -> Stack:
    """Create (or reuse) the template's tables, queues, bucket and parameter under `prefix`."""
    stack = Stack(template, prefix)
    ddb, sqs, s3, ssm = _client("dynamodb"), _client("sqs"), _client("s3"), _client("ssm")
    for logical, props in stack.resources("AWS::DynamoDB::Table").items():
        name = f"{prefix}-{logical}"
        spec: dict[str, Any] = {"TableName": name, "KeySchema": props["KeySchema"],
                                "AttributeDefinitions": props["AttributeDefinitions"],
                                "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST")}
        if props.get("GlobalSecondaryIndexes"):
            spec["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
        try:
            ddb.create_table(**spec)
            ttl = props.get("TimeToLiveSpecification")
            if ttl and ttl.get("Enabled"):
                ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                    "AttributeName": ttl["AttributeName"], "Enabled": True})
        except ddb.exceptions.ResourceInUseException:
            pass  # an existing endpoint already has it
        stack.tables[logical] = name
    queues = stack.resources("AWS::SQS::Queue")
    # Dead-letter queues first: the others' redrive policies name them.
    for logical, props in sorted(queues.items(), key=lambda kv: "RedrivePolicy" in kv[1]):
        attributes: dict[str, str] = {}
        if "MessageRetentionPeriod" in props:
            attributes["MessageRetentionPeriod"] = str(props["MessageRetentionPeriod"])
        timeout = visibility_timeout if visibility_timeout is not None else props.get("VisibilityTimeout")
        if timeout is not None:
            attributes["VisibilityTimeout"] = str(timeout)
        redrive = props.get("RedrivePolicy")
        if redrive:
            target = redrive["deadLetterTargetArn"]
            dlq = target["Fn::GetAtt"][0] if isinstance(target, dict) else None
            attributes["RedrivePolicy"] = json.dumps({
                "deadLetterTargetArn": stack.queue_arns[dlq] if dlq else target,
                "maxReceiveCount": int(redrive["maxReceiveCount"])})
        url = sqs.create_queue(QueueName=f"{prefix}-{logical}", Attributes=attributes)["QueueUrl"]
        stack.queues[logical] = url
        stack.queue_arns[logical] = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    for logical in stack.resources("AWS::S3::Bucket"):
        name = f"{prefix}-{logical}".lower()
        with suppress(s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
            s3.create_bucket(Bucket=name)
        stack.buckets[logical] = name
    for logical, props in stack.resources("AWS::SSM::Parameter").items():
        name = f"{prefix}-{logical}"
        value = watchlist if watchlist is not None else _resolve(props.get("Value"), stack)
        ssm.put_parameter(Name=name, Value=value or "{}", Type=props.get("Type", "String"), Overwrite=True)
        stack.parameters[logical] = name
    variables = ((template.get("Globals") or {}).get("Function") or {}).get("Environment", {}).get("Variables", {})
    stack.env = {k: _resolve(v, stack) for k, v in variables.items()}
    return stack


def _resolve(value: Any, stack: Stack) -> str:
    """A template value as the local stack sees it: !Ref of a resource or parameter; other intrinsics are ''."""
    if isinstance(value, dict) and "Ref" in value:
        name = value["Ref"]
        physical = stack.physical(name)
        if physical is not None:
            return physical
        return str((stack.template.get("Parameters") or {}).get(name, {}).get("Default", ""))
    if isinstance(value, dict):
        return ""  # e.g. the CloudFront domain: nothing local stands for it
    return "" if value is None else str(value)


# -- state ----------------------------------------------------------------------------------------------

def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"__b64__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def download_bucket(s3: Any, bucket: str, target: Path) -> int:
    count = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            path = target / obj["Key"]
            if not path.resolve().is_relative_to(target.resolve()):
                continue  # a key like ../x must not escape the directory
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read())
            count += 1
    return count


def save_state(stack: Stack, state: Path) -> None:
    """Tables as JSON lines, bucket objects as files, messages left in queues (normally only DLQs)."""
    ddb, s3, sqs = _client("dynamodb"), _client("s3"), _client("sqs")
    tmp = state.with_name(state.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "tables").mkdir(parents=True)
    for logical, name in stack.tables.items():
        with open(tmp / "tables" / f"{logical}.jsonl", "w", encoding="utf-8") as out:
            for page in ddb.get_paginator("scan").paginate(TableName=name):
                for item in page.get("Items", []):
                    out.write(json.dumps(_encode(item), ensure_ascii=False) + "\n")
    for logical, name in stack.buckets.items():
        download_bucket(s3, name, tmp / "buckets" / logical)
    (tmp / "queues").mkdir()
    for logical, url in stack.queues.items():
        bodies: list[str] = []
        while True:
            # Received messages stay invisible for the rest of this process, so each is read once.
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600,
                                      WaitTimeSeconds=0).get("Messages", [])
            if not got:
                break
            bodies.extend(m["Body"] for m in got)
        if bodies:
            (tmp / "queues" / f"{logical}.jsonl").write_text("".join(b + "\n" for b in bodies), encoding="utf-8")
    if state.exists():
        shutil.rmtree(state)
    state.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(state)


def restore_state(stack: Stack, state: Path) -> dict[str, int]:
    """Load a saved state into the (fresh) stack; returns item counts per table."""
    from prhub.site import TYPES

    counts: dict[str, int] = {}
    if not state.is_dir():
        return counts
    ddb, s3, sqs = _client("dynamodb"), _client("s3"), _client("sqs")
    for logical, name in stack.tables.items():
        path = state / "tables" / f"{logical}.jsonl"
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as handle:
            items = [_decode(json.loads(line)) for line in handle if line.strip()]
        for start in range(0, len(items), 25):
            pending: dict[str, Any] = {name: [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
            while pending:
                pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        counts[logical] = len(items)
    for logical, name in stack.buckets.items():
        root = state / "buckets" / logical
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file():
                key = path.relative_to(root).as_posix()
                s3.put_object(Bucket=name, Key=key, Body=path.read_bytes(),
                              ContentType=TYPES.get(path.suffix, "application/octet-stream"))
    for logical, url in stack.queues.items():
        path = state / "queues" / f"{logical}.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    sqs.send_message(QueueUrl=url, MessageBody=line)
    return counts


# -- invoking the handlers ----------------------------------------------------------------------------

@dataclass
class LambdaContext:
    """What Powertools reads from Lambda's context object."""

    function_name: str
    memory_limit_in_mb: int = 512
    timeout_ms: int = 300_000
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    _deadline: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.invoked_function_arn = self.invoked_function_arn or (
            f"arn:aws:lambda:{REGION}:123456789012:function:{self.function_name}")
        self._deadline = time.monotonic() + self.timeout_ms / 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def load_handler(root: Path, template: dict[str, Any], logical: str) -> Callable[[Any, Any], Any]:
    """A fresh copy of the function's module (one per simulated execution environment)."""
    props = template["Resources"][logical]["Properties"]
    module_name, _, attr = props["Handler"].rpartition(".")
    path = root / props["CodeUri"] / f"{module_name}.py"
    spec = importlib.util.spec_from_file_location(f"prhub_fn_{logical}_{uuid.uuid4().hex[:8]}", path)
    if spec is None or spec.loader is None:
        raise PipelineError(f"cannot load {path}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _quiet_logs()
    return getattr(module, attr)  # type: ignore[no-any-return]


class _Stderr:
    """Whatever sys.stderr is at the moment of writing (it may be swapped after the handler is set up)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _quiet_logs() -> None:
    # Powertools logs JSON to stdout; stdout belongs to the paths `prhub run` prints.
    for handler in logging.getLogger(os.environ.get("POWERTOOLS_SERVICE_NAME", "prhub")).handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
            handler.setStream(_Stderr())  # type: ignore[arg-type]


def direct_invoke(name: str, handler: Callable[[Any, Any], Any], event: Any, context: Any) -> Any:
    return handler(event, context)


def sqs_event(messages: list[dict[str, Any]], queue_arn: str) -> dict[str, Any]:
    """Lambda's SQS event for received messages."""
    return {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": {k: m.get("Attributes", {}).get(k, "") for k in (
            "ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp")},
        "messageAttributes": {}, "md5OfBody": m.get("MD5OfBody", ""), "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn, "awsRegion": REGION,
    } for m in messages]}


PROCESSING_VISIBILITY = 900  # s: a received batch stays hidden while its invocation runs, as the stack's
#                            visibility timeout (6x the function's) does; only failures come back early.
IDLE_POLL = 0.2  # s between short polls of an empty queue


class Poller(threading.Thread):
    """One simulated Lambda execution environment attached to a queue by an event source mapping.

    A batch is received with a visibility timeout longer than any invocation, so a slow batch is never
    delivered twice meanwhile (that would burn receives of healthy messages towards the DLQ). Records the
    invocation failed come back after the short local retry delay, except those the function itself
    held back with ChangeMessageVisibility (RetryLater): the poller watches its thread's SQS client,
    which the function shares, for those calls.
    """

    def __init__(self, runner: Runner, logical: str, queue: str, batch: int) -> None:
        super().__init__(daemon=True, name=f"{logical}-poller")
        self.runner, self.logical, self.batch = runner, logical, batch
        self.url, self.arn = runner.stack.queues[queue], runner.stack.queue_arns[queue]
        self.handler = load_handler(runner.root, runner.stack.template, logical)
        self.error: BaseException | None = None
        self.held: set[str] = set()

    def _note_hold(self, params: dict[str, Any], **_: Any) -> None:
        if params.get("QueueUrl") == self.url:
            self.held.add(str(params.get("ReceiptHandle")))

    def run(self) -> None:
        try:
            sqs = _client("sqs")  # this thread's client: the function's code gets the same one
            sqs.meta.events.register("provide-client-params.sqs.ChangeMessageVisibility", self._note_hold)
            while not self.runner.stopping.is_set():
                got = sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=self.batch, WaitTimeSeconds=0,
                                          VisibilityTimeout=PROCESSING_VISIBILITY,
                                          AttributeNames=["All"]).get("Messages", [])
                if not got:
                    self.runner.stopping.wait(IDLE_POLL)
                    continue
                self.runner.busy(+1)
                try:
                    self._deliver(sqs, got)
                finally:
                    self.runner.busy(-1)
        except BaseException as exc:  # surfaced by the runner: a dead poller must not hang the run
            self.error = exc

    def _deliver(self, sqs: Any, messages: list[dict[str, Any]]) -> None:
        event = sqs_event(messages, self.arn)
        self.held.clear()
        try:
            answer = self.runner.invoke(self.logical, self.handler, event, LambdaContext(self.logical))
            failed = {f["itemIdentifier"] for f in (answer or {}).get("batchItemFailures", [])}
        except Exception as exc:  # the whole invocation failed: Lambda retries every record
            self.runner.say(f"{self.logical} invocation failed: {exc}")
            failed = {m["MessageId"] for m in messages}
        done = [m for m in messages if m["MessageId"] not in failed]
        retry = [m for m in messages if m["MessageId"] in failed and m["ReceiptHandle"] not in self.held]
        for start in range(0, len(done), 10):
            sqs.delete_message_batch(QueueUrl=self.url, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done[start:start + 10])])
        for start in range(0, len(retry), 10):
            sqs.change_message_visibility_batch(QueueUrl=self.url, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": self.runner.retry_delay}
                for i, m in enumerate(retry[start:start + 10])])


@dataclass
class RunResult:
    run_id: str
    report: dict[str, Any]
    report_key: str
    paths: dict[str, Path]  # report.md, report.pdf, report.json, index.html under the output directory
    site_dir: Path
    timings: dict[str, float]
    planned: list[dict[str, Any]]


class Runner:
    """Drives one plan event through the handlers until every planned run is reported."""

    def __init__(self, root: Path, stack: Stack, invoke: Invoker, progress: Progress, workers: int,
                 retry_delay: int = LOCAL_VISIBILITY_TIMEOUT) -> None:
        self.root, self.stack, self.invoke, self.say, self.workers = root, stack, invoke, progress, workers
        self.retry_delay = retry_delay
        self.stopping = threading.Event()
        self._busy = 0
        self._lock = threading.Lock()

    def busy(self, delta: int) -> None:
        with self._lock:
            self._busy += delta

    def idle(self) -> bool:
        with self._lock:
            return self._busy == 0

    def queue_empty(self, logical: str, sqs: Any) -> bool:
        attrs = sqs.get_queue_attributes(QueueUrl=self.stack.queues[logical], AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed"])["Attributes"]  # a rate-limited PR waits as a delayed copy
        return sum(int(v) for v in attrs.values()) == 0

    def run(self, event: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        plan = load_handler(self.root, self.stack.template, "PlanFunction")
        answer = self.invoke("PlanFunction", plan, event, LambdaContext("PlanFunction"))
        if not answer.get("ok"):
            raise InputError(answer.get("error", "plan failed"))
        runs = [r for r in answer["runs"] if "error" not in r]
        total = sum(r["expected"] for r in runs)
        for r in runs:
            self.say(f"listed {r['expected']} PRs merged into {r['repo']} from {r['period']['since']} "
                     f"to {r['period']['until']} ({r['period']['tz']})")
        pollers = [Poller(self, "ScoreFunction", "ScoreQueue", 10) for _ in range(max(1, self.workers))]
        pollers.append(Poller(self, "ReportFunction", "ReportQueue", 1))
        for p in pollers:
            p.start()
        try:
            self._wait([r["run_id"] for r in runs], total, pollers, timeout)
        finally:
            self.stopping.set()
            for p in pollers:
                p.join(timeout=10)
        return runs

    def _wait(self, run_ids: list[str], total: int, pollers: list[Poller], timeout: float) -> None:
        ddb, sqs = _client("dynamodb"), _client("sqs")
        table = self.stack.tables["RunsTable"]
        deadline = time.monotonic() + timeout
        last, stuck_since, swept = -1, None, 0
        while True:
            for p in pollers:
                if p.error is not None:
                    raise PipelineError(f"{p.name} died: {p.error!r}") from p.error
            runs = [ddb.get_item(TableName=table, Key={"run_id": {"S": r}}, ConsistentRead=True).get("Item", {})
                    for r in run_ids]
            progress = sum(int(r.get("done", {}).get("N", 0)) + int(r.get("failed", {}).get("N", 0)) for r in runs)
            if progress != last:
                failed = sum(int(r.get("failed", {}).get("N", 0)) for r in runs)
                self.say(f"scored {progress}/{total}" + (f" ({failed} failed)" if failed else ""))
                last = progress
            reported = all(r.get("status", {}).get("S") == "reported" for r in runs)
            drained = self.idle() and self.queue_empty("ScoreQueue", sqs) and self.queue_empty("ReportQueue", sqs)
            if reported and drained:
                return
            if drained and not reported:
                # Nothing left to deliver, yet a run is open: a worker died or a message was lost. Sweep.
                stuck_since = stuck_since or time.monotonic()
                if time.monotonic() - stuck_since > 1.0:
                    if swept >= 3:
                        raise PipelineError("the report could not be written (see the messages above)")
                    self.say("queues drained but the run is open: sweeping")
                    handler = load_handler(self.root, self.stack.template, "ReportFunction")
                    try:
                        self.invoke("ReportFunction", handler, {"sweep": True, "older_than_minutes": 0},
                                    LambdaContext("ReportFunction"))
                    except Exception as exc:  # counted like a sweep that could not report
                        self.say(f"ReportFunction sweep failed: {exc}")
                    swept += 1
                    stuck_since = None
            else:
                stuck_since = None
            if time.monotonic() > deadline:
                raise PipelineError(f"the run did not finish within {timeout:.0f} s")
            time.sleep(0.2)


def sample_settings() -> dict[str, Any]:
    """The bundled sample: its repository settings and its week."""
    doc = json.loads((SAMPLE_DIR / "sample.json").read_text(encoding="utf-8"))
    doc["config"]["source"] = "jsonl:" + str(SAMPLE_DIR / doc.pop("file"))
    return doc


def local_watchlist(template: dict[str, Any], config_text: str | None) -> str:
    """The watch list the local stack stores: --config's file or template.yaml's default, plus the sample repo."""
    if config_text is None:
        config_text = str((template.get("Parameters") or {}).get("WatchedRepositories", {}).get("Default", "{}"))
    doc = json.loads(config_text) if config_text.strip() else {}
    WatchList.parse(json.dumps(doc))  # fail early, with the parser's message
    sample = sample_settings()["config"]
    repos = doc.setdefault("repos", [])
    if not any((r.get("repo") if isinstance(r, dict) else r) == sample["repo"] for r in repos):
        repos.append(sample)
    return json.dumps(doc, ensure_ascii=False)


def run_pipeline(*, repo: str | None = None, since: str | None = None, until: str | None = None,
                 tz: str | None = None, source: str | None = None, scorer: str | None = None,
                 lang: str | None = None, out: str | Path = "site", state: str | Path | None = ".prhub/state",
                 endpoint_url: str | None = None, prefix: str = "prhub", config_text: str | None = None,
                 workers: int = 4, invoke: Invoker | None = None, progress: Progress | None = None,
                 timeout: float = 900, root: Path | None = None, now: datetime | None = None,
                 visibility_timeout: int = LOCAL_VISIBILITY_TIMEOUT) -> RunResult:
    """Run one report through the real flow locally and copy the site to `out`.

    Without `repo` the bundled sample is reported (its week unless dates are given).
    Without dates, the last complete Monday–Sunday week in the repository's time zone.
    `endpoint_url` uses an existing endpoint instead of starting moto (state is then the endpoint's).
    `visibility_timeout` (seconds) replaces the queues' own, so retries and DLQ moves happen within the run.
    """
    root = root or default_root()
    say = progress or (lambda msg: print(msg, file=sys.stderr, flush=True))
    template = load_template(root / "template.yaml")
    watchlist_text = local_watchlist(template, config_text)
    event = plan_event(WatchList.parse(watchlist_text), repo, since, until, tz, source, scorer, lang,
                       now or datetime.now(UTC))
    timings: dict[str, float] = {}
    started = time.monotonic()
    with _aws(endpoint_url) as url, patched_env(aws_env(url, fake_credentials=endpoint_url is None)):
        stack = create_stack(template, prefix, watchlist_text, visibility_timeout)
        if scorer == "llm":
            # Every worker would fail the same way: say it now (inside the endpoint's env: a secret may be named).
            from prhub import llm

            llm.make_scorer(WatchList.parse(watchlist_text).get(event["repo"]).with_overrides(scorer="llm"))
        if state is not None:
            counts = restore_state(stack, Path(state))
            if counts:
                say(f"restored state from {state}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
        timings["setup_s"] = time.monotonic() - started
        runner = Runner(root, stack, invoke or direct_invoke, say, workers, visibility_timeout)
        log_level = os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING")
        try:
            with patched_env({**stack.function_env(), "POWERTOOLS_LOG_LEVEL": log_level}):
                begun = time.monotonic()
                planned = runner.run(event, timeout)
                timings["pipeline_s"] = time.monotonic() - begun
        finally:
            # Saved even when the run failed: the scores already in the cache (and the DLQs) are not lost.
            if state is not None:
                save_state(stack, Path(state))
        if not planned:
            raise InputError("nothing to report: no repository was planned")
        run_id = planned[0]["run_id"]
        item = _client("dynamodb").get_item(TableName=stack.tables["RunsTable"], Key={"run_id": {"S": run_id}},
                                            ConsistentRead=True)["Item"]
        key = item["report_key"]["S"]
        site_dir = Path(out)
        site_dir.mkdir(parents=True, exist_ok=True)
        download_bucket(_client("s3"), stack.buckets["SiteBucket"], site_dir)
    timings["total_s"] = time.monotonic() - started
    paths = {name: site_dir / key / name for name in ("report.md", "report.pdf", "report.json", "index.html")}
    report = json.loads(paths["report.json"].read_text(encoding="utf-8"))
    say(f"report written: {site_dir / key}")
    return RunResult(run_id, report, key, paths, site_dir, timings, planned)


@contextmanager
def _aws(endpoint_url: str | None) -> Iterator[str]:
    if endpoint_url:
        yield endpoint_url
        return
    with EmbeddedAws() as server:
        yield server.url


def plan_event(watchlist: WatchList, repo: str | None, since: str | None, until: str | None, tz: str | None,
               source: str | None, scorer: str | None, lang: str | None, now: datetime) -> dict[str, Any]:
    """The PlanFunction event for the command line's choices (the sample when no repo is named)."""
    if (since is None) != (until is None):
        raise InputError("give both --since and --until (dates, both inclusive), or neither for the last full week")
    if repo is None:
        sample = sample_settings()
        repo = sample["config"]["repo"]
        if since is None:
            since, until = sample["since"], sample["until"]
    if since is None or until is None:
        week = Period.last_complete_week(now, tz or watchlist.get(repo).tz)
        since, until = week.since.isoformat(), week.until.isoformat()
    event: dict[str, Any] = {"repo": repo, "since": since, "until": until}
    for key, value in (("tz", tz), ("source", source), ("scorer", scorer), ("lang", lang)):
        if value is not None:
            event[key] = value
    return event
