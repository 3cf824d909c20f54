"""Delivering a published report to every channel: fake platforms that check payloads, limits and signatures.

The fakes (tests.fakes.chat_servers) verify signatures with their own code, enforce each platform's size
and rate limits on a virtual clock that the client's `sleep` advances, and answer with the platforms'
documented bodies. E-mail goes to moto's SES.
"""
from __future__ import annotations

import copy
import json
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from prhub.cloud import aws
from prhub.core import platforms
from prhub.core.channels import Channel, Target, parse_channel, resolve
from prhub.notify.delivery import Outcome, deliver
from prhub.notify.email import EmailFailure, SesEmail
from prhub.notify.message import Links, Message, build_message

from tests.fakes.chat_servers import FakeChat, Fault, Hook, VirtualClock

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SITE = "https://reports.example.org"
PLATFORMS = platforms.names("url")  # every platform sent to a URL, each through its fake server
SIGNED = platforms.signed()
SENDER = "reports@example.org"


Clock = VirtualClock


@pytest.fixture
def clock() -> Clock:
    return Clock(1_780_000_000.0)


@pytest.fixture
def chat(clock: Clock) -> Iterator[FakeChat]:
    with FakeChat(clock=clock.time) as fake:
        yield fake


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def report(name: str = "zh-week") -> dict[str, Any]:
    return json.loads((GOLDEN / name / "report.json").read_text(encoding="utf-8"))


def links_for(doc: dict[str, Any]) -> Links:
    period = doc["period"]
    return Links.for_report(SITE, doc["repo"], period["since"], period["until"], [p["number"] for p in doc["prs"]])


def target(hook: Hook, secret: str | None = None) -> Target:
    return Target(channel=hook.platform, label=hook.platform, url=hook.url,
                  secret=hook.secret if secret is None else secret)


def send(hook: Hook, message: Message, http: requests.Session, clock: Clock, **kwargs: Any) -> Outcome:
    return deliver(target(hook, kwargs.pop("secret", None)), message, http=http, clock=clock.time,
                   sleep=clock.sleep, **kwargs)


def text_of(hook: Hook, index: int = -1) -> str:
    """What the platform received, as one string (JSON strings decoded)."""
    return json.dumps(hook.received[index].json, ensure_ascii=False)


def link_targets(platform: str, blob: str) -> list[str]:
    """Every URL the payload makes a link of, read as the platform's markup does."""
    if platform == "slack":
        return [m.group(1) for m in re.finditer(r"<([^<>|]+)(?:\|[^<>]*)?>", blob)]
    found = re.findall(r"\]\(([^)\s]+)\)", blob)
    found += re.findall(r'"url":\s*"([^"]+)"', blob)
    return found


# -- every channel, both languages ----------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("name", ["zh-week", "en-small"])
def test_each_channel_gets_the_report_in_its_format(platform: str, name: str, chat: FakeChat,
                                                    http: requests.Session, clock: Clock) -> None:
    # GIVEN a published report and a channel (signed where the platform signs)
    doc = report(name)
    links = links_for(doc)
    message = build_message(doc, links)
    hook = chat.hook(platform, secret="s3cret-" + platform if platform in SIGNED else None)

    # WHEN it is delivered
    outcome = send(hook, message, http, clock)

    # THEN the platform took it at once (its signature checked by the fake), with the report's facts and links
    assert outcome.kind == "delivered" and outcome.attempts == 1, outcome
    assert len(hook.accepted) == 1
    blob = text_of(hook)
    for part in (links.page, links.pdf, doc["repo"]):
        assert part in blob
    cited = [n for h in doc["highlights"] for n in h["prs"]]
    assert cited and all(links.pr_pages[n] in blob for n in cited)
    for count in (doc["stats"]["pr_count"], doc["stats"]["key_pr_count"]):
        assert str(count) in blob
    assert doc["highlights"][0]["text"][:20] in blob
    assert clock.sleeps == []


