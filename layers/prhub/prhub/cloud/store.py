"""The run store on DynamoDB: runs (with what plan listed and the source's history) and per-PR results.

One `Store` wraps a low-level DynamoDB client (handed in, so moto, LocalStack
and AWS need no code change) and the table names from `Settings`. The
guarantees of the flow live here as conditional writes:

- a result is stored and counted in ONE transaction whose Put carries
  `attribute_not_exists(number)`, so a redelivered message changes nothing;
- `claim_report` sets `report_requested` only if absent, so exactly one
  worker (or sweep) wins the right to ask for the report;
- `claim_revision` sets `revision_requested` to the next revision only while
  that revision is unclaimed and the one before it is published, so a result
  that arrives after a publication asks for exactly one new revision;
- `mark_reported` records a revision only over an older one;
- a run publishes at a report's URL only while no newer or more complete run of the same range and language has
  published there (`superseding`, a Query of ReportKeyIndex), so a late sweep of an orphaned run is recorded,
  never published over a better report.

A run item keeps the watch list's channels by name: a literal `url` or `secret` (the local runner's) is not
stored, only its reference (`channel_ref`, the delivery ledger's channel id), which the report service looks up
in the watch list again when it asks for the deliveries.

A PR handed back for later (a rate limit, too little time left) moves
`waiting_until` forward (`defer`): the sweep tells such a run from a dead one.

Results are packed (prhub.cloud.dynamo's codec), as the cache's entries are.

Judgements (issue 27) live in their own table, without expiry (runs and results go after RUN_TTL_DAYS; what a
maintainer said must outlive them): one item per repository (lower-case), source and PR. Only what the flow could
not read again is kept there: a `--judgements` file's, the labels the score workers saw, `prhub judge`'s
corrections (prhub.flow.judgements).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from prhub.cloud.dynamo import condition_failed, from_item, pack, refused_by_condition, to_item, unpack
from prhub.core.channels import Channel
from prhub.core.config import RepoConfig, Settings
from prhub.core.errors import PrhubError
from prhub.core.history import History
from prhub.core.judgements import Judgement, judgement
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period, format_timestamp

RUN_TTL_DAYS = 90
DAY = 86_400
MAX_TRANSACT_PUTS = 99  # TransactWriteItems takes at most 100 actions: the results and their run's counter
FAILED = "failed"  # the status of a run its plan could never list (Store.fail_run)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REPORT_KEY_INDEX = "ReportKeyIndex"  # the runs table's index by report folder (template.yaml)


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


@dataclass
class Result:
    number: int
    status: str  # scored | failed
    scored: ScoredPR | None
    reason: str = ""
    cached: bool = False


class Store:
    """The four tables of the flow behind one small interface."""

    def __init__(self, dynamodb: Any, settings: Settings) -> None:
        self.db = dynamodb
        self.settings = settings

    # -- runs ---------------------------------------------------------------
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
            "fanned": 0, "expires_at": now + RUN_TTL_DAYS * DAY, "notes": list(notes) if notes else None,
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
            "created_at": created_at, "updated_at": now, "expires_at": now + RUN_TTL_DAYS * DAY,
        }
        return self._put_run(item)

    def _put_run(self, item: dict[str, Any]) -> bool:
        """Put a run item unless a run with its id exists that is not a failed one."""
        try:
            self.db.put_item(TableName=self.settings.runs_table, Item=to_item(item),
                             ConditionExpression="attribute_not_exists(run_id) OR #s = :f",
                             ExpressionAttributeNames={"#s": "status"},
                             ExpressionAttributeValues=to_item({":f": FAILED}))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def mark_fanned(self, run_id: str, count: int) -> None:
        """Record that the plan handed on the first `count` PRs of the run's listing (Run.fanned)."""
        self.db.update_item(TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                            UpdateExpression="SET fanned = :n", ConditionExpression="attribute_exists(run_id)",
                            ExpressionAttributeValues=to_item({":n": count}))

    def get_run(self, run_id: str, consistent: bool = True) -> Run | None:
        answer = self.db.get_item(TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                                  ConsistentRead=consistent)
        return Run.from_item(from_item(answer["Item"])) if "Item" in answer else None

    def progress(self, run_id: str) -> Progress | None:
        """The run's counters only (a consistent read of a few attributes)."""
        names = {"#d": "done", "#f": "failed", "#e": "expected", "#t": "tokens_used", "#r": "report_requested",
                 "#s": "status", "#v": "revision", "#q": "revision_requested", "#p": "published_results"}
        answer = self.db.get_item(TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
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
        try:
            self.db.update_item(
                TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                UpdateExpression="SET report_requested = :now",
                ConditionExpression="attribute_exists(run_id) AND attribute_not_exists(report_requested)",
                ExpressionAttributeValues=to_item({":now": now}))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def claim_revision(self, run_id: str, revision: int, now: int) -> bool:
        """Exactly one caller wins revision N: only while revision N-1 is the published one and N is unclaimed."""
        published = "revision = :prev" if revision > 2 else "(revision = :prev OR attribute_not_exists(revision))"
        try:
            self.db.update_item(
                TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                UpdateExpression="SET revision_requested = :n",
                ConditionExpression=f"#s = :reported AND {published} "
                                    "AND (attribute_not_exists(revision_requested) OR revision_requested < :n)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":n": revision, ":prev": revision - 1, ":reported": "reported"}))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def superseding(self, folder: str, run: Run, results: int) -> str | None:
        """The run whose published report at `folder` must stay, this run's revision with `results` results being
        stale: one planned later, or one more complete (a larger share of its listed PRs with a result); None when
        this one may publish. Runs as new and as complete, and the run's own earlier revisions, give way.

        A Query of the runs table's ReportKeyIndex (report_key, set when a run is marked reported, with what the
        check reads projected): the runs published at one folder, not every run. The index is eventually
        consistent: two publishers racing within one publication can both pass; the sweep's case (an orphan
        reported long after) cannot."""
        planned = planned_at(run, 0)
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.runs_table, IndexName=REPORT_KEY_INDEX,
                KeyConditionExpression="report_key = :k",
                FilterExpression="#s = :r AND run_id <> :me "
                                 "AND (attribute_not_exists(superseded_by) OR superseded_by = :none)",
                ProjectionExpression="run_id, created_at, published_results, expected",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":k": folder, ":r": "reported", ":me": run.run_id, ":none": ""})):
            for raw in page.get("Items", []):
                other = from_item(raw)
                if better(str(other.get("created_at", "")), int(other.get("published_results", 0)),
                          int(other.get("expected", 0)), planned, results, run.expected):
                    return str(other["run_id"])
        return None

    def mark_reported(self, run_id: str, report_key: str, reported_at: str, now: int, revision: int = 1,
                      results: int = 0, pending: list[int] | None = None, superseded_by: str = "") -> bool:
        """Record revision `revision` as published, with the results it included and the PRs it had none for;
        False (nothing changed) when this or a newer revision is already recorded. `pending` is packed: a sweep
        of a year's run may leave thousands. `superseded_by`: the revision was made but not published, the
        report at its URL being that run's (superseding)."""
        try:
            self.db.update_item(
                TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                UpdateExpression="SET #s = :s, report_key = :k, reported_at = :t, updated_at = :now, revision = :v, "
                                 "published_results = :n, published_pending = :p, superseded_by = :by",
                ConditionExpression="attribute_not_exists(revision) OR revision < :v",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":s": "reported", ":k": report_key, ":t": reported_at,
                                                   ":now": now, ":v": revision, ":n": results,
                                                   ":p": pack(sorted(pending or [])), ":by": superseded_by}))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def defer(self, run_id: str, until: int) -> None:
        """A PR of the run comes back at `until` (epoch seconds): the run waits at least that long, not dead."""
        try:
            self.db.update_item(
                TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                UpdateExpression="SET waiting_until = :u",
                ConditionExpression="attribute_exists(run_id) AND "
                                    "(attribute_not_exists(waiting_until) OR waiting_until < :u)",
                ExpressionAttributeValues=to_item({":u": until}))
        except ClientError as exc:
            if not condition_failed(exc):  # a later wait is already recorded (or the run expired)
                raise

    def reserve_tokens(self, run_id: str, tokens: int, limit: int) -> bool:
        """ADD `tokens` to the run's tokens_used only while the sum stays within `limit`; False (nothing added)
        when it would not. One conditional update, so workers reserving together never pass the limit between
        them. DynamoDB conditions have no arithmetic: the ceiling the counter may have is limit - tokens."""
        ceiling = limit - tokens
        if ceiling < 0:
            return False
        try:
            self.db.update_item(
                TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                UpdateExpression="ADD tokens_used :n",
                ConditionExpression="attribute_exists(run_id) AND "
                                    "(attribute_not_exists(tokens_used) OR tokens_used <= :ceiling)",
                ExpressionAttributeValues=to_item({":n": tokens, ":ceiling": ceiling}))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def spend_tokens(self, run_id: str, tokens: int) -> None:
        """ADD `tokens` (negative: a reservation handed back) to the run's tokens_used, unconditionally."""
        try:
            self.db.update_item(TableName=self.settings.runs_table, Key=to_item({"run_id": run_id}),
                                UpdateExpression="ADD tokens_used :n", ConditionExpression="attribute_exists(run_id)",
                                ExpressionAttributeValues=to_item({":n": tokens}))
        except ClientError as exc:
            if not condition_failed(exc):  # an expired run: nothing to count against (and no ghost item)
                raise

    # -- judgements ---------------------------------------------------------
    def put_judgements(self, judgements: list[Judgement]) -> None:
        """Keep each judgement, replacing the one of the same repository, source and PR (BatchWriteItem, 25 a
        request; what DynamoDB leaves unprocessed is sent again)."""
        # One item per key, the last given: BatchWriteItem refuses a request naming one key twice.
        unique = {(j.repo.lower(), j.source, j.pr): j for j in judgements}
        requests = [{"PutRequest": {"Item": to_item(_judgement_item(j))}} for j in unique.values()]
        for start in range(0, len(requests), 25):
            pending = {self.settings.judgements_table: requests[start:start + 25]}
            for _ in range(10):
                left = self.db.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not left:
                    break
                pending = left
            else:
                raise PrhubError(f"DynamoDB kept refusing to store {len(pending)} judgements")

    def forget_judgement(self, repo: str, pr: int, source: str) -> None:
        """Remove the repository's judgement of `pr` from `source` (a label taken off the PR), if there is one."""
        self.db.delete_item(TableName=self.settings.judgements_table,
                            Key=to_item({"repo": repo.lower(), "key": f"{source}#{pr}"}))

    def judgements(self, repo: str) -> list[Judgement]:
        """Every judgement kept for the repository, by source and PR."""
        out = []
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.judgements_table, KeyConditionExpression="repo = :r",
                ExpressionAttributeValues=to_item({":r": repo.lower()})):
            for raw in page.get("Items", []):
                item = from_item(raw)
                out.append(judgement(repo, int(item["pr"]), item["verdict"], item["source"], item.get("at", ""),
                                     item.get("grade")))
        return out

    # -- results ------------------------------------------------------------
    def _count_in_run(self, run_id: str, counter: str, now: int, tokens: int = 0, count: int = 1) -> dict[str, Any]:
        # `tokens`: what the PRs' model calls cost beyond (or below) their reservations, settled with the results.
        spent = ", tokens_used :t" if tokens else ""
        return {"Update": {
            "TableName": self.settings.runs_table, "Key": to_item({"run_id": run_id}),
            "UpdateExpression": f"ADD {counter} :n{spent} SET updated_at = :now",
            # ADD would create a ghost run item for an unknown (expired) run id.
            "ConditionExpression": "attribute_exists(run_id)",
            "ExpressionAttributeValues": to_item({":n": count, ":now": now, **({":t": tokens} if tokens else {})})}}

    def _put(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"Put": {"TableName": self.settings.results_table, "Item": to_item(item),
                        "ConditionExpression": "attribute_not_exists(#n)",
                        "ExpressionAttributeNames": {"#n": "number"}}}

    def _put_once(self, item: dict[str, Any], run_id: str, counter: str, now: int, tokens: int = 0) -> bool:
        try:
            self.db.transact_write_items(TransactItems=[self._put(item),
                                                        self._count_in_run(run_id, counter, now, tokens)])
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def _put_together(self, run_id: str, entries: list[tuple[dict[str, Any], int]], now: int) -> list[bool]:
        """Results of one run (item, tokens) put in one transaction with the run's `done` ADDed by as many: the
        puts DynamoDB refuses as duplicates (CancellationReasons) are left out and the rest written again. Which
        ones were stored; all False when the run does not exist."""
        pending = list(range(len(entries)))
        while pending:
            try:
                self.db.transact_write_items(TransactItems=[self._put(entries[i][0]) for i in pending] + [
                    self._count_in_run(run_id, "done", now, sum(entries[i][1] for i in pending), len(pending))])
            except ClientError as exc:
                refused = refused_by_condition(exc, len(pending) + 1)
                if refused is None:
                    raise
                if refused[-1]:  # the run's own condition: it does not exist (expired), nothing can be stored
                    return [False] * len(entries)
                if not any(refused):  # a condition failed, the reasons do not say which: one transaction each
                    stored = [False] * len(entries)
                    for i in pending:
                        stored[i] = self._put_once(entries[i][0], run_id, "done", now, entries[i][1])
                    return stored
                pending = [i for i, no in zip(pending, refused, strict=False) if not no]
                continue
            break
        kept = set(pending)
        return [i in kept for i in range(len(entries))]

    def put_results(self, results: Sequence[tuple[str, ScoredPR, bool, int]], now: int) -> list[bool]:
        """Store each (run_id, scored, cached, tokens) once, ADDing done (and its tokens to tokens_used:
        RunBudget's unsettled difference) atomically with it: one transaction per run and MAX_TRANSACT_PUTS
        results, not one per result. Which were stored; False (and nothing changed) for a duplicate, a PR given
        twice included."""
        stored = [False] * len(results)
        runs: dict[str, list[int]] = {}
        seen: set[tuple[str, int]] = set()
        for i, (run_id, scored, _, _) in enumerate(results):
            if (run_id, scored.number) not in seen:  # a transaction may not write one item twice
                seen.add((run_id, scored.number))
                runs.setdefault(run_id, []).append(i)
        for run_id, indexes in runs.items():
            for start in range(0, len(indexes), MAX_TRANSACT_PUTS):
                chunk = indexes[start:start + MAX_TRANSACT_PUTS]
                entries = [(self._result_item(run_id, results[i][1], now, results[i][2]), results[i][3])
                           for i in chunk]
                for i, ok in zip(chunk, self._put_together(run_id, entries, now), strict=True):
                    stored[i] = ok
        return stored

    def _result_item(self, run_id: str, scored: ScoredPR, now: int, cached: bool) -> dict[str, Any]:
        return {"run_id": run_id, "number": scored.number, "status": "scored", "data": pack(scored.to_dict()),
                "scored_by": scored.scored_by, "cached": cached, "expires_at": now + RUN_TTL_DAYS * DAY}

    def put_result(self, run_id: str, scored: ScoredPR, now: int, cached: bool = False, tokens: int = 0) -> bool:
        """Store the result and ADD done 1 (and `tokens` to tokens_used) atomically; False (and nothing changed)
        for a duplicate."""
        return self.put_results([(run_id, scored, cached, tokens)], now)[0]

    def put_failure(self, run_id: str, number: int, reason: str, now: int) -> bool:
        """Record a PR that cannot be scored and ADD failed 1 atomically; False for a duplicate."""
        item = {"run_id": run_id, "number": number, "status": "failed", "reason": reason[:1000],
                "expires_at": now + RUN_TTL_DAYS * DAY}
        return self._put_once(item, run_id, "failed", now)

    def results(self, run_id: str) -> list[Result]:
        out = []
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.results_table, KeyConditionExpression="run_id = :r",
                ExpressionAttributeValues=to_item({":r": run_id}), ConsistentRead=True):
            for raw in page.get("Items", []):
                item = from_item(raw)
                scored = ScoredPR.from_dict(unpack(item["data"])) if item.get("data") else None
                out.append(Result(int(item["number"]), item["status"], scored, item.get("reason", ""),
                                  bool(item.get("cached", False))))
        return out


