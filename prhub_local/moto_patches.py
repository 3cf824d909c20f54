"""The embedded moto's patches, and the start-up check that what they replace still exists.

moto is a test double, not a service: it is not thread-safe and some of its
operations cost O(N^2) in the number of items or messages. The local runner's
workers hit it concurrently and a year of a busy repository is thousands of
PRs, so the patches make it behave and keep it cheap (each explained in its docstring). They
reach into moto's internals, which a moto release may rename: `check_moto`
runs before they are applied and names the symbol and the moto version, so
an upgrade fails with a message instead of a deadlock or a wrong count.
"""
from __future__ import annotations

import copy
import functools
import importlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from prhub.core.errors import PrhubError

# (module, dotted attribute) that a patch replaces or calls; moto>=5.2,<5.3 has them all (pyproject.toml).
PATCHED_SYMBOLS: tuple[tuple[str, str], ...] = (
    ("moto.dynamodb.responses", "DynamoHandler.call_action"),  # serialize_moto
    ("moto.sqs.responses", "SQSResponse.call_action"),  # serialize_moto
    ("moto.dynamodb.models", "DynamoDBBackend.transact_write_items"),  # cheap_moto_transactions
    ("moto.dynamodb.models", "copy"),  # cheap_moto_transactions swaps it during a transaction
    ("moto.dynamodb.models.dynamo_type", "DynamoType"),  # cheap_moto_transactions: item keys
    ("moto.dynamodb.models.table", "Table.get_item"),  # cheap_moto_transactions: the backup
    ("moto.dynamodb.models.table", "Table.delete_item"),  # cheap_moto_transactions: the rollback
    ("moto.sqs.models", "unix_time_millis"),  # cheap_moto_sqs_clock
    ("moto.sqs.models", "SQSBackend.is_message_valid_based_on_retention_period"),  # cheap_moto_sqs_retention
    ("moto.dynamodb.responses", "DynamoResult.execute_result"),  # plain_dynamodb_reads
    ("moto.dynamodb.comparisons", "ConditionExpressionParser.parse"),  # conditions_parsed_once
    ("moto.sqs.models", "SQSBackend.send_message"),  # cheap_moto_sqs_send
    ("moto.sqs.models", "Queue.BASE_ATTRIBUTES"),  # cheap_moto_sqs_send
    ("moto.s3.models", "S3Backend._url_module"),  # s3_urls_once
    ("moto.ssm.models", "ec2_backends"),  # ssm_without_ec2
    ("moto.sqs.models", "sqs_backends"),  # not a patch: prhub_local.embedded.queued reads the queues' messages
    ("moto.sqs.models", "SQSBackend.receive_message"),  # not a patch: embedded.EmbeddedQueue calls these
    ("moto.sqs.models", "SQSBackend.delete_message_batch"),
    ("moto.sqs.models", "SQSBackend.change_message_visibility_batch"),
)


class MotoPatchError(PrhubError):
    """The installed moto lacks a symbol a patch replaces: the embedded AWS would misbehave."""


def _has(module: Any, dotted: str) -> bool:
    target = module
    for part in dotted.split("."):
        if not hasattr(target, part):
            return False
        target = getattr(target, part)
    return True


