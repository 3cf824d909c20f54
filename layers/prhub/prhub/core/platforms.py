"""The platforms a report can be sent to: the one list of their names, and what the rest of Prhub must know of each.

    PLATFORMS["feishu"] -> Platform(name="feishu", address="url", signed=True, ...)

Every place that names platforms reads this table: the watch list's validation (prhub.core.channels: which names
exist, how a channel is addressed, which may carry a signing secret, which need no resend_on_timeout), the senders
(prhub.notify.delivery.SENDERS, one per name here; a test keeps the two equal, so a name added to one is refused
by the tests, not met at send time as a KeyError), the logs' redaction (prhub.cloud.redaction masks the credential
in each platform's hook URL) and the tests, which send to each platform here through the fake chat servers.
docs/channels.md describes each platform's format, limits and signing.
"""
from __future__ import annotations

from typing import Literal, NamedTuple

Address = Literal["url", "email", "github"]  # a webhook URL (its credential inside), e-mail recipients, a GitHub repo


class Platform(NamedTuple):  # a NamedTuple, not a dataclass: every handler imports it, and it costs a tenth
    """One platform: how a channel of it is addressed, and what its receiver does with a request."""

    name: str
    address: Address
    signed: bool = False  # each request is signed with a shared secret (the channel's secret / secret_name)
    # The receiver drops a copy of what it already took (an idempotency key it reads, or a post found by its
    # marker): a send whose answer never came is resent as is, so the channel needs no resend_on_timeout.
    idempotent: bool = False
    # Where the hook URL holds its credential, as a pattern whose first group is kept and the rest masked in logs
    # (prhub.cloud.redaction); None where the URL is the operator's own (the generic webhook) or there is none.
    credential: str | None = None


_QUERY_VALUE = r"[^&#\s\"'<>]+"
_PATH_PART = r"[^/?#\s\"'<>]+"

PLATFORMS: dict[str, Platform] = {p.name: p for p in (
    Platform("slack", "url", credential=r"(/services/)[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"),
    Platform("feishu", "url", signed=True, credential=rf"(/bot/v2/hook/){_PATH_PART}"),  # Lark's too
    Platform("dingtalk", "url", signed=True, credential=rf"([?&]access_token=){_QUERY_VALUE}"),
    Platform("wecom", "url", credential=rf"([?&]key=){_QUERY_VALUE}"),
    Platform("teams", "url", credential=r"(/webhookb2/)[^?#\s\"'<>]+"),  # a Workflows URL's sig= is a query value
    Platform("webhook", "url", signed=True, idempotent=True),  # X-Prhub-Delivery: the receiver drops copies
    Platform("email", "email"),
    Platform("github", "github", idempotent=True),  # a resend finds the post by its marker and edits it
)}


def names(address: Address | None = None) -> tuple[str, ...]:
    """The platforms' names in the table's order (those addressed by `address` when given)."""
    return tuple(name for name, p in PLATFORMS.items() if address is None or p.address == address)


def signed() -> tuple[str, ...]:
    """The platforms that sign their requests with a shared secret."""
    return tuple(name for name, p in PLATFORMS.items() if p.signed)
