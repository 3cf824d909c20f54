"""boto3 clients made lazily and shared per thread; they honour AWS_ENDPOINT_URL,
so moto, LocalStack and AWS need no code change."""
from __future__ import annotations

import threading
from typing import Any

import boto3
import botocore.loaders
import botocore.session

_local = threading.local()
# Service models are the same for every session: parse their JSON once per process, not per client
# (each new session otherwise re-reads ~0.5 s of JSON, which dominates local runs and tests).
_loader = botocore.loaders.create_loader()


def _session() -> Any:  # Any: the stubs type client() per literal service name
    core = botocore.session.get_session()
    core.register_component("data_loader", _loader)
    return boto3.session.Session(botocore_session=core)


def client(service: str) -> Any:
    """A boto3 client for `service`, one per thread (boto3 sessions are not thread-safe)."""
    cache = _local.__dict__.setdefault("clients", {})
    if service not in cache:
        cache[service] = _session().client(service)
    return cache[service]


def resource(service: str) -> Any:
    cache = _local.__dict__.setdefault("resources", {})
    if service not in cache:
        cache[service] = _session().resource(service)
    return cache[service]


def reset() -> None:
    """Forget cached clients (after the endpoint or credentials change, e.g. in tests)."""
    _local.__dict__.pop("clients", None)
    _local.__dict__.pop("resources", None)
