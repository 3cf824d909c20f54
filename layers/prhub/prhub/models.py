"""The data that flows through Prhub: pull requests in, scored pull requests out.

`PullRequest.from_export` / `to_export` speak the export format (one merged PR
per JSONL line, a subset of GitHub's REST pull object with `files` embedded).
`ScoredPR` is one entry of report.json's `prs[]` plus the facts the week's
analysis needs (file paths, references, reasons); `to_dict`/`from_dict` are
how it is stored in DynamoDB and cached.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from prhub.errors import SourceError
from prhub.period import format_timestamp, parse_timestamp
from prhub.report import PrEntry


@dataclass(frozen=True)
class FileChange:
    filename: str
    status: str = "modified"  # added | removed | modified | renamed
    additions: int = 0
    deletions: int = 0
    previous_filename: str | None = None
    binary: bool = False
    patch: str | None = None  # unified diff hunk text where GitHub gives it

    @property
    def changes(self) -> int:
        return self.additions + self.deletions


@dataclass(frozen=True)
class Review:
    reviewer: str
    state: str  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED


@dataclass(frozen=True)
class PullRef:
    """What a listing gives cheaply: enough to plan a run and to compute trends."""

    number: int
    title: str
    author: str
    merged_at: datetime
    url: str

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "title": self.title, "author": self.author,
                "merged_at": format_timestamp(self.merged_at), "url": self.url}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PullRef:
        return cls(int(data["number"]), str(data["title"]), str(data["author"]),
                   parse_timestamp(str(data["merged_at"])), str(data["url"]))


@dataclass
class PullRequest:
    """A merged PR with its details, as the score worker sees it."""

    number: int
    title: str
    body: str
    author: str
    merged_at: datetime
    url: str
    labels: list[str] = field(default_factory=list)
    co_authors: list[str] = field(default_factory=list)
    base_ref: str = "main"
    head_sha: str = ""  # cache key part; the merge commit for exports
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    files: list[FileChange] = field(default_factory=list)
    files_truncated: bool = False  # GitHub lists at most 3,000 files of a PR
    reviews: list[Review] = field(default_factory=list)
    commits: int | None = None

    @property
    def ref(self) -> PullRef:
        return PullRef(self.number, self.title, self.author, self.merged_at, self.url)

    @classmethod
    def from_export(cls, row: dict[str, Any]) -> PullRequest:
        """Parse one export line; raises SourceError naming what is wrong."""
        try:
            files = [
                FileChange(
                    filename=str(f["filename"]),
                    status=str(f.get("status", "modified")),
                    additions=int(f.get("additions") or 0),
                    deletions=int(f.get("deletions") or 0),
                    previous_filename=f.get("previous_filename"),
                    binary=bool(f.get("binary", False)),
                    patch=f.get("patch"),
                )
                for f in row.get("files") or []
            ]
            user = row.get("user") or {}
            return cls(
                number=int(row["number"]),
                title=str(row.get("title") or ""),
                body=str(row.get("body") or ""),
                author=str(user.get("login") or "unknown"),
                merged_at=parse_timestamp(str(row["merged_at"])),
                url=str(row.get("html_url") or ""),
                labels=[str(lb["name"]) if isinstance(lb, dict) else str(lb) for lb in row.get("labels") or []],
                co_authors=[str(c) for c in row.get("co_authors") or []],
                base_ref=str((row.get("base") or {}).get("ref") or "main"),
                head_sha=str((row.get("head") or {}).get("sha") or row.get("merge_commit_sha") or ""),
                additions=int(row.get("additions") or sum(f.additions for f in files)),
                deletions=int(row.get("deletions") or sum(f.deletions for f in files)),
                changed_files=int(row.get("changed_files") or len(files)),
                files=files,
                files_truncated=bool(row.get("files_truncated", False)),
                reviews=[Review(str(r["reviewer"]), str(r["state"])) for r in row.get("reviews") or []],
                commits=row.get("commits"),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # AttributeError: e.g. "user": "alice"
            raise SourceError(f"malformed pull request record: {exc!r}") from exc

    def to_export(self) -> dict[str, Any]:
        """The export format (../shared/data/README.md), plus optional detail fields when known."""
        row: dict[str, Any] = {
            "number": self.number,
            "title": self.title,
            "body": self.body,
            "state": "closed",
            "merged": True,
            "merged_at": format_timestamp(self.merged_at),
            "user": {"login": self.author},
            "co_authors": list(self.co_authors),
            "labels": list(self.labels),
            "base": {"ref": self.base_ref},
            "merge_commit_sha": self.head_sha,
            "html_url": self.url,
            "additions": self.additions,
            "deletions": self.deletions,
            "changed_files": self.changed_files,
            "files": [_file_row(f) for f in self.files],
        }
        if self.files_truncated:
            row["files_truncated"] = True
        if self.reviews:
            row["reviews"] = [{"reviewer": r.reviewer, "state": r.state} for r in self.reviews]
        if self.commits is not None:
            row["commits"] = self.commits
        return row


def _file_row(f: FileChange) -> dict[str, Any]:
    row: dict[str, Any] = {"filename": f.filename, "status": f.status, "additions": f.additions,
                           "deletions": f.deletions, "changes": f.changes}
    if f.previous_filename:
        row["previous_filename"] = f.previous_filename
    if f.binary:
        row["binary"] = True
    if f.patch is not None:
        row["patch"] = f.patch
    return row


@dataclass(frozen=True)
class Risk:
    kind: str  # missing_tests | breaking | revert | dependency_pin | todo_left | large_change | ...
    detail: str


@dataclass
class ScoredPR:
    """One PR's judgement: report.json `prs[]` plus the facts the week's analysis needs."""

    number: int
    title: str
    url: str
    author: str
    merged_at: str
    modules: list[str]
    type: str
    breaking: bool
    importance: float
    insight: float
    key: bool
    summary: str
    key_points: list[str]
    risks: list[Risk]
    additions: int
    deletions: int
    changed_files: int
    scored_by: str  # heuristic | llm
    breaking_reason: str = ""
    reasons: list[str] = field(default_factory=list)  # why the importance is what it is
    files: list[str] = field(default_factory=list)  # changed paths, for hot files and clusters
    refs: list[int] = field(default_factory=list)  # PR numbers the title/body mention
    reverts: int | None = None  # the PR number this one reverts, when known
    reviewers: list[str] = field(default_factory=list)
    co_authors: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    note: str = ""  # e.g. why the model's answer was replaced

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoredPR:
        values = dict(data)
        values["risks"] = [Risk(**r) for r in values.get("risks", [])]
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in values.items() if k in known})

    def pr_entry(self) -> PrEntry:
        """This PR as report.json's `prs[]` lists it."""
        return {
            "number": self.number, "title": self.title, "url": self.url, "author": self.author,
            "merged_at": self.merged_at, "modules": self.modules, "type": self.type,
            "breaking": self.breaking, "breaking_reason": self.breaking_reason,
            "importance": self.importance, "insight": self.insight, "key": self.key,
            "summary": self.summary, "key_points": self.key_points,
            "risks": [{"kind": r.kind, "detail": r.detail} for r in self.risks], "additions": self.additions,
            "deletions": self.deletions, "changed_files": self.changed_files,
            "scored_by": self.scored_by, "reasons": self.reasons,
        }
