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
working on the same thing, named after their lead PR; revert chains, found through
`history` so they reach across weeks, with the PR that re-lands or re-fixes the
change (the reverted PR's `prs[]` entry gets `reverted_by`); risks, one entry per
kind. The narrative slots stay empty: the
title, the run's notes and the narrative are prhub.report.compose's.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from datetime import datetime
from functools import lru_cache
from typing import Any

from prhub.engine import gist
from prhub.engine.changes import is_generated
from prhub.core.config import RepoConfig
from prhub.core.models import ScoredPR
from prhub.core.period import Period, parse_timestamp, zone
from prhub.core.report import (
    SCHEMA,
    Analysis,
    Cluster,
    Module,
    Revert,
    RiskGroup,
    RiskItem,
    Scorer,
    Stats,
    TrendWeek,
    Unscored,
)
from prhub.engine.risks import KINDS
from prhub.engine.scoring import PR_SUFFIX, REVERT_TITLE, modules_from_title, parse_title, reverted_ref
from prhub.sources.source import History
from prhub.engine.wording import joined, say

TREND_WEEKS = 4
HOT_FILES = 10
MAX_CLUSTER = 6  # a "related PRs" group larger than this is a theme, which modules[] already shows
HISTORY_FOR_NEWCOMERS_DAYS = 180  # shorter history than this: say how far "first-time" looks back
STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "with", "without", "by", "from", "via", "as",
    "at", "is", "are", "be", "when", "if", "into", "not", "no", "use", "using", "support", "supports", "add",
    "adds", "added", "fix", "fixes", "fixed", "update", "updates", "updated", "remove", "removes", "make", "makes",
    "new", "more", "some", "all", "its", "it", "this", "that", "default", "issue", "bug", "refactor", "feat",
    "chore", "docs", "doc", "test", "tests", "ci", "perf", "misc", "enable", "enables", "allow", "allows", "change",
    "changes", "improve", "improves", "introduce", "v1", "v2", "code", "file", "files", "run", "running", "error",
    "errors", "case", "cases", "option", "options"
})
RELAND = re.compile(r"^\s*(re-?land(?:ed|ing)?|re-?apply|re-?submit)\b\s*[:：]?\s*", re.IGNORECASE)


@lru_cache(maxsize=65536)
def _norm_title(title: str) -> str:
    """A title reduced to what identifies the change: no Revert/reland wrapper, tags, type or (#N) suffix."""
    text = title.strip()
    for _ in range(3):
        match = REVERT_TITLE.match(text) or REVERT_TITLE.match(parse_title(text)[0])
        if match:
            text = match.group(1)
        text = RELAND.sub("", parse_title(text)[0])
    text = re.sub(r"\s*\(#\d+\)\s*$", "", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@lru_cache(maxsize=65536)
def _is_revert(title: str) -> bool:
    return bool(REVERT_TITLE.match(title) or REVERT_TITLE.match(parse_title(title)[0]))


def _when(entry: dict[str, Any]) -> datetime:
    return _timestamp(str(entry["merged_at"]))


@lru_cache(maxsize=65536)
def _timestamp(value: str) -> datetime:
    return parse_timestamp(value)


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
                           "url": p.url, "modules": p.modules, "reverts": p.reverts}
    return known


def _revert_chains(prs: list[ScoredPR], known: dict[int, dict[str, Any]]) -> list[Revert]:
    """Each revert touching this period (the revert, the reverted PR or what re-lands it merged in it).

    What brings the change back: a later PR of the same title (a re-land); else a later PR of the period that
    refers to the revert or the reverted PR in its title or body, or changes again every file the reverted
    change touched, in one of its modules (a re-fix, as #6265 re-fixes what #6258 reverted of #6226).
    """
    week = {p.number for p in prs}
    ordered = sorted(known.values(), key=lambda e: (_when(e), e["number"]))
    by_title: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in ordered:
        by_title[_norm_title(str(entry["title"]))].append(entry)
    chains: list[Revert] = []
    for entry in ordered:
        if not _is_revert(str(entry["title"])) and not entry.get("reverts"):
            continue
        moment, key = _when(entry), _norm_title(str(entry["title"]))
        # A scored revert knows its target from the body; a listing-only one has its title: match the
        # reverted title first, the title's (#N) suffix last (it may name a PR the reverted one referred to).
        target = known.get(int(entry["reverts"])) if entry.get("reverts") else None
        if target is None:
            earlier = [e for e in by_title.get(key, []) if _when(e) <= moment and e["number"] != entry["number"]
                       and not _is_revert(str(e["title"]))]
            target = earlier[-1] if earlier else None
        if target is None:
            number = reverted_ref(parse_title(str(entry["title"]))[0])[0]
            target = known.get(number) if number else None
        if target is not None:
            key = _norm_title(str(target["title"]))
        later = [e for e in by_title.get(key, []) if (_when(e), e["number"]) > (moment, entry["number"])
                 and not _is_revert(str(e["title"]))]
        how = "reland" if later else ""
        back = later[0]["number"] if later else None
        if back is None:
            back = _refix(entry["number"], target["number"] if target else None, moment, prs)
            how = "refix" if back else ""
        numbers = {entry["number"], target["number"] if target else None, back}
        if numbers & week:
            chain: Revert = {"pr": entry["number"], "reverts": target["number"] if target else entry.get("reverts"),
                             "relanded_by": back,
                             "title": str(target["title"]) if target else _norm_title(str(entry["title"]))}
            if how:
                chain["relanded_how"] = how
            chains.append(chain)
    return chains


