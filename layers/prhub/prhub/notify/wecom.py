"""WeCom (企业微信) group robots: a markdown message (developer.work.weixin.qq.com, "群机器人配置说明").

The URL's `key` is the credential; there is no signing. `markdown.content` is at most 4,096 bytes of
UTF-8; a robot takes 20 messages a minute.

Answers are HTTP 200 with `{"errcode": 0, "errmsg": "ok"}`; 45009 "api freq out of limit" (the
20-a-minute limit); 93000 "invalid webhook url" (unknown or deleted key); 40058 (a parameter out of
range, e.g. content over 4,096 bytes); 93017 (robot removed from the group: documented by third
parties only); -1 system busy.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message, fit
from prhub.notify.wire import Request, Verdict, code_verdict

MAX_CONTENT = 4096  # bytes of UTF-8
WINDOW = 60.0  # seconds: the limit is 20 a minute, so the next minute takes the message
PERMANENT = {93000: "invalid webhook url (unknown key)", 40058: "a parameter is invalid or too long",
             93017: "the robot was removed from the group"}


def build(message: Message, target: Target, now: float, delivery_id: str) -> Request:
    content = fit(message, markup.markdown_message, lambda text: markup.utf8_len(text) <= MAX_CONTENT)
    return Request(target.url, markup.json_bytes(payload_for(content)))


def payload_for(content: str) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"content": content}}


def classify(status: int, headers: Mapping[str, str], body: str) -> Verdict:
    return code_verdict(status, headers, body, code_keys=("errcode", "errmsg"), throttled={45009: WINDOW},
                        permanent=PERMANENT)
