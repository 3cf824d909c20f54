"""`prhub run --source github` against the fake GitHub makes the same report as `--source jsonl:` (one verl week).

Both runs go through the real flow on the runner's embedded AWS, each with a new
--state directory, so the second cannot reuse the first one's score cache.
Faults are injected into the GitHub run; the report must still hold every PR once.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prhub_local.cli import main
from tests.fakes import FakeGitHub

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"real data not present at {DATA}")]


def run_report(source: str, work: Path) -> dict[str, Any]:
    code = main(["run", "--repo", REPO, "--since", "2026-05-04", "--until", "2026-05-10", "--tz", "Asia/Shanghai",
                 "--source", source, "--scorer", "heuristic", "--lang", "en", "--out", str(work / "site"),
                 "--state", str(work / "state")])
    assert code == 0
    report = work / "site" / REPO / "reports" / "2026-05-04-to-2026-05-10" / "en" / "report.json"  # zh is home
    return json.loads(report.read_text("utf-8"))


def test_github_source_report_equals_jsonl_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "s3cret")
    offline = run_report(f"jsonl:{DATA}", tmp_path / "jsonl")

    with FakeGitHub.from_export(DATA, REPO, token="s3cret") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)  # the fake refuses any token but "s3cret"
        # Faults the planner (GraphQL) and the workers (diffs) must ride out (real sleeps here, so short ones).
        gh.inject("403-retry-after", path="/graphql", retry_after=1)
        gh.inject("secondary", path="/graphql", retry_after=1)
        gh.inject("timeout", path="/graphql")
        gh.inject("partial", path="/graphql")
        gh.inject("cut-connection", path="/graphql")
        gh.inject("exhausted", path="/graphql", reset_in=2)
        gh.inject("502", path=r"/pulls/\d+$", times=3)
        gh.inject("cut", path=r"/pulls/\d+$", times=2)
        gh.inject("429", path=r"/pulls/\d+$", times=2, retry_after=1)
        online = run_report("github", tmp_path / "github")
        assert sum(f.times for f in gh.faults) == 0, "every injected fault was served"
        assert gh.counts["graphql"] >= 1 and gh.counts["diff"] >= len(online["prs"]) // 2
        assert gh.counts["pull"] == gh.counts["files"] == gh.counts["reviews"] == 0, "no REST detail requests"
        # The dashboard's year (verl's 2025-05-12..2026-04-05, over the search cap) is listed by the report step.
        year = sum(1 for line in DATA.read_text("utf-8").splitlines()
                   if "2025-05-11T16:00:00Z" <= json.loads(line)["merged_at"] < "2026-04-05T16:00:00Z")
        assert year > 1000
        assert gh.counts["graphql"] <= 8 + 1 + -(-year // 100) + 3, \
            "listing pages only (the year's: one asks its size, then ≤ 1,000 per slice): the workers found the " \
            "planner's payloads"
        assert gh.counts["fault_401"] == 0

    def facts(report: dict[str, Any]) -> list[tuple]:
        return [(p["number"], p["changed_files"], p["additions"], p["deletions"], p["importance"], p["insight"],
                 p["key"], p["modules"], p["type"], p["risks"]) for p in report["prs"]]

    assert len(offline["prs"]) == 34
    assert facts(online) == facts(offline), {"unscored": online["unscored"], "github answers": dict(gh.counts)}
    # "New" is judged against what each source can see: the export from its first merge, GitHub from the start.
    assert (offline["stats"]["history_since"], online["stats"]["history_since"]) == ("2024-10-31", "")
    assert {**online["stats"], "history_since": ""} == {**offline["stats"], "history_since": ""}
    assert online["hot_files"] == offline["hot_files"]
    # Both runs recorded the same year of the repository for the dashboard: the same days, the same PRs.
    records = [json.loads((tmp_path / run / "site" / REPO / "reports" / "2026-05-04-to-2026-05-10" / "pulls.json")
                          .read_text("utf-8")) for run in ("jsonl", "github")]
    assert records[0]["covers"] == records[1]["covers"] == {"since": "2025-05-12", "until": "2026-05-10",
                                                            "tz": "Asia/Shanghai"}
    assert [e["number"] for e in records[0]["earlier"]] == [e["number"] for e in records[1]["earlier"]]
