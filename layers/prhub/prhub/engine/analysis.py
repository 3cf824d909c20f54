"""The period's analysis: from scored PRs to the facts of the report (prhub.core.report.Analysis).

Contract:

    analyse_period(prs, unscored, period, config, history, generated_at, scorer) -> Analysis

`prs` are this period's scored PRs; `unscored` lists {number, title, url, reason}
for PRs that could not be scored; `history` is every PR known from the stored
history as dicts {number, title, author, merged_at, url, modules?} — it includes
this period's PRs and at least the 4 same-length periods before it
(`Period.previous(4)`: the weeks before a week, the months before a month; listing
only: modules then come from the title). Same input, same output: every list has a
total order.

What it computes: stats; module trends against those 4 periods (a module with a
baseline but no PR this period is listed with pr_count 0, fading); hot files
(changed by 2+ PRs, lock and generated files ignored, top 10); clusters of PRs
working on the same subject (prhub.engine.clusters), named after their lead PR under its subsystem; revert chains
(prhub.engine.reverts), found through `history` so they reach across weeks, with the PR that re-lands or re-fixes
the change (the reverted PR's `prs[]` entry gets `reverted_by`); risks, one entry per
kind. The narrative slots stay empty: the
title, the run's notes and the narrative are prhub.report.compose's.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import Any, Protocol

from prhub.core.config import RepoConfig
from prhub.core.models import NO_AUTHOR, ScoredPR
from prhub.core.period import Period, zone
from prhub.core.report import (
    SCHEMA,
    Analysis,
    HotFile,
    Module,
    PrEntry,
    Revert,
    RiskGroup,
    RiskItem,
    Scorer,
    Stats,
    TrendWeek,
    Unscored,
)
from prhub.engine import headline, reviews
from prhub.engine.changes import file_kind
from prhub.engine.clusters import clusters_of, file_users
from prhub.engine.reverts import revert_chains, timestamp, when
from prhub.engine.risks import KINDS
from prhub.engine.scoring import modules_from_title
from prhub.engine.wording import joined, say

TREND_WEEKS = 4
HOT_FILES = 10
HISTORY_FOR_NEWCOMERS_DAYS = 366  # shorter history than this: say how far "first-time" looks back (vite's
# maintainers, no PR in the 33 weeks an export held, had been welcomed as first-time)


class PriorRecord(Protocol):
    """The repository's record before a period, as the analysis reads it (prhub.sources.source.History is one):
    the comparison periods' PRs as history entries, each earlier author's first merge by lower-case login, and
    the earliest merge the source sees ("" when it sees the whole repository)."""

    @property
    def earlier(self) -> list[dict[str, Any]]: ...

    @property
    def first_merged(self) -> dict[str, str]: ...

    @property
    def reach(self) -> str: ...


def _known(prs: list[ScoredPR], history: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Every PR known, by number: history first, this week's scored facts over it."""
    known: dict[int, dict[str, Any]] = {}
    for entry in history:
        try:
            known[int(entry["number"])] = {**entry, "number": int(entry["number"])}
        except (KeyError, TypeError, ValueError):
            continue
    for p in prs:
        known[p.number] = {"number": p.number, "title": p.title, "author": p.author, "merged_at": p.merged_at,
                           "url": p.url, "modules": p.modules, "reverts": p.reverts, "reverts_also": p.reverts_also}
    return known


def _module_trends(prs: list[ScoredPR], period: Period, known: dict[int, dict[str, Any]],
                   history_known: bool) -> tuple[list[Module], list[TrendWeek]]:
    weeks = period.previous(TREND_WEEKS)  # same-length periods: weeks before a week, months before a month
    per_week, totals = _earlier_counts(weeks, known)
    current: dict[str, list[int]] = defaultdict(list)
    for p in prs:
        for m in set(p.modules):
            current[m].append(p.number)
    names = set(current) | {m for c in per_week for m in c}
    modules: list[Module] = []
    for name in names:
        baseline = round(sum(c[name] for c in per_week) / len(weeks), 2)
        count = len(current.get(name, []))
        if count == 0 and baseline < 1.0:
            continue  # a module seen once in a month is not news when it is quiet
        delta = round(count - baseline, 2)
        # a period with nothing scored is a quiet one, not every module falling at once
        trend = _trend(count, baseline, delta, history_known) if prs else "steady"
        modules.append({"name": name, "pr_count": count, "prs": sorted(current.get(name, [])),
                        "baseline": baseline, "delta": delta, "trend": trend})
    modules.sort(key=lambda m: (-m["pr_count"], -m["baseline"], m["name"]))
    trend_weeks: list[TrendWeek] = [{"since": w.since.isoformat(), "until": w.until.isoformat(), "pr_count": totals[i]}
                   for i, w in enumerate(weeks)]
    return modules, trend_weeks


