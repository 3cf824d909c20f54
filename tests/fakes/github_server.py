"""A fake GitHub REST API on 127.0.0.1, serving the PRs of an export file with GitHub's response shapes.

Serves GET /repos/O/N, /search/issues (repo:, is:pr, is:merged, author:, merged:A..B or <=X; capped at
1,000 results like GitHub, 422 beyond), /repos/O/N/pulls/N and its /files and /reviews,
/repos/O/N/git/commits/SHA (the squash commit, with Co-authored-by trailers),
with Link pagination, X-RateLimit-* headers (a real budget, spent by every non-304
answer), ETags and 304s. Faults are queued per test (`inject`) and matched by path
pattern; every answer is counted by kind, 304s separately.

    with FakeGitHub(pulls, repo="o/r") as gh:
        gh.inject("502", path="/files", times=2)
        source = GitHubSource(api_url=gh.url, ...)
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from prhub.models import PullRequest
from prhub.period import format_timestamp, parse_timestamp

from tests.fakes.loopback import LoopbackServer

FAULTS = ("401", "404", "403-retry-after", "429", "502", "slow", "cut", "cut-connection", "exhausted", "incomplete")


@dataclass
class Fault:
    kind: str  # one of FAULTS
    path: re.Pattern[str]
    times: int = 1
    retry_after: int = 2  # seconds, for 403-retry-after and 429
    reset_in: int = 30  # seconds until the primary limit resets, for exhausted
    delay: float = 1.0  # seconds, for slow


def load_export(path: str | Path) -> list[PullRequest]:
    with open(path, encoding="utf-8") as handle:
        return [PullRequest.from_export(json.loads(line)) for line in handle if line.strip()]


class FakeGitHub(LoopbackServer):
    """The fake server. Start with `with FakeGitHub(...) as gh` or start()/stop(); its base URL is `gh.url`."""

    def __init__(
        self,
        pulls: Iterable[PullRequest],
        repo: str = "verl-project/verl",
        *,
        token: str | None = None,
        rate_limit: int = 5000,
        search_cap: int = 1000,
        prefix: str = "",
        search_merged_at: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.repo = repo
        self.prefix = prefix.rstrip("/")  # GitHub Enterprise serves the API under /api/v3
        self.search_merged_at = search_merged_at  # older GitHub versions lack pull_request.merged_at in search
        self.pulls = {pr.number: pr for pr in pulls}
        self.token = token  # when set, requests must carry it
        self.rate_limit = rate_limit
        self.remaining = rate_limit
        self.clock = clock
        self.reset_at = clock() + 3600
        self.search_cap = search_cap
        self.faults: list[Fault] = []
        self.counts: Counter[str] = Counter()  # answered requests per kind; 304s under "not_modified"
        self.log: list[tuple[str, int]] = []  # (request path with query, status) of every answer
        self._lock = threading.Lock()

    @classmethod
    def from_export(cls, path: str | Path, repo: str = "verl-project/verl", **options: Any) -> FakeGitHub:
        return cls(load_export(path), repo, **options)

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        return self.serve(Handler)

    @property
    def url(self) -> str:
        assert self._server, "start the fake first"
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    # --- test controls ------------------------------------------------------------------------

    def inject(self, kind: str, path: str = ".", times: int = 1, **options: Any) -> None:
        """Answer the next `times` requests whose path matches the regex `path` with fault `kind`."""
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; known: {FAULTS}")
        with self._lock:
            self.faults.append(Fault(kind, re.compile(path), times, **options))

    def take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and fault.path.search(path):
                    fault.times -= 1
                    return fault
        return None

    @property
    def total(self) -> int:
        """Answers that counted against the rate limit (everything but 304s)."""
        return sum(n for kind, n in self.counts.items() if kind != "not_modified")

    def reset_counts(self) -> None:
        with self._lock:
            self.counts.clear()
            self.log.clear()

    def spend(self) -> tuple[int, float]:
        """Take one request from the budget; (remaining after it, reset epoch). Remaining -1 means refused."""
        with self._lock:
            now = self.clock()
            if now >= self.reset_at:
                self.remaining = self.rate_limit
                self.reset_at = now + 3600
            if self.remaining <= 0:
                return -1, self.reset_at
            self.remaining -= 1
            return self.remaining, self.reset_at

    def exhaust(self, reset_in: float) -> None:
        with self._lock:
            self.remaining = 0
            self.reset_at = self.clock() + reset_in

    def count(self, kind: str, path: str, status: int) -> None:
        with self._lock:
            self.counts[kind] += 1
            self.log.append((path, status))

    def search_queries(self) -> list[str]:
        """The `q` of every search answered, decoded."""
        return [parse_qs(urlsplit(path).query).get("q", [""])[0] for path, _ in self.log if "/search/" in path]

    # --- GitHub's shapes ----------------------------------------------------------------------

    def api(self, base: str, path: str) -> str:
        return f"{base}{self.prefix}{path}"

    def repo_body(self, base: str) -> dict[str, Any]:
        owner, name = self.repo.split("/")
        return {"id": 1, "name": name, "full_name": self.repo, "private": False, "owner": {"login": owner},
                "html_url": f"https://github.com/{self.repo}", "url": self.api(base, f"/repos/{self.repo}"),
                "default_branch": "main"}

    def search_item(self, base: str, pr: PullRequest) -> dict[str, Any]:
        merged = format_timestamp(pr.merged_at)
        pull_request = {"url": self.api(base, f"/repos/{self.repo}/pulls/{pr.number}"), "html_url": pr.url}
        if self.search_merged_at:
            pull_request["merged_at"] = merged
        return {
            "url": self.api(base, f"/repos/{self.repo}/issues/{pr.number}"),
            "html_url": pr.url, "number": pr.number, "title": pr.title, "user": {"login": pr.author},
            "labels": [{"name": name} for name in pr.labels], "state": "closed",
            "created_at": merged, "closed_at": merged, "body": pr.body, "pull_request": pull_request,
        }

    def pull_body(self, base: str, pr: PullRequest) -> dict[str, Any]:
        merged = format_timestamp(pr.merged_at)
        return {
            "url": self.api(base, f"/repos/{self.repo}/pulls/{pr.number}"), "id": pr.number,
            "number": pr.number, "state": "closed", "locked": False, "title": pr.title,
            "user": {"login": pr.author}, "body": pr.body or None,
            "labels": [{"name": name} for name in pr.labels],
            "created_at": merged, "updated_at": merged, "closed_at": merged, "merged_at": merged,
            "merge_commit_sha": pr.head_sha, "head": {"ref": f"pr-{pr.number}", "sha": pr.head_sha},
            "base": {"ref": pr.base_ref}, "html_url": pr.url, "merged": True,
            "commits": pr.commits if pr.commits is not None else 1,
            "additions": pr.additions, "deletions": pr.deletions, "changed_files": pr.changed_files,
        }

    def file_bodies(self, pr: PullRequest) -> list[dict[str, Any]]:
        rows = []
        for f in pr.files[:3000]:  # GitHub lists at most 3,000 files of a PR
            row: dict[str, Any] = {"sha": hashlib.sha1(f.filename.encode()).hexdigest(), "filename": f.filename,
                                   "status": f.status, "additions": f.additions, "deletions": f.deletions,
                                   "changes": f.changes}
            if f.previous_filename:
                row["previous_filename"] = f.previous_filename
            if f.patch is not None and not f.binary:
                row["patch"] = f.patch
            rows.append(row)
        return rows

    def commit_body(self, base: str, pr: PullRequest) -> dict[str, Any]:
        """The git commit a squash merge makes: title (#N), body, Co-authored-by trailers."""
        trailers = []
        for who in pr.co_authors:
            # GitHub-style noreply address for what looks like a login; a plain address for a display name.
            email = f"{who}@users.noreply.github.com" if re.fullmatch(r"[A-Za-z0-9-]+(\[bot\])?", who) \
                else "someone@example.com"
            trailers.append(f"Co-authored-by: {who} <{email}>")
        message = f"{pr.title} (#{pr.number})\n\n{pr.body}" + ("\n\n" + "\n".join(trailers) if trailers else "")
        return {"sha": pr.head_sha, "url": self.api(base, f"/repos/{self.repo}/git/commits/{pr.head_sha}"),
                "message": message, "author": {"name": pr.author, "date": format_timestamp(pr.merged_at)}}

    def review_bodies(self, pr: PullRequest) -> list[dict[str, Any]]:
        return [{"id": i + 1, "user": {"login": r.reviewer}, "state": r.state, "body": "",
                 "submitted_at": format_timestamp(pr.merged_at)} for i, r in enumerate(pr.reviews)]

    def search(self, query: str) -> list[PullRequest] | str:
        """The PRs a search query matches (sorted by number), or an error message."""
        repo, merged, author = None, None, None
        flags = set()
        for token in query.split():
            key, _, value = token.partition(":")
            if key == "repo":
                repo = value
            elif key == "is":
                flags.add(value)
            elif key == "author":
                author = value.lower()
            elif key == "merged":
                merged = _parse_range(value)
                if merged is None:
                    return f"cannot parse merged:{value}"
        if repo is None or repo.lower() != self.repo.lower():
            return "The listed users and repositories cannot be searched"
        hits = [pr for pr in self.pulls.values() if (merged is None or merged[0] <= pr.merged_at <= merged[1])
                and (author is None or pr.author.lower() == author)]
        if flags - {"pr", "merged", "closed"}:
            hits = []
        return sorted(hits, key=lambda pr: pr.number)


def _parse_moment(value: str, end: bool) -> datetime:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = datetime.fromisoformat(value).replace(tzinfo=UTC)
        return day + timedelta(days=1, seconds=-1) if end else day
    # A "+" a client forgot to encode arrives as a space.
    return parse_timestamp(re.sub(r" (\d{2}:?\d{2})$", r"+\1", value))


def _parse_range(value: str) -> tuple[datetime, datetime] | None:
    """A..B, a single day or moment, or the qualifiers <=X, <X, >=X, >X GitHub's search syntax allows."""
    try:
        for op in ("<=", ">=", "<", ">"):
            if value.startswith(op):
                moment = _parse_moment(value[len(op):], end=op in ("<=", ">"))
                step = timedelta(seconds=1) if op in ("<", ">") else timedelta(0)
                low, high = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
                return (low, moment - step) if op.startswith("<") else (moment + step, high)
        if ".." in value:
            low, high = value.split("..", 1)
            return _parse_moment(low, False), _parse_moment(high, True)
        return _parse_moment(value, False), _parse_moment(value, True)
    except ValueError:
        return None


class _Handler(BaseHTTPRequestHandler):
    server_fake: FakeGitHub
    protocol_version = "HTTP/1.1"  # keep-alive, as GitHub
    disable_nagle_algorithm = True  # headers and body go out in separate writes: avoid 40 ms delayed-ACK stalls

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        fake = self.server_fake
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if fake.prefix:
            if not path.startswith(fake.prefix + "/"):
                self._send(404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
                return
            path = path[len(fake.prefix):]
        kind = _kind(path)
        base = f"http://{self.headers.get('Host')}"
        fault = fake.take_fault(self.path)
        if fault and fault.kind == "slow":
            time.sleep(fault.delay)
            fault = None  # then answer normally: the client gave up waiting long ago
        if fake.token and self.headers.get("Authorization") not in (f"Bearer {fake.token}", f"token {fake.token}"):
            fault = fault or Fault("401", re.compile("."))
        if fault and fault.kind == "exhausted":
            fake.exhaust(fault.reset_in)
        if fault and fault.kind in ("401", "404", "403-retry-after", "429", "502"):
            self._fault(fault, kind, path)
            return
        status, body, link = self._route(path, query, base)
        if fault and fault.kind == "incomplete" and isinstance(body, dict) and "items" in body:
            # GitHub's search timed out: a 200 that says so, with only part of the page.
            body = {**body, "incomplete_results": True, "items": body["items"][: len(body["items"]) // 2]}
        payload = json.dumps(body).encode()
        etag = f'W/"{hashlib.sha1(payload).hexdigest()}"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            fake.count("not_modified", self.path, 304)
            self._send(304, b"", {"ETag": etag, **self._rate_headers(fake.remaining, fake.reset_at)})
            return
        remaining, reset = fake.spend()
        if remaining < 0:
            fake.count("rate_limited", self.path, 403)
            message = {"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest"}
            self._send(403, json.dumps(message).encode(), self._rate_headers(0, reset))
            return
        fake.count(kind, self.path, status)
        headers = {**self._rate_headers(remaining, reset), "Content-Type": "application/json; charset=utf-8"}
        if status == 200:
            headers["ETag"] = etag
        if link:
            headers["Link"] = link
        if fault and fault.kind == "cut":
            self._send(status, payload[: len(payload) // 2], headers)
        elif fault and fault.kind == "cut-connection":
            # Promise the whole body, send half, hang up: the client sees an incomplete read.
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(payload))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self._send(status, payload, headers)

    def _route(self, path: str, query: dict[str, list[str]], base: str) -> tuple[int, Any, str]:
        fake = self.server_fake
        not_found = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, "")
        page = max(1, int(query.get("page", ["1"])[0]))
        per_page = min(100, max(1, int(query.get("per_page", ["30"])[0])))
        if path == "/search/issues":
            hits = fake.search(query.get("q", [""])[0])
            if isinstance(hits, str):
                return 422, {"message": "Validation Failed", "errors": [{"message": hits}]}, ""
            if (page - 1) * per_page >= fake.search_cap:
                return 422, {"message": "Only the first 1000 search results are available"}, ""
            visible = hits[: fake.search_cap]
            items = [fake.search_item(base, pr) for pr in visible[(page - 1) * per_page: page * per_page]]
            body = {"total_count": len(hits), "incomplete_results": False, "items": items}
            return 200, body, self._link(base, path, query, page, per_page, len(visible))
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)(?:/pulls/(\d+)(/files|/reviews)?)?", path)
        commit = re.fullmatch(r"/repos/([^/]+/[^/]+)/git/commits/(\w+)", path)
        if commit and commit.group(1).lower() == fake.repo.lower():
            by_sha = next((pr for pr in fake.pulls.values() if pr.head_sha == commit.group(2)), None)
            return (200, fake.commit_body(base, by_sha), "") if by_sha else not_found
        if not match or match.group(1).lower() != fake.repo.lower():
            return not_found
        if match.group(2) is None:
            return 200, fake.repo_body(base), ""
        pr = fake.pulls.get(int(match.group(2)))
        if pr is None:
            return not_found
        if match.group(3) is None:
            return 200, fake.pull_body(base, pr), ""
        rows = fake.file_bodies(pr) if match.group(3) == "/files" else fake.review_bodies(pr)
        chunk = rows[(page - 1) * per_page: page * per_page]
        return 200, chunk, self._link(base, path, query, page, per_page, len(rows))

    def _link(self, base: str, path: str, query: dict[str, list[str]], page: int, per_page: int, total: int) -> str:
        last = max(1, math.ceil(total / per_page))
        if last == 1:
            return ""

        def url(number: int) -> str:
            params = {k: v[0] for k, v in query.items()} | {"page": str(number)}
            return f"<{self.server_fake.api(base, path)}?{urlencode(params)}>"

        rels = []
        if page < last:
            rels += [f'{url(page + 1)}; rel="next"', f'{url(last)}; rel="last"']
        if page > 1:
            rels += [f'{url(1)}; rel="first"', f'{url(page - 1)}; rel="prev"']
        return ", ".join(rels)

    def _fault(self, fault: Fault, kind: str, path: str) -> None:
        fake = self.server_fake
        status = int(fault.kind[:3])
        fake.count(f"fault_{fault.kind}", self.path, status)
        headers = self._rate_headers(max(fake.remaining, 0), fake.reset_at)
        messages = {401: "Bad credentials", 404: "Not Found", 502: "Server Error",
                    403: "You have exceeded a secondary rate limit", 429: "Too many requests"}
        if fault.kind in ("403-retry-after", "429"):
            headers["Retry-After"] = str(fault.retry_after)
        self._send(status, json.dumps({"message": messages[status]}).encode(),
                   {**headers, "Content-Type": "application/json"})

    def _rate_headers(self, remaining: int, reset: float) -> dict[str, str]:
        fake = self.server_fake
        return {"X-RateLimit-Limit": str(fake.rate_limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(math.ceil(reset)), "X-RateLimit-Used": str(fake.rate_limit - remaining),
                "X-RateLimit-Resource": "core"}

    def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)


def _kind(path: str) -> str:
    if path.startswith("/search/"):
        return "search"
    if "/git/commits/" in path:
        return "commit"
    if path.endswith("/files"):
        return "files"
    if path.endswith("/reviews"):
        return "reviews"
    if "/pulls/" in path:
        return "pull"
    return "repo"