def _judgement_item(j: Judgement) -> dict[str, Any]:
    item: dict[str, Any] = {"repo": j.repo.lower(), "key": f"{j.source}#{j.pr}", "pr": j.pr, "verdict": j.verdict,
                            "source": j.source, "at": j.at}
    if j.grade is not None:  # only a graded judgement has one: items kept before grades read the same
        item["grade"] = j.grade
    return item


def is_literal(channel: Channel) -> bool:
    """The channel's URL or signing secret is written in the watch list (the local runner's), not named."""
    return bool(channel.url or channel.secret)


def channel_ref(channel: Channel) -> str:
    """How a run item names a literal channel: a digest of its settings, never the URL or the secret (the same
    id the delivery ledger gives the channel: prhub.flow.deliver.channel_id)."""
    text = json.dumps(channel.to_dict(), sort_keys=True, ensure_ascii=False)
    return f"{channel.channel}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def literal_channels(run: Run, watched: tuple[Channel, ...]) -> tuple[Channel, ...]:
    """The run's literal channels found again among the watch list's (`watched`): the ones it still has."""
    return tuple(c for c in watched if is_literal(c) and channel_ref(c) in run.channel_refs)


def planned_at(run: Run, default: int) -> int:
    """When the run was planned (epoch seconds); `default` for an item without a readable time."""
    return _epoch(run.created_at, default)


