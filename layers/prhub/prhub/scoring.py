"""The deterministic engine's per-PR judgement (placeholder: the analysis-engine issue replaces it).

Contract: `score_pull(pr, config) -> ScoredPR`, deterministic, no I/O.
"""
from __future__ import annotations

import re
from typing import Protocol

from prhub.config import RepoConfig
from prhub.models import PullRequest, Risk, ScoredPR

TITLE = re.compile(r"^\s*((?:\[[^\]]*\]\s*)*)\s*(?:(\w+)(?:\([^)]*\))?!?:)?\s*(.*)$")


def modules_from_title(title: str) -> list[str]:
    tags = re.findall(r"\[([^\]]*)\]", TITLE.match(title).group(1))  # type: ignore[union-attr]
    mods = [m.strip().lower() for tag in tags for m in tag.split(",") if m.strip()]
    return [m for m in mods if m != "breaking"]


def score_pull(pr: PullRequest, config: RepoConfig) -> ScoredPR:
    match = TITLE.match(pr.title)
    kind = (match.group(2) or "chore").lower() if match else "chore"
    breaking = "[BREAKING]" in pr.title.upper()
    size = pr.additions + pr.deletions
    importance = round(min(10.0, 2.0 + min(size, 2000) / 400 + (3 if breaking else 0) + (1 if kind == "feat" else 0)), 1)
    insight = round(min(10.0, len(pr.body) / 400), 1)
    return ScoredPR(
        number=pr.number, title=pr.title, url=pr.url, author=pr.author,
        merged_at=pr.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        modules=modules_from_title(pr.title) or ["misc"], type=kind, breaking=breaking,
        importance=importance, insight=insight, key=importance >= config.key_threshold,
        summary=pr.title, key_points=[], risks=[Risk("breaking", "tagged [BREAKING]")] if breaking else [],
        additions=pr.additions, deletions=pr.deletions, changed_files=pr.changed_files,
        scored_by="heuristic", files=[f.filename for f in pr.files],
    )


# Bumped whenever the engine's judgement changes, so cached results are not reused across versions.
ENGINE_VERSION = "engine-1"


class Budget(Protocol):
    """A run's shared model-token budget (the flow backs it with the run's DynamoDB item)."""

    def remaining(self) -> int: ...

    def spend(self, tokens: int) -> None: ...


class Scorer(Protocol):
    kind: str  # heuristic | llm
    model: str | None
    prompt_version: str  # part of the cache key

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR: ...


class HeuristicScorer:
    kind = "heuristic"
    model = None
    prompt_version = ENGINE_VERSION

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR:
        return score_pull(pr, config)
