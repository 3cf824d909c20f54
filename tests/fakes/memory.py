"""In-memory stand-ins for the flow's adapters, with the semantics the DynamoDB, SQS, S3 and CloudFront ones have.

`memory_stack(...)` builds a prhub.flow.deps.Deps on them, so a flow test runs plan -> score -> report without moto.
The run store has a fake per port of prhub.flow.ports (MemoryRuns, MemoryResults, MemoryBudget, MemoryPublications,
MemoryJudgements) on shared tables (MemoryTables); MemoryStore is all of them at once, as the Store is.
They keep the guarantees that matter to the flow: a duplicate put_result/put_failure returns False and changes
nothing; claim_report is won once; report_requested and the counters are what a consistent read returns. Every
method takes one lock, as DynamoDB's conditional writes are atomic per item (transactions per item set).
"""
from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord
from prhub.cloud.publications import better, planned_at
from prhub.cloud.results import Result
from prhub.cloud.runs import Progress, Run
from prhub.core.config import RepoConfig, Settings, WatchList
from prhub.core.history import History
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period, format_timestamp
from prhub.flow.deps import Deps
from prhub.model.scorers import ModelSettings, Scorers
from prhub.sources.source import Source, SourceCache, open_source

SETTINGS = Settings(runs_table="runs", results_table="results", cache_table="cache",
                    idempotency_table="idempotency", score_queue_url="memory://score",
                    report_queue_url="memory://report", site_bucket="site", pages_queue_url="memory://pages")


class MemoryTables:
    """The tables every in-memory part shares (prhub.cloud.tables.Tables's counterpart): runs, results, what each
    run's latest publication included, the kept judgements, and one lock over them all."""

    def __init__(self) -> None:
        self.runs: dict[str, Run] = {}
        self.result_items: dict[tuple[str, int], Result] = {}
        self.published: dict[str, int] = {}  # run id -> results its latest publication included
        self.kept: dict[tuple[str, str, int], Judgement] = {}  # (repo lower-case, source, PR) -> judgement
        self._lock = threading.Lock()


class MemoryRuns(MemoryTables):
    """prhub.flow.ports.Runs (prhub.cloud.runs.DynamoRuns) on dicts."""

    def create_run(self, run_id: str, config: RepoConfig, period: Period, source: str, refs: list[PullRef],
                   now: int, created_at: str, notes: list[str] | None = None, history: History | None = None,
                   learned: dict[str, Any] | None = None, judgements: list[Judgement] | None = None) -> bool:
        with self._lock:
            if run_id in self.runs and self.runs[run_id].status != "failed":
                return False
            self.runs[run_id] = Run(run_id, config.repo, period, config, source, len(refs), list(refs),
                                    history or History([], {}, format_timestamp(period.start_utc)),
                                    created_at=created_at, updated_at=now, notes=list(notes or []), learned=learned,
                                    judgements=list(judgements or []), fanned=0)
            return True

    def mark_fanned(self, run_id: str, count: int) -> None:
        with self._lock:
            self.runs[run_id].fanned = count

    def fail_run(self, run_id: str, config: RepoConfig, period: Period, source: str, error: str, now: int,
                 created_at: str) -> bool:
        with self._lock:
            if run_id in self.runs and self.runs[run_id].status != "failed":
                return False
            self.runs[run_id] = Run(run_id, config.repo, period, config, source, 0, [],
                                    History([], {}, format_timestamp(period.start_utc)), status="failed",
                                    created_at=created_at, updated_at=now, notes=[error[:1000]])
            return True

    def get_run(self, run_id: str, consistent: bool = True) -> Run | None:
        with self._lock:
            run = self.runs.get(run_id)
            return copy.deepcopy(run) if run else None

    def progress(self, run_id: str) -> Progress | None:
        with self._lock:
            run = self.runs.get(run_id)
            if run is None:
                return None
            return Progress(run.done, run.failed, run.expected, run.tokens_used, run.report_requested,
                            run.revision, run.revision_requested, self.published.get(run_id, 0))

    def open_runs(self) -> Iterator[Run]:
        with self._lock:
            runs = [copy.deepcopy(r) for r in self.runs.values()
                    if r.status not in ("reported", "failed") or r.revision_requested > r.revision]
        yield from runs

    def runs_of(self, repo: str) -> Iterator[Run]:
        with self._lock:
            runs = [copy.deepcopy(r) for r in self.runs.values() if r.repo.lower() == repo.lower()]
        yield from runs

    def defer(self, run_id: str, until: int) -> None:
        with self._lock:
            run = self.runs.get(run_id)
            if run is not None:
                run.waiting_until = max(run.waiting_until, until)

    def claim_report(self, run_id: str, now: int) -> bool:
        with self._lock:
            run = self.runs.get(run_id)
            if run is None or run.report_requested is not None:
                return False
            run.report_requested = now
            return True


