"""The local runner: the real handlers on an embedded AWS (moto in server mode on 127.0.0.1).

`run_pipeline(...)` is what `prhub run` calls, and what tests and benchmarks
call directly. It

1. starts moto (`ThreadedMotoServer`, a free port) unless an endpoint is given;
2. creates the tables, queues (with their redrive policies), bucket and SSM
   parameter from template.yaml's own Properties, and the functions'
   environment from its Globals, so the local run cannot drift from the stack;
3. restores the state directory (tables, bucket, queue messages);
4. invokes PlanFunction, then lets N worker threads poll ScoreQueue, one
   thread each PlanQueue (a long listing's continuation), ReportQueue, DeliveryQueue and PagesQueue,
   calling the handlers with Lambda's SQS event shape,
   deleting only the records not listed in `batchItemFailures` and handing the
   failed ones back after a short retry delay (see Poller);
5. finishes when every run is reported and the queues are drained (PR pages included), invoking
   the sweep when the queues are empty but a run is stuck;
6. saves the state and copies the bucket to the output directory.

Each worker thread loads its own copy of the handler modules, as each Lambda
execution environment has its own: module-level objects (the BatchProcessor)
are never shared between concurrent invocations. `invoke` wraps every handler
call, which is where fault injection hooks in.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import logging
import os
import shutil
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from prhub.cloud import redaction
from prhub.cloud.store import Progress as RunProgress
from prhub.cloud.store import Run as RunItem
from prhub.cloud.store import Store
from prhub.core.config import Settings, WatchList
from prhub.core.errors import InputError, PrhubError, SourceUnavailable
from prhub.core.period import Period
from prhub.flow.delivery_deps import LITERAL_ENV
from prhub.flow.plan import PlanRequest, parse_plan_event
from prhub.report.digest import folder as digest_folder
from prhub.sources.orgs import OrgRepos, expand

from prhub_local import packs
from prhub_local.embedded import (
    REGION,
    EmbeddedAws,
    EmbeddedBucket,
    EmbeddedQueue,
    aws_env,
    client,
    patched_env,
    queued,
)
from prhub_local.progress import Display, lines
from prhub_local.sample import local_watchlist, sample_settings
from prhub_local.state import Journal, copy_site, download_bucket, locked, restore_state, save_state
from prhub_local.template import LOCAL_VISIBILITY_TIMEOUT, Stack, create_stack, default_root, load_template

Invoker = Callable[[str, Callable[[Any, Any], Any], Any, Any], Any]
Progress = Callable[[str], None]


class PipelineError(PrhubError):
    """The local run could not finish (timeout, a report that keeps failing)."""


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


def load_handler(root: Path, template: dict[str, Any], logical: str, warm: Any = None) -> Callable[[Any, Any], Any]:
    """A fresh copy of the function's module (one per simulated execution environment); `warm`, when given, is the
    Deps it starts with, as a warm environment holds the one its first invocation built: how the runner hands a
    function adapters of its own (its page renderer) without changing any module of the layer."""
    props = template["Resources"][logical]["Properties"]
    module_name, _, attr = props["Handler"].rpartition(".")
    path = root / props["CodeUri"] / f"{module_name}.py"
    spec = importlib.util.spec_from_file_location(f"prhub_fn_{logical}_{uuid.uuid4().hex[:8]}", path)
    if spec is None or spec.loader is None:
        raise PipelineError(f"cannot load {path}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if warm is not None:
        setattr(module, "_deps", warm)  # noqa: B010 - the handlers' per-process Deps (functions/*/app.py), built when it is None
    _quiet_logs()
    return getattr(module, attr)  # type: ignore[no-any-return]


class _Stderr:
    """Whatever sys.stderr is at the moment of writing (it may be swapped after the handler is set up), unless
    the writing thread holds its lines back (HeldLogs). Each Powertools record is written as one readable line."""

    held = threading.local()

    def write(self, text: str) -> int:
        text = readable(text)
        lines: list[str] | None = getattr(self.held, "lines", None)
        if lines is not None:
            lines.append(text)
            return len(text)
        return sys.stderr.write(text) if text else 0

    def flush(self) -> None:
        sys.stderr.flush()


# What Powertools adds to every record for CloudWatch (the Lambda context, where in the code): not for a person.
_CONTEXT_KEYS = {"level", "location", "message", "timestamp", "service", "cold_start", "function_name",
                 "function_memory_size", "function_arn", "function_request_id", "xray_trace_id", "sampling_rate"}
_LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


def readable(text: str) -> str:
    """A handler's Powertools record (one JSON object a line, with a fake ARN and a request id) as the one line a
    person reads: `warning: DeliveryFunction: channel cannot be resolved (channel=..., error=...)`. Records below
    POWERTOOLS_LOG_LEVEL (WARNING unless set) are left out; text that is no such record passes as it is."""
    try:
        record = json.loads(text)
    except ValueError:
        return text
    if not isinstance(record, dict) or "level" not in record or "message" not in record:
        return text
    level = str(record["level"]).upper()
    wanted = _LEVELS.get(os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING").upper(), 30)
    if _LEVELS.get(level, 30) < wanted:
        return ""
    extra = ", ".join(f"{k}={_short(v)}" for k, v in record.items() if k not in _CONTEXT_KEYS)
    who = str(record.get("function_name") or record.get("service") or "prhub")
    return f"{level.lower()}: {who}: {_short(record['message'])}" + (f" ({extra})" if extra else "") + "\n"


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())  # a traceback or a multi-line message stays one line
    return text if len(text) <= limit else text[:limit] + "…"


def _quiet_logs() -> None:
    # Powertools logs JSON to stdout; stdout belongs to the paths `prhub run` prints.
    for handler in logging.getLogger(os.environ.get("POWERTOOLS_SERVICE_NAME", "prhub")).handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
            handler.setStream(_Stderr())  # type: ignore[arg-type]


class HeldLogs:
    """The handlers' log lines this thread writes meanwhile, held: written out at the end unless dropped.

    A refused plan is one line for the person who asked (`prhub: ...`, exit 2); the JSON record the handler
    logs about the refusal is for CloudWatch, and would only bury that line."""

    def __enter__(self) -> HeldLogs:
        self.lines: list[str] = []
        _Stderr.held.lines = self.lines
        return self

    def drop(self) -> None:
        self.lines.clear()

    def __exit__(self, *exc: object) -> None:
        _Stderr.held.lines = None
        sys.stderr.write("".join(self.lines))


def _body(record: dict[str, Any]) -> dict[str, Any]:
    try:
        body = json.loads(record.get("body") or "{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


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


# a run is done when all are drained (PlanQueue: a listing that outlasted its invocation)
FLOW_QUEUES = ("PlanQueue", "ScoreQueue", "ReportQueue", "PagesQueue", "DeliveryQueue")
PROCESSING_VISIBILITY = 900  # s: a received batch stays hidden while its invocation runs, as the stack's
#                            visibility timeout (6x the function's) does; only failures come back early.
IDLE_POLL = 0.5  # s at most between short polls of an empty queue (a retry or a delayed message comes due on its
#                own); a send to the queue polls it again at once, when done. A long poll would hold moto's SQS
#                lock (moto_patches).


class Poller(threading.Thread):
    """One simulated Lambda execution environment attached to a queue by an event source mapping.

    A batch is received with a visibility timeout longer than any invocation, so a slow batch is never
    delivered twice meanwhile (that would burn receives of healthy messages towards the DLQ). Records the
    invocation failed come back after the short local retry delay, except those the function itself
    held back with ChangeMessageVisibility (RetryLater): the poller watches its thread's SQS client,
    which the function shares, for those calls, and for the sends it makes (Runner.watch_sends). An idle poller
    polls again as soon as a send to its queue is done (what it sent is there to take), else every IDLE_POLL
    seconds.
    """

    def __init__(self, runner: Runner, logical: str, queue: str) -> None:
        super().__init__(daemon=True, name=f"{logical}-poller")
        self.runner, self.logical, self.batch = runner, logical, batch_size(runner.stack.template, queue)
        self.url, self.arn = runner.stack.queues[queue], runner.stack.queue_arns[queue]
        self.handler = load_handler(runner.root, runner.stack.template, logical, runner.warm_deps(logical))
        self.error: BaseException | None = None
        self.held: set[str] = set()

    def _note_hold(self, params: dict[str, Any], **_: Any) -> None:
        if params.get("QueueUrl") == self.url:
            self.held.add(str(params.get("ReceiptHandle")))

    def run(self) -> None:
        try:
            sqs = client("sqs")  # this thread's client: the function's code gets the same one
            sqs.meta.events.register("provide-client-params.sqs.ChangeMessageVisibility", self._note_hold)
            self.runner.watch_sends(sqs)
            queue = mapped_queue(self.url, sqs)
            while not self.runner.stopping.is_set():
                seen = self.runner.sent_to(self.url)
                got = queue.receive(self.batch, PROCESSING_VISIBILITY)
                if not got:
                    self.runner.wait_for_send(self.url, seen, IDLE_POLL)
                    continue
                self.runner.busy(+1)
                try:
                    self._deliver(queue, got)
                finally:
                    self.runner.busy(-1)
        except BaseException as exc:  # surfaced by the runner: a dead poller must not hang the run
            self.error = exc

    def _deliver(self, queue: MappedQueue, messages: list[dict[str, Any]]) -> None:
        ids = {m["MessageId"] for m in messages}
        self.runner.in_hand.update(ids)  # what a stop cuts off is due at once at the next run (state.save_state)
        self._invoke(queue, messages)  # an interruption (Ctrl-C, SIGTERM) out of it leaves them in hand
        self.runner.in_hand.difference_update(ids)

    def _invoke(self, queue: MappedQueue, messages: list[dict[str, Any]]) -> None:
        event = sqs_event(messages, self.arn)
        self.held.clear()
        try:
            answer = self.runner.invoke(self.logical, self.handler, event, LambdaContext(self.logical))
            failed = {f["itemIdentifier"] for f in (answer or {}).get("batchItemFailures", [])}
        except Exception as exc:  # the whole invocation failed: Lambda retries every record
            self.runner.say(f"{self.logical} invocation failed: {exc}")
            failed = {m["MessageId"] for m in messages}
        done = [m["ReceiptHandle"] for m in messages if m["MessageId"] not in failed]
        retry = [m["ReceiptHandle"] for m in messages
                 if m["MessageId"] in failed and m["ReceiptHandle"] not in self.held]
        for start in range(0, len(done), 10):
            queue.delete(done[start:start + 10])
        for start in range(0, len(retry), 10):
            queue.change_visibility(retry[start:start + 10], self.runner.retry_delay)


class MappedQueue(Protocol):
    """A queue as the local event source mapping uses it (embedded.EmbeddedQueue, or BotoQueue)."""

    def receive(self, count: int, visibility: int) -> list[dict[str, Any]]: ...
    def delete(self, handles: list[str]) -> None: ...
    def change_visibility(self, handles: list[str], timeout: int) -> None: ...
    def depth(self) -> int: ...


class BotoQueue:
    """MappedQueue through boto3: an endpoint of the caller's (a moto server, LocalStack)."""

    def __init__(self, sqs: Any, url: str) -> None:
        self.sqs, self.url = sqs, url

    def receive(self, count: int, visibility: int) -> list[dict[str, Any]]:
        return list(self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=count, WaitTimeSeconds=0,
                                             VisibilityTimeout=visibility, AttributeNames=["All"]
                                             ).get("Messages", []))

    def delete(self, handles: list[str]) -> None:
        self.sqs.delete_message_batch(QueueUrl=self.url, Entries=[
            {"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)])

    def change_visibility(self, handles: list[str], timeout: int) -> None:
        self.sqs.change_message_visibility_batch(QueueUrl=self.url, Entries=[
            {"Id": str(i), "ReceiptHandle": h, "VisibilityTimeout": timeout} for i, h in enumerate(handles)])

    def depth(self) -> int:
        attrs = self.sqs.get_queue_attributes(QueueUrl=self.url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed"])["Attributes"]  # a rate-limited PR waits as a delayed copy
        return sum(int(v) for v in attrs.values())


def mapped_queue(url: str, sqs: Any) -> MappedQueue:
    """The queue at `url` on the embedded moto's backend when boto3 would reach it there, else through `sqs`."""
    return EmbeddedQueue.of(url) or BotoQueue(sqs, url)


def batch_size(template: dict[str, Any], queue: str) -> int:
    """BatchSize of the event source mapping that reads `queue` (template.yaml's, so the local run batches as the
    stack does)."""
    for resource in template["Resources"].values():
        props = resource.get("Properties") or {}
        arn = (props.get("EventSourceArn") or {}).get("Fn::GetAtt")
        if resource["Type"] == "AWS::Lambda::EventSourceMapping" and arn in ([queue, "Arn"], f"{queue}.Arn"):
            return int(props.get("BatchSize", 10))  # Lambda's default for a standard queue
    raise PipelineError(f"template.yaml maps no function to {queue}")


@dataclass
class RunResult:
    run_id: str
    report_key: str
    paths: dict[str, Path]  # report.md, report.pdf, report.json, index.html under the output directory
    site_dir: Path
    timings: dict[str, float]
    planned: list[dict[str, Any]]
    report_keys: list[str] = field(default_factory=list)  # every planned run's report, the first one's first

    @cached_property
    def report(self) -> dict[str, Any]:
        """The first report's report.json, read when asked: `prhub run` prints where the reports went and never
        reads one, and a year's 2.2 MB took 0.27 s to parse after the run had ended."""
        return json.loads(self.paths["report.json"].read_text(encoding="utf-8"))  # type: ignore[no-any-return]


LOOK_EVERY = 0.2  # s at least between two looks of the run's driver at its runs and queues (Runner._wait)
STALL_SECONDS = 900.0  # a run gives up when nothing moved this long (no invocation ended, no count changed)
PAGES_POLLERS = 2  # PagesFunction environments at once (template.yaml's mapping allows 4)


SENDING = "prhub_queue_url"  # where a send's request context keeps its queue for its after-call (Runner.watch_sends)


def _sending_to(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    context[SENDING] = str(params.get("QueueUrl"))


class Runner:
    """Drives one plan event through the handlers until every planned run is reported.

    `timeout` (seconds) bounds the whole run when given; without it the deadline follows the work: the run
    gives up only after `stall` seconds in which no invocation ended, so a 5,000-PR month runs as long as it
    keeps moving."""

    def __init__(self, root: Path, stack: Stack, invoke: Invoker, display: Display, workers: int,
                 retry_delay: int = LOCAL_VISIBILITY_TIMEOUT, in_hand: set[str] | None = None) -> None:
        self.root, self.stack, self.hook, self.display, self.workers = root, stack, invoke, display, workers
        self.say = display.say
        self.retry_delay = retry_delay
        self.in_hand = set() if in_hand is None else in_hand  # ids of the messages invocations are processing
        self.stopping = threading.Event()
        self._busy = 0
        self._ended = 0  # invocations ended so far
        self._sent: dict[str, int] = {}  # queue URL -> sends to it so far (watch_sends)
        self._lock = threading.Condition()
        self.active: dict[str, int] = {}  # function -> invocations running now
        self.pages = 0  # PR pages handled so far (built, or found current)
        self.scored_shown = -1  # the PRs scored the display shows
        self.pages_shown = 0  # the PR pages handled the display shows
        self.report_shown = False  # whether the display said the report stage
        # What renders PagesFunction's pages (render_pool): handed in through its Deps; None, in turn as a Lambda.
        self.render_pages: Callable[[Any], Iterator[dict[str, bytes]]] | None = None
        # What writes the site: on the embedded moto, its S3 backend straight (EmbeddedBucket); None, through S3.
        self.site_bucket: Any = None

    def warm_deps(self, logical: str) -> Any:
        """The Deps a function's environment starts with, where the runner has adapters of its own for it (the
        embedded site bucket; PagesFunction's page renderer); None where the handler builds its own from the
        environment. Handed in, never swapped into a module of the layer."""
        from prhub.flow.delivery_deps import DeliveryDeps
        from prhub.flow.deps import Deps

        renders = logical == "PagesFunction" and self.render_pages is not None
        if self.site_bucket is None and not renders:
            return None
        made = {"site_bucket": self.site_bucket} if self.site_bucket is not None else {}
        if logical == "DeliveryFunction":
            return DeliveryDeps.from_env(**made)
        deps = Deps.from_env(**made)
        return replace(deps, render_pages=self.render_pages) if renders else deps

    def invoke(self, name: str, handler: Callable[[Any, Any], Any], event: Any, context: Any) -> Any:
        """The hook's call, counted for the progress display (which function runs, how many PR pages are built)."""
        with self._lock:
            self.active[name] = self.active.get(name, 0) + 1
        try:
            answer = self.hook(name, handler, event, context)
        finally:
            with self._lock:
                self.active[name] -= 1
        if name == "PagesFunction" and isinstance(event, dict):
            failed = {f.get("itemIdentifier") for f in (answer or {}).get("batchItemFailures", [])}
            handled = sum(len(_body(r).get("numbers") or []) for r in event.get("Records", [])
                          if r.get("messageId") not in failed)
            with self._lock:
                self.pages += handled
        return answer

    def running(self, name: str) -> bool:
        with self._lock:
            return self.active.get(name, 0) > 0

    def busy(self, delta: int) -> None:
        with self._lock:
            self._busy += delta
            if delta < 0:  # an invocation ended: whatever it sent can be taken now
                self._ended += 1
                self._lock.notify_all()

    def activity(self) -> int:
        with self._lock:
            return self._ended

    def wait_for_activity(self, seen: int, timeout: float) -> None:
        """Until an invocation ends after `seen` was read, the run stops, or `timeout` passes."""
        with self._lock:
            self._lock.wait_for(lambda: self._ended != seen or self.stopping.is_set(), timeout)

    def watch_sends(self, sqs: Any) -> None:
        """Count the sends `sqs` makes by queue (the pollers' and this thread's clients: every invocation's sends
        go through one of them), so a send wakes only its own queue's idle pollers, once it is done."""
        for operation in ("SendMessage", "SendMessageBatch"):
            sqs.meta.events.register(f"provide-client-params.sqs.{operation}", _sending_to,
                                     unique_id=f"prhub-sending-{operation}")
            sqs.meta.events.register(f"after-call.sqs.{operation}", self._sent_one,
                                     unique_id=f"prhub-sent-{operation}")

    def _sent_one(self, context: dict[str, Any], **_: Any) -> None:
        if (url := context.get(SENDING)) is not None:
            with self._lock:
                self._sent[url] = self._sent.get(url, 0) + 1
                self._lock.notify_all()

    def sent_to(self, url: str) -> int:
        with self._lock:
            return self._sent.get(url, 0)

    def wait_for_send(self, url: str, seen: int, timeout: float) -> None:
        """Until a send to `url` is done after `seen` was read (sent_to), the run stops, or `timeout` passes (a
        delayed message or a retry comes due on its own). Idle pollers then cost two requests a second: they share
        the process and moto's SQS lock with the workers. Woken by every invocation's end instead, a year's idle
        pollers made 770 empty receives (each its GIL time) while 165 score batches ran."""
        with self._lock:
            self._lock.wait_for(lambda: self._sent.get(url, 0) != seen or self.stopping.is_set(), timeout)

    def stop(self) -> None:
        self.stopping.set()
        with self._lock:
            self._lock.notify_all()

    def idle(self) -> bool:
        with self._lock:
            return self._busy == 0

    def queue_empty(self, logical: str, sqs: Any) -> bool:
        return self.queued(logical, sqs) == 0

    def run(self, events: list[dict[str, Any]], timeout: float | None = None, stall: float = STALL_SECONDS,
            resumed: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Plan `events`, then drive them and the `resumed` runs (see resumable) until all are reported."""
        plan = load_handler(self.root, self.stack.template, "PlanFunction", self.warm_deps("PlanFunction"))
        runs = list(resumed or [])
        for r in runs:
            self.say(f"resuming run {r['run_id']}, stopped part-way: {r['results']} of its {r['expected']} PRs "
                     "have a result" + (f", {r['requeued']} queued again" if r["requeued"] else ""))
        for event in events:
            self.display.update(f"listing {event.get('repo', 'the sample')}'s PRs")
            with HeldLogs() as logs:
                answer = self.invoke("PlanFunction", plan, event, LambdaContext("PlanFunction"))
                if not answer.get("ok"):
                    logs.drop()
                    if answer.get("transient"):  # GitHub cannot answer now: not bad input (exit 1, not 2)
                        raise SourceUnavailable(answer.get("error", "the source cannot answer now"))
                    raise InputError(answer.get("error", "plan failed"))
            runs += [r for r in answer["runs"] if "error" not in r]
        for r in runs:
            if r.get("resumed"):
                continue
            for warning in r.get("warnings", []):
                self.say(f"warning: {warning}")
            span = f"{r['repo']} from {r['period']['since']} to {r['period']['until']} ({r['period']['tz']})"
            if r.get("continued"):
                self.say(f"listed {r['listed']} PRs merged into {span} so far: the listing goes on")
            else:
                self.say(f"listed {r['expected']} PRs merged into {span}")
        self.drain([r["run_id"] for r in runs], timeout, stall)
        return runs

    def drain(self, run_ids: list[str], timeout: float | None = None, stall: float = STALL_SECONDS) -> None:
        """Drive every queue's function until the runs `run_ids` are published and the queues are empty (what
        `prhub judge` does with the revisions it queued, too)."""
        pollers = [Poller(self, "ScoreFunction", "ScoreQueue") for _ in range(max(1, self.workers))]
        pollers.append(Poller(self, "PlanFunction", "PlanQueue"))  # continuations of long listings
        pollers.append(Poller(self, "ReportFunction", "ReportQueue"))
        pollers.append(Poller(self, "DeliveryFunction", "DeliveryQueue"))  # chat and e-mail, after publishing
        # The PR pages of each published report, two batches at once (the stack runs up to 4): with one, the
        # renderers idled while it published a batch and read the next (a year's pages: 47 s, renderers half busy).
        pollers += [Poller(self, "PagesFunction", "PagesQueue") for _ in range(PAGES_POLLERS)]
        for p in pollers:
            p.start()
        try:
            self._wait(run_ids, pollers, timeout, stall)
        finally:
            self.stop()
            for p in pollers:
                p.join(timeout=10)

    def _wait(self, run_ids: list[str], pollers: list[Poller], timeout: float | None, stall: float) -> None:
        store, sqs = run_store(self.stack), client("sqs")
        self.watch_sends(sqs)  # the sweep's, which this thread invokes
        deadline = None if timeout is None else time.monotonic() + timeout
        mark, moved_at, stuck = (-1, -1), time.monotonic(), _Stuck()  # (invocations ended, PRs scored), since
        while True:
            looked = time.monotonic()
            seen = self.activity()
            for p in pollers:
                if p.error is not None:
                    raise PipelineError(f"{p.name} died: {p.error!r}") from p.error
            # The counters only: the whole run item (its listing and history) is large, and reading it often
            # would take CPU from the workers (moto and they share this process).
            runs = [store.progress(r) for r in run_ids]  # None: its listing goes on
            reported = all(r is not None and r.revision >= 1 for r in runs)  # published at least once
            self._show(runs, reported, sqs)
            drained = self.idle() and all(self.queue_empty(q, sqs) for q in FLOW_QUEUES)
            if reported and drained:
                return
            if drained:  # and a run is still open
                self._unstick(stuck)
            else:
                stuck.since = None
            now = time.monotonic()
            if deadline is not None and now > deadline:
                raise PipelineError(f"the run did not finish within {timeout:.0f} s (--timeout)")
            if (seen, self._count(runs)) != mark:
                mark, moved_at = (seen, self._count(runs)), now
            elif now - moved_at > stall:
                raise PipelineError(f"the run stopped moving: nothing finished for {stall:.0f} s")
            self.wait_for_activity(seen, 0.5)  # only an invocation changes a run; the sweep's clock needs a tick
            # At most one look each LOOK_EVERY: each reads the runs' counters and the queues' (moto calls under the
            # one GIL), and a year's score batches and pages ended 330 times, 25 a second (1.4 s of GIL).
            self.stopping.wait(max(0.0, looked + LOOK_EVERY - time.monotonic()))

    @staticmethod
    def _count(runs: list[RunProgress | None]) -> int:
        return sum(r.done + r.failed for r in runs if r is not None)

    def _show(self, runs: list[RunProgress | None], reported: bool, sqs: Any) -> None:
        """The stage the run is in, for the display: scoring (n/N PRs), the report (rendering and publishing),
        the PR pages (built so far, and the messages left), the channels."""
        total = sum(r.expected for r in runs if r is not None)
        failed = sum(r.failed for r in runs if r is not None)
        scored = self._count(runs)
        if scored != self.scored_shown or (not reported and not self.running("ReportFunction")):
            # Every count is shown, the last one too, even when the report has started meanwhile.
            self.display.update("scoring", scored, total, "PRs" + (f" ({failed} failed)" if failed else ""))
            self.scored_shown = scored
        if self.running("ReportFunction"):
            self.display.update("rendering and publishing the report")
            self.report_shown = True
            return
        if not reported or self.running("ScoreFunction"):
            return  # still scoring: shown above
        if not self.report_shown:  # a report quicker than a look (a rerun's cached week) is said all the same
            self.display.update("rendering and publishing the report")
            self.report_shown = True
        with self._lock:
            done = self.pages
        busy = self.running("PagesFunction") or not self.queue_empty("PagesQueue", sqs)
        if busy or done != self.pages_shown:  # every count is shown, the last one too, once the pages are done
            left = self.queued("PagesQueue", sqs) if busy else 0
            self.display.update("building PR pages", done, None, f"done, {left} batches left")
            self.pages_shown = done
            if busy:
                return
        if self.running("DeliveryFunction"):
            self.display.update("telling the channels")

    def queued(self, logical: str, sqs: Any) -> int:
        """The queue's messages, visible, in flight or delayed."""
        return mapped_queue(self.stack.queues[logical], sqs).depth()

    def _unstick(self, stuck: _Stuck) -> None:
        """Nothing left to deliver, yet a run is open: a worker died or a message was lost. Past a second of that,
        sweep (the report function's own sweep); after three sweeps, give up."""
        stuck.since = stuck.since or time.monotonic()
        if time.monotonic() - stuck.since <= 1.0:
            return
        if stuck.swept >= 3:
            raise PipelineError("the report could not be written (see the messages above)")
        self.say("queues drained but the run is open: sweeping")
        handler = load_handler(self.root, self.stack.template, "ReportFunction", self.warm_deps("ReportFunction"))
        try:
            self.invoke("ReportFunction", handler, {"sweep": True, "older_than_minutes": 0},
                        LambdaContext("ReportFunction"))
        except Exception as exc:  # counted like a sweep that could not report
            self.say(f"ReportFunction sweep failed: {exc}")
        stuck.swept += 1
        stuck.since = None


@dataclass
class _Stuck:
    """Since when the queues have been drained with a run still open (None: they are not), and the sweeps so far."""
    since: float | None = None
    swept: int = 0


def refuse_bad_input(events: list[dict[str, Any]], watchlist: WatchList, now: datetime) -> None:
    """PlanFunction's own validation of each event, and the local export each names, before anything starts: bad
    input is refused at once, with nothing created (no embedded AWS, no --state folder)."""
    for event in events:
        for request in parse_plan_event(event, lambda: watchlist, now):
            spec = request.config.source
            if spec.startswith("jsonl:") and not spec.startswith("jsonl:s3://"):
                path = Path(spec.removeprefix("jsonl:"))
                if not path.is_file():
                    raise InputError(f"no export file at {path} (--source jsonl:PATH names a file of one PR a line)")


def _same_report(run: RunItem, request: PlanRequest) -> bool:
    """The run makes the report `request` asks for: the same repository or slice, period, language, source and
    settings (the channels aside: the run item keeps references to them, prhub.cloud.store). The run's conventions
    hold what its plan learned from the repository's titles beside the given ones (flow.plan): the same report when
    the given ones are all there and learning is as asked."""
    given, kept = request.config.conventions, run.config.conventions
    conventions = given == kept if not given.learn else (
        kept.learn and set(given.minor_markers) <= set(kept.minor_markers) and set(given.types) <= set(kept.types))
    return run.period == request.period and conventions and \
        replace(run.config, notify=(), conventions=given) == replace(request.config, notify=(), conventions=given)


def resumable(events: list[dict[str, Any]], watchlist: WatchList, now: datetime,
              stack: Stack) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the events to plan, the runs to resume): an event whose every report has a run in the state that stopped
    part-way (the run's deadline, Ctrl-C, SIGTERM) resumes that run instead of planning a second one beside it (an
    orphan a later sweep would publish). Its saved messages were restored with the state; the PRs with neither a
    result nor a message (a state saved before delayed messages were kept) are queued again."""
    store = run_store(stack)
    open_runs = [run for run in store.open_runs() if run.status != "reported"]
    to_plan, resumed = [], []
    for event in events:
        requests = parse_plan_event(event, lambda: watchlist, now)
        found = [next((run for run in open_runs if _same_report(run, req)), None) for req in requests]
        runs = [run for run in found if run is not None]
        if not requests or len(runs) != len(requests):
            to_plan.append(event)
            continue
        for run in runs:
            results = {r.number for r in store.results(run.run_id)}
            requeued = _requeue(stack, run, results)
            resumed.append({"run_id": run.run_id, "repo": run.repo, "period": run.period.to_dict(),
                            "expected": run.expected, "results": len(results), "requeued": requeued,
                            "resumed": True})
    return to_plan, resumed


def _message_of(body: str) -> dict[str, Any]:
    """A queued body as JSON ({} when it is not an object: its function drops it)."""
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _requeue(stack: Stack, run: RunItem, results: set[int]) -> int:
    """Queue again the run's listed PRs that have no result and no message in any queue; returns how many."""
    if any(_message_of(body).get("run_id") == run.run_id for _, body, _ in queued(stack.queues["PlanQueue"])):
        return 0  # its listing goes on: the plan's continuation queues the rest
    waiting = {_message_of(body).get("number") for logical in ("ScoreQueue", "ScoreDLQ")
               for _, body, _ in queued(stack.queues[logical]) if _message_of(body).get("run_id") == run.run_id}
    lost = [ref for ref in run.listing if ref.number not in results and ref.number not in waiting]
    sqs = client("sqs")
    for start in range(0, len(lost), 10):
        sqs.send_message_batch(QueueUrl=stack.queues["ScoreQueue"], Entries=[
            {"Id": str(i), "MessageBody": json.dumps({"run_id": run.run_id, "number": ref.number,
                                                      "ref": ref.to_dict()}, ensure_ascii=False)}
            for i, ref in enumerate(lost[start:start + 10])])
    return len(lost)


def run_pipeline(*, repo: str | None = None, since: str | None = None, until: str | None = None,
                 tz: str | None = None, source: str | None = None, scorer: str | None = None,
                 lang: str | None = None, out: str | Path = "site", state: str | Path | None = ".prhub/state",
                 endpoint_url: str | None = None, prefix: str = "prhub", config_text: str | None = None,
                 workers: int = 4, invoke: Invoker | None = None, progress: Progress | None = None,
                 timeout: float | None = None, root: Path | None = None, now: datetime | None = None,
                 visibility_timeout: int = LOCAL_VISIBILITY_TIMEOUT, retry_model: bool = False,
                 quiet: bool = False, stall: float = STALL_SECONDS,
                 judgements: list[dict[str, Any]] | None = None, render_processes: int | None = None) -> RunResult:
    """Run reports through the real flow locally (channels told too) and copy the site to `out`.

    Without `repo`: with `config_text` every repository it watches, else the bundled sample (its week unless
    dates are given). The result describes the first report; `report_keys` names them all.
    Without dates, the last complete Monday–Sunday week in the repository's time zone.
    `endpoint_url` uses an existing endpoint instead of starting moto (state is then the endpoint's).
    `visibility_timeout` (seconds) replaces the queues' own, so retries and DLQ moves happen within the run.
    Progress goes to stderr (a live bar on a terminal, plain lines elsewhere), or line by line to `progress`;
    `quiet` keeps only warnings and failures. `timeout` bounds the run; without it the run goes on while it
    moves (Runner). A run that gives up still copies what it published to `out`. `judgements` (a --judgements
    file's {"pr", "verdict"} lines) go with the one repository's plan event, which checks and keeps them.
    PR pages render in `render_processes` worker processes (render_pool; default one per core, at most 2; 0:
    in turn, in this process).
    """
    root = root or default_root()
    display = lines(progress, quiet) if progress is not None else Display.for_stream(sys.stderr, quiet)
    say = display.say
    template = load_template(root / "template.yaml")
    watchlist_text = local_watchlist(template, config_text)
    watchlist = WatchList.parse(watchlist_text)
    # A literal channel URL or secret of --config is the logs' to hide before the stack's first DEBUG line shows
    # the watch list (SSM's PutParameter; the deliveries' SendMessageBatch names them by reference only).
    redaction.install()
    redaction.known_channels(watchlist.channels())
    moment = now or datetime.now(UTC)
    if repo is None and config_text is not None:
        # --config without --repo: exactly the file's watched repositories, each for the period.
        watchlist = watched_locally(watchlist)
        if not watchlist.repos:
            raise InputError("the --config file watches no repository: add some to \"repos\" or give --repo")
        events = [{**plan_event(watchlist, r.repo, since, until, tz, source, scorer, lang, moment),
                   **({"slice": r.slice} if r.slice else {})}  # a monorepo's slice: its own report
                  for r in watchlist.repos]
    else:
        events = [plan_event(watchlist, repo, since, until, tz, source, scorer, lang, moment)]
    if retry_model:  # ask the model again for PRs the engine scored in its place before
        for each in events:
            each["retry_model"] = True
    with_judgements(events, repo, judgements)
    refuse_bad_input(events, watchlist, moment)
    event = events[0]
    timings: dict[str, float] = {}
    started = time.monotonic()

    def check_scorer() -> None:
        if scorer == "llm":
            # Every worker would fail the same way: say it now (inside the endpoint's env: a secret may be named).
            from prhub.cloud.aws import LazyClient
            from prhub.cloud.secrets import Secrets
            from prhub.flow.deps import model_settings
            from prhub.model.scorers import make_scorer

            make_scorer(WatchList.parse(watchlist_text).get(event["repo"]).with_overrides(scorer="llm"),
                        model_settings(os.environ), Secrets(LazyClient("secretsmanager")))

    refused: list[InputError] = []
    in_hand: set[str] = set()
    site_dir = Path(out)

    def site_from(saved: Path) -> None:
        display.update("copying the site to the site folder")
        copy_site(saved, site_dir)

    with display.ticking(), few_full_collections(), \
            provisioned(template, prefix, watchlist_text, endpoint_url, state, say, visibility_timeout,
                        check=check_scorer, keep=lambda: not refused, in_hand=lambda: set(in_hand),
                        after_save=site_from if state is not None else None) as stack:
        timings["setup_s"] = time.monotonic() - started
        runner = Runner(root, stack, invoke or direct_invoke, display, workers, visibility_timeout, in_hand)
        with function_env(stack), _local_pages(stack, render_processes, embedded=endpoint_url is None) as adapters:
            runner.render_pages, runner.site_bucket = adapters
            begun = time.monotonic()
            to_plan, resumed = resumable(events, watchlist, moment, stack) if state is not None else (events, [])
            try:
                planned = runner.run(to_plan, timeout, stall, resumed)
            except InputError as exc:  # PlanFunction refused the event: it wrote nothing, nor do we
                refused.append(exc)
                raise
            except PipelineError:
                display.update("copying what was published to the site folder")
                _copy_site(stack, site_dir)
                say(f"the run did not finish; what it published is in {site_dir}")
                raise
            timings["pipeline_s"] = time.monotonic() - begun
        if not planned:
            raise InputError("nothing to report: no repository was planned")
        keys = []
        for entry in planned:
            run = run_store(stack).get_run(entry["run_id"])
            if run is None or run.report_key is None:
                raise PipelineError(f"run {entry['run_id']} finished without a report key")
            keys.append(run.report_key)
        run_id, key = planned[0]["run_id"], keys[0]
        if state is None:
            display.update("copying the site to the site folder")
            _copy_site(stack, site_dir)
        display.update("saving the state")  # provisioned's exit, which copies the site from the saved files
    timings["total_s"] = time.monotonic() - started
    paths = {name: site_dir / key / name for name in ("report.md", "report.pdf", "report.json", "index.html")}
    _check_written(site_dir, keys, state)
    for k in keys:
        say(f"report written: {site_dir / k}")
    digest = site_dir / digest_folder(Period.parse(str(event["since"]), str(event["until"]), "UTC"))
    if watchlist.digest is not None and (digest / "report.json").exists():
        say(f"digest written: {digest}")
    return RunResult(run_id, key, paths, site_dir, timings, planned, keys)


def with_judgements(events: list[dict[str, Any]], repo: str | None, judgements: list[dict[str, Any]] | None) -> None:
    """A --judgements file's lines go with the one repository's plan event (PlanFunction checks and keeps them)."""
    if judgements is None:
        return
    if repo is None or len(events) != 1:
        raise InputError("--judgements is for one repository: give --repo")
    events[0]["judgements"] = judgements


class SiteNotWritten(PrhubError):
    """A report the run published that the site folder does not hold: the copy refused to write it through a link
    leading out of the folder (prhub_local.packs.Inside)."""


def _check_written(site_dir: Path, keys: list[str], state: str | Path | None) -> None:
    """Never "report written" for a report the copy left out: it says which link kept it out and fails the run."""
    inside = packs.Inside(site_dir)
    missing = [site_dir / k for k in keys if not (inside(site_dir / k / "report.md") and
                                                  (site_dir / k / "report.md").is_file())]
    if missing:
        links = [p for p in missing[0].parents if p.is_symlink()]
        why = f"{links[-1]} is a link that leads out of it" if links else "the copy could not write it there"
        kept = f"; the run is saved in {state}" if state is not None else ""
        raise SiteNotWritten(f"{len(missing)} report(s) not written to {site_dir}, e.g. {missing[0]}: {why}{kept}. "
                             "Remove the link and run the same command again")


def _copy_site(stack: Stack, site_dir: Path) -> None:
    site_dir.mkdir(parents=True, exist_ok=True)
    download_bucket(client("s3"), stack.buckets["SiteBucket"], site_dir)


FULL_COLLECTION_EVERY = 1000  # young collections between full ones while a run holds moto's heap (CPython: 10)


@contextmanager
def few_full_collections() -> Iterator[None]:
    """CPython's cyclic GC with fewer full collections while the embedded AWS holds every table, queue and object
    in this process: each full one walks that whole heap (160 ms in a year's run, ten of them: 1.6 s of its GIL).
    The young generations are collected as before; what the run leaves for a full collection is freed at its end."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], max(before[2], FULL_COLLECTION_EVERY))
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def _aws(endpoint_url: str | None) -> Iterator[dict[str, str | None]]:
    """The AWS environment of a run: `endpoint_url`'s, or the embedded moto's, in this process (boto3 on AWS's own
    endpoints, an AWS_ENDPOINT_URL of the caller's unset, so nothing leaves the process)."""
    if endpoint_url:
        yield {**aws_env(endpoint_url, fake_credentials=False)}
        return
    with EmbeddedAws(fresh=True, in_process=True):
        yield {**aws_env(None, fake_credentials=True), "AWS_ENDPOINT_URL": None}


JOURNAL_EVERY = 3.0  # s between appends of new cache items to the state's journal while a run works


@contextmanager
def provisioned(template: dict[str, Any], prefix: str, watchlist_text: str, endpoint_url: str | None,
                state: str | Path | None, say: Progress, visibility_timeout: int | None = LOCAL_VISIBILITY_TIMEOUT,
                check: Callable[[], None] | None = None, keep: Callable[[], bool] = lambda: True,
                journal_every: float = JOURNAL_EVERY, in_hand: Callable[[], set[str]] = set,
                after_save: Callable[[Path], None] | None = None) -> Iterator[Stack]:
    """The embedded AWS (or `endpoint_url`) holding the template's resources, with `state` restored.

    `check` runs first, in the endpoint's environment: what it refuses leaves the state untouched. Past
    it, the state is locked for the whole block (StateBusy if another run holds it), what an interrupted
    save left is removed, the score cache is journaled as it grows, and the state is saved on the way out
    even when the body failed (the scores already in the cache and the DLQs are not lost), unless `keep()`
    says the body changed nothing (bad input): a state directory made for it is then removed again. `in_hand` names
    the messages the body's workers still hold when it ends (state.save_state). `after_save` is given the saved
    generation when the body ended without an exception (the site copied from its files, not downloaded again)."""
    with _aws(endpoint_url) as env, patched_env(env):
        stack = create_stack(template, prefix, watchlist_text, visibility_timeout)
        if check is not None:
            check()
        if state is None:
            yield stack
            return
        path = Path(state)
        made = not path.exists()
        with locked(path) as held:
            removed = held.recover()
            if removed:
                say(f"removed what an interrupted save left in {state}: {', '.join(removed)}")
            if (stray := held.stray()) is not None:
                say(f"{stray} was left by an older prhub's interrupted save (it may be incomplete): this run "
                    "starts without it")
            counts = restore_state(stack, held)
            if counts:
                kept = counts.pop("journal", 0)
                say(f"restored state from {state}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v)
                    + (f"; {kept} cache items kept from an interrupted run" if kept else ""))
            journal = Journal(stack, held, journal_every)
            journaled = journal.path.exists()
            journal.start()
            ended = False
            try:
                yield stack
                ended = True
            finally:
                journal.stop()
                if journal.error is not None:
                    say(f"the state's journal stopped: {journal.error!r}")
                if keep():
                    saved = save_state(stack, held, in_hand=in_hand)
                    if ended and after_save is not None:
                        after_save(saved)
                elif made:
                    shutil.rmtree(path)
                elif not journaled:
                    journal.path.unlink(missing_ok=True)


@contextmanager
def _local_pages(stack: Stack, render_processes: int | None, embedded: bool) -> Iterator[Any]:
    """(the PR pages' renderer, the site bucket's adapter) the functions are handed: `render_processes` renderers
    (render_pool; None: in turn), and on the `embedded` moto the site written straight into its S3 (EmbeddedBucket;
    else None, through S3). The pool is told the pages queue's depth from moto itself: a boto3 call from the pages
    handler's thread would pass for one PagesFunction makes."""
    from prhub_local import render_pool  # the renderers' imports: only once the input is accepted

    url = stack.queues["PagesQueue"]
    with render_pool.renderer(render_processes, backlog=(lambda: len(queued(url))) if embedded else lambda: 0) \
            as render:
        yield render, EmbeddedBucket if embedded else None


def function_env(stack: Stack) -> AbstractContextManager[None]:
    """The environment template.yaml gives the functions, for the handlers' calls."""
    return patched_env({**stack.function_env(), "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL",
                                                                                       "WARNING"),
                        # stdout belongs to the paths `prhub run` prints, not to EMF metric lines
                        "POWERTOOLS_METRICS_DISABLED": "true",
                        LITERAL_ENV: "1"})  # an operator tries a channel locally with a literal url (warned)


def watched_locally(watchlist: WatchList) -> WatchList:
    """The watch list with its `org`'s repositories, listed on GitHub (GITHUB_API_URL, GITHUB_TOKEN)."""
    if watchlist.org is None:
        return watchlist
    from prhub.sources.github import GitHubSource

    return expand(watchlist, OrgRepos(lambda: GitHubSource.from_env(os.environ)))


def run_store(stack: Stack) -> Store:
    """The flow's own reader of the runs table, so the runner never decodes DynamoDB items itself (the one
    place that builds a Store here)."""
    return Store(client("dynamodb"), Settings.from_env(stack.function_env()))


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

