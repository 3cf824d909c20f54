"""A published revision told to everyone after the site: the last of the report service's three steps
(prhub.flow.publish).

    announce(publication, deps) -> answer   in this order: the PR pages queued (PagesFunction renders them); the
                                            revision recorded on the run, as published or superseded; the next
                                            revision asked for when results came in meanwhile; one message per
                                            channel (DeliveryFunction); the period's digest when this was its last
                                            report out. Returns ReportFunction's answer.

The PR pages are queued before the revision is recorded: a failure until then fails the invocation, and its retry
makes the revision again; once recorded, a retry finds the revision done and stops. The deliveries and the digest
come after: a slow or broken channel never delays or fails the report, and each (report, channel) is told once
by the delivery ledger however often a retried report asks.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.cloud.store import Run, literal_channels
from prhub.core.config import RepoConfig
from prhub.core.models import ScoredPR
from prhub.core.period import format_timestamp
from prhub.flow import digest, pages
from prhub.flow.deliver import request_deliveries
from prhub.flow.deps import Deps
from prhub.flow.revision import request_revision

if TYPE_CHECKING:
    from prhub.core.report import Report

logger = Logger(service="prhub", child=True)


@dataclass(frozen=True)
class Publication:
    """A revision of a run's report as the site took it (or, `superseded_by` another run's, did not)."""

    run: Run
    report: Report
    revision: int
    home: str  # the repository's configured language, at the root of its folders
    prefix: str  # the report's folder
    scored: list[ScoredPR]  # its PRs as it tells them
    results: int  # how many results it was made from
    pending: list[int]  # the listed PRs it had neither a result nor a failure for
    superseded_by: str = ""


def announce(publication: Publication, deps: Deps) -> dict[str, Any]:
    """Tell the PR pages, the run, the next revision, the channels and the digest of the publication."""
    run, revision, report, prefix = publication.run, publication.revision, publication.report, publication.prefix
    holder = publication.superseded_by
    if not holder:
        pages.queue_pages(report, publication.home, publication.scored, deps)
    marked = deps.store.mark_reported(run.run_id, prefix, format_timestamp(deps.clock()), deps.now(), revision,
                                      publication.results, publication.pending, superseded_by=holder)
    unscored = [u["number"] for u in report["unscored"]]
    if not marked:
        logger.warning("revision already recorded as published", extra={"run_id": run.run_id, "revision": revision})
    elif revision == 1:  # a run counts as reported once (ReportsMissingAlarm compares it with RunsPlanned)
        metrics.count("RunsReported")
        metrics.count("PrsUnscored", len(unscored))
    answer: dict[str, Any] = {"run_id": run.run_id, "repo": run.repo, "report_key": prefix, "revision": revision,
                              "pr_count": report["stats"]["pr_count"], "unscored": unscored}
    if holder:  # recorded on the run (superseded_by), logged, counted once (no alarm: nothing is missing)
        if marked:
            metrics.count("ReportsSuperseded")
        logger.warning("report not published: the one at its URL is from a newer or more complete run",
                       extra={"run_id": run.run_id, "revision": revision, "key": prefix, "superseded_by": holder})
        return {**answer, "superseded_by": holder, "deliveries": 0}
    # Results stored while this revision was being made, whose workers saw it still pending: the next one.
    progress = deps.store.progress(run.run_id)
    if progress is not None:
        request_revision(run.run_id, progress, deps)
    # A revision reaches the channels with "updates": true as an update.
    deliveries = request_deliveries(_told(run, deps), prefix, run.run_id, deps.queue, deps.settings.delivery_queue_url)
    logger.info("report published", extra={"run_id": run.run_id, "key": prefix, "revision": revision,
                                           "deliveries": deliveries})
    answer["deliveries"] = deliveries
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
