"""A repository's CHANGELOG read as its maintainers' judgements: the PRs they filed under each section (issue 27).

Cargo's CHANGELOG.md is the model: `## Cargo 1.99` releases, `### Added` / `### Changed` / `### Fixed` /
`### Nightly only` / `### Documentation` / `### Internal` sections, one `- ` entry per change ending in links such
as `[#N](https://github.com/OWNER/NAME/pull/N)`, and a 🎉 opening the entries the release highlights.
The config maps section names to verdicts, and optionally to grades; the reader only finds which PRs sit in which
section.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from prhub.core.judgements import Judgement, Verdict, judgement

HIGHLIGHT = "🎉"  # a sections key too: its verdict for highlighted entries (default key)

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ENTRY = re.compile(r"^[-*+]\s+(.*)$")  # a top-level bullet starts an entry; indented ones continue it
_FENCE = re.compile(r"^\s*(```|~~~)")


def section_name(heading: str) -> str:
    """A heading as the config names it: 'Nightly-only', 'nightly only' and 'Nightly only' are one section."""
    return re.sub(r"[\W_]+", " ", heading).strip().casefold()


def read_changelog(text: str, sections: Mapping[str, Verdict | None], repo: str,
                   grades: Mapping[str, int] | None = None) -> list[Judgement]:
    """The judgements of `repo`'s PRs linked from the CHANGELOG's entries, in the order the file names them.

    Only links to the repository's own pulls count (`https://github.com/<repo>/pull/N`): an issue, another
    repository's PR or a compare link says nothing about a PR of this one. An entry takes its section's verdict;
    a section the config does not name, or maps to None, gives none. A highlighted entry takes the HIGHLIGHT
    key's verdict instead (key unless configured; None leaves it to its section). A PR named in several entries
    is key if any of them makes it key: it mattered somewhere.

    `grades` (section names, and HIGHLIGHT for highlighted entries) give a judged PR the grade of its entry, the
    highest over its entries for the same reason; a highlight without a HIGHLIGHT grade takes its section's, and a
    section without one gives no grade. Grades only order judged PRs: an entry with no verdict gives no judgement.
    """
    verdicts = {section_name(name): verdict for name, verdict in sections.items() if name != HIGHLIGHT}
    highlight = sections.get(HIGHLIGHT, "key")
    graded = {section_name(name): grade for name, grade in (grades or {}).items() if name != HIGHLIGHT}
    highlight_grade = (grades or {}).get(HIGHLIGHT)
    found: dict[int, Verdict] = {}
    best: dict[int, int] = {}
    for name, entry in _entries(text, verdicts):
        verdict, grade = verdicts.get(name) if name else None, graded.get(name) if name else None
        if entry.startswith(HIGHLIGHT):
            verdict = highlight if highlight is not None else verdict
            grade = highlight_grade if highlight_grade is not None else grade
        if verdict is None:
            continue
        for number in pull_links(entry, repo):
            if found.get(number) != "key":
                found[number] = verdict
            if grade is not None and grade > best.get(number, -1):
                best[number] = grade
    return [judgement(repo, number, verdict, "changelog", grade=best.get(number)) for number, verdict in found.items()]


def pull_links(entry: str, repo: str) -> list[int]:
    """The numbers of `repo`'s own pulls an entry links to (`](https://github.com/<repo>/pull/N)`), in order.

    Only that form counts: a bare #N may be an issue, and an issue, another repository's PR or a compare link
    says nothing about a PR of this one."""
    link = re.compile(r"\]\(https?://github\.com/" + re.escape(repo) + r"/pull/(\d+)/?\)", re.IGNORECASE)
    return [int(n) for n in link.findall(entry)]


def changelog_entries(text: str, sections: Iterable[str]) -> Iterator[tuple[str | None, str]]:
    """(its section's name, the entry's text) for every top-level entry, read as read_changelog reads them;
    the name (section_name of the heading) is None outside the named `sections`. For readers that need the entries
    themselves (the judged corpus of bench.corpus maps some sections by what their entries say)."""
    return _entries(text, {section_name(name): None for name in sections})


def _entries(text: str, verdicts: Mapping[str, Verdict | None]) -> Iterator[tuple[str | None, str]]:
    """(its named section's name, the entry's text) for every top-level entry, its indented lines joined to it;
    the name is None outside a section the config names (`verdicts`' keys).

    A heading the config does not name ends a named section only at its level or above: a `#### cargo-foo`
    inside `### Added` is still Added, the next `## Cargo 1.98` is not. Fenced code is part of no entry.
    """
    level, section = 0, None  # the named section's heading level (0: none) and its name
    entry: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        start = None if fenced else _ENTRY.match(line)
        ends = heading or start or (line[:1].strip() and not fenced)  # anything at the margin ends an entry
        if ends and entry:
            yield section, " ".join(entry)
            entry = []
        if heading:
            name, depth = section_name(heading.group(2)), len(heading.group(1))
            if name in verdicts:
                level, section = depth, name
            elif depth <= level:
                level, section = 0, None
        elif start:
            entry = [start.group(1)]
        elif entry and line.strip() and not fenced:
            entry.append(line.strip())
    if entry:
        yield section, " ".join(entry)