def check_moto(symbols: Iterable[tuple[str, str]] = PATCHED_SYMBOLS,
               load: Callable[[str], Any] = importlib.import_module, version: str | None = None) -> None:
    """Raise MotoPatchError naming the moto version and every missing symbol the patches need."""
    missing = []
    for module_name, dotted in symbols:
        try:
            module = load(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        if not _has(module, dotted):
            missing.append(f"{module_name}.{dotted}")
    if missing:
        version = version or metadata.version("moto")
        raise MotoPatchError(
            f"moto {version} lacks {', '.join(missing)}, which the embedded AWS patches "
            "(prhub_local/moto_patches.py); install the tested range from pyproject.toml (moto>=5.2,<5.3) "
            "or port the patch")


def apply_patches() -> None:
    """Check moto, then apply the patches (idempotent: a second call changes nothing)."""
    ssm_without_ec2()  # before check_moto, whose import of moto.ssm.models would load EC2
    check_moto()
    from moto.dynamodb.responses import DynamoHandler
    from moto.sqs.responses import SQSResponse

    serialize_moto(DynamoHandler)
    cheap_moto_transactions()  # relies on the serialization above
    plain_dynamodb_reads()
    conditions_parsed_once()
    serialize_moto(SQSResponse)
    cheap_moto_sqs_clock()
    cheap_moto_sqs_retention()
    cheap_moto_sqs_send()
    s3_urls_once()


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
    call_action.lock = lock  # type: ignore[attr-defined]
    handler.call_action = call_action


def sqs_lock(handler: Any) -> Any:
    """The lock serialize_moto made `handler`'s requests take: what reaches moto's backend directly takes it too."""
    lock = getattr(handler.call_action, "lock", None)
    if lock is None:
        raise MotoPatchError("moto's SQS is not serialized: apply_patches() first")
    return lock


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


def s3_urls_once() -> None:
    """Load moto's S3 URL table once, not twice per request.

    moto's S3 backend reloads `moto.s3.urls` (importlib.reload) each time it is asked for its URLs, so that a
    change of MOTO_S3_CUSTOM_ENDPOINTS is seen: two reloads per S3 call, an eighth of each call's CPU, and a PR
    page is five calls. The module is reloaded only when that setting changes; the reload itself is locked (the
    workers' threads reloaded it at once)."""
    import moto.s3.models as models

    backend = models.S3Backend
    original = backend.__dict__["_url_module"].fget
    if getattr(original, "once", False):
        return
    lock = threading.Lock()
    loaded: dict[str | None, Any] = {}

    def url_module(self: Any) -> Any:
        endpoints = os.environ.get("MOTO_S3_CUSTOM_ENDPOINTS")
        with lock:
            if endpoints not in loaded:
                loaded.clear()
                loaded[endpoints] = original(self)
            return loaded[endpoints]

    url_module.once = True  # type: ignore[attr-defined]
    backend._url_module = property(url_module)  # type: ignore[assignment]


READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})  # plain_dynamodb_reads


def plain_dynamodb_reads() -> None:
    """Write moto DynamoDB's answers to item reads as JSON straight away. Its serializer walks every attribute
    of every item through botocore's shapes: 1.1 s for the 1,649 results a year's report queries, most of the
    serialization that took 1.4 s of the year-after-weeks run's GIL. An item read's answer is the items' own
    DynamoDB JSON, counts and keys, with binary values as base64 (the wire's form): json.dumps writes the same
    document (tests/unit/test_moto_patches.py compares both for every attribute type). Anything else, an
    error among them, and a value json cannot write, keep moto's serializer."""
    import base64
    import json

    from moto.dynamodb.responses import DynamoResult

    original = DynamoResult.execute_result
    if getattr(original, "plain", False):
        return

    def wire(value: Any) -> str:
        if isinstance(value, bytes | bytearray):
            return base64.b64encode(value).decode()
        raise TypeError(type(value).__name__)

    @functools.wraps(original)  # __wrapped__: moto's own, which the test compares with
    def execute_result(self: Any, context: Any) -> Any:
        if context.operation_model.name not in READS or isinstance(self.result, BaseException):
            return original(self, context)
        try:
            body = json.dumps(self.result, default=wire, separators=(",", ":"))
        except (TypeError, ValueError):
            return original(self, context)
        return 200, {"Content-Type": "application/x-amz-json-1.0"}, body

    execute_result.plain = True  # type: ignore[attr-defined]
    DynamoResult.execute_result = execute_result  # type: ignore[method-assign]


PARSED_CONDITIONS = 512  # condition expressions kept parsed (conditions_parsed_once); more empties the memo
_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")


