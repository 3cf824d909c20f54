"""PlanFunction: a schedule event (every watched repo, last week) or {"repo", "since", "until"} -> runs."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from prhub.errors import InputError, SourceError
from prhub.flow.deps import Deps
from prhub.flow.plan import plan

logger = Logger()
_deps: Deps | None = None  # built on the first invocation, kept while the environment is warm


@logger.inject_lambda_context
def handler(event: Any, context: Any) -> dict[str, Any]:
    global _deps
    _deps = _deps or Deps.from_env()
    try:
        runs = plan(event, _deps.invoked(context))
    except (InputError, SourceError) as exc:
        # The caller's mistake (or an unreachable source): say so plainly; nothing was written.
        logger.warning("plan refused", extra={"error": str(exc)})
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "runs": runs}