def _earlier_counts(weeks: list[Period], known: dict[int, dict[str, Any]]) -> tuple[list[Counter[str]], list[int]]:
    """Per comparison period: the PRs of each module, and all its PRs."""
    bounds = [(w.start_utc, w.end_utc) for w in weeks]  # Period.contains recomputes them per call
    per_week: list[Counter[str]] = [Counter() for _ in weeks]
    totals = [0 for _ in weeks]
    for entry in known.values():
        moment = when(entry)
        for i, (start, end) in enumerate(bounds):
            if start <= moment < end:
                totals[i] += 1
                mods = entry.get("modules") or modules_from_title(str(entry["title"])) or ["misc"]
                per_week[i].update(set(mods))
    return per_week, totals


def _trend(count: int, baseline: float, delta: float, history_known: bool) -> str:
    """rising | fading | steady | new, of a module's PR count against its baseline."""
    if baseline == 0:
        return "new" if history_known else "steady"
    if count >= baseline * 1.5 and delta >= 2:
        return "rising"
    if count <= baseline * 0.5 and delta <= -1:
        return "fading"
    return "steady"


def _risks(prs: list[ScoredPR], language: str = "en") -> list[RiskGroup]:
    items: dict[str, list[RiskItem]] = defaultdict(list)
    for p in sorted(prs, key=lambda p: p.number):
        for risk in p.risks:
            items[risk.kind].append({"pr": p.number, "detail": risk.detail})
    order = {k: i for i, k in enumerate(KINDS)}
    result: list[RiskGroup] = []
    for kind in sorted(items, key=lambda k: (order.get(k, len(order)), k)):
        entries = items[kind]
        colon = "：" if language == "zh" else ": "
        shown = [f"#{e['pr']}{colon}{e['detail']}" for e in entries[:3]]
        if len(entries) > 3:
            shown.append(say(language, "and_more", n=len(entries) - 3))
        result.append({"kind": kind, "prs": [e["pr"] for e in entries], "detail": joined(language, shown),
                       "items": entries})
    return result


@dataclass(frozen=True)
class _Reach:
    """How far back the repository's record lets the analysis judge "new"."""

    known: bool  # the record reaches before the period (or sees the whole repository)
    since: str  # the local day the record starts, "" when it sees the whole repository or knows nothing before
    weeks: int  # the weeks it covers when shorter than HISTORY_FOR_NEWCOMERS_DAYS, else 0
    notes: list[str]


def _reach(history: PriorRecord, period: Period, language: str) -> _Reach:
    start = period.start_utc
    reach = timestamp(history.reach) if history.reach else None  # None: the source sees the whole repository
    if reach is None:
        return _Reach(True, "", 0, [])
    if reach >= start:
        return _Reach(False, "", 0, [say(language, "no_history")])
    since = f"{reach.astimezone(zone(period.tz)):%Y-%m-%d}"
    if (start - reach).days < HISTORY_FOR_NEWCOMERS_DAYS:
        # The record starts shortly before the period: "first-time" then means "first since it starts".
        return _Reach(True, since, math.ceil((start - reach).days / 7) or 1,
                      [say(language, "short_history", since=since)])
    return _Reach(True, since, 0, [])


def _new_contributors(prs: list[ScoredPR], history: PriorRecord, config: RepoConfig, reach: _Reach) -> list[str]:
    """The people whose first merged PR is in the period, in the order they merged; none without history."""
    first_seen: dict[str, int] = {}
    for p in sorted(prs, key=lambda p: (p.merged_at, p.number)):
        # New: no merged PR in the repository before the period, as its source says.
        if (reach.known and p.author.lower() not in history.first_merged and not config.is_bot(p.author)
                and p.author != NO_AUTHOR):
            first_seen.setdefault(p.author, p.number)
    return sorted(first_seen, key=lambda a: (first_seen[a], a))


