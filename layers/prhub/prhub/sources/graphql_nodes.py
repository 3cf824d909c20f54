"""What the GraphQL source asks of GitHub's schema and how it reads what comes back: a PR's fields and the first
pages of its conversation (sized to what a listing page can pay), the nodes read into the models REST's rows make
(`pull_request`), and a search range cut into slices below the search cap (`cut_slice`)."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from prhub.core.models import Comment, FileChange, PullRequest, Review, ReviewThread
from prhub.core.period import format_timestamp, parse_timestamp
from prhub.sources.github import FILES_CAP, SEARCH_CAP, co_authors_from

log = logging.getLogger(__name__)

PAGE = 100  # GitHub's maximum for `first`
STATUS = {"ADDED": "added", "DELETED": "removed", "MODIFIED": "modified", "RENAMED": "renamed",
          "COPIED": "copied", "CHANGED": "changed"}  # PatchStatus -> the REST names

ACTOR = "login __typename"
PAGE_INFO = "pageInfo { hasNextPage endCursor }"
FILES = f"totalCount {PAGE_INFO} nodes {{ path additions deletions changeType }}"
REVIEWS = f"totalCount {PAGE_INFO} nodes {{ state body submittedAt author {{ {ACTOR} }} }}"
COMMENTS = f"{PAGE_INFO} nodes {{ author {{ {ACTOR} }} body createdAt url }}"
# The listing's first page of the conversation. Nested connections multiply GitHub's price: each of a page's 100
# PRs may have THREADS threads of REPLIES comments, so the page costs 1 + 6 x 100 + 100 x THREADS requests / 100
# = 26 points (docs/github.md); a PR or thread with more gets its further pages in a follow-up query.
THREADS, REPLIES, ISSUE_COMMENTS = 20, 10, 30
# A slice's last page, whose length the earlier pages' `issueCount` tells, asks only the PRs left and spends what the
# page would have cost on larger conversation pages (the largest of these within both the nodes and the points of a
# page of the page size), so a busy PR there needs no follow-up query: (threads, replies per thread, issue comments).
CONVERSATION_SIZES = ((THREADS, REPLIES, ISSUE_COMMENTS), (30, 10, 50), (50, 20, 60), (100, 20, 100), (100, 50, 100),
                      (100, 100, 100))


def _thread_fields(replies: int) -> str:
    return f"id isResolved isOutdated path line originalLine comments(first: {replies}) {{ {COMMENTS} }}"


def pull_fields(threads: int = THREADS, replies: int = REPLIES, comments: int = ISSUE_COMMENTS) -> str:
    return f"""number title body url createdAt mergedAt baseRefName headRefOid additions deletions changedFiles
      author {{ {ACTOR} }} mergedBy {{ {ACTOR} }}
      mergeCommit {{ oid message }}
      labels(first: 100) {{ nodes {{ name }} }}
      commits(first: 1) {{ totalCount }}
      reviews(first: 100) {{ {REVIEWS} }}
      files(first: 100) {{ {FILES} }}
      reviewThreads(first: {threads}) {{ {PAGE_INFO} nodes {{ {_thread_fields(replies)} }} }}
      comments(first: {comments}) {{ {COMMENTS} }}"""


def _pull_nodes(threads: int, replies: int, comments: int) -> int:
    """Nodes one PR of a listing page asks: itself, labels, commits, reviews, files, threads, replies, comments."""
    return 1 + 100 + 1 + 100 + 100 + threads + threads * replies + comments


def conversation_sizes(first: int, page: int) -> tuple[int, int, int]:
    """The conversation's first pages for a listing page of `first` PRs where the page size is `page`: the standard
    ones, or larger ones when fewer PRs are left than a page holds, within that page's nodes and points (each PR's
    labels, commits, reviews, files, threads and comments connections, and its threads' replies: 6 + threads)."""
    nodes, points = page * _pull_nodes(THREADS, REPLIES, ISSUE_COMMENTS), page * (6 + THREADS)
    fits = [size for size in CONVERSATION_SIZES
            if first * _pull_nodes(*size) <= nodes and first * (6 + size[0]) <= points]
    return fits[-1] if fits else CONVERSATION_SIZES[0]


THREADS_PAGE = f"{PAGE_INFO} nodes {{ {_thread_fields(REPLIES)} }}"
PULL = pull_fields()
RATE = "rateLimit { cost remaining resetAt limit }"


def login_of(actor: Any) -> str:
    """A login as REST spells it: bots carry `[bot]` there, and a deleted account is "ghost"."""
    if not isinstance(actor, dict) or not actor.get("login"):
        return "ghost"
    login = str(actor["login"])
    return f"{login}[bot]" if actor.get("__typename") == "Bot" and not login.endswith("[bot]") else login


