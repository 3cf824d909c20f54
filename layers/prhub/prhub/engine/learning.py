"""What a repository's maintainers consider important, learned from their judgements (issue 27).

A PR's features are what the table of rules (prhub.engine.rules) saw: each rule that fired (indicator 1), the
size rule's points (log10 of the library lines), the change type and the cap that bound the score. A small
L2-regularised pairwise logistic model says how likely a PR the maintainers put higher outranks one they put
lower in the same week, from the differences of their default importance and features:

    logit P(higher PR above lower PR) = b·Δimportance + Σ w_j·Δx_j

How high a judged PR is put (`Example.order`): its judgement's grade when it has one (a CHANGELOG's graded
sections: cargo's 🎉 > Added/Changed > Fixed > the rest), else its verdict (key 1, minor 0). With verdicts alone
the pairs are a week's (key, minor) pairs.

Dividing by b puts each w_j in importance points, so the adjusted importance is the default score plus the
points of the learned weights of what fired (clipped to 0–10). Without judgements there are no weights and the
score is exactly the rules'. The weights are penalised towards 0 (the default rules) and never pass ±MAX_POINTS.

Learning is kept only when it helps: the repository's latest judged weeks (HOLD_OUT of its judged PRs, whole
weeks) are held out of a first fit, and the learned ranking must beat the rules there on the judged PRs of each
held-out week: recall@K (K = that week's key verdicts, pooled) and Spearman against the order (mean over weeks)
each no lower and at least one higher by MARGIN. Otherwise the rules stay (`Learned.adjusted` False). The weights
used are then fitted on every judgement except those of the PRs being scored (`learn(..., scoring=...)`): a judged
PR's verdict is never evidence for its own score.

Pure, standard library only; bench.calibrate --judgements prints how long cargo's fit takes.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.judgements import Judgement
from prhub.core.models import PullRequest, ScoredPR
from prhub.core.period import zone
from prhub.engine import prior, rules
from prhub.engine.scoring import facts

# The penalties on each feature weight tried (the default score's coefficient and the intercept are not penalised):
# the one kept is the best on the latest weeks of the fitted judgements, before the held-out check sees any.
PENALTIES = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
SCALE = 0.5  # the least log-odds a point of the default score is taken to add
MAX_POINTS = 3.0  # no learned weight moves a PR by more than this many points
HOLD_OUT = 0.25  # the share of judged PRs, as the latest whole weeks, the first fit does not see
MARGIN = 0.01  # how much higher a held-out figure must be to count as better (smaller is noise)
MIN_FIT = 10  # judgements a fit needs, at more than one order (both verdicts, or two grades)
SHOWN = 3  # learned weights a PR's reason names, the largest first
ITERATIONS = 25


@dataclass(frozen=True)
class Example:
    """One judged PR as the learner sees it: its default importance, its features, the maintainers' verdict."""

    pr: int
    week: str  # the Monday of its merge week, YYYY-MM-DD in the repository's zone
    importance: float
    features: dict[str, float]
    key: bool
    grade: int | None = None  # the judgement's grade, if it has one

    @property
    def order(self) -> float:
        """How high the maintainers put this PR among its week's judged PRs: the grade, or the verdict (key 1,
        minor 0). What the fit learns and the held-out Spearman is taken against."""
        return float(self.grade) if self.grade is not None else float(self.key)


def features(f: rules.Facts) -> tuple[float, dict[str, float]]:
    """(default importance, features) of one PR: its type, the rules that fired as rules.importance applied them
    (the size rule by its points, the others 1) and the cap that bound its score."""
    judged = rules.importance(f)
    feats, _ = prior.judged(judged, f.kind)
    # The default importance is the engine's: the rules' score with the points learned across repositories
    # (prhub.engine.prior, which reads more of the PR than the rules), under the rules' lowest cap; a repository's
    # own judgements adjust on top of it, by what the rules saw.
    seen, ceiling = prior.seen(f, judged)
    return prior.adjust(judged.score, seen, prior.load(), ceiling), feats


def example(pr: PullRequest, config: RepoConfig, key: bool, grade: int | None = None) -> Example:
    importance, feats = features(facts(pr, config))
    return Example(pr.number, week_of(pr, config.tz), importance, feats, key, grade)


