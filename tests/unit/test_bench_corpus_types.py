"""bench.corpus_types (issue 48): type accuracy against a corpus's changelog categories, beside the prefix-only
baseline and the engine's inference alone, the held-out repositories pooled apart."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from prhub.core.config import PR_TYPES
from prhub.core.models import PullRequest

from bench import corpus_types


def test_every_engine_type_maps_to_a_changelog_category() -> None:
    assert set(corpus_types.CATEGORY) == set(PR_TYPES)
    assert set(corpus_types.CATEGORY.values()) == set(corpus_types.CATEGORIES)


def test_the_prefix_only_baseline_reads_the_conventional_prefix_and_says_fix_without_one() -> None:
    read = corpus_types.prefix_only
    assert [read(_pr(1, t)) for t in ("feat(cli)!: drop the flag", "docs: a guide", "chore(deps): bump x",
                                       "perf: cache", "Add a sampler", "✨ Add a sampler")] == \
        ["feature", "docs", "internal", "perf", "fix", "fix"]


def _pr(number: int, title: str, path: str = "pkg/core.py") -> PullRequest:
    return PullRequest.from_export(_row(number, title, path))


def _row(number: int, title: str, path: str = "pkg/core.py") -> dict[str, object]:
    return {"number": number, "title": title, "merged_at": f"2026-01-{number % 28 + 1:02d}T10:00:00Z",
            "files": [{"filename": path, "status": "modified", "additions": 12, "deletions": 3, "changes": 15}]}


def _repo(corpus: Path, name: str, rows: list[dict[str, object]], labels: dict[int, str]) -> None:
    folder = corpus / name.replace("/", "__")
    folder.mkdir(parents=True)
    (folder / "pulls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps({"number": n, "section": c.title(), "category": c,
                                                             "breaking": False, "grade": 1}) + "\n"
                                                 for n, c in labels.items()), encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    # A gitmoji-titled training repository (its emoji decide) and a held-out one titled in plain words; a PR the
    # changelog does not file counts nowhere, and neither does a category outside the five.
    emoji = [_row(1, "🐛 Update the sampler for empty prompts"), _row(2, "📝 Add a section on rewards"),
             _row(3, "✨ Add beam search"), _row(4, "⬆️ Bump numpy"), _row(5, "🐛 Keep the last shard"),
             _row(6, "✨ Support fp8")]
    _repo(tmp_path, "o/emoji", emoji, {1: "fix", 2: "docs", 3: "feature", 4: "internal"})
    plain = [_row(10, "Add a sampler"), _row(11, "Fix the cache"), _row(12, "Bump numpy"), _row(13, "Tidy")]
    _repo(tmp_path, "o/plain", plain, {10: "feature", 11: "fix", 12: "internal"})
    with (tmp_path / "o__plain" / "labels.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"number": 13, "section": "Misc", "category": "other"}) + "\n")
    (tmp_path / "index.json").write_text(json.dumps([{"repo": "o/emoji", "held_out": False},
                                                     {"repo": "o/plain", "held_out": True},
                                                     {"repo": "o/absent", "held_out": False}]), encoding="utf-8")
    return tmp_path


def test_each_repository_is_measured_on_its_judged_prs(corpus: Path) -> None:
    repos = {r.name: r for r in corpus_types.corpus_repos(corpus) if r.name.startswith("o/")}
    assert set(repos) == {"o/emoji", "o/plain"} and repos["o/plain"].held_out
    emoji, plain = corpus_types.accuracy(repos["o/emoji"]), corpus_types.accuracy(repos["o/plain"])
    # the emoji decide: all four right; the prefix-only baseline says fix of each; alone, "Update" and "Add" mislead
    assert (emoji.prs, emoji.engine, emoji.prefix, emoji.inference) == (4, 4, 1, 2)
    # "other" is no category: three judged PRs, which the engine reads from their verbs
    assert (plain.prs, plain.engine, plain.prefix) == (3, 3, 1)


def test_the_table_pools_the_held_out_repositories_apart_and_tuning_leaves_them_out(
        corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus_types.print_table(True, corpus)
    out = capsys.readouterr().out
    assert "held out, pooled" in out and "o/plain" in out
    assert "training, pooled" in out
    corpus_types.print_table(False, corpus)
    tuning = capsys.readouterr().out
    assert "o/plain" not in tuning and "held out" not in tuning and "o/emoji" in tuning
