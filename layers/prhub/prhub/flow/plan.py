"""The plan service (PlanFunction): validate the event, list merged PRs, write the run, one message per PR.

A listing longer than one invocation can fetch is continued: when the time left falls below CONTINUE_WITHIN,
the plan keeps the PRs listed so far in the cache table (in chunks, under the run's id) and sends the rest as a
continuation to PlanQueue (`continue_listing`). The run is written only once its listing is complete, so its
`expected` is the whole listing, each PR once (docs/github.md, "Paging a range longer than one plan
invocation").

A scheduled plan covers every watched repository, and one repository's failure is its own (docs/reliability.md):
when GitHub cannot answer now (SourceUnavailable: 5xx, timeouts, network faults; RetryLater: a rate limit) that
repository alone is sent to PlanQueue to be planned again (`{"plan": request}`), whose redrive ends in PlanDLQ;
when asking again cannot help (a bad token, a repository that does not exist, an export that does not cover the
week) it is recorded as a failed run and counted (PlansFailed, which PlansFailedAlarm watches). The others are
planned either way, and the answer is not `ok`.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics, tracing
from prhub.cloud.runs import FAILED, run_id
from prhub.core.config import RepoConfig, WatchList, check_repo
from prhub.core.errors import EventRefused, InputError, RetryLater, SourceError, SourceUnavailable
from prhub.core.history import History
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period, format_timestamp, parse_timestamp, zone
from prhub.core.text import prs_counted
from prhub.flow import judgements
from prhub.flow.deps import Deps
from prhub.flow.messages import ReportMessage, json_object
from prhub.flow.records import dropped
from prhub.sources import orgs, scope
from prhub.sources.judgements import from_changelog, read_lines, watched
from prhub.sources.source import Deadline, Source, TimedSource

logger = Logger(service="prhub", child=True)

DIRECT_KEYS = {"repo", "slice", "since", "until", "tz", "lang", "source", "scorer", "retry_model", "judgements"}
# What EventBridge (Scheduler) puts in an event; anything else without a repo is a malformed request.
SCHEDULE_KEYS = {"version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"}
CLOCK_SKEW = timedelta(minutes=5)
MAX_EVENT_AGE = timedelta(days=14)
# Seconds an invocation keeps, past its listing, for the history (a few dozen GitHub queries for a year) and the
# fan-out (a year's 2,000 messages in tens): with less left, the listing goes on in a continuation.
CONTINUE_WITHIN = 90.0
CHUNK = 1000  # refs per cache item of a listing in progress (about 40 KB packed, far below an item's limit)
# Seconds before a repository GitHub could not answer is listed again (GitHub's incidents last minutes); SQS then
# redelivers a retry that fails again after PlanQueue's visibility timeout, and after three receives PlanDLQ.
RETRY_DELAY = 300.0
MAX_DELAY = 900.0  # SQS's longest message delay


@dataclass(frozen=True)
class PlanRequest:
    config: RepoConfig
    period: Period
    run_id: str
    judgements: tuple[Judgement, ...] = ()  # the event's (`prhub run --judgements FILE`), kept once checked

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "config": self.config.to_dict(), "period": self.period.to_dict(),
                **({"judgements": [j.to_dict() for j in self.judgements]} if self.judgements else {})}

    def body(self) -> dict[str, Any]:
        """PlanQueue's body: this repository to plan again alone (PlanMessage.parse reads it back)."""
        return {"plan": self.to_dict()}

    @classmethod
    def from_dict(cls, data: Any) -> PlanRequest:
        """KeyError, TypeError, ValueError or InputError for data that is not a request."""
        if not isinstance(data["run_id"], str):
            raise TypeError("run_id must be a string")
        return cls(RepoConfig.from_dict(data["config"]), Period.from_dict(data["period"]), data["run_id"],
                   tuple(Judgement.from_dict(j) for j in data.get("judgements") or []))


