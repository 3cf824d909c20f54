"""DingTalk custom robots: a markdown message (open.dingtalk.com, "Custom robot access" and "security settings").

Signing, when the robot has "加签" on: `timestamp` in milliseconds (within an hour of DingTalk's clock) and
`sign` = URL-encoded Base64(HMAC-SHA256 keyed with `secret` over `timestamp + "\\n" + secret`), both in
the query string beside the URL's access_token. A robot takes 20 messages a minute; past that it is
throttled for ten minutes.

Answers are HTTP 200 with `{"errcode": 0, "errmsg": "ok"}`; 310000 (sign mismatch, keyword missing or IP
not allowed); 300001 / 400101 (access_token missing or unknown); 400102 (robot stopped); 410100 and
130101 ("send too fast", the 20-a-minute limit); -1 (system busy). DingTalk documents no size limit for
markdown that we could confirm; the body is kept within 20,000 bytes like Feishu's.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message, fit
from prhub.notify.wire import Request, Verdict, code_verdict

MAX_BODY = 20_000
# DingTalk's docs: past 20 messages a minute a robot is throttled for 10 minutes (longer than a Lambda
# should wait: the outcome asks the caller's queue to come back then).
PENALTY = 600.0
THROTTLED = (410100, 130101)
PERMANENT = {310000: "signature, keyword or IP check failed", 300001: "unknown access_token",
             400101: "access_token missing", 400102: "robot stopped"}


def sign(timestamp_ms: int, secret: str) -> str:
    """The Base64 signature (before URL-encoding, which the query string applies)."""
    digest = hmac.new(secret.encode(), f"{timestamp_ms}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    url = target.url
    if target.secret:
        ts = int(now * 1000)
        url += ("&" if "?" in url else "?") + urlencode({"timestamp": ts, "sign": sign(ts, target.secret)})
    body = fit(message, lambda m: markup.json_bytes(payload_for(m)), lambda b: len(b) <= MAX_BODY)
    return Request(url, body)


def payload_for(message: Message) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"title": message.title, "text": markup.markdown_message(message)}}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    return code_verdict(status, headers, body, code_keys=("errcode", "errmsg"),
                        throttled=dict.fromkeys(THROTTLED, PENALTY), permanent=PERMANENT)
