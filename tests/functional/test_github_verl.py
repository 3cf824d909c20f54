"""Acceptance on real data: the GitHub source (against the fake fed verl's export) equals the jsonl source."""
from __future__ import annotations

import pytest
from prhub.core.config import RepoConfig
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.sources.github import GitHubSource
from prhub.sources.source import JsonlSource

from tests.conftest import VERL as REPO
from tests.fakes import FakeGitHub
from tests.fakes.github_conversation import served

WEEKS = [("2026-05-04", "2026-05-10"), ("2026-08-10", "2026-08-16")]


def file_facts(pr: object) -> list[tuple]:
    return [(f.filename, f.status, f.additions, f.deletions, f.previous_filename) for f in pr.files]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("since", "until"), WEEKS)
def test_github_source_lists_the_same_prs_files_and_scores_as_jsonl(
        verl_jsonl: JsonlSource, verl_github: FakeGitHub, since: str, until: str) -> None:
    period = Period.parse(since, until, "Asia/Shanghai")
    config = RepoConfig(REPO, tz="Asia/Shanghai")
    github = GitHubSource(token="t", api_url=verl_github.url, sleep=lambda s: None)

    refs = github.list_merged(REPO, period)
    want = verl_jsonl.list_merged(REPO, period)
    assert len(want) > 20
    assert refs == want  # number, title, author, merge time, url; same order

    for ref in refs:
        mine, theirs = github.get(REPO, ref), served(verl_jsonl.get(REPO, ref))
        assert file_facts(mine) == file_facts(theirs), ref.number
        assert (mine.additions, mine.deletions, mine.changed_files, mine.body) == (
            theirs.additions, theirs.deletions, theirs.changed_files, theirs.body)
        assert score_pull(mine, config) == score_pull(theirs, config), ref.number


def test_verl_week_with_faults_still_lists_every_pr_once(verl_jsonl: JsonlSource, verl_github: FakeGitHub) -> None:
    period = Period.parse(*WEEKS[0], "Asia/Shanghai")
    for kind, path in [("502", "/files"), ("cut", r"/pulls/\d+$"), ("429", "/reviews"), ("403-retry-after", "/search")]:
        waits = {"retry_after": 1} if kind in ("429", "403-retry-after") else {}
        verl_github.inject(kind, path=path, times=3, **waits)
    github = GitHubSource(token="t", api_url=verl_github.url, sleep=lambda s: None)
    numbers = [github.get(REPO, ref).number for ref in github.list_merged(REPO, period)]
    assert sum(f.times for f in verl_github.faults) == 0
    assert numbers == [ref.number for ref in verl_jsonl.list_merged(REPO, period)]
