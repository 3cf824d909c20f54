"""Types against the maintainers' changelog categories (issue 48): per corpus repository, and the held-out ones pooled.

    python -m bench.corpus_types [--corpus PATH] [--tuning] [--misses N]

The corpus (built outside the project, default ../cache/corpus, or $PRHUB_CORPUS) has an `index.json` listing its
repositories (`held_out` marks the ones no tuning may look at) and per repository `<owner>__<name>/pulls.jsonl`
(the export format) and `labels.jsonl` (`{"number", "section", "category", ...}`, category one of feature, fix,
perf, docs, internal: the section of the maintainers' changelog the PR is filed under). rust-lang/cargo is read
from ../shared/data with its CHANGELOG.md when the corpus does not have it.

Only PRs the changelog files under a category count. Each reading of a PR's type is mapped to a category by
CATEGORY, written down before any figure was measured:

    engine        the engine with the conventions it learns from the repository's own titles (as a run does)
    prefix only   the title's conventional prefix (`type(scope)!:`, `type:`), "fix" where there is none
    inference     the engine with `"conventions": false`: its own reading alone

`--tuning` leaves the held-out repositories out (what tuning may look at); `--misses N` prints N PRs per training
repository the engine gets wrong, for reading.
"""
from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from prhub.core.config import Conventions
from prhub.core.models import PullRequest
from prhub.engine.changelog import read_changelog
from prhub.engine.scoring import facts, parse_title

from bench.calibrate import SHARED, load, repo_config, with_conventions

CORPUS = Path(os.environ.get("PRHUB_CORPUS") or Path(__file__).resolve().parents[2] / "cache" / "corpus")

# The engine's types as the changelogs' categories (fixed before measuring): what a user meets as new is a feature,
# a revert undoes a change as a fix does, and everything aimed at the project's own contributors is internal.
CATEGORY = {"feat": "feature", "fix": "fix", "revert": "fix", "perf": "perf", "docs": "docs", "refactor": "internal",
            "test": "internal", "ci": "internal", "chore": "internal"}
CATEGORIES = ("feature", "fix", "perf", "docs", "internal")

# cargo's CHANGELOG.md sections as categories (Nightly only: no category, left out).
CARGO_CATEGORIES = {"Added": "feature", "Changed": "feature", "Fixed": "fix", "Documentation": "docs",
                    "Internal": "internal"}


@dataclass(frozen=True)
class Repo:
    name: str
    held_out: bool
    prs: list[PullRequest]
    labels: dict[int, str]  # PR number -> changelog category


@dataclass(frozen=True)
class Accuracy:
    prs: int
    engine: int  # right answers of each reading
    prefix: int
    inference: int

    def __add__(self, other: Accuracy) -> Accuracy:
        return Accuracy(self.prs + other.prs, self.engine + other.engine, self.prefix + other.prefix,
                        self.inference + other.inference)

    def share(self, right: int) -> float:
        return right / self.prs if self.prs else 0.0


def prefix_only(pr: PullRequest) -> str:
    """The baseline: the title's conventional prefix as a category, "fix" where it declares none."""
    declared = parse_title(pr.title)[1]
    return CATEGORY[declared] if declared else "fix"


def cargo_labels() -> dict[int, str]:
    """cargo's PRs by the section of its CHANGELOG.md that files them (a PR filed under two categories is left out)."""
    text = (SHARED / "rust-lang-cargo" / "CHANGELOG.md").read_text(encoding="utf-8")
    found: dict[int, set[str]] = {}
    for section, category in CARGO_CATEGORIES.items():
        # Highlighted (🎉) entries keep their section: None leaves them to it.
        for j in read_changelog(text, {section: "key", "🎉": None}, "rust-lang/cargo"):
            found.setdefault(j.pr, set()).add(category)
    return {n: next(iter(c)) for n, c in found.items() if len(c) == 1}


def _pulls(folder: Path) -> Path | None:
    """A corpus repository's export: in its folder, or where its BUILD.json says (cargo's is ../shared/data's)."""
    if (folder / "pulls.jsonl").exists():
        return folder / "pulls.jsonl"
    build = folder / "BUILD.json"
    named = json.loads(build.read_text(encoding="utf-8")).get("pulls") if build.exists() else None
    return Path(named) if named and Path(named).exists() else None


