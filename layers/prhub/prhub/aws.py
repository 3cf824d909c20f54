"""boto3 clients made lazily and shared per thread; they honour AWS_ENDPOINT_URL,
so moto, LocalStack and AWS need no code change."""
from __future__ import annotations

import threading
from typing import Any

import boto3

_local = threading.local()


def client(service: str) -> Any:
    """A boto3 client for `service`, one per thread (boto3 sessions are not thread-safe)."""
    cache = _local.__dict__.setdefault("clients", {})
    if service not in cache:
        cache[service] = boto3.session.Session().client(service)
    return cache[service]


def resource(service: str) -> Any:
    cache = _local.__dict__.setdefault("resources", {})
    if service not in cache:
        cache[service] = boto3.session.Session().resource(service)
    return cache[service]


def reset() -> None:
    """Forget cached clients (after the endpoint or credentials change, e.g. in tests)."""
    _local.__dict__.pop("clients", None)
    _local.__dict__.pop("resources", None)
