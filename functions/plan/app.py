"""PlanFunction: a schedule event (every watched repo, last week) or {"repo", "since", "until"} -> runs."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from prhub import flow
from prhub.errors import InputError, SourceError

logger = Logger()


@logger.inject_lambda_context
def handler(event: Any, context: Any) -> dict[str, Any]:
    try:
        runs = flow.plan(event, flow.Deps.from_env(lambda_context=context))
    except (InputError, SourceError) as exc:
        # The caller's mistake (or an unreachable source): say so plainly; nothing was written.
        logger.warning("plan refused", extra={"error": str(exc)})
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "runs": runs}
