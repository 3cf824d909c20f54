"""What a report covers (prhub.sources.scope): the glob semantics of `paths` (prhub.core.globs), slices in the watch
list, their run ids, and a history narrowed as the listing is (paths and excluded authors), whatever the source can
tell of a PR's files."""
from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from prhub.cloud.store import parse_run_id, run_id
from prhub.core import globs
from prhub.core.config import RepoConfig, WatchList
from prhub.core.errors import InputError
from prhub.core.history import History, Tagger
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.flow import plan
from prhub.site import paths as sitepaths
from prhub.sources import scope
from prhub.sources.source import ListPage

from tests.fakes.memory import memory_stack
from tests.unit.engine_support import change, make_pr

WEEK = Period.parse("2026-06-15", "2026-06-21", "UTC")


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("verl/workers/*.py", "verl/workers/fsdp.py", True),
    ("verl/workers/*.py", "verl/workers/rollout/vllm.py", False),  # "*" never crosses "/" (fnmatch's would)
    ("verl/workers/**", "verl/workers/rollout/vllm.py", True),
    ("verl/workers/**/*.py", "verl/workers/fsdp.py", True),  # "**/" spans zero folders too
    ("verl/workers/**/*.py", "verl/workers/a/b/c.py", True),
    ("**/*.md", "README.md", True),
    ("**/*.md", "docs/start/install.md", True),
    ("*.md", "docs/install.md", False),  # anchored at the root: no "match anywhere" rule
    ("docs/", "docs/start/install.md", True),  # a folder covers everything under it
    ("docs", "docs/start/install.md", True),
    ("docs", "docs2/install.md", False),
    ("/docs/**", "docs/a.md", True),  # a leading "/" is the root as well
    ("tests/test_?.py", "tests/test_a.py", True),
    ("tests/test_?.py", "tests/test_ab.py", False),
    ("src/[a-c]*/x.py", "src/beta/x.py", True),
    ("src/[!a-c]*/x.py", "src/delta/x.py", True),
    ("src/[!a-c]*/x.py", "src/beta/x.py", False),
    ("a.b/c", "aXb/c", False),  # "." is a dot, not any character
    ("**/**/**/x.py", "a/b/x.py", True),
])
def test_glob_semantics(pattern: str, path: str, hit: bool) -> None:
    assert globs.matches(path, [pattern]) is hit


@pytest.mark.parametrize("bad", [[], "docs/**", [""], ["/"], ["../etc/**"], ["src/[ab"], [1], ["x"] * 101])
def test_bad_patterns_are_refused(bad: Any) -> None:
    with pytest.raises(InputError, match="paths"):
        globs.check_patterns(bad)


def test_repeated_double_stars_stay_fast() -> None:
    started = time.perf_counter()
    assert not globs.matches("a/" * 60 + "y.py", ["**/" * 90 + "x.py"])
    assert time.perf_counter() - started < 0.5


def test_a_renamed_file_touches_its_old_path_too() -> None:
    pr = make_pr("[x] refactor: move", [change("new/place.py", status="renamed", previous="old/place.py")])
    assert scope.touches(scope.pull_paths(pr), ["old/**"]) and not scope.touches(scope.pull_paths(pr), ["other/**"])


