"""`prhub run --source github` against the fake GitHub makes the same report as `--source jsonl:` (one verl week).

Faults are injected into the GitHub run; the report must still hold every PR once.
The AWS side is a moto server in its own process, holding the token in Secrets
Manager under the stack's secret name, as deployed; the moto state is reset
between the two runs so the second cannot reuse the first one's score cache.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from prhub.cli import main

from tests.fakes import FakeGitHub

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"
TOKEN_SECRET = "prhub/github-token"  # template.yaml's GitHubTokenSecretName default

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"real data not present at {DATA}")]


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                requests.get(f"{url}/moto-api/", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def fresh_aws(endpoint: str, token: str) -> None:
    requests.post(f"{endpoint}/moto-api/reset", timeout=10).raise_for_status()
    boto3.client("secretsmanager", endpoint_url=endpoint, region_name="us-east-1").create_secret(
        Name=TOKEN_SECRET, SecretString=token)


def run_report(endpoint: str, source: str, out: Path) -> dict[str, Any]:
    code = main(["run", "--repo", REPO, "--since", "2026-05-04", "--until", "2026-05-10", "--tz", "Asia/Shanghai",
                 "--source", source, "--scorer", "heuristic", "--lang", "en", "--endpoint-url", endpoint,
                 "--out", str(out)])
    assert code == 0
    return json.loads((out / REPO / "reports" / "2026-05-04-to-2026-05-10" / "report.json").read_text("utf-8"))


def test_github_source_report_equals_jsonl_report(moto_endpoint: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("GITHUB_TOKEN", "GITHUB_TOKEN_SECRET", "CACHE_TABLE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)

    fresh_aws(moto_endpoint, "not-needed")
    offline = run_report(moto_endpoint, f"jsonl:{DATA}", tmp_path / "jsonl")

    with FakeGitHub.from_export(DATA, REPO, token="s3cret") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        fresh_aws(moto_endpoint, "s3cret")  # the fake refuses any other token: this proves the secret was read
        # Faults the workers must ride out (real sleeps here, so short ones).
        gh.inject("403-retry-after", path="/search/", retry_after=1)
        gh.inject("502", path="/files", times=3)
        gh.inject("cut", path=r"/pulls/\d+$", times=2)
        gh.inject("cut-connection", path="/git/commits/")
        gh.inject("429", path="/reviews", times=2, retry_after=1)
        gh.inject("exhausted", path=r"/pulls/\d+$", reset_in=2)
        online = run_report(moto_endpoint, "github", tmp_path / "github")
        assert sum(f.times for f in gh.faults) == 0, "every injected fault was served"
        assert gh.counts["pull"] >= len(online["prs"]) and gh.counts["files"] >= len(online["prs"])
        assert gh.counts["fault_401"] == 0

    def facts(report: dict[str, Any]) -> list[tuple]:
        return [(p["number"], p["changed_files"], p["additions"], p["deletions"], p["importance"], p["insight"],
                 p["key"], p["modules"], p["type"], p["risks"]) for p in report["prs"]]

    assert len(offline["prs"]) == 34
    assert facts(online) == facts(offline), {"unscored": online["unscored"], "github answers": dict(gh.counts)}
    assert online["stats"] == offline["stats"]
    assert online["hot_files"] == offline["hot_files"]