class MemoryPublications(MemoryTables):
    """prhub.flow.ports.Publications (prhub.cloud.publications.DynamoPublications) on the runs' dict."""

    def claim_revision(self, run_id: str, revision: int, now: int) -> bool:
        with self._lock:
            run = self.runs.get(run_id)
            if (run is None or run.status != "reported" or run.revision != revision - 1
                    or run.revision_requested >= revision):
                return False
            run.revision_requested = revision
            return True

    def superseding(self, folder: str, run: Run, results: int) -> str | None:
        with self._lock:  # the store's ReportKeyIndex query: runs published at the folder, not superseded themselves
            for other in self.runs.values():
                if (other.run_id != run.run_id and other.status == "reported" and other.report_key == folder
                        and not other.superseded_by
                        and better(other.created_at, self.published.get(other.run_id, 0), other.expected,
                                   planned_at(run, 0), results, run.expected)):
                    return other.run_id
            return None

    def mark_reported(self, run_id: str, report_key: str, reported_at: str, now: int, revision: int = 1,
                      results: int = 0, pending: list[int] | None = None, superseded_by: str = "") -> bool:
        with self._lock:
            run = self.runs[run_id]
            if run.revision >= revision:
                return False
            run.status, run.report_key, run.reported_at, run.updated_at = "reported", report_key, reported_at, now
            run.revision, run.published_pending = revision, sorted(pending or [])
            run.superseded_by = superseded_by
            self.published[run_id] = results
            return True


class MemoryBudget(MemoryTables):
    """prhub.flow.ports.TokenBudget (prhub.cloud.budget.DynamoBudget): the runs' tokens_used counters."""

    def reserve_tokens(self, run_id: str, tokens: int, limit: int) -> bool:
        with self._lock:  # the store's conditional ADD: tokens_used <= limit - tokens, on an existing run
            run = self.runs.get(run_id)
            if run is None or tokens > limit or run.tokens_used > limit - tokens:
                return False
            run.tokens_used += tokens
            return True

    def spend_tokens(self, run_id: str, tokens: int) -> None:
        with self._lock:
            if run_id in self.runs:
                self.runs[run_id].tokens_used += tokens


class MemoryResults(MemoryTables):
    """prhub.flow.ports.Results (prhub.cloud.results.DynamoResults) on dicts, each counted on its run."""

    def _put_once(self, run_id: str, result: Result, now: int, tokens: int = 0) -> bool:
        with self._lock:
            run = self.runs.get(run_id)
            if run is None or (run_id, result.number) in self.result_items:
                return False  # the transaction's conditions: the run exists, the result does not
            self.result_items[(run_id, result.number)] = result
            if result.status == "scored":
                run.done += 1
            else:
                run.failed += 1
            run.updated_at = now
            run.tokens_used += tokens  # settled in the same transaction in the DynamoDB store
            return True

    def put_result(self, run_id: str, scored: ScoredPR, now: int, cached: bool = False, tokens: int = 0) -> bool:
        # Stored as the DynamoDB store packs it (JSON), so a result that would not survive the trip fails here too.
        stored = ScoredPR.from_dict(json.loads(json.dumps(scored.to_dict())))
        return self._put_once(run_id, Result(scored.number, "scored", stored, cached=cached), now, tokens)

    def put_results(self, results: Sequence[tuple[str, ScoredPR, bool, int]], now: int) -> list[bool]:
        return [self.put_result(run_id, scored, now, cached, tokens) for run_id, scored, cached, tokens in results]

    def put_failure(self, run_id: str, number: int, reason: str, now: int) -> bool:
        return self._put_once(run_id, Result(number, "failed", None, reason[:1000]), now)

    def results(self, run_id: str) -> list[Result]:
        with self._lock:
            return [copy.deepcopy(r) for (rid, _), r in sorted(self.result_items.items()) if rid == run_id]


