"""What a repository's maintainers say about its PRs: this one was key, that one minor (issue 27).

A judgement comes from the watch list, a file, a label, the repository's CHANGELOG or a correction made with
`prhub judge`; `source` says which, so a report can say how many it learned from, and from where.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from prhub.core.errors import InputError

Verdict = Literal["key", "minor"]
VERDICTS: tuple[Verdict, ...] = ("key", "minor")
SOURCES = ("watchlist", "file", "label", "changelog", "correction")


@dataclass(frozen=True)
class Judgement:
    repo: str
    pr: int
    verdict: Verdict
    source: str  # one of SOURCES
    at: str = ""  # when it was made (ISO 8601 UTC), for corrections; "" where the source has no time

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "pr": self.pr, "verdict": self.verdict, "source": self.source, "at": self.at}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        return judgement(str(data["repo"]), data.get("pr"), data.get("verdict"), str(data.get("source", "file")),
                         str(data.get("at", "")))


def judgement(repo: str, pr: Any, verdict: Any, source: str, at: str = "") -> Judgement:
    """A judgement from untrusted input, or InputError naming what is wrong."""
    if isinstance(pr, bool) or not isinstance(pr, int) or pr <= 0:
        raise InputError(f"judgement for {repo}: 'pr' must be a PR number, got {pr!r}")
    if verdict not in VERDICTS:
        raise InputError(f"judgement for {repo} #{pr}: 'verdict' must be key or minor, got {verdict!r}")
    if source not in SOURCES:
        raise InputError(f"judgement for {repo} #{pr}: unknown source {source!r}")
    return Judgement(repo, pr, verdict, source, at)
