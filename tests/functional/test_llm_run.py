"""`prhub run --scorer llm` end to end against the fake OpenAI server: the real flow on embedded AWS,
the model reached through OPENAI_BASE_URL / OPENAI_API_KEY, tokens in report.json, and the cache."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prhub import llm

from prhub_local import cli
from tests.fakes.openai_server import FakeOpenAI, data_block, estimate_tokens, message_text

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
WEEK = ["--repo", "verl-project/verl", "--since", "2026-05-04", "--until", "2026-05-10", "--tz", "Asia/Shanghai"]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is absent")]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-tests")
        monkeypatch.setenv("PRHUB_LLM_MODEL", "fake-model")
        yield server


def run(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "site"
    code = cli.main(["run", *WEEK, "--source", f"jsonl:{DATA}", "--scorer", "llm", "--out", str(out),
                     "--state", str(tmp_path / "state"), "--workers", "4", *extra])
    assert code == 0
    [path] = out.glob("verl-project/verl/reports/*/report.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_run_with_the_model_then_rerun_from_the_cache(fake: FakeOpenAI, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a 34-PR verl week and a model endpoint
    report = run(tmp_path)
    prompts = {(data_block(c, "engine_features") or {"number": "narrative"})["number"]: message_text(c)
               for c in fake.calls}
    # THEN every PR was judged by the model, and the narrative written by it (moto's SQS may hand a message to
    # two workers at once, so a PR can be asked twice; the stored result is one of them)
    assert report["stats"]["pr_count"] == 34 and set(prompts) == {p["number"] for p in report["prs"]} | {"narrative"}
    scorer = report["scorer"]
    assert scorer["kind"] == "llm" and scorer["model"] == "fake-model"
    assert all(p["scored_by"] == "llm" for p in report["prs"]) and scorer["heuristic_prs"] == 0
    assert scorer["narrative_by"] == dict.fromkeys(llm.SECTIONS, "llm")
    # AND report.json counts exactly the prompt tokens the endpoint charged for the stored results
    assert scorer["tokens_in"] == sum(estimate_tokens(text) for text in prompts.values())
    assert 0 < scorer["tokens_out"] <= fake.tokens_out
    assert scorer["narrative_tokens_in"] > 0 and scorer["tokens_in"] > scorer["narrative_tokens_in"]
    assert report["summary"].startswith("本周合并 34 个 PR")
    assert "sk-fake-for-tests" not in capsys.readouterr().out + json.dumps(report)

    # WHEN the same range is run again on the same state
    calls = len(fake.calls)
    again = run(tmp_path)
    # THEN no model call is made and the run spends no tokens
    assert len(fake.calls) == calls
    assert (again["scorer"]["tokens_in"], again["scorer"]["tokens_out"]) == (0, 0)
    assert [p["importance"] for p in again["prs"]] == [p["importance"] for p in report["prs"]]
    assert again["highlights"] == report["highlights"]


def test_run_budget_caps_the_model(fake: FakeOpenAI, tmp_path: Path) -> None:
    config = tmp_path / "watch.json"
    # Room for a handful of PRs: the engine scores the rest and the report counts them.
    config.write_text(json.dumps({"repos": [{"repo": "verl-project/verl", "tz": "Asia/Shanghai",
                                             "llm": {"max_tokens_per_run": 6000}}]}))
    report = run(tmp_path, "--config", str(config), "--lang", "en")
    by = [p["scored_by"] for p in report["prs"]]
    assert 0 < by.count("llm") < 34 and report["scorer"]["heuristic_prs"] == by.count("heuristic")
    assert report["scorer"]["narrative_by"] == dict.fromkeys(llm.SECTIONS, "heuristic")
    assert f"{by.count('heuristic')} PR(s) scored by the engine instead of the model: budget exhausted" in \
        report["notes"]
    # Workers check the shared budget before calling, so at most one call per worker (4) runs past it.
    assert report["scorer"]["tokens_in"] + report["scorer"]["tokens_out"] <= 6000 + 4 * 1500
