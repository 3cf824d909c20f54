"""The GitHub Action end to end: action.yml's steps, as the documented workflow calls it, against the fake GitHub.

GitHub's runner is not here, so the test plays it: it reads action.yml and the workflow in docs/workflows/prhub.yml,
gives the action the workflow's `with:` (a workflow_dispatch with a date range), evaluates the `${{ }}` expressions
the two files use (an expression it does not know fails the test), skips the `uses:` steps (setup-python, the cache,
the Pages upload: GitHub's own actions) but reads where they point, and runs each `run:` step with bash in order,
in a temp workspace, with the environment the runner gives. `python -m pip install` is answered by a stand-in (the
package is installed here already); everything else is the real thing: the preflight, `prhub run --source github`
against the fake GitHub on 127.0.0.1, the post. THEN the site and the state are where the Pages upload and the
cache save take them from, and the issue is posted.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from prhub.core.period import Period, parse_timestamp

from prhub_local.sample import sample_settings
from tests.fakes.github_server import FakeGitHub, load_export

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghs_actiontoken"
PAGES = "https://acme.github.io/rocket"
DISPATCH = {"since": "2026-06-01", "until": "2026-06-07"}


def workflow() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docs" / "workflows" / "prhub.yml").read_text(encoding="utf-8"))


def action() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text: Any, context: Mapping[str, Mapping[str, Any]]) -> str:
    """`${{ a.b.c }}` expressions of `text`, from `context` (secrets and vars: "" when not set, as on GitHub)."""
    def one(match: re.Match[str]) -> str:
        head, *rest = match.group(1).split(".")
        if not re.fullmatch(r"[A-Za-z_][\w.-]*", match.group(1)):
            raise AssertionError(f"the test's runner does not evaluate {match.group(0)!r}")
        value: Any = context[head]
        for part in rest:
            if head in ("secrets", "vars") and part not in value:
                return ""
            value = value[part]
        return str(value)

    return _EXPR.sub(one, str(text)) if text is not None else ""


@dataclass
class Runner:
    """Plays GitHub's runner for one job step that uses the action."""

    workspace: Path
    env: dict[str, str]
    inputs: dict[str, str]
    ran: list[str] = field(default_factory=list)
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)  # uses: steps, by name: their evaluated `with`

    def context(self) -> dict[str, Any]:
        github = {"repository": self.env["GITHUB_REPOSITORY"], "token": self.env["PRHUB_TEST_TOKEN"],
                  "run_id": self.env["GITHUB_RUN_ID"], "run_attempt": self.env["GITHUB_RUN_ATTEMPT"],
                  "action_path": self.env["GITHUB_ACTION_PATH"], "workspace": str(self.workspace)}
        return {"github": github, "inputs": self.inputs, "runner": {"temp": self.env["RUNNER_TEMP"]}}

    def run(self, steps: list[dict[str, Any]]) -> int:
        """The steps in order; after a failure only `if: always()` steps run. The job's exit code."""
        failed = 0
        for step in steps:
            condition = step.get("if")
            assert condition in (None, "always()"), f"the test's runner does not evaluate if: {condition}"
            if failed and condition != "always()":
                continue
            name = step["name"]
            if "uses" in step:
                self.skipped[name] = {k: evaluate(v, self.context()) for k, v in (step.get("with") or {}).items()}
                continue
            assert step.get("shell") == "bash"
            env = {**self.env, **{k: evaluate(v, self.context()) for k, v in (step.get("env") or {}).items()}}
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=self.workspace, env=env, capture_output=True, text=True, timeout=900)
            self.ran.append(f"{name}: {done.returncode}\n{done.stdout}{done.stderr}")
            failed = failed or done.returncode
        return failed


def step_of_workflow() -> dict[str, Any]:
    """The workflow's step that uses the action."""
    [step] = [s for s in workflow()["jobs"]["report"]["steps"] if "prhub@" in str(s.get("uses", ""))]
    return step


def runner_for(tmp_path: Path, gh: FakeGitHub, repository: str = "acme/rocket", **overrides: str) -> Runner:
    workspace, temp, bin_dir = tmp_path / "workspace", tmp_path / "runner-temp", tmp_path / "bin"
    for folder in (workspace, temp, bin_dir):
        folder.mkdir()
    # `python -m pip install` stands in for itself (the package is installed here); any other `python` is the real one.
    (bin_dir / "python").write_text(f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$*" >> '
                                    f'"{tmp_path}/pip.log"; exit 0; fi\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "OPENAI_", "PRHUB_", "SITE_URL"))}
    env |= {"PATH": f"{bin_dir}:{Path(sys.executable).parent}:{env.get('PATH', '')}",
            "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_REPOSITORY": repository, "GITHUB_API_URL": gh.url,
            "GITHUB_WORKSPACE": str(workspace), "RUNNER_TEMP": str(temp), "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1", "GITHUB_ACTIONS": "true", "CI": "true", "PRHUB_TEST_TOKEN": TOKEN,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "prhub"), str(ROOT), env.get("PYTHONPATH", "")])}
    workflow_context = {"inputs": DISPATCH, "steps": {"pages": {"outputs": {"base_url": PAGES}}}, "secrets": {},
                        "vars": {}}
    given = {k: evaluate(v, workflow_context) for k, v in (step_of_workflow().get("with") or {}).items()}
    declared = action()["inputs"]
    unknown = set(given) - set(declared)
    assert not unknown, f"the workflow gives inputs the action does not declare: {unknown}"
    runner = Runner(workspace, env, {})
    defaults = {k: evaluate(v.get("default", ""), runner.context()) for k, v in declared.items()}
    runner.inputs = {**defaults, **given, **overrides}
    return runner


