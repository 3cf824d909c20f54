"""Glob patterns of repository paths, as the watch list's `paths` holds them (prhub.core.config checks them,
prhub.sources.scope filters PRs with them).

Glob semantics (gitignore-like, always anchored at the repository root; not fnmatch, where `*` crosses "/"):

    *        any characters within one path segment (never "/")
    ?        one character other than "/"
    [abc]    one of the characters (`[!abc]` none of them)
    **       any number of whole segments, none included: `a/**/b` matches a/b and a/x/y/b; `**/*.md` any .md
    a/b/     a trailing "/" (or a pattern naming a folder) matches everything under that folder

A leading "/" is allowed and means the same (the root).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from prhub.core.errors import InputError

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
