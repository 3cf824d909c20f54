"""A run stopped part-way, by its deadline or by SIGTERM, keeps its queued work and resumes (issue 24, item 2).

The reproduction of the issue on the fake GitHub: a REST rate limit whose reset outlasts the score workers'
invocation makes them hand their PRs back as delayed copies; the run's deadline (`--timeout` in `prhub run`, a few
seconds here) stops it with those copies still waiting. The next `prhub run` of the same range, GitHub healthy
again, must finish that run with every PR, not plan a second one beside an orphan that a later sweep publishes.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from prhub_local import runner
from prhub_local.state import CURRENT, generation
from tests.fakes import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"
WEEK = {"repo": REPO, "since": "2026-05-04", "until": "2026-05-10", "tz": "Asia/Shanghai", "source": "github",
        "scorer": "heuristic", "lang": "en"}
FUNCTION_SECONDS = 15  # each invocation's time: a rate-limit reset beyond it is handed back, not slept through

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"real data not present at {DATA}")]


def short_invocations(name: str, handler: Any, event: Any, context: Any) -> Any:
    return handler(event, runner.LambdaContext(name, timeout_ms=FUNCTION_SECONDS * 1000))


def saved_runs(state: Path) -> list[dict[str, Any]]:
    gen = generation(state)
    assert gen is not None, "the state was saved"
    lines = (gen / "tables" / "RunsTable.jsonl").read_text("utf-8").splitlines()
    return [item for item in map(json.loads, lines) if "period" in item]  # runs, not a folder's publication item


def saved_messages(state: Path, queue: str) -> list[dict[str, Any]]:
    path = generation(state) / "queues" / f"{queue}.messages.jsonl"  # type: ignore[operator]
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()] if path.exists() else []


@pytest.mark.parametrize("lost", [False, True], ids=["kept", "lost-by-an-older-save"])
def test_a_run_stopped_by_a_long_rate_limit_keeps_its_deferred_prs_and_the_next_run_resumes_it(
        lost: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lost`: the state was saved by a prhub that dropped delayed messages; the resumed run queues its PRs
    without a result again."""
    for name in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "s3cret")
    state, out = tmp_path / "state", tmp_path / "site"
    with FakeGitHub.from_export(DATA, REPO, token="s3cret") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        reset_in = FUNCTION_SECONDS + 20
        gh.exhaust(reset_in=reset_in)  # REST only: the plan lists through GraphQL, the workers fetch diffs by REST
        stopped_at = time.time()
        with pytest.raises(runner.PipelineError, match="did not finish within"):
            runner.run_pipeline(**WEEK, out=out, state=state, timeout=8, invoke=short_invocations)
        [first] = saved_runs(state)
        expected = int(first["expected"]["N"])
        waiting = [m for m in saved_messages(state, "ScoreQueue") if json.loads(m["body"])["run_id"] ==
                   first["run_id"]["S"]]
        assert expected == 34 and len(waiting) == expected, "every deferred PR is in the state"
        assert all(m["due"] > stopped_at + FUNCTION_SECONDS for m in waiting), "each still waits for the reset"
        if lost:
            (generation(state) / "queues" / "ScoreQueue.messages.jsonl").unlink()  # type: ignore[operator]

        said: list[str] = []
        done = runner.run_pipeline(**WEEK, out=out, state=state, timeout=120, invoke=short_invocations,
                                   progress=said.append)
        assert f"resuming run {done.run_id}, stopped part-way: 0 of its 34 PRs have a result" + (
            ", 34 queued again" if lost else "") in said
        assert done.run_id == first["run_id"]["S"], "the stopped run resumed: no second run of the range"
        assert time.time() >= stopped_at + reset_in - 1, "its PRs came back when GitHub's limit was reset"
        assert (len(done.report["prs"]), done.report["unscored"]) == (34, [])
        assert [r["run_id"]["S"] for r in saved_runs(state)] == [done.run_id]


def test_sigterm_saves_the_state_as_ctrl_c_does(tmp_path: Path) -> None:
    """`timeout` and a container stop send SIGTERM: the run stops as after Ctrl-C, its state saved (before, the
    process died at once: the journal only, no generation), its deferred PRs kept."""
    state = tmp_path / "state"
    with FakeGitHub.from_export(DATA, REPO, token="s3cret") as gh:
        gh.exhaust(reset_in=3600)  # the workers defer every PR: the run waits until stopped
        env = {**os.environ, "GITHUB_TOKEN": "s3cret", "GITHUB_API_URL": gh.url,
               "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "prhub"), str(ROOT)])}
        for name in ("GITHUB_TOKEN_SECRET", "CACHE_TABLE", "OPENAI_API_KEY"):
            env.pop(name, None)
        # --timeout: should the signal never come, the run ends on its own and the assertions say why
        args = ["run", *(f"--{k}={v}" for k, v in WEEK.items()), f"--out={tmp_path / 'site'}", f"--state={state}",
                "--timeout=180"]
        proc = subprocess.Popen([sys.executable, "-m", "prhub_local.cli", *args], cwd=ROOT, env=env,
                                stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("scoring") and "/34 PRs" in line:  # the progress line: the week is listed
                break
        time.sleep(3)  # the workers meet the limit and hand their PRs back
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 128 + signal.SIGTERM, "".join(seen) + rest
    assert (state / CURRENT).exists(), "a generation was saved"
    # and it says so, and what the next run does (issue 46, item 12: before, exit 143 and no word)
    assert rest.splitlines()[-1] == f"prhub: stopped by SIGTERM; the state is saved in {state}: the same " \
        "`prhub run` resumes the run", rest
    [run] = saved_runs(state)
    assert len(saved_messages(state, "ScoreQueue")) == int(run["expected"]["N"]) == 34
