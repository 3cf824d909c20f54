"""The score cache's key (prhub.flow.score.cache_keys): the settings the score reads, the PR's state, and what a
cached value must be to be used (issue 46, items 1, 3 and 8)."""
from __future__ import annotations

import functools
import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import MODEL_SCORING_SETTINGS, SCORING_SETTINGS, LlmConfig, RepoConfig
from prhub.core.models import _SCORED_TYPES, FileChange, PullRequest, ScoredPR
from prhub.engine.scoring import score_pull
from prhub.flow.score import cache_keys, cached_result, pr_version

from prhub_local.sample import sample_settings

ROOT = Path(__file__).resolve().parents[2]
VERL = ROOT.parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
BASE = {"repo": "acme/rocket", "language": "en"}

# A value other than the default for each setting the score reads: each must change the key.
READ = {"language": "zh", "key_threshold": 9.5, "module_map": {"rocket/": "core"}, "test_paths": ["spec/"],
        "highlight_labels": ["notable"], "chore_labels": ["housekeeping"], "product_kinds": ["docs"],
        "large_change_lines": 10, "check_registry": True, "bots": ["alice-w"],
        "conventions": {"minor_markers": ["minor"], "types": {"bugfix": "fix"}}}
# ... and for every other setting (a setting added to RepoConfig must be put in one of the two).
NOT_READ = {"tz": "Asia/Shanghai", "source": "jsonl:elsewhere.jsonl", "scorer": "heuristic",
            "judgements": [{"pr": 1204, "verdict": "key"}], "key_labels": ["key"], "minor_labels": ["minor"],
            "changelog": {"path": "CHANGELOG.md", "sections": {"Added": "key"}},
            "llm": {"temperature": 0.9, "max_tokens_per_run": 10, "model": "other", "timeout": 5.0},
            "notify": [{"channel": "webhook", "url": "https://hooks.example.com/x"}],
            "exclude_authors": ["bob"], "paths": ["rocket/worker/**"], "slice": "worker"}


def config(**changes: Any) -> RepoConfig:
    return RepoConfig.from_dict({**BASE, **changes})


@functools.cache
def sample_prs() -> list[PullRequest]:
    """The bundled sample's PRs, with some of verl's when the shared data is here (bots, labels, reviews)."""
    path = Path(sample_settings()["config"]["source"].removeprefix("jsonl:"))
    rows = path.read_text(encoding="utf-8").splitlines()
    if VERL.exists():
        rows += VERL.read_text(encoding="utf-8").splitlines()[:100]
    return [PullRequest.from_export(json.loads(line)) for line in rows]


@functools.cache
def base_results() -> list[dict[str, Any]]:
    return [score_pull(p, config()).to_dict() for p in sample_prs()]


def test_every_setting_is_either_read_by_the_score_or_not() -> None:
    # The two tables below classify every setting: one added to RepoConfig makes this fail until it is classified
    assert set(READ) == set(SCORING_SETTINGS)
    assert {f.name for f in fields(RepoConfig)} == set(READ) | set(NOT_READ) | {"repo"}


@pytest.mark.parametrize("name", sorted(READ))
def test_each_setting_the_score_reads_changes_the_key(name: str) -> None:
    base, changed = config(), config(**{name: READ[name]})
    assert base.scoring_fingerprint(model=False) != changed.scoring_fingerprint(model=False)
    assert cache_keys(base, 7, "abc", "heuristic", None, "v") != cache_keys(changed, 7, "abc", "heuristic", None, "v")


@pytest.mark.parametrize("name", sorted(NOT_READ))
def test_a_setting_the_score_does_not_read_leaves_the_key_and_the_result_alone(name: str) -> None:
    # GIVEN the repository's settings, and the same with one the score does not read changed
    extra = {"paths": NOT_READ["paths"]} if name == "slice" else {}
    base, changed = config(), config(**{name: NOT_READ[name]}, **extra)
    # THEN the key is the same ...
    assert cache_keys(base, 7, "abc", "heuristic", None, "v") == cache_keys(changed, 7, "abc", "heuristic", None, "v")
    # AND so is every PR's result: were the engine to read this setting, a cached result would be stale
    for pr, result in zip(sample_prs(), base_results(), strict=True):
        assert score_pull(pr, changed).to_dict() == result, (name, pr.number)


