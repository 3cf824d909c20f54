"""What a repository's maintainers say about its PRs: this one was key, that one minor (issue 27).

A judgement comes from the watch list, a file, a label, the repository's CHANGELOG or a correction made with
`prhub judge`; `source` says which, so a report can say how many it learned from, and from where. A judgement
may also carry a `grade` (0–MAX_GRADE, higher is more important; only the CHANGELOG's sections give one): how it
ranks against the other judged PRs of its week, finer than key/minor, for the learner (prhub.engine.learning).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from prhub.core.errors import InputError

Verdict = Literal["key", "minor"]
VERDICTS: tuple[Verdict, ...] = ("key", "minor")
SOURCES = ("watchlist", "file", "label", "changelog", "correction")
# Which source wins a PR, weakest first: a rule over many PRs gives way to a verdict on one PR, and a person's
# latest word, the correction, beats everything.
PRECEDENCE = ("label", "changelog", "watchlist", "file", "correction")
MAX_GRADE = 9


@dataclass(frozen=True)
class Judgement:
    repo: str
    pr: int
    verdict: Verdict
    source: str  # one of SOURCES
    at: str = ""  # when it was made (ISO 8601 UTC), for corrections; "" where the source has no time
    grade: int | None = None  # None: the verdict alone says how it ranks

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"repo": self.repo, "pr": self.pr, "verdict": self.verdict, "source": self.source,
                               "at": self.at}
        if self.grade is not None:  # absent without one: what was stored before grades reads the same
            out["grade"] = self.grade
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        return judgement(str(data["repo"]), data.get("pr"), data.get("verdict"), str(data.get("source", "file")),
                         str(data.get("at", "")), data.get("grade"))


def judgement(repo: str, pr: Any, verdict: Any, source: str, at: str = "", grade: Any = None) -> Judgement:
    """A judgement from untrusted input, or InputError naming what is wrong."""
    if isinstance(pr, bool) or not isinstance(pr, int) or pr <= 0:
        raise InputError(f"judgement for {repo}: 'pr' must be a PR number, got {pr!r}")
    if verdict not in VERDICTS:
        raise InputError(f"judgement for {repo} #{pr}: 'verdict' must be key or minor, got {verdict!r}")
    if source not in SOURCES:
        raise InputError(f"judgement for {repo} #{pr}: unknown source {source!r}")
    if grade is not None and not valid_grade(grade):
        raise InputError(f"judgement for {repo} #{pr}: 'grade' must be a whole number 0-{MAX_GRADE}, got {grade!r:.40}")
    return Judgement(repo, pr, verdict, source, at, grade)


def valid_grade(grade: Any) -> bool:
    return not isinstance(grade, bool) and isinstance(grade, int) and 0 <= grade <= MAX_GRADE


def resolve(judgements: Iterable[Judgement]) -> list[Judgement]:
    """One judgement per PR, by PR number: the later source in PRECEDENCE wins; within one source, the later
    one (corrections by their time)."""
    best: dict[int, Judgement] = {}
    for j in sorted(judgements, key=lambda j: (PRECEDENCE.index(j.source), j.at)):
        best[j.pr] = j
    return [best[n] for n in sorted(best)]
