"""GitHub's REST API as a Source: list merged PRs with the search API, load each PR's details and its review
conversation (reviews; review comments grouped into threads, whose resolution REST does not say; issue comments,
asked only of PRs whose pull object counts some).

Its requests go through the shared client (prhub.sources.http.GitHubClient), which spends GitHub's budget
economically and never loses a PR to a rate limit or a flaky answer: conditional requests against the ETag
cache, so a re-run of the same range costs 304s; the primary and secondary rate limits waited for (or
handed back as RetryLater past the caller's deadline); 5xx, connection errors, timeouts and cut-off JSON
retried with backoff, a bounded number of times, then SourceError. A missing repository (404) or a bad token
(401) is a SourceError at plan time.
"""
from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import IO, Any
from urllib.parse import quote

from prhub.cloud import secrets, tracing
from prhub.core.errors import SourceError
from prhub.core.history import COMPARISONS, History, Tagger, history_entry
from prhub.core.models import Comment, FileChange, PullRef, PullRequest, Review, ReviewThread
from prhub.core.period import Period, parse_timestamp, zone
from prhub.sources.http import GitHubClient, NotFound, OnClient, RateLimit, options_from_env, parse_link
from prhub.sources.source import ListPage

log = logging.getLogger(__name__)

RAW_MEDIA_TYPE = "application/vnd.github.raw+json"  # the contents API's raw file, not its base64 JSON
SEARCH_CAP = 1000  # the search API never returns more than this many results for one query
PER_PAGE = 100
FILES_CAP = 3000  # GitHub lists at most this many files of one PR
CO_AUTHOR = re.compile(r"^co-authored-by:\s*(.+?)\s*<([^>]*)>\s*$", re.IGNORECASE | re.MULTILINE)
LOGIN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38})(?:\[bot\])?$")
NOREPLY = re.compile(r"^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$", re.IGNORECASE)


