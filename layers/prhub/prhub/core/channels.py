"""A channel's settings from the watch list (`notify`), and the target they resolve to at send time.

    "notify": [{"channel": "slack|feishu|dingtalk|wecom|teams|webhook|email",
                "url": "...", "url_secret": "<Secrets Manager name>",
                "secret": "...", "secret_name": "<Secrets Manager name>",
                "to": ["..."], "lang": "zh|en", "updates": false, "resend_on_timeout": false}]

Chat webhook URLs carry their credential in the URL (Slack, Teams, WeCom's key, DingTalk's access_token),
so a URL is a secret too: the stack reads `url_secret` and `secret_name` from Secrets Manager; a literal
`url` or `secret` is accepted by the local runner only, with a warning.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prhub.core.errors import InputError

logger = logging.getLogger(__name__)

CHANNELS = ("slack", "feishu", "dingtalk", "wecom", "teams", "webhook", "email")
SIGNED = ("feishu", "dingtalk", "webhook")  # the platforms that sign requests with a shared secret
# prhub.core.config.LANGUAGES (config imports this module, so it cannot import config); a unit test keeps them equal.
LANGUAGES = ("zh", "en")
KEYS = ("channel", "url", "url_secret", "secret", "secret_name", "to", "lang", "updates", "resend_on_timeout")
# The channels whose receiver drops a copy of a delivery it already took (the generic webhook's X-Prhub-Delivery):
# a send that timed out is resent to them as is. No chat platform's incoming webhook nor SES takes such a key
# (docs/channels.md), so a timed-out send to them is resent only when the channel opts in (resend_on_timeout).
DEDUPLICATING = ("webhook",)
MAX_RECIPIENTS = 50  # SES: at most 50 recipients per message
_ADDRESS = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")


@dataclass(frozen=True)
class Channel:
    """One subscription, as configured (names of secrets, or literal values for the local runner)."""

    channel: str
    url: str | None = None
    url_secret: str | None = None
    secret: str | None = None
    secret_name: str | None = None
    to: tuple[str, ...] = ()
    lang: str | None = None  # None: the repository's language
    updates: bool = False  # a re-run whose message differs is sent again (as an update); else once per report
    # A send whose answer never came (maybe posted) is resent once; else never, as the platform cannot drop a copy.
    resend_on_timeout: bool = False

    @property
    def label(self) -> str:
        """How logs and metrics name the channel: never the URL (it holds a credential)."""
        return f"{self.channel}:{self.url_secret}" if self.url_secret else self.channel

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"channel": self.channel}
        for key in ("url", "url_secret", "secret", "secret_name", "lang"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.to:
            data["to"] = list(self.to)
        if self.updates:
            data["updates"] = True
        if self.resend_on_timeout:  # only when set: the ids of channels configured before it stay as they were
            data["resend_on_timeout"] = True
        return data


@dataclass(frozen=True)
class Target:
    """A channel ready to send to: its URL and signing secret read (never logged)."""

    channel: str
    label: str
    url: str = ""
    secret: str | None = None
    to: tuple[str, ...] = ()


def parse_channels(value: Any, where: str = "notify") -> tuple[Channel, ...]:
    """The `notify` list of a repository (or of the digest), validated; InputError says what is wrong."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise InputError(f"{where} must be a list of channels, got {type(value).__name__}")
    return tuple(parse_channel(item, f"{where}[{i}]") for i, item in enumerate(value))


