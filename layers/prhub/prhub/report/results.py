"""A run's results composed into its report: the first of the report service's three steps (prhub.flow.publish).

    compose(run, results, how) -> Report   pure: what it reads besides the run and its results (the clock, the
                                           model's name and prices, the judgements, the narrator) comes in `how`,
                                           which the report service gathers; nothing is read or written here
    told(results, cached_as) -> list[ScoredPR]   the scored PRs as the report tells them (its PR pages' too)
    pending(run, results) -> list[int]     the listed PRs with neither a result nor a failure yet

The run and its results are the store's records (prhub.cloud.store.Run and Result), read through the Protocols
below: the domain names no adapter.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period, format_timestamp
from prhub.core.report import Changes, Report, Scorer, Unscored
from prhub.engine.wording import say
from prhub.report.compose import Narrator, PriceTable, report


class RunRecord(Protocol):
    """What a report reads of its run."""

    @property
    def period(self) -> Period: ...
    @property
    def config(self) -> RepoConfig: ...
    @property
    def listing(self) -> list[PullRef]: ...  # the period's PRs, as the plan listed them
    @property
    def history(self) -> History: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def waiting_until(self) -> int: ...  # epoch seconds when the last PR handed back for later comes back
    @property
    def reported_at(self) -> str | None: ...  # when the latest revision was published
    @property
    def published_pending(self) -> list[int]: ...  # PRs without a result at the latest publication
    @property
    def learned(self) -> dict[str, Any] | None: ...


class ResultRecord(Protocol):
    """One PR's result as the run keeps it: scored (with the scored PR), or failed for good (with why)."""

    @property
    def number(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def scored(self) -> ScoredPR | None: ...
    @property
    def reason(self) -> str: ...
    @property
    def cached(self) -> bool: ...  # the score cache gave this run its result


@dataclass(frozen=True)
class Composition:
    """What a report reads besides its run and results."""

    revision: int
    generated_at: str  # report.json's generated_at
    now: int  # epoch seconds: whether the run's PRs handed back for later are still due
    model: str | None  # the run's scorer's model and prompt version (report.json `scorer`)
    prompt_version: str
    prices: PriceTable | None
    judgements: list[Judgement]  # every judgement of the repository, one per PR
    narrator: Narrator  # the narrative: the run's model's, or the engine's
    cached_as: Callable[[ScoredPR], ScoredPR]  # how a result the score cache gave the run is told


def compose(run: RunRecord, results: Sequence[ResultRecord], how: Composition) -> Report:
    """The report of the run's results."""
    scored = told(results, how.cached_as)
    unscored = _unscored(run, results, {p.number for p in scored}, how.now)
    said = how.judgements
    changed = (changes(run, {p.number for p in scored}, _reasons(results), corrected_since(run, said))
               if how.revision > 1 else None)
    made = report(scored, unscored, run.period, run.config, run.history, how.generated_at,
                  scorer_info(scored, how.model, how.prompt_version), run.notes, narrator=how.narrator,
                  revision=how.revision, changes=changed, prices=how.prices, judged={j.pr: j.verdict for j in said},
                  corrected={j.pr: j.verdict for j in said if j.source == "correction"})
    if run.learned:  # what the judgements taught, beside the note the plan wrote (report.json `learning`)
        made["learning"] = run.learned
    return made


def told(results: Sequence[ResultRecord], cached_as: Callable[[ScoredPR], ScoredPR]) -> list[ScoredPR]:
    """The scored PRs as the report tells them: a result the score cache gave this run as `cached_as` tells it
    (an engine stand-in says its cause was an earlier run's: a budget since raised would otherwise read as spent
    by this run)."""
    return [cached_as(r.scored) if r.cached else r.scored
            for r in results if r.status == "scored" and r.scored is not None]


def pending(run: RunRecord, results: Sequence[ResultRecord]) -> list[int]:
    """The listed PRs with neither a result nor a failure: a later revision may still tell them."""
    settled = {r.number for r in results if r.status == "failed" or (r.status == "scored" and r.scored is not None)}
    return [r.number for r in sorted(run.listing, key=lambda r: r.number) if r.number not in settled]


def corrected_since(run: RunRecord, judgements: Iterable[Judgement]) -> list[int]:
    """The run's PRs corrected since its latest publication: what a correction's revision changes. Both times are
    to the second: a correction in the publication's own second counts (`prhub judge` right after a run made one
    whose revision said nothing was judged), at worst naming again one the publication already held."""
    listed = {r.number for r in run.listing}
    return sorted({j.pr for j in judgements if j.source == "correction" and j.pr in listed
                   and run.reported_at is not None and j.at >= run.reported_at})


def _reasons(results: Sequence[ResultRecord]) -> dict[int, str]:
    """Why each PR that failed for good has no result."""
    return {r.number: r.reason for r in results if r.status == "failed"}


def _unscored(run: RunRecord, results: Sequence[ResultRecord], done: set[int], now: int) -> list[Unscored]:
    """The listed PRs without a result (`done` has the scored ones), each with why: its failure, or that it is
    still waiting (handed back for later) or its worker never finished."""
    lang = run.config.language
    reasons = {n: say(lang, "failed", detail=why) for n, why in _reasons(results).items()}
    until = format_timestamp(datetime.fromtimestamp(run.waiting_until, UTC))
    missing = say(lang, "no_result_yet", until=until) if run.waiting_until > now else say(lang, "no_result")
    return [{"number": r.number, "title": r.title, "url": r.url, "reason": reasons.get(r.number, missing)}
            for r in sorted(run.listing, key=lambda r: r.number) if r.number not in done]


def changes(run: RunRecord, scored: set[int], failed: dict[int, str], judged: list[int] | None = None) -> Changes:
    """What a revision changes: the PRs without a result when the revision before was published that have one
    now, and the PRs the maintainers corrected since (`judged`)."""
    out: Changes = {"since": run.reported_at or "", "scored": sorted(n for n in run.published_pending if n in scored),
                    "failed": sorted(n for n in run.published_pending if n in failed)}
    if judged:
        out["judged"] = sorted(judged)
    return out


def scorer_info(scored: list[ScoredPR], model: str | None, prompt_version: str) -> Scorer:
    """The report's `scorer`: who scored how many PRs, with the run's scorer's model and prompt version."""
    llm_prs = sum(1 for p in scored if p.scored_by == "llm")
    return {"kind": "llm" if llm_prs else "heuristic", "model": model if llm_prs else None,
            "prompt_version": prompt_version, "tokens_in": sum(p.tokens_in for p in scored),
            "tokens_out": sum(p.tokens_out for p in scored), "llm_prs": llm_prs,
            "heuristic_prs": len(scored) - llm_prs}
