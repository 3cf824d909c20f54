"""`prhub run --scorer llm` end to end against the fake OpenAI server: the real flow on embedded AWS,
the model reached through OPENAI_BASE_URL / OPENAI_API_KEY, tokens in report.json, and the cache."""
from __future__ import annotations

import base64
import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud.dynamo import unpack
from prhub.model import answers

from prhub_local import cli
from prhub_local.state import JOURNAL, generation
from tests.fakes.openai_server import FakeOpenAI, Fault, data_block, estimate_tokens, message_text, rule_based

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
# 12 PRs: room for what the model's run, the budget, a killed run and a busy state show, without a week's PR pages
# to render each time
DAY = ["--repo", "verl-project/verl", "--since", "2026-05-06", "--until", "2026-05-06", "--tz", "Asia/Shanghai"]
DAY_PRS = 12

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is absent")]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-tests")
        monkeypatch.setenv("PRHUB_LLM_MODEL", "fake-model")
        yield server


def run(tmp_path: Path, *extra: str, period: list[str] = DAY) -> dict:
    out = tmp_path / "site"
    code = cli.main(["run", *period, "--source", f"jsonl:{DATA}", "--scorer", "llm", "--out", str(out),
                     "--state", str(tmp_path / "state"), "--workers", "4", *extra])
    assert code == 0
    # the repository's language at the folder's root, another (--lang) in its own subfolder
    reports = out / "verl-project" / "verl" / "reports"
    [path] = [*reports.glob("*/report.json"), *reports.glob("*/en/report.json")]
    return json.loads(path.read_text(encoding="utf-8"))


