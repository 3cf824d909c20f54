"""Sending a message to a channel: retries with backoff, throttling honoured, a verdict per answer.

    outcome = deliver(target, message, http=session, clock=time.time, sleep=time.sleep)

Each attempt builds the platform's request afresh (signatures carry a timestamp), sends it and asks the
platform module to classify the answer:

- delivered: done;
- throttled: the platform said "too fast" (HTTP 429 with Retry-After, or its own error code): wait as
  told, or the platform's window, and try again;
- transient: 5xx, a timeout, a dropped connection, "system busy": back off exponentially and try again;
- permanent: a bad URL, a revoked hook, a failed signature, a rejected payload: give up at once.

When the attempts run out the channel is given up (kind throttled or transient, logged as an error).
When the platform asks for a wait longer than `max_wait` (a Lambda should not sleep for minutes), the
delivery is deferred instead: `retry_after` says when the caller's queue should deliver it again. Every
outcome is logged with the channel's label (never its URL) and counted as a metric by channel.
"""
from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from prhub.cloud import metrics
from prhub.core.channels import Target
from prhub.notify.message import Message, TooLarge

if TYPE_CHECKING:
    from prhub.notify.email import EmailClient

logger = logging.getLogger(__name__)

Kind = Literal["delivered", "throttled", "transient", "permanent"]
ATTEMPTS = 4
BASE_DELAY = 1.0  # seconds before the second attempt; doubled each time
MAX_DELAY = 30.0
MAX_WAIT = 65.0  # longest in-process wait: covers the 20-a-minute windows of DingTalk and WeCom
TIMEOUT = 10.0  # seconds per HTTP request


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


@dataclass(frozen=True)
class Outcome:
    """What became of one delivery: `kind` after `attempts`; `retry_after` when a later try may succeed."""

    channel: str
    label: str
    kind: Kind
    attempts: int
    detail: str = ""
    retry_after: float | None = None  # set when deferred: deliver again after this many seconds
    delivery_id: str = ""

    @property
    def delivered(self) -> bool:
        return self.kind == "delivered"

    @property
    def deferred(self) -> bool:
        """The platform asked for a longer wait than this run may sleep: deliver again after retry_after."""
        return self.retry_after is not None


class Http(Protocol):
    """The part of requests.Session used here."""

    def request(self, method: str, url: str, *, data: bytes, headers: Mapping[str, str], timeout: float) -> Any: ...


class Platform(Protocol):
    """A platform module (slack, feishu, ...): its request for a message, and its reading of an answer."""

    def build(self, message: Message, target: Target, now: float, delivery_id: str) -> Request: ...

    def classify(self, status: int, headers: Mapping[str, str], body: str) -> Verdict: ...


def platform(channel: str) -> Platform:
    from prhub.notify import dingtalk, feishu, slack, teams, webhook, wecom

    modules: dict[str, Any] = {"slack": slack, "feishu": feishu, "dingtalk": dingtalk, "wecom": wecom,
                               "teams": teams, "webhook": webhook}
    return modules[channel]  # type: ignore[no-any-return]


def deliver(target: Target, message: Message, *, http: Http | None = None, clock: Callable[[], float],
            sleep: Callable[[float], None], email: EmailClient | None = None, sender: str = "",
            delivery_id: str | None = None, attempts: int = ATTEMPTS, max_wait: float = MAX_WAIT) -> Outcome:
    """Send `message` to `target` (an HTTP channel through `http`, e-mail through `email` from `sender`).

    `delivery_id` identifies this delivery across retries and redeliveries (the generic webhook sends it
    as X-Prhub-Delivery; use the idempotency record's key); a new one is made when not given.
    """
    delivery_id = delivery_id or str(uuid.uuid4())
    if target.channel == "email":
        from prhub.notify import email as mail

        if email is None:
            raise ValueError("an email channel needs an EmailClient")
        client = email

        def attempt() -> Verdict:
            return mail.send(client, sender, target, message)
    else:
        if http is None:
            raise ValueError(f"a {target.channel} channel needs an HTTP session")
        module, session = platform(target.channel), http

        def attempt() -> Verdict:
            request = module.build(message, target, clock(), delivery_id)
            return _send(session, module, request)

    try:
        outcome = _retrying(attempt, target, delivery_id, sleep, attempts, max_wait)
    except TooLarge as exc:
        outcome = Outcome(target.channel, target.label, "permanent", 0, str(exc), delivery_id=delivery_id)
    _report(outcome)
    return outcome


def _retrying(attempt: Callable[[], Verdict], target: Target, delivery_id: str, sleep: Callable[[float], None],
              attempts: int, max_wait: float) -> Outcome:
    for n in range(1, max(attempts, 1) + 1):
        verdict = attempt()
        if verdict.kind in ("delivered", "permanent"):
            return Outcome(target.channel, target.label, verdict.kind, n, verdict.detail, delivery_id=delivery_id)
        wait = backoff(n) if verdict.retry_after is None else verdict.retry_after
        if wait > max_wait:
            return Outcome(target.channel, target.label, verdict.kind, n, verdict.detail, retry_after=wait,
                           delivery_id=delivery_id)
        if n >= attempts:
            return Outcome(target.channel, target.label, verdict.kind, n, verdict.detail, delivery_id=delivery_id)
        logger.info("notify %s: %s (%s), attempt %d of %d, next in %.1f s",
                    target.label, verdict.kind, verdict.detail, n, attempts, wait)
        sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns on its last attempt


def backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based): 1, 2, 4, ... up to MAX_DELAY."""
    return min(BASE_DELAY * 2 ** (attempt - 1), MAX_DELAY)


def _send(http: Http, module: Platform, request: Request) -> Verdict:
    import requests

    try:
        response = http.request(request.method, request.url, data=request.body, headers=request.headers,
                                timeout=TIMEOUT)
    except requests.Timeout:
        return Verdict("transient", "timed out")
    except requests.ConnectionError as exc:
        return Verdict("transient", f"connection failed: {type(exc).__name__}")
    body = response.content.decode("utf-8", "replace")[:2000]
    return module.classify(response.status_code, response.headers, body)


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
    import time

    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _report(outcome: Outcome) -> None:
    """A log line and a metric for every outcome; a clear error line when the channel is given up."""
    if outcome.kind == "delivered":
        logger.info("notify %s: delivered after %d attempt(s)", outcome.label, outcome.attempts)
    elif outcome.deferred:
        logger.warning("notify %s: deferred (%s): %s; deliver again in %.0f s",
                       outcome.label, outcome.kind, outcome.detail, outcome.retry_after)
    else:
        logger.error("notify %s: gave up after %d attempt(s), %s failure: %s",
                     outcome.label, outcome.attempts, outcome.kind, outcome.detail)
    record(outcome)


METRICS = {"delivered": "NotifyDelivered", "throttled": "NotifyThrottled", "transient": "NotifyTransientFailure",
           "permanent": "NotifyPermanentFailure"}


def record(outcome: Outcome) -> None:
    """The outcome as a CloudWatch metric by channel (prhub.cloud.metrics)."""
    metrics.count(METRICS[outcome.kind], channel=outcome.channel)