def _refix(revert: int, reverted: int | None, moment: datetime, prs: list[ScoredPR]) -> int | None:
    """The first PR of the period merged after `revert` that fixes the reverted change again, or None."""
    scored = {p.number: p for p in prs}
    undone = {revert} | ({reverted} if reverted else set())
    source = scored.get(reverted or 0) or scored.get(revert)  # a revert touches the files it reverts
    files = {f for f in source.files if not is_generated(f)} if source else set()
    modules = set(source.modules) if source else set()
    after = sorted((p for p in prs if (_timestamp(p.merged_at), p.number) > (moment, revert)
                    and p.number not in undone and not _is_revert(p.title)),
                   key=lambda p: (_timestamp(p.merged_at), p.number))
    named = next((p.number for p in after if undone & set(p.refs)), None)
    if named is not None:
        return named
    return next((p.number for p in after if files and files <= set(p.files) and modules & set(p.modules)), None)


def _terms(title: str) -> set[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.+-]{2,}|[\u4e00-\u9fff]{2,}", parse_title(title)[0].lower())
    return {w.strip(".-+") for w in words if w.strip(".-+") not in STOPWORDS}


# Past this many PRs a file or title term is too common to say two PRs belong together (weeks up to 320 PRs
# never reach it; a year of a busy repository does).
MAX_RARE_USERS = 40