@pytest.mark.parametrize("edit", [{"max_tokens_per_pr": 1000}, {"temperature": 0.9}])
def test_the_model_settings_key_the_models_results_only(edit: dict[str, Any]) -> None:
    # a budget or a temperature edited in the watch list: the model's cached answers were given under the old one
    base = config()
    edited = replace(base, llm=LlmConfig(**edit))
    assert set(MODEL_SCORING_SETTINGS) == {"max_tokens_per_pr", "temperature"}
    assert cache_keys(base, 7, "abc", "llm", "m", "p") != cache_keys(edited, 7, "abc", "llm", "m", "p")
    assert cache_keys(base, 7, "abc", "heuristic", None, "v") == cache_keys(edited, 7, "abc", "heuristic", None, "v")


def test_a_slice_with_settings_of_its_own_has_keys_of_its_own() -> None:
    repo = config()
    alike = config(slice="worker", paths=["rocket/worker/**"])
    own = config(slice="worker", paths=["rocket/worker/**"], key_threshold=9.5)
    assert cache_keys(alike, 7, "abc", "heuristic", None, "v") == cache_keys(repo, 7, "abc", "heuristic", None, "v")
    assert cache_keys(own, 7, "abc", "heuristic", None, "v") != cache_keys(repo, 7, "abc", "heuristic", None, "v")


def pr(**changes: Any) -> PullRequest:
    base = PullRequest.from_export({
        "number": 7, "title": "[worker] feat: prefetch", "body": "Why and how.", "merged_at": "2026-06-02T10:00:00Z",
        "user": {"login": "alice"}, "labels": [{"name": "perf"}],
        "files": [{"filename": "rocket/worker/a.py", "status": "modified", "additions": 10, "deletions": 2}]})
    return replace(base, **changes)


def test_a_pr_with_a_head_is_keyed_by_it() -> None:
    assert pr_version(pr(head_sha="f00d")) == "f00d"
    assert pr_version(pr(head_sha="f00d", title="edited")) == "f00d"


@pytest.mark.parametrize("edit", [
    {"title": "[worker] feat: prefetch, reworded"}, {"body": "Why, how, and measured."}, {"additions": 99},
    {"labels": ["perf", "breaking"]},
    {"files": [FileChange("rocket/worker/a.py", "modified", 11, 2)]},
    {"files": [FileChange("rocket/worker/b.py", "modified", 10, 2)]},
], ids=["title", "body", "additions", "labels", "file-lines", "file-name"])
def test_a_pr_without_a_head_is_keyed_by_what_the_score_reads(edit: dict[str, Any]) -> None:
    # GIVEN an export with neither head nor merge commit: the key's PR state is a digest of the PR as read
    before = pr_version(pr())
    assert before.startswith("sha256-") and before == pr_version(pr())
    # THEN an edit between runs is another key: the older result is not served
    assert pr_version(pr(**edit)) != before


def test_every_field_of_a_result_has_the_type_a_cached_one_is_checked_against() -> None:
    assert set(_SCORED_TYPES) == {f.name for f in fields(ScoredPR)}


def test_a_cached_result_of_the_pr_is_used() -> None:
    scored = score_pull(pr(), config())
    assert cached_result(json.loads(json.dumps(scored.to_dict())), 7) == scored
    assert cached_result(None, 7) is None


@pytest.mark.parametrize("damage", [
    lambda d: {"number": d["number"]},
    lambda d: {**d, "number": 999999},
    lambda d: {**d, "importance": "high"},
    lambda d: {**d, "key": 1},
    lambda d: {**d, "additions": True},
    lambda d: {**d, "modules": "worker"},
    lambda d: {**d, "modules": [None]},
    lambda d: {**d, "risks": [{"kind": "large_change"}]},
    lambda d: {**d, "risks": [{"kind": "x", "detail": "y", "extra": 1}]},
    lambda d: {**d, "review": "none"},
    lambda d: [d],
    lambda d: "text",
], ids=["number-only", "another-pr", "importance-text", "key-int", "additions-bool", "modules-text",
        "modules-null", "risk-without-detail", "risk-unknown-field", "review-text", "a-list", "a-string"])
def test_a_damaged_or_misplaced_entry_is_refused(damage: Any) -> None:
    good = json.loads(json.dumps(score_pull(pr(), config()).to_dict()))
    with pytest.raises(ValueError):
        cached_result(damage(good), 7)
