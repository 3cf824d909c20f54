"""The score service (ScoreFunction): one SQS record -> the PR scored (cached), stored once, completion checked.

Light on purpose: it imports no analysis, rendering, template, idempotency or
model code (prhub.model.scorers loads the model's only when a run asks for it).

A PR handed back for later (a rate limit; too little of the invocation left for a model call) is sent again with
a delay and recorded on its run as waiting, so the sweep does not take the run for dead. A result stored after
the run's report was published asks for the report's next revision (prhub.flow.revision).
"""
from __future__ import annotations

import hashlib
import json
import math
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import aws, metrics
from prhub.cloud.budget import RunBudget
from prhub.cloud.runs import Run
from prhub.core.errors import HandBack, InputError, RetryLater
from prhub.core.models import PullRef, PullRequest, ScoredPR
from prhub.flow.deps import Deps
from prhub.flow.judgements import keep_labels
from prhub.flow.messages import ReportMessage
from prhub.flow.records import dropped
from prhub.flow.revision import request_revision
from prhub.sources.source import Deadline, Source, TimedSource

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from prhub.core.config import RepoConfig
    from prhub.engine.scoring import Budget, Scorer

logger = Logger(service="prhub", child=True)
MAX_CACHED_RUNS = 64
FALLBACK_KIND = "fallback"  # the cache key's kind for the engine's result standing in for the model's
MAX_HANDBACKS = 3  # a PR handed back this often (no time for a call, a lasting rate limit) is scored by the engine


class NoTimeForModel(HandBack):
    """Less of the invocation is left than one model call may take (its timeout): the PR goes back to the queue."""

    def __init__(self, left: float, timeout: float) -> None:
        super().__init__(f"no time for a model call ({left:.0f} s left, llm.timeout {timeout:.0f} s)",
                         retry_after=0)


