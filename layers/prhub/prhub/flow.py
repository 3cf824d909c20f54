"""The three services of the flow: plan, score, report (plus the sweep that finishes stuck runs).

Handlers build a `Deps` from the environment and call one service; tests and
the local runner hand in their own clients, source factory and clock.

    plan(event, deps)            validate, list merged PRs, write the run, fan out to ScoreQueue
    score_record(record, deps)   one SQS record: load, score (cached), store once, completion check
    report_once(run_id, deps)    idempotent: analyse, narrate, render, publish, mark reported
    sweep(older_than, deps)      report every run whose progress stopped (a worker died, a claim was lost)
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from prhub import compose, llm, site
from prhub.aws import client
from prhub.config import RepoConfig, Settings, WatchList, check_repo, load_watchlist
from prhub.errors import EventRefused, InputError, RetryLater, SourceError
from prhub.github import lambda_deadline
from prhub.models import PullRef
from prhub.period import Period, format_timestamp, parse_timestamp, zone
from prhub.queue import Queue
from prhub.render import render_all
from prhub.report import Scorer, Unscored
from prhub.sources import Source, open_source
from prhub.store import RunBudget, Store

logger = Logger(service="prhub", child=True)

DIRECT_KEYS = {"repo", "since", "until", "tz", "lang", "source", "scorer"}
# What EventBridge (Scheduler) puts in an event; anything else without a repo is a malformed request.
SCHEDULE_KEYS = {"version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"}
TREND_WEEKS = 4
REPORT_IDEMPOTENCY_SECONDS = 7 * 86_400
CLOCK_SKEW = timedelta(minutes=5)
MAX_EVENT_AGE = timedelta(days=14)


def utc_now() -> datetime:
    return datetime.now(UTC)


_sources: dict[tuple[str, ...], Source] = {}
_sources_lock = threading.Lock()
MAX_CACHED_SOURCES = 16
GITHUB_ENV = ("GITHUB_API_URL", "GITHUB_TOKEN", "GITHUB_TOKEN_SECRET")


def source_key(spec: str, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What a cached Source was built from: a file's path and mtime, or GitHub's URL and token settings.

    A changed environment or a rewritten export gets a new Source; the token is hashed so the key holds no secret.
    """
    env = os.environ if env is None else env
    if spec.startswith("jsonl:"):
        try:
            mtime = str(os.stat(spec[len("jsonl:"):]).st_mtime_ns)
        except OSError:
            mtime = "missing"  # open_source raises the readable error
        return (spec, mtime)
    values = [env.get(name, "") for name in GITHUB_ENV]
    values[1] = hashlib.sha256(values[1].encode()).hexdigest() if values[1] else ""
    return (spec, *values)


def cached_source(spec: str) -> Source:
    """One Source per spec, settings and process: an export file is parsed once, not per message."""
    key = source_key(spec)
    with _sources_lock:
        if key not in _sources:
            if len(_sources) >= MAX_CACHED_SOURCES:
                _sources.clear()  # a long-lived process whose settings keep changing must not grow without bound
            _sources[key] = open_source(spec)
        return _sources[key]


class LazyClient:
    """A boto3 client made on first use: a score worker never pays for the S3 or CloudFront client."""

    def __init__(self, service: str) -> None:
        self.service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(client(self.service), name)


@dataclass
class Deps:
    """Everything a service touches, handed in."""

    settings: Settings
    dynamodb: Any
    sqs: Any
    s3: Any
    cloudfront: Any
    watchlist: Callable[[], WatchList]
    source_factory: Callable[[str], Source] = cached_source
    clock: Callable[[], datetime] = field(default=lambda: utc_now())  # looked up per call: tests set the time
    lambda_context: Any = None  # lets Powertools idempotency see the time left
    store: Store = field(init=False)
    queue: Queue = field(init=False)

    def __post_init__(self) -> None:
        self.store = Store(self.dynamodb, self.settings)
        self.queue = Queue(self.sqs)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, lambda_context: Any = None) -> Deps:
        settings = Settings.from_env(env)
        return cls(settings, LazyClient("dynamodb"), LazyClient("sqs"), LazyClient("s3"), LazyClient("cloudfront"),
                   watchlist=lambda: load_watchlist(settings.config_parameter),
                   lambda_context=lambda_context)

    def now(self) -> int:
        return int(self.clock().timestamp())


