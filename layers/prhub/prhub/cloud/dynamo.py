"""DynamoDB item helpers shared by the run store and the cache: attribute values, the one codec, conditions.

The codec: gzip-compressed compact JSON in a Binary attribute (`pack`/`unpack`),
so a 3,000-file PR stays far below DynamoDB's 400 KB item limit.
"""
from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

_ser = TypeSerializer()
_de = TypeDeserializer()
Observer = Callable[[str, dict[str, Any]], None]


class Writes:
    """Who is told of a table's writes: fn(table, item), the item in DynamoDB's form, after each one (the local
    state's journal, which keeps what a killed run wrote)."""

    def __init__(self) -> None:
        self._observers: list[Observer] = []
        self._lock = threading.Lock()

    def observe(self, fn: Observer) -> None:
        with self._lock:
            self._observers.append(fn)

    def unobserve(self, fn: Observer) -> None:
        with self._lock:
            if fn in self._observers:
                self._observers.remove(fn)

    def written(self, table: str, item: dict[str, Any] | None) -> None:
        if not item:
            return
        with self._lock:
            observers = list(self._observers)
        for fn in observers:
            fn(table, item)


def to_item(values: dict[str, Any]) -> dict[str, Any]:
    """Python values -> DynamoDB attribute values (floats are not allowed by DynamoDB: callers pass JSON text)."""
    return {k: _ser.serialize(v) for k, v in values.items() if v is not None}


def from_item(item: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(_de.deserialize(v)) for k, v in item.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Binary):
        return bytes(value.value)  # type: ignore[attr-defined]  # the stubs omit .value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return sorted(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def pack(data: Any) -> bytes:
    return gzip.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), mtime=0)


def unpack(blob: bytes) -> Any:
    return json.loads(gzip.decompress(blob))


def refused_by_condition(exc: ClientError, actions: int) -> list[bool] | None:
    """Which of a transaction's `actions` failed their condition, from its CancellationReasons; None when it
    failed for another reason (a conflict, throttling: a fault to raise). All False when a condition failed
    and the reasons do not say which (moto may omit them)."""
    if not condition_failed(exc):
        return None
    reasons = exc.response.get("CancellationReasons") or []
    codes = [r.get("Code") or "None" for r in reasons]
    if any(code not in ("None", "ConditionalCheckFailed") for code in codes):
        return None
    if len(codes) != actions:
        return [False] * actions
    return [code == "ConditionalCheckFailed" for code in codes]


def condition_failed(exc: ClientError) -> bool:
    """Whether a write was refused by its condition (a duplicate, a lost claim), not by a fault."""
    code = exc.response.get("Error", {}).get("Code", "")
    if code == "ConditionalCheckFailedException":
        return True
    if code == "TransactionCanceledException":
        reasons = exc.response.get("CancellationReasons") or []
        # moto may omit the reasons; the message names the condition in both cases.
        return any(r.get("Code") == "ConditionalCheckFailed" for r in reasons) or (
            "ConditionalCheckFailed" in str(exc))
    return False
