"""Fake chat platforms and a generic webhook receiver on 127.0.0.1, checking requests as the platforms do.

    with FakeChat(clock=clock.now) as chat:
        hook = chat.hook("feishu", secret="s3cret")      # hook.url, hook.received, hook.faults
        ... deliver to hook.url ...
        assert hook.received[0].json["card"]

Every hook validates what it gets the way its platform documents (payload shape, size limits, signatures
computed here independently of prhub), enforces the platform's rate limit on the fake's clock, and answers
with the platform's own success and error bodies. `hook.faults` queues answers to give before any check
(a 500, a 429 with Retry-After, a throttling code); `hook.always` answers every request with one fault.
`hook.slow` is a platform slower than its client: the request is taken (checked and accepted as usual), and
the answer comes `hook.slow` seconds later (to the next `hook.slow_times` requests, or all when None), so a
client that gives up first cannot know the message arrived.

What the platforms' documentation confirmed, and what it did not (the answer here is then our best reading):
- Slack: 200 "ok"; 400 invalid_payload / no_text / invalid_blocks; 404 channel_not_found / no_service;
  410 channel_is_archived; 429 with Retry-After (confirmed: Slack changelog 2016-05-17, Block Kit limits of
  50 blocks, 3,000-character section text, 150-character header). Not confirmed: the exact per-webhook rate
  (Slack says about one message a second, with bursts), so no rate is enforced unless `per_second` is set.
- Feishu/Lark: the sign (key = timestamp + "\\n" + secret over an empty message), the one-hour window and
  19021's body are confirmed (Lark custom bot guide); 19022/19024 too. Confirmed by third parties only:
  11232 for the frequency limit (100 a minute, 5 a second), 9499 "Bad Request" for a malformed body, the
  20 KB body limit (read here as 20 × 1024 bytes) and its error (answered here as 9499).
- DingTalk: the sign (HMAC keyed with the secret over timestamp + "\\n" + secret, URL-encoded in the query),
  310000 for a failed check and 20 messages a minute are documented; 410100 "send too fast" is what
  clients observe (130101 in older docs), and the ten-minute penalty past the limit is from DingTalk's
  docs, not re-checked here. 300001 for an unknown token and 40035 for a missing parameter are from
  third-party clients.
- WeCom: 93000 invalid webhook url, 45009 api freq out of limit, 4,096 bytes of markdown content and 20 a
  minute are documented; 40058 for content over the limit is what clients observe.
- Teams Workflows: 202 Accepted, the Adaptive Card envelope and the ~28 KB message limit (413) are
  documented; the trigger's answers to a bad `sig` (401 here) and to a body that is not a card (400 here)
  are not: the real trigger may accept the request and fail the flow later.
- Generic webhook: our own contract (prhub.notify.webhook), checked as a receiver would.
- Copies: every hook here posts each request it takes, a copy too, as the platforms do as far as we could tell.
  We found no idempotency key or message id to look up in the incoming-webhook documentation of Slack, Feishu
  (its `uuid` dedup is on the IM API, which custom bots cannot call), DingTalk, WeCom or Teams; we could not
  confirm that none exists undocumented, nor whether a platform drops an identical body sent twice within a
  moment (none says so). So prhub never resends a timed-out send to them unless the channel sets
  `resend_on_timeout`, and these fakes count every copy.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote_plus, urlsplit

from tests.fakes.loopback import LoopbackServer

Answer = tuple[int, dict[str, str], bytes]

FEISHU_OK = {"StatusCode": 0, "StatusMessage": "success", "code": 0, "data": {}, "msg": "success"}
FEISHU_SIGN_FAIL = {"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}
FEISHU_BAD = {"code": 9499, "msg": "Bad Request"}
FEISHU_LIMITED = {"code": 11232, "msg": "frequency limited psm[lark.oapi.app_platform_runtime]appID[-1]"}
DING_OK = {"errcode": 0, "errmsg": "ok"}
DING_SIGN_FAIL = {"errcode": 310000, "errmsg": "sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]"}
DING_NO_TOKEN = {"errcode": 300001, "errmsg": "token is not exist"}
DING_TOO_FAST = {"errcode": 410100, "errmsg": "send too fast, exceed 20 times per minute"}
DING_MISSING = {"errcode": 40035, "errmsg": "缺少参数 json"}
WECOM_OK = {"errcode": 0, "errmsg": "ok"}
WECOM_BAD_KEY = {"errcode": 93000, "errmsg": "invalid webhook url, hint: [1700000000_1_abc], from ip: 127.0.0.1"}
WECOM_LIMIT = {"errcode": 45009, "errmsg": "api freq out of limit, hint: [1700000000_1_abc]"}
WECOM_TOO_LONG = {"errcode": 40058, "errmsg": "markdown.content exceed max length 4096. invalid Request Parameter"}

SLACK_BLOCKS, SLACK_SECTION, SLACK_HEADER = 50, 3000, 150
FEISHU_BODY = 20 * 1024
WECOM_CONTENT = 4096
TEAMS_BODY = 28 * 1024
RATES = {"feishu": (100, 5), "dingtalk": (20, None), "wecom": (20, None)}  # (a minute, a second)
DING_PENALTY = 600.0



class VirtualClock:
    """Virtual time shared by a client (clock, sleep) and the fake platforms (signature windows, rates)."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

