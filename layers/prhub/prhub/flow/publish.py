"""The report service (ReportFunction): each run's report in three steps, once per run and revision; the sweep.

    report_message(message, deps)   a ReportMessage (parsed by the handler, prhub.flow.messages): a run's revision
                                    -> report_once; the sweep -> sweep
    report_once(run_id, deps, revision=1)   under Powertools idempotency keyed by (run, revision): publish_run
                                    once, later calls get its answer
    publish_run(run_id, deps, revision=1)   the run's results, then
        compose(run, results, how) -> Report       prhub.report.results, pure: the analysis and the narrative
        publish(report, ...) -> Publication        the site: rendered and published with its PR pages' facts and
                                                   the dashboard's record (pulls.json), the indexes rebuilt, the CDN
                                                   invalidated; nothing when the report at its URL is from a newer
                                                   or more complete run of the range (Store.superseding)
        announce(publication, deps) -> answer      prhub.flow.announce: the PR pages queued, the revision recorded on
                                                   the run (published or superseded), the next revision asked for,
                                                   the channels told, the period's digest

A revision is the same report at the same URL, made again from every result the run has by then: report.json
says which revision it is and what changed (`revision`, `changes`), its notes say so in every format, and the
repository's index and feed are rebuilt. The first publication is revision 1 (no `revision` key in report.json).

The analysis, narrative, rendering and idempotency code is imported by the first report, not by the handler:
the sweep runs every 15 minutes and, with no stuck run, needs none of it (a cold start for nothing otherwise).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.cloud.store import planned_at
from prhub.core.errors import InputError
from prhub.core.models import ScoredPR
from prhub.core.period import format_timestamp
from prhub.flow import judgements
from prhub.flow.deps import Deps
from prhub.flow.messages import ReportMessage
from prhub.site import paths as sitepaths
from prhub.sources.source import TimedSource

if TYPE_CHECKING:
    from prhub.cloud.store import Run
    from prhub.core.report import Report
    from prhub.flow.announce import Publication
    from prhub.report.results import Composition

logger = Logger(service="prhub", child=True)

REPORT_IDEMPOTENCY_SECONDS = 7 * 86_400


def report_message(message: ReportMessage, deps: Deps) -> dict[str, Any]:
    """A ReportQueue message, or the sweep schedule's event: the run's report (revision N), or the sweep."""
    if not message.sweep:
        return report_once(message.run_id, deps, message.revision)
    return sweep(message.older_than_minutes, deps)


def report_once(run_id: str, deps: Deps, revision: int = 1) -> dict[str, Any]:
    """Build and publish the run's report (revision `revision`); a second call (redelivery, sweep) returns the
    first answer (run_id and revision as ReportMessage checked them, or as the sweep found them)."""
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
    """The run's report as revision `revision`: composed from its results, published, announced."""
    # The steps load the analysis, the renderers and the services after publication: with the first report.
    from prhub.flow.announce import announce
    from prhub.model import narrator
    from prhub.report.results import compose, pending, told

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
    how = composition(run, revision, deps)
    report = compose(run, results, how)
    narrator.record_cost(report["scorer"])
    publication = publish(report, run, told(results, how.cached_as), len(results), pending(run, results), revision,
                          deps)
    return announce(publication, deps)


def composition(run: Run, revision: int, deps: Deps) -> Composition:
    """What the run's report reads besides its results: its model's name, narrator and prices, the repository's
    judgements (the CHANGELOG's and the watch list's as the plan read them, run.judgements; read again only for a
    run planned before the plan kept them), the clock."""
    from prhub.model import narrator
    from prhub.model.answers import from_earlier_run
    from prhub.report.results import Composition

    model, prompt_version = deps.scorers.describe(run.config)
    chat = deps.scorers.narrator(run.config)
    prices = deps.scorers.prices()
    said = judgements.gather(run.config, lambda: TimedSource(deps.sources(run.source), deps.deadline()), deps.store,
                             deps.settings, run.judgements)
    return Composition(revision, format_timestamp(deps.clock()), deps.now(), model, prompt_version, prices, said,
                       lambda draft: narrator.model_narrative(draft, run.config, chat, deps.cache, prices),
                       from_earlier_run)


def publish(report: Report, run: Run, scored: list[ScoredPR], results: int, pending: list[int], revision: int,
            deps: Deps) -> Publication:
    """Render the report and publish it, with its PR pages' facts and the dashboard's record (pulls.json) and the
    indexes; the CDN's copies invalidated. A report at this URL made from a newer or more complete run of the range
    (an orphaned run swept late, a late revision of a run a later one replaced) stays: nothing is published."""
    # The renderers: with the first report, not at the handler's import.
    from prhub.flow import pages
    from prhub.flow.announce import Publication
    from prhub.site import publish as site
    from prhub.site.render import render_all

    home = deps.watchlist().get(run.repo, run.config.slice).language
    prefix = site.report_prefix(report, home)  # the configured language at the root, a --lang run beside it
    holder = deps.store.superseding(prefix, run, results)
    made = Publication(run, report, revision, home, prefix, scored, results, pending, holder or "")
    if holder is not None:
        return made
    files = render_all(report, home, deps.settings.cjk_font)
    keys = site.publish_report(deps.bucket, report, files, home)
    # Before the indexes: the dashboard reads the pulls.json it writes (the run's history with it, and the weeks of
    # the dashboard's year no earlier run recorded, listed now from the run's source).
    pages.publish_facts(report, scored, deps, run.history, run.config)
    keys += site.rebuild_indexes(deps.bucket, sitepaths.base(report), deps.settings.site_url, home)  # or the slice's
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    return made


WAIT_LIMIT = 6 * 3600  # seconds after planning from which a run's waiting PRs no longer hold its report back


def sweep(older_than_minutes: float, deps: Deps) -> dict[str, Any]:
    """Report every unreported run whose last progress is older than N minutes, missing PRs as unscored; publish
    every revision claimed but not published N minutes after it was claimed (its message lost or failed).

    A run whose PRs were handed back for later (rate limits) is waiting, not stuck: its last progress counts
    from when they come back. Once the run is WAIT_LIMIT old it is reported anyway; the PRs scored after that
    make a new revision. The answer lists the runs it left waiting under `waiting`, when there are any.
    `older_than_minutes` as ReportMessage checked it (a number >= 0)."""
    now = deps.now()
    cutoff = now - older_than_minutes * 60
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

