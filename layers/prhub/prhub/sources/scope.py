"""What a report covers: which merged PRs of its repository it reports on, and which earlier ones it compares with.

Two settings of the watch list narrow a repository's report (prhub.core.config.RepoConfig):

- `exclude_authors`: those logins' PRs are left out entirely, from the period and from its history (trends and
  revert chains never count them);
- `paths`: glob patterns; only PRs touching at least one matching path are reported, and the history holds
  only earlier PRs touching them. With a `name` the report is a slice, a report of its own beside the
  repository's (its run ids, history, titles, feeds and site folder are its own).

The glob semantics of `paths` are prhub.core.globs' (the watch list checks the patterns there). A PR touches a
path when one of its files, or a renamed file's old name, matches.

New contributors stay those new to the repository: GitHub cannot be asked for an author's first merge under a
path, and someone who merged elsewhere in the monorepo is not a first-time contributor.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.globs import matches
from prhub.core.history import History, Tagger
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.sources.source import Source


def touches(paths: Iterable[str], patterns: Sequence[str]) -> bool:
    """Whether any of `paths` matches one of `patterns`; every path does when there are no patterns."""
    return not patterns or any(matches(p, patterns) for p in paths)


def pull_paths(pr: PullRequest) -> list[str]:
    """The paths a PR touches: each file, and a renamed file's old name."""
    return [name for f in pr.files for name in (f.filename, f.previous_filename) if name]


def covered(source: Source, config: RepoConfig, refs: list[PullRef]) -> list[PullRef]:
    """The listed PRs the report covers: with `paths`, those touching them (the source says what each touched)."""
    if not config.paths:
        return refs
    return [r for r in refs if touches(source.touched(config.repo, r), config.paths)]


def history(source: Source, config: RepoConfig, period: Period, authors: Iterable[str], tag: Tagger) -> History:
    """The source's history of the repository before `period`, narrowed as the report is: no PR by an excluded
    author, and with `paths` only PRs touching them (paths seen as the source tags each PR, or asked for)."""
    return _narrowed(source, config, lambda tagging: source.history(config.repo, period, authors, tagging), tag)


def record(source: Source, config: RepoConfig, span: Period, tag: Tagger) -> History:
    """The source's PRs merged within `span` (Source.record), narrowed as the history is."""
    return _narrowed(source, config, lambda tagging: source.record(config.repo, span, tagging), tag)


def _narrowed(source: Source, config: RepoConfig, listing: Callable[[Tagger], History], tag: Tagger) -> History:
    seen: dict[int, list[str]] = {}

    def tagging(pr: PullRequest) -> list[str]:
        seen[pr.number] = pull_paths(pr)
        return tag(pr)

    found = listing(tagging if config.paths else tag)

    def kept(entry: dict[str, Any]) -> bool:
        if config.excludes(str(entry.get("author", ""))):
            return False
        if not config.paths:
            return True
        number = int(entry["number"])
        paths = seen[number] if number in seen else source.touched(config.repo, PullRef.from_dict(entry))
        return touches(paths, config.paths)

    return History([e for e in found.earlier if kept(e)], found.first_merged, found.reach)
