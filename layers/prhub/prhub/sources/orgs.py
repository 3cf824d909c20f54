"""`"org": "NAME"` of the watch list: the organisation's public, non-archived repositories, cached.

    names = OrgRepos(github, cache).names("verl-project")   # ["verl-project/verl", ...], sorted
    watchlist = expand(watchlist, OrgRepos(github, cache))  # those repositories joined to the listed ones
    watchlist = watched(deps.watchlist(), deps.sources, deps.cache)  # the same, as the flow calls it

GitHub's REST `GET /orgs/{org}/repos?type=public&per_page=100`, every page through the Link header (the
source's own retries, rate limits and ETags). Archived and disabled repositories are left out, and those that
the watch list's `exclude` patterns match. The answer is kept in the stack's cache for a day: the weekly plan,
the reports and the digest of one week then see the same repositories, and a GitHub outage after a listing
serves the last one (with a warning) rather than no list.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from prhub.cloud.cache import Cache
from prhub.core.config import WatchList, check_repo, excluded
from prhub.core.errors import InputError, SourceError

log = logging.getLogger(__name__)

MAX_AGE = 86_400  # seconds a listing is used before GitHub is asked again


class Pages(Protocol):
    """prhub.sources.github.GitHubSource.pages: every page of a REST list endpoint."""

    def pages(self, path: str, params: dict[str, Any]) -> list[Any]: ...


def public_repos(items: list[Any]) -> list[str]:
    """The full names of the public repositories that are neither archived nor disabled, sorted."""
    names = set()
    for item in items:
        if not isinstance(item, dict) or item.get("archived") or item.get("disabled") or item.get("private"):
            continue
        if item.get("visibility", "public") != "public":
            continue
        try:
            names.add(check_repo(item.get("full_name")))
        except InputError:  # not a name a watch list could hold
            continue
    return sorted(names, key=str.lower)


class OrgRepos:
    """An organisation's repositories, listed through `github` (a GitHubSource, made on first use) and cached."""

    def __init__(self, github: Callable[[], Pages], cache: Cache | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.github = github
        self.cache = cache
        self.clock = clock

    def names(self, org: str) -> list[str]:
        key = f"org#{org.lower()}"
        kept = self.cache.get(key) if self.cache is not None else None
        fresh = isinstance(kept, dict) and self.clock() - float(kept.get("at", 0)) < MAX_AGE
        if fresh:
            return list(kept["repos"])  # type: ignore[index]
        try:
            items = self.github().pages(f"orgs/{org}/repos", {"type": "public", "per_page": 100})
        except Exception as exc:  # GitHub, or the token's secret (a function that may not read it): the last
            if isinstance(kept, dict):  # listing serves, as the plan refreshed it for this week
                log.warning("listing %s's repositories failed (%s): using the listing of %s", org, exc,
                            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(kept.get("at", 0)))))
                return list(kept["repos"])
            raise SourceError(f"cannot list the repositories of organisation {org!r}: {exc}") from exc
        repos = public_repos(items)
        if self.cache is not None:
            self.cache.put(key, {"at": self.clock(), "repos": repos})
        return repos


def expand(watchlist: WatchList, orgs: OrgRepos) -> WatchList:
    """The watch list with its `org`'s repositories (minus `exclude`) joined to the listed ones."""
    if watchlist.org is None:
        return watchlist
    names = [n for n in orgs.names(watchlist.org) if not excluded(n, watchlist.exclude)]
    return watchlist.with_repos(names)


def watched(watchlist: WatchList, sources: Callable[[str], Any], cache: Cache | None) -> WatchList:
    """`watchlist` expanded with GitHub as the flow's sources give it (`sources("github")`, a GitHubSource)."""
    return expand(watchlist, OrgRepos(lambda: sources("github"), cache))
