"""Report periods: inclusive date ranges in a repository's time zone."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from prhub.core.errors import InputError

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

MAX_DAYS = 366


def zone(name: str) -> ZoneInfo:
    # zoneinfo reads the interpreter's sysconfig when imported (a few ms every handler's cold start would pay
    # before any period is asked for): it is loaded with the first zone.
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:  # TypeError: a non-string from an event
        raise InputError(f"unknown time zone {name!r:.100} (use an IANA name such as Asia/Shanghai)") from exc


def parse_date(value: str, field: str) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        # :.100 keeps a huge input out of the message (and the logs)
        raise InputError(f"{field} must be a date YYYY-MM-DD, got {value!r:.100}") from exc


@dataclass(frozen=True)
class Period:
    """[since 00:00, until 24:00) in `tz`; both dates inclusive."""

    since: date
    until: date
    tz: str

    @classmethod
    def parse(cls, since: str, until: str, tz: str) -> Period:
        """Validate user input; raises InputError with a message a person can act on."""
        zone(tz)
        start, end = parse_date(since, "since"), parse_date(until, "until")
        if start > end:
            raise InputError(f"since ({start}) is after until ({end})")
        if (end - start).days + 1 > MAX_DAYS:
            raise InputError(f"range of {(end - start).days + 1} days exceeds the maximum of {MAX_DAYS}")
        return cls(start, end, tz)

    @classmethod
    def last_complete_week(cls, now: datetime, tz: str) -> Period:
        """The Monday–Sunday week that ended most recently before `now` in `tz`."""
        today = now.astimezone(zone(tz)).date()
        this_monday = today - timedelta(days=today.weekday())
        return cls(this_monday - timedelta(days=7), this_monday - timedelta(days=1), tz)

    @property
    def start_utc(self) -> datetime:
        return datetime.combine(self.since, time(), zone(self.tz)).astimezone(UTC)

    @property
    def end_utc(self) -> datetime:
        """Exclusive end: midnight after `until`."""
        return datetime.combine(self.until + timedelta(days=1), time(), zone(self.tz)).astimezone(UTC)

    def contains(self, moment: datetime) -> bool:
        return self.start_utc <= moment < self.end_utc

    @property
    def days(self) -> int:
        return (self.until - self.since).days + 1

    @property
    def iso_week(self) -> tuple[int, int] | None:
        """(year, week) when the period is exactly one Monday–Sunday week."""
        if self.since.weekday() == 0 and self.days == 7:
            year, week, _ = self.since.isocalendar()
            return year, week
        return None

    @property
    def slug(self) -> str:
        """Path segment of the report: <since>-to-<until>."""
        return f"{self.since.isoformat()}-to-{self.until.isoformat()}"

    @property
    def kind(self) -> str:
        """week (Monday–Sunday), month or year (calendar), else range: what the report is called."""
        if self.iso_week:
            return "week"
        if self.since.day == 1 and self.until == _month_end(self.since):
            return "month"
        if (self.since.month, self.since.day, self.until.month, self.until.day) == (1, 1, 12, 31) \
                and self.since.year == self.until.year:
            return "year"
        return "range"

    def previous(self, count: int) -> list[Period]:
        """The `count` periods of the same length right before this one, oldest first: calendar months before a
        month, years before a year, else back-to-back windows of as many days (a week: the weeks before)."""
        out: list[Period] = []
        start, end = self.since, self.until
        for _ in range(count):
            if self.kind == "month":
                end = start - timedelta(days=1)
                start = end.replace(day=1)
            elif self.kind == "year":
                start, end = start.replace(year=start.year - 1), end.replace(year=end.year - 1)
            else:
                start, end = start - timedelta(days=self.days), start - timedelta(days=1)
            out.append(Period(start, end, self.tz))
        return out[::-1]

    def previous_weeks(self, count: int) -> list[Period]:
        """The `count` seven-day windows right before this period, oldest first (trend baseline)."""
        return [
            Period(self.since - timedelta(days=7 * k), self.since - timedelta(days=7 * k - 6), self.tz)
            for k in range(count, 0, -1)
        ]

    def to_dict(self) -> dict[str, str]:
        return {"since": self.since.isoformat(), "until": self.until.isoformat(), "tz": self.tz}

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Period:
        return cls.parse(data["since"], data["until"], data["tz"])


def kind_of(period: Any) -> str:
    """The kind (week | month | year | range) of a report's `period` {since, until, tz}; range when unreadable."""
    try:
        return Period.parse(period["since"], period["until"], period.get("tz", "UTC")).kind
    except (KeyError, TypeError, AttributeError, InputError):
        return "range"


def zh_dates(since: date, until: date, year: bool = True) -> str:
    """The dates from `since` to `until` as Chinese writes them ("2026 年 5 月 4 日至 5 月 10 日"); without the
    `year` of a range inside one year, and without the month twice ("5 月 4 日至 10 日")."""
    if since.year != until.year:
        return f"{since.year} 年 {since.month} 月 {since.day} 日至 {until.year} 年 {until.month} 月 {until.day} 日"
    start = f"{since.year} 年 " if year else ""
    end = f"{until.day} 日" if not year and since.month == until.month else f"{until.month} 月 {until.day} 日"
    return f"{start}{since.month} 月 {since.day} 日至 {end}"


def _month_end(day: date) -> date:
    following = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return following - timedelta(days=1)


def parse_timestamp(value: str) -> datetime:
    """GitHub's `YYYY-MM-DDTHH:MM:SSZ` (or any ISO 8601 with offset) as an aware UTC datetime."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
