"""PlanFunction: a schedule event (every watched repo, last week) or {"repo", "since", "until"} -> runs."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from prhub.cloud import metrics, tracing
from prhub.core.errors import EventRefused, InputError, SourceError
from prhub.flow.deps import Deps
from prhub.flow.plan import continue_listing, is_scheduled, plan, transient

logger = Logger()
_deps: Deps | None = None  # built on the first invocation, kept while the environment is warm


@tracing.handler  # Powertools Tracer, made on the first invocation (prhub.cloud.tracing: not at import)
@logger.inject_lambda_context
def handler(event: Any, context: Any) -> dict[str, Any]:
    global _deps
    _deps = _deps or Deps.from_env()
    if isinstance(event, dict) and "Records" in event:  # PlanQueue: a listing that outlasted an invocation
        return continue_listing(event, _deps.invoked(context))
    try:
        runs = plan(event, _deps.invoked(context))
    except EventRefused as exc:
        # Retrying would meet the same clock: refuse, count it, write nothing (the real run is not blocked).
        logger.warning("schedule event refused", extra={"error": str(exc)})
        metrics.count("ScheduleEventsRefused")
        return {"ok": False, "error": str(exc)}
    except (InputError, SourceError) as exc:
        if is_scheduled(event):
            # The watch list (or an organisation's listing) failed: no repository is planned. A scheduled
            # (asynchronous) plan that answers is a success to Lambda: raise, so it is retried and then kept in
            # PlanDLQ, to be redriven once fixed. A person's direct invoke gets the message instead.
            logger.error("scheduled plan failed", extra={"error": str(exc)})
            metrics.count("PlansFailed")
            raise
        logger.warning("plan refused", extra={"error": str(exc)})
        # transient: GitHub cannot answer now, and the same request may succeed later (not bad input)
        return {"ok": False, "error": str(exc), **({"transient": True} if transient(exc) else {})}
    # A scheduled repository that failed is its own (flow/plan.py): retried alone or recorded as a failed run.
    missed = [r for r in runs if "error" in r]
    if not missed:
        return {"ok": True, "runs": runs}
    return {"ok": False, "runs": runs, "failed": [r["run_id"] for r in missed if r.get("failed")],
            "retrying": [r["run_id"] for r in missed if r.get("retrying")],
            "error": f"{len(missed)} of {len(runs)} repositories not planned: "
                     + "; ".join(f"{r['repo']}: {r['error']}" for r in missed)}
