"""What a platform module and the delivery loop exchange: the request a platform builds for a message, the
verdict it gives an answer, and the readings of answers several platforms share.

    <platform>.build(message, target, now, delivery_id) -> Request
    <platform>.classify(status, headers, body)            -> Verdict

Platforms (slack, feishu, ...) import this module and prhub.notify.delivery imports them: the wire is below both.
"""
from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

# maybe: the request went out and its answer never came (a read timeout, a connection dropped after sending):
# the platform may have taken it, so it is not resent as a transient failure is.
Kind = Literal["delivered", "throttled", "transient", "permanent", "maybe"]


@dataclass(frozen=True)
class Request:
    """One HTTP request as a platform wants it; `body` is the exact bytes signed and sent."""

    url: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=lambda: {"Content-Type": "application/json; charset=utf-8"})
    method: str = "POST"


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    detail: str = ""
    retry_after: float | None = None  # seconds the platform asked for (throttled)
    post: Mapping[str, Any] | None = None  # the post a github channel made or edited (kept in the ledger)


def http_verdict(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    """The common reading of HTTP status codes: 2xx delivered, 429/408 throttled, 5xx transient, else permanent."""
    detail = f"HTTP {status}" + (f" {body.strip()[:200]}" if body.strip() else "")
    if 200 <= status < 300:
        return Verdict("delivered", detail)
    if status in (408, 429):
        return Verdict("throttled", detail, retry_after(headers.get("Retry-After")))
    if status >= 500:
        return Verdict("transient", detail, retry_after(headers.get("Retry-After")))
    return Verdict("permanent", detail)


def code_verdict(status: int, headers: Mapping[str, str], body: str, *, code_keys: tuple[str, str],
                 throttled: Mapping[int, float], transient: frozenset[int] = frozenset({-1}),
                 permanent: Mapping[int, str] | None = None) -> Verdict:
    """The reading of chat bots that answer HTTP 200 with a JSON error code (Feishu, DingTalk, WeCom).

    `code_keys` names the code and message fields; `throttled` maps a code to the seconds to wait;
    codes neither throttled nor transient are permanent (`permanent` explains the documented ones).
    """
    if status != 200:
        return http_verdict(status, headers, body)
    try:
        doc = json.loads(body)
    except json.JSONDecodeError:
        return Verdict("permanent", f"HTTP 200 with a body that is not JSON: {body[:100]!r}")
    code_key, msg_key = code_keys
    code = doc.get(code_key) if isinstance(doc, dict) else None
    if not isinstance(code, int) or isinstance(code, bool):
        return Verdict("permanent", f"HTTP 200 without {code_key}: {body[:100]!r}")
    detail = f"{code_key} {code}: {str(doc.get(msg_key, ''))[:200]}"
    if code == 0:
        return Verdict("delivered", detail)
    if code in throttled:
        return Verdict("throttled", detail, throttled[code])
    if code in transient:
        return Verdict("transient", detail)
    why = (permanent or {}).get(code)
    return Verdict("permanent", f"{detail} ({why})" if why else detail)


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110); None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)
