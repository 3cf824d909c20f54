"""The run item (`Run`, what plan decided and how far the workers got) and its table (`DynamoRuns`): a run is
written once, counted as its PRs are handed on, claimed once for its report, and read by the sweep.

A run item keeps the watch list's channels by name: a literal `url` or `secret` (the local runner's) is not
stored, only its reference (`channel_ref`, the delivery ledger's channel id), which the report service looks up
in the watch list again when it asks for the deliveries.

A PR handed back for later (a rate limit, too little time left) moves `waiting_until` forward (`defer`): the sweep
tells such a run from a dead one.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from prhub.cloud.dynamo import from_item, pack, to_item, unpack
from prhub.cloud.tables import Tables, expires, won
from prhub.core.channels import Channel, channel_ref, is_literal
from prhub.core.config import RepoConfig
from prhub.core.errors import PrhubError
from prhub.core.history import History
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef
from prhub.core.period import Period, format_timestamp

FAILED = "failed"  # the status of a run its plan could never list (fail_run)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def run_id(config: RepoConfig, period: Period, stamp: str) -> str:
    """A run's id: the report's identity (its repository, or the slice of it: RepoConfig.report_id), the period
    and `stamp` ("weekly" for the schedule's one run a week, a time and random part for a run on demand).
    Two slices of one repository, or a slice and its repository, never share a run or its deduplication."""
    return f"{config.report_id}/{period.since}_{period.until}/{stamp}"


@dataclass(frozen=True)
class RunName:
    """What a run id names (parse_run_id)."""

    repo: str
    slice: str
    since: str
    until: str
    stamp: str

    @property
    def period_prefix(self) -> str:
        """The ids of every run of the same report and period start with this."""
        base = f"{self.repo}/slices/{self.slice}" if self.slice else self.repo
        return f"{base}/{self.since}_{self.until}/"


def parse_run_id(value: str) -> RunName | None:
    """The repository, slice, period and stamp a run id names; None when it is not shaped as run_id makes them."""
    parts = value.split("/")
    if len(parts) == 6 and parts[2] == "slices":
        parts = [parts[0], parts[1], parts[3], parts[4], parts[5]]
    elif len(parts) == 4:
        parts = [parts[0], parts[1], "", parts[2], parts[3]]
    else:
        return None
    owner, name, slice_name, period, stamp = parts
    if period.count("_") != 1 or not (owner and name and stamp):
        return None
    since, until = period.split("_")
    return RunName(f"{owner}/{name}", slice_name, since, until, stamp)


def _refs(value: Any) -> list[PullRef]:
    """The run's listing, packed: refs, or (older items) bare numbers, which keep only their number."""
    out = []
    for r in unpack(value) if isinstance(value, bytes) else value:
        out.append(PullRef.from_dict(r) if isinstance(r, dict) else PullRef(int(r), "", "", EPOCH, ""))
    return out


@dataclass
class Run:
    """The run item: what plan decided and how far the workers got."""

    run_id: str
    repo: str
    period: Period
    config: RepoConfig
    source: str
    expected: int
    listing: list[PullRef]  # what plan listed: the period's PRs
    history: History  # the repository's record before the period, from the source
    status: str = "scoring"
    done: int = 0
    failed: int = 0
    tokens_used: int = 0
    created_at: str = ""
    updated_at: int = 0  # epoch seconds of the last progress, for the sweep
    report_requested: int | None = None
    report_key: str | None = None
    reported_at: str | None = None  # when the latest revision was published
    notes: list[str] = field(default_factory=list)
    waiting_until: int = 0  # epoch seconds when the last PR handed back for later comes back
    revision: int = 0  # the published revision (0: not yet published)
    revision_requested: int = 0  # the newest revision claimed (a late result asked for it)
    published_pending: list[int] = field(default_factory=list)  # PRs without a result at the latest publication
    superseded_by: str = ""  # the run whose report its latest revision was not published over (superseding)
    channel_refs: list[str] = field(default_factory=list)  # its literal channels, by reference (channel_ref)
    learned: dict[str, Any] | None = None  # what the judgements taught (Learned.to_dict()); None without any
    # The judgements the plan read from the CHANGELOG and the watch list, so its report need not read them again;
    # None for a run planned before the plan kept them (its report gathers them itself).
    judgements: list[Judgement] | None = None
    # How many PRs of the listing, in its order, the plan has handed on (stored from the cache or sent to be
    # scored): below `expected`, a plan stopped part-way, and its retry hands on the rest (Store.mark_fanned).
    # A run item from before it was kept counts as handed on.
    fanned: int | None = None

    @property
    def refs(self) -> list[int]:
        return [r.number for r in self.listing]

    @property
    def fanned_out(self) -> bool:
        """Every PR of the listing was handed on to be scored (or stored from the cache)."""
        return self.fanned is None or self.fanned >= self.expected

    @classmethod
    def from_item(cls, data: dict[str, Any]) -> Run:
        period = Period.from_dict(data["period"])
        # A run planned before history came from the source knows none: "new" is then not judged.
        history = (History.from_dict(unpack(data["history"])) if data.get("history")
                   else History([], {}, format_timestamp(period.start_utc)))
        return cls(
            run_id=data["run_id"], repo=data["repo"], period=period,
            config=RepoConfig.from_dict(json.loads(data["config"])), source=data["source"],
            expected=int(data["expected"]), listing=_refs(data.get("refs", [])), history=history,
            status=data.get("status", "scoring"), done=int(data.get("done", 0)), failed=int(data.get("failed", 0)),
            tokens_used=int(data.get("tokens_used", 0)), created_at=data.get("created_at", ""),
            updated_at=int(data.get("updated_at", 0)), report_requested=data.get("report_requested"),
            report_key=data.get("report_key"), reported_at=data.get("reported_at"),
            notes=[str(n) for n in data.get("notes", [])], waiting_until=int(data.get("waiting_until", 0)),
            revision=_revision(data), revision_requested=int(data.get("revision_requested", 0)),
            published_pending=[int(n) for n in unpack(data["published_pending"])] if data.get("published_pending")
            else [],
            superseded_by=str(data.get("superseded_by") or ""),
            channel_refs=[str(r) for r in data.get("channel_refs") or []],
            learned=json.loads(data["learned"]) if data.get("learned") else None,
            judgements=[Judgement.from_dict(j) for j in unpack(data["judgements"])] if data.get("judgements")
            else None,
            fanned=int(data["fanned"]) if data.get("fanned") is not None else None,
        )


def _revision(data: dict[str, Any]) -> int:
    """The published revision; a run reported before revisions were counted published its first."""
    return int(data.get("revision", 1 if data.get("status") == "reported" else 0))


@dataclass(frozen=True)
class Progress:
    """How far a run's workers got."""

    done: int
    failed: int
    expected: int
    tokens_used: int = 0
    report_requested: int | None = None
    revision: int = 0  # published
    revision_requested: int = 0
    published_results: int = 0  # results (scored or failed) the latest publication included

    @property
    def complete(self) -> bool:
        """Every PR has a result, scored or failed: the run can be reported."""
        return self.done + self.failed >= self.expected

    @property
    def late(self) -> bool:
        """A result arrived after the latest publication, and no revision is claimed for it yet."""
        return (self.revision >= 1 and self.done + self.failed > self.published_results
                and self.revision_requested <= self.revision)


class DynamoRuns(Tables):
    """Run items on the runs table."""

    def create_run(self, run_id: str, config: RepoConfig, period: Period, source: str, refs: list[PullRef],
                   now: int, created_at: str, notes: list[str] | None = None, history: History | None = None,
                   learned: dict[str, Any] | None = None, judgements: list[Judgement] | None = None) -> bool:
        """Write the run item; False when a run with this id exists (a redelivered schedule). A run recorded as
        failed (fail_run) is replaced: its week is planned once the cause is fixed and the event redriven.

        `notes` are lines for the report that only the plan step knows (e.g. export lines it skipped);
        `history` is the repository's record before the period, as the source gave it to the plan; `learned` what
        the repository's judgements taught the engine (prhub.engine.learning.Learned), when it has any; `judgements`
        the ones the plan read (CHANGELOG, watch list) for the report to mark."""
        stored = config.to_dict()
        stored["notify"] = [c.to_dict() for c in config.notify if not is_literal(c)]
        item = {
            "run_id": run_id, "repo": config.repo, "period": period.to_dict(),
            "config": json.dumps(stored, ensure_ascii=False), "source": source,
            "channel_refs": [channel_ref(c) for c in config.notify if is_literal(c)] or None,
            # Packed: a year's 2,000 refs as a DynamoDB list make every read of the run slow (and big).
            "expected": len(refs), "refs": pack([r.to_dict() for r in refs]),
            "history": pack(history.to_dict()) if history is not None else None, "status": "scoring",
            "done": 0, "failed": 0, "tokens_used": 0, "created_at": created_at, "updated_at": now,
            "fanned": 0, "expires_at": expires(now), "notes": list(notes) if notes else None,
            "learned": json.dumps(learned) if learned else None,
            # Packed: a CHANGELOG names thousands of PRs. Always written, even empty, so the report knows it was read.
            "judgements": pack([j.to_dict() for j in judgements or []]),
        }
        return self._put_run(item)

    def fail_run(self, run_id: str, config: RepoConfig, period: Period, source: str, error: str, now: int,
                 created_at: str) -> bool:
        """Record a run its plan could never list (a bad token, a repository that does not exist, an export that
        does not cover the period): status `failed` with the error, so the period is a failed run rather than one
        never planned. It has no PRs, and no report is asked for it; False when the run was planned already."""
        item = {
            "run_id": run_id, "repo": config.repo, "period": period.to_dict(),
            "config": json.dumps(config.to_dict(), ensure_ascii=False), "source": source, "expected": 0,
            "refs": pack([]), "status": FAILED, "error": error[:1000], "done": 0, "failed": 0, "tokens_used": 0,
            "created_at": created_at, "updated_at": now, "expires_at": expires(now),
        }
        return self._put_run(item)

    def _put_run(self, item: dict[str, Any]) -> bool:
        """Put a run item unless a run with its id exists that is not a failed one."""
        return won(lambda: self.db.put_item(TableName=self.settings.runs_table, Item=to_item(item),
                                            ConditionExpression="attribute_not_exists(run_id) OR #s = :f",
                                            ExpressionAttributeNames={"#s": "status"},
                                            ExpressionAttributeValues=to_item({":f": FAILED})))

    def mark_fanned(self, run_id: str, count: int) -> None:
        """Record that the plan handed on the first `count` PRs of the run's listing (Run.fanned)."""
        self.db.update_item(TableName=self.settings.runs_table, Key=self.run_key(run_id),
                            UpdateExpression="SET fanned = :n", ConditionExpression="attribute_exists(run_id)",
                            ExpressionAttributeValues=to_item({":n": count}))

    def get_run(self, run_id: str, consistent: bool = True) -> Run | None:
        answer = self.db.get_item(TableName=self.settings.runs_table, Key=self.run_key(run_id),
                                  ConsistentRead=consistent)
        return Run.from_item(from_item(answer["Item"])) if "Item" in answer else None

    def progress(self, run_id: str) -> Progress | None:
        """The run's counters only (a consistent read of a few attributes)."""
        names = {"#d": "done", "#f": "failed", "#e": "expected", "#t": "tokens_used", "#r": "report_requested",
                 "#s": "status", "#v": "revision", "#q": "revision_requested", "#p": "published_results"}
        answer = self.db.get_item(TableName=self.settings.runs_table, Key=self.run_key(run_id),
                                  ConsistentRead=True, ProjectionExpression=", ".join(names),
                                  ExpressionAttributeNames=names)
        if "Item" not in answer:
            return None
        data = from_item(answer["Item"])
        counts = {k: int(v) for k, v in data.items() if k != "status"}
        return Progress(counts.get("done", 0), counts.get("failed", 0), counts.get("expected", 0),
                        counts.get("tokens_used", 0), counts.get("report_requested"), _revision(data),
                        counts.get("revision_requested", 0), counts.get("published_results", 0))

    def open_runs(self) -> Iterator[Run]:
        """Every run not yet reported (nor failed: it has nothing to report), and every reported run with a
        revision claimed but not yet published (a scan: runs are few and expire)."""
        for page in self.db.get_paginator("scan").paginate(
                TableName=self.settings.runs_table,
                FilterExpression="(#s <> :r AND #s <> :f) OR revision_requested > revision",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":r": "reported", ":f": FAILED})):
            for item in page.get("Items", []):
                try:
                    yield Run.from_item(from_item(item))
                except (KeyError, ValueError, TypeError, PrhubError):
                    # A run item the code cannot read (an older layout, a hand edit) must not stop the sweep
                    # from finishing the others; it expires with its TTL.
                    continue

    def runs_of(self, repo: str) -> Iterator[Run]:
        """Every stored run of the repository, its slices' too (a scan: runs are few and expire; for `prhub
        judge`, never a function)."""
        for page in self.db.get_paginator("scan").paginate(TableName=self.settings.runs_table):
            for item in page.get("Items", []):
                data = from_item(item)
                if str(data.get("repo", "")).lower() != repo.lower():  # a name's case is the caller's
                    continue
                try:
                    yield Run.from_item(data)
                except (KeyError, ValueError, TypeError, PrhubError):
                    continue  # as open_runs: an item the code cannot read expires with its TTL

    def claim_report(self, run_id: str, now: int) -> bool:
        """Exactly one caller wins: SET report_requested only if absent."""
        return won(lambda: self.db.update_item(
            TableName=self.settings.runs_table, Key=self.run_key(run_id),
            UpdateExpression="SET report_requested = :now",
            ConditionExpression="attribute_exists(run_id) AND attribute_not_exists(report_requested)",
            ExpressionAttributeValues=to_item({":now": now})))

    def defer(self, run_id: str, until: int) -> None:
        """A PR of the run comes back at `until` (epoch seconds): the run waits at least that long, not dead."""
        # Not won: a later wait is already recorded (or the run expired).
        won(lambda: self.db.update_item(
            TableName=self.settings.runs_table, Key=self.run_key(run_id),
            UpdateExpression="SET waiting_until = :u",
            ConditionExpression="attribute_exists(run_id) AND "
                                "(attribute_not_exists(waiting_until) OR waiting_until < :u)",
            ExpressionAttributeValues=to_item({":u": until})))


def literal_channels(run: Run, watched: tuple[Channel, ...]) -> tuple[Channel, ...]:
    """The run's literal channels found again among the watch list's (`watched`): the ones it still has."""
    return tuple(c for c in watched if is_literal(c) and channel_ref(c) in run.channel_refs)