# -- plan -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlanRequest:
    config: RepoConfig
    period: Period
    run_id: str


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
        config = watchlist().get(repo).with_overrides(
            tz=_text(event, "tz"), language=_text(event, "lang"), scorer=_text(event, "scorer"),
            source=_check_source(source) if source is not None else None)
        period = Period.parse(since, until, config.tz)
        today = now.astimezone(zone(config.tz)).date()
        if period.since > today:
            raise InputError(f"the range {period.since} to {period.until} has not begun (today is {today} in "
                             f"{config.tz}): nothing can have been merged in it")
        return [PlanRequest(config, period, f"{repo}/{period.since}_{period.until}/{stamp}")]
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
        out.append(PlanRequest(config, period, f"{config.repo}/{period.since}_{period.until}/weekly"))
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


def plan(event: Any, deps: Deps) -> list[dict[str, Any]]:
    """Plan one run per requested repository; returns what was planned."""
    requests = parse_plan_event(event, deps.watchlist, deps.clock())
    planned = []
    for req in requests:
        try:
            planned.append(_plan_one(req, deps))
        except SourceError as exc:
            if len(requests) == 1:
                raise
            # One unreachable repository must not stop the others' weekly reports.
            logger.error("cannot list repository", extra={"repo": req.config.repo, "error": str(exc)})
            planned.append({"run_id": req.run_id, "repo": req.config.repo, "error": str(exc)})
    return planned


def _plan_one(req: PlanRequest, deps: Deps) -> dict[str, Any]:
    config, period = req.config, req.period
    source = deps.source_factory(_check_source(config.source))
    notes = source.notes(config.repo, period, config.language)  # first: it refuses what the source cannot serve
    refs = source.list_merged(config.repo, period)
    history = deps.store.history(config.repo)
    known = {int(h["number"]) for h in history}
    seen = [parse_timestamp(h["merged_at"]) for h in history if h.get("merged_at")]
    # Trends need the weeks before; list (cheaply) those the history has never seen.
    earlier: list[PullRef] = []
    for week in period.previous_weeks(TREND_WEEKS):
        if not any(week.contains(moment) for moment in seen):
            earlier.extend(source.list_merged(config.repo, week))
    now = deps.clock()
    summary = {"run_id": req.run_id, "repo": config.repo, "period": period.to_dict(), "expected": len(refs)}
    if not deps.store.create_run(req.run_id, config, period, config.source, refs, int(now.timestamp()),
                                 format_timestamp(now), notes=notes):
        logger.info("run already planned", extra={"run_id": req.run_id})
        return {**summary, "duplicate": True}
    deps.store.add_history(config.repo, refs + earlier, known)
    if refs:
        deps.queue.send_batch(deps.settings.score_queue_url,
                              [{"run_id": req.run_id, "number": r.number, "ref": r.to_dict()} for r in refs])
    elif deps.store.claim_report(req.run_id, int(now.timestamp())):
        # Nothing to score: the report (which says so) is requested right away.
        deps.queue.send(deps.settings.report_queue_url, {"run_id": req.run_id})
    logger.info("run planned", extra=summary)
    return summary


# -- score ------------------------------------------------------------------------------------------

_runs: dict[str, Any] = {}


def _run_meta(run_id: str, deps: Deps) -> Any:
    """The run's fixed part (config, source, repo); cached since a batch holds many PRs of one run."""
    run = _runs.get(run_id)
    if run is None:
        run = deps.store.get_run(run_id, consistent=True)
        if run is None:
            raise InputError(f"run {run_id} does not exist (expired or never planned)")
        if len(_runs) > 64:
            _runs.clear()
        _runs[run_id] = run
    return run


def cache_key(repo: str, number: int, head_sha: str, kind: str, model: str | None, prompt_version: str) -> str:
    return f"{repo}#{number}#{head_sha}#{kind}#{model or ''}#{prompt_version}"


def parse_score_body(body: str) -> tuple[str, int, PullRef]:
    try:
        data = json.loads(body)
        return str(data["run_id"]), int(data["number"]), PullRef.from_dict(data["ref"])
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"malformed score message: {exc!r}") from exc


