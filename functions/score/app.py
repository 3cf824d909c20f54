"""ScoreFunction: an SQS batch of {run_id, number, ref}; failed records are reported, not the batch."""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from prhub.cloud import tracing
from prhub.flow.deps import Deps
from prhub.flow.score import score_batch

logger = Logger()
_deps: Deps | None = None  # built on the first invocation, kept while the environment is warm


@tracing.handler  # Powertools Tracer, made on the first invocation (prhub.cloud.tracing: not at import)
@logger.inject_lambda_context
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The batch's PRs scored (concurrently when they ask the model); the failed ones listed for SQS."""
    global _deps
    _deps = _deps or Deps.from_env()
    return score_batch(event, _deps.invoked(context))
