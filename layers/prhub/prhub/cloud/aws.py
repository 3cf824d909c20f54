"""boto3 clients made lazily and shared per thread, and the small adapters over S3 and CloudFront.

Clients honour AWS_ENDPOINT_URL, so moto, LocalStack and AWS need no code change.
Nothing here makes a client at import: `LazyClient` resolves one on each use, so a
score worker never pays for the S3 or CloudFront client, and an adapter follows
`reset()` (the local runner's next embedded AWS in the same process).
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import boto3
import botocore.loaders
import botocore.session

_local = threading.local()
# Service models are the same for every session: parse their JSON once per process, not per client
# (each new session otherwise re-reads ~0.5 s of JSON, which dominates local runs and tests).
_loader = botocore.loaders.create_loader()
LIST_PAGE_SIZE = 1000  # S3's own maximum per ListObjectsV2 page
JSON_MEMO_BYTES = 16 * 2**20  # documents S3Bucket.get_json keeps parsed per process, by their size on S3


# One session per process, made lazily and forgotten by reset(): a botocore session registers some 600 event
# handlers as it is made (a fifth of the CPU of making a client), and the local runner's and the batches' threads
# each make their own clients. A session is not thread-safe, so clients are made from it under a lock; the clients
# themselves are per thread (their hooks are the thread's: prhub_local.runner registers some).
_session_lock = threading.Lock()
_sessions: list[Any] = []


def _session() -> Any:  # Any: the stubs type client() per literal service name; the caller holds _session_lock
    if not _sessions:
        core = botocore.session.get_session()
        core.register_component("data_loader", _loader)
        _sessions.append(boto3.session.Session(botocore_session=core))
    return _sessions[0]


# Client settings by service. SES's SendEmail takes no idempotency token, so a call botocore retried after a read
# timeout (it retries those) may send the same e-mail twice: one attempt, and the caller decides
# (prhub.notify.delivery: a send whose answer never came is "maybe delivered", resent only where the channel opts
# in); its timeouts are a chat platform's (prhub.notify.delivery.CONNECT_TIMEOUT, READ_TIMEOUT).
CLIENT_CONFIG: dict[str, dict[str, Any]] = {
    "ses": {"retries": {"total_max_attempts": 1, "mode": "standard"}, "connect_timeout": 5, "read_timeout": 20},
}


def client(service: str) -> Any:
    """A boto3 client for `service`, one per thread (boto3 sessions are not thread-safe)."""
    cache = _local.__dict__.setdefault("clients", {})
    if service not in cache:
        settings = CLIENT_CONFIG.get(service)
        config = None
        if settings:
            from botocore.config import Config

            config = Config(**settings)
        with _session_lock:
            cache[service] = _session().client(service, config=config)
    return cache[service]


def thread_clients() -> dict[str, Any]:
    """This thread's clients, for helper threads working on its behalf (see adopt_clients)."""
    clients: dict[str, Any] = _local.__dict__.setdefault("clients", {})
    return clients


def adopt_clients(clients: dict[str, Any]) -> None:
    """Make this thread use another thread's clients (boto3 clients are thread-safe; only making them is not):
    a batch's helper threads then talk to the same endpoint as the invocation, with its clients' hooks."""
    _local.clients = clients


def reset() -> None:
    """Forget this thread's clients and the session (after the endpoint or credentials change, e.g. in tests): the
    session keeps the credentials it resolved first."""
    _local.__dict__.pop("clients", None)
    with _session_lock:
        _sessions.clear()


class LazyClient:
    """Stands for this thread's client of `service`, made on first use."""

    def __init__(self, service: str) -> None:
        self.service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(client(self.service), name)


