"""Importance against maintainers' picks on the judged corpus (issue 48): per repository and the held-out ones pooled.

    python -m bench.corpus_importance [--corpus DIR]

The corpus (built outside the project, /work/cache/corpus by default or $PRHUB_CORPUS) holds, per repository, an
export (`pulls.jsonl`) and its changelog's grades (`labels.jsonl`: 3 highlight, 2 feature/changed/breaking/perf,
1 fix, 0 docs/internal/deps); a PR merged in the changelog's covered range that it does not name is grade 0, unless
it is of a part of the repository the changelog never covers (BUILD.json's `out_of_scope`: then it is not judged).
`index.json` marks the repositories held out: they never enter training (bench.train_importance) and are reported
apart. Without a corpus, cargo's export and CHANGELOG.md from ../shared/data stand in (read as bench.calibrate
reads them), so the pipeline runs before the corpus exists.

Picks: grade ≥ 2 (PICK), fixed before any figure. Per repository and for the held-out repositories pooled:
recall@K (each UTC Monday–Sunday week's top K, K = its picks, pooled over weeks; ties by PR number) and ROC AUC
over all its judged PRs (ties count half), of three rankings: size only (changed lines), today's rules (the table
of rules without the learned model) and the model (the rules with prhub.engine.prior's points).
"""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest
from prhub.engine import conventions, learning, prior, rules
from prhub.engine.changelog import read_changelog
from prhub.engine.scoring import facts

from bench.corpus import out_of_scope

CORPUS = Path(os.environ.get("PRHUB_CORPUS", "/work/cache/corpus"))
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PICK = 2  # a maintainers' pick: highlight (3) or feature/changed/breaking/perf (2)


@dataclass(frozen=True)
class JudgedRepo:
    """One corpus repository: its judged PRs (merged in the changelog's covered range) and their grades."""

    repo: str
    held_out: bool
    commit: str  # what the export and changelog were read at (index.json / BUILD.json), "" when unknown
    prs: list[PullRequest]  # every PR of the export: the conventions are learned from all of them
    grades: dict[int, int]  # the judged PRs' grades: 0 where the changelog names none

    @property
    def judged(self) -> list[PullRequest]:
        return [p for p in self.prs if p.number in self.grades]


def _load_prs(path: Path) -> list[PullRequest]:
    with path.open(encoding="utf-8") as handle:
        prs = [PullRequest.from_export(json.loads(line)) for line in handle if line.strip()]
    return sorted(prs, key=lambda p: (p.merged_at, p.number))


def _day(value: Any) -> date | None:
    if not value:
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).date() if "T" in str(value) \
        else date.fromisoformat(str(value)[:10])


def _covered(*sources: dict[str, Any]) -> tuple[date | None, date | None]:
    """The changelog's covered range from whichever of index.json's entry or BUILD.json says it."""
    for source in sources:
        for holder in (source, source.get("covered") or {}, source.get("range") or {}, source.get("changelog") or {}):
            if not isinstance(holder, dict):
                continue
            since = holder.get("since") or holder.get("from") or holder.get("start") or holder.get("covered_since")
            until = holder.get("until") or holder.get("to") or holder.get("end") or holder.get("covered_until")
            if since or until:
                return _day(since), _day(until)
    return None, None


def _entries(index: Any) -> list[dict[str, Any]]:
    items = index.get("repos", index) if isinstance(index, dict) else index
    if isinstance(items, dict):  # {"owner/name": {...}}
        return [{"repo": name, **(entry or {})} for name, entry in items.items()]
    return [dict(e) for e in items]


