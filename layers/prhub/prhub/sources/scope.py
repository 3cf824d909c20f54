"""What a report covers: which merged PRs of its repository it reports on, and which earlier ones it compares with.

Two settings of the watch list narrow a repository's report (prhub.core.config.RepoConfig):

- `exclude_authors`: those logins' PRs are left out entirely, from the period and from its history (trends and
  revert chains never count them);
- `paths`: glob patterns; only PRs touching at least one matching path are reported, and the history holds
  only earlier PRs touching them. With a `name` the report is a slice, a report of its own beside the
  repository's (its run ids, history, titles, feeds and site folder are its own).

Glob semantics (gitignore-like, always anchored at the repository root; not fnmatch, where `*` crosses "/"):

    *        any characters within one path segment (never "/")
    ?        one character other than "/"
    [abc]    one of the characters (`[!abc]` none of them)
    **       any number of whole segments, none included: `a/**/b` matches a/b and a/x/y/b; `**/*.md` any .md
    a/b/     a trailing "/" (or a pattern naming a folder) matches everything under that folder

A leading "/" is allowed and means the same (the root). A PR touches a path when one of its files, or a renamed
file's old name, matches.

New contributors stay those new to the repository: GitHub cannot be asked for an author's first merge under a
path, and someone who merged elsewhere in the monorepo is not a first-time contributor.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.errors import InputError
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.sources.source import History, Source, Tagger

MAX_PATTERNS = 100
MAX_PATTERN_LENGTH = 300


def check_patterns(value: Any) -> tuple[str, ...]:
    """The watch list's `paths`, checked: a non-empty list of glob patterns (InputError otherwise)."""
    if not isinstance(value, list | tuple) or not value or not all(isinstance(p, str) for p in value):
        raise InputError("paths must be a non-empty list of glob patterns, such as [\"verl/workers/**\"]")
    if len(value) > MAX_PATTERNS:
        raise InputError(f"paths holds {len(value)} patterns; at most {MAX_PATTERNS}")
    for pattern in value:
        if not pattern.strip("/") or len(pattern) > MAX_PATTERN_LENGTH or ".." in pattern.split("/"):
            raise InputError(f"paths: {pattern!r:.100} is not a pattern of paths inside the repository")
        _regex(pattern)  # an unclosed "[" is an error now, not a silent miss later
    return tuple(value)


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    # "**/**/" means what "**/" does; collapsed, so no pattern backtracks over a path once per repetition.
    body = re.sub(r"(?:\*\*/)+", "**/", pattern.lstrip("/").rstrip("/"))
    out, i = [], 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        elif body[i] == "[":
            end = body.find("]", i + 2 if body.startswith("[!", i) or body.startswith("[]", i) else i + 1)
            if end < 0:
                raise InputError(f"paths: {pattern!r:.100} has a '[' without its ']'")
            chars = body[i + 1:end]
            negate = chars.startswith("!")
            chars = chars[1:] if negate else chars
            inside = re.escape(chars).replace("\\-", "-")  # ranges such as a-z stay ranges
            out.append(f"[^/{inside}]" if negate else f"[{inside}]")
            i = end + 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    # What a pattern matches, and everything under it: "docs" and "docs/" both cover docs/a.md.
    return re.compile("".join(out) + r"(?:/.*)?\Z")


def matches(path: str, patterns: Sequence[str]) -> bool:
    """Whether `path` (relative to the repository root) matches one of the glob `patterns`."""
    return any(_regex(p).match(path) for p in patterns)


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