@dataclass(frozen=True)
class Fault:
    """An answer given instead of the platform's checks."""

    status: int
    body: Any = ""
    headers: dict[str, str] = field(default_factory=dict)

    def answer(self) -> Answer:
        body = self.body if isinstance(self.body, bytes) else (
            json.dumps(self.body).encode() if isinstance(self.body, dict) else str(self.body).encode())
        ctype = "application/json" if isinstance(self.body, dict) else "text/plain"
        return self.status, {"Content-Type": ctype, **self.headers}, body


@dataclass
class Received:
    path: str
    query: dict[str, list[str]]
    raw_query: str
    headers: dict[str, str]
    body: bytes
    answer: int = 0

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Hook:
    platform: str
    token: str
    url: str
    secret: str | None = None
    per_minute: int | None = None
    per_second: int | None = None
    faults: deque[Fault] = field(default_factory=deque)
    always: Fault | None = None
    received: list[Received] = field(default_factory=list)  # every request, answered or not
    accepted: list[Received] = field(default_factory=list)  # the ones the platform took
    sent_at: list[float] = field(default_factory=list)
    penalty_until: float = 0.0
    slow: float = 0.0  # seconds taken before answering a request it has already taken
    slow_times: int | None = None  # how many requests are answered late (None: all)


class FakeChat(LoopbackServer):
    """One server for all the fake platforms; `clock` is the platforms' clock (signature windows, rates)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.hooks: dict[str, Hook] = {}
        self._lock = threading.Lock()

    def start(self) -> FakeChat:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                parts = urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = Received(parts.path, parse_qs(parts.query), parts.query, dict(self.headers.items()), body)
                status, headers, out = fake.answer(request)
                request.answer = status
                time.sleep(fake.delay(request))
                try:
                    self.send_response(status)
                    for key, value in {"Content-Length": str(len(out)), **headers}.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(out)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting: the platform took the message all the same

        return self.serve(Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hook(self, platform: str, secret: str | None = None, **limits: Any) -> Hook:
        """A new hook of `platform` (slack, feishu, dingtalk, wecom, teams, webhook) and its URL."""
        token = uuid.uuid4().hex
        url = {
            "slack": f"/slack/services/T0001/B0001/{token}",
            "feishu": f"/feishu/open-apis/bot/v2/hook/{token}",
            "dingtalk": f"/dingtalk/robot/send?access_token={token}",
            "wecom": f"/wecom/cgi-bin/webhook/send?key={token}",
            "teams": f"/teams/workflows/{token}/triggers/manual/paths/invoke?api-version=1&sig=sig{token}",
            "webhook": f"/hook/{token}",
        }[platform]
        per_minute, per_second = RATES.get(platform, (None, None))
        hook = Hook(platform, token, self.base_url + url, secret, limits.get("per_minute", per_minute),
                    limits.get("per_second", per_second))
        self.hooks[token] = hook
        return hook

    def delay(self, request: Received) -> float:
        """How long the hook of `request` takes to answer it (hook.slow, while hook.slow_times lasts)."""
        with self._lock:
            hook = self._find(request)
            if hook is None or not hook.slow or hook.slow_times == 0:
                return 0.0
            if hook.slow_times is not None:
                hook.slow_times -= 1
            return hook.slow

    # -- answering ---------------------------------------------------------------------------------------------

    def answer(self, request: Received) -> Answer:
        with self._lock:
            hook = self._find(request)
            if hook is None:
                return self._unknown(request)
            hook.received.append(request)
            if hook.always is not None:
                return hook.always.answer()
            if hook.faults:
                return hook.faults.popleft().answer()
            check: Callable[[Hook, Received], Answer] = getattr(self, f"_{hook.platform}")
            answer = check(hook, request)
            if answer[0] in (200, 202) and self._ok(hook.platform, answer):
                hook.accepted.append(request)
                hook.sent_at.append(self.clock())
            return answer

    @staticmethod
    def _ok(platform: str, answer: Answer) -> bool:
        if platform in ("feishu", "dingtalk", "wecom"):
            doc = json.loads(answer[2])
            return doc.get("code", doc.get("errcode")) == 0
        return True

    def _find(self, request: Received) -> Hook | None:
        for token in (request.path.rsplit("/", 1)[-1], *request.query.get("access_token", []),
                      *request.query.get("key", [])):
            if token in self.hooks:
                return self.hooks[token]
        if request.path.startswith("/teams/workflows/"):
            return self.hooks.get(request.path.split("/")[3])
        return None

    def _unknown(self, request: Received) -> Answer:
        if request.path.startswith("/slack/"):
            return Fault(404, "no_service").answer()
        if request.path.startswith("/feishu/"):
            return _json(200, {"code": 19001, "msg": "param invalid: incoming webhook access token invalid"})
        if request.path.startswith("/dingtalk/"):
            return _json(200, DING_NO_TOKEN)
        if request.path.startswith("/wecom/"):
            return _json(200, WECOM_BAD_KEY)
        return Fault(404, "not found").answer()

    def _limited(self, hook: Hook) -> bool:
        now = self.clock()
        minute = [t for t in hook.sent_at if now - t < 60]
        second = [t for t in hook.sent_at if now - t < 1]
        return bool((hook.per_minute is not None and len(minute) >= hook.per_minute)
                    or (hook.per_second is not None and len(second) >= hook.per_second))

    def _slack(self, hook: Hook, request: Received) -> Answer:
        try:
            doc = json.loads(request.body)
        except ValueError:
            return Fault(400, "invalid_payload").answer()
        if hook.per_second is not None and self._limited(hook):
            return Fault(429, "rate_limited", {"Retry-After": "1"}).answer()
        if not isinstance(doc, dict) or not (doc.get("text") or doc.get("blocks")):
            return Fault(400, "no_text").answer()
        blocks = doc.get("blocks") or []
        if not isinstance(blocks, list) or len(blocks) > SLACK_BLOCKS or not all(_slack_block(b) for b in blocks):
            return Fault(400, "invalid_blocks").answer()
        return Fault(200, "ok").answer()

    def _feishu(self, hook: Hook, request: Received) -> Answer:
        if len(request.body) > FEISHU_BODY:
            return _json(200, FEISHU_BAD)
        try:
            doc = json.loads(request.body)
        except ValueError:
            return _json(200, FEISHU_BAD)
        if hook.secret is not None:
            ts = doc.get("timestamp")
            if not isinstance(ts, str) or not ts.isdigit() or abs(self.clock() - int(ts)) > 3600:
                return _json(200, FEISHU_SIGN_FAIL)
            key = f"{ts}\n{hook.secret}".encode()
            expected = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
            if not hmac.compare_digest(str(doc.get("sign", "")), expected):
                return _json(200, FEISHU_SIGN_FAIL)
        if self._limited(hook):
            return _json(200, FEISHU_LIMITED)
        card = doc.get("card")
        if doc.get("msg_type") != "interactive" or not isinstance(card, dict) or not _feishu_card(card):
            return _json(200, FEISHU_BAD)
        return _json(200, FEISHU_OK)

    def _dingtalk(self, hook: Hook, request: Received) -> Answer:
        if hook.secret is not None:
            ts = (request.query.get("timestamp") or [""])[0]
            raw = [p.split("=", 1)[1] for p in request.raw_query.split("&") if p.startswith("sign=")]
            if not ts.isdigit() or abs(self.clock() * 1000 - int(ts)) > 3600 * 1000 or not raw:
                return _json(200, DING_SIGN_FAIL)
            digest = hmac.new(hook.secret.encode(), f"{ts}\n{hook.secret}".encode(), hashlib.sha256).digest()
            expected = base64.b64encode(digest).decode()
            # The sign must arrive URL-encoded: a raw "+" would read as a space.
            if raw[0] != quote_plus(expected) and raw[0] != quote_plus(expected).replace("%2F", "/"):
                return _json(200, DING_SIGN_FAIL)
        now = self.clock()
        if now < hook.penalty_until:
            return _json(200, DING_TOO_FAST)
        if self._limited(hook):
            hook.penalty_until = now + DING_PENALTY
            return _json(200, DING_TOO_FAST)
        try:
            doc = json.loads(request.body)
        except ValueError:
            return _json(200, DING_MISSING)
        md = doc.get("markdown") if isinstance(doc, dict) else None
        if doc.get("msgtype") != "markdown" or not isinstance(md, dict) or not isinstance(md.get("title"), str) \
                or not isinstance(md.get("text"), str) or not md["text"]:
            return _json(200, DING_MISSING)
        return _json(200, DING_OK)

    def _wecom(self, hook: Hook, request: Received) -> Answer:
        if self._limited(hook):
            return _json(200, WECOM_LIMIT)
        try:
            doc = json.loads(request.body)
        except ValueError:
            return _json(200, {"errcode": 40016, "errmsg": "invalid button size"})  # WeCom's odd answer to bad JSON
        content = (doc.get("markdown") or {}).get("content") if isinstance(doc, dict) else None
        if doc.get("msgtype") != "markdown" or not isinstance(content, str) or not content:
            return _json(200, {"errcode": 44004, "errmsg": "empty content"})
        if len(content.encode("utf-8")) > WECOM_CONTENT:
            return _json(200, WECOM_TOO_LONG)
        return _json(200, WECOM_OK)

    def _teams(self, hook: Hook, request: Received) -> Answer:
        if request.query.get("sig") != [f"sig{hook.token}"]:
            return _json(401, {"error": {"code": "DirectApiAuthorizationRequired", "message": "bad sig"}})
        if len(request.body) > TEAMS_BODY:
            return _json(413, {"error": {"code": "MessageTooLarge", "message": "Request Entity Too Large"}})
        try:
            doc = json.loads(request.body)
        except ValueError:
            return _json(400, {"error": {"code": "InvalidRequestContent", "message": "not JSON"}})
        attachments = doc.get("attachments") if isinstance(doc, dict) else None
        if doc.get("type") != "message" or not isinstance(attachments, list) or not attachments or not all(
                a.get("contentType") == "application/vnd.microsoft.card.adaptive"
                and isinstance(a.get("content"), dict) and a["content"].get("type") == "AdaptiveCard"
                and isinstance(a["content"].get("version"), str) and isinstance(a["content"].get("body"), list)
                for a in attachments):
            return _json(400, {"error": {"code": "InvalidRequestContent", "message": "not an Adaptive Card"}})
        return 202, {}, b""

    def _webhook(self, hook: Hook, request: Received) -> Answer:
        headers = {k.lower(): v for k, v in request.headers.items()}
        if not headers.get("content-type", "").startswith("application/json"):
            return Fault(415, "expected application/json").answer()
        try:
            uuid.UUID(headers.get("x-prhub-delivery", ""))
        except ValueError:
            return Fault(400, "missing X-Prhub-Delivery").answer()
        if hook.secret is not None:
            expected = "sha256=" + hmac.new(hook.secret.encode(), request.body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(headers.get("x-prhub-signature-256", ""), expected):
                return Fault(401, "bad signature").answer()
        try:
            json.loads(request.body)
        except ValueError:
            return Fault(400, "body is not JSON").answer()
        return _json(200, {"ok": True})


def _json(status: int, doc: Any) -> Answer:
    return status, {"Content-Type": "application/json"}, json.dumps(doc, ensure_ascii=False).encode()


def _slack_block(block: Any) -> bool:
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    if kind == "header":
        text = block.get("text") or {}
        return text.get("type") == "plain_text" and 0 < len(text.get("text", "")) <= SLACK_HEADER
    if kind == "section":
        text = block.get("text") or {}
        return text.get("type") in ("mrkdwn", "plain_text") and 0 < len(text.get("text", "")) <= SLACK_SECTION
    if kind == "context":
        elements = block.get("elements") or []
        return 0 < len(elements) <= 10 and all(0 < len(e.get("text", "")) <= SLACK_SECTION for e in elements)
    return kind == "divider"


def _feishu_card(card: dict[str, Any]) -> bool:
    header = card.get("header") or {}
    elements = card.get("elements")
    if (header.get("title") or {}).get("tag") != "plain_text" or not isinstance(elements, list):
        return False
    for element in elements:
        tag = element.get("tag")
        if tag == "div" and (element.get("text") or {}).get("tag") not in ("lark_md", "plain_text"):
            return False
        if tag == "action" and not all(a.get("tag") == "button" and str(a.get("url", "")).startswith("http")
                                       for a in element.get("actions", [])):
            return False
        if tag not in ("div", "hr", "action", "note", "markdown"):
            return False
    return True
