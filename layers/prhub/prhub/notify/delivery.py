"""Sending a message to a channel: retries with backoff, throttling honoured, a verdict per answer.

    outcome = deliver(target, message, http=session, clock=time.time, sleep=time.sleep)

Each attempt builds the platform's request afresh (signatures carry a timestamp), sends it and asks the
platform module to classify the answer:

- delivered: done;
- throttled: the platform said "too fast" (HTTP 429 with Retry-After, or its own error code): wait as
  told, or the platform's window, and try again;
- transient: 5xx, a timeout, a dropped connection, "system busy": back off exponentially and try again;
- permanent: a bad URL, a revoked hook, a failed signature, a rejected payload: give up at once;
- maybe: the request went out and no answer came (a read timeout, a connection dropped after sending): the
  platform may have posted it. Resent here only to a platform with an idempotency key (the generic webhook's
  X-Prhub-Delivery, the same id on every try: its receiver drops the copies); for the others the outcome is
  `maybe`, and the caller decides against the ledger (prhub.flow.deliver: none, or one where the channel sets
  resend_on_timeout). A request that
  never left (a connect timeout, a refused connection) is transient: nothing can have arrived.

When the attempts run out the channel is given up (kind throttled or transient, logged as an error).
When the platform asks for a wait longer than `max_wait` (a Lambda should not sleep for minutes), the
delivery is deferred instead: `retry_after` says when the caller's queue should deliver it again. Every
outcome is logged with the channel's label (never its URL) and counted as a metric by channel.
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Protocol

from prhub.cloud import metrics, redaction
from prhub.core.channels import Target
from prhub.core.platforms import PLATFORMS
from prhub.notify import dingtalk, feishu, github_post, slack, teams, webhook, wecom
from prhub.notify import email as mail
from prhub.notify.message import Message, TooLarge
from prhub.notify.wire import Kind, Request, Verdict

logger = logging.getLogger(__name__)

ATTEMPTS = 4
BASE_DELAY = 1.0  # seconds before the second attempt; doubled each time
MAX_DELAY = 30.0
MAX_WAIT = 65.0  # longest in-process wait: covers the 20-a-minute windows of DingTalk and WeCom
CONNECT_TIMEOUT = 5.0  # seconds to connect: past it nothing was sent
READ_TIMEOUT = 20.0  # seconds for the answer: a slow platform is waited for, past it the message is maybe posted


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
    post: Mapping[str, Any] | None = None  # github: the issue or discussion made or edited

    @property
    def delivered(self) -> bool:
        return self.kind == "delivered"

    @property
    def deferred(self) -> bool:
        """The platform asked for a longer wait than this run may sleep: deliver again after retry_after."""
        return self.retry_after is not None


class Http(Protocol):
    """The part of requests.Session used here."""

    def request(self, method: str, url: str, *, data: bytes, headers: Mapping[str, str],
                timeout: float | tuple[float, float]) -> Any: ...


class Sender(Protocol):
    """A chat platform's module (slack, feishu, ...): its request for a message, and its reading of an answer."""

    def build(self, message: Message, target: Target, now: float, delivery_id: str) -> Request: ...

    def classify(self, status: int, headers: Mapping[str, str], body: str) -> Verdict: ...


# The module that sends to each platform of prhub.core.platforms.PLATFORMS, by its name (a test keeps the two
# equal): a Sender for each platform addressed by URL; email sends through SES (mail.send), github posts the report
# itself (deliver_post).
SENDERS: dict[str, ModuleType] = {"slack": slack, "feishu": feishu, "dingtalk": dingtalk, "wecom": wecom,
                                  "teams": teams, "webhook": webhook, "email": mail, "github": github_post}


def url_sender(channel: str) -> Sender:
    """The Sender of a platform addressed by URL."""
    if PLATFORMS[channel].address != "url":
        raise ValueError(f"a {channel} channel is not sent to a URL (email: an EmailClient; github: deliver_post)")
    return SENDERS[channel]  # type: ignore[return-value]


def deliver(target: Target, message: Message, *, http: Http | None = None, clock: Callable[[], float],
            sleep: Callable[[float], None], email: mail.EmailClient | None = None, sender: str = "",
            delivery_id: str | None = None, attempts: int = ATTEMPTS, max_wait: float = MAX_WAIT) -> Outcome:
    """Send `message` to `target` (an HTTP channel through `http`, e-mail through `email` from `sender`).

    `delivery_id` identifies this delivery across retries and redeliveries (the generic webhook sends it
    as X-Prhub-Delivery; use the idempotency record's key); a new one is made when not given.
    """
    delivery_id = delivery_id or str(uuid.uuid4())
    # urllib3 logs the request line at DEBUG: the hook's URL, its token and its secret are the log's to hide.
    redaction.install()
    redaction.known_url(target.url)
    redaction.known(target.secret)
    if PLATFORMS[target.channel].address == "email":
        if email is None:
            raise ValueError("an email channel needs an EmailClient")
        client = email

        def attempt() -> Verdict:
            return mail.send(client, sender, target, message)
    else:
        if http is None:
            raise ValueError(f"a {target.channel} channel needs an HTTP session")
        module, session = url_sender(target.channel), http

        def attempt() -> Verdict:
            request = module.build(message, target, clock(), delivery_id)
            return _send(session, module, request)

    try:
        outcome = _retrying(attempt, target, delivery_id, sleep, attempts, max_wait, idempotent(target.channel))
    except TooLarge as exc:
        outcome = Outcome(target.channel, target.label, "permanent", 0, str(exc), delivery_id=delivery_id)
    _report(outcome)
    return outcome