def _event_judgements(repo: str, value: Any) -> tuple[Judgement, ...]:
    """The event's `judgements`: [{"pr": N, "verdict": "key"|"minor"}, ...], as a --judgements file's lines."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError('judgements must be a list of {"pr": N, "verdict": "key"|"minor"}')
    return tuple(read_lines([json.dumps(v) for v in value], repo, "file", "the event's judgements"))


def _text(event: dict[str, Any], key: str) -> str | None:
    value = event.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{key} must be a string, got {type(value).__name__}")
    return value


def _check_source(spec: str) -> str:
    if spec != "github" and not (spec.startswith("jsonl:") and len(spec) > len("jsonl:")):
        raise InputError(f"unknown source {spec!r}: use github or jsonl:PATH")
    return spec


def is_direct(event: Any) -> bool:
    """A custom range asked for by a person ({"repo", "since", "until"}), not the weekly schedule."""
    return isinstance(event, dict) and bool(DIRECT_KEYS & set(event) - {"source"} or "repo" in event)


def is_scheduled(event: Any) -> bool:
    """The weekly schedule's event (EventBridge Scheduler sends {"time": ...}; the EventBridge shape has more)."""
    return isinstance(event, dict) and not is_direct(event) and set(event) <= SCHEDULE_KEYS


def parse_plan_event(event: Any, watchlist: Callable[[], WatchList], now: datetime) -> list[PlanRequest]:
    """Validate a plan event into run requests; raises InputError before anything is written."""
    if not isinstance(event, dict):
        raise InputError('event must be a JSON object: {"repo": "owner/name", "since": "YYYY-MM-DD", '
                          '"until": "YYYY-MM-DD"} or a schedule event')
    stamp = f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(4)}"
    if is_direct(event):
        unknown = set(event) - DIRECT_KEYS
        if unknown:
            raise InputError(f"unknown event keys: {', '.join(sorted(unknown))} "
                             f"(allowed: {', '.join(sorted(DIRECT_KEYS))})")
        repo = check_repo(event.get("repo"))
        since, until = _text(event, "since"), _text(event, "until")
        if not since or not until:
            raise InputError("since and until are required, as dates YYYY-MM-DD (both inclusive)")
        source = _text(event, "source")
        config = watchlist().get(repo, _text(event, "slice") or "").with_overrides(
            tz=_text(event, "tz"), language=_text(event, "lang"), scorer=_text(event, "scorer"),
            source=_check_source(source) if source is not None else None)
        retry = event.get("retry_model", False)
        if not isinstance(retry, bool):
            raise InputError(f"retry_model must be true or false, got {str(retry)[:20]!r}")
        if retry:  # the model is asked again for PRs the engine scored in its place before
            config = replace(config, llm=replace(config.llm, retry_model=True))
        period = Period.parse(since, until, config.tz)
        today = now.astimezone(zone(config.tz)).date()
        if period.since > today:
            raise InputError(f"the range {period.since} to {period.until} has not begun (today is {today} in "
                             f"{config.tz}): nothing can have been merged in it")
        given = _event_judgements(config.repo, event.get("judgements"))
        return [PlanRequest(config, period, run_id(config, period, stamp), given)]
    unknown = set(event) - SCHEDULE_KEYS
    if unknown:
        raise InputError(f"unknown event keys: {', '.join(sorted(unknown))}; a custom range needs "
                         '{"repo": "owner/name", "since": "YYYY-MM-DD", "until": "YYYY-MM-DD"}')
    moment = _schedule_time(event, now)
    # One weekly run per repository and week: a redelivered or retried schedule event names the same
    # run, and the conditional put skips it (Scheduler delivers at least once).
    out = []
    for config in watchlist().repos:
        period = Period.last_complete_week(moment, config.tz)
        if period.end_utc > now:
            raise EventRefused(f"schedule event time {format_timestamp(moment)} names the week {period.since} to "
                               f"{period.until}, which has not ended in {config.tz}")
        out.append(PlanRequest(config, period, run_id(config, period, "weekly")))
    return out


def _schedule_time(event: dict[str, Any], now: datetime) -> datetime:
    """The event's time, checked against the clock: not in the future (beyond CLOCK_SKEW), not older than
    MAX_EVENT_AGE (room for Lambda's async retries and a DLQ redrive). A refused event writes nothing, so it
    cannot take the run id of the real run that comes later."""
    if "time" not in event:
        return now
    try:
        moment = parse_timestamp(str(event["time"]))
    except ValueError:
        raise EventRefused(f"schedule event time is not a timestamp: {str(event['time'])[:100]!r}") from None
    if moment > now + CLOCK_SKEW:
        raise EventRefused(f"schedule event time {format_timestamp(moment)} is in the future "
                           f"(now {format_timestamp(now)})")
    if moment < now - MAX_EVENT_AGE:
        raise EventRefused(f"schedule event time {format_timestamp(moment)} is more than "
                           f"{MAX_EVENT_AGE.days} days old (now {format_timestamp(now)})")
    return moment