def examples(prs: Iterable[PullRequest], judgements: Sequence[Judgement], config: RepoConfig) -> list[Example]:
    """The judged PRs among `prs` as examples; a PR judged twice counts by its last judgement (and its grade)."""
    last = {j.pr: j for j in judgements}
    return [example(p, config, last[p.number].verdict == "key", last[p.number].grade)
            for p in prs if p.number in last]


def week_of(pr: PullRequest, tz: str) -> str:
    day = pr.merged_at.astimezone(zone(tz)).date()
    return (day - timedelta(days=day.weekday())).isoformat()


# --- the fit ----------------------------------------------------------------------------------------------


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the Hessian is positive definite: the penalty sees to it)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(a[r][r]) >= 1e-12:
            out[r] = (a[r][n] - sum(a[r][c] * out[c] for c in range(r + 1, n))) / a[r][r]
    return out


def pairs(train: Sequence[Example]) -> list[tuple[list[tuple[int, float]], float]]:
    """Each week's (higher, lower) pairs: every two judged PRs of one week the maintainers put at different orders
    (a 🎉 entry above an Added one above a Fixed one, a key PR above a minor one), as sparse differences (index 0:
    the default score, features from 1), with their weight: a week's pairs weigh as much together as its judged
    PRs, so a busy week does not count by the square of its size. Equal orders say nothing of which comes first."""
    names = sorted({name for e in train for name in e.features})
    index = {name: i + 1 for i, name in enumerate(names)}
    by_week: dict[str, list[Example]] = {}
    for e in train:
        by_week.setdefault(e.week, []).append(e)
    out = []
    for members in by_week.values():
        # In the week's order: with verdicts alone, each key PR against each minor one, as the binary fit had them.
        ordered = [(hi, lo) for hi in members for lo in members if hi.order > lo.order]
        if not ordered:
            continue  # a week judged at one level only orders nothing within itself
        weight = len(members) / len(ordered)
        for hi, lo in ordered:
            diff = {index[n]: v for n, v in hi.features.items()}
            for n, v in lo.features.items():
                diff[index[n]] = diff.get(index[n], 0.0) - v
            row = [(0, hi.importance - lo.importance)] + [(i, v) for i, v in sorted(diff.items()) if v]
            out.append((row, weight))
    return out


def fit(train: Sequence[Example], l2: float) -> dict[str, float]:
    """Each feature's learned points: a pairwise logistic model, P(the higher PR outranks the lower one of its week)
    = σ(b·Δimportance + Σ w_j·Δx_j), fitted by Newton's method. Both figures the learner is judged by (recall@K
    and Spearman within each week) measure the order inside a week, so the fit learns that order, not whether a PR
    is key across weeks. When the fitted default score does not rank upwards by SCALE a point (its points could not
    be read as importance, or a repository's verdicts run against the rules), the scale is held at SCALE and the
    features alone are fitted."""
    names = sorted({name for e in train for name in e.features})
    rows = pairs(train)
    if not rows:
        return {}
    weights = newton(rows, len(names) + 1, l2)
    if weights[0] < SCALE:
        weights = newton(rows, len(names) + 1, l2, SCALE)
    return {name: round(max(-MAX_POINTS, min(MAX_POINTS, weights[i + 1] / weights[0])), 2)
            for i, name in enumerate(names) if abs(weights[i + 1] / weights[0]) >= 0.05}


def newton(rows: Sequence[tuple[list[tuple[int, float]], float]], size: int, l2: float, scale: float | None = None,
           start: Sequence[float] | None = None) -> list[float]:
    """The weights of the penalised pairwise model (every pair's target: the higher PR first); `scale` holds the
    default score's coefficient fixed; `start`: the weights to start from (zeros). Weight 0 is the default score's
    coefficient and is not penalised. Also what bench.train_importance fits across repositories with."""
    weights = list(start) if start else [0.0] * size
    if scale is not None or not start:
        weights[0] = scale or 0.0
    for _ in range(ITERATIONS):
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        for row, weight in rows:  # a row is sparse: the score's difference and the features that differ
            z = sum(weights[i] * v for i, v in row)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g, h = weight * (p - 1.0), weight * p * (1 - p)
            for i, v in row:
                grad[i] += g * v
                for j, u in row:
                    hess[i][j] += h * v * u
        for i in range(1, size):
            grad[i] += l2 * weights[i]
            hess[i][i] += l2
        hess[0][0] += 1e-6
        if scale is not None:
            grad[0] = 0.0
            for i in range(size):
                hess[0][i] = hess[i][0] = 0.0
            hess[0][0] = 1.0
        step = _solve(hess, grad)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return weights