def test_slices_in_the_watch_list() -> None:
    doc = {"defaults": {"tz": "UTC"}, "repos": ["o/mono", {"repo": "o/mono", "name": "web", "paths": ["web/**"]},
                                               {"repo": "o/mono", "name": "api", "paths": ["api/**"]}]}
    watch = WatchList.parse(json.dumps(doc))
    whole, web, api = watch.repos
    assert (whole.report_id, web.report_id, api.report_id) == ("o/mono", "o/mono/slices/web", "o/mono/slices/api")
    assert web.display_name == "o/mono (web)" and web.paths == ("web/**",)
    assert watch.get("o/mono") is whole and watch.get("O/Mono", "api") is api
    with pytest.raises(InputError, match="no slice 'cli'"):
        watch.get("o/mono", "cli")
    # The run stores its config as to_dict: it comes back the same.
    assert RepoConfig.from_dict(json.loads(json.dumps(web.to_dict()))) == web
    assert RepoConfig.from_dict(json.loads(json.dumps(whole.to_dict()))) == whole
    for entry, message in (({"repo": "o/mono", "name": "web"}, "needs paths"),
                           ({"repo": "o/mono", "name": "Web/x", "paths": ["w/**"]}, "name must be"),
                           ({"repo": "o/mono", "name": "..", "paths": ["w/**"]}, "name must be")):
        with pytest.raises(InputError, match=message):
            RepoConfig.from_dict(entry)
    with pytest.raises(InputError, match="slice 'web' of o/mono twice"):
        WatchList.parse(json.dumps({"repos": [doc["repos"][1], doc["repos"][1]]}))


def test_run_ids_name_the_slice_and_parse_back() -> None:
    web = RepoConfig(repo="o/mono", paths=("web/**",), slice="web")
    rid = run_id(web, WEEK, "weekly")
    assert rid == "o/mono/slices/web/2026-06-15_2026-06-21/weekly"
    name = parse_run_id(rid)
    assert name is not None and (name.repo, name.slice, name.since, name.until) == ("o/mono", "web", "2026-06-15",
                                                                                   "2026-06-21")
    assert name.period_prefix == "o/mono/slices/web/2026-06-15_2026-06-21/"
    whole = parse_run_id(run_id(RepoConfig(repo="o/mono"), WEEK, "20260622T010000-ab12cd34"))
    assert whole is not None and (whole.repo, whole.slice) == ("o/mono", "")
    assert parse_run_id("o/mono/weekly") is None and parse_run_id("o/mono/slices/web/2026_06_15/x") is None


def test_site_folders_of_a_slice() -> None:
    report = {"repo": "o/mono", "slice": {"name": "web", "paths": ["web/**"]}}
    assert sitepaths.base(report) == "o/mono/slices/web" and sitepaths.base({"repo": "o/mono"}) == "o/mono"
    assert sitepaths.display("o/mono/slices/web") == "o/mono (web)"
    assert sitepaths.repo_of("o/mono/slices/web") == "o/mono"
    assert sitepaths.pull_dir(sitepaths.base(report), 7, "en", "en") == "o/mono/slices/web/pull/7/"
    assert sitepaths.nav("o/mono/slices/web/reports/x/", "o/mono/slices/web", "en", "en") == {
        "root_href": "../../../../../../", "repo_href": "../../", "feed_href": "../../feed.xml"}


class RestLikeSource:
    """A source shaped as the REST one: history entries come from a listing (tag is never called, no files), so
    the slice asks `touched` for each; the period's PRs are in `prs`."""

    def __init__(self, prs: list[PullRequest], earlier: list[PullRequest]) -> None:
        self.prs, self.earlier = prs, earlier
        self.asked: list[int] = []

    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        return [p.ref for p in self.prs]

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        yield ListPage(self.list_merged(repo, period), None)  # REST lists in one page

    def warnings(self, repo: str, period: Period) -> list[str]:
        return []

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        return next(p for p in self.prs + self.earlier if p.number == ref.number)

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        self.asked.append(ref.number)
        return scope.pull_paths(self.get(repo, ref))

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        return []

    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        return History([{**p.ref.to_dict(), "modules": []} for p in self.earlier], {"alice": "2026-01-01T00:00:00Z"})