def excluded_note(config: RepoConfig, n: int) -> str:
    logins = ", ".join(config.exclude_authors)
    if config.language == "zh":
        return f"按配置排除了 {n} 个 PR（作者：{logins}）。"
    return prs_counted(f"{n} PR(s) left out by configuration (authors: {logins}).")


def plan(event: Any, deps: Deps) -> list[dict[str, Any]]:
    """Plan one run per requested repository; returns what was planned."""
    # The schedule reports every watched repository, the `org`'s too (listed on GitHub, cached); a custom
    # range names its repository, whose settings need no listing.
    watchlist = (lambda: orgs.watched(deps.watchlist(), deps.sources, deps.cache)) if is_scheduled(event) \
        else deps.watchlist
    requests = parse_plan_event(event, watchlist, deps.clock())
    if not is_scheduled(event):
        return [_plan_one(req, deps) for req in requests]  # a person's range: its error is the answer
    return [_plan_scheduled(req, deps) for req in requests]


def transient(exc: Exception) -> bool:
    """Asking again later may succeed: GitHub's 5xx, timeouts and network faults, or its rate limit."""
    return isinstance(exc, SourceUnavailable | RetryLater)


def _plan_scheduled(req: PlanRequest, deps: Deps) -> dict[str, Any]:
    """One watched repository of the schedule; its failure is its own, and the others are planned."""
    try:
        return _plan_one(req, deps)
    except (SourceError, InputError, RetryLater) as exc:  # InputError: an export that does not cover the week
        if transient(exc) and deps.settings.plan_queue_url:
            return _retry(req, exc, deps)
        return _failed(req, exc, deps)
    except Exception as exc:  # noqa: BLE001 - anything else (a queue's error, a bug) is this repository's alone
        return _broke(req, exc, deps)


def _named(req: PlanRequest) -> dict[str, Any]:
    part = {"slice": req.config.slice} if req.config.slice else {}
    return {"run_id": req.run_id, "repo": req.config.repo, **part, "period": req.period.to_dict()}


def _retry(req: PlanRequest, exc: Exception, deps: Deps) -> dict[str, Any]:
    """Plan this repository alone again later, through PlanQueue (a retry of the whole event would list the
    others again)."""
    wait = max(RETRY_DELAY, exc.retry_after if isinstance(exc, RetryLater) else 0.0)
    deps.queue.send(deps.settings.plan_queue_url, req.body(), delay=min(MAX_DELAY, wait))
    summary = {**_named(req), "error": str(exc), "retrying": True}
    logger.warning("repository planned again later", extra=summary)
    return summary


def _broke(req: PlanRequest, exc: Exception, deps: Deps) -> dict[str, Any]:
    """A repository whose plan raised what no rule expects (SQS refusing its messages, a bug), maybe after its run
    was written: counted as a failed plan (PlansFailed) and planned again alone through PlanQueue, whose retry
    hands on what this one did not (_planned_before); the other repositories are planned either way."""
    logger.exception("repository plan failed", extra={**_named(req), "error": str(exc)})
    metrics.count("PlansFailed")
    summary = {**_named(req), "error": f"{type(exc).__name__}: {exc}"[:1000], "failed": True}
    if deps.settings.plan_queue_url:
        try:
            deps.queue.send(deps.settings.plan_queue_url, req.body(), delay=RETRY_DELAY)
            summary["retrying"] = True
        except Exception:  # noqa: BLE001 - the sweep reports a run left part-way, and counts it (flow/publish.py)
            logger.exception("repository plan not queued again", extra=_named(req))
    return summary


def _failed(req: PlanRequest, exc: Exception, deps: Deps) -> dict[str, Any]:
    """Record the run as failed (asking again cannot help), counted for PlansFailedAlarm."""
    now = deps.clock()
    if not deps.store.fail_run(req.run_id, req.config, req.period, req.config.source, str(exc),
                               int(now.timestamp()), format_timestamp(now)):
        # A redelivered event meeting a fault after its first delivery planned the run: nothing is lost.
        logger.info("run already planned", extra={"run_id": req.run_id, "error": str(exc)})
        return {**_named(req), "duplicate": True}
    metrics.count("PlansFailed")
    summary = {**_named(req), "error": str(exc), "failed": True}
    logger.error("repository cannot be planned", extra=summary)
    return summary


