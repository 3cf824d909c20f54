"""No credential in any log record: a delivery to every platform at DEBUG, with third-party loggers talking.

urllib3 logs each request line at DEBUG (Slack's path token, WeCom's key=, Teams' sig=, DingTalk's access_token=),
so the redaction (prhub.cloud.redaction) must hold for every logger and every handler, not one logger's filter.
"""
from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prhub.cloud import redaction
from prhub.core import platforms
from prhub.core.channels import Target
from prhub.notify.delivery import deliver
from prhub.notify.message import Links, Message, build_message

from tests.fakes.chat_servers import FakeChat, Fault, VirtualClock

PLATFORMS = platforms.names("url")  # every platform sent to a URL, each through its fake server
SIGNED = platforms.signed()
GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture
def debug_root() -> Iterator[io.StringIO]:
    """The root logger at DEBUG with a handler of its own, as Lambda's runtime has when its log level is DEBUG."""
    root = logging.getLogger()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def message() -> Message:
    doc = json.loads((GOLDEN / "en-small" / "report.json").read_text(encoding="utf-8"))
    period = doc["period"]
    return build_message(doc, Links.for_report("https://r.example.org", doc["repo"], period["since"],
                                               period["until"], [p["number"] for p in doc["prs"]]))


def test_a_delivery_at_debug_logs_no_credential(debug_root: io.StringIO, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    clock = VirtualClock(1_780_000_000.0)
    with FakeChat(clock=clock.time) as chat, requests.Session() as http:
        hooks = [chat.hook(p, secret=f"signing-secret-{p}-0123" if p in SIGNED else None) for p in PLATFORMS]
        hooks[0].faults.append(Fault(503, "busy"))  # a retry logs its line too
        outcomes = [deliver(Target(h.platform, h.platform, h.url, h.secret), message(), http=http,
                            clock=clock.time, sleep=clock.sleep) for h in hooks]
        # and a failure that reaches a traceback: the URL is in requests' exception text
        try:
            http.post(hooks[0].url.replace(str(chat.port), "9"), timeout=1)
        except requests.ConnectionError:
            logging.getLogger("prhub.test").exception("send failed", extra={"url": hooks[0].url})
    assert [o.kind for o in outcomes] == ["delivered"] * len(PLATFORMS)
    credentials = {h.token for h in hooks} | {h.secret for h in hooks if h.secret} | {f"sig{hooks[4].token}"}
    records = caplog.records
    assert any(r.name.startswith("urllib3") for r in records)  # the request lines were logged, redacted
    texts = [debug_root.getvalue(), caplog.text]
    for r in records:
        texts += [r.getMessage(), json.dumps({k: str(v) for k, v in vars(r).items()})]
        if r.exc_info:
            texts.append(logging.Formatter().formatException(r.exc_info))
    leaks = sorted({c for c in credentials for t in texts if c in t})
    assert leaks == []
    assert redaction.MASK in debug_root.getvalue()


@pytest.mark.parametrize(("text", "gone"), [
    ("POST /services/T0001/B0001/abcdefabcdef HTTP/1.1", "abcdefabcdef"),
    ('"POST /cgi-bin/webhook/send?key=693a91f6-7xxx HTTP/1.1" 200', "693a91f6-7xxx"),
    ("/robot/send?access_token=tok123456&timestamp=1&sign=c2lnbmF0dXJl", "tok123456"),
    ("/robot/send?access_token=tok123456&timestamp=1&sign=c2lnbmF0dXJl", "c2lnbmF0dXJl"),
    ("invoke?api-version=2016-06-01&sp=%2Ftriggers&sv=1.0&sig=AbCdEf123456", "AbCdEf123456"),
    ("/open-apis/bot/v2/hook/2d6e1f3a-aaaa-bbbb", "2d6e1f3a-aaaa-bbbb"),
    ("{'Authorization': 'Bearer sk-live-0123456789abcdef'}", "sk-live-0123456789abcdef"),
    ("Authorization: token ghp_0123456789abcdefghij0123", "ghp_0123456789abcdefghij0123"),
    ("https://user:hunter2hunter2@example.org/x", "hunter2hunter2"),
])
def test_credential_shapes_are_redacted_whoever_logs_them(text: str, gone: str) -> None:
    assert gone not in redaction.redact(text)


def test_a_known_secret_is_redacted_wherever_it_appears() -> None:
    redaction.known("a-value-no-pattern-knows")
    redaction.known_url("https://hooks.example.org/in/opaque-path-token?x=also-secret-1")
    text = redaction.redact("got a-value-no-pattern-knows and /in/opaque-path-token and also-secret-1 and a%2Dvalue")
    assert "a-value-no-pattern-knows" not in text and "opaque-path-token" not in text and "also-secret-1" not in text
    assert redaction.redact("ordinary text, 200 OK") == "ordinary text, 200 OK"


def test_a_structured_message_keeps_its_shape_and_loses_its_secrets() -> None:
    redaction.install()
    record = logging.getLogger("prhub.test").makeRecord(
        "prhub.test", logging.INFO, __file__, 1, {"url": "https://x.org/send?key=abcdef123456", "n": 3}, None, None)
    redaction.clean(record)
    assert record.msg == {"url": f"https://x.org/send?key={redaction.MASK}", "n": 3}
