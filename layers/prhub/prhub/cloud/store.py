"""The run store on DynamoDB: the flow's tables behind one object, composed of a part per concern.

    prhub.cloud.runs          the run item (Run, Progress): written once, fanned out, claimed for its report
    prhub.cloud.results       per-PR results, each stored and counted on its run in one transaction
    prhub.cloud.budget        the run's model-token counter, and a worker's RunBudget on it
    prhub.cloud.publications  revisions claimed and published, and the supersession of one run's report by another
    prhub.cloud.judgements    what maintainers said of PRs, kept beyond the runs' expiry
    prhub.cloud.tables        what they share: the client and table names, the run's key, expiry, conditional writes

The guarantees of the flow live in those parts as conditional writes; each part's module says which. A handler
builds the whole `Store` (prhub.flow.deps); a service that needs one concern is typed with that concern's port
(prhub.flow.ports), so a test can hand it just that part or its in-memory fake (tests/fakes/memory.py).

The run item's names are importable from here as well, the store's vocabulary in one place for its callers.
"""
from __future__ import annotations

from prhub.cloud.budget import DynamoBudget, RunBudget, TokenBudget
from prhub.cloud.judgements import DynamoJudgements
from prhub.cloud.publications import REPORT_KEY_INDEX, DynamoPublications, better, planned_at
from prhub.cloud.results import MAX_TRANSACT_PUTS, DynamoResults, Result
from prhub.cloud.runs import (
    EPOCH,
    FAILED,
    DynamoRuns,
    Progress,
    Run,
    RunName,
    channel_ref,
    is_literal,
    literal_channels,
    parse_run_id,
    run_id,
)
from prhub.cloud.tables import DAY, RUN_TTL_DAYS

__all__ = ["DAY", "EPOCH", "FAILED", "MAX_TRANSACT_PUTS", "REPORT_KEY_INDEX", "RUN_TTL_DAYS", "Progress", "Result",
           "Run", "RunBudget", "RunName", "Store", "TokenBudget", "better", "channel_ref", "is_literal",
           "literal_channels", "parse_run_id", "planned_at", "run_id"]


class Store(DynamoRuns, DynamoResults, DynamoBudget, DynamoPublications, DynamoJudgements):
    """Every part on one client and one Settings (`Store(dynamodb, settings)`): prhub.flow.ports.RunStore."""