def score_record(record: SQSRecord, deps: Deps) -> dict[str, Any]:
    """Score one message's PR. Raising makes it a batch item failure (SQS redelivers it)."""
    run_id, number, ref = parse_score_body(record.body)
    receives = int(record.attributes.approximate_receive_count or 1)
    try:
        outcome = _score(run_id, number, ref, deps)
    except RetryLater as exc:
        # Checked first: a rate limit is never a failure, whatever the receive count.
        return _defer(record, run_id, number, exc, deps)
    except Exception as exc:
        # An InputError (no such run, a scorer that cannot work as configured) will not heal by retrying.
        if receives >= deps.settings.max_receive_count or isinstance(exc, InputError):
            # Count it as failed now so the run completes; SQS still moves the message to ScoreDLQ.
            reason = f"{type(exc).__name__}: {exc}"
            if deps.store.put_failure(run_id, number, reason, deps.now()):
                logger.warning("PR failed for good", extra={"run_id": run_id, "number": number, "reason": reason})
            _complete(run_id, deps)
        else:
            logger.warning("scoring failed, SQS will retry", extra={
                "run_id": run_id, "number": number, "error": str(exc), "trace": traceback.format_exc(limit=3)})
        raise
    _complete(run_id, deps)
    return outcome


def _defer(record: SQSRecord, run_id: str, number: int, exc: RetryLater, deps: Deps) -> dict[str, Any]:
    """Send a fresh copy of the message that becomes visible after the wait, and let this one succeed.

    Holding the message instead (ChangeMessageVisibility) would keep its receive count growing, so a PR rate
    limited on its last receives would go to ScoreDLQ, lost to the run. A fresh copy starts at one receive;
    a wait past SQS's 900 s delay ceiling just comes back, meets the limit again and is sent again.
    """
    url = deps.settings.score_queue_url
    delay = exc.retry_after + 1
    try:
        deps.queue.send(url, json.loads(record.body), delay=delay)
    except Exception:
        # Could not send the copy: hold this one (its receive count grows, but nothing is lost now) and fail it.
        deps.queue.hold(url, record.receipt_handle, delay)
        raise exc from None
    logger.info("rate limited, message sent again for later",
                extra={"run_id": run_id, "number": number, "delay": delay, "reason": str(exc)})
    return {"run_id": run_id, "number": number, "stored": False, "cached": False, "deferred": delay}


def _score(run_id: str, number: int, ref: PullRef, deps: Deps) -> dict[str, Any]:
    run = _run_meta(run_id, deps)
    source = deps.source_factory(run.source)
    if deps.lambda_context is not None and hasattr(source, "deadline"):
        # The source outlives the invocation (cached per process): give it this invocation's time left, so a
        # rate-limit wait that would outlast the function hands the message back (RetryLater) instead.
        source.deadline = lambda_deadline(deps.lambda_context)
    pr = source.get(run.repo, ref)
    scorer = llm.make_scorer(run.config)
    key = cache_key(run.repo, number, pr.head_sha, scorer.kind, scorer.model, scorer.prompt_version)
    now = deps.now()
    scored = deps.store.cache_get(key, now)
    cached = scored is not None
    if scored is None:
        scored = scorer.score(pr, run.config, RunBudget(deps.store, run_id, run.config.llm.max_tokens_per_run))
        if scored.scored_by == scorer.kind:
            # The engine's fallback (model outage, run budget spent) is kept for this run only: caching it under
            # the model's key would stop every later run from asking the model for this PR.
            deps.store.cache_put(key, scored, now)
    else:
        # A cache hit spends nothing in this run.
        scored.tokens_in = scored.tokens_out = 0
    stored = deps.store.put_result(run_id, scored, now, cached=cached)
    deps.store.record_scored(run.repo, scored)
    return {"run_id": run_id, "number": number, "stored": stored, "cached": cached}


def _complete(run_id: str, deps: Deps) -> None:
    """The worker whose result completes the run asks for the report, exactly once."""
    run = deps.store.progress(run_id)
    if (run and run["done"] + run["failed"] >= run["expected"] and "report_requested" not in run
            and deps.store.claim_report(run_id, deps.now())):
        deps.queue.send(deps.settings.report_queue_url, {"run_id": run_id})
        logger.info("run complete, report requested", extra={"run_id": run_id})


# -- report -----------------------------------------------------------------------------------------

def report_once(run_id: str, deps: Deps) -> dict[str, Any]:
    """Build and publish the run's report; a second call (redelivery, sweep) returns the first answer."""
    if not isinstance(run_id, str) or not run_id:
        raise InputError("report message needs a run_id")
    persistence = DynamoDBPersistenceLayer(table_name=deps.settings.idempotency_table, boto3_client=deps.dynamodb)
    config = IdempotencyConfig(expires_after_seconds=REPORT_IDEMPOTENCY_SECONDS)
    if deps.lambda_context is not None:
        config.register_lambda_context(deps.lambda_context)

    @idempotent_function(data_keyword_argument="run_id", persistence_store=persistence, config=config)
    def report(run_id: str) -> dict[str, Any]:
        return build_report(run_id, deps)

    return report(run_id=run_id)


