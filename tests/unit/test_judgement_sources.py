"""Judgements as input (issue 27): each source's reader, the precedence between them, and bad input refused."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.core.judgements import judgement, resolve
from prhub.core.models import PullRequest
from prhub.flow.judgements import from_labels, gather
from prhub.sources.github import GitHubSource
from prhub.sources.judgements import read_lines
from prhub.sources.source import JsonlSource

from prhub_local.cli import main
from tests.fakes.github_server import FakeGitHub
from tests.fakes.memory import SETTINGS, MemoryJudgements

SAMPLE = Path(__file__).resolve().parents[2] / "prhub_local" / "sample" / "acme-rocket.jsonl"
CHANGELOG = "## 1.4\n### Added\n- 🎉 a thing [#1210](https://github.com/acme/rocket/pull/1210)\n"


def repo_config(**settings: Any) -> Any:
    return WatchList.parse(json.dumps({"repos": [{"repo": "o/r", **settings}]})).get("o/r")


# -- the readers ----------------------------------------------------------------------------------------------

def test_a_judgements_file_is_read_line_by_line() -> None:
    text = '\ufeff{"pr": 3, "verdict": "key"}\n\n{"pr": 4, "verdict": "minor", "repo": "O/R"}\n'
    assert read_lines(text.splitlines(), "o/r", "file", "j.jsonl") == [
        judgement("o/r", 3, "key", "file"), judgement("o/r", 4, "minor", "file")]


@pytest.mark.parametrize(("line", "says"), [
    ("not json", "j.jsonl:2: not a judgement"),
    ("[1, 2]", "j.jsonl:2: not a judgement"),
    ('{"pr": 4, "verdict": "important"}', "j.jsonl:2: .*'verdict' must be key or minor"),
    ('{"pr": "4", "verdict": "key"}', "j.jsonl:2: .*'pr' must be a PR number"),
    ('{"pr": 4, "verdit": "key"}', "did you mean 'verdict'"),
    ('{"pr": 4, "verdict": "key", "repo": "x/y"}', "a judgement of 'x/y', not of o/r"),
    ('{"pr": 4, "verdict": "key", "note": "' + "x" * 20_000 + '"}', "j.jsonl:2: not a judgement"),
])
def test_a_malformed_judgements_line_is_refused_naming_its_line(line: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        read_lines(['{"pr": 3, "verdict": "key"}', line], "o/r", "file", "j.jsonl")


def test_labels_make_a_verdict_key_first() -> None:
    config = repo_config(key_labels=["Highlight"], minor_labels=["internal"])
    assert from_labels(config, 7, ["highlight"]) == judgement("o/r", 7, "key", "label")
    assert from_labels(config, 7, ["internal"]) == judgement("o/r", 7, "minor", "label")
    assert from_labels(config, 7, ["internal", "highlight"]) == judgement("o/r", 7, "key", "label")
    assert from_labels(config, 7, ["bug"]) is None


def test_a_later_source_wins_and_the_latest_correction_of_all() -> None:
    said = [judgement("o/r", 1, "key", "correction", "2026-05-02T00:00:00Z"),
            judgement("o/r", 1, "minor", "correction", "2026-05-01T00:00:00Z"),
            judgement("o/r", 1, "minor", "file"), judgement("o/r", 2, "key", "label"),
            judgement("o/r", 2, "minor", "changelog"), judgement("o/r", 3, "minor", "watchlist"),
            judgement("o/r", 3, "key", "changelog")]
    assert [(j.pr, j.verdict, j.source) for j in resolve(said)] == [
        (1, "key", "correction"), (2, "minor", "changelog"), (3, "minor", "watchlist")]


# -- the CHANGELOG through each source ------------------------------------------------------------------------

def test_the_changelog_is_read_from_github_s_default_branch_as_raw_text() -> None:
    pulls = [PullRequest.from_export(json.loads(line)) for line in SAMPLE.read_text().splitlines() if line.strip()]
    with FakeGitHub(pulls, repo="acme/rocket", files={"docs/CHANGELOG.md": CHANGELOG}) as gh:
        source = GitHubSource(api_url=gh.url, max_tries=1)
        assert source.read_file("acme/rocket", "docs/CHANGELOG.md") == CHANGELOG
        assert source.read_file("acme/rocket", "NOPE.md") is None
        # read again, it costs a 304 (the ETag is kept per media type)
        assert source.read_file("acme/rocket", "docs/CHANGELOG.md") == CHANGELOG
        assert gh.counts["not_modified"] == 1


def test_an_export_s_changelog_is_the_file_beside_it(tmp_path: Path) -> None:
    export = tmp_path / "pulls.jsonl"
    export.write_text(SAMPLE.read_text())
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG)
    source = JsonlSource.from_path(str(export))
    assert source.read_file("acme/rocket", "CHANGELOG.md") == CHANGELOG
    assert source.read_file("acme/rocket", "OTHER.md") is None


# -- a run's judgements gathered ----------------------------------------------------------------------------

class Changelog:
    """A source that holds one file, the CHANGELOG, and counts how often it is opened."""

    def __init__(self) -> None:
        self.opened = 0

    def __call__(self) -> Changelog:
        self.opened += 1
        return self

    def read_file(self, repo: str, path: str) -> str | None:
        return CHANGELOG.replace("acme/rocket", repo) if path == "CHANGELOG.md" else None


def test_a_run_planned_before_the_plan_kept_its_judgements_reads_them_now(tmp_path: Path) -> None:
    # GIVEN a kept label and file judgement, a CHANGELOG making #1210 key, and the watch list's jsonl: file
    watched = tmp_path / "watched.jsonl"
    watched.write_text('{"pr": 7, "verdict": "minor"}\n')
    config = repo_config(changelog={"path": "CHANGELOG.md", "sections": {"Added": "key"}},
                         judgements=f"jsonl:{watched}")
    kept = MemoryJudgements()
    kept.put_judgements([judgement("o/r", 1210, "minor", "label"), judgement("o/r", 7, "key", "label"),
                         judgement("o/r", 9, "key", "file")])
    settings = replace(SETTINGS, local_exports=True)
    source = Changelog()
    # WHEN a run without kept judgements (None) gathers them
    said = gather(config, source, kept, settings)  # type: ignore[arg-type]
    # THEN the CHANGELOG and the watch list are read now, and each beats a label
    assert [(j.pr, j.verdict, j.source) for j in said] == [
        (7, "minor", "watchlist"), (9, "key", "file"), (1210, "key", "changelog")]
    assert source.opened == 1
    # and a run that kept them (even none) opens no source: the kept table alone
    kept_only = gather(config, source, kept, settings, read=[])  # type: ignore[arg-type]
    assert [(j.pr, j.source) for j in kept_only] == [(7, "label"), (9, "file"), (1210, "label")]
    assert source.opened == 1


# -- the watch list's keys ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("settings", "says"), [
    ({"judgments": []}, "did you mean 'judgements'"),
    ({"judgements": [{"pr": 0, "verdict": "key"}]}, "'pr' must be a PR number"),
    ({"judgements": [{"pr": 3, "verdict": "key", "why": "x"}]}, "unknown judgement settings"),
    ({"judgements": "judgements.jsonl"}, "or \"jsonl:PATH\""),
    ({"key_labels": "highlight"}, "key_labels must be a list of names"),
    ({"key_labels": ["x"], "minor_labels": ["X"]}, "in both key_labels and minor_labels"),
    ({"changelog": "CHANGELOG.md"}, "changelog must be an object"),
    ({"changelog": {"path": "../../etc/passwd"}}, "changelog.path must be a file's path inside"),
    ({"changelog": {"path": "/etc/passwd"}}, "changelog.path must be a file's path inside"),
    ({"changelog": {"path": "C.md", "sections": {"Added": "big"}}}, "must be key, minor or null"),
    ({"changelog": {"path": "C.md", "sectons": {}}}, "did you mean 'sections'"),
    ({"changelog": {"path": "C.md", "grades": {"Added": "high"}}}, r"changelog.grades\['Added'\] must be a whole"),
    ({"changelog": {"path": "C.md", "grades": {"Added": 12}}}, "must be a whole number 0-9"),
    ({"changelog": {"path": "C.md", "grades": [2]}}, "changelog.grades must map section names"),
])
def test_bad_judgement_settings_are_refused(settings: dict[str, Any], says: str) -> None:
    with pytest.raises(InputError, match=says):
        repo_config(**settings)


def test_changelog_grades_are_optional_and_kept() -> None:
    plain = repo_config(changelog={"path": "C.md", "sections": {"Added": "key"}}).changelog
    assert plain.grades == {} and "grades" not in plain.to_dict()  # a config without grades reads as before
    graded = repo_config(changelog={"path": "C.md", "sections": {"Added": "key"}, "grades": {"🎉": 3, "Added": 2}})
    assert graded.changelog.grades == {"🎉": 3, "Added": 2}
    assert type(graded.changelog).from_dict(graded.changelog.to_dict()) == graded.changelog


def test_judgements_are_no_default() -> None:
    with pytest.raises(InputError, match="unknown defaults settings: 'judgements'"):
        WatchList.parse(json.dumps({"defaults": {"judgements": []}, "repos": []}))


# -- the command line: refused before anything is written -----------------------------------------------------

@pytest.mark.parametrize(("content", "extra", "says"), [
    ('{"pr": 1210, "verdict": "maybe"}\n', ["--repo", "acme/rocket"], "'verdict' must be key or minor"),
    ("{not json\n", ["--repo", "acme/rocket"], "1: not a judgement"),
    ('{"pr": 1210, "verdict": "key"}\n', [], "--judgements is for one repository"),
])
def test_a_bad_judgements_file_is_exit_2_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             content: str, extra: list[str], says: str) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(content)
    state, out = tmp_path / "state", tmp_path / "site"
    code = main(["run", *extra, "--judgements", str(path), "--state", str(state), "--out", str(out), "--quiet"])
    assert code == 2 and says in capsys.readouterr().err
    assert not state.exists() and not out.exists()


@pytest.mark.parametrize(("args", "says"), [
    (["--key", "5", "--minor", "5"], "both --key and --minor"),
    ([], "give the PRs to correct"),
    (["--key", "0"], "must be at least 1"),
])
def test_a_bad_correction_is_refused_before_the_stack_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              args: list[str], says: str) -> None:
    state = tmp_path / "state"
    try:
        code = main(["judge", "--repo", "acme/rocket", *args, "--state", str(state), "--out", str(tmp_path / "s")])
    except SystemExit as exc:  # argparse's own refusal
        code = int(exc.code or 0)
    assert code == 2 and says in capsys.readouterr().err and not state.exists()


# -- kept: the same PR twice -----------------------------------------------------------------------------------

def test_the_store_keeps_the_last_of_a_pr_given_twice_on_dynamodb(stack: Any) -> None:
    from prhub_local.runner import run_store

    # GIVEN the same PR judged three times in one batch (DynamoDB refuses a request naming one key twice; moto only
    # a repeated item, so one repeat is the same line again)
    store = run_store(stack)
    store.put_judgements([judgement("acme/rocket", pr, verdict, "file")
                          for pr, verdict in [(1210, "key"), (1211, "key"), (1210, "key"), (1210, "minor")]])
    # THEN the last one is kept
    assert {j.pr: j.verdict for j in store.judgements("acme/rocket")} == {1210: "minor", 1211: "key"}


def test_a_judgements_file_with_repeats_and_an_unknown_pr_runs_with_warnings(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a file grown by appending: 1210 judged twice, and a PR acme/rocket never had
    path = tmp_path / "j.jsonl"
    path.write_text('{"pr": 1210, "verdict": "key"}\n{"pr": 99999, "verdict": "key"}\n'
                    '{"pr": 1210, "verdict": "minor"}\n')
    state, out = tmp_path / "state", tmp_path / "site"
    # WHEN the sample's week is run with it
    code = main(["run", "--repo", "acme/rocket", "--since", "2026-06-01", "--until", "2026-06-07", "--judgements",
                 str(path), "--state", str(state), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    # THEN the report is made, the last line counts, and the person is told of both, without a traceback
    assert code == 0, err
    assert "Traceback" not in err
    assert "the judgements file: 1 line replaced by a later line on the same PR" in err
    assert "has no record of, left out: #99999" in err
    report = json.loads(next(out.rglob("reports/*/report.json")).read_text())
    assert {p["number"]: p["judged"] for p in report["prs"]}[1210] == "minor"
