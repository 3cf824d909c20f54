"""E-mail through Amazon SES: HTML and plain text, the PDF linked (never attached).

    client = SesEmail(boto3_ses_client)          # the adapter: send_email(sender, to, subject, html, text)
    verdict = send(client, sender, target, message)

SES answers (SendEmail, "Amazon SES email sending errors"): `Throttling` with "Maximum sending rate
exceeded" (retry after a short wait) or "Daily message quota exceeded" (wait, AWS suggests up to ten
minutes before retrying); `MessageRejected` (unverified sender, or a recipient while the account is in
the sandbox), `MailFromDomainNotVerifiedException`, `ConfigurationSetDoesNotExistException`,
`AccountSendingPausedException`: permanent; `ServiceUnavailable`, `InternalFailure`, `RequestTimeout`
and a connection that never opened: transient. SendEmail takes no idempotency token (neither does SES v2's), so a
request whose answer never came (a read timeout, a connection closed after sending) is `maybe` delivered: not
retried here, nor by botocore (prhub.cloud.aws.CLIENT_CONFIG).
"""
from __future__ import annotations

from typing import Any, Protocol

from prhub.core.channels import Target
from prhub.notify import markup
from prhub.notify.message import Message
from prhub.notify.wire import Verdict

RATE_WAIT = 1.0  # seconds: SES's rate is per second
QUOTA_WAIT = 600.0  # "wait for an interval of up to 10 minutes"
TRANSIENT = {"ServiceUnavailable", "InternalFailure", "RequestTimeout", "ServiceUnavailableException",
             "InternalError", "RequestTimeoutException"}
THROTTLING = {"Throttling", "ThrottlingException", "TooManyRequestsException"}
MAYBE = "NoAnswer"  # our code for a request sent whose answer never came


class EmailFailure(Exception):
    """SES refused the message: its error `code` and `message` (no address or body in either)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class EmailClient(Protocol):
    def send_email(self, *, sender: str, to: tuple[str, ...], subject: str, html: str, text: str) -> str:
        """Send one message; returns its id; raises EmailFailure when SES refuses it."""
        ...


class SesEmail:
    """EmailClient over a boto3 SES client (`prhub.cloud.aws.client("ses")` in the stack)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def send_email(self, *, sender: str, to: tuple[str, ...], subject: str, html: str, text: str) -> str:
        from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError, ReadTimeoutError

        try:
            answer = self.client.send_email(
                Source=sender, Destination={"ToAddresses": list(to)},
                Message={"Subject": {"Data": subject, "Charset": "UTF-8"},
                         "Body": {"Html": {"Data": html, "Charset": "UTF-8"},
                                  "Text": {"Data": text, "Charset": "UTF-8"}}})
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise EmailFailure(str(error.get("Code", "ClientError")), str(error.get("Message", ""))[:300]) from exc
        except (ReadTimeoutError, ConnectionClosedError) as exc:  # sent, and no answer: SES may have taken it
            raise EmailFailure(MAYBE, type(exc).__name__) from exc
        except BotoCoreError as exc:  # endpoint unreachable: nothing was sent
            raise EmailFailure("ServiceUnavailable", type(exc).__name__) from exc
        return str(answer.get("MessageId", ""))


def send(client: EmailClient, sender: str, target: Target, message: Message) -> Verdict:
    subject, html, text = render(message)
    try:
        message_id = client.send_email(sender=sender, to=target.to, subject=subject, html=html, text=text)
    except EmailFailure as exc:
        return classify(exc)
    return Verdict("delivered", f"SES message {message_id}")


def classify(exc: EmailFailure) -> Verdict:
    if exc.code in THROTTLING:
        wait = QUOTA_WAIT if "daily" in exc.message.lower() else RATE_WAIT
        return Verdict("throttled", str(exc), wait)
    if exc.code == MAYBE:
        return Verdict("maybe", f"{exc}: maybe delivered")
    if exc.code in TRANSIENT:
        return Verdict("transient", str(exc))
    return Verdict("permanent", str(exc))


def render(message: Message) -> tuple[str, str, str]:
    """(subject, HTML, plain text) of the e-mail; every piece of report text is escaped in the HTML."""
    w = message.words
    c = message.counts
    e = markup.html_text
    counts = (f"{c.prs} {w['prs']} · {c.key_prs} {w['key_prs']} · {c.breaking} {w['breaking']} · "
              f"{c.risks} {w['risks']}")
    links = [(label, url) for label, url in ((w["page"], message.page), (w["pdf"], message.pdf)) if url]

    items = []
    lines = [message.title, "", message.summary, "", counts, ""]
    if message.highlights:
        lines.append(w["highlights"] + w["colon"].rstrip())
    for h in message.highlights:
        refs = " ".join(f'<a href="{e(url)}">{e(label)}</a>' for r in h.prs for label, url in r.links())
        items.append(f"<li>{e(h.text)}{' ' + refs if refs else ''}</li>")
        lines.append(f"- {h.text}" + "".join(f" {label} {url}" for r in h.prs for label, url in r.links()))
    lang = "zh-CN" if message.lang == "zh" else "en"
    html = "\n".join([
        "<!doctype html>", f'<html lang="{lang}"><head><meta charset="utf-8"><title>{e(message.title)}</title></head>',
        '<body style="font-family:sans-serif;line-height:1.5;max-width:640px">',
        f"<h2>{e(message.title)}</h2>",
        f"<p>{e(message.summary)}</p>" if message.summary else "",
        f"<p><strong>{e(counts)}</strong></p>",
        f"<h3>{e(w['highlights'])}</h3><ul>{''.join(items)}</ul>" if items else "",
        "<p>" + " · ".join(f'<a href="{e(url)}">{e(label)}</a>' for label, url in links) + "</p>",
        "</body></html>",
    ])
    lines += [""] + [f"{label}{w['colon']}{url}" for label, url in links]
    return message.title, html, "\n".join(lines).strip() + "\n"
