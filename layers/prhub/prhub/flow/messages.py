"""The report's queues' messages: each built where it is sent (`body()`) and parsed once, by its handler.

    ReportMessage     ReportQueue (and the sweep schedule's direct event): a run's report, revision N, or the sweep
    PagesMessage      PagesQueue: the PR pages of one published period in one language
    DeliveryMessage   DeliveryQueue: a report (or digest) for one channel

`parse(body)` takes the body as SQS hands it over and raises InputError for one that can never succeed: its
handler acknowledges it (prhub.flow.records.dropped) instead of retrying it into the DLQ, and the services behind
the handler take the typed message, never a dict. ScoreQueue's message is prhub.flow.score.ScoreMessage, kept
with the score worker. Light on purpose: the score and plan handlers import it to ask for a report.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prhub.core.channels import Channel, parse_channel
from prhub.core.errors import InputError


def json_object(body: str | None) -> dict[str, Any]:
    """The body as a JSON object; InputError for any other body (AWS's sample "Hello from SQS!" among them)."""
    try:
        data = json.loads(body or "")
    except ValueError:
        raise InputError(f"the message body is not JSON: {str(body)[:80]!r}") from None
    if not isinstance(data, dict):
        raise InputError(f"the message body is not a JSON object but {type(data).__name__}")
    return data


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"the message's {key} must be a non-empty string, got {str(value)[:50]!r}")
    return value


@dataclass(frozen=True)
class ReportMessage:
    """A run's report (revision 1 is the first publication; a later one is the same report made again), or the
    sweep that finishes stuck runs (`sweep`, with runs idle `older_than_minutes`)."""

    run_id: str = ""
    revision: int = 1
    sweep: bool = False
    older_than_minutes: float = 30.0

    @classmethod
    def parse(cls, body: str | None) -> ReportMessage:
        """A ReportQueue body: {"run_id": "..."[, "revision": N]} or {"sweep": true[, "older_than_minutes": N]}."""
        data = json_object(body)
        if "run_id" not in data and "sweep" not in data:
            raise InputError("the message has none of run_id, sweep")
        return cls.of(data)

    @classmethod
    def of(cls, data: dict[str, Any]) -> ReportMessage:
        """The message in a decoded body, or in the event the sweep's schedule invokes ReportFunction with."""
        if data.get("sweep"):
            minutes = data.get("older_than_minutes", 30)
            try:
                number = math.nan if isinstance(minutes, bool) else float(minutes)
            except (TypeError, ValueError):
                number = math.nan
            # nan compares false with everything: "older than nan minutes" would sweep a run planned a second ago.
            if not math.isfinite(number) or number < 0:
                raise InputError(f"older_than_minutes must be a number of minutes >= 0, got {str(minutes)[:50]!r}")
            return cls(sweep=True, older_than_minutes=number)
        run_id, revision = data.get("run_id"), data.get("revision", 1)
        if not isinstance(run_id, str) or not run_id:
            raise InputError("report message needs a run_id")
        if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
            raise InputError(f"revision must be a whole number >= 1, got {str(revision)[:50]!r}")
        return cls(run_id, revision)

    def body(self) -> dict[str, Any]:
        if self.sweep:
            return {"sweep": True, "older_than_minutes": self.older_than_minutes}
        return {"run_id": self.run_id, **({"revision": self.revision} if self.revision > 1 else {})}


@dataclass(frozen=True)
class PagesMessage:
    """The pages of PRs `numbers` of the period `slug`'s report in `lang` (`home`: the repository's configured
    language, at the root of its folders; `slice`: a slice's own folder)."""

    repo: str
    slug: str
    lang: str
    home: str
    numbers: tuple[int, ...]
    slice: str = ""

    @classmethod
    def parse(cls, body: str | None) -> PagesMessage:
        """A PagesQueue body: {"repo", ["slice",] "slug", "lang", "home", "numbers": [N, ...]}."""
        return cls.of(json_object(body))

    @classmethod
    def of(cls, data: dict[str, Any]) -> PagesMessage:
        missing = [key for key in ("repo", "slug", "lang", "home", "numbers") if key not in data]
        if missing:
            raise InputError(f"the message lacks {', '.join(missing)}")
        numbers = data["numbers"]
        if not isinstance(numbers, list) or not all(_number(n) for n in numbers):
            raise InputError(f"the message's numbers must be a list of PR numbers, got {str(numbers)[:80]!r}")
        part = data.get("slice") or ""
        if not isinstance(part, str):
            raise InputError(f"the message's slice must be a string, got {str(part)[:50]!r}")
        return cls(_text(data, "repo"), _text(data, "slug"), _text(data, "lang"), _text(data, "home"),
                   tuple(int(n) for n in numbers), part)

    def body(self) -> dict[str, Any]:
        return {"repo": self.repo, **({"slice": self.slice} if self.slice else {}), "slug": self.slug,
                "lang": self.lang, "home": self.home, "numbers": list(self.numbers)}


def _number(value: Any) -> bool:
    """A PR number as JSON carries it: a whole number, or its digits in a string."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit())


@dataclass(frozen=True)
class DeliveryMessage:
    """The report (or digest) at `report_key`, written in `language`, for one channel. A channel whose URL or
    signing secret is written in the watch list (the local runner's) travels as a reference (`ref`), so no queue,
    DLQ or saved local state holds the value; the delivery finds it in the watch list again."""

    run_id: str
    report_key: str
    language: str
    channel: Channel
    ref: str | None = None

    @classmethod
    def parse(cls, body: str | None, literal: Callable[[str], Channel | None] | None = None) -> DeliveryMessage:
        """A DeliveryQueue body; `literal` finds a channel named by reference (`channel_ref`) in the watch list
        (the local runner's; None in the stack, which takes no literal URL)."""
        try:
            data = json.loads(body or "")
            job = (str(data["run_id"]), str(data["report_key"]), str(data.get("language") or "zh"))
            ref = data.get("channel_ref") if isinstance(data, dict) else None
            if ref is None:
                return cls(*job, parse_channel(data["channel"], "delivery.channel"))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"malformed delivery message: {exc!r}") from exc
        if literal is None:
            raise InputError(f"channel {str(ref)[:40]!r} has a literal url/secret in the watch list: that is for the "
                             "local runner only; store it in Secrets Manager and give url_secret/secret_name")
        channel = literal(str(ref))
        if channel is None:
            raise InputError(f"channel {str(ref)[:40]!r} is no longer in the watch list: not told")
        return cls(*job, channel, str(ref))

    def body(self) -> dict[str, Any]:
        named = {"channel_ref": self.ref} if self.ref is not None else {"channel": self.channel.to_dict()}
        return {"run_id": self.run_id, "report_key": self.report_key, "language": self.language, **named}
