"""The repository's own record before a period (`History`), as a source answers it, and the periods a report
compares with: the engine, the report and the store read it; the sources produce it."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period, format_timestamp, parse_timestamp

COMPARISONS = 4  # a report compares with the four periods of the same length before it
Tagger = Callable[[PullRequest], list[str]]


@dataclass
class History:
    """The repository's own record before a period, as its source knows it: never what earlier runs stored,
    so the same command gives the same report whatever the state holds.

    `earlier` has the PRs merged in the comparison periods (trends, revert chains across periods), as
    history entries (number, title, author, merged_at, url, modules; and, where the source read the PR's
    conversation, created_at, first_review_at and the follow-ups still open as `promises`, which the planner adds:
    review timing and follow-ups across periods); `first_merged` maps each author of the
    period who had merged before it (lower-case login) to their first merge; an author absent from it is
    new. `reach` is the earliest merge the source can see ("" when it sees the whole repository)."""

    earlier: list[dict[str, Any]]
    first_merged: dict[str, str]
    reach: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"earlier": self.earlier, "first_merged": self.first_merged, "reach": self.reach}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> History:
        return cls(list(data.get("earlier", [])), dict(data.get("first_merged", {})), str(data.get("reach", "")))

    @classmethod
    def of(cls, entries: Iterable[dict[str, Any]], period: Period) -> History:
        """The history a record of entries (number, title, author, merged_at, ...) gives for `period`, as a
        source that holds exactly those PRs would answer: every author's first merge, its reach its first PR."""
        start, window = period.start_utc, period.previous(COMPARISONS)[0].start_utc
        before = sorted((e for e in entries if parse_timestamp(str(e["merged_at"])) < start),
                        key=lambda e: (str(e["merged_at"]), int(e["number"])))
        first: dict[str, str] = {}
        for e in before:
            first.setdefault(str(e.get("author", "")).lower(), str(e["merged_at"]))
        # A record with nothing before the period reaches only back to its start: "new" cannot be judged.
        return cls([e for e in before if parse_timestamp(str(e["merged_at"])) >= window], first,
                   str(before[0]["merged_at"]) if before else format_timestamp(start))


def comparison_span(period: Period) -> Period:
    """The days of the COMPARISONS periods before `period`, as one span."""
    return Period(period.previous(COMPARISONS)[0].since, period.since - timedelta(days=1), period.tz)


def history_entry(pr: PullRef | PullRequest, modules: list[str]) -> dict[str, Any]:
    ref = pr.ref if isinstance(pr, PullRequest) else pr
    return {**ref.to_dict(), "modules": modules}
