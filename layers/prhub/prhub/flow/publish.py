"""The report service (ReportFunction): one publication per run and revision, and the sweep that finishes stuck runs.

    report_message(body, deps)   {"run_id"[, "revision"]} -> report_once; {"sweep": true, "older_than_minutes": N}
                                 -> sweep
    report_once(run_id, deps, revision=1)   under Powertools idempotency keyed by (run, revision): publish_run
                                 once, later calls get its answer
    publish_run(run_id, deps, revision=1)   analyse, narrate, render, publish to the bucket, record the repository's
                                 year for the dashboard and queue the PR pages (prhub.flow.pages), invalidate, mark
                                 the revision published; a revision whose URL holds the report of a newer or more
                                 complete run of the range is recorded as superseded instead (Store.superseding)

A revision is the same report at the same URL, made again from every result the run has by then: report.json
says which revision it is and what changed (`revision`, `changes`), its notes say so in every format, and the
repository's index and feed are rebuilt. The first publication is revision 1 (no `revision` key in report.json).

The analysis, narrative, rendering and idempotency code is imported by the first report, not by the handler:
the sweep runs every 15 minutes and, with no stuck run, needs none of it (a cold start for nothing otherwise).
"""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.cloud.store import literal_channels, planned_at
from prhub.core.config import RepoConfig
from prhub.core.errors import InputError
from prhub.core.models import ScoredPR
from prhub.core.period import format_timestamp
from prhub.engine.wording import say
from prhub.flow import judgements
from prhub.flow.deps import Deps
from prhub.flow.revision import request_revision
from prhub.site import paths as sitepaths
from prhub.sources.source import TimedSource

if TYPE_CHECKING:
    from prhub.cloud.store import Result, Run
    from prhub.core.report import Changes, Report, Scorer, Unscored

logger = Logger(service="prhub", child=True)

REPORT_IDEMPOTENCY_SECONDS = 7 * 86_400


def report_once(run_id: str, deps: Deps, revision: int = 1) -> dict[str, Any]:
    """Build and publish the run's report (revision `revision`); a second call (redelivery, sweep) returns the
    first answer."""
    if not isinstance(run_id, str) or not run_id:
        raise InputError("report message needs a run_id")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise InputError(f"revision must be a whole number >= 1, got {str(revision)[:50]!r}")
    # Powertools' idempotency with the first report, not at the handler's import (the sweep rarely needs it).
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function

    config = IdempotencyConfig(expires_after_seconds=REPORT_IDEMPOTENCY_SECONDS)
    if deps.lambda_context is not None:
        config.register_lambda_context(deps.lambda_context)

    # Revision 1 keeps the key it has always had (the run id), so a redelivery across a deploy is still known.
    key = run_id if revision == 1 else f"{run_id}#revision-{revision}"

    @idempotent_function(data_keyword_argument="key", persistence_store=deps.idempotency(), config=config)
    def report(key: str) -> dict[str, Any]:
        return publish_run(run_id, deps, revision)

    return report(key=key)


