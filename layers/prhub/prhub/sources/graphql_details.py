"""A listed PR's details through GraphQL (`Details`): served from what the listing kept (`Listed`), so `get`
usually needs only the PR's diff: one REST request with `Accept: application/vnd.github.diff`, or `/files` when
GitHub answers 406 (over 300 files or 20,000 lines). The diff's part (hunks, old paths) is stored under the PR's
head commit, so a re-run of the same range sends no detail request at all. A PR no listing left (another process
listed it, its payload expired) is loaded alone, with one query and its further pages.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from prhub.core.errors import SourceError
from prhub.core.models import FileChange, PullRef, PullRequest
from prhub.engine.changes import is_generated
from prhub.sources.diffs import FileDiff, hunks_complete, split_diff
from prhub.sources.github import GitHubSource
from prhub.sources.graphql_nodes import PULL, RATE, pull_request
from prhub.sources.graphql_pages import more_pages
from prhub.sources.graphql_query import Ask
from prhub.sources.http import CachedResponse, EtagCache, GitHubClient, answered, message

log = logging.getLogger(__name__)

DIFF_MEDIA_TYPE = "application/vnd.github.diff"
DIFF_MAX_FILES = 300  # beyond these GitHub answers the diff media type with 406 "too_large"
DIFF_MAX_LINES = 20_000
MAX_KEPT = 20_000  # listed PRs kept in memory for get(); a long-lived worker must not grow without bound

ONE_QUERY = f"""query($owner: String!, $name: String!, $number: Int!) {{
  {RATE}
  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{ {PULL} }} }}
}}"""


def needs_diff(pr: PullRequest) -> bool:
    """Whether the engine reads this PR's diff text: TODOs, version pins, API breaks and prompts read added
    and removed lines of any file but generated ones, and a rename's old path is only in the diff."""
    return any(f.status in ("renamed", "copied") or (f.changes > 0 and not is_generated(f.filename))
               for f in pr.files)


def _payload_key(repo: str, number: int) -> str:
    return f"graphql:pr:{repo}#{number}"


def _diff_key(repo: str, number: int, head_sha: str) -> str:
    return f"graphql:diff:{repo}#{number}@{head_sha}"


class Listed:
    """The PRs a listing read, kept for `get`: in this process (MAX_KEPT at most), and in `payloads`, the store every
    worker shares (the ETag cache by default, the stack's CacheTable: a worker sees what the planner listed)."""

    def __init__(self, payloads: EtagCache) -> None:
        self.payloads = payloads
        self._kept: dict[tuple[str, int], PullRequest] = {}

    def keep(self, repo: str, prs: Iterable[PullRequest]) -> list[PullRef]:
        """Keep each PR, here and in the payload store; their refs."""
        if len(self._kept) > MAX_KEPT:
            self._kept.clear()
        refs = []
        for pr in prs:
            self._kept[(repo, pr.number)] = pr
            self.payloads.put(_payload_key(repo, pr.number), CachedResponse(pr.head_sha, pr.to_export()))
            refs.append(pr.ref)
        return refs

    def here(self, repo: str, number: int) -> PullRequest | None:
        """The PR as this process listed it."""
        return self._kept.get((repo, number))

    def stored(self, repo: str, number: int) -> PullRequest | None:
        """The PR as this process or another listed it."""
        pr = self.here(repo, number)
        if pr is None:
            stored = self.payloads.get(_payload_key(repo, number))
            pr = PullRequest.from_export(stored.body) if stored else None
        return pr


