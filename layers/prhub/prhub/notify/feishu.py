"""Feishu / Lark custom bots: an interactive card (open.feishu.cn / open.larksuite.com, "Custom bot guide").

Signing, when the bot has "signature verification" on: `timestamp` in seconds (within an hour of the
server's clock) and `sign` = Base64(HMAC-SHA256 keyed with `timestamp + "\\n" + secret` over an empty
message), both in the JSON body. The request body is at most 20 KB.

Answers are HTTP 200 with a JSON code: `{"code":0,"msg":"success"}` (older bots answer
`{"StatusCode":0,"StatusMessage":"success"}`); 19021 sign mismatch or stale timestamp; 19022 IP not
allowed; 19024 keyword not found; 9499 "Bad Request" (a malformed body; some deployments use it for
"too many requests" too, so its message decides); 11232 frequency limited (100 a minute, 5 a second
per bot). Non-200 statuses are read as HTTP.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message, fit
from prhub.notify.wire import Request, Verdict, code_verdict

MAX_BODY = 20_000  # bytes ("20K"; read as 20,000 to stay clear of either meaning)
THROTTLE_WAIT = 2.0  # seconds: the per-second limit clears quickly
PERMANENT = {19021: "signature mismatch or timestamp not within an hour", 19022: "IP not allowed",
             19024: "keyword not found"}


def sign(timestamp: int, secret: str) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    head: dict[str, Any] = {}
    if target.secret:
        ts = int(now)
        head = {"timestamp": str(ts), "sign": sign(ts, target.secret)}
    body = fit(message, lambda m: markup.json_bytes({**head, **payload_for(m)}), lambda b: len(b) <= MAX_BODY)
    return Request(target.url, body)


def payload_for(message: Message) -> dict[str, Any]:
    w = message.words
    c = message.counts
    elements: list[dict[str, Any]] = []
    if message.summary:
        elements.append(_md(markup.markdown(message.summary)))
    elements.append(_md(f"**{c.prs}** {w['prs']} · **{c.key_prs}** {w['key_prs']} · "
                        f"**{c.breaking}** {w['breaking']} · **{c.risks}** {w['risks']}"))
    if message.highlights:
        lines = [f"**{w['highlights']}**"]
        for h in message.highlights:
            refs = " ".join(markup.link(label, url) for r in h.prs for label, url in r.links())
            lines.append(f"- {markup.markdown(h.text)}" + (f" {refs}" if refs else ""))
        elements.append({"tag": "hr"})
        elements.append(_md("\n".join(lines)))
    buttons = [{"tag": "button", "text": {"tag": "plain_text", "content": label}, "url": url,
                "type": "primary" if i == 0 else "default"}
               for i, (label, url) in enumerate(((w["page"], message.page), (w["pdf"], message.pdf))) if url]
    if buttons:
        elements.append({"tag": "action", "actions": buttons})
    return {"msg_type": "interactive",
            "card": {"config": {"wide_screen_mode": True},
                     "header": {"title": {"tag": "plain_text", "content": message.title}, "template": "blue"},
                     "elements": elements}}


def _md(text: str) -> dict[str, Any]:
    return {"tag": "div", "text": {"tag": "lark_md", "content": text}}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    try:
        doc = json.loads(body) if status == 200 else None
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and "code" not in doc and "StatusCode" in doc:  # the older bots' answer
        doc = {"code": doc["StatusCode"], "msg": doc.get("StatusMessage", "")}
        body = json.dumps(doc)
    if isinstance(doc, dict) and doc.get("code") == 9499 and any(
            w in str(doc.get("msg", "")).lower() for w in ("too many", "frequency", "rate")):
        return Verdict("throttled", f"code 9499: {str(doc.get('msg'))[:200]}", THROTTLE_WAIT)
    return code_verdict(status, headers, body, code_keys=("code", "msg"), throttled={11232: THROTTLE_WAIT},
                        permanent=PERMANENT)