@metrics.timed("ReportSeconds")
def publish_run(run_id: str, deps: Deps, revision: int = 1) -> dict[str, Any]:
    """The run's report, built from its results and the history plan took from the source, rendered and
    published as revision `revision`; the revision marked published."""
    # The services after publication load the renderers (prhub.report.digest, prhub.notify, prhub.site.publish):
    # imported with the first report, not at the handler's import.
    from prhub.flow import digest
    from prhub.flow.deliver import request_deliveries

    run = deps.store.get_run(run_id, consistent=True)
    if run is None:
        raise InputError(f"run {run_id} does not exist (expired or never planned)")
    if run.revision >= revision:
        # Past the idempotency window the run item still says it is done.
        return {"run_id": run_id, "repo": run.repo, "report_key": run.report_key, "revision": run.revision,
                "repeat": True}
    if revision != run.revision + 1:
        raise InputError(f"run {run_id}: revision {revision} asked for, but revision {run.revision} is the "
                         "published one (revisions are claimed one after another)")
    results = deps.store.results(run_id)
    scored = [_as_told(r) for r in results if r.status == "scored" and r.scored is not None]
    unscored = _unscored(run, results, {p.number for p in scored}, deps)
    report = _compose(run, results, scored, unscored, revision, deps)
    pending = [u["number"] for u in unscored if u["number"] not in _reasons(results)]
    home = deps.watchlist().get(run.repo, run.config.slice).language
    # A report at this URL made from a newer or more complete run of the range (an orphaned run swept late, a
    # late revision of a run a later one replaced) stays: this revision is recorded as superseded, not published.
    folder = _report_prefix(report, home)
    holder = deps.store.superseding(folder, run, len(results))
    prefix = folder if holder is not None else _publish(report, run, scored, home, deps)
    marked = deps.store.mark_reported(run_id, prefix, format_timestamp(deps.clock()), deps.now(), revision,
                                      len(results), pending, superseded_by=holder or "")
    if not marked:
        logger.warning("revision already recorded as published", extra={"run_id": run_id, "revision": revision})
    elif revision == 1:  # a run counts as reported once (ReportsMissingAlarm compares it with RunsPlanned)
        metrics.count("RunsReported")
        metrics.count("PrsUnscored", len(unscored))
    if holder is not None:  # recorded on the run (superseded_by), logged, counted once (no alarm: nothing is missing)
        if marked:
            metrics.count("ReportsSuperseded")
        logger.warning("report not published: the one at its URL is from a newer or more complete run",
                       extra={"run_id": run_id, "revision": revision, "key": prefix, "superseded_by": holder})
        return {"run_id": run_id, "repo": run.repo, "report_key": prefix, "revision": revision,
                "pr_count": report["stats"]["pr_count"], "unscored": [u["number"] for u in unscored],
                "superseded_by": holder, "deliveries": 0}
    # Results stored while this revision was being made, whose workers saw it still pending: the next one.
    progress = deps.store.progress(run_id)
    if progress is not None:
        request_revision(run_id, progress, deps)
    # Delivery runs in its own function: a slow or broken channel never delays or fails the report. A retried
    # report asks again; the delivery ledger keeps each (report, channel) to one message (a revision reaches
    # the channels with "updates": true as an update).
    deliveries = request_deliveries(_told(run, deps), prefix, run_id, deps.queue, deps.settings.delivery_queue_url)
    logger.info("report published", extra={"run_id": run_id, "key": prefix, "revision": revision,
                                           "deliveries": deliveries})
    answer = {"run_id": run_id, "repo": run.repo, "report_key": prefix, "revision": revision,
              "pr_count": report["stats"]["pr_count"], "unscored": [u["number"] for u in unscored],
              "deliveries": deliveries}
    # The period's digest, when this was its last report out (a revision leaves a published digest as it is).
    if revision == 1 and (published := digest.after_report(run, deps)) is not None:
        answer["digest"] = published
    return answer


def _told(run: Run, deps: Deps) -> RepoConfig:
    """The run's settings with every channel to tell: the run item keeps literal channels (a URL or secret written
    in the watch list, the local runner's) by reference only, so they are taken from the watch list again."""
    if not run.channel_refs:
        return run.config
    found = literal_channels(run, deps.watchlist().get(run.repo, run.config.slice).notify)
    if len(found) < len(run.channel_refs):
        logger.warning("channels of the run no longer in the watch list are not told",
                       extra={"run_id": run.run_id, "missing": len(run.channel_refs) - len(found)})
    return replace(run.config, notify=run.config.notify + found)


def _as_told(result: Result) -> ScoredPR:
    """The result's PR as the report tells it: an engine stand-in the score cache gave this run says its cause
    was an earlier run's (a budget since raised would otherwise read as spent by this run)."""
    from prhub.model.answers import from_earlier_run  # with the first report, not at the handler's import

    assert result.scored is not None
    return from_earlier_run(result.scored) if result.cached else result.scored