class Details:
    """A PR's details: what the listing kept (`listed`), loaded alone through GraphQL (`ask`) when it kept none, and
    its diff text through REST (`http`; `rest`'s /files where GitHub will not render the diff)."""

    def __init__(self, http: GitHubClient, rest: GitHubSource, listed: Listed, ask: Ask, co_authors: bool = True
                 ) -> None:
        self.http, self.rest, self.listed, self.ask, self.co_authors = http, rest, listed, ask, co_authors

    def payload(self, repo: str, number: int) -> dict[str, Any] | None:
        """A PR this process listed in the export format (everything but diff text): what a score message can
        carry."""
        pr = self.listed.here(repo, number)
        return pr.to_export() if pr else None

    def head(self, repo: str, number: int) -> str:
        """The head of a PR this process listed ("" for one it did not)."""
        pr = self.listed.here(repo, number)
        return pr.head_sha if pr is not None else ""

    def pull(self, repo: str, number: int) -> PullRequest:
        """The PR without its diff text: as listed, or loaded alone."""
        pr = self.listed.stored(repo, number)
        return pr if pr is not None else self._load_one(repo, number)

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """From the listing's own nodes (files up to FILES_CAP); no diff is fetched."""
        pr = self.pull(repo, ref.number)
        return [name for f in pr.files for name in (f.filename, f.previous_filename) if name]

    def with_diff(self, repo: str, pr: PullRequest) -> PullRequest:
        """The PR with its diff's hunks and old paths, where the engine reads them (needs_diff)."""
        if not needs_diff(pr):
            return pr
        # A merged PR's diff at its head commit never changes: kept without revalidation. Only the diff's part
        # is kept (hunks, old paths): titles, labels and reviews come fresh from each listing.
        payloads = self.listed.payloads
        key = _diff_key(repo, pr.number, pr.head_sha)
        kept = payloads.get(key) if pr.head_sha else None
        if kept is not None:
            rows = {path: (patch, previous, bool(binary)) for path, (patch, previous, binary) in kept.body.items()}
        else:
            rows = self._diff_rows(repo, pr)
            if pr.head_sha:
                payloads.put(key, CachedResponse(pr.head_sha, {path: list(row) for path, row in rows.items()}))
        files = []
        for f in pr.files:
            patch, previous, binary = rows.get(f.filename, (None, None, False))
            files.append(FileChange(f.filename, f.status, f.additions, f.deletions,
                                    previous or f.previous_filename, binary or f.binary, patch))
        return PullRequest(**{**pr.__dict__, "files": files})

    def _load_one(self, repo: str, number: int) -> PullRequest:
        """A PR the listing did not leave here (another process listed it, its payload expired)."""
        owner, name = repo.split("/", 1)
        data = self.ask(ONE_QUERY, {"owner": owner, "name": name, "number": number})
        node = (data.get("repository") or {}).get("pullRequest")
        if not isinstance(node, dict):
            raise SourceError(f"PR #{number} of {repo} not found")
        if not node.get("mergedAt"):
            raise SourceError(f"PR #{number} of {repo} is not merged")
        more_pages(self.ask, repo, [node])
        return pull_request(node, self.co_authors)

    def _diff_rows(self, repo: str, pr: PullRequest) -> dict[str, tuple[str | None, str | None, bool]]:
        """path -> (hunks, old path, binary) from the PR's diff, or from /files when the diff is too large for
        GitHub to render."""
        if pr.changed_files <= DIFF_MAX_FILES and pr.additions + pr.deletions <= DIFF_MAX_LINES:
            diff = self._diff(repo, pr)
            if diff is not None:
                return {d.path: (d.patch, d.previous_path, d.binary) for d in diff}
        self.http.stats["files_fallback"] += 1
        return {str(row["filename"]): (row.get("patch"), row.get("previous_filename"), False)
                for row in self.rest.pages(f"repos/{repo}/pulls/{pr.number}/files", {"per_page": 100})}

    def _diff(self, repo: str, pr: PullRequest) -> list[FileDiff] | None:
        """The PR's whole diff by file, or None when GitHub will not render it (406 too_large).

        A diff that lacks a listed file or ends inside a hunk was cut off in transit: asked again."""
        url = self.http.url(f"repos/{repo}/pulls/{pr.number}")
        listed = {f.filename for f in pr.files}
        for attempt in range(self.http.max_tries):
            response = self.http.send("GET", url, answered, headers=self.http.headers(DIFF_MEDIA_TYPE), tally="rest")
            self.http.stats["diffs"] += 1
            if response.status_code == 406:
                log.info("diff of #%d too large for GitHub (%s): reading /files", pr.number, message(response))
                return None
            if response.status_code == 404:
                raise SourceError(f"PR #{pr.number} of {repo} not found")
            if response.status_code != 200:
                raise SourceError(f"GitHub answered {response.status_code} for the diff of #{pr.number}: "
                                  f"{message(response)}")
            files = split_diff(response.content.decode("utf-8", errors="replace"))
            # A cut answer ends early: the files after the cut are missing, the last one may end mid-hunk.
            if listed <= {d.path for d in files} and (not files or hunks_complete(files[-1].patch)):
                return files
            self.http.stats["cut_diffs"] += 1
            if attempt + 1 < self.http.max_tries:
                self.http.wait(self.http.backoff(attempt), "diff cut off")
        log.warning("the diff of #%d kept arriving incomplete: reading /files", pr.number)
        return None
