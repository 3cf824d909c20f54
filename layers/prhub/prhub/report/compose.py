"""The one place a report is put together: analysis, title, the run's notes, narrative.

Contract:

    report(prs, unscored, period, config, history, generated_at, scorer, run_notes=(), narrator=engine_narration,
           revision=1, changes=None, prices=None, judged=None, corrected=None) -> Report (prhub.core.report)
    draft(...same, without narrator and prices) -> Report   what the narrator reads: the narrative sections still empty

prhub.engine.analysis.analyse_period computes the period's facts; the title and the
run's notes (what only planning knew, such as export lines it skipped) are set here;
then the narrator reads that draft and writes the narrative. The default is the
engine's; the ReportFunction hands in prhub.model.narrator.model_narrative, which lets the
model write wherever it is configured and falls back to the engine per section. Given
the run's price table, the report then accounts for the model's part (`accounted`): the
narrative's tokens added to the run's, the run's cost and each PR's.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.models import ScoredPR
from prhub.core.period import Period, zh_dates
from prhub.core.report import Changes, Cost, Narration, PrEntry, Report, Scorer, Unscored
from prhub.engine import analysis, narrative, summary
from prhub.engine.wording import joined, say

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]

Narrator = Callable[[Report], Narration]


class PriceTable(Protocol):
    """Model prices per million tokens (prhub.model.pricing.Prices)."""

    @property
    def as_of(self) -> str: ...

    def rate(self, model: str | None) -> tuple[float, float] | None: ...

    def cost(self, model: str | None, tokens_in: int, tokens_out: int) -> float | None: ...


def title(repo: str, period: Period, lang: str) -> str:
    """The report's title by the period's kind: a week's report (周报), a month's (月报), a year's (年报), else a
    report for its dates. `repo` as RepoConfig.display_name names it: a slice by its name too."""
    week, kind = period.iso_week, period.kind
    s, u = period.since, period.until
    if lang == "zh":
        # Chinese dates: a month's or a year's title names it whole, a week's says its days
        if week:
            return f"{repo} {week[0]} 年第 {week[1]} 周周报（{zh_dates(s, u, year=False)}）"
        if kind == "month":
            return f"{repo} {s.year} 年 {s.month} 月月报"
        if kind == "year":
            return f"{repo} {s.year} 年年报"
        return f"{repo} 报告（{zh_dates(s, u)}）"
    if week:
        end = f"{u.day}" if s.month == u.month else f"{MONTHS[u.month - 1]} {u.day}"
        return f"{repo} weekly report, {week[0]}-W{week[1]:02d}, {MONTHS[s.month - 1]} {s.day}–{end}"
    if kind == "month":
        return f"{repo} monthly report, {MONTH_NAMES[s.month - 1]} {s.year}"
    if kind == "year":
        return f"{repo} annual report, {s.year}"
    return f"{repo} report, {s.isoformat()} to {u.isoformat()}"


def paths_note(config: RepoConfig) -> list[str]:
    """What a report narrowed to `paths` says it covers (its notes reach every rendering)."""
    if not config.paths:
        return []
    globs = ", ".join(config.paths)
    if config.language == "zh":
        return [f"本报告只包含改动了以下路径的 PR：{globs}。"]
    return [f"This report covers only the PRs touching {globs}."]


def engine_narration(draft: Report) -> Narration:
    """The engine's narrative; the scorer and notes stay as they are."""
    return {**narrative.engine_narrative(draft), "scorer": draft["scorer"], "notes": draft["notes"],
            "summary_evidence": summary.evidence(draft)}


def revision_notes(language: str, revision: int, changes: Changes) -> list[str]:
    """The notes a revision carries (in every format, as every note), from its `changes`: the late results, and
    the maintainers' corrections when there are any."""
    late = sorted({*changes["scored"], *changes["failed"]})
    judged = changes.get("judged") or []
    made = [("revision", late)] if late or not judged else []
    return [say(language, key, revision=revision, since=changes["since"] or "?", n=len(prs),
                prs=joined(language, [f"#{n}" for n in prs], "comma") or "-")
            for key, prs in [*made, *([("revision_judged", judged)] if judged else [])]]