def _reasons(results: list[Result]) -> dict[int, str]:
    """Why each PR that failed for good has no result."""
    return {r.number: r.reason for r in results if r.status == "failed"}


def _unscored(run: Run, results: list[Result], done: set[int], deps: Deps) -> list[Unscored]:
    """The listed PRs without a result (`done` has the scored ones), each with why: its failure, or that it is
    still waiting (handed back for later) or its worker never finished."""
    lang = run.config.language
    reasons = {n: say(lang, "failed", detail=why) for n, why in _reasons(results).items()}
    until = format_timestamp(datetime.fromtimestamp(run.waiting_until, UTC))
    missing = (say(lang, "no_result_yet", until=until) if run.waiting_until > deps.now() else say(lang, "no_result"))
    return [{"number": r.number, "title": r.title, "url": r.url, "reason": reasons.get(r.number, missing)}
            for r in sorted(run.listing, key=lambda r: r.number) if r.number not in done]


def _compose(run: Run, results: list[Result], scored: list[ScoredPR], unscored: list[Unscored], revision: int,
             deps: Deps) -> Report:
    """The report of the run's results, its narrative by the run's model when it has one."""
    # The analysis, the narrative and the model's client: with the first report, not at the handler's import.
    from prhub.model import narrator
    from prhub.report import compose

    model, prompt_version = deps.scorers.describe(run.config)
    chat = deps.scorers.narrator(run.config)
    prices = deps.scorers.prices()
    done = {p.number for p in scored}
    # The CHANGELOG and the watch list as the plan read them (run.judgements): read once a run, not again here.
    said = judgements.gather(run.config, lambda: TimedSource(deps.sources(run.source), deps.deadline()), deps.store,
                             deps.settings, run.judgements)
    changed = changes(run, done, _reasons(results), judgements.changed_since(run, said)) if revision > 1 else None
    report = compose.report(scored, unscored, run.period, run.config, run.history, format_timestamp(deps.clock()),
                            scorer_info(scored, model, prompt_version), run.notes,
                            narrator=lambda draft: narrator.model_narrative(draft, run.config, chat, deps.cache,
                                                                             prices),
                            revision=revision, changes=changed, prices=prices,
                            judged={j.pr: j.verdict for j in said},
                            corrected={j.pr: j.verdict for j in said if j.source == "correction"})
    narrator.record_cost(report["scorer"])
    if run.learned:  # what the judgements taught, beside the note the plan wrote (report.json `learning`)
        report["learning"] = run.learned
    return report


def _report_prefix(report: Report, home: str) -> str:
    """The report's folder: the configured language (`home`) sits at the root of the site's folders, a --lang
    run goes beside it."""
    from prhub.site import publish as site  # the renderers: with the first report, not at the handler's import

    return site.report_prefix(report, home)


def _publish(report: Report, run: Run, scored: list[ScoredPR], home: str, deps: Deps) -> str:
    """Render the report and publish it, its PR pages' facts and fan-out, and the indexes; the CDN's copies
    invalidated. Returns where it is published (its prefix)."""
    # The renderers: with the first report, not at the handler's import.
    from prhub.flow import pages
    from prhub.site import publish as site
    from prhub.site.render import render_all

    files = render_all(report, home, deps.settings.cjk_font)
    keys = site.publish_report(deps.bucket, report, files, home)
    # Before the indexes: the dashboard reads the pulls.json the fan-out writes (the run's history with it, and the
    # weeks of the dashboard's year no earlier run recorded, listed now from the run's source).
    pages.fan_out(report, home, scored, deps, run.history, run.config)
    keys += site.rebuild_indexes(deps.bucket, sitepaths.base(report), deps.settings.site_url, home)  # or the slice's
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    return site.report_prefix(report, home)