class MemoryJudgements(MemoryTables):
    """prhub.flow.ports.KeptJudgements (prhub.cloud.judgements.DynamoJudgements) on a dict."""

    def put_judgements(self, judgements: list[Judgement]) -> None:
        with self._lock:
            for j in judgements:
                self.kept[(j.repo.lower(), j.source, j.pr)] = j

    def forget_judgement(self, repo: str, pr: int, source: str) -> None:
        with self._lock:
            self.kept.pop((repo.lower(), source, pr), None)

    def judgements(self, repo: str) -> list[Judgement]:
        with self._lock:
            return [replace(j, repo=repo) for (r, _, _), j in sorted(self.kept.items()) if r == repo.lower()]


class MemoryStore(MemoryRuns, MemoryResults, MemoryBudget, MemoryPublications, MemoryJudgements):
    """prhub.flow.ports.RunStore (prhub.cloud.store.Store): every in-memory part on one set of tables."""


@dataclass
class Message:
    body: dict[str, Any]
    visible_at: float
    receives: int = 0
    id: str = ""


class MemoryQueue:
    """prhub.cloud.queue.Queue's interface: messages by queue URL, with delays and holds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.messages: dict[str, list[Message]] = {}
        self.held: list[tuple[str, str, float]] = []
        self._count = 0
        self._lock = threading.Lock()

    def send(self, queue_url: str, body: dict[str, Any], delay: float = 0) -> None:
        with self._lock:
            self._count += 1
            # JSON round trip: what SQS carries is text
            self.messages.setdefault(queue_url, []).append(
                Message(json.loads(json.dumps(body)), self.clock() + delay, id=f"m{self._count}"))

    def send_batch(self, queue_url: str, bodies: list[dict[str, Any]]) -> int:
        for body in bodies:
            self.send(queue_url, body)
        return len(bodies)

    def hold(self, queue_url: str, receipt_handle: str, seconds: float) -> None:
        with self._lock:
            self.held.append((queue_url, receipt_handle, seconds))

    def take(self, queue_url: str) -> list[Message]:
        """Every visible message of the queue, removed (received and deleted), each counted as one receive."""
        with self._lock:
            now = self.clock()
            pending = self.messages.get(queue_url, [])
            taken = [m for m in pending if m.visible_at <= now]
            self.messages[queue_url] = [m for m in pending if m.visible_at > now]
        for m in taken:
            m.receives += 1
        return taken

    def depth(self, queue_url: str) -> int:
        with self._lock:
            return len(self.messages.get(queue_url, []))


class MemoryCache:
    """prhub.cloud.cache.Cache on a dict; values go through JSON, as the DynamoDB cache's codec does."""

    def __init__(self) -> None:
        self.items: dict[str, str] = {}

    def get(self, key: str) -> Any | None:
        text = self.items.get(key)
        return None if text is None else json.loads(text)

    def first(self, keys: Sequence[str]) -> Any | None:
        return next((v for v in map(self.get, keys) if v is not None), None)

    def first_of_each(self, key_lists: Sequence[Sequence[str]]) -> list[Any | None]:
        return [self.first(keys) for keys in key_lists]

    def put(self, key: str, value: Any) -> None:
        self.items[key] = json.dumps(value, ensure_ascii=False)