class S3Bucket:
    """The site bucket: put, get and list "folders" (prhub.site.publish.Bucket)."""

    def __init__(self, s3: Any, name: str) -> None:
        self.s3 = s3
        self.name = name

    def put(self, key: str, body: bytes, content_type: str, cache_control: str) -> None:
        self.s3.put_object(Bucket=self.name, Key=key, Body=body, ContentType=content_type, CacheControl=cache_control)

    def get(self, key: str) -> bytes | None:
        try:
            return bytes(self.s3.get_object(Bucket=self.name, Key=key)["Body"].read())
        except self.s3.exceptions.NoSuchKey:
            return None

    def get_json(self, key: str) -> Any | None:
        """The JSON document at `key`, parsed (None: no such key), shared read-only with every caller of this
        process: read again while its ETag is the same (one HEAD), it is neither downloaded nor parsed again. A
        year's PR pages read its 2 MB report.json and pulls.json once per message of ten pages, 165 times."""
        where = (self.name, key)
        held = _memo.get(where)
        if held is not None and self._etag(key) == held[0]:
            return held[1]
        try:
            answer = self.s3.get_object(Bucket=self.name, Key=key)
        except self.s3.exceptions.NoSuchKey:
            _memo.drop(where)
            return None
        return _memo.parse(where, str(answer.get("ETag") or ""), answer["Body"].read())

    def _etag(self, key: str) -> str | None:
        try:
            return str(self.s3.head_object(Bucket=self.name, Key=key).get("ETag") or "")
        except self.s3.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey"):
                return None
            raise

    def folders(self, prefix: str) -> Iterator[str]:
        """Sub-"folders" directly under `prefix`, every page of the listing."""
        for page in self.s3.get_paginator("list_objects_v2").paginate(
                Bucket=self.name, Prefix=prefix, Delimiter="/", PaginationConfig={"PageSize": LIST_PAGE_SIZE}):
            for common in page.get("CommonPrefixes", []):
                yield common["Prefix"]


class JsonMemo:
    """Parsed documents by (bucket, key) with the ETag they were read at, the least recently used dropped past
    JSON_MEMO_BYTES (of their size on S3). Thread-safe: a process's invocations may run side by side locally."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[tuple[str, str], tuple[str, Any, int]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, where: tuple[str, str]) -> tuple[str, Any] | None:
        with self.lock:
            held = self.items.get(where)
            if held is None:
                return None
            self.items.move_to_end(where)
            return held[0], held[1]

    def parse(self, where: tuple[str, str], etag: str, body: bytes) -> Any:
        """`body` (the object at `where`, read at `etag`) parsed: the document held for that ETag, else parsed
        and kept."""
        held = self.get(where)
        if held is not None and held[0] == etag:
            return held[1]
        doc = json.loads(body)
        with self.lock:
            self._drop(where)
            if etag and len(body) <= self.limit:
                self.items[where] = (etag, doc, len(body))
                self.size += len(body)
                while self.size > self.limit:
                    self._drop(next(iter(self.items)))
        return doc

    def drop(self, where: tuple[str, str]) -> None:
        with self.lock:
            self._drop(where)

    def _drop(self, where: tuple[str, str]) -> None:
        held = self.items.pop(where, None)
        if held is not None:
            self.size -= held[2]


_memo = JsonMemo(JSON_MEMO_BYTES)


class CloudFrontCdn:
    """Invalidations of the site's distribution; nothing to do without one (local runs)."""

    def __init__(self, cloudfront: Any, distribution_id: str) -> None:
        self.cloudfront = cloudfront
        self.distribution_id = distribution_id

    def invalidate(self, paths: list[str]) -> None:
        if not self.distribution_id or not paths:
            return
        self.cloudfront.create_invalidation(
            DistributionId=self.distribution_id,
            InvalidationBatch={"Paths": {"Quantity": len(paths), "Items": paths},
                               "CallerReference": f"prhub-{time.time_ns()}-{uuid.uuid4().hex[:8]}"})


def read_s3_url(s3: Any, url: str) -> bytes:
    """The object an s3://bucket/key URL names."""
    bucket, _, key = url[len("s3://"):].partition("/")
    return bytes(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
