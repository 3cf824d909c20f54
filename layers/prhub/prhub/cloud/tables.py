"""What the run store's parts share (prhub.cloud.store): the DynamoDB client and the table names, a run's key,
how long an item lives, and the conditional write that says whether it won.

Each part (runs, results, the token budget, publications, judgements) is a `Tables` on the same client, so the
composed Store and each part alone behave alike: a test or a caller that needs one concern builds that one.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from prhub.cloud.dynamo import condition_failed, to_item
from prhub.core.config import Settings

RUN_TTL_DAYS = 90
DAY = 86_400


class Tables:
    """The flow's tables (runs, results, judgements; their names from Settings) on one low-level DynamoDB client,
    handed in so moto, LocalStack and AWS need no code change."""

    def __init__(self, dynamodb: Any, settings: Settings) -> None:
        self.db = dynamodb
        self.settings = settings

    @staticmethod
    def run_key(run_id: str) -> dict[str, Any]:
        """The run item's key (the runs table's, and the results' partition)."""
        return to_item({"run_id": run_id})


def expires(now: int) -> int:
    """When an item written at `now` (epoch seconds) goes: runs and results live RUN_TTL_DAYS."""
    return now + RUN_TTL_DAYS * DAY


def won(write: Callable[[], object]) -> bool:
    """Run a conditional write: False when its condition failed (nothing changed), True when it was written; any
    other error is raised."""
    try:
        write()
    except ClientError as exc:
        if condition_failed(exc):
            return False
        raise
    return True