def score_batch(event: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """An SQS batch scored with up to deps.scorers.concurrency PRs at once when its runs ask the model (the engine
    alone stays sequential: one GitHub token's rate limit is shared by every worker). Answers Lambda's partial
    batch response: the records that failed, for SQS to deliver again."""
    raw = event.get("Records") if isinstance(event, dict) else None
    if not isinstance(raw, list) or not raw or not all(
            isinstance(r, dict) and r.get("messageId") and isinstance(r.get("body"), str) for r in raw):
        raise InputError("not an SQS event: ScoreFunction takes Records, each with a messageId and a body")
    # Powertools' data classes package loads every event type it has (about 10 ms): with the first batch, not at
    # the handler's import.
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    works = _scored_together([SQSRecord(r) for r in raw], deps)
    return {"batchItemFailures": [{"itemIdentifier": w.record.message_id} for w in works if w.error is not None]}


def score_record(record: SQSRecord, deps: Deps) -> dict[str, Any]:
    """One record's PR scored as a batch of one; what a batch would report as its failure is raised."""
    [work] = _scored_together([record], deps)
    if work.error is not None:
        raise work.error
    assert work.outcome is not None
    return work.outcome


@dataclass
class _Work:
    """One record of a batch on its way through _scored_together: what each step found, then its outcome (the
    answer score_record gives) or the error that makes it a batch item failure."""

    record: SQSRecord
    message: ScoreMessage
    now: int = 0
    run: Run | None = None
    pr: PullRequest | None = None
    scorer: Scorer | None = None
    keys: tuple[str, str] = ("", "")  # the scorer's cache key, the engine stand-in's
    deadline: Deadline | None = None
    budget: RunBudget | None = None
    scored: ScoredPR | None = None
    cached: bool = False
    stored: bool | None = None  # whether its result was stored: None until _store wrote it (or for none at all)
    outcome: dict[str, Any] | None = None
    error: Exception | None = None

    @property
    def wanted(self) -> list[str]:
        """The cache keys to read, the model's own result first."""
        assert self.run is not None and self.scorer is not None
        return looked_up(self.keys, self.scorer.kind, self.run.config)


def _scored_together(records: list[SQSRecord], deps: Deps) -> list[_Work]:
    """A batch's records scored step by step, each step's reads and writes made once for the batch: every PR
    loaded, one cache read for all, the misses scored, one transaction per run for the results, each run's
    completion checked once. A record's own failure ends only that record (_failed: handed back, recorded
    as failed, dropped, or raised for SQS to retry)."""
    works: list[_Work] = []
    for record in records:
        parsed = _parsed(record)
        if isinstance(parsed, InputError):
            works.append(_Work(record, NO_MESSAGE, outcome=_drop(record, str(parsed))))  # ended at once
        else:
            works.append(_Work(record, parsed))
    live = [w for w in works if w.outcome is None]
    _each(live, lambda w: _load(w, deps), deps)
    live = [w for w in live if w.outcome is None and w.error is None]
    if live:
        try:
            hits = deps.cache.first_of_each([w.wanted for w in live])
        except Exception as exc:  # a cache is an optimisation: one that cannot answer is a miss
            logger.warning("cache read failed", extra={"error": str(exc)})
            hits = [None] * len(live)
        for work, hit in zip(live, hits, strict=True):
            try:
                work.scored = cached_result(hit, work.message.number)
            except ValueError as exc:  # a miss: scored again, and the entry overwritten with the new result
                logger.warning("damaged score cache entry, the PR is scored again",
                               extra={"key": work.wanted[0], "error": str(exc)})
            work.cached = work.scored is not None
    _each(live, lambda w: _finish(w, deps), deps)
    _store(live, deps)
    # Completion read once per run and batch, not per record: the batch whose results complete the run still sees
    # it complete (a consistent read after its writes), and claim_report lets one caller win. Should this fail,
    # the batch's records with a result come back; they are duplicates then, and the check runs again.
    written = [w for w in live if w.stored is not None and w.error is None]
    for run_id in dict.fromkeys(w.message.run_id for w in written):
        mine = [w for w in written if w.message.run_id == run_id]
        try:
            _complete(run_id, deps, any(w.stored for w in mine))
        except Exception as exc:
            for work in mine:
                work.error = exc
    return works


def _each(works: list[_Work], step: Callable[[_Work], None], deps: Deps) -> None:
    """`step` for each work not yet ended, concurrently when a run of theirs asks for it (_width); an exception
    ends that work alone (_failed)."""
    clients = aws.thread_clients()

    def one(work: _Work) -> None:
        if work.outcome is not None or work.error is not None:
            return
        aws.adopt_clients(clients)  # the invocation's boto3 clients (same endpoint, same SQS hooks)
        try:
            step(work)
        except Exception as exc:
            _failed(work, exc, deps)

    width = _width([w.message for w in works], deps)
    if width <= 1 or len(works) <= 1:
        for work in works:
            one(work)
        return
    # A pool of this invocation's own: one shared by the process would queue concurrent invocations (the
    # local runner's workers are threads of one process) behind one another's calls.
    with ThreadPoolExecutor(max_workers=min(width, len(works)), thread_name_prefix="score") as pool:
        list(pool.map(one, works))


def _width(messages: list[ScoreMessage], deps: Deps) -> int:
    """How many of the batch's PRs may be scored at once: the most any of their runs allows."""
    width = 1
    for message in messages:
        try:
            run = _run_meta(message.run_id, deps)
        except Exception:  # _load meets it again and fails that record alone (_failed)
            continue
        width = max(width, deps.scorers.concurrency(run.config))
    return width


def _run_meta(run_id: str, deps: Deps) -> Run:
    """The run's fixed part (config, source, repo); kept per process since a batch holds many PRs of one run."""
    run = deps.runs.get(run_id)
    if run is None:
        run = deps.store.get_run(run_id, consistent=True)
        if run is None:
            raise InputError(f"run {run_id} does not exist (expired or never planned)")
        if len(deps.runs) >= MAX_CACHED_RUNS:
            deps.runs.clear()
        deps.runs[run_id] = run
    return run


def cache_key(repo: str, number: int, version: str, kind: str, model: str | None, prompt_version: str,
              settings: str) -> str:
    return f"{repo}#{number}#{version}#{kind}#{model or ''}#{prompt_version}#{settings}"


def cache_keys(config: RepoConfig, number: int, version: str, kind: str, model: str | None,
               prompt_version: str) -> tuple[str, str]:
    """The scorer's own cache key for the PR at `version` (its head: pr_version), and its engine stand-in's. The
    key ends with the digest of the settings the score reads (RepoConfig.scoring_fingerprint): a result scored
    under other settings (the watch list edited since, a slice with its own) is not this run's.

    The stand-in for the model (outage, budget spent, invalid answers) has a key of its own: under the model's it
    would stop a later run from asking the model; kept apart, a re-run reuses it as it is unless the run asks for
    the model again."""
    settings = config.scoring_fingerprint(model=kind != "heuristic")
    return (cache_key(config.repo, number, version, kind, model, prompt_version, settings),
            cache_key(config.repo, number, version, FALLBACK_KIND, model, prompt_version, settings))


def pr_version(pr: PullRequest) -> str:
    """What names the PR's state in its cache key: its head, else (an export with neither head nor merge commit)
    a digest of the PR as read, so a title or a file edited between runs is not served the older result."""
    if pr.head_sha:
        return pr.head_sha
    text = json.dumps(pr.to_export(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def looked_up(keys: tuple[str, str], kind: str, config: RepoConfig) -> list[str]:
    """Of `keys` (cache_keys), those a run reads, its scorer's own first: the stand-in's only for a model run that
    does not ask the model again (llm.retry_model)."""
    return list(keys) if kind != "heuristic" and not config.llm.retry_model else [keys[0]]


def cached_result(hit: Any, number: int) -> ScoredPR | None:
    """The score cache's value for PR `number` as its result: None when there is none; ValueError when it is
    damaged (a field missing or of the wrong type: ScoredPR.checked) or another PR's, which the caller takes for
    a miss: one bad entry costs its PR a new score, never its batch-mates' results or a place in the report."""
    if hit is None:
        return None
    scored = ScoredPR.checked(hit)
    if scored.number != number:
        raise ValueError(f"the entry is PR {scored.number}'s, not {number}'s")
    return scored


def store_cached(run_id: str, config: RepoConfig, refs: list[PullRef], learned: dict[str, Any] | None,
                 source: Source, deps: Deps) -> set[int]:
    """The PRs of a run just planned whose result the score cache holds for the head their listing gave, stored
    by the plan as their score worker would store a cache hit (the same keys, the same transaction and count),
    so a range run again (a year after its weeks) queues only what is left to score. Which were stored.

    Left to the queue: a PR whose listing gave no head (the source would have to ask), and every PR of a run
    whose results need the PR itself (labels that judge it: keep_labels; learned weights that re-rank it) or
    whose scorer hinges on a key secret the plan cannot read now (Scorers.told). Any failure here leaves the
    rest to the queue too: a stored result's message, were it sent, is a duplicate the worker recognises."""
    if not refs or config.key_labels or config.minor_labels or learned:
        return set()
    try:
        told = deps.scorers.told(config)  # the workers' scorer, named as their cache keys name it
        if told is None:
            return set()
        heads = {r.number: source.listed_head(config.repo, r.number) for r in refs}
        numbers = [n for n, head in heads.items() if head]
        if not numbers:
            return set()
        model, version = told
        kind = "heuristic" if model is None else "llm"
        hits = deps.cache.first_of_each([looked_up(cache_keys(config, n, heads[n], kind, model, version),
                                                   kind, config) for n in numbers])
        results = []
        for number, hit in zip(numbers, hits, strict=True):
            try:
                scored = cached_result(hit, number)
            except ValueError:  # damaged: left to its worker, which scores it again and says so (once)
                continue
            if scored is not None:
                scored.head_sha = heads[number]
                results.append((run_id, scored, True, 0))
        stored = deps.store.put_results(results, deps.now()) if results else []
    except Exception as exc:  # the score workers look the cache up again
        logger.warning("cached results not stored by the plan", extra={"run_id": run_id, "error": str(exc)})
        return set()
    done = {scored.number for (_, scored, _, _), ok in zip(results, stored, strict=True) if ok}
    if done:
        metrics.count("PrsScored", len(done))
        try:  # every PR cached: the report is asked for now, as the last worker would ask
            _complete(run_id, deps, True)
        except Exception as exc:  # the sweep reports a complete run nobody asked a report for
            logger.warning("report not requested by the plan", extra={"run_id": run_id, "error": str(exc)})
    return done


@dataclass(frozen=True)
class ScoreMessage:
    """One ScoreQueue message: a run's PR, and what its hand-backs so far carried (their count, their tokens)."""

    run_id: str
    number: int
    ref: PullRef
    handbacks: int = 0
    spent: tuple[int, int] = (0, 0)  # tokens (in, out) its calls cost before it was handed back
    raw: dict[str, Any] = field(default_factory=dict, compare=False)  # the body as received, sent again on deferral

    @classmethod
    def parse(cls, body: str) -> ScoreMessage:
        """The message in `body`; InputError for one that can never be scored (malformed)."""
        try:
            data = json.loads(body)
            return cls(str(data["run_id"]), int(data["number"]), PullRef.from_dict(data["ref"]),
                       _handbacks(data), _spent(data), data)
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"malformed score message: {exc!r}") from exc

    def body(self) -> dict[str, Any]:
        """The body its producer sends (the plan: one per PR to score)."""
        return {"run_id": self.run_id, "number": self.number, "ref": self.ref.to_dict(),
                **({"handed_back": self.handbacks} if self.handbacks else {}),
                **({"spent": list(self.spent)} if any(self.spent) else {})}

    def body_after(self, exc: RetryLater) -> dict[str, Any]:
        """The body sent again for later: as received, with a hand-back counted and what its calls cost added."""
        body = dict(self.raw)
        if isinstance(exc, HandBack):
            body["handed_back"] = self.handbacks + 1
            if any(exc.spent):  # what its calls cost so far: the run paid it, the PR's result will say so
                (before_in, before_out), (now_in, now_out) = self.spent, exc.spent
                body["spent"] = [before_in + now_in, before_out + now_out]
        return body


NO_MESSAGE = ScoreMessage("", 0, PullRef(0, "", "", datetime.fromtimestamp(0, UTC), ""))  # a malformed record's


def _parsed(record: SQSRecord) -> ScoreMessage | InputError:
    try:
        return ScoreMessage.parse(record.body)
    except InputError as exc:
        return exc


def _load(work: _Work, deps: Deps) -> None:
    """The work's run, PR (its labels kept), scorer and cache keys."""
    message = work.message
    work.now = deps.now()
    run = work.run = _run_meta(message.run_id, deps)
    work.deadline = deps.deadline()
    # The source outlives the invocation (cached per process): its call gets this invocation's time left, so a
    # rate-limit wait that would outlast the function hands the message back (RetryLater) instead.
    pr = work.pr = TimedSource(deps.sources(run.source), work.deadline).get(run.repo, message.ref)
    keep_labels(run.config, pr, deps.store)  # before the result: the report that result may ask for sees it
    scorer = work.scorer = deps.scorers.scorer(run.config, period=run.refs)
    work.keys = cache_keys(run.config, message.number, pr_version(pr), scorer.kind, scorer.model,
                           scorer.prompt_version)


def _finish(work: _Work, deps: Deps) -> None:
    """The work's result: the cache's (read for the batch), else scored now and cached; the run's learned weights
    applied, the tokens its hand-backs cost added."""
    run, pr, scorer, message = work.run, work.pr, work.scorer, work.message
    assert run is not None and pr is not None and scorer is not None
    budget = work.budget = run_budget(run, deps, scorer.model)
    scored = work.scored
    if scored is None:
        try:
            left = work.deadline() if work.deadline is not None and scorer.kind == "llm" else math.inf
            if left < run.config.llm.timeout:
                # A model call started now could run past the function's timeout (Lambda kills it mid-call,
                # the whole batch comes back): hand the PR to a fresh invocation instead.
                raise NoTimeForModel(left, run.config.llm.timeout)
            scored = scorer.score(pr, run.config, budget)
        except HandBack as exc:
            if message.handbacks < MAX_HANDBACKS:
                raise
            scored = _engine_instead(deps.scorers.engine(run.config), pr, run.config, budget,
                                     f"{exc} (handed back {message.handbacks} times)")
        key, standin = work.keys
        deps.cache.put(key if scored.scored_by == scorer.kind else standin, scored.to_dict())
    if run.learned:  # the repository's learned weights, after the cache: the cached result stays the rules'
        from prhub.engine import learning

        scored = learning.apply(scored, pr, run.config, learning.Learned.from_dict(run.learned))
    # A cache hit keeps the tokens it cost when paid: the report shows what it cost, cached or not (the run's
    # budget is charged only by this run's calls, through `budget`).
    scored.head_sha = pr.head_sha  # results cached before it was kept have none
    # Calls made before a hand-back were paid by this run too: the PR's tokens sum to the run's spending.
    scored.tokens_in += message.spent[0]
    scored.tokens_out += message.spent[1]
    work.scored = scored


def _store(works: list[_Work], deps: Deps) -> None:
    """The results written together (Store.put_results: one transaction per run), each with its calls'
    settlement; a duplicate stores nothing, so what its budget did not hand over is written on its own."""
    ready = [w for w in works if w.scored is not None and w.outcome is None and w.error is None]
    if not ready:
        return
    now = max(w.now for w in ready)
    try:
        stored = deps.store.put_results([(w.message.run_id, w.scored, w.cached, w.budget.unsettled if w.budget else 0)
                                         for w in ready if w.scored is not None], now)
    except Exception as exc:
        for work in ready:
            _failed(work, exc, deps)
        return
    for work, ok in zip(ready, stored, strict=True):
        try:
            if ok and work.budget is not None:
                work.budget.take()
            if work.budget is not None:
                work.budget.flush()
        except Exception as exc:
            _failed(work, exc, deps)
            continue
        metrics.count("PrsScored", int(ok))  # 0 for a duplicate delivery: counted once
        work.stored = ok
        work.outcome = {"run_id": work.message.run_id, "number": work.message.number, "stored": ok,
                        "cached": work.cached}


def _failed(work: _Work, exc: Exception, deps: Deps) -> None:
    """What a record's failure makes of it. Only a transient error makes it a batch item failure (SQS redelivers
    it, then ScoreDLQ). A message that can never succeed (no such run, a scorer that cannot work as configured)
    is acknowledged, its PR recorded as failed, logged and counted: retrying it would only fill the DLQ. A PR
    handed back (RetryLater) is sent again for later."""
    record, message = work.record, work.message
    run_id, number = message.run_id, message.number
    try:
        if work.budget is not None:
            work.budget.flush()  # what no write took: a failure on the way
        if isinstance(exc, RetryLater):  # checked first: a rate limit is never a failure, whatever the receives
            work.outcome = _defer(record, message, exc, deps)
            return
        permanent = isinstance(exc, InputError)
        if int(record.attributes.approximate_receive_count or 1) >= deps.settings.max_receive_count or permanent:
            # Count it as failed now so the run completes (a transient one's message still goes to ScoreDLQ).
            reason = f"{type(exc).__name__}: {exc}"
            stored = deps.store.put_failure(run_id, number, reason, deps.now())
            if stored:
                logger.warning("PR failed for good", extra={"run_id": run_id, "number": number, "reason": reason})
            _complete(run_id, deps, stored)
            if permanent:
                work.outcome = _drop(record, reason, run_id, number)
                return
        else:
            logger.warning("scoring failed, SQS will retry", extra={
                "run_id": run_id, "number": number, "error": str(exc),
                "trace": "".join(traceback.format_exception(exc, limit=3))})
    except Exception as again:  # recording the failure failed too: SQS retries the record
        exc = again
    logger.info("record failed", extra={"message_id": record.message_id, "error": f"{type(exc).__name__}"})
    work.error = exc


def _drop(record: SQSRecord, reason: str, run_id: str = "", number: int = 0) -> dict[str, Any]:
    """Acknowledge a message that can never succeed: logged and counted as every function's are (the DLQ alarm
    will not see it)."""
    dropped("ScoreFunction", record.message_id, reason, run_id=run_id, number=number)
    return {"run_id": run_id, "number": number, "stored": False, "cached": False, "dropped": reason[:500]}


def _defer(record: SQSRecord, message: ScoreMessage, exc: RetryLater, deps: Deps) -> dict[str, Any]:
    """Send a fresh copy of the message that becomes visible after the wait, and let this one succeed.

    Holding the message instead (ChangeMessageVisibility) would keep its receive count growing, so a PR rate
    limited on its last receives would go to ScoreDLQ, lost to the run. A fresh copy starts at one receive;
    a wait past SQS's 900 s delay ceiling just comes back, meets the limit again and is sent again.
    """
    url = deps.settings.score_queue_url
    delay = exc.retry_after + 1
    run_id, number = message.run_id, message.number
    try:
        deps.queue.send(url, message.body_after(exc), delay=delay)
    except Exception:
        # Could not send the copy: hold this one (its receive count grows, but nothing is lost now) and fail it.
        deps.queue.hold(url, record.receipt_handle, delay)
        _waiting(run_id, delay, deps)
        raise exc from None
    _waiting(run_id, delay, deps)
    metrics.count("PrsDeferred")
    logger.info("handed back, message sent again for later",
                extra={"run_id": run_id, "number": number, "delay": delay, "reason": str(exc)})
    return {"run_id": run_id, "number": number, "stored": False, "cached": False, "deferred": delay}


def _waiting(run_id: str, delay: float, deps: Deps) -> None:
    """The run waits for this PR (the sweep leaves it alone until then). Best effort: the message is already
    queued again, and were the run swept meanwhile, its late result makes a new revision of the report."""
    try:
        deps.store.defer(run_id, deps.now() + math.ceil(delay))
    except Exception as exc:
        logger.warning("could not record the wait on the run", extra={"run_id": run_id, "error": str(exc)})


def _handbacks(body: Any) -> int:
    try:
        return max(0, int(body.get("handed_back", 0)))
    except (AttributeError, TypeError, ValueError):
        return 0


def _spent(body: Any) -> tuple[int, int]:
    """Tokens (in, out) the PR's calls cost before it was handed back, carried in its message."""
    try:
        tokens_in, tokens_out = body.get("spent", (0, 0))
        return max(0, int(tokens_in)), max(0, int(tokens_out))
    except (AttributeError, TypeError, ValueError):
        return 0, 0


def run_budget(run: Run, deps: Deps, model: str | None) -> RunBudget:
    """The run's model budget, shared by every worker through the run item: the smaller of its token and money
    budgets at `model`'s price (Scorers.token_budget)."""
    limit, exhausted = deps.scorers.token_budget(run.config, model)
    return RunBudget(deps.store, run.run_id, limit, exhausted)


def _engine_instead(engine: Scorer, pr: PullRequest, config: RepoConfig, budget: Budget, reason: str) -> ScoredPR:
    """The engine's result in the model's place for a PR handed back too often (no time, a lasting rate limit),
    marked as prhub.model.answers.fallback marks a stand-in (its reason's prefix is what the report's notes count)
    without loading the model's code."""
    scored = engine.score(pr, config, budget)
    scored.note = reason
    scored.reasons.append(f"scored by the engine: {reason}")  # prhub.model.answers.FALLBACK
    metrics.count("ModelFallbacks")
    return scored


def _complete(run_id: str, deps: Deps, stored: bool) -> None:
    """The worker whose result completes the run asks for the report, exactly once; a result stored after the
    report was published asks for its next revision, exactly once."""
    progress = deps.store.progress(run_id)
    if progress is None:
        return
    if progress.revision >= 1:
        if stored:
            request_revision(run_id, progress, deps)
    elif progress.complete and progress.report_requested is None and deps.store.claim_report(run_id, deps.now()):
        deps.queue.send(deps.settings.report_queue_url, ReportMessage(run_id).body())
        logger.info("run complete, report requested", extra={"run_id": run_id})