def connection_nodes(node: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The objects among a connection field's nodes (an absent or null connection has none)."""
    return [n for n in (node.get(field) or {}).get("nodes") or [] if isinstance(n, dict)]


def moment(value: Any) -> datetime | None:
    return parse_timestamp(str(value)) if value else None


def _comment(c: dict[str, Any]) -> Comment:
    """An issue comment or a review comment; its author spelled as contributors are (bots with "[bot]")."""
    return Comment(login_of(c.get("author")), str(c.get("body") or ""), moment(c.get("createdAt")),
                   str(c.get("url") or ""))


def _thread(t: dict[str, Any]) -> ReviewThread:
    """A review thread; an outdated one has lost its `line` to newer commits: where it was first is kept."""
    line = t.get("line") if t.get("line") is not None else t.get("originalLine")
    return ReviewThread(path=str(t.get("path") or ""),
                        comments=tuple(_comment(c) for c in connection_nodes(t, "comments")),
                        is_resolved=bool(t.get("isResolved")), is_outdated=bool(t.get("isOutdated")),
                        line=None if line is None else int(line))


def labels_of(node: dict[str, Any]) -> list[str]:
    return [str(lb["name"]) for lb in connection_nodes(node, "labels")]


def _file_change(f: dict[str, Any]) -> FileChange:
    """A `files` node as REST's /files row reads: PatchStatus by its REST name; hunks and old paths come from
    the diff."""
    return FileChange(filename=str(f["path"]), status=STATUS.get(str(f.get("changeType")), "modified"),
                      additions=int(f.get("additions") or 0), deletions=int(f.get("deletions") or 0))


def pull_request(node: dict[str, Any], co_authors: bool = True) -> PullRequest:
    """A PR node of a listing (or of one PR's query) as the REST source reads the PR: files up to FILES_CAP, pending
    reviews left out, co-authors from the merge commit's trailers when `co_authors`."""
    files = [_file_change(f) for f in connection_nodes(node, "files")][:FILES_CAP]
    commit = node.get("mergeCommit") or {}
    changed = int(node.get("changedFiles") or len(files))
    return PullRequest(
        number=int(node["number"]), title=str(node.get("title") or ""), body=str(node.get("body") or ""),
        author=login_of(node.get("author")), merged_at=parse_timestamp(str(node["mergedAt"])),
        url=str(node.get("url") or ""), labels=labels_of(node),
        co_authors=co_authors_from(str(commit.get("message") or "")) if co_authors else [],
        base_ref=str(node.get("baseRefName") or "main"),
        head_sha=str(node.get("headRefOid") or commit.get("oid") or ""),
        additions=int(node.get("additions") or 0), deletions=int(node.get("deletions") or 0),
        changed_files=changed, files=files, files_truncated=changed > len(files),
        # Pending reviews are drafts nobody else sees yet.
        reviews=[Review(login_of(r.get("author")), str(r.get("state")), str(r.get("body") or ""),
                        moment(r.get("submittedAt"))) for r in connection_nodes(node, "reviews")
                 if r.get("state") != "PENDING"],
        commits=(node.get("commits") or {}).get("totalCount"),
        created_at=moment(node.get("createdAt")),
        review_threads=[_thread(t) for t in connection_nodes(node, "reviewThreads")],
        comments=[_comment(c) for c in connection_nodes(node, "comments")],
        # null (a deleted account) or absent: the source does not say, and no self-merge is claimed
        merged_by=login_of(node["mergedBy"]) if node.get("mergedBy") else "",
    )


def cut_slice(start: datetime, stop: datetime, total: int, at_least: int = 1) -> list[list[str]] | None:
    """A slice's first page says `total`: past the search cap, the slices it is cut into, `at_least` of them (None:
    it is listed)."""
    if total > SEARCH_CAP and stop > start:
        parts = max(-(-total // (SEARCH_CAP * 4 // 5)), at_least)  # aim at 80% of the cap: merges are not uniform
        log.info("search %s..%s has %d results: %d slices", start, stop, total, parts)
        return split_slice(start, stop, parts)
    if total > SEARCH_CAP:
        log.warning("%d PRs merged within one second at %s: only %d can be listed", total, start, SEARCH_CAP)
    return None


def split_slice(start: datetime, stop: datetime, parts: int) -> list[list[str]]:
    """[start, stop] (whole seconds, inclusive) in `parts` adjacent, non-overlapping slices."""
    seconds = int((stop - start).total_seconds())
    parts = max(2, min(parts, seconds + 1))
    bounds = [start + timedelta(seconds=seconds * k // parts) for k in range(parts + 1)]
    slices = []
    for k in range(parts):
        low = bounds[k] if k == 0 else bounds[k] + timedelta(seconds=1)
        high = bounds[k + 1]
        if low <= high:
            slices.append([format_timestamp(low), format_timestamp(high)])
    return slices

