"""A generic webhook: the report's summary as JSON, signed as GitHub signs its webhooks.

Headers: `X-Prhub-Event: report.published`, `X-Prhub-Delivery: <id>` (the same id on every retry and
redelivery of one delivery, so a receiver can drop duplicates) and, when a secret is set,
`X-Prhub-Signature-256: sha256=<hex HMAC-SHA256 of the body keyed with the secret>`. Receivers should
compare the signature in constant time. Answers are read as HTTP: 2xx delivered; 408/429 throttled
(Retry-After honoured); 5xx transient; any other status permanent.
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message
from prhub.notify.wire import Request, Verdict, http_verdict

EVENT = "report.published"
SCHEMA = "prhub.notify/1"


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    body = markup.json_bytes(payload_for(message))
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "prhub-notify",
               "X-Prhub-Event": EVENT, "X-Prhub-Delivery": delivery_id}
    if target.secret:
        headers["X-Prhub-Signature-256"] = signature(body, target.secret)
    return Request(target.url, body, headers)


def payload_for(message: Message) -> dict[str, Any]:
    # A digest's message names the digest in a field of its own; `repo` keeps its name too, as prhub.notify/1
    # receivers written before read it.
    named = {"digest": message.digest} if message.digest else {}
    return {
        "schema": SCHEMA, "event": EVENT, "repo": message.repo, **named, "language": message.lang,
        "period": {"since": message.since, "until": message.until},
        "title": message.title, "summary": message.summary, "counts": asdict(message.counts),
        "highlights": [{"text": h.text, "prs": [_present(asdict(r)) for r in h.prs]} for h in message.highlights],
        "links": _present({"page": message.page, "pdf": message.pdf}),
    }


def _present(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields that have a value: a page without a site URL to link it from (a local run's stack has none) is
    left out, not sent as null for every PR."""
    return {k: v for k, v in fields.items() if v is not None}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    return http_verdict(status, headers, body)
