"""Slack incoming webhooks: a Block Kit message (https://api.slack.com/messaging/webhooks).

Limits (Block Kit reference): at most 50 blocks; a section's text at most 3,000 characters; a header's
plain text at most 150; the top-level `text` is the notification fallback. Incoming webhooks do not sign
requests: the URL is the credential.

Answers (Slack changelog 2016-05-17 and the webhook docs): 200 with body `ok`; 400 `invalid_payload`,
`invalid_blocks`, `no_text`, `user_not_found`; 403 `action_prohibited`, `invalid_token`;
404 `channel_not_found`, `no_service`, `no_team`; 410 `channel_is_archived`; 429 with Retry-After
(about one message per second per webhook); 500 `rollup_error`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message, fit, shorten
from prhub.notify.wire import Request, Verdict, http_verdict

MAX_BLOCKS = 50
SECTION_CHARS = 3000
HEADER_CHARS = 150
FALLBACK_CHARS = 500


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    payload = fit(message, payload_for, fits)
    return Request(target.url, markup.json_bytes(payload))


def fits(payload: dict[str, Any]) -> bool:
    blocks = payload["blocks"]
    return len(blocks) <= MAX_BLOCKS and all(
        len(b["text"]["text"]) <= (HEADER_CHARS if b["type"] == "header" else SECTION_CHARS)
        for b in blocks if "text" in b)


def payload_for(message: Message) -> dict[str, Any]:
    w = message.words
    c = message.counts
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": message.title[:HEADER_CHARS], "emoji": False}},
    ]
    if message.summary:
        blocks.append(_section(markup.slack(message.summary)))
    blocks.append(_section(f"*{c.prs}* {w['prs']} · *{c.key_prs}* {w['key_prs']} · "
                           f"*{c.breaking}* {w['breaking']} · *{c.risks}* {w['risks']}"))
    if message.highlights:
        blocks.append(_section(f"*{w['highlights']}*"))
    for h in message.highlights:  # a section each: every one gets the 3,000 characters of a section
        refs = " ".join(f"<{url}|{label}>" for r in h.prs for label, url in r.links())
        blocks.append(_section(f"• {markup.slack(h.text)}" + (f" {refs}" if refs else "")))
    links = [f"<{u}|{label}>" for u, label in ((message.page, w["page"]), (message.pdf, w["pdf"])) if u]
    if links:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(links)}]})
    # The notification's text (shown where blocks are not): cut before escaping, so no entity is cut.
    fallback = shorten(f"{message.title}: {message.summary}" if message.summary else message.title, FALLBACK_CHARS)
    return {"text": markup.slack(fallback), "blocks": blocks, "unfurl_links": False}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    text = body.strip()
    if status == 200:
        # Slack answers "ok"; anything else on a 200 is not a documented success.
        return Verdict("delivered") if text == "ok" else Verdict("permanent", f"HTTP 200 {text[:200]}")
    return http_verdict(status, headers, text)
