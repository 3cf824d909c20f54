"""The same command gives the same report whatever the state holds: trends, first-time contributors and
revert chains come from the repository's own record (here the export), not from the runs a state happened
to keep. Bad input through the CLI exits 2 and writes nothing, not even the state directory."""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from prhub_local import cli
from prhub_local.runner import run_pipeline

pytestmark = pytest.mark.slow
REPO, TZ = "verl-project/verl", "Asia/Shanghai"


PROGRESS = re.compile(r"^listing \S+'s PRs(, \d+ s)?$")  # prhub_local.progress's plain line for the listing stage


def one_line(err: str) -> str:
    """The single line a user error prints beside the progress of the listing it stopped: no JSON log record of
    the handler behind it."""
    lines = [line for line in err.splitlines() if line.strip() and not PROGRESS.match(line)]
    assert len(lines) == 1, lines
    assert lines[0].startswith("prhub: ") and "{" not in lines[0]
    return lines[0]


def week(export: Path, since: str, until: str, state: Path, out: Path) -> dict[str, Any]:
    result = run_pipeline(repo=REPO, since=since, until=until, tz=TZ, source=f"jsonl:{export}", scorer="heuristic",
                          prefix="h" + uuid.uuid4().hex[:10], state=state, out=out,
                          progress=lambda message: None)
    report = dict(result.report)
    report.pop("generated_at")
    return report


def test_the_report_does_not_depend_on_the_runs_a_state_holds(verl_export: Path, tmp_path: Path) -> None:
    # GIVEN one state that is fresh and one that already reported a day of the week before and a day long before
    # (any earlier run will do: were the history read from the state's runs, a day would stand for its whole
    # week in the trends; and a day's run has a seventh of a week's PR pages to render)
    fresh = week(verl_export, "2026-06-15", "2026-06-21", tmp_path / "s1", tmp_path / "o1")
    week(verl_export, "2026-06-12", "2026-06-12", tmp_path / "s2", tmp_path / "o2")
    week(verl_export, "2026-02-05", "2026-02-05", tmp_path / "s2", tmp_path / "o2")
    # WHEN the same week is reported on each
    again = week(verl_export, "2026-06-15", "2026-06-21", tmp_path / "s2", tmp_path / "o2")
    # THEN the reports are the same
    assert json.dumps(fresh, sort_keys=True) == json.dumps(again, sort_keys=True)
    # AND they hold the acceptance figure (verl's week 25 has 21 merged PRs), each at its week's place in
    # the site, where the earlier runs' reports stay beside it
    assert fresh["stats"]["pr_count"] == 21
    reports = Path("verl-project/verl/reports")
    assert (tmp_path / "o1" / reports / "2026-06-15-to-2026-06-21" / "report.json").is_file()
    assert {p.parent.name for p in (tmp_path / "o2" / reports).glob("*/report.json")} == {
        "2026-06-15-to-2026-06-21", "2026-06-12-to-2026-06-12", "2026-02-05-to-2026-02-05"}
    # AND people who had merged dozens of PRs since 2024 are not welcomed as new
    assert not {"Guangming Sheng", "Yan Bai"} & set(fresh["stats"]["new_contributors"])
    assert fresh["stats"]["history_since"] == "2024-10-31"
    assert [w["pr_count"] for w in fresh["trends"]["weeks"]][-1] == fresh["stats"]["pr_count"]


@pytest.mark.parametrize(("content", "words"), [
    ("", "holds no PR (the file is empty)"),
    ("hello\nworld\n", "holds no readable PR"),
    ("[1, 2, 3]\n", "holds no readable PR"),
    ("import os\nprint(os.getcwd())\n", "holds no readable PR"),
])
def test_a_malformed_export_exits_2_and_writes_nothing(tmp_path: Path, content: str, words: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export.jsonl"
    export.write_text(content, encoding="utf-8")
    state, out = tmp_path / "state", tmp_path / "site"
    code = cli.main(["run", "--repo", "acme/rocket", "--since", "2026-06-01", "--until", "2026-06-07",
                     "--source", f"jsonl:{export}", "--state", str(state), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and words in one_line(err)
    assert not state.exists() and not out.exists()


def test_an_export_of_another_repository_exits_2_naming_what_it_holds(verl_export: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    state, out = tmp_path / "state", tmp_path / "site"
    code = cli.main(["run", "--repo", "foo/bar", "--since", "2026-05-04", "--until", "2026-05-10",
                     "--tz", TZ, "--source", f"jsonl:{verl_export}", "--state", str(state), "--out", str(out)])
    assert code == 2 and "holds no PR of foo/bar: its PRs are of verl-project/verl" in one_line(capsys.readouterr().err)
    assert not state.exists() and not out.exists()


def test_a_range_the_export_does_not_reach_exits_2(verl_export: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "--repo", REPO, "--since", "2026-10-05", "--until", "2026-10-11", "--tz", TZ,
                     "--source", f"jsonl:{verl_export}", "--state", str(tmp_path / "state"),
                     "--out", str(tmp_path / "site")])
    assert code == 2 and "covers merges from 2024-10-31 to 2026-08-22" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "state").exists()

