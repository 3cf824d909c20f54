"""The data that flows through Prhub: pull requests in, scored pull requests out.

`PullRequest.from_export` / `to_export` speak the export format (one merged PR
per JSONL line, a subset of GitHub's REST pull object with `files` embedded).
`ScoredPR` is one entry of report.json's `prs[]` plus the facts the week's
analysis needs (file paths, references, reasons); `to_dict`/`from_dict` are
how it is stored in DynamoDB and cached.
"""
from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field
from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Any

from prhub.core.errors import SourceError
from prhub.core.period import format_timestamp, parse_timestamp
from prhub.core.report import PrEntry, PrReview


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
    body: str = ""
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class Comment:
    """An issue comment, or one comment of a review thread: text by anyone, so untrusted like a PR body."""

    author: str
    body: str
    created_at: datetime | None = None
    url: str = ""


@dataclass(frozen=True)
class ReviewThread:
    """A review thread on a line of the diff. REST has no resolution: `is_resolved` is None there (unknown)."""

    path: str
    comments: tuple[Comment, ...]
    is_resolved: bool | None = None
    is_outdated: bool = False
    line: int | None = None


# GitHub's own caps: a title of 256 characters, a body of 65,536, 3,000 listed files. An export may hold
# anything; past these a value is cut (and the PR's `capped` says so) so one line cannot blow up a report.
MAX_TITLE = 256
MAX_BODY = 65_536
MAX_FILES = 3000


class RecordError(SourceError):
    """An export line that cannot be read: `kind` is missing | shape | unmerged, `field` the field's name."""

    def __init__(self, kind: str, field_name: str) -> None:
        super().__init__({"missing": f"missing field {field_name}", "unmerged": "the PR was not merged"}.get(
            kind, f"field {field_name} has the wrong shape"))
        self.kind = kind
        self.field = field_name