def deliver_post(target: Target, post: github_post.Post, *, http: Http, clock: Callable[[], float],
                 sleep: Callable[[float], None], known: Mapping[str, Any] | None = None, attempts: int = ATTEMPTS,
                 max_wait: float = MAX_WAIT) -> Outcome:
    """Post the report to GitHub (a `github` target: `url` the API's base, `secret` the token), or edit the post
    `known` (the ledger's record of it) or its marker names. Retried as deliver() retries; a write whose answer
    never came is tried again too, since the next try finds the post by its marker instead of making another."""
    redaction.install()
    redaction.known(target.secret)
    api = github_post.GitHubApi(http, target.url, target.secret, clock)
    seen: dict[str, Any] = dict(known or {})

    def attempt() -> Verdict:
        verdict = github_post.publish(api, post, seen or None)
        if verdict.post:
            seen.clear()
            seen.update(verdict.post)
        return verdict

    outcome = _retrying(attempt, target, "", sleep, attempts, max_wait, idempotent=True)
    outcome = replace(outcome, post=dict(seen) or None) if outcome.delivered else outcome
    _report(outcome)
    return outcome


def idempotent(channel: str) -> bool:
    """Whether the platform drops a copy of a delivery it already took (an idempotency key the receiver reads)."""
    known = PLATFORMS.get(channel)
    return known is not None and known.idempotent


def _retrying(attempt: Callable[[], Verdict], target: Target, delivery_id: str, sleep: Callable[[float], None],
              attempts: int, max_wait: float, idempotent: bool = False) -> Outcome:
    for n in range(1, max(attempts, 1) + 1):
        verdict = attempt()
        if verdict.kind in ("delivered", "permanent") or (verdict.kind == "maybe" and not idempotent):
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


def _send(http: Http, module: Sender, request: Request) -> Verdict:
    import requests

    try:
        response = http.request(request.method, request.url, data=request.body, headers=request.headers,
                                timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
    except requests.ConnectTimeout:
        return Verdict("transient", "timed out connecting (nothing was sent)")
    except requests.Timeout:
        return Verdict("maybe", f"no answer within {READ_TIMEOUT:g} s: maybe delivered")
    except requests.ConnectionError as exc:
        if _never_sent(exc):
            return Verdict("transient", f"connection failed: {type(exc).__name__}")
        return Verdict("maybe", f"connection dropped after sending ({type(exc).__name__}): maybe delivered")
    body = response.content.decode("utf-8", "replace")[:2000]
    return module.classify(response.status_code, response.headers, body)


def _never_sent(exc: Exception) -> bool:
    """Whether a connection error happened before the request left (no connection made, no TLS)."""
    from urllib3.exceptions import NewConnectionError

    reason = getattr(exc.args[0] if exc.args else None, "reason", None)
    return isinstance(reason, NewConnectionError) or "SSLError" in type(exc).__name__


def _report(outcome: Outcome) -> None:
    """A log line and a metric for every outcome; a clear error line when the channel is given up."""
    if outcome.kind == "delivered":
        logger.info("notify %s: delivered after %d attempt(s)", outcome.label, outcome.attempts)
    elif outcome.kind == "maybe":
        logger.warning("notify %s: maybe delivered after %d attempt(s): %s", outcome.label, outcome.attempts,
                       outcome.detail)
    elif outcome.deferred:
        logger.warning("notify %s: deferred (%s): %s; deliver again in %.0f s",
                       outcome.label, outcome.kind, outcome.detail, outcome.retry_after)
    else:
        logger.error("notify %s: gave up after %d attempt(s), %s failure: %s",
                     outcome.label, outcome.attempts, outcome.kind, outcome.detail)
    record(outcome)


METRICS = {"delivered": "NotifyDelivered", "throttled": "NotifyThrottled", "transient": "NotifyTransientFailure",
           "permanent": "NotifyPermanentFailure", "maybe": "NotifyMaybeDelivered"}


def record(outcome: Outcome) -> None:
    """The outcome as a CloudWatch metric by channel (prhub.cloud.metrics)."""
    metrics.count(METRICS[outcome.kind], channel=outcome.channel)