class GitHubSource(OnClient):
    """The GitHub REST API as a prhub Source, over `http` (a GitHubClient; made from `token`, `api_url` and
    the client's `options` when not given).

    `deadline` is the client's (see GitHubClient): a long-lived source follows each invocation's deadline
    through prhub.sources.source.TimedSource instead. `from_env` reads the endpoint and token as the CLI and
    the stack name them.
    """

    def __init__(self, token: str | None = None, api_url: str | None = None, *, co_authors: bool = True,
                 http: GitHubClient | None = None, **options: Any) -> None:
        self.http = http if http is not None else GitHubClient(token, api_url, **options)
        self.co_authors = co_authors  # one more request per PR: the merge commit's Co-authored-by trailers
        self._checked: set[str] = set()  # repositories known to exist: checked once per source, not per listing

    @classmethod
    def from_env(cls, env: Mapping[str, str], reader: secrets.Secrets | None = None, **options: Any) -> GitHubSource:
        """A source on GITHUB_API_URL with GITHUB_TOKEN (or the GITHUB_TOKEN_SECRET secret); see options_from_env."""
        return cls(**{**options_from_env(env, reader), **options})

    @property
    def rate(self) -> RateLimit | None:
        return self.http.rate

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        return self.http.url(path, params)

    def pages(self, path: str, params: dict[str, Any]) -> list[Any]:
        """Every page of a list endpoint, followed through the Link header, concatenated."""
        items: list[Any] = []
        url: str | None = self.url(path, params)
        while url:
            body, link = self.http.get_json(url)
            if not isinstance(body, list):
                raise SourceError(f"GitHub answered {url} with {type(body).__name__}, expected a list")
            items.extend(body)
            url = parse_link(link).get("next")
        return items

    # --- Source -------------------------------------------------------------------------------

    def check_repo(self, repo: str) -> None:
        """Fail early and clearly when the repository is missing or the token is bad."""
        if repo in self._checked:
            return
        try:
            self.http.get_json(self.url(f"repos/{repo}"))
        except NotFound as exc:
            raise SourceError(f"repository {repo} not found at {self.api_url} (or the token cannot see it)") from exc
        self._checked.add(repo)

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        """GitHub answers or fails (an unknown repository is a SourceError at listing): nothing to note."""
        return []

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        """REST's listing, as one page (its search pages are not resumable)."""
        yield ListPage(self.list_merged(repo, period), None)

    def warnings(self, repo: str, period: Period) -> list[str]:
        """Nothing to warn about either."""
        return []

    @tracing.traced("github history")
    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The comparison periods' PRs from the same search listing (modules from their titles: a listing has no
        files), and per author one search for a merge before the period (`total_count` says whether any)."""
        earlier = [history_entry(ref, []) for p in period.previous(COMPARISONS) for ref in self.list_merged(repo, p)]
        first: dict[str, str] = {}
        before = period.start_utc - timedelta(seconds=1)
        for login in sorted({a.lower() for a in authors}):
            if not LOGIN.match(login):
                first[login] = ""  # a display name, not a login: GitHub cannot be asked, so never called new
                continue
            query = f"repo:{repo} is:pr is:merged author:{login} merged:<={before.isoformat()}"
            body, _ = self._search_page(self.url("search/issues", {"q": query, "per_page": 1, "sort": "created",
                                                                   "order": "asc"}))
            if int(body.get("total_count") or 0):
                items = body.get("items") or [{}]
                first[login] = str((items[0].get("pull_request") or {}).get("merged_at") or "")
        return History(earlier, first)

    @tracing.traced("github record")
    def read_file(self, repo: str, path: str) -> str | None:
        """The file's text on the default branch: the contents API with the raw media type (GitHub serves files up
        to 100 MB so); None when the repository has no such file."""
        self.check_repo(repo)
        try:
            return self.http.get_text(self.url(f"repos/{repo}/contents/{quote(path)}"), RAW_MEDIA_TYPE)
        except NotFound:
            return None

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The span's PRs from the search listing (split at the search cap), tagged from their titles: a listing
        has no files. GitHub sees the whole repository: no reach."""
        refs = self.list_merged(repo, span)
        return History([history_entry(ref, tag(PullRequest(number=ref.number, title=ref.title, body="",
                                                           author=ref.author, merged_at=ref.merged_at, url=ref.url)))
                        for ref in refs], {})

    @tracing.traced("github list_merged")
    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        self.check_repo(repo)
        found: dict[int, dict[str, Any]] = {}
        end = period.end_utc - timedelta(seconds=1)  # search ranges are inclusive at both ends
        self._search(repo, period, period.start_utc, end, found)
        refs = []
        for number, item in found.items():
            merged_at = (item.get("pull_request") or {}).get("merged_at")
            if not merged_at:  # older GitHub versions lack it in search items
                pull, _ = self.http.get_json(self.url(f"repos/{repo}/pulls/{number}"))
                merged_at = pull.get("merged_at")
            if not merged_at:
                continue
            moment = parse_timestamp(str(merged_at))
            if period.contains(moment):
                refs.append(PullRef(number, str(item.get("title") or ""), _login(item.get("user")), moment,
                                    str(item.get("html_url") or "")))
        return sorted(refs, key=lambda r: (r.merged_at, r.number))

    def _search(self, repo: str, period: Period, start: datetime, end: datetime,
                found: dict[int, dict[str, Any]]) -> None:
        """List [start, end] (whole seconds, inclusive); split the range while it exceeds the search cap."""
        tz = zone(period.tz)
        merged = f"{start.astimezone(tz).isoformat()}..{end.astimezone(tz).isoformat()}"
        query = f"repo:{repo} is:pr is:merged merged:{merged}"
        params = {"q": query, "per_page": PER_PAGE, "sort": "created", "order": "asc"}
        first = self._search_page(self.url("search/issues", params))
        total = int(first[0].get("total_count") or 0)
        if total > SEARCH_CAP and end > start:
            middle = start + timedelta(seconds=(end - start).total_seconds() // 2)
            log.info("search for %s..%s has %d results: splitting at %s", start, end, total, middle)
            self._search(repo, period, start, middle, found)
            self._search(repo, period, middle + timedelta(seconds=1), end, found)
            return
        if total > SEARCH_CAP:
            log.warning("%d PRs merged within one second at %s: only %d can be listed", total, start, SEARCH_CAP)
        body, link = first
        while True:
            for item in body.get("items") or []:
                if "pull_request" in item:
                    found[int(item["number"])] = item
            next_url = parse_link(link).get("next")
            if not next_url:
                return
            body, link = self._search_page(next_url)

    def _search_page(self, url: str) -> tuple[dict[str, Any], str]:
        """One search page; an answer GitHub marks incomplete (its search timed out) is asked again."""
        for attempt in range(self.http.max_tries):
            body, link = self.http.get_json(url, conditional=attempt == 0)
            if not isinstance(body, dict):
                raise SourceError(f"GitHub answered {url} with {type(body).__name__}, expected an object")
            if not body.get("incomplete_results"):
                return body, link
            self.stats["incomplete_results"] += 1
            if attempt + 1 < self.http.max_tries:
                self.http.wait(self.http.backoff(attempt), "search incomplete")
        log.warning("GitHub search stayed incomplete for %s; some PRs may be missing", url)
        return body, link

    @tracing.traced("github get")
    def get(self, repo: str, ref: PullRef) -> PullRequest:
        pull, _ = self.http.get_json(self.url(f"repos/{repo}/pulls/{ref.number}"))
        if not isinstance(pull, dict):
            raise SourceError(f"GitHub answered pull #{ref.number} of {repo} with {type(pull).__name__}")
        if not pull.get("merged_at"):
            raise SourceError(f"PR #{ref.number} of {repo} is not merged")
        files = [_file_change(f) for f in self.pages(f"repos/{repo}/pulls/{ref.number}/files", {"per_page": PER_PAGE})]
        # Pending reviews are drafts nobody else sees yet.
        reviews = [Review(_login(r.get("user")), str(r.get("state")), str(r.get("body") or ""),
                          _moment(r.get("submitted_at")))
                   for r in self.pages(f"repos/{repo}/pulls/{ref.number}/reviews", {"per_page": PER_PAGE})
                   if r.get("state") != "PENDING"]
        merge_sha = str(pull.get("merge_commit_sha") or "")
        co_authors = self._co_authors(repo, merge_sha) if self.co_authors and merge_sha else []
        pr = _pull_request(pull, ref, files, reviews, co_authors)
        pr.review_threads = threads_of(self._counted(pull, "review_comments", f"repos/{repo}/pulls/{ref.number}"))
        pr.comments = [_comment(c) for c in self._counted(pull, "comments", f"repos/{repo}/issues/{ref.number}")]
        return pr

    def _counted(self, pull: dict[str, Any], count: str, path: str) -> list[Any]:
        """Every page of `path`/comments, or none when the pull object counts none (no request: most PRs have no
        review comments, many no issue comments)."""
        if pull.get(count) == 0:
            return []
        return self.pages(f"{path}/comments", {"per_page": PER_PAGE})

    def listed_head(self, repo: str, number: int) -> str:
        return ""  # the REST listing's refs are not kept: the score worker loads the PR

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """The PR's files from /files alone (a page per 100 files, revalidated by ETag), not its whole detail."""
        rows = self.pages(f"repos/{repo}/pulls/{ref.number}/files", {"per_page": PER_PAGE})
        return [str(name) for f in rows for name in (f.get("filename"), f.get("previous_filename")) if name]

    def _co_authors(self, repo: str, sha: str) -> list[str]:
        """Co-authors named by the merge commit's trailers (a squash merge collects them there)."""
        try:
            commit, _ = self.http.get_json(self.url(f"repos/{repo}/git/commits/{sha}"))
        except NotFound:  # a merge commit can vanish (force-push); the PR is still worth reporting
            return []
        return co_authors_from(str(commit.get("message") or "") if isinstance(commit, dict) else "")


def co_authors_from(message: str) -> list[str]:
    """`Co-authored-by: Name <email>` trailers -> the GitHub login when the email is GitHub's noreply, else the name."""
    names: list[str] = []
    for name, email in CO_AUTHOR.findall(message):
        login = NOREPLY.match(email.strip())
        who = login.group(1) if login else name.strip()
        if who and who not in names:
            names.append(who)
    return names


def _login(user: Any) -> str:
    """A user object's login. A deleted account shows up as null; GitHub's own name for it is "ghost". An
    account of `"type": "Bot"` is spelled with the "[bot]" suffix (GitHub Apps' logins carry it already), so
    the report counts it apart from people, as GraphQL's `__typename: Bot` is."""
    if not isinstance(user, dict):
        return "ghost"
    login = str(user.get("login") or "ghost")
    return f"{login}[bot]" if user.get("type") == "Bot" and not login.endswith("[bot]") else login


def _moment(value: Any) -> datetime | None:
    return parse_timestamp(str(value)) if value else None


def _comment(row: dict[str, Any]) -> Comment:
    """An issue or review comment; its author spelled as contributors are (bots with "[bot]")."""
    return Comment(_login(row.get("user")), str(row.get("body") or ""), _moment(row.get("created_at")),
                   str(row.get("html_url") or ""))


def threads_of(rows: list[dict[str, Any]]) -> list[ReviewThread]:
    """REST's review comments as threads, in the order they were started: a reply's `in_reply_to_id` names the
    comment it answers (GitHub takes replies to a thread's first comment; a chain is followed to its root all the
    same). REST says nothing of resolution: `is_resolved` is None (unknown). A comment whose line newer commits
    removed has no `line` any more, only its `original_line`: the thread is outdated."""
    by_id = {int(r["id"]): r for r in rows if r.get("id") is not None}

    def root(row: dict[str, Any]) -> int:
        seen: set[int] = set()
        while row.get("in_reply_to_id") is not None and int(row["in_reply_to_id"]) not in seen:
            seen.add(int(row["in_reply_to_id"]))
            parent = by_id.get(int(row["in_reply_to_id"]))
            if parent is None:  # the answered comment is gone: its id still names the thread
                return int(row["in_reply_to_id"])
            row = parent
        return int(row.get("id") or 0)

    groups: dict[int, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: int(r.get("id") or 0)):
        groups.setdefault(root(row), []).append(row)
    threads = []
    for first, *rest in groups.values():
        line = first.get("line") if first.get("line") is not None else first.get("original_line")
        threads.append(ReviewThread(path=str(first.get("path") or ""),
                                    comments=tuple(_comment(c) for c in (first, *rest)), is_resolved=None,
                                    is_outdated=first.get("line") is None and first.get("original_line") is not None,
                                    line=None if line is None else int(line)))
    return threads


def _file_change(row: dict[str, Any]) -> FileChange:
    """A /files row as the report's FileChange."""
    return FileChange(filename=str(row["filename"]), status=str(row.get("status") or "modified"),
                      additions=int(row.get("additions") or 0), deletions=int(row.get("deletions") or 0),
                      previous_filename=row.get("previous_filename"), patch=row.get("patch"))


def _pull_request(pull: dict[str, Any], ref: PullRef, files: list[FileChange], reviews: list[Review],
                  co_authors: list[str]) -> PullRequest:
    """A REST pull object, with its files, reviews and co-authors read apart, as the report's PullRequest."""
    changed_files = int(pull.get("changed_files") or len(files))
    return PullRequest(
        number=int(pull["number"]),
        title=str(pull.get("title") or ""),
        body=str(pull.get("body") or ""),
        author=_login(pull.get("user")),
        merged_at=parse_timestamp(str(pull["merged_at"])),
        url=str(pull.get("html_url") or ref.url),
        labels=[str(lb.get("name")) for lb in pull.get("labels") or [] if isinstance(lb, dict)],
        co_authors=co_authors,
        base_ref=str((pull.get("base") or {}).get("ref") or "main"),
        head_sha=str((pull.get("head") or {}).get("sha") or pull.get("merge_commit_sha") or ""),
        additions=int(pull.get("additions") or 0),
        deletions=int(pull.get("deletions") or 0),
        changed_files=changed_files,
        files=files,
        files_truncated=changed_files > len(files),
        reviews=reviews,
        commits=int(pull["commits"]) if pull.get("commits") is not None else None,
        created_at=_moment(pull.get("created_at")),
        # null (a deleted account) or absent: the source does not say, and no self-merge is claimed
        merged_by=_login(pull["merged_by"]) if isinstance(pull.get("merged_by"), dict) else "",
    )


def export(repo: str, period: Period, out: IO[str], source: Any) -> int:
    """Write the export format (one PR per line, by merge time) for `period`; returns the number of PRs."""
    count = 0
    for ref in source.list_merged(repo, period):
        out.write(json.dumps(source.get(repo, ref).to_export(), ensure_ascii=False) + "\n")
        count += 1
    return count