@dataclass(frozen=True)
class Continuation:
    """Where a listing stopped: its request, the source's resume token, how many chunks of refs are kept and
    the notes the first invocation made. Plain JSON on PlanQueue."""

    request: PlanRequest
    resume: dict[str, Any] | None
    chunks: int
    notes: list[str]

    def body(self) -> dict[str, Any]:
        """PlanQueue's body: the listing to carry on (PlanMessage.parse reads it back)."""
        return {"continue": self.request.to_dict(), "resume": self.resume, "chunks": self.chunks,
                "notes": self.notes}

    @classmethod
    def from_dict(cls, body: Any) -> Continuation:
        """The message's continuation; InputError for a body that is not one (it can never succeed)."""
        try:
            resume, chunks = body["resume"], int(body["chunks"])
            if resume is not None and not isinstance(resume, dict):
                raise TypeError("resume must be an object")
            return cls(PlanRequest.from_dict(body["continue"]), resume, chunks,
                       [str(n) for n in body.get("notes") or []])
        except (KeyError, TypeError, ValueError, InputError) as exc:
            raise InputError(f"not a plan continuation: {type(exc).__name__}: {str(exc)[:200]}") from None


def _chunk_key(run_id: str, index: int) -> str:
    return f"listing#{run_id}#{index}"


class PlanMessage:
    """PlanQueue's bodies, parsed once where PlanFunction takes its records (continue_listing): a scheduled
    repository to plan again alone (PlanRequest.body) or a listing to carry on (Continuation.body)."""

    @staticmethod
    def parse(body: str | None) -> PlanRequest | Continuation:
        """The body's request or continuation; InputError for any other body (it can never succeed)."""
        data = json_object(body)
        if "plan" not in data:
            return Continuation.from_dict(data)
        try:
            return PlanRequest.from_dict(data["plan"])
        except (KeyError, TypeError, ValueError, InputError) as exc:
            raise InputError(f"not a plan request: {type(exc).__name__}: {str(exc)[:200]}") from None


