"""The score cache on the local stack with verl's real week (issue 46, items 1 and 3): `prhub run --config` through
prhub_local.runner.run_pipeline, with the state (its CacheTable) kept between runs as a user's is.

Item 1: results were cached without the settings they were scored under, so a watch list edited between runs, or
a slice with settings of its own run beside its repository, was reported with the other settings' key PRs and
risks. Item 3: one damaged cache entry failed its whole score batch (its batch-mates to the DLQ, the run swept
short of its PRs), and an entry holding another PR's number added that PR to the week.
"""
from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud.dynamo import pack, unpack

from prhub_local.runner import RunResult, run_pipeline
from prhub_local.state import generation
from tests.conftest import VERL, VERL_EXPORT

WEEK = {"since": "2026-05-04", "until": "2026-05-10"}  # 34 PRs
WEEK_PRS = 34
REPO = {"repo": VERL, "source": f"jsonl:{VERL_EXPORT}", "scorer": "heuristic"}
EDITED = {"key_threshold": 9.5, "large_change_lines": 10}  # few key PRs, many large changes
SLICE = {**REPO, "name": "core", "paths": ["verl/**"]}
SLICE_FOLDER = "verl-project/verl/slices/core/reports/2026-05-04-to-2026-05-10"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not VERL_EXPORT.exists(), reason=f"{VERL_EXPORT} is absent")]


def run(state: Path, out: Path, *repos: dict[str, Any], said: list[str] | None = None) -> RunResult:
    """`prhub run --config FILE --since ... --until ... --state STATE --out OUT` for the watch list of `repos`: the
    embedded AWS in this process, the state loaded from and saved to STATE, as a user runs it."""
    config = {"defaults": {"language": "en", "tz": "Asia/Shanghai"}, "repos": list(repos)}
    return run_pipeline(**WEEK, config_text=json.dumps(config),
                        prefix="c" + uuid.uuid4().hex[:10], state=state, out=out,
                        progress=(said.append if said is not None else lambda _: None))


def counts(path: Path) -> tuple[int, int, int]:
    """(PRs, key PRs, large-change risks) of a report.json."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    large = sum(1 for p in doc["prs"] for r in p["risks"] if r["kind"] == "large_change")
    return doc["stats"]["pr_count"], doc["stats"]["key_pr_count"], large


def test_settings_edited_between_runs_are_reported_as_a_fresh_state_reports_them(
        tmp_path: Path) -> None:
    # GIVEN verl's week run once, its scores cached in the state
    state = tmp_path / "state"
    before = counts(run(state, tmp_path / "site", REPO).paths["report.json"])
    # WHEN the watch list's key threshold and large-change size are edited and the week is run again
    again = counts(run(state, tmp_path / "site", {**REPO, **EDITED}).paths["report.json"])
    # THEN its key PRs and large-change risks are a fresh state's with those settings, not the cached ones
    fresh = counts(run(tmp_path / "fresh", tmp_path / "fresh-site", {**REPO, **EDITED})
                   .paths["report.json"])
    assert again == fresh
    assert fresh[0] == before[0] == WEEK_PRS and fresh[1] < before[1] and fresh[2] > before[2]


def test_a_slice_and_its_repository_in_one_run_each_get_their_own_settings(tmp_path: Path) -> None:
    # GIVEN a watch list with verl and a slice of it with settings of its own, run together on one state
    both = run(tmp_path / "state", tmp_path / "site", REPO, {**SLICE, **EDITED})
    # THEN each report is what it is run alone on a fresh state
    repo_alone = run(tmp_path / "repo", tmp_path / "repo-site", REPO)
    slice_alone = run(tmp_path / "slice", tmp_path / "slice-site", {**SLICE, **EDITED})
    assert counts(both.paths["report.json"]) == counts(repo_alone.paths["report.json"])
    sliced = counts(both.site_dir / SLICE_FOLDER / "report.json")
    assert sliced == counts(slice_alone.site_dir / SLICE_FOLDER / "report.json")
    assert sliced[1] < counts(repo_alone.paths["report.json"])[1]


def damage(state: Path, changes: dict[int, Any]) -> None:
    """The saved CacheTable with the score entry of each PR in `changes` replaced (a function of the entry) or,
    for None, removed (expired)."""
    path = generation(state) / "tables" / "CacheTable.jsonl"  # type: ignore[operator]
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    kept = []
    for item in items:
        number = int(item["key"]["S"].split("#")[1]) if item["key"]["S"].startswith(f"{VERL}#") else None
        if number in changes:
            if changes[number] is None:
                continue
            value = changes[number](unpack(base64.b64decode(item["data"]["B"]["__b64__"])))
            item["data"]["B"]["__b64__"] = base64.b64encode(pack(value)).decode()
        kept.append(item)
    path.write_text("".join(json.dumps(i) + "\n" for i in kept), encoding="utf-8")


def test_a_damaged_cache_entry_is_scored_again_and_the_week_is_complete(tmp_path: Path,
                                                                        capfd: pytest.CaptureFixture[str]) -> None:
    # GIVEN verl's week run once; then in the saved cache one PR's entry cut to its number, another's holding
    # a PR of no such week, and three more expired, so the five are scored together by one worker's batch
    state = tmp_path / "state"
    first = run(state, tmp_path / "site", REPO)
    numbers = sorted(p["number"] for p in first.report["prs"])
    cut, misplaced, *gone = numbers[:5]
    damage(state, {cut: lambda v: {"number": v["number"]}, misplaced: lambda v: {**v, "number": 999999},
                   **dict.fromkeys(gone)})
    # WHEN the week is run again
    capfd.readouterr()
    said: list[str] = []
    second = run(state, tmp_path / "site", REPO, said=said)
    # THEN every PR has its result: 34 of 34, none in the DLQ, none another's, the report the first one's
    assert any(line.startswith(f"scoring: {WEEK_PRS}/{WEEK_PRS} PRs") for line in said), said
    report = second.report
    assert sorted(p["number"] for p in report["prs"]) == numbers and report["unscored"] == []
    assert [(p["number"], p["importance"], p["key"]) for p in report["prs"]] == \
        [(p["number"], p["importance"], p["key"]) for p in first.report["prs"]]
    dlq = generation(state) / "queues" / "ScoreDLQ.messages.jsonl"  # type: ignore[operator]
    assert not dlq.exists() or dlq.read_text(encoding="utf-8").strip() == ""
    # AND each damaged entry was said once (stderr's warnings), and overwritten with its PR's own result: a third
    # run finds none
    assert capfd.readouterr().err.count("damaged score cache entry, the PR is scored again") == 2
    third = run(state, tmp_path / "site", REPO)
    assert third.report["stats"] == report["stats"]
    assert "damaged score cache entry" not in capfd.readouterr().err