def conditions_parsed_once() -> None:
    """Parse each DynamoDB condition expression once, not for every item it guards. moto lexes and parses it anew
    for each put of a transaction, twice (the transaction, then put_item): a plan storing a year's 1,649 cached
    results spent most of its 17 transactions' moto time parsing `attribute_not_exists(run_id)` (a transaction of
    ten puts and an update: 3.9 ms, 2.4 ms with this). The parse is a function of the expression and the names and
    values it refers to, and its tree is only read afterwards (each node's `expr(item)`), so one tree, parsed from
    copies, serves every parser asking with the same three; each parser still gets the names and values found,
    which moto checks against those given. An expression that does not parse is never kept: it raises each time."""
    from moto.dynamodb.comparisons import ConditionExpressionParser

    original = ConditionExpressionParser.parse
    if getattr(original, "once", False):
        return
    parsed: dict[str, tuple[Any, list[str], list[str]]] = {}

    def parse(self: Any) -> Any:
        expression = self.condition_expression or ""
        names, values = self.expression_attribute_names or {}, self.expression_attribute_values or {}
        used = _PLACEHOLDER.findall(expression)
        try:
            key = json.dumps([self.condition_expression, [(u, names.get(u) if u[0] == "#" else values.get(u))
                                                         for u in used]], sort_keys=True)
        except (TypeError, ValueError):  # a value json cannot write: parsed as moto would
            return original(self)
        hit = parsed.get(key)
        if hit is None:
            fresh = ConditionExpressionParser(self.condition_expression,
                                              copy.deepcopy(self.expression_attribute_names),
                                              copy.deepcopy(self.expression_attribute_values))
            hit = (original(fresh), list(fresh.expr_attr_names_found), list(fresh.expr_attr_values_found))
            if len(parsed) >= PARSED_CONDITIONS:
                parsed.clear()
            parsed[key] = hit
        self.expr_attr_names_found.extend(hit[1])
        self.expr_attr_values_found.extend(hit[2])
        return hit[0]

    parse.once = True  # type: ignore[attr-defined]
    ConditionExpressionParser.parse = parse  # type: ignore[method-assign]


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



def cheap_moto_sqs_retention() -> None:
    """Read a queue's retention period where moto keeps it: ReceiveMessage checked each message it returned
    against it by computing every attribute of the queue, its message counts among them (a pass over all its
    messages), so receiving a queue of N messages cost N^2 (a year's 1,649 score messages: 4 s of the run's GIL)."""
    import moto.sqs.models as models
    from moto.sqs.models import SQSBackend

    original = SQSBackend.is_message_valid_based_on_retention_period
    if getattr(original, "cheap", False):
        return

    def is_message_valid_based_on_retention_period(self: Any, queue_name: str, message: Any) -> bool:
        retention = int(self.get_queue(queue_name).message_retention_period)
        return bool(retention + message.sent_timestamp / 1000 > models.unix_time())

    is_message_valid_based_on_retention_period.cheap = True  # type: ignore[attr-defined]
    SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period  # type: ignore[method-assign]


def cheap_moto_sqs_send() -> None:
    """Leave the message counts out of the queue attributes moto's SendMessage reads: it looks at one of them
    (ContentBasedDeduplication), but the property counts every queued message three times over, so queueing N
    messages cost N^2 visibility checks (a year's 1,649 score messages: about a second of the plan's GIL).
    The counts are hidden for the send alone, under serialize_moto's lock: GetQueueAttributes still counts."""
    from moto.sqs.models import Queue, SQSBackend

    original = SQSBackend.send_message
    if getattr(original, "cheap", False):
        return
    uncounted = [a for a in Queue.BASE_ATTRIBUTES if not a.startswith("ApproximateNumberOf")]

    def send_message(self: Any, queue_name: str, *args: Any, **kwargs: Any) -> Any:
        queue = self.get_queue(queue_name)
        queue.BASE_ATTRIBUTES = uncounted  # an instance attribute: the class's list stays whole
        try:
            return original(self, queue_name, *args, **kwargs)
        finally:
            del queue.BASE_ATTRIBUTES

    send_message.cheap = True  # type: ignore[attr-defined]
    SQSBackend.send_message = send_message  # type: ignore[method-assign]


class _LazyEc2Backends:
    """Stands in for moto.ec2's `ec2_backends` inside moto.ssm.models: imports EC2 on first use (SSM's
    run-command targets), which the stack never makes."""

    def __getitem__(self, account_id: str) -> Any:
        from moto.ec2 import ec2_backends

        return ec2_backends[account_id]


def ssm_without_ec2() -> None:
    """Import moto's SSM without EC2. moto.ssm.models imports `ec2_backends` at the top, and moto.ec2's
    models (instance types, AMIs) took 1.35 s of SSM's 1.85 s import, 9 % of a week's `prhub run`; the
    stack only puts and gets parameters. A placeholder stands in for moto.ec2 during that import alone,
    so a caller importing moto.ec2 later gets the real package."""
    import sys
    import types

    if "moto.ssm.models" in sys.modules or "moto.ec2" in sys.modules:
        return
    placeholder = types.ModuleType("moto.ec2")
    placeholder.ec2_backends = _LazyEc2Backends()  # type: ignore[attr-defined]
    sys.modules["moto.ec2"] = placeholder
    try:
        import moto.ssm.models  # noqa: F401
    finally:
        if sys.modules.get("moto.ec2") is placeholder:
            del sys.modules["moto.ec2"]
