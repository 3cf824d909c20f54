"""Importance learned across many repositories' maintainers (issue 48): the points the table of rules' features earn.

    load(path=MODEL) -> Prior                     the shipped model (importance_model.json beside this module)
    read(f) -> (features, ceiling)                what the model reads of a PR, and the rules' lowest cap
    seen(f, importance) -> the same               with the table's judgement (rules.importance) already made
    judged(importance, kind) -> the same          what the table of rules alone saw (prhub.engine.learning's)
    adjust(importance, features, prior, ceiling)  the rules' score plus the learned points of what fired

The model is a pairwise logistic fit (bench/train_importance.py, docs/importance-model.md) over the features
prhub.engine.learning reads: the change type (`type:feat`), each rule that fired (1), the size rule's points and
the cap that bound the score; and what the PR shows where its repository says nothing (prhub.engine.features:
a bot author, its description, where its lines fall, the verb its title opens with). Its weights, divided by the
rules' score's own coefficient, are importance points: a PR's default importance is the rules' score plus the
points of what fired, clipped to 0–10 and to the lowest of the rules' caps that holds (the caps are the rules'
firm word: docs only, a typo, the repository's own `minor:`), each weight within ±max_points. The reasons a
report prints stay the rules'; a repository's own judgements (prhub.engine.learning) adjust on top. Without the
file, or with an empty model, the score is exactly the rules'.

Pure, standard library: a JSON file read once per process.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from prhub.engine import features, rules

MODEL = Path(__file__).with_name("importance_model.json")
MAX_POINTS = 3.0  # as prhub.engine.learning.MAX_POINTS: no learned weight moves a PR by more than this


@dataclass(frozen=True)
class Prior:
    """A model's learned points per feature (what the rules saw), with the version that names it."""

    version: str = ""
    points: dict[str, float] = field(default_factory=dict)
    max_points: float = MAX_POINTS

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prior:
        cap = float(data.get("max_points", MAX_POINTS))
        return cls(str(data.get("version", "")),
                   {str(k): max(-cap, min(cap, float(v))) for k, v in (data.get("weights") or {}).items()}, cap)


OFF = Prior("off")  # the rules alone


@lru_cache(maxsize=4)
def load(path: Path = MODEL) -> Prior:
    """The model in `path` (the shipped one by default); the rules alone when there is no such file."""
    if not path.exists():
        return OFF
    return Prior.from_dict(json.loads(path.read_text(encoding="utf-8")))


def read(f: rules.Facts) -> tuple[dict[str, float], float]:
    """(features, ceiling) of a PR as the model reads it (see `seen`)."""
    return seen(f, rules.importance(f))


def seen(f: rules.Facts, verdict: rules.Importance) -> tuple[dict[str, float], float]:
    """(features, ceiling) of a PR whose table of rules judged it `verdict`: what the table saw (`judged`) and the
    PR's own facts beside the rules (prhub.engine.features): what the model's points are of."""
    out, ceiling = judged(verdict, f.kind)
    return {**out, **features.of(f)}, ceiling


def judged(verdict: rules.Importance, kind: str) -> tuple[dict[str, float], float]:
    """(features, ceiling) of a PR of type `kind` as the table of rules judged it (`rules.importance`): its type,
    every rule that fired (1; a graded rule such as size its points) and the cap that bound the score; and the
    lowest cap that holds (10 without one), which the learned points do not lift a PR past. The reading
    prhub.engine.learning.features makes too."""
    out: dict[str, float] = {f"type:{kind}": 1.0}
    for hit in verdict.fired:
        out[hit.rule.name] = hit.points if hit.rule.graded else 1.0
    if verdict.cap is not None:
        out[verdict.cap.name] = 1.0
    return out, verdict.ceiling


def moved(features: dict[str, float], prior: Prior) -> float:
    """The learned points of what fired."""
    return sum(prior.points[n] * v for n, v in features.items() if n in prior.points)


def adjust(importance: float, features: dict[str, float], prior: Prior, ceiling: float = 10.0) -> float:
    """The rules' `importance` with the learned points of what fired, clipped to 0–10 and kept under the `ceiling`
    of the rules' caps (a docs-only change, a repository's own "minor:" stay below key whatever else fired);
    unchanged without a model."""
    if not prior.points:
        return importance
    return round(max(0.0, min(10.0, ceiling, importance + moved(features, prior))), 1)
