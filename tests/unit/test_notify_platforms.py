"""Each platform's request and its reading of answers; escaping; waits (no network: requests are built only)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from prhub.core.channels import Target
from prhub.notify import dingtalk, email, feishu, markup, slack, teams, webhook, wecom
from prhub.notify.delivery import backoff
from prhub.notify.email import EmailFailure
from prhub.notify.message import Links, Message, build_message
from prhub.notify.wire import retry_after

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
NOW = 1_780_000_000.5


def message(name: str = "zh-week", **changes: Any) -> Message:
    doc = json.loads((GOLDEN / name / "report.json").read_text(encoding="utf-8"))
    doc.update(changes)
    return build_message(doc, Links.for_report("https://r.example", doc["repo"], "2026-05-04", "2026-05-10",
                                               [p["number"] for p in doc["prs"]]))


def test_feishu_signs_in_the_body_with_seconds() -> None:
    request = feishu.build(message(), Target("feishu", "f", "https://open.feishu.cn/hook/x", "demo"), NOW, "id")
    body = json.loads(request.body)
    assert body["timestamp"] == str(int(NOW))
    key = f"{int(NOW)}\ndemo".encode()
    assert body["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
    assert body["msg_type"] == "interactive" and body["card"]["header"]["title"]["content"]
    unsigned = json.loads(feishu.build(message(), Target("feishu", "f", "https://x/h"), NOW, "id").body)
    assert "sign" not in unsigned and "timestamp" not in unsigned


def test_dingtalk_signs_in_the_query_with_milliseconds() -> None:
    url = "https://oapi.dingtalk.com/robot/send?access_token=abc"
    request = dingtalk.build(message(), Target("dingtalk", "d", url, "SECret"), NOW, "id")
    query = parse_qs(urlsplit(request.url).query)
    ts = int(NOW * 1000)
    assert query["access_token"] == ["abc"] and query["timestamp"] == [str(ts)]
    digest = hmac.new(b"SECret", f"{ts}\nSECret".encode(), hashlib.sha256).digest()
    assert query["sign"] == [base64.b64encode(digest).decode()]
    raw_sign = request.url.split("sign=", 1)[1]
    assert not set(raw_sign) & set("+/=")  # URL-encoded
    assert json.loads(request.body)["msgtype"] == "markdown"


def test_the_generic_webhook_signs_the_exact_body() -> None:
    request = webhook.build(message(), Target("webhook", "w", "https://h.example/x", "k"), NOW, "d-1")
    expected = "sha256=" + hmac.new(b"k", request.body, hashlib.sha256).hexdigest()
    assert request.headers["X-Prhub-Signature-256"] == expected
    assert request.headers["X-Prhub-Delivery"] == "d-1"
    assert "X-Prhub-Signature-256" not in webhook.build(message(), Target("webhook", "w", "https://h"), NOW,
                                                        "d").headers


def test_the_generic_webhook_gives_each_pr_its_page_or_leaves_the_key_out() -> None:
    # WITH a site URL: every highlighted PR has its page on the site
    body = json.loads(webhook.build(message(), Target("webhook", "w", "https://h"), NOW, "d").body)
    refs = [r for h in body["highlights"] for r in h["prs"]]
    assert refs and all(r["page"] == f"https://r.example/{body['repo']}/pull/{r['number']}/" for r in refs)
    # WITHOUT one (a local run's stack has none): no "page": null for every PR, the key is left out
    doc = json.loads((GOLDEN / "zh-week" / "report.json").read_text(encoding="utf-8"))
    bare = build_message(doc, Links.for_report("", doc["repo"], "2026-05-04", "2026-05-10",
                                               [p["number"] for p in doc["prs"]]))
    body = json.loads(webhook.build(bare, Target("webhook", "w", "https://h"), NOW, "d").body)
    refs = [r for h in body["highlights"] for r in h["prs"]]
    assert refs and all("page" not in r and r["url"].startswith("https://github.com/") for r in refs)
    assert "null" not in webhook.build(bare, Target("webhook", "w", "https://h"), NOW, "d").body.decode()


def test_teams_sends_one_adaptive_card() -> None:
    body = json.loads(teams.build(message("en-small"), Target("teams", "t", "https://t.example"), NOW, "d").body)
    assert body["type"] == "message" and len(body["attachments"]) == 1
    card = body["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["content"]["type"] == "AdaptiveCard" and card["content"]["version"] == "1.4"
    assert [a["type"] for a in card["content"]["actions"]] == ["Action.OpenUrl", "Action.OpenUrl"]
    facts = {f["title"]: f["value"] for f in card["content"]["body"][2]["facts"]}
    assert facts == {"PRs merged": "2", "key PRs": "1", "breaking changes": "0", "risks": "0"}


def test_slack_header_and_sections_stay_within_block_kit_limits() -> None:
    long = message(title="T" * 400, summary="& < > " * 2000)
    payload = json.loads(slack.build(long, Target("slack", "s", "https://hooks.slack.com/x"), NOW, "d").body)
    header = payload["blocks"][0]
    assert header["type"] == "header" and len(header["text"]["text"]) <= 150
    assert all(len(b["text"]["text"]) <= 3000 for b in payload["blocks"] if "text" in b)
    assert "&amp; &lt; &gt;" in payload["blocks"][1]["text"]["text"]
    assert not payload["text"].endswith("&am")  # the fallback is cut before it is escaped


def test_wecom_content_stays_within_4096_bytes() -> None:
    big = message(highlights=[{"text": "很长" * 150, "prs": [4101, 4107, 4110, 4112, 4118]}] * 5)
    content = json.loads(wecom.build(big, Target("wecom", "w", "https://q.example"), NOW, "d").body)["markdown"]
    assert len(content["content"].encode()) <= 4096 and "很长" in content["content"]


@pytest.mark.parametrize("text, expected", [
    ("[a](http://x) <b>", "［a］(http://x) ＜b＞"),
    ('<font color="warning">w</font>', '＜font color="warning"＞w＜/font＞'),
])
def test_markdown_text_cannot_open_a_link_or_tag(text: str, expected: str) -> None:
    assert markup.markdown(text) == expected


def test_slack_text_escapes_control_characters() -> None:
    assert markup.slack("<!here> a & b <http://x|y>") == "&lt;!here&gt; a &amp; b &lt;http://x|y&gt;"


def test_markdown_links_cannot_be_ended_early() -> None:
    assert markup.link("[x]", "https://a.example/p(1)") == "[［x］](https://a.example/p%281%29)"


def test_email_html_escapes_report_text() -> None:
    hostile = message(summary="<img src=x onerror=alert(1)> & more")
    subject, html, text = email.render(hostile)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt; &amp; more" in html
    assert "<img src=x onerror=alert(1)> & more" in text  # plain text stays plain
    assert subject == hostile.title and "report.pdf" in html


@pytest.mark.parametrize("module, status, body, kind", [
    (slack, 200, "ok", "delivered"),
    (slack, 200, "something else", "permanent"),
    (slack, 400, "invalid_payload", "permanent"),
    (slack, 404, "channel_not_found", "permanent"),
    (slack, 410, "channel_is_archived", "permanent"),
    (slack, 429, "rate_limited", "throttled"),
    (slack, 500, "rollup_error", "transient"),
    (feishu, 200, '{"code":0,"msg":"success"}', "delivered"),
    (feishu, 200, '{"StatusCode":0,"StatusMessage":"success"}', "delivered"),
    (feishu, 200, '{"code":19021,"msg":"sign match fail or timestamp is not within one hour"}', "permanent"),
    (feishu, 200, '{"code":19024,"msg":"Key Words Not Found"}', "permanent"),
    (feishu, 200, '{"code":11232,"msg":"frequency limited"}', "throttled"),
    (feishu, 200, '{"code":9499,"msg":"Bad Request"}', "permanent"),
    (feishu, 200, '{"code":9499,"msg":"too many request"}', "throttled"),
    (feishu, 200, "<html>", "permanent"),
    (dingtalk, 200, '{"errcode":0,"errmsg":"ok"}', "delivered"),
    (dingtalk, 200, '{"errcode":310000,"errmsg":"sign not match"}', "permanent"),
    (dingtalk, 200, '{"errcode":410100,"errmsg":"send too fast"}', "throttled"),
    (dingtalk, 200, '{"errcode":130101,"errmsg":"send too fast, exceed 20 times per minute"}', "throttled"),
    (dingtalk, 200, '{"errcode":-1,"errmsg":"系统繁忙"}', "transient"),
    (dingtalk, 200, "{}", "permanent"),
    (wecom, 200, '{"errcode":0,"errmsg":"ok"}', "delivered"),
    (wecom, 200, '{"errcode":45009,"errmsg":"api freq out of limit"}', "throttled"),
    (wecom, 200, '{"errcode":93000,"errmsg":"invalid webhook url"}', "permanent"),
    (wecom, 502, "bad gateway", "transient"),
    (teams, 202, "", "delivered"),
    (teams, 413, "Request Entity Too Large", "permanent"),
    (teams, 429, "", "throttled"),
    (webhook, 204, "", "delivered"),
    (webhook, 408, "", "throttled"),
    (webhook, 401, "bad signature", "permanent"),
])
def test_answers_are_classified_as_documented(module: Any, status: int, body: str, kind: str) -> None:
    assert module.classify(status, {}, body).kind == kind


def test_throttling_codes_carry_the_platforms_window() -> None:
    assert wecom.classify(200, {}, '{"errcode":45009}').retry_after == 60.0
    assert dingtalk.classify(200, {}, '{"errcode":410100}').retry_after == 600.0
    assert slack.classify(429, {"Retry-After": "12"}, "rate_limited").retry_after == 12.0


def test_ses_errors_are_classified() -> None:
    assert email.classify(EmailFailure("Throttling", "Maximum sending rate exceeded.")).retry_after == 1.0
    assert email.classify(EmailFailure("Throttling", "Daily message quota exceeded.")).retry_after == 600.0
    assert email.classify(EmailFailure("MessageRejected", "Email address is not verified.")).kind == "permanent"
    assert email.classify(EmailFailure("ServiceUnavailable", "")).kind == "transient"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after("7") == 7.0 and retry_after(" 1.5 ") == 1.5
    assert retry_after(None) is None and retry_after("soon") is None
    when = datetime.fromtimestamp(NOW + 30, tz=UTC)
    assert retry_after(format_datetime(when, usegmt=True), now=NOW) == pytest.approx(30, abs=1)
    assert retry_after("-5") == 0.0


def test_backoff_doubles_up_to_a_cap() -> None:
    assert [backoff(n) for n in range(1, 8)] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


def test_a_message_that_cannot_fit_is_permanent_and_never_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub.notify.delivery import deliver

    class NoNetwork:
        def request(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("an over-limit payload must not be sent")

    monkeypatch.setattr(wecom, "MAX_CONTENT", 10)
    outcome = deliver(Target("wecom", "wecom", "https://q.example"), message(), http=NoNetwork(), clock=lambda: NOW,
                      sleep=lambda s: None)
    assert outcome.kind == "permanent" and outcome.attempts == 0 and "does not fit" in outcome.detail
