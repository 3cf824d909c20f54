"""The digest service (in ReportFunction): one organisation digest per period, once every report is out.

    after_report(run, deps)   the report service, after publishing: the period's digest when every watched
                              repository's report is out (custom ranges too, when every repository has one)
    sweep(deps)               the sweep, every 15 minutes: past the deadline of the last weekly period (its end
                              plus `deadline_hours`), the digest goes out naming the repositories still missing
    publish_once(period, deps, watchlist)   under Powertools idempotency: one publication per period

The watched repositories are the watch list's with its `org` expanded (prhub.sources.orgs). Exactly one publication
per period however reports and sweeps interleave: each report is written before its service checks the others,
so the last one to finish sees them all, and the publication is an idempotent function keyed by the period
(the first caller publishes; a concurrent one is told it is in progress; later ones get the first answer).
The digest's channels are told through the delivery queue and ledger, as a report's are: once each.
A digest failing never fails the report that triggered it: it is logged, and the sweep tries again.
"""
from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.cloud.runs import Run
from prhub.core.config import WatchList
from prhub.core.period import Period, format_timestamp
from prhub.flow.deliver import request_channels
from prhub.flow.deps import Deps
from prhub.report import digest as domain
from prhub.site import paths as sitepaths
from prhub.site import publish as site
from prhub.site.render.digest import render_digest_all
from prhub.sources import orgs

logger = Logger(service="prhub", child=True)

DIGEST_IDEMPOTENCY_SECONDS = 35 * 86_400  # a period's digest stays published once for five weeks of re-runs


def watched(deps: Deps) -> WatchList:
    """The watch list with its organisation's repositories (listed on GitHub, cached)."""
    return orgs.watched(deps.watchlist(), deps.sources, deps.cache)


def after_report(run: Run, deps: Deps) -> dict[str, Any] | None:
    """The period's digest, when the watch list asks for one and this report was the last one missing."""
    config = deps.watchlist().digest
    if config is None:
        return None
    try:
        watchlist = watched(deps)
        if run.repo.lower() not in {c.repo.lower() for c in watchlist.repos}:
            return None
        period = Period.parse(run.period.since.isoformat(), run.period.until.isoformat(), config.tz)
        return publish_when_ready(period, deps, watchlist, deadline_passed=False)
    except Exception as exc:  # the report is out; the sweep tries the digest again
        logger.error("digest failed after a report", extra={"run_id": run.run_id, "error": repr(exc)})
        metrics.count("DigestFailures")
        return {"error": str(exc)}


def sweep(deps: Deps) -> dict[str, Any] | None:
    """Past the last weekly period's deadline: its digest, naming the repositories without a report."""
    try:
        config = deps.watchlist().digest
        if config is None:
            return None
        now = deps.clock()
        period = Period.last_complete_week(now, config.tz)
        if now < period.end_utc + timedelta(hours=config.deadline_hours):
            return {"period": period.slug, "waiting": True}
        return publish_when_ready(period, deps, watched(deps), deadline_passed=True)
    except Exception as exc:  # the next sweep tries again; the sweep's runs are reported all the same
        logger.error("digest failed in the sweep", extra={"error": repr(exc)})
        metrics.count("DigestFailures")
        return {"error": str(exc)}


def load_reports(deps: Deps, watchlist: WatchList, period: Period) -> dict[str, tuple[str, dict[str, Any]] | None]:
    """Each watched repository's report of the period (its folder and report.json), in the digest's language
    when it has one in it, else in its own; None when it has none."""
    lang = watchlist.digest.language if watchlist.digest else "zh"
    out: dict[str, tuple[str, dict[str, Any]] | None] = {}
    for config in (c for c in watchlist.repos if not c.slice):  # a slice is a report of its own, not a repository
        out[config.repo] = None
        for language in dict.fromkeys((lang, config.language)):
            folder = sitepaths.report_dir(config.repo, period.slug, language, config.language)
            body = deps.bucket.get(folder + "report.json")
            if body is not None:
                out[config.repo] = (folder, json.loads(body))
                break
    return out


def publish_when_ready(period: Period, deps: Deps, watchlist: WatchList,
                       deadline_passed: bool) -> dict[str, Any] | None:
    """The digest, once every repository's report is out (or, past the deadline, any is); else None."""
    reports = load_reports(deps, watchlist, period)
    present = sum(1 for r in reports.values() if r is not None)
    if not present or (present < len(reports) and not deadline_passed):
        return None
    return publish_once(period, deps, watchlist)


def publish_once(period: Period, deps: Deps, watchlist: WatchList) -> dict[str, Any]:
    """Publish the period's digest exactly once; a repeat gets the first answer."""
    # Powertools' idempotency when a digest goes out, not with every sweep that finds none to publish.
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError

    config = IdempotencyConfig(expires_after_seconds=DIGEST_IDEMPOTENCY_SECONDS)
    if deps.lambda_context is not None:
        config.register_lambda_context(deps.lambda_context)

    @idempotent_function(data_keyword_argument="digest", persistence_store=deps.idempotency(), config=config)
    def publish(digest: str) -> dict[str, Any]:
        return publish_digest(period, deps, watchlist)

    try:
        return publish(digest=domain.folder(period))
    except IdempotencyAlreadyInProgressError:  # another report's worker is publishing it right now
        return {"digest_key": domain.folder(period), "in_progress": True}


def publish_digest(period: Period, deps: Deps, watchlist: WatchList) -> dict[str, Any]:
    """Build the digest from the reports as they are now, publish it, and queue its channels' messages."""
    config = watchlist.digest
    assert config is not None  # publish_when_ready's callers checked
    reports = load_reports(deps, watchlist, period)
    digest = domain.build(config.title, period, config.language, format_timestamp(deps.clock()), reports)
    site_url = deps.settings.site_url
    files = render_digest_all(digest, site_url, deps.settings.cjk_font)
    keys = site.publish_digest(deps.bucket, digest, files, site_url)
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    key = domain.folder(period)
    deliveries = request_channels(config.notify, config.language, key, f"digest:{period.slug}", deps.queue,
                                  deps.settings.delivery_queue_url)
    logger.info("digest published", extra={"key": key, "missing": digest["missing"], "deliveries": deliveries})
    return {"digest_key": key, "repos": len(reports), "missing": digest["missing"], "deliveries": deliveries}