class _Fields:
    """Reads an export row field by field, so an error names the field (and never quotes its value)."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row

    def get(self, name: str, convert: Any, required: bool = False) -> Any:
        if name not in self.row and required:
            raise RecordError("missing", name)
        try:
            return convert(self.row.get(name))
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError):  # AttributeError: "user": "alice"
            raise RecordError("shape", name) from None


def _file_change(f: Any) -> FileChange:
    return FileChange(
        filename=str(f["filename"]),
        status=str(f.get("status", "modified")),
        additions=int(f.get("additions") or 0),
        deletions=int(f.get("deletions") or 0),
        previous_filename=f.get("previous_filename"),
        binary=bool(f.get("binary", False)),
        patch=f.get("patch"),
    )


# The export's fields as PullRequest holds them; each raises on a wrong shape (_Fields names the field).

def _files(value: Any) -> list[FileChange]:
    return [_file_change(f) for f in value or []]


def _text(value: Any) -> str:
    return str(value or "")


NO_AUTHOR = "ghost"  # GitHub's own name for a PR whose author is gone (a deleted account): never a contributor


def _login(user: Any) -> str:
    return str((user or {}).get("login") or NO_AUTHOR)


def _labels(value: Any) -> list[str]:
    return [str(lb["name"]) if isinstance(lb, dict) else str(lb) for lb in value or []]


def _base_ref(base: Any) -> str:
    return str((base or {}).get("ref") or "main")


def _head_sha(head: Any) -> str:
    return str((head or {}).get("sha") or "")


def _when(value: Any) -> datetime | None:
    return parse_timestamp(str(value)) if value else None


def _merger(user: Any) -> str:
    # GitHub's user object, or a bare login; "" when the export does not say
    return str(user.get("login") or "") if isinstance(user, dict) else _text(user)


def _reviews(value: Any) -> list[Review]:
    # The design's shape names the reviewer `author`; exports written before it say `reviewer`.
    return [Review(str(r.get("author") or r.get("reviewer") or NO_AUTHOR), str(r["state"]),
                   _text(r.get("body")), _when(r.get("submitted_at"))) for r in value or []]


def _comment(c: Any) -> Comment:
    return Comment(str(c.get("author") or NO_AUTHOR), _text(c.get("body")), _when(c.get("created_at")),
                   _text(c.get("url")))


def _comments(value: Any) -> list[Comment]:
    return [_comment(c) for c in value or []]


def _threads(value: Any) -> list[ReviewThread]:
    return [ReviewThread(path=str(t.get("path") or ""), comments=tuple(_comments(t.get("comments"))),
                         is_resolved=None if t.get("is_resolved") is None else bool(t["is_resolved"]),
                         is_outdated=bool(t.get("is_outdated", False)),
                         line=None if t.get("line") is None else int(t["line"])) for t in value or []]


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
    created_at: datetime | None = None  # when the PR was opened, for review timing
    review_threads: list[ReviewThread] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)  # the conversation's issue comments
    merged_by: str = ""  # who merged it, when the source says (GitHub's merged_by / mergedBy): self-merges
    capped: list[str] = field(default_factory=list)  # fields cut to GitHub's caps on reading an export

    @property
    def ref(self) -> PullRef:
        return PullRef(self.number, self.title, self.author, self.merged_at, self.url)

    @property
    def has_conversation(self) -> bool:
        """Whether the source read the PR's conversation (an export without it, like the shared data, did not)."""
        return bool(self.created_at or self.reviews or self.review_threads or self.comments)

    @classmethod
    def from_export(cls, row: dict[str, Any]) -> PullRequest:
        """Parse one export line; raises SourceError naming the field that is wrong, never its value (the
        message reaches the public report's notes, and a malformed line may hold anything, a secret included).

        Fields are capped as GitHub caps them (title, body, files); `capped` names what was cut."""
        fields = _Fields(row)
        if row.get("merged") is False:  # the format's PRs are merged ones: a closed one is none of the period's
            raise RecordError("unmerged", "merged")
        files = fields.get("files", _files)
        title = fields.get("title", _text)
        body = fields.get("body", _text)
        capped = [name for name, value, cap in (("title", title, MAX_TITLE), ("body", body, MAX_BODY),
                                                ("files", files, MAX_FILES)) if len(value) > cap]
        return cls(
            number=fields.get("number", int, required=True),
            title=title[:MAX_TITLE],
            body=body[:MAX_BODY],
            author=fields.get("user", _login),
            merged_at=fields.get("merged_at", lambda v: parse_timestamp(str(v)), required=True),
            url=fields.get("html_url", _text),
            labels=fields.get("labels", _labels),
            co_authors=fields.get("co_authors", lambda v: [str(c) for c in v or []]),
            base_ref=fields.get("base", _base_ref),
            head_sha=fields.get("head", _head_sha) or fields.get("merge_commit_sha", _text),
            # Sizes an export leaves out (or gives as 0) are the files' own.
            additions=fields.get("additions", lambda v: int(v or sum(f.additions for f in files))),
            deletions=fields.get("deletions", lambda v: int(v or sum(f.deletions for f in files))),
            changed_files=fields.get("changed_files", lambda v: int(v or len(files))),
            files=files[:MAX_FILES],
            files_truncated=fields.get("files_truncated", bool) or len(files) > MAX_FILES,
            reviews=fields.get("reviews", _reviews),
            commits=fields.get("commits", lambda v: None if v is None else int(v)),
            created_at=fields.get("created_at", _when),
            review_threads=fields.get("review_threads", _threads),
            comments=fields.get("comments", _comments),
            merged_by=fields.get("merged_by", _merger),
            capped=capped,
        )

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
            row["reviews"] = [_review_row(r) for r in self.reviews]
        if self.commits is not None:
            row["commits"] = self.commits
        if self.created_at is not None:
            row["created_at"] = format_timestamp(self.created_at)
        if self.review_threads:
            row["review_threads"] = [{"path": t.path, "line": t.line, "is_resolved": t.is_resolved,
                                      "is_outdated": t.is_outdated, "comments": [_comment_row(c) for c in t.comments]}
                                     for t in self.review_threads]
        if self.comments:
            row["comments"] = [_comment_row(c) for c in self.comments]
        if self.merged_by:
            row["merged_by"] = {"login": self.merged_by}
        return row


def _review_row(r: Review) -> dict[str, Any]:
    row: dict[str, Any] = {"author": r.reviewer, "state": r.state}
    if r.body:
        row["body"] = r.body
    if r.submitted_at is not None:
        row["submitted_at"] = format_timestamp(r.submitted_at)
    return row


def _comment_row(c: Comment) -> dict[str, Any]:
    row: dict[str, Any] = {"author": c.author, "body": c.body}
    if c.created_at is not None:
        row["created_at"] = format_timestamp(c.created_at)
    if c.url:
        row["url"] = c.url
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


