"""The run store's ports, one per concern: what a flow service may ask of runs, results, the token budget,
publications and judgements. prhub.cloud.store.Store implements them all on DynamoDB (a part per concern:
prhub.cloud.runs, results, budget, publications, judgements); tests/fakes/memory.py has an in-memory fake of each.

A function that needs one concern takes that port, so its test can hand in that fake alone; `RunStore`, every
port at once, is what Deps holds. Conditional writes carry the flow's guarantees: put_result/put_failure return
False for a duplicate and change nothing; claim_report and each claim_revision are won once.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from prhub.cloud.budget import TokenBudget
from prhub.cloud.results import Result
from prhub.cloud.runs import Progress, Run
from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period

__all__ = ["KeptJudgements", "Publications", "Results", "RunStore", "Runs", "TokenBudget"]


class Runs(Protocol):
    """The run item: written once by the plan (or recorded as failed), fanned out, read, claimed for its report."""

    def create_run(self, run_id: str, config: RepoConfig, period: Period, source: str, refs: list[PullRef],
                   now: int, created_at: str, notes: list[str] | None = None,
                   history: History | None = None, learned: dict[str, Any] | None = None,
                   judgements: list[Judgement] | None = None) -> bool: ...

    def fail_run(self, run_id: str, config: RepoConfig, period: Period, source: str, error: str, now: int,
                 created_at: str) -> bool: ...

    def mark_fanned(self, run_id: str, count: int) -> None: ...

    def get_run(self, run_id: str, consistent: bool = True) -> Run | None: ...

    def progress(self, run_id: str) -> Progress | None: ...

    def open_runs(self) -> Iterator[Run]: ...

    def runs_of(self, repo: str) -> Iterator[Run]: ...

    def claim_report(self, run_id: str, now: int) -> bool: ...

    def defer(self, run_id: str, until: int) -> None: ...


class Results(Protocol):
    """Per-PR results, each stored once and counted on its run (with the tokens it settles)."""

    def put_result(self, run_id: str, scored: ScoredPR, now: int, cached: bool = False, tokens: int = 0
                   ) -> bool: ...

    def put_results(self, results: Sequence[tuple[str, ScoredPR, bool, int]], now: int) -> list[bool]: ...

    def put_failure(self, run_id: str, number: int, reason: str, now: int) -> bool: ...

    def results(self, run_id: str) -> list[Result]: ...


class Publications(Protocol):
    """A run's report revisions: claimed once, recorded as published, and the better run's report that stays."""

    def claim_revision(self, run_id: str, revision: int, now: int) -> bool: ...

    def superseding(self, folder: str, run: Run, results: int) -> str | None: ...

    def mark_reported(self, run_id: str, report_key: str, reported_at: str, now: int, revision: int = 1,
                      results: int = 0, pending: list[int] | None = None, superseded_by: str = "") -> bool: ...


class KeptJudgements(Protocol):
    """The judgements the flow could not read again (a judgements file's, labels, corrections), by repository."""

    def put_judgements(self, judgements: list[Judgement]) -> None: ...

    def forget_judgement(self, repo: str, pr: int, source: str) -> None: ...

    def judgements(self, repo: str) -> list[Judgement]: ...


class RunStore(Runs, Results, TokenBudget, Publications, KeptJudgements, Protocol):
    """Every port of the store at once: what a handler's Deps holds (prhub.cloud.store.Store)."""