def draft(prs: list[ScoredPR], unscored: list[Unscored], period: Period, config: RepoConfig,
          history: History, generated_at: str, scorer: Scorer, run_notes: Sequence[str] = (),
          revision: int = 1, changes: Changes | None = None, judged: Mapping[int, str] | None = None,
          corrected: Mapping[int, str] | None = None) -> Report:
    """The report before its narrative: the analysis, the title and every note; deterministic. A revision after
    the first (`revision` > 1, with what changed) says so in report.json and in a note. With `judged` (the
    repository's judgements, by PR: prhub.flow.judgements) each PR says its verdict, or None; `corrected` (the
    maintainers' corrections among them, `prhub judge`) is the verdict on its PR: its key flag, and so the key
    count, the key-PR table and the highlights."""
    facts = analysis.analyse_period(overruled(prs, corrected or {}), unscored, period, config, history, generated_at,
                                    scorer)
    if judged:
        facts["prs"] = [{**p, "judged": judged.get(p["number"])} for p in facts["prs"]]
    notes = [*facts["notes"], *run_notes, *paths_note(config)]
    if revision > 1 and changes is not None:
        notes += revision_notes(config.language, revision, changes)
    # report.json's key order: the analysis's keys, then the title and the narrative's three note sections.
    out: Report = {**facts, "notes": notes, "title": title(config.display_name, period, config.language),
                   "trend_notes": [], "risk_notes": [], "relation_notes": []}
    if revision > 1 and changes is not None:
        out["revision"], out["changes"] = revision, changes
    return out


def report(prs: list[ScoredPR], unscored: list[Unscored], period: Period, config: RepoConfig,
           history: History, generated_at: str, scorer: Scorer, run_notes: Sequence[str] = (),
           narrator: Narrator = engine_narration, revision: int = 1, changes: Changes | None = None,
           prices: PriceTable | None = None, judged: Mapping[int, str] | None = None,
           corrected: Mapping[int, str] | None = None) -> Report:
    """The report of one period: its draft with the narrator's narrative, scorer and notes, accounted at `prices`
    when the run has a price table."""
    base = draft(prs, unscored, period, config, history, generated_at, scorer, run_notes, revision, changes,
                 judged, corrected)
    narration = narrator(base)
    return {**base, **(narration if prices is None else accounted(base, narration, prices))}


def overruled(prs: list[ScoredPR], corrected: Mapping[int, str]) -> list[ScoredPR]:
    """The PRs with the maintainers' corrections as their key flag (the scores stay the scorer's: a correction
    says whether a PR is key, not how it ranks)."""
    return [replace(p, key=corrected[p.number] == "key") if p.number in corrected else p for p in prs]


def accounted(draft: Report, narration: Narration, prices: PriceTable) -> Narration:
    """The narration with the run's accounting: the narrative's tokens added to the scorer's; where a model wrote
    or scored (narrative_model, else model), what the run's tokens cost and each PR's (priced)."""
    info = narration["scorer"].copy()
    info["tokens_in"] = info.get("tokens_in", 0) + info.get("narrative_tokens_in", 0)
    info["tokens_out"] = info.get("tokens_out", 0) + info.get("narrative_tokens_out", 0)
    model = info.get("narrative_model") or info.get("model")
    if not model:
        return {**narration, "scorer": info}
    info["cost"] = cost(prices, model, info["tokens_in"], info["tokens_out"])
    return {**narration, "scorer": info, "prs": priced(list(draft.get("prs") or []), prices, model)}


def cost(prices: PriceTable, model: str, tokens_in: int, tokens_out: int) -> Cost:
    """What the run's tokens cost at `model`'s prices, with the table's date and the prices themselves."""
    rate = prices.rate(model)
    return {"usd": prices.cost(model, tokens_in, tokens_out), "prices_as_of": prices.as_of,
            "usd_per_million_in": rate[0] if rate else None, "usd_per_million_out": rate[1] if rate else None}


def priced(prs: list[PrEntry], prices: PriceTable, model: str) -> list[PrEntry]:
    """The report's PRs, each that spent model tokens with what they cost (`cost_usd`; None when the model is not
    in the table), priced by the same table as the run's total."""
    return [{**p, "cost_usd": prices.cost(model, p.get("tokens_in", 0), p.get("tokens_out", 0))}
            if "tokens_in" in p else p for p in prs]
