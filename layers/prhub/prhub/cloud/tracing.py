"""X-Ray traces with Powertools Tracer, made on an execution environment's first invocation, never at import.

The X-Ray SDK builds a botocore client while it loads (its sampling connector), which costs more than
`import boto3`: a module-level `Tracer()` would put every handler over its cold-start import budget
(bench/coldstart.py, at most 1.5 x `import boto3`). So each handler is wrapped with `handler`, which makes the
tracer on the first call and then traces as `Tracer.capture_lambda_handler` does (a `## handler` subsegment,
ColdStart and Service annotations). The tracer patches botocore (a subsegment per DynamoDB, SQS, S3, SSM and
Secrets Manager call) and requests (a subsegment per GitHub request); `traced` names the work around them
(`## github get`, `## model complete`).

Each handler call also installs prhub.cloud.redaction, so no log record of an invocation holds a credential.

Off where Powertools turns it off: POWERTOOLS_TRACE_DISABLED true, outside Lambda, under SAM local. Then the
SDK is never imported and `handler` and `traced` call straight through, so the CLI, the local runner and the
tests send no traces and pay nothing.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

# The class only (Powertools loads it with its Logger anyway): the X-Ray SDK comes with the first Tracer made.
from aws_lambda_powertools import Tracer

from prhub.cloud import redaction

P = ParamSpec("P")
R = TypeVar("R")
PATCHED = ("botocore", "requests")  # the model's client (httpx) is traced by `traced` on ChatModel.complete

_tracer: Tracer | None = None
_lock = threading.Lock()


def enabled() -> bool:
    """Whether traces are sent here, by Powertools' own rules."""
    return not Tracer._is_tracer_disabled()


def tracer() -> Tracer | None:
    """The process's Tracer, made on first use where tracing is on; None where it is off."""
    global _tracer
    if _tracer is None:
        with _lock:
            if _tracer is None and enabled():
                _tracer = Tracer(patch_modules=PATCHED)
    return _tracer


def handler(fn: Callable[[Any, Any], R]) -> Callable[[Any, Any], R]:
    """A Lambda handler traced as Tracer.capture_lambda_handler traces it, with the tracer made on its first call."""
    traced_fn: Callable[[Any, Any], R] | None = None

    @functools.wraps(fn)
    def call(event: Any, context: Any) -> R:
        nonlocal traced_fn
        redaction.install()  # every handler's records, whoever logs them, without credentials (idempotent)
        active = tracer()
        if active is None:
            return fn(event, context)
        if traced_fn is None:
            traced_fn = active.capture_lambda_handler(fn, capture_response=False)  # answers are logged already
        return traced_fn(event, context)

    return call


def traced(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: each call in a subsegment `## name` (its error recorded on it) where tracing is on."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            active = _tracer  # made by `handler`; a call outside a traced handler is not traced
            if active is None:
                return fn(*args, **kwargs)
            with active.provider.in_subsegment(name=f"## {name}"):
                return fn(*args, **kwargs)

        return call

    return wrap
