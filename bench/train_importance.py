"""Fit the engine's importance across many repositories' maintainers (issue 48) and write the model it ships.

    python -m bench.train_importance [--corpus DIR] [--out FILE] [--report FILE] [--dry-run]

Data: the judged corpus (bench.corpus_importance): every training repository's judged PRs with their changelog
grades. Repositories index.json marks `held_out` never enter the fit, the penalty's choice or any figure printed
here: `train_repos` drops them before anything else, and `fit` refuses them.

Model, fixed before any figure: a pairwise logistic model over the features the table of rules gives a PR
(prhub.engine.prior.read: its type, each rule that fired, the size rule's points, the cap that bound it) and
the PR's own facts beside the rules (prhub.engine.features: a bot author, its description, where its changed lines
fall, the verb its title opens with), beside the rules' score itself:

    logit P(higher-graded PR above lower-graded PR of the same repository-week) = b·Δrules + Σ w_j·Δx_j

Pairs: every two judged PRs of one repository's UTC Monday–Sunday week at different grades, at most
PAIRS_PER_REPO of a repository's (drawn with a fixed seed, in proportion to each week's judged PRs). A week's
pairs weigh as much together as its judged PRs (as prhub.engine.learning's fit), and then every repository's pairs
weigh REPO_WEIGHT together, so each repository counts the same however busy it is. L2 penalty on the w_j (not b);
w_j / b are importance points (b held at SCALE when the fit would put it lower). The type weights are shifted
together so the training PRs' mean importance stays the rules' (a constant moves no ranking within a week), each
weight is then clipped to ±MAX_POINTS and the ones under 0.05 point dropped. The engine adds the points under the
rules' lowest cap that holds (prhub.engine.prior.adjust), and so do the figures here.

Penalty: the one of PENALTIES with the best mean ROC AUC over leave-one-repository-out folds on the training
repositories (each fold fits on the others and scores the one left out); the strongest when tied.

Writes layers/prhub/prhub/engine/importance_model.json and docs/importance-model.md. Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prhub.engine import features, learning, prior
from prhub.engine.scoring import ENGINE_VERSION

from bench.corpus_importance import CORPUS, PICK, Figures, JudgedRepo, Seen, corpus, figures, seen, today, with_model

ROOT = Path(__file__).resolve().parents[1]
MODEL_OUT = ROOT / "layers" / "prhub" / "prhub" / "engine" / "importance_model.json"
REPORT_OUT = ROOT / "docs" / "importance-model.md"
VERSION = "importance-1"

PENALTIES = (0.3, 1.0, 3.0, 10.0, 30.0)  # five leave-one-out sweeps keep a run under three minutes
PAIRS_PER_REPO = 2000
REPO_WEIGHT = 100.0
SCALE = 0.5  # as prhub.engine.learning.SCALE: the least log-odds a point of the rules' score is taken to add
MAX_POINTS = prior.MAX_POINTS
MIN_POINTS = 0.05
SEED = 48

Row = tuple[list[tuple[int, float]], float]  # a pair's sparse difference (index 0: the rules' score) and weight


class HeldOutError(ValueError):
    """A held-out repository was handed to the fit."""


def train_repos(repos: Sequence[JudgedRepo]) -> list[JudgedRepo]:
    """The repositories the model may learn from: every one not held out."""
    return [r for r in repos if not r.held_out]


# --- pairs ---------------------------------------------------------------------------------------------------


def pairs(rows: Sequence[Seen], index: dict[str, int]) -> list[Row]:
    """One repository's pairs (see the module docstring), each repository-week's at different grades."""
    by_week: dict[str, list[Seen]] = {}
    for r in rows:
        by_week.setdefault(r.week, []).append(r)
    total = sum(len(m) for m in by_week.values())
    rng = random.Random(f"{SEED}:{rows[0].repo}" if rows else SEED)
    out: list[Row] = []
    for week in sorted(by_week):
        members = sorted(by_week[week], key=lambda r: r.number)
        ordered = [(hi, lo) for hi in members for lo in members if hi.grade > lo.grade]
        if not ordered:
            continue
        budget = max(1, math.ceil(PAIRS_PER_REPO * len(members) / total))
        if len(ordered) > budget:
            ordered = rng.sample(ordered, budget)
        weight = len(members) / len(ordered)
        for hi, lo in ordered:
            diff: dict[int, float] = {}
            for n, v in hi.features.items():
                if n in index:
                    diff[index[n]] = v
            for n, v in lo.features.items():
                if n in index:
                    diff[index[n]] = diff.get(index[n], 0.0) - v
            out.append(([(0, hi.rules - lo.rules)] + [(i, v) for i, v in sorted(diff.items()) if v], weight))
    whole = sum(w for _, w in out)
    return [(row, w * REPO_WEIGHT / whole) for row, w in out]


def beside_rules(row: Seen) -> Seen:
    """`row` with only the features beside the rules (prhub.engine.features'), the rules' own left to their points."""
    return replace(row, features={n: v for n, v in row.features.items() if n.startswith(features.PREFIX)})


def names_of(rows: Sequence[Seen]) -> list[str]:
    return sorted({n for r in rows for n in r.features})


# --- the fit -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    points: dict[str, float]  # importance points per feature, centred, clipped, small ones dropped
    scale: float  # the rules' score's coefficient (log-odds per point)
    held_scale: bool  # whether it was held at SCALE


def fit(judged: dict[str, tuple[bool, list[Seen]]], l2: float) -> Fitted:
    """The model fitted on `judged` (repository -> (held out, its judged PRs)); refuses a held-out repository."""
    if held := sorted(name for name, (is_held, _) in judged.items() if is_held):
        raise HeldOutError(f"held-out repositories never enter training: {', '.join(held)}")
    everything = [r for _, rows in judged.values() for r in rows]
    names = names_of(everything)
    index = {n: i + 1 for i, n in enumerate(names)}
    rows = [row for _, seen_rows in judged.values() for row in pairs(seen_rows, index)]
    if not rows:
        return Fitted({}, 0.0, False)
    weights = learning.newton(rows, len(names) + 1, l2)
    held_scale = weights[0] < SCALE
    if held_scale:
        weights = learning.newton(rows, len(names) + 1, l2, SCALE, weights)
    raw = {n: weights[index[n]] / weights[0] for n in names}
    # A constant on every type moves no pair: put it where the training PRs' mean importance (each repository
    # weighing the same) stays the rules'.
    shift = statistics.mean(statistics.mean(sum(raw[n] * v for n, v in r.features.items()) for r in rows_)
                            for _, rows_ in judged.values() if rows_)
    for n in names:
        if n.startswith("type:"):
            raw[n] -= shift
    points = {n: round(max(-MAX_POINTS, min(MAX_POINTS, p)), 2) for n, p in raw.items() if abs(p) >= MIN_POINTS}
    return Fitted(points, weights[0], held_scale)


def model_of(fitted: Fitted, version: str = VERSION) -> prior.Prior:
    return prior.Prior(version, fitted.points, MAX_POINTS)


# --- leave one repository out --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fold:
    repo: str
    prs: int
    picks: int
    rules: Figures
    model: Figures


def leave_one_out(judged: dict[str, tuple[bool, list[Seen]]], l2: float) -> list[Fold]:
    """Each training repository scored by the model fitted on the others."""
    out = []
    for name, (_, rows) in sorted(judged.items()):
        others = {n: v for n, v in judged.items() if n != name}
        model = model_of(fit(others, l2))
        out.append(Fold(name, len(rows), sum(r.pick for r in rows), figures(rows, today),
                        figures(rows, with_model(model))))
    return out


def _mean(values: Sequence[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return statistics.mean(values) if values else float("nan")


def choose(judged: dict[str, tuple[bool, list[Seen]]]) -> tuple[float, dict[float, list[Fold]]]:
    """The penalty with the best mean leave-one-repository-out AUC (the strongest when tied), and every fold."""
    folds = {l2: leave_one_out(judged, l2) for l2 in PENALTIES} if len(judged) > 1 else {}
    if not folds:
        return PENALTIES[-1], {}
    best = max(PENALTIES, key=lambda l2: (round(_mean([f.model.auc for f in folds[l2]]), 4), l2))
    return best, folds


# --- outputs -------------------------------------------------------------------------------------------------


def model_file(fitted: Fitted, l2: float, repos: Sequence[JudgedRepo], judged: dict[str, tuple[bool, list[Seen]]],
               folds: list[Fold]) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps(sorted(fitted.points.items())).encode()).hexdigest()[:8]
    return {
        "version": f"{VERSION}-{digest}",  # the weights' digest: a retrained model is a new engine version
        "engine": ENGINE_VERSION,
        "trained": datetime.now(UTC).strftime("%Y-%m-%d"),
        "method": "pairwise L2 logistic, pairs within a repository's UTC week at different changelog grades, "
                  "each repository weighing the same (bench/train_importance.py, docs/importance-model.md)",
        "picks": f"grade >= {PICK}",
        "penalty": l2,
        "scale": round(fitted.scale, 4),
        "max_points": MAX_POINTS,
        "trained_on": [{"repo": r.repo, "commit": r.commit, "judged_prs": len(judged[r.repo][1]),
                        "picks": sum(s.pick for s in judged[r.repo][1])} for r in repos],
        "leave_one_repo_out_auc": {"rules": round(_mean([f.rules.auc for f in folds]), 4),
                                   "model": round(_mean([f.model.auc for f in folds]), 4)} if folds else None,
        "features": sorted({n for _, rows in judged.values() for r in rows for n in r.features}),
        "weights": dict(sorted(fitted.points.items(), key=lambda kv: (-abs(kv[1]), kv[0]))),
    }


MEANINGS = {
    "type:": "the change type the engine gives the PR",
    "cap_": "the cap that bound the rules' score",
    "size": "per point of the size rule (log10 of 1 + library lines changed)",
}


def meaning(name: str) -> str:
    if name.startswith("type:"):
        return f"a PR of type `{name[5:]}` (the types carry the centring constant: compare them with each other)"
    if name == "size":
        return MEANINGS["size"]
    if name.startswith("cap_"):
        return f"the rules' score was capped by `{name}`"
    if name in features.MEANINGS:
        return features.MEANINGS[name]
    return f"rule `{name}` fired"


def report(data: dict[str, Any], l2: float, folds: dict[float, list[Fold]], seconds: float) -> str:
    lines = [
        "# The importance model (issue 48)",
        "",
        "Written by `python -m bench.train_importance`; do not edit by hand. The engine (prhub.engine.prior) adds",
        "these points to the rules' score, under the rules' lowest cap that holds, when the model file is in the",
        "layer (layers/prhub/prhub/engine/importance_model.json); the reasons a report prints stay the rules'.",
        "Whether it is shipped, and the held-out repositories' figures: docs/calibration.md.",
        "",
        "## Data",
        "",
        f"Training repositories ({len(data['trained_on'])}; held-out repositories never enter the fit, the",
        "penalty's choice or this report):",
        "",
        "| repository | commit | judged PRs | picks (grade ≥ 2) |",
        "| --- | --- | ---: | ---: |",
        *[f"| {t['repo']} | {t['commit'][:12] or '—'} | {t['judged_prs']} | {t['picks']} |"
          for t in data["trained_on"]],
        "",
        "## Method",
        "",
        "Pairwise L2-penalised logistic regression: for two judged PRs of one repository's UTC Monday–Sunday week",
        "at different changelog grades, logit P(the higher-graded first) = b·Δ(rules' score) + Σ w_j·Δx_j, x the",
        "features the table of rules gives a PR (its type, each rule that fired, the size rule's points, the cap that",
        "bound it) and the PR's facts beside the rules (prhub.engine.features, `x:` below).",
        f"At most {PAIRS_PER_REPO} pairs per repository (fixed seed); a week's pairs weigh as its judged",
        "PRs, every repository's pairs the same in total. w_j / b are importance points; the type points are shifted",
        f"together so the training PRs' mean importance is the rules'; each is clipped to ±{MAX_POINTS:g}. The engine",
        "adds them under the rules' lowest cap that holds (docs only, a typo, a repository's `minor:`), as the",
        "figures below do.",
        f"Penalty chosen among {', '.join(f'{p:g}' for p in PENALTIES)} by the mean leave-one-repository-out ROC AUC",
        f"(picks: grade ≥ {PICK}): **{l2:g}**; b = {data['scale']} log-odds per point.",
        "",
        "## Leave one repository out",
        "",
        "Each training repository scored by the model fitted on the others (recall@K / ROC AUC; K = a week's picks).",
        "",
    ]
    if folds:
        lines += ["| penalty | mean AUC rules | mean AUC model | mean recall@K rules | mean recall@K model |",
                  "| ---: | ---: | ---: | ---: | ---: |"]
        for p, fs in folds.items():
            lines.append(f"| {p:g} | {_mean([f.rules.auc for f in fs]):.3f} | {_mean([f.model.auc for f in fs]):.3f} "
                         f"| {_mean([f.rules.recall for f in fs]):.3f} | {_mean([f.model.recall for f in fs]):.3f} |")
        lines += ["", f"At the chosen penalty {l2:g}:", "",
                  "| repository | judged PRs | picks | rules | model |", "| --- | ---: | ---: | ---: | ---: |"]
        lines += [f"| {f.repo} | {f.prs} | {f.picks} | {f.rules} | {f.model} |" for f in folds[l2]]
    else:
        lines.append("One training repository only: no leave-one-out figures.")
    lines += ["", "## Weights (importance points)", "", "| feature | points | what it is |", "| --- | ---: | --- |"]
    lines += [f"| `{n}` | {p:+.2f} | {meaning(n)} |" for n, p in data["weights"].items()]
    lines += ["", f"Fitted in {seconds:.0f} s.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--out", type=Path, default=MODEL_OUT)
    parser.add_argument("--report", type=Path, default=REPORT_OUT)
    parser.add_argument("--dry-run", action="store_true", help="print, write nothing")
    parser.add_argument("--beside-rules", action="store_true",
                        help="learn points only for the facts beside the rules (prhub.engine.features' x:), the "
                             "rules' own points kept as they are set")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    repos = train_repos(corpus(args.corpus))  # held-out repositories dropped before anything is read of them
    if not repos:
        print("no training repositories", file=sys.stderr)
        return 1
    judged = {r.repo: (False, seen(r)) for r in repos}
    if args.beside_rules:
        judged = {name: (held, [beside_rules(s) for s in rows]) for name, (held, rows) in judged.items()}
    print(f"read {sum(len(v[1]) for v in judged.values())} judged PRs of {len(repos)} repositories "
          f"in {time.perf_counter() - started:.0f} s")
    l2, folds = choose(judged)
    for p, fs in folds.items():
        print(f"  penalty {p:>5g}: leave-one-repo-out mean AUC rules {_mean([f.rules.auc for f in fs]):.3f} "
              f"model {_mean([f.model.auc for f in fs]):.3f}; recall@K rules {_mean([f.rules.recall for f in fs]):.3f}"
              f" model {_mean([f.model.recall for f in fs]):.3f}")
    fitted = fit(judged, l2)
    data = model_file(fitted, l2, repos, judged, folds.get(l2, []))
    seconds = time.perf_counter() - started
    print(f"penalty {l2:g}, b {fitted.scale:.3f}{' (held)' if fitted.held_scale else ''}, "
          f"{len(fitted.points)} weights, {seconds:.0f} s")
    for n, p in list(data["weights"].items())[:12]:
        print(f"  {n:<24} {p:+.2f}")
    if not args.dry_run:
        args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        args.report.write_text(report(data, l2, folds, seconds), encoding="utf-8")
        print(f"wrote {args.out} and {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