def _clusters(prs: list[ScoredPR], reverts: list[Revert], language: str = "en") -> list[Cluster]:
    """Groups of PRs working on the same thing, joined strongest link first and at most MAX_CLUSTER PRs each.

    Links: a reference (`(#7278)`, `follow-up of #...`) or a revert chain; or files few PRs of the week touch,
    shared together with a rare title term or a module; or two rare title terms and a module. Joining
    strongest first with a size cap keeps one busy file from chaining half the week into one "cluster".
    """
    numbers = sorted(p.number for p in prs)
    by_number = {p.number: p for p in prs}
    parent = {n: n for n in numbers}
    size = dict.fromkeys(numbers, 1)

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    file_users: dict[str, set[int]] = defaultdict(set)
    for p in prs:
        for path in p.files:
            if not is_generated(path):
                file_users[path].add(p.number)
    terms = {p.number: _terms(p.title) for p in prs}
    term_users: Counter[str] = Counter(t for ts in terms.values() for t in ts)
    # A file or term most of the week touches (the trainer entry point, "rollout") says nothing about relatedness.
    # The absolute cap keeps a long range linear: each PR then has a bounded number of link partners.
    common = max(3, min(len(prs) // 8, MAX_RARE_USERS))
    edges: dict[tuple[int, int], float] = {}
    for p in prs:
        for ref in p.refs + ([p.reverts] if p.reverts else []):
            if ref in by_number and ref != p.number:
                edges[(min(p.number, ref), max(p.number, ref))] = 100.0
    for chain in reverts:
        linked = sorted(n for n in (chain["pr"], chain["reverts"], chain["relanded_by"]) if n in by_number)
        for a, b in zip(linked, linked[1:], strict=False):
            edges[(a, b)] = 100.0
    # Every link below needs a file or a term that few PRs share, so only PRs sharing one can link: asking the
    # inverted indexes for those partners, instead of comparing all n^2 pairs, keeps a big period near linear.
    rare_file_users = {f: users for f, users in file_users.items() if 2 <= len(users) <= common}
    rare_term_users: dict[str, set[int]] = defaultdict(set)
    for n, ts in terms.items():
        for t in ts:
            if term_users[t] <= common:
                rare_term_users[t].add(n)
    for a in numbers:
        pa = by_number[a]
        partners: set[int] = set()
        for f in set(pa.files):
            partners |= rare_file_users.get(f, set())
        for t in terms[a]:
            partners |= rare_term_users.get(t, set())
        for b in sorted(n for n in partners if n > a):
            if (a, b) in edges:
                continue
            pb = by_number[b]
            shared_files = {f for f in set(pa.files) & set(pb.files) if 2 <= len(file_users.get(f, ())) <= common}
            shared_terms = {t for t in terms[a] & terms[b] if term_users[t] <= common}
            shared_modules = set(pa.modules) & set(pb.modules)
            if (shared_files and shared_terms) or (len(shared_files) >= 2 and shared_modules) \
                    or (len(shared_terms) >= 2 and shared_modules) or len(shared_files) >= 3:
                # Rarer files and terms weigh more: two PRs alone on a file are likelier one piece of work.
                edges[(a, b)] = (sum(2.0 / (len(file_users[f]) - 1) for f in shared_files)
                                 + sum(1.0 / term_users[t] for t in shared_terms) + 0.5 * bool(shared_modules))
    for (a, b), _strength in sorted(edges.items(), key=lambda kv: (-kv[1], kv[0])):
        ra, rb = find(a), find(b)
        if ra != rb and size[ra] + size[rb] <= MAX_CLUSTER:
            root, child = min(ra, rb), max(ra, rb)
            parent[child] = root
            size[root] += size[child]
    groups: dict[int, list[int]] = defaultdict(list)
    for n in numbers:
        groups[find(n)].append(n)
    clusters = [_describe_cluster(members, by_number, terms, term_users, language)
                for members in groups.values() if len(members) >= 2]
    return sorted(clusters, key=lambda c: (-len(c["prs"]), c["prs"][0]))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _describe_cluster(members: list[int], by_number: dict[int, ScoredPR], terms: dict[int, set[str]],
                      term_users: Counter[str], language: str = "en") -> Cluster:
    """The cluster named after its lead: the most important member that is not a revert, under its own module.

    Named by what the lead does ("rollout: enable Async RL for trtllm rollout", in zh "rollout：启用 Async RL，
    用于 trtllm rollout"), not by a list of shared title words, and under the lead's module, so a theme is
    never headed by a module its lead PR does not touch.
    """
    modules = Counter(m for n in members for m in by_number[n].modules)
    shared_terms = [t for t, c in Counter(t for n in members for t in terms[n] if t not in modules).items() if c >= 2]
    ranked = sorted(modules.items(), key=lambda kv: (-kv[1], kv[0]))
    top_modules = [m for i, (m, c) in enumerate(ranked[:2]) if i == 0 or c >= 2]  # a second module if it recurs
    files = Counter(f for n in members for f in by_number[n].files)
    shared_files = sorted(f for f, c in files.items() if c >= 2)
    candidates = [n for n in members if not _is_revert(by_number[n].title)] or members
    best = by_number[max(candidates, key=lambda n: (by_number[n].importance, -n))]
    lead = PR_SUFFIX.sub("", parse_title(best.title)[0] or best.title)
    head = (best.modules[0] if best.modules else "/".join(top_modules)) or "misc"
    zh = language == "zh"
    title = f"{head}：{_clip(gist.doing(lead, best.type), 60)}" if zh else f"{head}: {_clip(lead, 60)}"
    why = []
    if any(r in members for n in members for r in by_number[n].refs):
        why.append(say(language, "cluster_refs"))
    if shared_files:
        why.append(say(language, "cluster_file" if len(shared_files) == 1 else "cluster_files", n=len(shared_files)))
    if shared_terms:
        why.append(say(language, "cluster_terms"))
    return {"title": title, "prs": sorted(members), "modules": top_modules,
            "reason": joined(language, why, "comma") or say(language, "cluster_related")}


def _module_trends(prs: list[ScoredPR], period: Period, known: dict[int, dict[str, Any]],
                   history_known: bool) -> tuple[list[Module], list[TrendWeek]]:
    weeks = period.previous(TREND_WEEKS)  # same-length periods: weeks before a week, months before a month
    bounds = [(w.start_utc, w.end_utc) for w in weeks]  # Period.contains recomputes them per call
    per_week: list[Counter[str]] = [Counter() for _ in weeks]
    totals = [0 for _ in weeks]
    for entry in known.values():
        moment = _when(entry)
        for i, (start, end) in enumerate(bounds):
            if start <= moment < end:
                totals[i] += 1
                mods = entry.get("modules") or modules_from_title(str(entry["title"])) or ["misc"]
                per_week[i].update(set(mods))
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
        if baseline == 0:
            trend = "new" if history_known else "steady"
        elif count >= baseline * 1.5 and delta >= 2:
            trend = "rising"
        elif count <= baseline * 0.5 and delta <= -1:
            trend = "fading"
        else:
            trend = "steady"
        modules.append({"name": name, "pr_count": count, "prs": sorted(current.get(name, [])),
                        "baseline": baseline, "delta": delta, "trend": trend})
    modules.sort(key=lambda m: (-m["pr_count"], -m["baseline"], m["name"]))
    trend_weeks: list[TrendWeek] = [{"since": w.since.isoformat(), "until": w.until.isoformat(), "pr_count": totals[i]}
                   for i, w in enumerate(weeks)]
    return modules, trend_weeks


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


def analyse_period(prs: list[ScoredPR], unscored: list[Unscored], period: Period, config: RepoConfig,
                   history: History, generated_at: str, scorer: Scorer) -> Analysis:
    """The analysis of one period; deterministic for the same arguments. `history` is the repository's own
    record before the period, from its source (never what earlier runs stored)."""
    prs = sorted(prs, key=lambda p: (-p.importance, p.number))
    n = len(prs)
    known = _known(prs, history.earlier)
    start = period.start_utc
    reach = _timestamp(history.reach) if history.reach else None  # None: the source sees the whole repository
    history_known = reach is None or reach < start
    notes: list[str] = []
    if not history_known:
        notes.append(say(config.language, "no_history"))
    history_since = ""
    window_weeks = 0
    if reach is not None and history_known:
        history_since = f"{reach.astimezone(zone(period.tz)):%Y-%m-%d}"
        if (start - reach).days < HISTORY_FOR_NEWCOMERS_DAYS:
            # The record starts shortly before the period: "first-time" then means "first since it starts".
            window_weeks = math.ceil((start - reach).days / 7) or 1
            notes.append(say(config.language, "short_history", since=history_since))
    first_seen: dict[str, int] = {}
    bot_prs = [p for p in prs if config.is_bot(p.author)]
    for p in sorted(prs, key=lambda p: (p.merged_at, p.number)):
        # New: no merged PR in the repository before the period, as its source says.
        if history_known and p.author.lower() not in history.first_merged and not config.is_bot(p.author):
            first_seen.setdefault(p.author, p.number)
    reviews = Counter(r for p in prs for r in p.reviewers if not config.is_bot(r))  # review bots are not people
    stats: Stats = {
        "pr_count": n,
        "key_pr_count": sum(p.key for p in prs),
        "avg_importance": round(sum(p.importance for p in prs) / n, 1) if n else 0.0,
        "avg_insight": round(sum(p.insight for p in prs) / n, 1) if n else 0.0,
        "additions": sum(p.additions for p in prs),
        "deletions": sum(p.deletions for p in prs),
        "authors": len({p.author for p in prs if not config.is_bot(p.author)}),  # people: bots are counted apart
        "new_contributors": sorted(first_seen, key=lambda a: (first_seen[a], a)),
        # How far back "new" was judged, so a report can say "first seen in the last 4 weeks" when that is all
        # it knows: "" without history; new_contributors_window is the weeks covered when the history is short.
        "history_since": history_since,
        "new_contributors_window": window_weeks,
        "types": dict(sorted(Counter(p.type for p in prs).items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    if bot_prs:
        stats["bots"] = {"prs": len(bot_prs), "logins": sorted({p.author for p in bot_prs}, key=str.lower)}
    if reviews:
        stats["reviewers"] = [{"login": r, "reviews": c} for r, c in sorted(reviews.items(), key=lambda kv: (-kv[1],
                                                                                                            kv[0]))]
    file_users: dict[str, set[int]] = defaultdict(set)
    for p in prs:
        for path in p.files:
            if not is_generated(path):
                file_users[path].add(p.number)
    hot = sorted(((path, users) for path, users in file_users.items() if len(users) >= 2),
                 key=lambda kv: (-len(kv[1]), kv[0]))[:HOT_FILES]
    modules, trend_weeks = _module_trends(prs, period, known, history_known)
    this_week = n + len(unscored)  # listing counts of earlier weeks include PRs that failed to score
    trend_weeks.append({"since": period.since.isoformat(), "until": period.until.isoformat(), "pr_count": this_week})
    reverts = _revert_chains(prs, known)
    entries = [p.pr_entry() for p in prs]
    reverted_by = {c["reverts"]: c["pr"] for c in reverts if c["reverts"]}
    for entry in entries:
        if entry["number"] in reverted_by:
            entry["reverted_by"] = reverted_by[entry["number"]]  # marked wherever the PR is shown
    if unscored:
        notes.append(say(config.language, "unscored", n=len(unscored)))
    # With `paths` (a slice, or a repository narrowed to paths) the report says what it covers, after its repo.
    narrowed: dict[str, Any] = {"slice": {"name": config.slice, "paths": list(config.paths)}} if config.paths else {}
    return {
        "schema": SCHEMA,
        "repo": config.repo,
        **narrowed,  # type: ignore[typeddict-item]
        "period": {"since": period.since.isoformat(), "until": period.until.isoformat(), "tz": period.tz},
        "generated_at": generated_at,
        "language": config.language,
        "scorer": scorer,
        "stats": stats,
        "prs": entries,
        "modules": modules,
        "hot_files": [{"path": path, "pr_count": len(users), "prs": sorted(users)} for path, users in hot],
        "clusters": _clusters(prs, reverts, config.language),
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
