"""A repository's own conventions, learned from its history's titles (issue 48): the repository's word first.

    words(title) -> list[str]                     what a title opens with: its [tags], then a `word:` prefix
    learn(given, titles) -> Conventions           `given` (the watch list's) with what the titles show added
    minor_marker(title, labels, conv) -> str      the repository's "not worth noting" marker the PR carries, or ""
    said_type(title, labels, conv) -> str | None  the type the repository's own word gives the PR

What is learned, and why so little. The plan holds only the titles of the repository's earlier PRs (a listing
and its history entries carry no sizes or labels), so a marker is learned by use, not by co-occurrence with tiny
diffs: a word of MINOR_WORDS (the vocabulary projects use for "leave this out of the notes") counts as this
repository's marker once at least MIN_USES earlier titles open with it. One stray `minor:` in a repository that
never writes so changes nothing. Types: a conventional prefix (`fix:`, `feat(x):`) decides already
(prhub.engine.scoring.parse_title); a repository that does not declare types so in at least CONSISTENT of its
titles, but opens titles with type-word tags at least MIN_USES times (`[Bugfix]`, `[Doc]`), has those tags decide.
In a repository with consistent prefixes, tags name areas (verl's `[ci]`, `[doc]` beside `fix:`), not types.
The words and thresholds are not tuned on any repository's figures: a marker must be the repository's habit to
count. (Making a consistent repository's declared type final, over the engine's reading of "chore: Fix ..." as a
fix, was tried: it lowered verl's judged panel, so the engine keeps that reading.)
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from prhub.core.config import PR_TYPES, Conventions

# Words projects open a title with, or label a PR with, to say it is not worth a reader's time. `chore` is not
# here: the rules read a declared chore already (prhub.engine.rules, cap_chore); `misc` names a catch-all area.
MINOR_WORDS = frozenset({"minor", "internal", "nit", "nits", "trivial", "typo", "typos", "skip-changelog",
                         "skip changelog", "no-changelog", "no changelog", "changelog-skip", "not notable"})
TYPE_WORDS = {**{t: t for t in PR_TYPES}, "feature": "feat", "bugfix": "fix", "bug fix": "fix", "bug": "fix",
              "hotfix": "fix", "doc": "docs", "documentation": "docs", "tests": "test", "testing": "test",
              "build": "ci", "performance": "perf", "refactoring": "refactor"}
MIN_USES = 3
CONSISTENT = 0.5

_TAGS = re.compile(r"^\s*((?:\[[^\]]{1,60}\]\s*)+)")
_PREFIX = re.compile(r"^\s*\(?([A-Za-z][\w -]{0,30}?)\)?(?:\([^)]{0,60}\))?!?\s*[:：]")


def words(title: str) -> list[str]:
    """What a title opens with, lower case: each [tag]'s words (`[Bugfix]`, `[ci, docs]`), then a conventional
    `word:` / `word(scope):` prefix after them."""
    out: list[str] = []
    rest = title
    if tags := _TAGS.match(title):
        for tag in re.findall(r"\[([^\]]*)\]", tags.group(1)):
            out += [w.strip().lower() for w in re.split(r"[,，/]", tag) if w.strip()]
        rest = title[tags.end():]
    if prefix := _PREFIX.match(rest):
        out.append(prefix.group(1).strip().lower())
    return out


def _prefix(title: str) -> str | None:
    """The title's conventional `word:` prefix (after any tags), lower case."""
    tags = _TAGS.match(title)
    prefix = _PREFIX.match(title[tags.end():] if tags else title)
    return prefix.group(1).strip().lower() if prefix else None


def _tag_words(title: str) -> list[str]:
    tags = _TAGS.match(title)
    return words(title[:tags.end()]) if tags else []


def learn(given: Conventions, titles: Iterable[str]) -> Conventions:
    """`given` with what the repository's titles show: its minor markers (MINOR_WORDS it opens MIN_USES titles
    with), and the types of its type-word tags where its conventional prefixes are not consistent. The given
    markers and types stay, and a given type wins over a learned one. Nothing when `learn` is off."""
    if not given.learn:
        return given
    titles = list(titles)
    if not titles:
        return given
    used = Counter(w for t in titles for w in set(words(t)))
    prefixes = [p for t in titles if (p := _prefix(t))]
    declared = sum(1 for p in prefixes if p in TYPE_WORDS)
    consistent = declared >= CONSISTENT * len(titles)
    markers = {w for w in MINOR_WORDS if used[w] >= MIN_USES}
    types = {} if consistent else {
        w: TYPE_WORDS[w] for t in titles for w in _tag_words(t) if w in TYPE_WORDS and used[w] >= MIN_USES}
    types.update(dict(given.types))
    return replace(given, minor_markers=tuple(sorted(markers | set(given.minor_markers))),
                   types=tuple(sorted(types.items())))


def minor_marker(title: str, labels: Iterable[str], conv: Conventions) -> str:
    """The first of the repository's minor markers the PR's title opens with or its labels carry ("" for none)."""
    if not conv.minor_markers:
        return ""
    marks = set(conv.minor_markers)
    return next((w for w in [*words(title), *(label.strip().lower() for label in labels)] if w in marks), "")


def said_type(title: str, labels: Iterable[str], conv: Conventions) -> str | None:
    """The type the repository's own words give the PR: a title prefix or tag, then a label, its `types` map."""
    if not conv.types:
        return None
    for word in [*words(title), *(label.strip().lower() for label in labels)]:
        if kind := conv.type_of(word):
            return kind
    return None
