"""Revert chains: each revert touching a period, the PR it undoes and the PR that brings the change back.

    revert_chains(prs, known) -> list[Revert]

Found through every PR known (the repository's history and the period's scored PRs), so a chain reaches across
periods; the reverted PR's report entry gets `reverted_by` (prhub.engine.analysis). The clusters read the chains
as links (prhub.engine.clusters), and a cluster is never led by a revert.
"""
from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime
from functools import lru_cache
from typing import Any

from prhub.core.models import ScoredPR
from prhub.core.period import parse_timestamp
from prhub.core.report import Revert
from prhub.engine.changes import is_generated
from prhub.engine.scoring import REVERT_TITLE, parse_title, reverted_ref

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
def is_revert(title: str) -> bool:
    return bool(REVERT_TITLE.match(title) or REVERT_TITLE.match(parse_title(title)[0]))


def when(entry: dict[str, Any]) -> datetime:
    return timestamp(str(entry["merged_at"]))


@lru_cache(maxsize=65536)
def timestamp(value: str) -> datetime:
    return parse_timestamp(value)


def revert_chains(prs: list[ScoredPR], known: dict[int, dict[str, Any]]) -> list[Revert]:
    """Each revert touching this period (the revert, the reverted PR or what re-lands it merged in it), one chain
    for each PR it undoes.

    What brings the change back: a later PR of the same title (a re-land); else a later PR of the period that
    refers to the revert or the reverted PR in its title or body, or changes again every file the reverted
    change touched, in one of its modules (a re-fix, as #6265 re-fixes what #6258 reverted of #6226).
    """
    week = {p.number for p in prs}
    ordered = sorted(known.values(), key=lambda e: (when(e), e["number"]))
    by_title: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in ordered:
        by_title[_norm_title(str(entry["title"]))].append(entry)
    reverts = [(entry, target) for entry in ordered if is_revert(str(entry["title"])) or entry.get("reverts")
               for target in _revert_targets(entry, known, by_title)]
    # when each PR was undone: a change brought back by a PR that a later revert undid is not back (ruff #26275
    # re-fixed what #26274 reverted, then #26339 reverted #26275 with the change it belonged to)
    undone = {target["number"]: when(entry) for entry, target in reverts if target is not None}
    chains: list[Revert] = []
    for entry, target in reverts:
        back, how = _brought_back(entry, target, by_title, prs)
        if back is not None and back in undone and undone[back] >= when(known.get(back) or entry):
            back, how = None, ""
        if {entry["number"], target["number"] if target else None, back} & week:
            chain: Revert = {"pr": entry["number"], "reverts": target["number"] if target else entry.get("reverts"),
                             "relanded_by": back,
                             "title": str(target["title"]) if target else _norm_title(str(entry["title"]))}
            if how:
                chain["relanded_how"] = how
            chains.append(chain)
    return chains


def _revert_targets(entry: dict[str, Any], known: dict[int, dict[str, Any]],
                    by_title: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any] | None]:
    """What a revert undoes: its target (None when no known PR is it), then the follow-ups its description lists
    with it, those known and merged before it."""
    also = [known[n] for n in entry.get("reverts_also") or [] if n in known and when(known[n]) <= when(entry)]
    return [_revert_target(entry, known, by_title), *also]


def _revert_target(entry: dict[str, Any], known: dict[int, dict[str, Any]],
                   by_title: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """The PR a revert undoes, or None when no known PR is it."""
    # A scored revert knows its target from the body; a listing-only one has its title: match the
    # reverted title first, the title's (#N) suffix last (it may name a PR the reverted one referred to).
    target = known.get(int(entry["reverts"])) if entry.get("reverts") else None
    if target is not None:
        return target
    moment = when(entry)
    earlier = [e for e in by_title.get(_norm_title(str(entry["title"])), [])
               if when(e) <= moment and e["number"] != entry["number"] and not is_revert(str(e["title"]))]
    if earlier:
        return earlier[-1]
    number = reverted_ref(parse_title(str(entry["title"]))[0])[0]
    return known.get(number) if number else None


def _brought_back(entry: dict[str, Any], target: dict[str, Any] | None, by_title: dict[str, list[dict[str, Any]]],
                  prs: list[ScoredPR]) -> tuple[int | None, str]:
    """The PR that brings a reverted change back and how ("reland" or "refix"), else (None, "")."""
    moment = when(entry)
    key = _norm_title(str(target["title"])) if target is not None else _norm_title(str(entry["title"]))
    later = [e for e in by_title.get(key, []) if (when(e), e["number"]) > (moment, entry["number"])
             and not is_revert(str(e["title"]))]
    if later:
        return later[0]["number"], "reland"
    back = _refix(entry["number"], target["number"] if target else None, moment, prs)
    return back, "refix" if back else ""


def _refix(revert: int, reverted: int | None, moment: datetime, prs: list[ScoredPR]) -> int | None:
    """The first PR of the period merged after `revert` that fixes the reverted change again, or None."""
    scored = {p.number: p for p in prs}
    undone = {revert} | ({reverted} if reverted else set())
    source = scored.get(reverted or 0) or scored.get(revert)  # a revert touches the files it reverts
    files = {f for f in source.files if not is_generated(f)} if source else set()
    modules = set(source.modules) if source else set()
    after = sorted((p for p in prs if (timestamp(p.merged_at), p.number) > (moment, revert)
                    and p.number not in undone and not is_revert(p.title)),
                   key=lambda p: (timestamp(p.merged_at), p.number))
    named = next((p.number for p in after if undone & set(p.refs)), None)
    if named is not None:
        return named
    return next((p.number for p in after if files and files <= set(p.files) and modules & set(p.modules)), None)