def _epoch(stamp: str, default: int) -> int:
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return default


def better(created_at: str, results: int, expected: int, planned: int, mine: int, my_expected: int,
           default: int = 0) -> bool:
    """A published run (planned at `created_at`, `results` of its `expected` PRs with a result) is newer or more
    complete than one planned at `planned` with `mine` of `my_expected`: its report must not be replaced."""
    newer = _epoch(created_at, default) > planned
    share, my_share = (results, max(expected, 1)), (mine, max(my_expected, 1))
    return newer or share[0] * my_share[1] > my_share[0] * share[1]


class RunBudget:
    """A run's model-token budget, shared by every worker through the run item's `tokens_used` counter.

    A call reserves its estimate before it is sent (one conditional ADD: workers reserving at once never pass the
    limit together) and settles for what it really cost (the difference ADDed), so tokens_used ends as the run's
    real spending. `limit` is the smaller of the token and the money budget (prhub.model.pricing.token_limit);
    `exhausted` says which stops the model, for the PRs the engine then scores."""

    def __init__(self, store: Any, run_id: str, limit: int, exhausted: str = "") -> None:
        self.store = store
        self.run_id = run_id
        self.limit = limit
        self.exhausted = exhausted or "the run's token budget is spent"
        self.unsettled = 0  # reserved beyond what the calls cost (<= 0), not yet handed back

    def reserve(self, tokens: int) -> bool:
        """Hold `tokens` of the budget for a call about to be sent; False when they do not fit."""
        return bool(self.store.reserve_tokens(self.run_id, int(tokens), self.limit))

    def settle(self, reserved: int, spent: int) -> None:
        """Replace a reservation by what the call cost. A call that cost more is counted at once (the next
        reservation, this PR's repair or another worker's, must see it); one that cost less, the usual case, hands
        its rest back with the PR's result (Store.put_result's `tokens`, one write for both) or flush(). Meanwhile
        the counter holds more than was spent, never less: no worker sees room that is not there."""
        difference = int(spent) - int(reserved)
        if difference > 0:
            self.store.spend_tokens(self.run_id, difference)
        else:
            self.unsettled += difference

    def take(self) -> int:
        """The unsettled difference, handed to whoever writes it (and forgotten here)."""
        tokens, self.unsettled = self.unsettled, 0
        return tokens

    def flush(self) -> None:
        """Write the unsettled difference on its own (no result is stored with it)."""
        if tokens := self.take():
            self.store.spend_tokens(self.run_id, tokens)