# What each stored field of a ScoredPR must be (ScoredPR.checked): JSON's types, bool apart from int.
_NUMBER, _NONE = (int, float), type(None)
_SCORED_TYPES: dict[str, tuple[type, ...]] = {
    "number": (int,), "title": (str,), "url": (str,), "author": (str,), "merged_at": (str,), "modules": (list,),
    "type": (str,), "breaking": (bool,), "importance": _NUMBER, "insight": _NUMBER, "key": (bool,),
    "summary": (str,), "key_points": (list,), "risks": (list,), "additions": (int,), "deletions": (int,),
    "changed_files": (int,), "scored_by": (str,), "breaking_reason": (str,), "reasons": (list,), "files": (list,),
    "file_lines": (list,), "refs": (list,), "reverts": (int, _NONE), "reverts_also": (list,), "reviewers": (list,),
    "co_authors": (list,),
    "tokens_in": (int,), "tokens_out": (int,), "note": (str,), "head_sha": (str,), "review": (dict, _NONE),
    "measured": (str,), "subject_names": (list, _NONE), "released": (str,),
}


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
    # [additions, deletions] of each of `files`, in its order, for the PR page (two small ints a file keep the
    # stored result near its paths' size; [] for results stored before the page showed them)
    file_lines: list[list[int]] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)  # PR numbers the title/body mention
    reverts: int | None = None  # the PR number this one reverts, when known
    # the other PRs its revert undoes, as its description's revert sentence lists them ("This reverts #26163 and its
    # follow-up changes in #26230, #26246"); [] for results stored before it was read
    reverts_also: list[int] = field(default_factory=list)
    reviewers: list[str] = field(default_factory=list)
    co_authors: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    note: str = ""  # e.g. why the model's answer was replaced
    head_sha: str = ""  # the PR head it was scored at: its page is built once per head ("" for older results)
    review: PrReview | None = None  # what its conversation says (engine.reviews); None when the source read none
    # the effect its description measured, in the report's language ("Measured: 2.81× faster"; engine.gist); ""
    # when none, or for results stored before it was kept (a zh summary says it too)
    measured: str = ""
    # the identifiers its title and description's synopsis name (textparse.identifiers), in no report language:
    # what the week's groups join PRs by (engine.clusters); None for results stored before they were kept
    subject_names: list[str] | None = None
    # what it releases, from its title or a changesets release's description ("svelte 5.56.10"; engine.releases);
    # "" when none, or for results stored before it was read (the report reads their titles)
    released: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoredPR:
        values = dict(data)
        values["risks"] = [Risk(**r) for r in values.get("risks", [])]
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in values.items() if k in known})

    @classmethod
    def checked(cls, data: Any) -> ScoredPR:
        """from_dict of a value read back from a store others may have written (the score cache): ValueError
        naming the first field that is missing or of the wrong type, so a damaged entry is never reported."""
        if not isinstance(data, dict):
            raise ValueError(f"not an object but {type(data).__name__}")
        for f in dataclass_fields(cls):
            if f.name not in data:
                if f.default is MISSING and f.default_factory is MISSING:
                    raise ValueError(f"{f.name} is missing")
                continue
            value, kinds = data[f.name], _SCORED_TYPES.get(f.name, (object,))
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds) or (
                    isinstance(value, float) and not math.isfinite(value)):
                raise ValueError(f"{f.name} is not {' or '.join(k.__name__ for k in kinds)}")
        for name in ("modules", "key_points", "reasons", "files", "reviewers", "co_authors", "subject_names"):
            if not all(isinstance(v, str) for v in data.get(name) or []):
                raise ValueError(f"{name} holds a value that is not text")
        if not all(isinstance(r, dict) and isinstance(r.get("kind"), str) and isinstance(r.get("detail"), str)
                   for r in data["risks"]):
            raise ValueError("risks holds one without a kind and a detail")
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from exc

    def pr_entry(self) -> PrEntry:
        """This PR as report.json's `prs[]` lists it (with the model tokens it spent in this run, when any)."""
        entry: PrEntry = {
            "number": self.number, "title": self.title, "url": self.url, "author": self.author,
            "merged_at": self.merged_at, "modules": self.modules, "type": self.type,
            "breaking": self.breaking, "breaking_reason": self.breaking_reason,
            "importance": self.importance, "insight": self.insight, "key": self.key,
            "summary": self.summary, "key_points": self.key_points,
            "risks": [{"kind": r.kind, "detail": r.detail} for r in self.risks], "additions": self.additions,
            "deletions": self.deletions, "changed_files": self.changed_files,
            "scored_by": self.scored_by, "reasons": self.reasons,
        }
        if self.tokens_in or self.tokens_out:
            entry["tokens_in"], entry["tokens_out"] = self.tokens_in, self.tokens_out
        if self.review is not None:
            entry["reviewers"] = list(dict.fromkeys(r["login"] for r in self.review["reviews"]))
            entry["review"] = self.review
        return entry
