"""The one cache of the stack (CacheTable): per-PR scores, GitHub ETags and narratives share it.

One item layout `{key, data, expires_at}`, one codec (prhub.cloud.dynamo.pack: gzip
JSON in a Binary attribute) and one TTL policy. Users tell their entries apart
by the key: `<repo>#<number>#...` for scores, `etag#<url>`, `narrative#...`.

A cache is an optimisation: one that cannot answer (an error, an unreadable
item, an older layout) is a miss, and a value too big for an item is not kept.
"""
from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from prhub.cloud.dynamo import Writes, pack, unpack

log = logging.getLogger(__name__)

TTL_SECONDS = 90 * 86_400  # CacheTable's TTL attribute drops entries nobody wrote again in three months
MAX_BYTES = 350_000  # DynamoDB items are limited to 400 KB
BATCH_KEYS = 100  # BatchGetItem's most keys per call
BATCH_TRIES = 3  # BatchGetItem rounds for keys left unprocessed; still unprocessed then, they are misses
READ_ERRORS = (BotoCoreError, ClientError, KeyError, ValueError, OSError, EOFError, zlib.error)
writes = Writes()  # told of every entry written (the local state's journal: what a killed run paid for stays)


class Cache(Protocol):
    def get(self, key: str) -> Any | None:
        """The JSON value kept under `key`, or None (absent, expired, unreadable)."""
        ...

    def first(self, keys: Sequence[str]) -> Any | None:
        """The value of the first of `keys` that has one, or None; one read for all of them."""
        ...

    def first_of_each(self, key_lists: Sequence[Sequence[str]]) -> list[Any | None]:
        """first() of each list of keys, one read for all of them (a score batch's PRs)."""
        ...

    def put(self, key: str, value: Any) -> None:
        """Keep a JSON value for TTL_SECONDS."""
        ...


class DynamoCache:
    """The Cache over the stack's CacheTable (a low-level DynamoDB client, handed in)."""

    def __init__(self, dynamodb: Any, table: str, clock: Callable[[], float] = time.time) -> None:
        self.db = dynamodb
        self.table = table
        self.clock = clock

    def get(self, key: str) -> Any | None:
        try:
            return self._value(self.db.get_item(TableName=self.table, Key={"key": {"S": key}}).get("Item"))
        except READ_ERRORS as exc:
            log.warning("cache read failed for %s: %s", key[:80], exc)
            return None

    def first(self, keys: Sequence[str]) -> Any | None:
        return self.first_of_each([keys])[0]

    def first_of_each(self, key_lists: Sequence[Sequence[str]]) -> list[Any | None]:
        wanted = list(dict.fromkeys(k for keys in key_lists for k in keys))
        if len(wanted) <= 1:
            value = self.get(wanted[0]) if wanted else None
            return [value if keys else None for keys in key_lists]
        found = self._read(wanted)
        return [self._first(keys, found) for keys in key_lists]

    def _read(self, wanted: list[str]) -> dict[str, Any]:
        """The items of `wanted` keys, BATCH_KEYS at a time; what could not be read is left out (a miss)."""
        found: dict[str, Any] = {}
        for start in range(0, len(wanted), BATCH_KEYS):
            try:
                request: dict[str, Any] = {self.table: {"Keys": [{"key": {"S": k}}
                                                                 for k in wanted[start:start + BATCH_KEYS]]}}
                for _ in range(BATCH_TRIES):  # keys DynamoDB left unprocessed (throttling) are asked again
                    answer = self.db.batch_get_item(RequestItems=request)
                    for item in answer.get("Responses", {}).get(self.table, []):
                        found[item["key"]["S"]] = item
                    request = answer.get("UnprocessedKeys") or {}
                    if not request:
                        break
            except READ_ERRORS as exc:  # what was read before stays usable
                log.warning("cache read failed for %s: %s", wanted[start][:80], exc)
        return found

    def _first(self, keys: Sequence[str], found: dict[str, Any]) -> Any | None:
        for key in keys:  # an unreadable or expired first key gives way to the next
            try:
                value = self._value(found.get(key))
            except READ_ERRORS as exc:
                log.warning("cache read failed for %s: %s", key[:80], exc)
                continue
            if value is not None:
                return value
        return None

    def _value(self, item: dict[str, Any] | None) -> Any | None:
        # TTL deletion is lazy (up to days late): an expired entry is a miss.
        if not item or int(item.get("expires_at", {}).get("N", "0")) <= self.clock():
            return None
        return unpack(item["data"]["B"])

    def put(self, key: str, value: Any) -> None:
        blob = pack(value)
        if len(blob) > MAX_BYTES:
            return
        item = {"key": {"S": key}, "data": {"B": blob}, "expires_at": {"N": str(int(self.clock()) + TTL_SECONDS)}}
        try:
            self.db.put_item(TableName=self.table, Item=item)
        except (BotoCoreError, ClientError) as exc:
            log.warning("cache write failed for %s: %s", key[:80], exc)
            return
        writes.written(self.table, item)