def test_history_holds_only_the_slice_and_never_an_excluded_author() -> None:
    earlier = [make_pr("[web] feat: a", [change("web/a.ts")], number=1, merged_at="2026-06-01T00:00:00Z"),
               make_pr("[api] fix: b", [change("api/b.py")], number=2, merged_at="2026-06-02T00:00:00Z"),
               make_pr("[web] chore: c", [change("web/c.ts")], number=3, author="renovate-acme",
                       merged_at="2026-06-03T00:00:00Z")]
    source = RestLikeSource([], earlier)
    web = RepoConfig(repo="o/mono", paths=("web/**",), slice="web", exclude_authors=("Renovate-Acme",))
    got = scope.history(source, web, WEEK, ["alice"], lambda pr: [])
    assert [e["number"] for e in got.earlier] == [1]
    assert source.asked == [1, 2]  # the excluded author's PR is dropped before its files are asked for
    assert got.first_merged == {"alice": "2026-01-01T00:00:00Z"}  # new contributors: new to the repository
    # Without paths only the excluded author goes, and no file is asked for.
    source.asked.clear()
    whole = RepoConfig(repo="o/mono", exclude_authors=("renovate-acme",))
    assert [e["number"] for e in scope.history(source, whole, WEEK, [], lambda pr: []).earlier] == [1, 2]
    assert source.asked == []


def test_a_slice_is_planned_with_its_own_prs_and_weekly_run_deduplicated() -> None:
    prs = [make_pr("[web] feat: a", [change("web/a.ts")], number=10, merged_at="2026-06-16T00:00:00Z"),
           make_pr("[api] fix: b", [change("api/b.py")], number=11, merged_at="2026-06-17T00:00:00Z"),
           make_pr("[web] fix: c", [change("api/c.py"), change("web/c.ts")], number=12,
                   merged_at="2026-06-18T00:00:00Z")]
    earlier = [make_pr("[web] feat: d", [change("web/d.ts")], number=5, merged_at="2026-06-09T00:00:00Z"),
               make_pr("[web] chore: e", [change("web/e.ts")], number=6, author="renovate-acme",
                       merged_at="2026-06-10T00:00:00Z"),
               make_pr("[api] fix: f", [change("api/f.py")], number=7, merged_at="2026-06-11T00:00:00Z")]
    source = RestLikeSource(prs, earlier)
    doc = {"defaults": {"tz": "UTC", "language": "en", "exclude_authors": ["renovate-acme"]},
           "repos": ["o/mono", {"repo": "o/mono", "name": "web", "paths": ["web/**"]},
                     {"repo": "o/mono", "name": "api", "paths": ["api/"]}]}
    stack = memory_stack(WatchList.parse(json.dumps(doc)), sources=lambda spec: source,
                         clock=lambda: datetime(2026, 6, 22, 2, 0, tzinfo=UTC))
    event = {"time": "2026-06-22T01:00:00Z"}
    first = plan.plan(event, stack.deps)
    assert [(r["run_id"], r["expected"]) for r in first] == [
        ("o/mono/2026-06-15_2026-06-21/weekly", 3), ("o/mono/slices/web/2026-06-15_2026-06-21/weekly", 2),
        ("o/mono/slices/api/2026-06-15_2026-06-21/weekly", 2)]
    web = stack.store.get_run(first[1]["run_id"])
    assert web is not None and web.refs == [10, 12] and web.config.slice == "web"
    assert [e["number"] for e in web.history.earlier] == [5]  # its paths only, and never an excluded author
    whole = stack.store.get_run(first[0]["run_id"])
    assert whole is not None and [e["number"] for e in whole.history.earlier] == [5, 7]
    # A redelivered schedule event plans nothing new, for the repository and each slice alike.
    assert all(r.get("duplicate") for r in plan.plan(event, stack.deps))
    # On demand: the slice by its name; an unknown one is bad input.
    [api] = plan.plan({"repo": "o/mono", "slice": "api", "since": "2026-06-15", "until": "2026-06-21"}, stack.deps)
    assert api["run_id"].startswith("o/mono/slices/api/2026-06-15_2026-06-21/") and api["expected"] == 2
    with pytest.raises(InputError, match="no slice"):
        plan.plan({"repo": "o/mono", "slice": "cli", "since": "2026-06-15", "until": "2026-06-21"}, stack.deps)