@dataclass
class MemoryBucket:
    """prhub.site.publish.Bucket: objects by key, every put counted."""

    objects: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)
    puts: list[str] = field(default_factory=list)
    parsed: dict[str, tuple[bytes, Any]] = field(default_factory=dict)  # get_json's, by the body it parsed

    def put(self, key: str, body: bytes, content_type: str, cache_control: str) -> None:
        self.objects[key] = (bytes(body), content_type, cache_control)
        self.puts.append(key)

    def get(self, key: str) -> bytes | None:
        found = self.objects.get(key)
        return found[0] if found else None

    def get_json(self, key: str) -> Any | None:
        """As aws.S3Bucket.get_json: the same parsed document while the object is unchanged, so a caller that
        changed what it was given would be seen by the next."""
        found = self.get(key)
        if found is None:
            return None
        held = self.parsed.get(key)
        if held is None or held[0] is not found:
            held = self.parsed[key] = (found, json.loads(found))
        return held[1]

    def folders(self, prefix: str) -> Iterator[str]:
        """S3's ListObjectsV2 with a "/" delimiter: the distinct next path segments, in key order."""
        seen: list[str] = []
        for key in sorted(self.objects):
            if key.startswith(prefix) and "/" in key[len(prefix):]:
                folder = prefix + key[len(prefix):].split("/", 1)[0] + "/"
                if folder not in seen:
                    seen.append(folder)
        yield from seen


@dataclass
class MemoryCdn:
    """prhub.site.publish.Cdn: the invalidations asked for."""

    invalidations: list[list[str]] = field(default_factory=list)

    def invalidate(self, paths: list[str]) -> None:
        self.invalidations.append(list(paths))


class MemoryIdempotency(BasePersistenceLayer):
    """Powertools idempotency records in a dict, with the DynamoDB layer's put condition: a record can be
    written when absent, expired, or in progress past its in-progress expiry."""

    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, DataRecord] = {}
        self._lock = threading.Lock()

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._lock:
            if idempotency_key not in self.records:
                raise IdempotencyItemNotFoundError
            return self.records[idempotency_key]

    def _put_record(self, data_record: DataRecord) -> None:
        with self._lock:
            old = self.records.get(data_record.idempotency_key)
            now = datetime.now(UTC).timestamp()
            stale = old is not None and (
                (old.expiry_timestamp or 0) < now
                or (old.status == STATUS_CONSTANTS["INPROGRESS"] and old.in_progress_expiry_timestamp is not None
                    and old.in_progress_expiry_timestamp < now * 1000))
            if old is not None and not stale:
                raise IdempotencyItemAlreadyExistsError(old_data_record=old)
            self.records[data_record.idempotency_key] = data_record

    def _update_record(self, data_record: DataRecord) -> None:
        with self._lock:
            self.records[data_record.idempotency_key] = data_record

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._lock:
            self.records.pop(data_record.idempotency_key, None)


@dataclass
class MemoryStack:
    """The in-memory adapters of one stack, and the Deps that hands them to the services."""

    deps: Deps
    store: MemoryStore
    queue: MemoryQueue
    cache: MemoryCache
    bucket: MemoryBucket
    cdn: MemoryCdn
    idempotency: MemoryIdempotency


def memory_stack(watchlist: WatchList, sources: Callable[[str], Source] | None = None,
                 clock: Callable[[], datetime] | None = None) -> MemoryStack:
    """Deps on in-memory adapters: the engine scores (no model configured), exports are read from disk."""
    store, queue, cache, bucket, cdn = MemoryStore(), MemoryQueue(), MemoryCache(), MemoryBucket(), MemoryCdn()
    idempotency = MemoryIdempotency()
    deps = Deps(SETTINGS, store, queue, cache, bucket, cdn, watchlist=lambda: watchlist,
                sources=sources or SourceCache(open_source), scorers=Scorers(ModelSettings(), None),
                idempotency=lambda: idempotency)
    if clock is not None:
        deps = replace(deps, clock=clock)
    return MemoryStack(deps, store, queue, cache, bucket, cdn, idempotency)