def build_report(run_id: str, deps: Deps) -> dict[str, Any]:
    run = deps.store.get_run(run_id, consistent=True)
    if run is None:
        raise InputError(f"run {run_id} does not exist (expired or never planned)")
    if run.status == "reported":
        # Past the idempotency window the run item still says it is done.
        return {"run_id": run_id, "repo": run.repo, "report_key": run.report_key, "repeat": True}
    results = deps.store.results(run_id)
    scored = [r.scored for r in results if r.status == "scored" and r.scored is not None]
    reasons = {r.number: r.reason for r in results if r.status == "failed"}
    done = {p.number for p in scored}
    history = deps.store.history(run.repo)
    by_number = {int(h["number"]): h for h in history}
    mine = set(run.refs)
    unscored: list[Unscored] = [
        {"number": n, "title": by_number.get(n, {}).get("title", ""), "url": by_number.get(n, {}).get("url", ""),
         "reason": reasons.get(n, "no result: its worker never finished")}
        for n in sorted(mine - done)
    ]
    earlier = [h for h in history if int(h["number"]) not in mine]
    report = compose.report(scored, unscored, run.period, run.config, earlier, format_timestamp(deps.clock()),
                            scorer_info(scored, run.config), run.notes,
                            narrator=lambda draft: llm.model_narrative(draft, run.config))
    files = render_all(report)
    keys = site.publish_report(deps.s3, deps.settings.site_bucket, report, files)
    keys += site.rebuild_indexes(deps.s3, deps.settings.site_bucket, run.repo, deps.settings.site_url)
    site.invalidate(deps.cloudfront, deps.settings.distribution_id, ["/" + k for k in keys])
    prefix = site.report_prefix(report)
    deps.store.mark_reported(run_id, prefix, format_timestamp(deps.clock()), deps.now())
    logger.info("report published", extra={"run_id": run_id, "key": prefix})
    return {"run_id": run_id, "repo": run.repo, "report_key": prefix, "pr_count": report["stats"]["pr_count"],
            "unscored": [u["number"] for u in unscored]}


def scorer_info(scored: list[Any], config: RepoConfig) -> Scorer:
    scorer = llm.make_scorer(config)
    llm_prs = sum(1 for p in scored if p.scored_by == "llm")
    return {"kind": "llm" if llm_prs else "heuristic", "model": scorer.model if llm_prs else None,
            "prompt_version": scorer.prompt_version, "tokens_in": sum(p.tokens_in for p in scored),
            "tokens_out": sum(p.tokens_out for p in scored), "llm_prs": llm_prs,
            "heuristic_prs": len(scored) - llm_prs}


def report_message(body: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """A ReportQueue message: {"run_id"} or {"sweep": true, "older_than_minutes": N}."""
    if body.get("sweep"):
        return sweep(body.get("older_than_minutes", 30), deps)
    return report_once(body.get("run_id"), deps)  # type: ignore[arg-type]


def sweep(older_than_minutes: Any, deps: Deps) -> dict[str, Any]:
    """Report every unreported run whose last progress is older than N minutes, missing PRs as unscored."""
    try:
        minutes = float(older_than_minutes)
    except (TypeError, ValueError):
        minutes = math.nan
    if not math.isfinite(minutes) or minutes < 0 or isinstance(older_than_minutes, bool):
        # nan compares false with everything: "older than nan minutes" would sweep a run planned a second ago.
        raise InputError(f"older_than_minutes must be a number of minutes >= 0, got {str(older_than_minutes)[:50]!r}")
    cutoff = deps.now() - minutes * 60
    reported, failed = [], []
    for run in deps.store.open_runs():
        if run.updated_at > cutoff:
            continue
        # Claim first so a late worker finishing this run does not ask for a second report.
        deps.store.claim_report(run.run_id, deps.now())
        try:
            reported.append(report_once(run.run_id, deps)["run_id"])
        except Exception as exc:  # one broken run must not keep the others stuck
            logger.error("sweep could not report run", extra={"run_id": run.run_id, "error": str(exc)})
            failed.append(run.run_id)
    return {"swept": reported, "failed": failed}