def corpus_repos(corpus: Path = CORPUS) -> list[Repo]:
    """The corpus's repositories that have both files, then cargo from ../shared/data unless the corpus has it."""
    repos: list[Repo] = []
    index = corpus / "index.json"
    entries = json.loads(index.read_text(encoding="utf-8")) if index.exists() else []
    if isinstance(entries, dict):
        entries = entries.get("repos", [])
    for entry in entries:
        name = entry["repo"] if isinstance(entry, dict) else str(entry)
        folder = corpus / name.replace("/", "__")
        pulls = _pulls(folder)
        if pulls is None or not (folder / "labels.jsonl").exists():
            continue
        with (folder / "labels.jsonl").open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        labels = {int(r["number"]): r["category"] for r in rows if r.get("category") in CATEGORIES}
        repos.append(Repo(name, bool(entry.get("held_out")) if isinstance(entry, dict) else False,
                          load(pulls), labels))
    cargo = SHARED / "rust-lang-cargo"
    if "rust-lang/cargo" not in {r.name for r in repos} and (cargo / "CHANGELOG.md").exists():
        repos.append(Repo("rust-lang/cargo", False, load(cargo / "pulls.jsonl"), cargo_labels()))
    return repos


def judged(repo: Repo) -> list[PullRequest]:
    return [p for p in repo.prs if p.number in repo.labels]


def readings(repo: Repo) -> dict[str, Callable[[PullRequest], str]]:
    """Each reading of a PR's category in this repository."""
    config = repo_config(repo.name, "UTC")
    learned = with_conventions(config, repo.prs)  # what a run learns from the repository's titles
    alone = replace(config, conventions=Conventions(learn=False))
    return {"engine": lambda p: CATEGORY[facts(p, learned).reported], "prefix": prefix_only,
            "inference": lambda p: CATEGORY[facts(p, alone).reported]}


def accuracy(repo: Repo) -> Accuracy:
    read = readings(repo)
    prs = judged(repo)
    right = {name: sum(f(p) == repo.labels[p.number] for p in prs) for name, f in read.items()}
    return Accuracy(len(prs), right["engine"], right["prefix"], right["inference"])


def misses(repo: Repo, count: int) -> list[str]:
    """The first `count` PRs the engine files under another category than the changelog, with what each said."""
    read = readings(repo)
    out = []
    for p in judged(repo):
        got = read["engine"](p)
        if got != repo.labels[p.number]:
            out.append(f"      #{p.number:<6} changelog {repo.labels[p.number]:<8} engine {got:<8} "
                       f"prefix {read['prefix'](p):<8} {p.title[:90]}")
            if len(out) >= count:
                break
    return out


def row(name: str, a: Accuracy) -> str:
    return (f"  {name:<40} {a.prs:>5} PRs   engine {a.share(a.engine):.2f}   prefix only {a.share(a.prefix):.2f}   "
            f"inference alone {a.share(a.inference):.2f}")


def print_table(held_out: bool = True, corpus: Path = CORPUS, show_misses: int = 0) -> None:
    """The type-accuracy block of `python -m bench.calibrate` (training repositories, then the held-out ones and
    their pool; without `held_out`, the training ones alone)."""
    repos = corpus_repos(corpus)
    print("\n== types against the maintainers' changelog categories (bench/corpus_types.py): share of judged PRs "
          "whose type maps to the changelog's category")
    if not repos:
        print(f"  skipped: no corpus in {corpus} and no cargo CHANGELOG.md in {SHARED}")
        return
    pools: dict[bool, Accuracy] = {}
    for held in (False, True):
        if held and not held_out:
            continue
        print(f"  -- {'held out' if held else 'training'}")
        for repo in (r for r in repos if r.held_out == held):
            found = accuracy(repo)
            pools[held] = pools[held] + found if held in pools else found
            print(row(repo.name, found))
            by = Counter(repo.labels[p.number] for p in judged(repo))
            print(f"      categories: {dict(by.most_common())}")
            if show_misses and not held:
                print("\n".join(misses(repo, show_misses)))
    for held, pool in pools.items():
        print(row("held out, pooled" if held else "training, pooled", pool))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--tuning", action="store_true", help="leave the held-out repositories out")
    parser.add_argument("--misses", type=int, default=0, help="PRs per training repository the engine gets wrong")
    args = parser.parse_args(argv)
    print_table(not args.tuning, args.corpus, args.misses)


if __name__ == "__main__":
    main()