def corpus(root: Path = CORPUS) -> list[JudgedRepo]:
    """The judged corpus in `root` (its index.json's repositories whose files are there yet), else cargo from
    ../shared/data. The one place that reads the corpus' files."""
    index = root / "index.json"
    if not index.exists():
        return [r for r in [cargo_fallback()] if r is not None]
    out = []
    for entry in _entries(json.loads(index.read_text(encoding="utf-8"))):
        repo = str(entry.get("repo") or entry.get("name") or entry.get("full_name"))
        folder = root / repo.replace("/", "__")
        build = json.loads((folder / "BUILD.json").read_text(encoding="utf-8")) \
            if (folder / "BUILD.json").exists() else {}
        # An export kept elsewhere is read in place (cargo's in ../shared/data): BUILD.json says where
        pulls = folder / "pulls.jsonl" if (folder / "pulls.jsonl").exists() else Path(build.get("pulls") or folder)
        if not pulls.is_file() or not (folder / "labels.jsonl").exists():
            continue  # still being built
        since, until = _covered(entry, build)
        prs = _load_prs(pulls)
        named: dict[int, int] = {}
        with (folder / "labels.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    named[int(row["number"])] = max(named.get(int(row["number"]), 0), int(row.get("grade") or 0))
        # Only the covered range: outside it the changelog's silence says nothing, and its named PRs alone would
        # be a sample of the graded ones. Nor a part of the repository its changelog never covers (BUILD.json's
        # `out_of_scope`, bench.corpus: ruff's ty PRs, whose changelog is another repository's): unnamed there is
        # not "not worth noting".
        scope = build.get("out_of_scope") or {}
        grades = {p.number: named.get(p.number, 0) for p in prs
                  if (since is None or p.merged_at.date() >= since) and (until is None or p.merged_at.date() <= until)
                  and not out_of_scope(p.title, [f.filename for f in p.files], scope)}
        commit = str(entry.get("commit") or build.get("commit") or build.get("head") or "")
        out.append(JudgedRepo(repo, bool(entry.get("held_out")), commit, prs, grades))
    return out


def cargo_fallback() -> JudgedRepo | None:
    """cargo's export graded by its CHANGELOG.md (bench.calibrate's sections and grades), every PR of the export
    that the changelog does not name grade 0: the stand-in while the corpus is built."""
    from bench.calibrate import CARGO_GRADES, CARGO_SECTIONS  # calibrate imports this module: only here

    folder = SHARED / "rust-lang-cargo"
    if not (folder / "pulls.jsonl").exists() or not (folder / "CHANGELOG.md").exists():
        return None
    prs = _load_prs(folder / "pulls.jsonl")
    named = {j.pr: j.grade or 0 for j in read_changelog((folder / "CHANGELOG.md").read_text(encoding="utf-8"),
                                                         CARGO_SECTIONS, "rust-lang/cargo", CARGO_GRADES)}
    return JudgedRepo("rust-lang/cargo", False, "", prs, {p.number: named.get(p.number, 0) for p in prs})


def config_of(repo: JudgedRepo) -> RepoConfig:
    """How every corpus repository is scored: UTC weeks, English, the defaults every user gets, with the
    conventions its own titles show (as bench.calibrate runs the panels)."""
    config = RepoConfig(repo=repo.repo, tz="UTC", language="en")
    return replace(config, conventions=conventions.learn(config.conventions, [p.title for p in repo.prs]))


def week_of(pr: PullRequest) -> str:
    day = pr.merged_at.astimezone(UTC).date()
    return (day - timedelta(days=day.weekday())).isoformat()


@dataclass(frozen=True)
class Seen:
    """One judged PR as the benchmark and the trainer see it: the rules' score, the features, its grade."""

    repo: str
    number: int
    week: str
    grade: int
    lines: int  # changed lines (the size-only ranking)
    rules: float  # today's rules' importance
    features: dict[str, float]
    ceiling: float = 10.0  # the rules' lowest cap that holds: the learned points do not lift a PR past it

    @property
    def pick(self) -> bool:
        return self.grade >= PICK


def seen(repo: JudgedRepo) -> list[Seen]:
    """Every judged PR of `repo`, read by the table of rules once."""
    config = config_of(repo)
    out = []
    for pr in repo.judged:
        f = facts(pr, config)
        judged = rules.importance(f)
        feats, ceiling = prior.seen(f, judged)
        out.append(Seen(repo.repo, pr.number, week_of(pr), repo.grades[pr.number], pr.additions + pr.deletions,
                        judged.score, feats, ceiling))
    return out


# --- the figures --------------------------------------------------------------------------------------------


def auc(scores: Sequence[float], picks: Sequence[bool]) -> float:
    """ROC AUC: the chance a pick outscores a non-pick (ties half), by ranks (Mann–Whitney)."""
    ranks = learning.ranks(scores)
    pos = sum(picks)
    neg = len(picks) - pos
    if not pos or not neg:
        return float("nan")
    return (sum(r for r, p in zip(ranks, picks, strict=True) if p) - pos * (pos + 1) / 2) / (pos * neg)


def recall_at_k(rows: Iterable[Seen], score: Callable[[Seen], float]) -> tuple[float, int]:
    """(recall@K pooled over weeks, picks): each repository-week's top K by `score`, K = its picks."""
    weeks: dict[tuple[str, str], list[Seen]] = {}
    for row in rows:
        weeks.setdefault((row.repo, row.week), []).append(row)
    hits = picks = 0
    for members in weeks.values():
        k = sum(r.pick for r in members)
        top = sorted(members, key=lambda r: (-score(r), r.number))[:k]
        hits += sum(r.pick for r in top)
        picks += k
    return (hits / picks if picks else float("nan")), picks


@dataclass(frozen=True)
class Figures:
    recall: float
    auc: float

    def __str__(self) -> str:
        return f"{self.recall:.2f} / {self.auc:.2f}"


def figures(rows: Sequence[Seen], score: Callable[[Seen], float]) -> Figures:
    return Figures(recall_at_k(rows, score)[0], auc([score(r) for r in rows], [r.pick for r in rows]))


def size_only(row: Seen) -> float:
    return float(row.lines)


def today(row: Seen) -> float:
    return row.rules


def with_model(model: prior.Prior) -> Callable[[Seen], float]:
    return lambda row: prior.adjust(row.rules, row.features, model, row.ceiling)


@dataclass(frozen=True)
class Row:
    """One line of the table: a repository (or the held-out ones pooled) and its three rankings' figures."""

    scope: str
    held_out: bool
    prs: int
    picks: int
    size: Figures
    rules: Figures
    model: Figures


def table(judged: dict[str, tuple[bool, list[Seen]]], model: prior.Prior) -> list[Row]:
    """Per repository (training ones first), then the held-out repositories pooled."""
    out = []
    for name, (held, rows) in sorted(judged.items(), key=lambda kv: (kv[1][0], kv[0])):
        out.append(_row(name, held, rows, model))
    held_rows = [r for held, rows in judged.values() if held for r in rows]
    if held_rows:
        out.append(_row("held out, pooled", True, held_rows, model))
    return out


def _row(scope: str, held: bool, rows: list[Seen], model: prior.Prior) -> Row:
    return Row(scope, held, len(rows), sum(r.pick for r in rows), figures(rows, size_only), figures(rows, today),
               figures(rows, with_model(model)))


def rows(root: Path = CORPUS, model: prior.Prior | None = None, held_out: bool = True) -> list[Row]:
    """The corpus table for `model` (the shipped one by default); the training repositories only without
    `held_out` (what work on the model may look at)."""
    judged = {r.repo: (r.held_out, seen(r)) for r in corpus(root) if held_out or not r.held_out}
    return table(judged, prior.load() if model is None else model)


def print_table(root: Path = CORPUS, model: prior.Prior | None = None, held_out: bool = True) -> None:
    model = prior.load() if model is None else model
    print(f"\n== importance against maintainers' picks (grade >= {PICK}), corpus {root}"
          f"{'' if (root / 'index.json').exists() else ' (absent: cargo from ../shared/data)'}; "
          f"model {model.version or 'none'}")
    print("  (a repository the model was trained on is scored in sample here: its leave-one-repository-out figures are "
          "in docs/importance-model.md)")
    print(f"  {'repository':<32} {'PRs':>5} {'picks':>5}   recall@K / ROC AUC:  size-only   rules today   "
          f"rules+model   model-rules AUC")
    for row in rows(root, model, held_out):
        mark = " (held out)" if row.held_out and not row.scope.startswith("held out") else ""
        print(f"  {row.scope + mark:<32} {row.prs:>5} {row.picks:>5}   {'':<19} {row.size}   {row.rules}   "
              f"{row.model}   {row.model.auc - row.rules.auc:+.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--model", type=Path, help="a model file (default: the one the engine ships, if any)")
    parser.add_argument("--tuning", action="store_true", help="the training repositories only (while tuning)")
    args = parser.parse_args(argv)
    print_table(args.corpus, prior.load(args.model) if args.model else None, held_out=not args.tuning)


if __name__ == "__main__":
    main()