def test_run_with_the_model_then_rerun_from_the_cache(fake: FakeOpenAI, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a verl day of DAY_PRS PRs and a model endpoint (a whole week's 34 through the model:
    # test_llm_guard_run)
    report = run(tmp_path)
    prompts = {(data_block(c, "engine_features") or {"number": "narrative"})["number"]: message_text(c)
               for c in fake.calls}
    # THEN every PR was judged by the model, and the narrative written by it (moto's SQS may hand a message to
    # two workers at once, so a PR can be asked twice; the stored result is one of them)
    assert report["stats"]["pr_count"] == DAY_PRS
    assert set(prompts) == {p["number"] for p in report["prs"]} | {"narrative"}
    scorer = report["scorer"]
    assert scorer["kind"] == "llm" and scorer["model"] == "fake-model"
    assert all(p["scored_by"] == "llm" for p in report["prs"]) and scorer["heuristic_prs"] == 0
    assert scorer["narrative_by"] == dict.fromkeys(answers.SECTIONS, "llm")
    # AND report.json counts exactly the prompt tokens the endpoint charged for the stored results
    assert scorer["tokens_in"] == sum(estimate_tokens(text) for text in prompts.values())
    assert 0 < scorer["tokens_out"] <= fake.tokens_out
    assert scorer["narrative_tokens_in"] > 0 and scorer["tokens_in"] > scorer["narrative_tokens_in"]
    assert re.match(rf"\S+合并 {DAY_PRS} 个 PR，", report["summary"]), report["summary"]  # the engine's facts lead
    printed = capsys.readouterr().out
    assert "sk-fake-for-tests" not in printed + json.dumps(report)
    # AND stdout holds the four report paths only: no metric JSON (EMF) from the functions
    [week] = [p.parent for p in (tmp_path / "site").glob("verl-project/verl/reports/*/report.json")]
    assert printed.splitlines() == [str(week / n) for n in ("report.md", "report.pdf", "report.json", "index.html")]

    # WHEN the same range is run again on the same state
    calls = len(fake.calls)
    again = run(tmp_path)
    # THEN no model call is made, and the report shows what it cost, cached or not
    assert len(fake.calls) == calls
    assert (again["scorer"]["tokens_in"], again["scorer"]["tokens_out"]) == (scorer["tokens_in"],
                                                                             scorer["tokens_out"]) != (0, 0)
    assert again["scorer"].get("cost") == scorer.get("cost")
    assert [p.get("tokens_in") for p in again["prs"]] == [p.get("tokens_in") for p in report["prs"]]
    assert [p["importance"] for p in again["prs"]] == [p["importance"] for p in report["prs"]]
    assert again["highlights"] == report["highlights"]


def test_run_budget_caps_the_model(fake: FakeOpenAI, tmp_path: Path) -> None:
    config = tmp_path / "watch.json"
    # Room for a handful of PRs: the engine scores the rest and the report counts them.
    config.write_text(json.dumps({"repos": [{"repo": "verl-project/verl", "tz": "Asia/Shanghai",
                                             "llm": {"max_tokens_per_run": 6000}}]}))
    report = run(tmp_path, "--config", str(config), "--lang", "en")
    by = [p["scored_by"] for p in report["prs"]]
    assert len(by) == DAY_PRS and 0 < by.count("llm") < DAY_PRS
    assert report["scorer"]["heuristic_prs"] == by.count("heuristic")
    # The narrative is one call, asked when what the PRs left of the budget holds its prompt and longest answer
    # (their reservations are settled at what they cost): written by one scorer or the other as a whole, inside the
    # budget below.
    [narrator] = set(report["scorer"]["narrative_by"].values())
    assert set(report["scorer"]["narrative_by"]) == set(answers.SECTIONS) and narrator in ("llm", "heuristic")
    assert (report["scorer"]["narrative_tokens_in"] > 0) == (narrator == "llm")
    [note] = [n for n in report["notes"] if "scored by the engine instead of the model: budget exhausted" in n]
    # counted and named
    n = by.count("heuristic")
    assert note.startswith(f"{n} PR{'' if n == 1 else 's'} scored by the engine")
    assert sorted(int(n) for n in re.findall(r"#(\d+)", note)) == sorted(
        p["number"] for p in report["prs"] if p["scored_by"] == "heuristic")
    # Each call reserves its prompt and longest answer on the run item before it is sent: the 4 workers together
    # never pass the budget.
    assert report["scorer"]["tokens_in"] + report["scorer"]["tokens_out"] <= 6000

    # WHEN the budget is raised and the range run again on the same state (issue 46, item 10)
    config.write_text(json.dumps({"repos": [{"repo": "verl-project/verl", "tz": "Asia/Shanghai",
                                             "llm": {"max_tokens_per_run": 600000}}]}))
    again = run(tmp_path, "--config", str(config), "--lang", "en")
    # THEN the engine's stand-ins the cache kept are said to be an earlier run's, with the flag that asks again;
    # nothing says this run's budget ran out
    standins = sorted(p["number"] for p in again["prs"] if p["scored_by"] == "heuristic")
    assert standins == sorted(p["number"] for p in report["prs"] if p["scored_by"] == "heuristic")
    assert not [n for n in again["notes"] if "scored by the engine instead of the model" in n]
    [kept] = [n for n in again["notes"] if "from an earlier run" in n]
    n = len(standins)
    assert kept.startswith(f"{n} PR{'' if n == 1 else 's'} with the engine's score kept") and "budget exhausted" in kept
    assert "--retry-model" in kept
    assert sorted(int(n) for n in re.findall(r"#(\d+)", kept)) == standins


def test_a_killed_llm_run_keeps_the_scores_it_paid_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    answered = itertools.count()

    def gated(request: dict) -> Any:  # ten answers, then none within the run's life: it cannot finish first
        return rule_based(request) if next(answered) < 10 else Fault.timeout(300)

    with FakeOpenAI(gated) as slow:
        env = {**os.environ, "OPENAI_BASE_URL": slow.base_url, "OPENAI_API_KEY": "sk-fake-for-tests",
               "PRHUB_LLM_MODEL": "fake-model"}
        # GIVEN an LLM run in its own process, one worker, a model that answers ten PRs and then hangs
        proc = subprocess.Popen([sys.executable, "-m", "prhub_local.cli", "run", *DAY, "--source", f"jsonl:{DATA}",
                                 "--scorer", "llm", "--out", str(tmp_path / "site"), "--state", str(state),
                                 "--workers", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while len(journaled(state)) < 5:  # its journal holds some paid scores
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
            # WHEN it is killed mid-way (SIGKILL: no handler runs, no final save)
            proc.kill()
        finally:
            proc.wait()
        kept = journaled(state)
        paid = {(data_block(c, "engine_features") or {}).get("number") for c in slow.calls} - {None}
    assert 5 <= len(kept) <= 10 and kept <= paid
    # WHEN the same week is run again on that state
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-tests")
        monkeypatch.setenv("PRHUB_LLM_MODEL", "fake-model")
        report = run(tmp_path)
        asked = {(data_block(c, "engine_features") or {}).get("number") for c in fake.calls} - {None}
    # THEN the scores the killed run journaled are not paid for again, and the report has all the day's PRs
    numbers = {p["number"] for p in report["prs"]}
    assert len(numbers) == DAY_PRS and asked == numbers - kept
    assert all(p["scored_by"] == "llm" for p in report["prs"])


def journaled(state: Path) -> set[int]:
    """PR numbers of the score-cache entries in the state's journal."""
    path = state / JOURNAL
    lines = path.read_text(encoding="utf-8").splitlines()[1:] if path.exists() else []
    numbers = set()
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line being appended
        numbers.add(int(unpack(base64.b64decode(entry["item"]["data"]["B"]["__b64__"]))["number"]))
    return numbers


def test_two_runs_on_one_state_one_runs_and_the_other_exits_3_naming_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with FakeOpenAI(latency=0.3) as slow:
        env = {**os.environ, "OPENAI_BASE_URL": slow.base_url, "OPENAI_API_KEY": "sk-fake-for-tests",
               "PRHUB_LLM_MODEL": "fake-model"}

        def prhub_run(out: str) -> subprocess.Popen[str]:
            return subprocess.Popen([sys.executable, "-m", "prhub_local.cli", "run", *DAY, "--source",
                                     f"jsonl:{DATA}", "--scorer", "llm", "--out", str(tmp_path / out),
                                     "--state", str(state), "--workers", "1"], env=env, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        # GIVEN a run working on the state (its lock names it)
        first = prhub_run("site-1")
        deadline = time.monotonic() + 60
        while f'"pid": {first.pid},' not in ((state / "lock").read_text() if (state / "lock").exists() else ""):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # WHEN a second run is started on the same state
        second = prhub_run("site-2")
        out2, err2 = second.communicate(timeout=120)
        out1, err1 = first.communicate(timeout=300)
    # THEN the second exits 3 at once with one line naming the first, and writes nothing
    assert second.returncode == 3 and out2 == ""
    assert err2.strip().splitlines()[-1].startswith(f"prhub: the state {state} is in use by pid {first.pid} on ")
    assert "Traceback" not in err2 and not (tmp_path / "site-2").exists()
    # AND the first finishes, its saved state whole: one run, every PR scored once into the cache
    assert first.returncode == 0, err1
    assert out1.splitlines()[0].endswith("report.md") and len(out1.splitlines()) == 4
    gen = generation(state)
    assert len((gen / "tables" / "RunsTable.jsonl").read_text().splitlines()) == 1
    assert len((gen / "tables" / "CacheTable.jsonl").read_text().splitlines()) >= DAY_PRS