def adjust(importance: float, feats: dict[str, float], points: dict[str, float]
           ) -> tuple[float, list[tuple[str, float]]]:
    """The adjusted importance of a PR and the learned weights that moved it (largest first)."""
    moved = sorted(((n, round(points[n] * v, 2)) for n, v in feats.items() if n in points and points[n] * v),
                   key=lambda m: (-abs(m[1]), m[0]))
    if not moved:
        return importance, []
    return round(max(0.0, min(10.0, importance + sum(p for _, p in moved))), 1), moved


# --- the held-out check -----------------------------------------------------------------------------------


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank (what Spearman's rho needs)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the ranks (0 when either side is constant)."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx and sy else 0.0


@dataclass(frozen=True)
class Figures:
    recall: float  # each week's top K (K = its key verdicts) against its key verdicts, pooled
    spearman: float  # mean over the weeks of rho(score, order): the grade where there is one, else the verdict

    def beats(self, other: Figures) -> bool:
        """The rule learning must pass: no lower on either figure, higher by MARGIN on one."""
        return (self.recall >= other.recall and self.spearman >= other.spearman
                and (self.recall >= other.recall + MARGIN or self.spearman >= other.spearman + MARGIN))

    def to_dict(self) -> dict[str, float]:
        return {"recall": round(self.recall, 3), "spearman": round(self.spearman, 3)}


def figures(weeks: dict[str, list[Example]], score: Callable[[Example], float]) -> Figures:
    """How `score` ranks each week's judged PRs: recall@K against their key verdicts, Spearman against the order the
    fit learns (their grades, or verdicts without); ties broken by PR number."""
    hits = keys = 0
    rhos = []
    for members in weeks.values():
        k = sum(e.key for e in members)
        top = sorted(members, key=lambda e: (-score(e), e.pr))[:k]
        hits += sum(e.key for e in top)
        keys += k
        rhos.append(spearman([score(e) for e in members], [e.order for e in members]))
    return Figures(hits / keys if keys else 0.0, statistics.mean(rhos) if rhos else 0.0)


def _usable(exs: Sequence[Example]) -> bool:
    return len(exs) >= MIN_FIT and _orders(exs)


def _orders(exs: Iterable[Example]) -> bool:
    """The examples are put at more than one order (with verdicts alone: both verdicts are there)."""
    return len({e.order for e in exs}) > 1


@dataclass(frozen=True)
class Learned:
    """What a repository's judgements taught: the learned points (empty when the default rules stay), how many
    judgements the weights were fitted on, and the held-out check that decided."""

    judgements: int
    adjusted: bool
    outcome: str  # adjusted | not_better | too_few
    points: dict[str, float] = field(default_factory=dict)
    penalty: float = 0.0
    held_out_weeks: int = 0
    default: Figures | None = None
    learned: Figures | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"judgements": self.judgements, "adjusted": self.adjusted, "outcome": self.outcome,
                               "weights": dict(sorted(self.points.items())), "penalty": self.penalty}
        if self.default is not None and self.learned is not None:
            out["held_out"] = {"weeks": self.held_out_weeks, "default": self.default.to_dict(),
                               "learned": self.learned.to_dict()}
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Learned:
        held = data.get("held_out") or {}
        return cls(int(data["judgements"]), bool(data["adjusted"]), str(data["outcome"]),
                   {str(k): float(v) for k, v in (data.get("weights") or {}).items()}, float(data.get("penalty", 0)),
                   int(held.get("weeks", 0)),
                   Figures(**held["default"]) if held else None, Figures(**held["learned"]) if held else None)


def held_out_split(exs: Sequence[Example]) -> tuple[list[Example], dict[str, list[Example]]]:
    """(the examples fitted on, the latest judged weeks held out of them): whole weeks, at least HOLD_OUT of the
    examples."""
    by_week: dict[str, list[Example]] = {}
    for e in sorted(exs, key=lambda e: (e.week, e.pr)):
        by_week.setdefault(e.week, []).append(e)
    held: dict[str, list[Example]] = {}
    for week in sorted(by_week, reverse=True):
        if sum(len(v) for v in held.values()) >= HOLD_OUT * len(exs) or len(held) == len(by_week) - 1:
            break
        held[week] = by_week[week]
    return [e for w, v in by_week.items() if w not in held for e in v], held