def test_generic_webhook_signs_like_github_and_keeps_one_delivery_id(chat: FakeChat, http: requests.Session,
                                                                     clock: Clock) -> None:
    hook = chat.hook("webhook", secret="hook-secret")
    hook.faults.append(Fault(503, "busy"))
    message = build_message(report(), links_for(report()))

    outcome = send(hook, message, http, clock, delivery_id="5f0b3c1e-1d2a-4c4e-9a53-2f7c3f1b9e10")

    assert outcome.delivered and outcome.attempts == 2
    ids = {r.headers["X-Prhub-Delivery"] for r in hook.received}
    assert ids == {"5f0b3c1e-1d2a-4c4e-9a53-2f7c3f1b9e10"}  # a receiver can drop the duplicate
    body = hook.accepted[0].json
    assert body["event"] == "report.published" and body["counts"] == {
        "prs": 7, "key_prs": 4, "breaking": 1, "risks": 4}
    assert hook.accepted[0].headers["X-Prhub-Event"] == "report.published"


@pytest.mark.parametrize("platform, answer", [
    ("feishu", "19021"), ("dingtalk", "310000"), ("webhook", "HTTP 401"),
])
def test_a_wrong_signing_secret_is_permanent(platform: str, answer: str, chat: FakeChat, http: requests.Session,
                                             clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    hook = chat.hook(platform, secret="the-right-one")
    message = build_message(report(), links_for(report()))

    with caplog.at_level(logging.INFO, logger="prhub.notify"):
        outcome = send(hook, message, http, clock, secret="a-wrong-one")

    assert outcome.kind == "permanent" and outcome.attempts == 1 and answer in outcome.detail
    assert hook.accepted == [] and clock.sleeps == []
    line = next(r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    assert "gave up" in line and platform in line and hook.token not in line  # the URL's credential stays out


def test_a_stale_feishu_timestamp_is_refused(chat: FakeChat, http: requests.Session, clock: Clock) -> None:
    hook = chat.hook("feishu", secret="s")
    message = build_message(report(), links_for(report()))
    # The client's clock is two hours behind the platform's: the signature's timestamp is out of its window.
    outcome = deliver(target(hook), message, http=http, clock=lambda: clock.now - 7200, sleep=clock.sleep)
    assert outcome.kind == "permanent" and "19021" in outcome.detail


# -- untrusted text and limits --------------------------------------------------------------------------------

HOSTILE = ('<!channel> <@U024BE7LH> [click me](https://evil.example/x) <https://evil.example|docs> '
           '<font color="warning">red</font> <at user_id="all">all</at> <script>alert(1)</script> & *b* `c`')


def hostile_report() -> dict[str, Any]:
    doc = report()
    doc["highlights"][0]["text"] = "Hostile: " + HOSTILE
    doc["summary"] = HOSTILE
    doc["prs"][0]["title"] = HOSTILE
    return doc


@pytest.mark.parametrize("platform", PLATFORMS)
def test_untrusted_text_never_becomes_a_link_mention_or_tag(platform: str, chat: FakeChat, http: requests.Session,
                                                            clock: Clock) -> None:
    hook = chat.hook(platform)
    outcome = send(hook, build_message(hostile_report(), links_for(report())), http, clock)

    assert outcome.delivered
    blob = text_of(hook)
    assert "Hostile" in blob  # the text is there, made inert
    if platform != "webhook":
        assert all(u.startswith((SITE + "/", "https://github.com/")) for u in link_targets(platform, blob)), blob
    if platform == "slack":
        assert "<!channel>" not in blob and "<@U024BE7LH>" not in blob and "&lt;!channel&gt;" in blob
    elif platform != "webhook":
        assert "<font" not in blob and "<at " not in blob and "<script>" not in blob
    else:
        assert hook.accepted[0].json["summary"] == HOSTILE  # JSON carries it as data, exactly


def big_report() -> dict[str, Any]:
    """Five long CJK highlights, each citing many PRs with long titles: over every platform's limit."""
    doc = report()
    prs = []
    for n in range(5000, 5060):
        prs.append({**doc["prs"][0], "number": n, "url": f"https://github.com/example-org/trainer/pull/{n}",
                    "title": "超长标题" * 60, "key": True})
    doc["prs"] = prs
    doc["highlights"] = [{"text": f"要点{i}：" + "很长的说明文字" * 80,
                          "prs": list(range(5000 + 10 * i, 5010 + 10 * i))} for i in range(5)]
    doc["summary"] = "本周摘要" * 200
    return doc


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_huge_report_is_cut_to_fit_never_refused(platform: str, chat: FakeChat, http: requests.Session,
                                                   clock: Clock) -> None:
    doc = big_report()
    message = build_message(doc, Links.for_report(SITE, doc["repo"], "2026-05-04", "2026-05-10",
                                                  [p["number"] for p in doc["prs"]]))
    hook = chat.hook(platform, secret="k" if platform in SIGNED else None)

    outcome = send(hook, message, http, clock)

    assert outcome.delivered, outcome  # the fake enforces the platform's limits
    shown = sum(1 for i in range(5) if f"要点{i}" in text_of(hook))
    assert 1 <= shown <= 5
    if platform == "wecom":
        assert shown < 5  # 4,096 bytes: highlights were dropped from the end
        assert "要点0" in text_of(hook)


# -- failures: retried, given up, isolated; throttling honoured ---------------------------------------------

def test_a_channel_answering_500_is_retried_then_given_up_without_affecting_the_others(
        chat: FakeChat, http: requests.Session, clock: Clock, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("prhub.cloud.metrics.namespace", "Prhub")  # as Deps sets it from the stack's environment
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    hooks = {p: chat.hook(p, secret="k" if p in SIGNED else None) for p in PLATFORMS}
    hooks["slack"].always = Fault(500, "rollup_error")
    message = build_message(report(), links_for(report()))

    with caplog.at_level(logging.INFO, logger="prhub.notify"):
        outcomes = {p: send(h, message, http, clock) for p, h in hooks.items()}

    slack = outcomes.pop("slack")
    assert slack.kind == "transient" and slack.attempts == 4 and not slack.deferred
    assert len(hooks["slack"].received) == 4 and clock.sleeps == [1.0, 2.0, 4.0]  # exponential backoff
    assert all(o.delivered and o.attempts == 1 for o in outcomes.values()), outcomes
    assert all(len(hooks[p].accepted) == 1 for p in outcomes)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [errors[0]] and "slack" in errors[0] and "gave up after 4 attempt(s)" in errors[0]
    assert "rollup_error" in errors[0]
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    failed = [m for m in metrics if "NotifyTransientFailure" in m]
    assert len(failed) == 1 and failed[0]["channel"] == "slack"
    assert sum(1 for m in metrics if "NotifyDelivered" in m) == 5


def test_an_unreachable_endpoint_is_transient(http: requests.Session, clock: Clock) -> None:
    with FakeChat(clock=clock.time) as gone:
        url = gone.hook("teams").url
    dead = Target("teams", "teams", url)
    outcome = deliver(dead, build_message(report(), links_for(report())), http=http, clock=clock.time,
                      sleep=clock.sleep, attempts=2)
    assert outcome.kind == "transient" and outcome.attempts == 2 and "connection" in outcome.detail


@pytest.mark.parametrize("platform, fault, wait", [
    ("slack", Fault(429, "rate_limited", {"Retry-After": "7"}), 7.0),
    ("teams", Fault(429, {"error": {"code": "TooManyRequests"}}, {"Retry-After": "3"}), 3.0),
    ("webhook", Fault(429, "slow down", {"Retry-After": "2"}), 2.0),
])
def test_retry_after_is_honoured(platform: str, fault: Fault, wait: float, chat: FakeChat,
                                 http: requests.Session, clock: Clock) -> None:
    hook = chat.hook(platform)
    hook.faults.append(fault)
    outcome = send(hook, build_message(report(), links_for(report())), http, clock)
    assert outcome.delivered and outcome.attempts == 2
    assert clock.sleeps == [wait]


def test_wecom_past_20_a_minute_waits_for_the_next_minute(chat: FakeChat, http: requests.Session,
                                                          clock: Clock) -> None:
    hook = chat.hook("wecom")
    message = build_message(report(), links_for(report()))
    outcomes = [send(hook, message, http, clock) for _ in range(21)]
    assert all(o.delivered for o in outcomes)
    assert [o.attempts for o in outcomes] == [1] * 20 + [2]  # the 21st met errcode 45009, then waited
    assert clock.sleeps == [60.0] and len(hook.accepted) == 21 and len(hook.received) == 22


def test_dingtalk_throttled_for_ten_minutes_is_deferred_not_hammered(chat: FakeChat, http: requests.Session,
                                                                     clock: Clock) -> None:
    hook = chat.hook("dingtalk", secret="SECabc")
    message = build_message(report(), links_for(report()))
    for _ in range(20):
        assert send(hook, message, http, clock).delivered

    late = send(hook, message, http, clock)
    assert late.kind == "throttled" and late.deferred and late.retry_after == 600.0 and late.attempts == 1
    assert clock.sleeps == [] and len(hook.received) == 21  # no retries into the penalty

    clock.sleep(600)  # the caller's queue brings it back when asked
    assert send(hook, message, http, clock).delivered


def test_feishu_frequency_limit_is_retried_after_a_short_wait(chat: FakeChat, http: requests.Session,
                                                              clock: Clock) -> None:
    hook = chat.hook("feishu", secret="s")
    message = build_message(report(), links_for(report()))
    outcomes = [send(hook, message, http, clock) for _ in range(6)]  # 5 a second
    assert [o.attempts for o in outcomes] == [1] * 5 + [2] and clock.sleeps == [2.0]
    assert len(hook.accepted) == 6


@pytest.mark.parametrize("platform, fault, expected", [
    ("slack", Fault(404, "channel_not_found"), "channel_not_found"),
    ("slack", Fault(410, "channel_is_archived"), "channel_is_archived"),
    ("slack", Fault(403, "action_prohibited"), "action_prohibited"),
    ("teams", Fault(413, "Request Entity Too Large"), "HTTP 413"),
])
def test_permanent_answers_are_not_retried(platform: str, fault: Fault, expected: str, chat: FakeChat,
                                           http: requests.Session, clock: Clock) -> None:
    hook = chat.hook(platform)
    hook.always = fault
    outcome = send(hook, build_message(report(), links_for(report())), http, clock)
    assert outcome.kind == "permanent" and outcome.attempts == 1 and expected in outcome.detail
    assert clock.sleeps == []


@pytest.mark.parametrize("platform, code", [("wecom", "93000"), ("dingtalk", "300001")])
def test_an_unknown_bot_key_is_permanent(platform: str, code: str, chat: FakeChat, http: requests.Session,
                                         clock: Clock) -> None:
    url = chat.hook(platform).url.rsplit("=", 1)[0] + "=no-such-key"
    outcome = deliver(Target(platform, platform, url), build_message(report(), links_for(report())), http=http,
                      clock=clock.time, sleep=clock.sleep)
    assert outcome.kind == "permanent" and code in outcome.detail


def test_urls_and_secrets_are_read_by_name(chat: FakeChat, http: requests.Session, clock: Clock) -> None:
    hook = chat.hook("feishu", secret="from-secrets-manager")
    store = {"prhub/feishu-url": hook.url, "prhub/feishu-sign": "from-secrets-manager"}
    channel = parse_channel({"channel": "feishu", "url_secret": "prhub/feishu-url", "secret_name": "prhub/feishu-sign"})
    resolved = resolve(channel, store.__getitem__)
    outcome = deliver(resolved, build_message(report(), links_for(report())), http=http, clock=clock.time,
                      sleep=clock.sleep)
    assert outcome.delivered and outcome.label == "feishu:prhub/feishu-url"


# -- e-mail through SES (moto) --------------------------------------------------------------------------------

def ses_channel(*to: str) -> Channel:
    return parse_channel({"channel": "email", "to": list(to or ["team@example.org"])})


def test_email_goes_out_through_ses_with_html_and_text(aws_endpoint: str, clock: Clock) -> None:
    ses = aws.client("ses")
    ses.verify_email_identity(EmailAddress=SENDER)
    before = ses.get_send_quota()["SentLast24Hours"]
    doc = hostile_report()
    sent: list[dict[str, Any]] = []

    class Recording(SesEmail):  # the real adapter, keeping what it sent for the assertions
        def send_email(self, **kwargs: Any) -> str:
            sent.append(kwargs)
            return super().send_email(**kwargs)

    outcome = deliver(resolve(ses_channel("a@example.org", "b@example.org"), {}.__getitem__),
                      build_message(doc, links_for(doc)), email=Recording(ses), sender=SENDER, clock=clock.time,
                      sleep=clock.sleep)

    assert outcome.delivered and outcome.detail.startswith("SES message ")
    assert ses.get_send_quota()["SentLast24Hours"] == before + 2  # SES counts recipients
    html, text = sent[0]["html"], sent[0]["text"]
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert links_for(doc).pdf in html and links_for(doc).pdf in text  # the PDF is linked, not attached
    assert sent[0]["to"] == ("a@example.org", "b@example.org")


def test_email_from_an_unverified_sender_is_permanent(aws_endpoint: str, clock: Clock) -> None:
    outcome = deliver(resolve(ses_channel(), {}.__getitem__), build_message(report(), links_for(report())),
                      email=SesEmail(aws.client("ses")), sender="nobody@unverified.example", clock=clock.time,
                      sleep=clock.sleep)
    assert outcome.kind == "permanent" and "MessageRejected" in outcome.detail


def test_ses_throttling_is_retried(aws_endpoint: str, clock: Clock) -> None:
    ses = aws.client("ses")
    ses.verify_email_identity(EmailAddress=SENDER)

    class ThrottledOnce(SesEmail):
        """SES as it answers past the account's sending rate, once (moto does not throttle)."""

        calls = 0

        def send_email(self, **kwargs: Any) -> str:
            self.calls += 1
            if self.calls == 1:
                raise EmailFailure("Throttling", "Maximum sending rate exceeded.")
            return super().send_email(**kwargs)

    outcome = deliver(resolve(ses_channel(), {}.__getitem__), build_message(report(), links_for(report())),
                      email=ThrottledOnce(ses), sender=SENDER, clock=clock.time, sleep=clock.sleep)
    assert outcome.delivered and outcome.attempts == 2 and clock.sleeps == [1.0]


def test_an_email_whose_answer_never_came_is_sent_once_and_maybe_delivered(
        aws_endpoint: str, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN an SES endpoint that takes every request and answers after the client stopped waiting
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tests.fakes.loopback import running

    taken: list[bytes] = []

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            taken.append(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(0.8)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    monkeypatch.setitem(aws.CLIENT_CONFIG, "ses", {**aws.CLIENT_CONFIG["ses"], "read_timeout": 0.3})
    with running(ThreadingHTTPServer(("127.0.0.1", 0), Slow)) as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL", url)
        aws.reset()
        # WHEN the report is e-mailed through the stack's own SES client
        outcome = deliver(resolve(ses_channel(), {}.__getitem__), build_message(report(), links_for(report())),
                          email=SesEmail(aws.client("ses")), sender=SENDER, clock=clock.time, sleep=clock.sleep)
    aws.reset()
    # THEN SES was asked once (neither botocore nor the delivery retried a send SES may have taken)
    assert len(taken) == 1
    assert outcome.kind == "maybe" and outcome.attempts == 1 and "ReadTimeout" in outcome.detail


def test_a_copy_of_the_report_is_not_changed(chat: FakeChat, http: requests.Session, clock: Clock) -> None:
    doc = report()
    kept = copy.deepcopy(doc)
    send(chat.hook("slack"), build_message(doc, links_for(doc)), http, clock)
    assert doc == kept