def continue_listing(event: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """PlanQueue's records (BatchSize 1): each plans a repository again or carries a listing on from where the
    last invocation stopped. A body that can never succeed is acknowledged, logged and counted
    (MessagesDropped); a permanent failure is a failed run (PlansFailed); a transient one, or any other, is
    retried, then PlanDLQ."""
    failures = []
    for record in event.get("Records") or []:
        message_id = record.get("messageId", "")
        try:
            job = PlanMessage.parse(record.get("body"))
        except InputError as exc:
            dropped("PlanFunction", message_id, str(exc))
            continue
        try:
            _plan_one(job, deps)
        except (SourceError, InputError, RetryLater) as exc:
            if transient(exc):
                logger.warning("plan retried later", extra={"message_id": message_id, "error": str(exc)})
                failures.append({"itemIdentifier": message_id})
            else:
                _failed(job if isinstance(job, PlanRequest) else job.request, exc, deps)
        except Exception:
            logger.exception("plan continuation failed", extra={"message_id": message_id})
            failures.append({"itemIdentifier": message_id})
    return {"batchItemFailures": failures}


@tracing.traced("plan listing")  # the source's listing pages (GitHub's requests are subsegments of it)
def _listing(source: Source, job: Continuation, left: Deadline | None,
             deps: Deps) -> list[PullRef] | dict[str, Any]:
    """The complete listing (the chunks earlier invocations kept, then the pages left), each PR once; or, when
    the time `left` runs short first (at least one page is always listed), the continuation sent in its place."""
    refs: list[PullRef] = []
    resume, delay = job.resume, 0.0
    try:
        for page in source.list_pages(job.request.config.repo, job.request.period, job.resume):
            refs += page.refs
            resume = page.resume
            if resume is not None and left is not None and left() < CONTINUE_WITHIN:
                break
    except RetryLater as exc:  # GitHub's budget is spent: carry on once it is reset
        if left is None:
            raise
        delay = exc.retry_after
    if resume is None and not delay:
        kept = []
        for index in range(job.chunks):
            chunk = deps.cache.get(_chunk_key(job.request.run_id, index))
            if chunk is None:
                raise SourceError(f"the listing of run {job.request.run_id} lost its part {index}")
            kept += [PullRef.from_dict(r) for r in chunk]
        # A page listed twice (a redelivered continuation, GitHub's results shifting) counts once.
        unique = {r.number: r for r in [*kept, *refs]}
        return sorted(unique.values(), key=lambda r: (r.merged_at, r.number))
    chunks = job.chunks
    for start in range(0, len(refs), CHUNK):
        deps.cache.put(_chunk_key(job.request.run_id, chunks), [r.to_dict() for r in refs[start:start + CHUNK]])
        chunks += 1
    after = Continuation(job.request, resume, chunks, job.notes)
    deps.queue.send(deps.settings.plan_queue_url, after.body(), delay=delay)
    req = job.request
    summary = {"run_id": req.run_id, "repo": req.config.repo, "period": req.period.to_dict(), "continued": True,
               "listed": len(refs), "chunks": chunks}
    logger.info("listing continued", extra=summary)
    return summary


def _plan_one(asked: PlanRequest | Continuation, deps: Deps) -> dict[str, Any]:
    req = asked if isinstance(asked, PlanRequest) else asked.request
    config, period = req.config, req.period
    left = deps.deadline() if deps.settings.plan_queue_url else None  # no PlanQueue: list it all here
    # The source outlives the invocation (cached per process): its calls get this invocation's time left, so a
    # rate-limit wait that would outlast it raises RetryLater instead.
    source = TimedSource(deps.sources(_check_source(config.source)), left)
    # A new request's notes come first: they refuse what the source cannot serve.
    job = asked if isinstance(asked, Continuation) else Continuation(
        req, None, 0, source.notes(config.repo, period, config.language))
    listed = _listing(source, job, left, deps)
    if isinstance(listed, dict):
        return listed
    notes = job.notes
    refs = [r for r in listed if not config.excludes(r.author)]  # exclude_authors: left out entirely
    if len(refs) < len(listed):
        notes = [*notes, excluded_note(config, len(listed) - len(refs))]
    refs = scope.covered(source, config, refs)  # paths: only the PRs touching them
    # Trends, first-time contributors and revert chains come from the repository's own record, never from
    # whatever runs a state holds: the same command gives the same report. It is narrowed as the listing is.
    history = _history(source, config, period, {r.author for r in refs})
    # The repository's own conventions (its minor markers, how it declares types), from its titles: the run's
    # config carries them to the score workers, and into the score cache's key.
    from prhub.engine import conventions

    config = replace(config, conventions=conventions.learn(
        config.conventions, [*(str(e.get("title", "")) for e in history.earlier), *(r.title for r in refs)]))
    # What people say of PRs is checked against the repository's record. A judgement file grows by appending
    # corrections: the last line of a PR counts, and one naming a PR the repository has no record of (a typo) is
    # left out; both are warnings, never a failed run. The event's are kept for later weeks; the watch list's are
    # read again each time.
    given, repeated = judgements.dedupe(req.judgements)
    in_watchlist, repeated_there = judgements.dedupe(watched(config, deps.settings))
    unknown = judgements.unknown_prs([*given, *in_watchlist], config, source,
                                     {r.number for r in refs} | {int(e["number"]) for e in history.earlier})
    given = [j for j in given if j.pr not in unknown]
    in_watchlist = [j for j in in_watchlist if j.pr not in unknown]
    said_of = [judgements.duplicates_warning(repeated, "the judgements file"),
               judgements.duplicates_warning(repeated_there, "the watch list's judgements"),
               judgements.unknown_warning(config.repo, unknown)]
    if given:
        deps.store.put_judgements(given)
    # Read once a run: the CHANGELOG (one request to the default branch) and the watch list go with the run item to
    # its report; the table (earlier weeks' files, labels the score workers saw, corrections) is read again there.
    read = [*from_changelog(config, lambda: source), *in_watchlist]
    said = judgements.gather(config, lambda: source, deps.store, deps.settings, read)
    now = deps.clock()
    summary = {"run_id": req.run_id, "repo": config.repo, **({"slice": config.slice} if config.slice else {}),
               "period": period.to_dict(), "expected": len(refs)}
    warnings = source.warnings(config.repo, period)  # for the person who asked (the CLI prints them on stderr)
    if budget := deps.scorers.budget_warning(config):
        warnings = [*warnings, budget]
    warnings = [*warnings, *(w for w in said_of if w)]
    if warnings:
        summary["warnings"] = warnings
    # The engine's learner loads with the plan that learns, not at the handler's import.
    from prhub.flow import ranking

    # Every judgement of the repository, earlier weeks' with it; ranking.learned leaves out the verdicts of this
    # period's own PRs (none is evidence for its own score). None at all: no weights, the rules alone.
    taught = ranking.learned(source, config, period, refs, judgements=said)
    notes = [*notes, *ranking.note(taught, config.language)]
    if not deps.store.create_run(req.run_id, config, period, config.source, refs, int(now.timestamp()),
                                 format_timestamp(now), notes=notes, history=history, learned=taught,
                                 judgements=read):
        return _planned_before(req, source, summary, deps)
    metrics.count("RunsPlanned")
    _fan_out(req.run_id, config, refs, 0, taught, source, deps)
    logger.info("run planned", extra=summary)
    return summary


def _planned_before(req: PlanRequest, source: Source, summary: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """A run with this id exists: a redelivered or retried event. When its plan stopped before handing on every
    PR (a timeout, a queue's error, a crash after the run was written), this retry hands on the rest, from where
    the run says it got to; otherwise it is a duplicate and changes nothing."""
    run = deps.store.get_run(req.run_id)
    if run is None or run.status == FAILED or run.fanned_out:
        logger.info("run already planned", extra={"run_id": req.run_id})
        return {**summary, "duplicate": True}
    start = run.fanned or 0
    # The run's own listing, not this retry's: the PRs it expects are the ones handed on.
    sent = _fan_out(run.run_id, run.config, run.listing, start, run.learned, source, deps)
    summary = {**summary, "expected": run.expected, "resumed_from": start, "sent": sent}
    logger.warning("run planned part-way before: the rest of its PRs handed on", extra=summary)
    return summary


FAN_OUT_CHUNK = 100  # PRs handed on between two records of how far the fan-out got (Run.fanned)


def _fan_out(run_id: str, config: RepoConfig, listing: list[PullRef], start: int, learned: dict[str, Any] | None,
             source: Source, deps: Deps) -> int:
    """Hand on the run's PRs from `start` (its listing's order): one message per PR left to score, the PRs whose
    result the cache holds for their listed head stored here (a range run again, a year after its weeks); when
    none is left to score the report is asked for already. How far it got is kept on the run as it goes
    (Store.mark_fanned), so a plan stopped part-way is finished by its retry (_planned_before). Returns how many
    messages it sent."""
    from prhub.flow import score  # with the run planned, not at the handler's import

    left = listing[start:]
    cached = score.store_cached(run_id, config, left, learned, source, deps)
    sent, marked = 0, start
    for at in range(0, len(left), FAN_OUT_CHUNK):
        if chunk := [r for r in left[at:at + FAN_OUT_CHUNK] if r.number not in cached]:
            deps.queue.send_batch(deps.settings.score_queue_url,
                                  [score.ScoreMessage(run_id, r.number, r).body() for r in chunk])
            sent += len(chunk)
            marked = start + min(len(left), at + FAN_OUT_CHUNK)
            deps.store.mark_fanned(run_id, marked)
    if marked < len(listing):
        deps.store.mark_fanned(run_id, len(listing))
    if not listing and deps.store.claim_report(run_id, deps.now()):
        # Nothing to score: the report (which says so) is requested right away.
        deps.queue.send(deps.settings.report_queue_url, ReportMessage(run_id).body())
    return sent


def _history(source: Source, config: RepoConfig, period: Period, authors: set[str]) -> History:
    """The source's history, its entries with what the conversation of each earlier PR says where the source read
    one (engine.reviews.earlier_facts: the timing of the weeks before, follow-ups still open), so the report can
    compare review timing with them and mark a follow-up done in a later week."""
    seen: dict[int, PullRequest] = {}

    def tag(pr: PullRequest) -> list[str]:
        seen[pr.number] = pr
        return _modules_for(pr, config)

    history = scope.history(source, config, period, authors, tag)
    if not any(p.has_conversation for p in seen.values()):
        return history  # no conversation read (the shared exports, GraphQL's light listing): nothing to add
    from prhub.engine import reviews  # loads only when there is a conversation to read

    facts = reviews.earlier_facts(seen.values(), config)
    return replace(history, earlier=[{**e, **facts.get(int(e["number"]), {})} for e in history.earlier])


def _modules_for(pr: PullRequest, config: RepoConfig) -> list[str]:
    """An earlier PR's modules as the engine tags them, so trends compare like with like."""
    from prhub.engine.scoring import modules_for  # the engine's rules load only when a source hands over full PRs

    return modules_for(pr, config)