def parse_channel(item: Any, where: str = "notify[0]") -> Channel:
    if isinstance(item, Channel):
        return item
    if not isinstance(item, dict):
        raise InputError(f"{where} must be an object like {{\"channel\": \"slack\", \"url_secret\": \"...\"}}")
    unknown = sorted(set(item) - set(KEYS))
    if unknown:
        raise InputError(f"unknown {where} settings: {', '.join(unknown)} (known: {', '.join(KEYS)})")
    kind = item.get("channel")
    if kind not in CHANNELS:
        raise InputError(f"{where}.channel must be one of {', '.join(CHANNELS)}, got {kind!r:.60}")
    for key in ("url", "url_secret", "secret", "secret_name", "lang"):
        if item.get(key) is not None and (not isinstance(item[key], str) or not item[key].strip()):
            raise InputError(f"{where}.{key} must be a non-empty string")
    lang = item.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise InputError(f"{where}.lang must be one of {', '.join(LANGUAGES)}, got {lang!r:.20}")
    if not isinstance(item.get("updates", False), bool):
        raise InputError(f"{where}.updates must be true or false")
    if not isinstance(item.get("resend_on_timeout", False), bool):
        raise InputError(f"{where}.resend_on_timeout must be true or false")
    if item.get("resend_on_timeout") and kind in DEDUPLICATING:
        raise InputError(f"{where}: a {kind} channel is always resent after a timeout, under one X-Prhub-Delivery "
                         "id its receiver drops copies of; drop resend_on_timeout")
    if item.get("secret") and item.get("secret_name"):
        raise InputError(f"{where}: give secret or secret_name, not both")
    to = _recipients(item.get("to"), kind, where)
    if kind == "email":
        for key in ("url", "url_secret", "secret", "secret_name"):
            if item.get(key):
                raise InputError(f"{where}: an email channel takes `to`, not {key}")
    else:
        if bool(item.get("url")) == bool(item.get("url_secret")):
            raise InputError(f"{where}: a {kind} channel needs exactly one of url_secret (the stack) or url (local)")
        if kind not in SIGNED and (item.get("secret") or item.get("secret_name")):
            raise InputError(f"{where}: {kind} does not sign requests; drop secret/secret_name "
                             f"(signing: {', '.join(SIGNED)})")
        if item.get("url") and not str(item["url"]).lower().startswith(("https://", "http://")):
            raise InputError(f"{where}.url must be an http(s) URL")
    return Channel(channel=kind, url=item.get("url"), url_secret=item.get("url_secret"), secret=item.get("secret"),
                   secret_name=item.get("secret_name"), to=to, lang=lang, updates=item.get("updates", False),
                   resend_on_timeout=item.get("resend_on_timeout", False))


def _recipients(value: Any, kind: str, where: str) -> tuple[str, ...]:
    if kind != "email":
        if value:
            raise InputError(f"{where}: `to` is for email channels only")
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: an email channel needs `to`, a list of addresses")
    if len(value) > MAX_RECIPIENTS:
        raise InputError(f"{where}.to has {len(value)} addresses; SES takes at most {MAX_RECIPIENTS}")
    bad = [a for a in value if not isinstance(a, str) or not _ADDRESS.fullmatch(a.strip())]
    if bad:
        raise InputError(f"{where}.to has addresses that are not e-mail addresses: {bad[0]!r:.80}")
    return tuple(a.strip() for a in value)


def resolve(channel: Channel, read_secret: Callable[[str], str], *, allow_literal: bool = False) -> Target:
    """The channel's URL and signing secret: read by name (Secrets Manager), or literal where allowed.

    `read_secret` is prhub.cloud.secrets.read_secret in the stack. A literal `url`/`secret` is refused unless
    `allow_literal` (the local runner), which logs a warning naming the channel, never the value.
    """
    url = channel.url or ""
    secret = channel.secret
    if channel.url or channel.secret:
        if not allow_literal:
            raise InputError(f"{channel.label}: a literal url/secret is for the local runner only; "
                             "store it in Secrets Manager and give url_secret/secret_name")
        logger.warning("notify channel %s uses a literal url/secret from the watch list; "
                       "the stack reads them from Secrets Manager (url_secret/secret_name)", channel.label)
    if channel.url_secret:
        url = read_secret(channel.url_secret).strip()
    if channel.secret_name:
        secret = read_secret(channel.secret_name).strip()
    if channel.channel != "email" and not url.lower().startswith(("https://", "http://")):
        raise InputError(f"{channel.label}: the webhook URL is not an http(s) URL")
    return Target(channel=channel.channel, label=channel.label, url=url, secret=secret or None, to=channel.to)
