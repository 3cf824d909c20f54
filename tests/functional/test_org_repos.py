"""`"org"` in the watch list: the organisation's public, non-archived repositories, listed on (a fake) GitHub
through every page of GET /orgs/{org}/repos, filtered by `exclude`, and cached."""
from __future__ import annotations

import json

import pytest
from prhub.core.config import WatchList
from prhub.core.errors import SourceError
from prhub.sources.github import GitHubSource
from prhub.sources.orgs import MAX_AGE, OrgRepos, expand

from tests.fakes.github_server import FakeGitHub, org_repo
from tests.fakes.memory import MemoryCache

ORG = "acme"
# 130 public sources (two pages of 100), beside an archived, a disabled and a private repository, and a fork.
PUBLIC = [f"acme/lib-{i:03d}" for i in range(130)]
REPOS = ([org_repo(n, i) for i, n in enumerate(PUBLIC)]
         + [org_repo("acme/old", 200, archived=True), org_repo("acme/frozen", 201, disabled=True),
            org_repo("acme/secret", 202, private=True), org_repo("acme/upstream-fork", 203, fork=True)])


def source(gh: FakeGitHub) -> GitHubSource:
    return GitHubSource(token="t", api_url=gh.url, sleep=lambda s: None)


def test_an_org_lists_every_page_and_keeps_only_public_unarchived_repositories() -> None:
    with FakeGitHub([], org_repos={ORG: REPOS}) as gh:
        names = OrgRepos(lambda: source(gh)).names("ACME")  # GitHub's org names are case-insensitive
        pages = [path for path, status in gh.log if path.startswith("/orgs/")]
    assert names == sorted([*PUBLIC, "acme/upstream-fork"], key=str.lower)
    assert len(pages) == 2 and all("type=public" in p and "per_page=100" in p for p in pages)


def test_the_listing_is_cached_and_a_later_outage_serves_the_last_one() -> None:
    cache, now = MemoryCache(), [1_000_000.0]
    with FakeGitHub([], org_repos={ORG: REPOS[:3]}) as gh:
        orgs = OrgRepos(lambda: source(gh), cache, clock=lambda: now[0])
        first = orgs.names(ORG)
        asked = gh.counts["org_repos"]
        assert orgs.names(ORG) == first and gh.counts["org_repos"] == asked  # from the cache
        now[0] += MAX_AGE + 1
        gh.inject("502", path="/orgs/", times=10)
        assert orgs.names(ORG) == first  # stale, with a warning, rather than no list


def test_an_unknown_org_is_an_error_that_names_it() -> None:
    with FakeGitHub([], org_repos={ORG: REPOS[:1]}) as gh, pytest.raises(SourceError, match="nobody"):
        OrgRepos(lambda: source(gh)).names("nobody")


def test_expand_adds_the_org_repositories_minus_exclude_and_keeps_listed_settings() -> None:
    watchlist = WatchList.parse(json.dumps({
        "defaults": {"language": "en", "tz": "Asia/Shanghai"}, "org": ORG, "exclude": ["lib-00*", "acme/upstream-*"],
        "repos": [{"repo": "acme/lib-120", "language": "zh"}]}))
    with FakeGitHub([], org_repos={ORG: REPOS}) as gh:
        expanded = expand(watchlist, OrgRepos(lambda: source(gh)))
    names = [c.repo for c in expanded.repos]
    assert names[0] == "acme/lib-120" and expanded.repos[0].language == "zh"  # listed settings win
    assert len(names) == len(set(n.lower() for n in names))  # listed once
    assert set(names) == {n for n in PUBLIC if not n.startswith("acme/lib-00")}
    assert {c.language for c in expanded.repos[1:]} == {"en"} and expanded.repos[1].tz == "Asia/Shanghai"


def test_a_local_config_run_watches_the_org_repositories_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub_local.runner import watched_locally

    watchlist = WatchList.parse(json.dumps({"org": ORG, "exclude": ["lib-*"], "repos": ["other/tool"]}))
    with FakeGitHub([], org_repos={ORG: REPOS}) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "t")
        assert [c.repo for c in watched_locally(watchlist).repos] == ["other/tool", "acme/upstream-fork"]


def test_the_weekly_schedule_plans_the_org_repositories_too() -> None:
    from datetime import UTC, datetime

    from prhub.flow.plan import plan

    from tests.fakes.memory import memory_stack

    watchlist = WatchList.parse(json.dumps({"org": ORG, "exclude": ["lib-*"], "repos": ["acme/lib-007"]}))
    now = datetime(2026, 6, 8, 1, 0, tzinfo=UTC)
    with FakeGitHub([], repo="acme/lib-007", org_repos={ORG: REPOS}) as gh:
        made = memory_stack(watchlist, sources=lambda spec: source(gh), clock=lambda: now)
        planned = plan({"time": "2026-06-08T01:00:00Z"}, made.deps)
    # the listed repository (planned: nothing merged) and the org's one that exclude leaves (not on the fake)
    assert [p["repo"] for p in planned] == ["acme/lib-007", "acme/upstream-fork"]
    assert planned[0]["expected"] == 0 and "error" in planned[1]
    assert made.cache.get("org#acme")["repos"][0] == "acme/lib-000"  # the listing, kept for the reports
