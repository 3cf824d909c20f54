"""Microsoft Teams through a Workflows webhook ("Post to a channel when a webhook request is received").

The body is a message with one Adaptive Card attachment:
    {"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
                                         "contentUrl": null, "content": {"type": "AdaptiveCard", ...}}]}
The URL (with its `sig` query parameter) is the credential; there is no request signing. A Teams message
is at most about 28 KB (Teams' limits; larger ones fail with 413 "Request Entity Too Large").

Answers: 202 Accepted with an empty body (the flow runs later, so a card the flow cannot post is not
reported back); 400 for a body the trigger rejects; 401/403/404 for a bad or deleted URL; 429 with
Retry-After when throttled (Teams documents about four requests a second per webhook); 5xx transient.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message, fit
from prhub.notify.wire import Request, Verdict, http_verdict

MAX_BODY = 28_000  # bytes
CARD_VERSION = "1.4"  # Teams renders Adaptive Cards up to 1.5; 1.4 covers the Teams mobile clients too


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    body = fit(message, lambda m: markup.json_bytes(payload_for(m)), lambda b: len(b) <= MAX_BODY)
    return Request(target.url, body)


def payload_for(message: Message) -> dict[str, Any]:
    w = message.words
    c = message.counts
    body: list[dict[str, Any]] = [
        {"type": "TextBlock", "text": markup.markdown(message.title), "size": "Large", "weight": "Bolder",
         "wrap": True},
    ]
    if message.summary:
        body.append({"type": "TextBlock", "text": markup.markdown(message.summary), "wrap": True})
    body.append({"type": "FactSet", "facts": [
        {"title": w["prs"], "value": str(c.prs)}, {"title": w["key_prs"], "value": str(c.key_prs)},
        {"title": w["breaking"], "value": str(c.breaking)}, {"title": w["risks"], "value": str(c.risks)}]})
    if message.highlights:
        body.append({"type": "TextBlock", "text": w["highlights"], "weight": "Bolder", "separator": True,
                     "wrap": True})
        for h in message.highlights:
            refs = " ".join(markup.link(label, url) for r in h.prs for label, url in r.links())
            body.append({"type": "TextBlock", "text": f"- {markup.markdown(h.text)}" + (f" {refs}" if refs else ""),
                         "wrap": True, "spacing": "Small"})
    actions = [{"type": "Action.OpenUrl", "title": label, "url": url}
               for label, url in ((w["page"], message.page), (w["pdf"], message.pdf)) if url]
    card = {"type": "AdaptiveCard", "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": CARD_VERSION, "body": body, "actions": actions, "msteams": {"width": "Full"}}
    return {"type": "message", "attachments": [
        {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}]}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    return http_verdict(status, headers, body)