def changes(run: Run, scored: set[int], failed: dict[int, str], judged: list[int] | None = None) -> Changes:
    """What a revision changes: the PRs without a result when the revision before was published that have one
    now, and the PRs the maintainers corrected since (`judged`)."""
    out: Changes = {"since": run.reported_at or "", "scored": sorted(n for n in run.published_pending if n in scored),
                    "failed": sorted(n for n in run.published_pending if n in failed)}
    if judged:
        out["judged"] = sorted(judged)
    return out


def scorer_info(scored: list[ScoredPR], model: str | None, prompt_version: str) -> Scorer:
    """The report's `scorer`: who scored how many PRs, with the run's scorer's model and prompt version."""
    llm_prs = sum(1 for p in scored if p.scored_by == "llm")
    return {"kind": "llm" if llm_prs else "heuristic", "model": model if llm_prs else None,
            "prompt_version": prompt_version, "tokens_in": sum(p.tokens_in for p in scored),
            "tokens_out": sum(p.tokens_out for p in scored), "llm_prs": llm_prs,
            "heuristic_prs": len(scored) - llm_prs}


def report_message(body: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """A ReportQueue message: {"run_id"[, "revision"]} or {"sweep": true, "older_than_minutes": N}."""
    if body.get("sweep"):
        return sweep(body.get("older_than_minutes", 30), deps)
    return report_once(body.get("run_id"), deps, body.get("revision", 1))  # type: ignore[arg-type]


WAIT_LIMIT = 6 * 3600  # seconds after planning from which a run's waiting PRs no longer hold its report back


def sweep(older_than_minutes: Any, deps: Deps) -> dict[str, Any]:
    """Report every unreported run whose last progress is older than N minutes, missing PRs as unscored; publish
    every revision claimed but not published N minutes after it was claimed (its message lost or failed).

    A run whose PRs were handed back for later (rate limits) is waiting, not stuck: its last progress counts
    from when they come back. Once the run is WAIT_LIMIT old it is reported anyway; the PRs scored after that
    make a new revision. The answer lists the runs it left waiting under `waiting`, when there are any."""
    try:
        minutes = float(older_than_minutes)
    except (TypeError, ValueError):
        minutes = math.nan
    if not math.isfinite(minutes) or minutes < 0 or isinstance(older_than_minutes, bool):
        # nan compares false with everything: "older than nan minutes" would sweep a run planned a second ago.
        raise InputError(f"older_than_minutes must be a number of minutes >= 0, got {str(older_than_minutes)[:50]!r}")
    now = deps.now()
    cutoff = now - minutes * 60
    reported, waiting, failed = [], [], []
    for run in deps.store.open_runs():
        if run.status == "reported":  # a revision claimed and not published
            if run.updated_at > cutoff:
                continue
            if run.revision_requested <= run.revision:
                continue
            revision = run.revision_requested
        else:
            if run.updated_at > cutoff:
                continue
            if run.waiting_until > cutoff and now - planned_at(run, now) < WAIT_LIMIT:
                waiting.append(run.run_id)
                continue
            # Claim first so a late worker finishing this run does not ask for a second report.
            deps.store.claim_report(run.run_id, now)
            revision = 1
            if not run.fanned_out:  # its plan stopped part-way and no retry finished it: a failed plan
                logger.error("sweep reports a run whose plan did not hand on every PR",
                             extra={"run_id": run.run_id, "expected": run.expected, "handed_on": run.fanned})
                metrics.count("PlansFailed")
        try:
            reported.append(report_once(run.run_id, deps, revision)["run_id"])
        except Exception as exc:  # one broken run must not keep the others stuck
            logger.error("sweep could not report run", extra={"run_id": run.run_id, "error": str(exc)})
            failed.append(run.run_id)
            metrics.count("SweepFailures")
    from prhub.flow import digest  # it loads the renderers (prhub.report.digest): not at the handler's import

    answer: dict[str, Any] = {"swept": reported, "failed": failed}
    if waiting:
        logger.info("runs waiting on PRs handed back for later", extra={"runs": waiting})
        answer["waiting"] = waiting
    if (published := digest.sweep(deps)) is not None:  # past its deadline, the period's digest goes out
        answer["digest"] = published
    return answer

