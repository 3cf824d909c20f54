"""The report service (ReportFunction): one idempotent report per run, and the sweep that finishes stuck runs.

    report_message(body, deps)   {"run_id"} -> report_once; {"sweep": true, "older_than_minutes": N} -> sweep
    report_once(run_id, deps)    under Powertools idempotency: publish_run once, later calls get its answer
    publish_run(run_id, deps)    analyse, narrate, render, publish to the bucket, invalidate, queue the PR pages
                                 (prhub.flow.pages), mark reported

The analysis, narrative, rendering and idempotency code is imported by the first report, not by the handler:
the sweep runs every 15 minutes and, with no stuck run, needs none of it (a cold start for nothing otherwise).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub import metrics
from prhub.errors import InputError
from prhub.flow.deps import Deps
from prhub.models import ScoredPR
from prhub.period import format_timestamp

if TYPE_CHECKING:
    from prhub.report import Scorer, Unscored

logger = Logger(service="prhub", child=True)

REPORT_IDEMPOTENCY_SECONDS = 7 * 86_400


def report_once(run_id: str, deps: Deps) -> dict[str, Any]:
    """Build and publish the run's report; a second call (redelivery, sweep) returns the first answer."""
    if not isinstance(run_id, str) or not run_id:
        raise InputError("report message needs a run_id")
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function

    config = IdempotencyConfig(expires_after_seconds=REPORT_IDEMPOTENCY_SECONDS)
    if deps.lambda_context is not None:
        config.register_lambda_context(deps.lambda_context)

    @idempotent_function(data_keyword_argument="run_id", persistence_store=deps.idempotency(), config=config)
    def report(run_id: str) -> dict[str, Any]:
        return publish_run(run_id, deps)

    return report(run_id=run_id)


@metrics.timed("ReportSeconds")
def publish_run(run_id: str, deps: Deps) -> dict[str, Any]:
    """The run's report, built from its results and the history plan took from the source, rendered and
    published; the run marked reported."""
    from prhub import compose, llm, site
    from prhub.flow import pages
    from prhub.flow.deliver import request_deliveries
    from prhub.render import render_all

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
    unscored: list[Unscored] = [
        {"number": r.number, "title": r.title, "url": r.url,
         "reason": reasons.get(r.number, "no result: its worker never finished")}
        for r in sorted(run.listing, key=lambda r: r.number) if r.number not in done
    ]
    model, prompt_version = deps.scorers.describe(run.config)
    chat = deps.scorers.narrator(run.config)
    report = compose.report(scored, unscored, run.period, run.config, run.history, format_timestamp(deps.clock()),
                            scorer_info(scored, model, prompt_version), run.notes,
                            narrator=lambda draft: llm.model_narrative(draft, run.config, chat, deps.cache,
                                                                        deps.scorers.prices()))
    # The configured language sits at the root of the site's folders; a --lang run goes beside it.
    home = deps.watchlist().get(run.repo).language
    files = render_all(report, home)
    keys = site.publish_report(deps.bucket, report, files, home)
    keys += site.rebuild_indexes(deps.bucket, run.repo, deps.settings.site_url, home)
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    pages.fan_out(report, home, scored, deps)
    prefix = site.report_prefix(report, home)
    deps.store.mark_reported(run_id, prefix, format_timestamp(deps.clock()), deps.now())
    metrics.count("RunsReported")
    metrics.count("PrsUnscored", len(unscored))
    # Delivery runs in its own function: a slow or broken channel never delays or fails the report. A retried
    # report asks again; the delivery ledger keeps each (report, channel) to one message.
    deliveries = request_deliveries(run.config, prefix, run_id, deps.queue, deps.settings.delivery_queue_url)
    logger.info("report published", extra={"run_id": run_id, "key": prefix, "deliveries": deliveries})
    return {"run_id": run_id, "repo": run.repo, "report_key": prefix, "pr_count": report["stats"]["pr_count"],
            "unscored": [u["number"] for u in unscored], "deliveries": deliveries}


def scorer_info(scored: list[ScoredPR], model: str | None, prompt_version: str) -> Scorer:
    """The report's `scorer`: who scored how many PRs, with the run's scorer's model and prompt version."""
    llm_prs = sum(1 for p in scored if p.scored_by == "llm")
    return {"kind": "llm" if llm_prs else "heuristic", "model": model if llm_prs else None,
            "prompt_version": prompt_version, "tokens_in": sum(p.tokens_in for p in scored),
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
            metrics.count("SweepFailures")
    return {"swept": reported, "failed": failed}
