"""A report's revisions: a result stored after the report was published asks for the next one, exactly once.

    request_revision(run_id, progress, deps)   the score worker that stored a late result, and the report service
                                               after marking a revision, call it; the store's claim
                                               (prhub.cloud.store.Store.claim_revision) lets one caller win revision N,
                                               which then queues {"run_id", "revision": N} for ReportFunction

Apart from both services, so the score worker imports none of the report's code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from aws_lambda_powertools import Logger

from prhub.flow.messages import ReportMessage

if TYPE_CHECKING:
    from prhub.cloud.runs import Progress
    from prhub.flow.deps import Deps

logger = Logger(service="prhub", child=True)


def request_revision(run_id: str, progress: Progress, deps: Deps) -> bool:
    """Ask for the report's next revision when a result arrived after its latest publication; exactly one caller
    wins each revision (the store's claim). A result stored while a revision is pending is picked up by that
    revision's publisher, which asks again after marking it (publish_run)."""
    if not progress.late:
        return False
    revision = progress.revision + 1
    if not deps.store.claim_revision(run_id, revision, deps.now()):
        return False
    deps.queue.send(deps.settings.report_queue_url, ReportMessage(run_id, revision).body())
    logger.info("late results, report revision requested", extra={"run_id": run_id, "revision": revision})
    return True
