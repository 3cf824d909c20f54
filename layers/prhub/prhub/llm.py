"""The LLM analyst (placeholder: the LLM issue builds it).

Contract:
    make_scorer(config) -> Scorer        the model when configured (scorer llm, or auto with a key), else the engine
    narrate(report, config) -> dict      the week's narrative; the engine's text wherever the model fails
"""
from __future__ import annotations

from typing import Any

from prhub import narrative
from prhub.config import RepoConfig
from prhub.scoring import HeuristicScorer, Scorer


def make_scorer(config: RepoConfig) -> Scorer:
    return HeuristicScorer()


def narrate(report: dict[str, Any], config: RepoConfig) -> dict[str, Any]:
    return narrative.write(report)
