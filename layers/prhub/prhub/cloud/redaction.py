"""Credentials out of every log record, whichever logger writes it and whichever handler prints it.

    redaction.install()        once per process (prhub.cloud.tracing.handler, notify's deliver, a secret read)
    redaction.known(value)     a secret value this process holds (a token, a key, a signing secret)
    redaction.known_url(url)   a credential URL (a webhook): its path and query values become known secrets
    redaction.known_channels(c) the literal URLs and secrets of a watch list's channels
    redaction.redact(text)     `text` as a log may show it

With the root logger at DEBUG (Lambda's log level set to DEBUG) third-party loggers write what Prhub never does:
urllib3 the request line of every call (Slack's path token, WeCom's `key=`, Teams' `sig=`, DingTalk's
`access_token=`), botocore every response body (GetSecretValue's too). A filter on one logger misses the others,
and a logger's filters do not see what its children propagate, so the redaction sits where every record is made
(logging's record factory) and on every handler known when it is installed (a record made by
logging.makeLogRecord, as a queue listener does, passes one of those). What is removed: tokens in URL paths of
the hook shapes the platforms use and in query strings, userinfo in URLs, Authorization-like headers, common
token formats, and every value registered with `known`/`known_url`; a record naming SecretString is blanked.
"""
from __future__ import annotations

import copy
import logging
import re
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from prhub.core.platforms import PLATFORMS

if TYPE_CHECKING:
    from prhub.core.channels import Channel

MASK = "<redacted>"
MIN_SECRET = 6  # shorter values would mask ordinary words
_SECRET_PARAMS = (r"access_token|token|key|api[_-]?key|apikey|sig|sign|signature|secret|client_secret|password|"
                  r"passwd|auth|code|x-amz-signature|x-amz-security-token")
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # query strings: ?key=…, &sig=…, access_token=… (also percent-encoded keys' values and JSON-quoted URLs)
    (re.compile(rf"(?i)([?&;](?:{_SECRET_PARAMS})=)[^&#\s\"'<>]+"), rf"\1{MASK}"),
    # each platform's hook URL: its credential where the platform puts it (Slack's path token, Feishu's hook id, ...)
    *((re.compile(p.credential), rf"\1{MASK}") for p in PLATFORMS.values() if p.credential),
    # Discord's hook path, a shape an operator's generic webhook may take
    (re.compile(r"(/api/webhooks/\d+/)[^/?#\s\"'<>]+"), rf"\1{MASK}"),
    # userinfo: https://user:password@host
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s@:\"'<>]+:[^/\s@\"'<>]+@"), rf"\1{MASK}@"),
    # headers, as dicts or lines: 'Authorization': 'Bearer x', X-Api-Key: x, api-key=x
    (re.compile(r"(?i)((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key|x-prhub-signature)"
                r"([\"']?\s*[:=]\s*[\"']?)(?:(bearer|token|basic|bot)\s+)?[^\s\"',}]+"),
     rf"\1\2\3 {MASK}"),
    # token formats: GitHub's, OpenAI-style keys, Slack's bot and user tokens
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|"
                r"xox[abprs]-[A-Za-z0-9-]{10,})"), MASK),
)
SECRET_BODY = re.compile(r"SecretString|SecretBinary")
BLANKED = "<redacted by prhub.cloud.redaction: the record holds a secret value>"

_known: set[str] = set()
_known_sorted: list[str] = []
_lock = threading.Lock()
_installed = False


def known(value: str | None) -> None:
    """A secret value this process holds: never shown in a log (as it is, nor percent-encoded)."""
    if not value or len(value) < MIN_SECRET:
        return
    global _known_sorted
    with _lock:
        fresh = {value, quote(value, safe=""), quote(value)} - _known
        if fresh:
            _known.update(fresh)
            _known_sorted = sorted(_known, key=len, reverse=True)  # longest first: a value inside another


def known_url(url: str | None) -> None:
    """A credential URL (a webhook's): the URL, its path and each query value are secrets to the log."""
    if not url:
        return
    known(url)
    parts = urlsplit(url)
    known(parts.path if parts.path.strip("/") else None)
    known(unquote(parts.path) if parts.path.strip("/") else None)
    for _, value in parse_qsl(parts.query, keep_blank_values=False):
        known(value)
    if parts.password:
        known(parts.password)


def known_channels(channels: Iterable[Channel]) -> None:
    """The literal URLs and signing secrets of a watch list's channels (the local runner's `--config`): botocore
    logs the watch list itself at DEBUG (SSM PutParameter, GetParameter) before any of them is sent to."""
    for channel in channels:
        known_url(channel.url)
        known(channel.secret)


def redact(text: str) -> str:
    """`text` with every credential this module recognises or knows replaced by MASK."""
    if SECRET_BODY.search(text):
        return BLANKED
    for value in _known_sorted:
        if value in text:
            text = text.replace(value, MASK)
    for pattern, repl in PATTERNS:
        text = pattern.sub(repl, text)
    return text


def _value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_value(v) for v in value] if isinstance(value, list) else tuple(_value(v) for v in value)
    return value


_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def _exception(exc: BaseException, depth: int = 0) -> BaseException:
    """A copy of `exc` whose message (and its causes') is redacted; its type and traceback kept."""
    text = redact(str(exc))
    try:
        clean = copy.copy(exc)
        clean.args = (text,)
        shown = str(clean)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied, or whose __str__ needs more than args
        clean, shown = exc, ""
    if shown != text:
        clean = RedactedError(f"{type(exc).__name__}: {text}")
    clean.__traceback__ = exc.__traceback__
    for attr in ("__cause__", "__context__"):
        inner = getattr(exc, attr)
        if inner is not None and depth < 5:
            setattr(clean, attr, _exception(inner, depth + 1))
    clean.__suppress_context__ = exc.__suppress_context__
    return clean


class RedactedError(Exception):
    """Stands for an exception whose message could not be redacted in place."""


def clean(record: logging.LogRecord) -> logging.LogRecord:
    """`record` redacted in place: its message (formatted now), its extra fields and its exception. Redacted text
    is left as it is, so a record may pass here more than once (the factory, then each handler's filter: a
    logger sets `extra` fields after the factory made the record)."""
    if isinstance(record.msg, str) or record.args:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format is logging's to report at emit; keep it as it is
            return record
        record.msg, record.args = redact(message), None
    else:  # a structured message (Powertools logs dicts as JSON objects): its values, its shape kept
        record.msg = _value(record.msg)
    for key, value in list(vars(record).items()):
        if key not in _STANDARD and not key.startswith("_"):
            setattr(record, key, _value(value))
    if record.exc_info and record.exc_info[1] is not None:
        kind, exc, tb = record.exc_info
        record.exc_info = (kind, _exception(exc), tb)
        record.exc_text = None
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class Redact(logging.Filter):
    """A handler's (or a logger's) filter that redacts every record it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        clean(record)
        return True


FILTER = Redact()


def install() -> None:
    """Redact every record of the process from now on: at the record factory (all loggers, all handlers) and
    on every handler already attached (root's, Powertools', Lambda's). Idempotent."""
    global _installed
    with _lock:
        if not _installed:
            make = logging.getLogRecordFactory()

            def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
                return clean(make(*args, **kwargs))

            logging.setLogRecordFactory(factory)
            _installed = True
    loggers = [logging.getLogger(), *(v for v in list(logging.Logger.manager.loggerDict.values())
                                      if isinstance(v, logging.Logger))]
    for logger in loggers:
        for handler in list(logger.handlers):
            if FILTER not in handler.filters:
                handler.addFilter(FILTER)