def _stats(prs: list[ScoredPR], config: RepoConfig, reach: _Reach, newcomers: list[str], unscored: int) -> Stats:
    n = len(prs)  # the scored PRs: what the averages and sizes are of
    stats: Stats = {
        "pr_count": n + unscored,  # every merged PR of the period, as the headline says
        "unscored_count": unscored,  # of them, not scored yet (or for good): the figures below leave them out
        "key_pr_count": sum(p.key for p in prs),
        "avg_importance": round(sum(p.importance for p in prs) / n, 1) if n else 0.0,
        "avg_insight": round(sum(p.insight for p in prs) / n, 1) if n else 0.0,
        "additions": sum(p.additions for p in prs),
        "deletions": sum(p.deletions for p in prs),
        # people: bots are counted apart, and a PR whose author is gone has nobody to count
        "authors": len({p.author for p in prs if not config.is_bot(p.author) and p.author != NO_AUTHOR}),
        "new_contributors": newcomers,
        # How far back "new" was judged, so a report can say "not seen in the 4 weeks before" when that is all
        # it knows: "" without history; new_contributors_window is the weeks covered when the history is short.
        "history_since": reach.since,
        "new_contributors_window": reach.weeks,
        "types": dict(sorted(Counter(p.type for p in prs).items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    bot_prs = [p for p in prs if config.is_bot(p.author)]
    if bot_prs:
        stats["bots"] = {"prs": len(bot_prs), "logins": sorted({p.author for p in bot_prs}, key=str.lower)}
    reviews = Counter(r for p in prs for r in p.reviewers if not config.is_bot(r))  # review bots are not people
    if reviews:
        stats["reviewers"] = [{"login": r, "reviews": c} for r, c in sorted(reviews.items(), key=lambda kv: (-kv[1],
                                                                                                            kv[0]))]
    return stats


def _hot_files(prs: list[ScoredPR]) -> list[HotFile]:
    """The files 2+ PRs changed, most changed first, at most HOT_FILES."""
    hot = sorted(((path, users) for path, users in file_users(prs).items() if len(users) >= 2),
                 key=lambda kv: (-len(kv[1]), kv[0]))[:HOT_FILES]
    return [{"path": path, "pr_count": len(users), "prs": sorted(users)} for path, users in hot]


def _entries(prs: list[ScoredPR], reverts: list[Revert], config: RepoConfig) -> list[PrEntry]:
    """The PRs' report entries, a reverted one marked with its revert (wherever the PR is shown), each with what
    the brief says of it in the report's language (engine.headline)."""
    reverted_by = {c["reverts"]: c["pr"] for c in reverts if c["reverts"]}
    entries, language = [], config.language
    for p in prs:
        entry = p.pr_entry()
        if p.number in reverted_by:
            entry["reverted_by"] = reverted_by[p.number]
        kinds = [file_kind(f, config.test_paths) for f in p.files]
        entry["headline"] = headline.headline(p.title, p.summary, p.type, p.modules, p.changed_files, p.additions,
                                              p.deletions, language, headline.main_file(p.files, p.file_lines, kinds),
                                              p.released)
        entry["measured"] = headline.measured(p.measured, p.summary)
        entry["points"] = headline.points(p.summary, p.breaking, p.breaking_reason, p.risks,
                                          reverted_by.get(p.number), p.changed_files, p.additions, p.deletions,
                                          language, said_size=headline.says_size(entry["headline"]),
                                          kinds=set(kinds),
                                          measured=entry["measured"])
        if p.released:
            entry["released"] = p.released
        entries.append(entry)
    return entries


def analyse_period(prs: list[ScoredPR], unscored: list[Unscored], period: Period, config: RepoConfig,
                   history: PriorRecord, generated_at: str, scorer: Scorer) -> Analysis:
    """The analysis of one period; deterministic for the same arguments. `history` is the repository's own
    record before the period, from its source (never what earlier runs stored)."""
    prs = sorted(prs, key=lambda p: (-p.importance, p.number))
    # The review risks are the period's (whether the repository usually reviews, which later PR takes a follow-up
    # up): added to the PRs' own here, after their judgement, so review text never moves a score.
    review, review_risks = reviews.period_reviews(prs, config, history.earlier)
    prs = [replace(p, risks=[*p.risks, *review_risks[p.number]]) if p.number in review_risks else p for p in prs]
    known = _known(prs, history.earlier)
    reach = _reach(history, period, config.language)
    notes = list(reach.notes)
    modules, trend_weeks = _module_trends(prs, period, known, reach.known)
    this_week = len(prs) + len(unscored)  # listing counts of earlier weeks include PRs that failed to score
    trend_weeks.append({"since": period.since.isoformat(), "until": period.until.isoformat(), "pr_count": this_week})
    reverts = revert_chains(prs, known)
    if unscored:
        notes.append(say(config.language, "unscored", n=len(unscored)))
    # With `paths` (a slice, or a repository narrowed to paths) the report says what it covers, after its repo.
    narrowed: dict[str, Any] = {"slice": {"name": config.slice, "paths": list(config.paths)}} if config.paths else {}
    facts: Analysis = {
        "schema": SCHEMA,
        "repo": config.repo,
        **narrowed,  # type: ignore[typeddict-item]
        "period": {"since": period.since.isoformat(), "until": period.until.isoformat(), "tz": period.tz},
        "generated_at": generated_at,
        "language": config.language,
        "scorer": scorer,
        "stats": _stats(prs, config, reach, _new_contributors(prs, history, config, reach), len(unscored)),
        "prs": _entries(prs, reverts, config),
        "modules": modules,
        "hot_files": _hot_files(prs),
        "clusters": clusters_of(prs, reverts, config),
        "reverts": reverts,
        "risks": _risks(prs, config.language),
        "highlights": [],
        "key_changes": [],
        "trends": {"weeks": trend_weeks},
        "summary": "",
        "suggestions": [],
        "unscored": unscored,
        "notes": notes,
    }
    if review is not None:  # a period without review data (an export without it) has no such key
        facts["reviews"] = review
    return facts
