"""The repository's conventions through plan -> score -> report on in-memory adapters (issue 48): the plan learns
them from the repository's own titles, and the score workers weigh them in."""
from __future__ import annotations

import json
from pathlib import Path

from prhub.core.config import WatchList

from prhub_local.sample import SAMPLE_DIR
from tests.fakes.memory import MemoryStack, memory_stack
from tests.functional.test_judgements_flow import WEEK, run_week


def stack_with_titles(tmp_path: Path, titles: dict[int, str], **settings: object) -> MemoryStack:
    rows = [json.loads(line) for line in (SAMPLE_DIR / "acme-rocket.jsonl").read_text().splitlines() if line.strip()]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "pulls.jsonl"
    path.write_text("".join(json.dumps({**r, "title": titles.get(r["number"], r["title"])}) + "\n" for r in rows))
    config = {"repo": "acme/rocket", "tz": "Europe/Berlin", "source": f"jsonl:{path}", **settings}
    return memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"}, "repos": [config]})))


def importance(report: dict[str, object], number: int) -> tuple[float, bool]:
    [pr] = [p for p in report["prs"] if p["number"] == number]  # type: ignore[attr-defined]
    return pr["importance"], pr["key"]


# The week before writes `minor:` on three PRs; the week's #1211 (job priorities, key in the sample) is "minor:".
HABIT = {1180: "minor: jobs scheduled at midnight ran twice", 1184: "minor: configurable prefetch count",
         1188: "minor: explain retry back-off", 1211: "minor: job priorities"}


def test_the_plan_learns_a_minor_marker_from_the_repositorys_history_and_the_score_weighs_it(tmp_path: Path) -> None:
    # GIVEN a repository whose history writes `minor:`, and one where only the week's PR does
    habit = stack_with_titles(tmp_path / "a", HABIT)
    stray = stack_with_titles(tmp_path / "b", {1211: HABIT[1211]})
    # WHEN the week is reported in each
    habit_run, there = run_week(habit, WEEK)
    _, elsewhere = run_week(stray, WEEK)
    # THEN the run carries the learned marker, and only there is #1211 lowered below key
    run = habit.store.get_run(habit_run)
    assert run is not None and run.config.conventions.minor_markers == ("minor",)
    assert importance(there, 1211) <= (2.5, False)
    assert importance(elsewhere, 1211)[1]


def test_conventions_false_learns_nothing(tmp_path: Path) -> None:
    stack = stack_with_titles(tmp_path, HABIT, conventions=False)
    _, report = run_week(stack, WEEK)
    assert importance(report, 1211)[1]