def thinned_export() -> list[Any]:
    """The sample's PRs, every fourth of its week (and those before it): the run costs a quarter."""
    sample = sample_settings()
    pulls = load_export(sample["config"]["source"].removeprefix("jsonl:"))
    period = Period.parse(DISPATCH["since"], DISPATCH["until"], "Asia/Shanghai")
    week = [p for p in pulls if period.contains(p.merged_at)]
    return [p for p in pulls if p not in week] + week[::4]


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(thinned_export(), repo="acme/rocket", token=TOKEN,
                    repo_labels=("weekly-report",)) as fake:
        yield fake


def test_the_action_reports_the_week_posts_it_and_leaves_site_and_state_for_pages_and_the_cache(
        tmp_path: Path, gh: FakeGitHub) -> None:
    runner = runner_for(tmp_path, gh)
    assert runner.inputs["since"] == "2026-06-01" and runner.inputs["post"] == "issue"
    code = runner.run(action()["runs"]["steps"])
    assert code == 0, "\n".join(runner.ran)
    # pip was asked to install this repository (the ref the workflow pins)
    assert str(ROOT) in (tmp_path / "pip.log").read_text()
    # the site where the Pages upload takes it from: the week's report, linked from the index
    site = runner.workspace / runner.skipped["Upload the site for GitHub Pages"]["path"]
    report_dir = site / "acme" / "rocket" / "reports" / "2026-06-01-to-2026-06-07"
    assert {"index.html", "report.md", "report.pdf", "report.json"} <= {p.name for p in report_dir.iterdir()}
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["language"] == "zh" and report["period"]["tz"] == "Asia/Shanghai"
    period = Period.parse(DISPATCH["since"], DISPATCH["until"], "Asia/Shanghai")
    assert report["stats"]["pr_count"] == len([p for p in gh.pulls.values() if period.contains(p.merged_at)]) > 0
    # the state where the cache saves it from (restored from the same path, under one key per run)
    restore, save = runner.skipped["Restore the state"], runner.skipped["Save the state"]
    assert restore["path"] == save["path"] and save["key"] == "prhub-state-acme/rocket-4242-1"
    assert restore["restore-keys"] == "prhub-state-acme/rocket-" and save["key"].startswith(restore["restore-keys"])
    state = runner.workspace / save["path"]
    assert (state / "CURRENT").is_file() and any(state.iterdir())
    # the post: one issue with the report's title, its label, linking the report on Pages
    [issue] = gh.issues.values()
    assert issue["title"] == report["title"] and [x["name"] for x in issue["labels"]] == ["weekly-report"]
    assert f"]({PAGES}/acme/rocket/reports/2026-06-01-to-2026-06-07/)" in issue["body"]
    assert parse_timestamp(report["generated_at"])  # a real run

    # WHEN the next run restores that state and runs the same week: the same issue, nothing posted again
    again = Runner(runner.workspace, {**runner.env, "GITHUB_RUN_ID": "4243"}, runner.inputs)
    assert again.run(action()["runs"]["steps"]) == 0, "\n".join(again.ran)
    assert len(gh.issues) == 1 and gh.counts["issue_create"] == 1 and gh.counts["issue_edit"] == 0


def errors(runner: Runner) -> list[str]:
    return [line for out in runner.ran for line in out.splitlines() if line.startswith("::error")]


def test_a_token_that_cannot_read_the_repository_fails_at_once_in_one_line(tmp_path: Path, gh: FakeGitHub) -> None:
    runner = runner_for(tmp_path, gh, repository="acme/elsewhere")
    assert runner.run(action()["runs"]["steps"]) == 1
    assert errors(runner) == ["::error title=Prhub::the token cannot read acme/elsewhere (HTTP 404): give the "
                              "workflow `permissions: contents: read`"]
    assert not (tmp_path / "pip.log").exists()  # nothing installed, nothing run


def test_a_token_that_may_not_write_issues_fails_the_step_naming_the_permission(tmp_path: Path,
                                                                                gh: FakeGitHub) -> None:
    gh.can_write.discard("issues")
    runner = runner_for(tmp_path, gh)
    assert runner.run(action()["runs"]["steps"]) == 1
    [line] = errors(runner)
    assert line.startswith("::error title=Prhub::the report was not posted on GitHub: github:issue: the token may "
                           "not write issues in acme/rocket") and "`issues: write`" in line, line
    assert TOKEN not in "\n".join(runner.ran)
    # the state is saved all the same (if: always()), the site is not uploaded
    assert "Save the state" in runner.skipped and "Upload the site for GitHub Pages" not in runner.skipped


def test_the_documented_workflow_is_the_file_actionlint_checks() -> None:
    doc = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# Copy to \.github/workflows/prhub\.yml.*?)```", doc, re.S)
    assert block is not None and block.group(1) == (ROOT / "docs" / "workflows" / "prhub.yml").read_text()
    permissions = workflow()["jobs"]["report"]["permissions"]
    assert permissions == {"contents": "read", "pages": "read", "issues": "write"}
    assert workflow()["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    on = workflow().get("on") or workflow()[True]  # YAML 1.1 reads a bare `on` as true
    assert set(on) == {"schedule", "workflow_dispatch"} and set(on["workflow_dispatch"]["inputs"]) == {"since", "until"}
