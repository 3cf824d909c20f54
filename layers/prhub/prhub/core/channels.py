"""A channel's settings from the watch list (`notify`), and the target they resolve to at send time.

    "notify": [{"channel": "<a platform's name: prhub.core.platforms.PLATFORMS>",
                "url": "...", "url_secret": "<Secrets Manager name>",
                "secret": "...", "secret_name": "<Secrets Manager name>",
                "to": ["..."], "lang": "zh|en", "updates": false, "resend_on_timeout": false,
                "mode": "issue|discussion", "repo": "owner/name", "labels": ["..."], "category": "...",
                "close_previous": false, "skip_empty": false, "token_secret": "<Secrets Manager name>"}]

Chat webhook URLs carry their credential in the URL (Slack, Teams, WeCom's key, DingTalk's access_token),
so a URL is a secret too: the stack reads `url_secret` and `secret_name` from Secrets Manager; a literal
`url` or `secret` is accepted by the local runner only, with a warning.

A `github` channel posts the report as an issue or a discussion (prhub.notify.github_post) in `repo` (default:
the reported repository), with the GitHub token the stack already reads unless `token_secret` names another.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prhub.core.errors import InputError
from prhub.core.platforms import PLATFORMS, Platform, names, signed

logger = logging.getLogger(__name__)

# prhub.core.config.LANGUAGES (config imports this module, so it cannot import config); a unit test keeps them equal.
LANGUAGES = ("zh", "en")
KEYS = ("channel", "url", "url_secret", "secret", "secret_name", "to", "lang", "updates", "resend_on_timeout")
GITHUB_KEYS = ("mode", "repo", "labels", "category", "close_previous", "skip_empty", "token_secret")
MODES = ("issue", "discussion")
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
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
    # github only (prhub.notify.github_post): where and how the report is posted
    mode: str = "issue"
    repo: str | None = None  # None: the reported repository
    labels: tuple[str, ...] = ()
    category: str | None = None
    close_previous: bool = False
    skip_empty: bool = False
    token_secret: str | None = None  # None: the GitHub token the stack reads (GITHUB_TOKEN_SECRET)

    @property
    def label(self) -> str:
        """How logs and metrics name the channel: never the URL (it holds a credential)."""
        if self.channel == "github":
            return f"github:{self.mode}:{self.repo}" if self.repo else f"github:{self.mode}"
        return f"{self.channel}:{self.url_secret}" if self.url_secret else self.channel

    def to_dict(self) -> dict[str, Any]:
        # Only what is set: a channel's id (prhub.flow.deliver.channel_id) hashes this, and must not change when
        # a setting is added to the code.
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
        if self.channel == "github":
            data["mode"] = self.mode
            for key in ("repo", "category", "token_secret"):
                if getattr(self, key) is not None:
                    data[key] = getattr(self, key)
            if self.labels:
                data["labels"] = list(self.labels)
            for key in ("close_previous", "skip_empty"):
                if getattr(self, key):
                    data[key] = True
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
    kind = item.get("channel")
    platform = PLATFORMS.get(kind) if isinstance(kind, str) else None
    known = KEYS + GITHUB_KEYS if platform is not None and platform.address == "github" else KEYS
    unknown = sorted(set(item) - set(known))
    if unknown:
        github = [k for k in unknown if k in GITHUB_KEYS]
        if github:
            raise InputError(f"{where}: {', '.join(github)} are settings of a github channel, not of {kind!r:.20}")
        raise InputError(f"unknown {where} settings: {', '.join(unknown)} (known: {', '.join(known)})")
    if platform is None:
        raise InputError(f"{where}.channel must be one of {', '.join(names())}, got {kind!r:.60}")
    return _parsed(item, platform, where)


def _parsed(item: dict[str, Any], platform: Platform, where: str) -> Channel:
    """A channel of `platform`, its settings checked."""
    kind = platform.name
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
    # No chat platform's incoming webhook nor SES drops a copy (docs/channels.md): a timed-out send to them is
    # resent only when the channel opts in. An idempotent platform's is always resent, so the option means nothing.
    if item.get("resend_on_timeout") and platform.idempotent:
        raise InputError(f"{where}: a {kind} channel is always resent after a timeout (its receiver drops a copy "
                         "it already took); drop resend_on_timeout")
    if item.get("secret") and item.get("secret_name"):
        raise InputError(f"{where}: give secret or secret_name, not both")
    to = _recipients(item.get("to"), kind, where)
    if platform.address == "github":
        return _github(item, where, lang)
    _addressed(item, kind, where)
    return Channel(channel=kind, url=item.get("url"), url_secret=item.get("url_secret"), secret=item.get("secret"),
                   secret_name=item.get("secret_name"), to=to, lang=lang, updates=item.get("updates", False),
                   resend_on_timeout=item.get("resend_on_timeout", False))


def _addressed(item: dict[str, Any], kind: str, where: str) -> None:
    """An e-mail channel's settings, or a chat platform's URL and signing secret: InputError for what is wrong."""
    if PLATFORMS[kind].address == "email":
        for key in ("url", "url_secret", "secret", "secret_name"):
            if item.get(key):
                raise InputError(f"{where}: an email channel takes `to`, not {key}")
        return
    if bool(item.get("url")) == bool(item.get("url_secret")):
        raise InputError(f"{where}: a {kind} channel needs exactly one of url_secret (the stack) or url (local)")
    if not PLATFORMS[kind].signed and (item.get("secret") or item.get("secret_name")):
        raise InputError(f"{where}: {kind} does not sign requests; drop secret/secret_name "
                         f"(signing: {', '.join(signed())})")
    if item.get("url") and not str(item["url"]).lower().startswith(("https://", "http://")):
        raise InputError(f"{where}.url must be an http(s) URL")


def _github(item: dict[str, Any], where: str, lang: str | None) -> Channel:
    """A github channel: an issue or a discussion in `repo`, read with the stack's token or `token_secret`."""
    for key in ("url", "url_secret", "secret", "secret_name"):
        if item.get(key):
            raise InputError(f"{where}: a github channel posts with a GitHub token (token_secret, or the stack's), "
                             f"not {key}")
    if item.get("updates"):
        raise InputError(f"{where}: a github channel edits its post on every new revision; drop updates")
    mode = item.get("mode", "issue")
    if mode not in MODES:
        raise InputError(f"{where}.mode must be one of {', '.join(MODES)}, got {mode!r:.30}")
    for key in ("repo", "category", "token_secret"):
        if item.get(key) is not None and (not isinstance(item[key], str) or not item[key].strip()):
            raise InputError(f"{where}.{key} must be a non-empty string")
    repo = item.get("repo")
    if repo is not None and not _REPO.fullmatch(repo):
        raise InputError(f"{where}.repo must look like owner/name, got {repo!r:.80}")
    labels = item.get("labels") or []
    if not isinstance(labels, list) or not all(isinstance(x, str) and x.strip() for x in labels):
        raise InputError(f"{where}.labels must be a list of label names")
    if labels and mode != "issue":
        raise InputError(f"{where}: labels are for issues; a discussion takes a category")
    if mode == "discussion" and not item.get("category"):
        raise InputError(f"{where}: a discussion channel needs `category` (a discussion category's name)")
    if mode == "issue" and item.get("category"):
        raise InputError(f"{where}: category is for discussions; an issue takes labels")
    for key in ("close_previous", "skip_empty"):
        if not isinstance(item.get(key, False), bool):
            raise InputError(f"{where}.{key} must be true or false")
    return Channel(channel="github", lang=lang, mode=mode, repo=repo, labels=tuple(x.strip() for x in labels),
                   category=item.get("category"), close_previous=item.get("close_previous", False),
                   skip_empty=item.get("skip_empty", False), token_secret=item.get("token_secret"))


def _recipients(value: Any, kind: str, where: str) -> tuple[str, ...]:
    if PLATFORMS[kind].address != "email":
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
    if PLATFORMS[channel.channel].address == "github":
        raise ValueError("a github channel is resolved by prhub.flow.deliver (a token, not a URL)")
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
    if PLATFORMS[channel.channel].address == "url" and not url.lower().startswith(("https://", "http://")):
        raise InputError(f"{channel.label}: the webhook URL is not an http(s) URL")
    return Target(channel=channel.channel, label=channel.label, url=url, secret=secret or None, to=channel.to)


def is_literal(channel: Channel) -> bool:
    """The channel's URL or signing secret is written in the watch list (the local runner's), not named."""
    return bool(channel.url or channel.secret)


def channel_ref(channel: Channel) -> str:
    """How a run item names a literal channel: a digest of its settings, never the URL or the secret (the same
    id the delivery ledger gives the channel: prhub.flow.deliver.channel_id; kept on the run by prhub.cloud.runs)."""
    text = json.dumps(channel.to_dict(), sort_keys=True, ensure_ascii=False)
    return f"{channel.channel}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