def penalty(train: Sequence[Example]) -> float:
    """The penalty whose fit ranks the latest weeks of `train` best, fitted on the weeks before them (the
    strongest when none beats another)."""
    inner, held = held_out_split(train)
    if not _usable(inner) or not held:
        return PENALTIES[-1]
    scored = []
    for l2 in PENALTIES:
        points = fit(inner, l2)
        got = figures(held, lambda e, p=points: adjust(e.importance, e.features, p)[0])  # type: ignore[misc]
        scored.append((got.recall + got.spearman, l2))
    return max(scored)[1]


def learn(exs: Sequence[Example], scoring: Iterable[int] = ()) -> Learned:
    """The repository's learned points, kept only when they beat the default rules on its latest judged weeks;
    fitted without the judgements of the PRs in `scoring` (the PRs the points will score)."""
    own = set(scoring)
    evidence = [e for e in exs if e.pr not in own]
    train, held = held_out_split(evidence)
    if not _usable(train) or not any(_orders(v) for v in held.values()):
        return Learned(len(evidence), False, "too_few")
    l2 = penalty(train)
    first = fit(train, l2)
    default = figures(held, lambda e: e.importance)
    learned = figures(held, lambda e: adjust(e.importance, e.features, first)[0])
    if not learned.beats(default):
        return Learned(len(evidence), False, "not_better", {}, l2, len(held), default, learned)
    return Learned(len(evidence), True, "adjusted", fit(evidence, l2), l2, len(held), default, learned)


def rescore(pr: PullRequest, config: RepoConfig, learned: Learned) -> tuple[float, list[tuple[str, float]]]:
    """A PR's importance under the learned points, and the weights that moved it."""
    importance, feats = features(facts(pr, config))
    return adjust(importance, feats, learned.points) if learned.adjusted else (importance, [])



# --- what the report says ---------------------------------------------------------------------------------

NOTES = {
    "en": {"adjusted": "The ranking was adjusted by weights learned from {n} judgements of this repository's "
                       "maintainers (held-out weeks: recall@K {dr} → {lr}, Spearman {ds} → {ls}).",
           "not_better": "The judgements did not improve the ranking on held-out weeks; default rules kept "
                         "({n} judgements).",
           "too_few": "Too few judgements to learn the ranking from ({n}); default rules kept.",
           "moved": "learned from the repository's judgements: {weights}"},
    "zh": {"adjusted": "排名已按本仓库维护者的 {n} 条判断学到的权重调整（留出周：recall@K {dr} → {lr}，"
                       "Spearman {ds} → {ls}）。",
           "not_better": "这些判断在留出周上没有改进排名，沿用默认规则（{n} 条判断）。",
           "too_few": "判断太少（{n} 条），无法学习排名，沿用默认规则。",
           "moved": "据本仓库的判断学到：{weights}"},
}


def note(lang: str, learned: Learned) -> str:
    """The report's line on its ranking: adjusted from how many judgements, or why the default rules stay."""
    table = NOTES.get(lang, NOTES["en"])
    d, got = learned.default or Figures(0.0, 0.0), learned.learned or Figures(0.0, 0.0)
    return table[learned.outcome].format(n=learned.judgements, dr=f"{d.recall:.2f}", lr=f"{got.recall:.2f}",
                                         ds=f"{d.spearman:.2f}", ls=f"{got.spearman:.2f}")


def moved_reason(lang: str, moved: Sequence[tuple[str, float]]) -> str:
    """A PR's reason naming the learned weights that moved it, the largest first (SHOWN of them)."""
    sep = "，" if lang == "zh" else ", "
    weights = sep.join(f"{name.replace('_', ' ')} {points:+.2f}" for name, points in moved[:SHOWN])
    return NOTES.get(lang, NOTES["en"])["moved"].format(weights=weights)


def apply(scored: ScoredPR, pr: PullRequest, config: RepoConfig, learned: Learned | None) -> ScoredPR:
    """The engine's result with the learned points: its importance, key flag and a reason saying which weights
    moved it. A model's score, or a repository whose rules stay, is left as it is."""
    if learned is None or not learned.adjusted or scored.scored_by != "heuristic":
        return scored
    importance, moved = rescore(pr, config, learned)
    if not moved:
        return scored
    return replace(scored, importance=importance, key=importance >= config.key_threshold,
                   reasons=[*scored.reasons, moved_reason(config.language, moved)])
