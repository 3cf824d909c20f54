"""What `prhub run` says and exits with when the world, not the input, is wrong (issue 46, item 12)."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest
from prhub.sources.http import GitHubClient

from prhub_local import cli

pytestmark = pytest.mark.slow


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_github_exits_1_with_one_readable_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a GitHub nobody answers at (its retries' waits shortened: the test is about the answer, not the wait)
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setattr(GitHubClient, "backoff", lambda self, attempt: 0.01)
    # WHEN a week is reported from it
    code = cli.main(["run", "--repo", "acme/rocket", "--source", "github", "--since", "2026-06-01",
                     "--until", "2026-06-07", "--state", str(tmp_path / "state"), "--out", str(tmp_path / "site"),
                     "--quiet"])
    # THEN it is no bad input (2) but a failure to try again (1), said in one line without a nested repr
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("prhub:")]
    assert code == 1
    assert len(said) == 1 and said[0].startswith("prhub: GitHub cannot answer now: connection refused (5 tries of ")
    assert said[0].endswith("; try again when it answers") and "HTTPConnectionPool" not in said[0]
