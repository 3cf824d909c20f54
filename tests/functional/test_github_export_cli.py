"""`prhub export` against the fake GitHub: the export format on stdout, exit 2 with a clear message on errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prhub.core.period import Period
from prhub.sources.source import JsonlSource

from prhub_local.cli import main
from tests.fakes import FakeGitHub
from tests.functional.test_github_source import REPO, WEEK, expected, week_pulls

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"


@pytest.fixture
def github_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    for name in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE"):
        monkeypatch.delenv(name, raising=False)


def test_export_writes_the_range_in_merge_order(github_env: None, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pulls = week_pulls()
    with FakeGitHub(pulls, REPO) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        code = main(["export", "--repo", REPO, "--since", "2026-03-02", "--until", "2026-03-08",
                     "--tz", "Asia/Shanghai"])
    out, err = capsys.readouterr()
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["number"] for r in rows] == [p.number for p in expected(pulls)]
    assert f"exported {len(rows)} PRs" in err
    reread = JsonlSource(out.splitlines())
    assert [reread.get(REPO, r) for r in reread.list_merged(REPO, WEEK)] == expected(pulls)


@pytest.mark.parametrize(("args", "message"), [
    (["--repo", "acme/missing", "--since", "2026-03-02", "--until", "2026-03-08"], "repository acme/missing not found"),
    (["--repo", "not a repo", "--since", "2026-03-02", "--until", "2026-03-08"], "repo must look like owner/name"),
    (["--repo", REPO, "--since", "2026-03-09", "--until", "2026-03-08"], "is after until"),
    (["--repo", REPO, "--since", "2026-03-02", "--until", "2026-03-08", "--tz", "Mars/Base"], "unknown time zone"),
])
def test_errors_exit_2_with_a_clear_message_and_write_nothing(
        github_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        args: list[str], message: str) -> None:
    with FakeGitHub(week_pulls(2), REPO) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        code = main(["export", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and message in err


def test_bad_token_exits_2(github_env: None, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    with FakeGitHub(week_pulls(2), REPO, token="other") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        code = main(["export", "--repo", REPO, "--since", "2026-03-02", "--until", "2026-03-08"])
    assert code == 2 and "rejected the token" in capsys.readouterr().err


@pytest.mark.skipif(not DATA.exists(), reason=f"real data not present at {DATA}")
def test_console_script_exports_a_verl_week_as_the_original_rows(tmp_path: Path) -> None:
    jsonl = JsonlSource.from_path(str(DATA))
    period = Period.parse("2026-08-10", "2026-08-16", "Asia/Shanghai")
    refs = jsonl.list_merged("verl-project/verl", period)
    with FakeGitHub([jsonl.get("verl-project/verl", r) for r in refs], "verl-project/verl") as gh:
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE")}
        env.update(GITHUB_API_URL=gh.url, GITHUB_TOKEN="t")
        done = subprocess.run(
            [sys.executable, "-m", "prhub_local.cli", "export", "--repo", "verl-project/verl", "--since", "2026-08-10",
             "--until", "2026-08-16", "--tz", "Asia/Shanghai"],
            capture_output=True, text=True, encoding="utf-8", env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    originals = [jsonl.get("verl-project/verl", r).to_export() for r in refs]
    for row in rows:
        for known in ("commits", "created_at"):  # the API knows the commit count and when it was opened
            row.pop(known)
    assert rows == originals
