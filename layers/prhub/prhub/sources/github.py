"""GitHub's REST API as a Source: list merged PRs with the search API, load each PR's details.

The client is built to be economical and to never lose a PR to a rate limit or
a flaky answer:

- conditional requests (ETag / If-None-Match) against a pluggable cache, so a
  re-run of the same range costs 304s, which GitHub does not count;
- the primary rate limit: sleep until the reset when it comes before the
  caller's deadline, else raise RetryLater so the score worker hands its
  message back instead of burning an SQS receive;
- secondary limits (403/429 with Retry-After) are honoured by sleeping;
- 5xx, connection errors, timeouts and cut-off JSON are retried with
  exponential backoff and jitter, a bounded number of times, then SourceError;
- a missing repository (404) or a bad token (401) is a SourceError at plan time.

Sleep, clock and randomness are injectable so tests never really wait.
"""
from __future__ import annotations

import contextlib
import json
import logging
import math
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO, Any, Protocol
from urllib.parse import urlencode

import requests

from prhub.cloud import metrics, secrets, tracing
from prhub.core.errors import RetryLater, SourceError
from prhub.core.models import FileChange, PullRef, PullRequest, Review
from prhub.core.period import Period, parse_timestamp, zone
from prhub.sources.source import COMPARISONS, History, ListPage, Tagger, history_entry

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
SEARCH_CAP = 1000  # the search API never returns more than this many results for one query
PER_PAGE = 100
FILES_CAP = 3000  # GitHub lists at most this many files of one PR
CO_AUTHOR = re.compile(r"^co-authored-by:\s*(.+?)\s*<([^>]*)>\s*$", re.IGNORECASE | re.MULTILINE)
LOGIN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38})(?:\[bot\])?$")
NOREPLY = re.compile(r"^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$", re.IGNORECASE)
RETRYABLE_EXCEPTIONS = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


class NotFound(SourceError):
    """GitHub answered 404: the repository or PR does not exist, or the token cannot see it."""


@dataclass(frozen=True)
class CachedResponse:
    """What a conditional request needs to stand in for a full answer."""

    etag: str
    body: Any
    link: str = ""  # the Link header, since pagination must work from the cache too


class EtagCache(Protocol):
    def get(self, key: str) -> CachedResponse | None: ...

    def put(self, key: str, value: CachedResponse) -> None: ...


class MemoryEtagCache:
    """The default cache: lives as long as the process (a Lambda container, a CLI run)."""

    def __init__(self) -> None:
        self._items: dict[str, CachedResponse] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, value: CachedResponse) -> None:
        with self._lock:
            self._items[key] = value

    def __len__(self) -> int:
        return len(self._items)


class CacheEtags:
    """The ETag cache over the stack's one Cache (prhub.cloud.cache), shared by all workers and runs: entries
    `etag#<url>` -> {etag, body, link}. A body too big for the cache is simply not kept (that request then
    costs a full answer next time; nothing breaks)."""

    PREFIX = "etag#"

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def get(self, key: str) -> CachedResponse | None:
        value = self.cache.get(self.PREFIX + key)
        if not isinstance(value, dict) or "etag" not in value:
            return None
        return CachedResponse(str(value["etag"]), value.get("body"), str(value.get("link", "")))

    def put(self, key: str, value: CachedResponse) -> None:
        self.cache.put(self.PREFIX + key, {"etag": value.etag, "body": value.body, "link": value.link})


@dataclass
class RateLimit:
    limit: int
    remaining: int
    reset: float  # epoch seconds


def parse_link(header: str) -> dict[str, str]:
    """`<url>; rel="next", <url>; rel="last"` -> {"next": url, "last": url}."""
    links: dict[str, str] = {}
    for part in header.split(","):
        if ";" not in part:
            continue
        url_part, *params = part.split(";")
        url = url_part.strip().strip("<>")
        for param in params:
            name, _, value = param.strip().partition("=")
            if name == "rel":
                for rel in value.strip('"').split():
                    links[rel] = url
    return links


def options_from_env(env: Mapping[str, str], reader: secrets.Secrets | None = None) -> dict[str, Any]:
    """GitHubSource's endpoint and token from the ecosystem's names: GITHUB_API_URL, and GITHUB_TOKEN or the
    secret GITHUB_TOKEN_SECRET names (read through `reader`, else a one-off Secrets Manager client)."""
    return {"api_url": env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            "token": secrets.github_token(env=env, secrets=reader)}


class GitHubSource:
    """The GitHub REST API as a prhub Source.

    `deadline` returns the seconds the caller has left (e.g. Lambda's remaining
    time); a wait longer than that raises RetryLater instead. Without one, waits
    up to `max_wait` seconds are slept (pass math.inf to always wait, as a CLI
    export may). It is a public attribute so a long-lived source can follow each
    invocation's deadline.

    The ETag cache defaults to memory; the flow hands in the stack's (CacheEtags).
    `from_env` reads the endpoint and token as the CLI and the stack name them.
    """

    def __init__(
        self,
        token: str | None = None,
        api_url: str | None = None,
        *,
        etag_cache: EtagCache | None = None,
        session: requests.Session | None = None,
        deadline: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
        max_tries: int = 5,
        timeout: float = 30.0,
        max_wait: float = 90.0,  # covers the search API's per-minute limit; longer waits go back to the queue
        co_authors: bool = True,
        backoff_base: float = 1.0,
        backoff_cap: float = 30.0,
        margin: float = 5.0,
    ) -> None:
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.token = token or None
        if not self.token:
            log.warning("no GitHub token: anonymous access is limited to 60 requests an hour (set GITHUB_TOKEN)")
        self.etag_cache: EtagCache = etag_cache if etag_cache is not None else MemoryEtagCache()
        self.deadline = deadline
        self.sleep = sleep
        self.clock = clock
        self.rng = rng
        self.max_tries = max_tries
        self.timeout = timeout
        self.max_wait = max_wait
        self.co_authors = co_authors  # one more request per PR: the merge commit's Co-authored-by trailers
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.margin = margin
        self.rate: RateLimit | None = None
        self.stats: Counter[str] = Counter()  # requests sent, answers by kind, retries, sleeps
        self._session = session
        self._checked: set[str] = set()  # repositories known to exist: checked once per source, not per listing
        self._local = threading.local()  # one session per thread when none is given: Session is not thread-safe

    @classmethod
    def from_env(cls, env: Mapping[str, str], reader: secrets.Secrets | None = None, **options: Any) -> GitHubSource:
        """A source on GITHUB_API_URL with GITHUB_TOKEN (or the GITHUB_TOKEN_SECRET secret); see options_from_env."""
        return cls(**{**options_from_env(env, reader), **options})

    # --- HTTP ---------------------------------------------------------------------------------

    @property
    def session(self) -> requests.Session:
        if self._session is not None:
            return self._session
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "User-Agent": "prhub"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        url = f"{self.api_url}/{path.lstrip('/')}"
        return f"{url}?{urlencode(sorted(params.items()))}" if params else url

    def _time_left(self) -> float:
        return self.max_wait if self.deadline is None else self.deadline()

    def _wait(self, seconds: float, why: str) -> None:
        """Sleep `seconds` if the caller's deadline allows, else hand the work back with RetryLater."""
        if seconds + 1 > self._time_left():
            raise RetryLater(f"GitHub {why}: retry in {seconds:.0f} s", retry_after=seconds + self.margin)
        log.warning("GitHub %s: waiting %.1f s", why, seconds)
        self.stats["sleeps"] += 1
        self.stats["slept_seconds"] += math.ceil(seconds)
        self.sleep(seconds)

    def _backoff(self, attempt: int) -> float:
        # Exponential with "equal jitter": never zero, never in lockstep with other workers.
        step = min(self.backoff_cap, self.backoff_base * 2**attempt)
        return step / 2 + self.rng() * step / 2

    def _note_rate(self, response: requests.Response) -> None:
        headers = response.headers
        if "X-RateLimit-Remaining" in headers:
            with contextlib.suppress(ValueError):  # a malformed header must not fail the request
                self.rate = RateLimit(int(headers.get("X-RateLimit-Limit", 0)), int(headers["X-RateLimit-Remaining"]),
                                      float(headers.get("X-RateLimit-Reset", 0)))

    def get_json(self, url: str, conditional: bool = True) -> tuple[Any, str]:
        """GET `url`: (decoded JSON body, Link header). Retries, waits and raises as the module docstring says."""
        cached = self.etag_cache.get(url) if conditional else None
        headers = self._headers()
        if cached:
            headers["If-None-Match"] = cached.etag
        faults = 0  # 5xx, network, cut-off bodies: backoff, bounded
        limited = 0  # secondary limits: sleep as told, bounded
        while True:
            problem = ""
            self.stats["requests"] += 1
            metrics.count("GitHubRequests")
            try:
                response = self.session.get(url, headers=headers, timeout=self.timeout)
            except RETRYABLE_EXCEPTIONS as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                self._note_rate(response)
                status = response.status_code
                self.stats[f"http_{status}"] += 1
                if status == 304 and cached:
                    return cached.body, cached.link
                if status == 200:
                    try:
                        body = response.json()
                    except ValueError:
                        problem = "cut-off or invalid JSON body"
                    else:
                        etag = response.headers.get("ETag")
                        link = response.headers.get("Link", "")
                        if etag:
                            self.etag_cache.put(url, CachedResponse(etag, body, link))
                        return body, link
                elif status in (403, 429):
                    wait = self._limit_wait(response)
                    if wait is None:
                        raise SourceError(f"GitHub refused {url} ({status}): {_message(response)}")
                    limited += 1
                    metrics.count("RateLimitWaits")
                    if limited > self.max_tries:
                        raise RetryLater(f"GitHub keeps rate-limiting {url}", retry_after=wait + self.margin)
                    self._wait(wait, "rate limit")
                    continue
                elif status == 401:
                    raise SourceError(f"GitHub rejected the token (401 {_message(response)}): "
                                      "check GITHUB_TOKEN or the token secret")
                elif status == 404:
                    raise NotFound(f"not found on GitHub: {url}")
                elif status >= 500:
                    problem = f"HTTP {status}"
                else:
                    raise SourceError(f"GitHub answered {status} for {url}: {_message(response)}")
            faults += 1
            self.stats["retries"] += 1
            if faults >= self.max_tries:
                raise SourceError(f"GitHub failed {faults} times for {url}; last: {problem}")
            self._wait(self._backoff(faults - 1), f"fault ({problem})")

    def _limit_wait(self, response: requests.Response) -> float | None:
        """Seconds to wait before retrying a 403/429, or None when it is not a rate limit."""
        retry_after = response.headers.get("Retry-After")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                return 60.0
        if response.headers.get("X-RateLimit-Remaining") == "0":
            try:
                reset = float(response.headers.get("X-RateLimit-Reset", ""))
            except ValueError:
                reset = self.clock() + 60
            return max(1.0, reset - self.clock())
        if response.status_code == 429 or "rate limit" in _message(response).lower():
            return 60.0  # GitHub's advice for a secondary limit without Retry-After: wait at least a minute
        return None

    def pages(self, path: str, params: dict[str, Any]) -> list[Any]:
        """Every page of a list endpoint, followed through the Link header, concatenated."""
        items: list[Any] = []
        url: str | None = self.url(path, params)
        while url:
            body, link = self.get_json(url)
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
            self.get_json(self.url(f"repos/{repo}"))
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
                pull, _ = self.get_json(self.url(f"repos/{repo}/pulls/{number}"))
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
        for attempt in range(self.max_tries):
            body, link = self.get_json(url, conditional=attempt == 0)
            if not isinstance(body, dict):
                raise SourceError(f"GitHub answered {url} with {type(body).__name__}, expected an object")
            if not body.get("incomplete_results"):
                return body, link
            self.stats["incomplete_results"] += 1
            if attempt + 1 < self.max_tries:
                self._wait(self._backoff(attempt), "search incomplete")
        log.warning("GitHub search stayed incomplete for %s; some PRs may be missing", url)
        return body, link

    @tracing.traced("github get")
    def get(self, repo: str, ref: PullRef) -> PullRequest:
        pull, _ = self.get_json(self.url(f"repos/{repo}/pulls/{ref.number}"))
        if not isinstance(pull, dict):
            raise SourceError(f"GitHub answered pull #{ref.number} of {repo} with {type(pull).__name__}")
        if not pull.get("merged_at"):
            raise SourceError(f"PR #{ref.number} of {repo} is not merged")
        raw_files = self.pages(f"repos/{repo}/pulls/{ref.number}/files", {"per_page": PER_PAGE})
        raw_reviews = self.pages(f"repos/{repo}/pulls/{ref.number}/reviews", {"per_page": PER_PAGE})
        files = [
            FileChange(
                filename=str(f["filename"]),
                status=str(f.get("status") or "modified"),
                additions=int(f.get("additions") or 0),
                deletions=int(f.get("deletions") or 0),
                previous_filename=f.get("previous_filename"),
                patch=f.get("patch"),
            )
            for f in raw_files
        ]
        changed_files = int(pull.get("changed_files") or len(files))
        merge_sha = str(pull.get("merge_commit_sha") or "")
        return PullRequest(
            number=int(pull["number"]),
            title=str(pull.get("title") or ""),
            body=str(pull.get("body") or ""),
            author=_login(pull.get("user")),
            merged_at=parse_timestamp(str(pull["merged_at"])),
            url=str(pull.get("html_url") or ref.url),
            labels=[str(lb.get("name")) for lb in pull.get("labels") or [] if isinstance(lb, dict)],
            co_authors=self._co_authors(repo, merge_sha) if self.co_authors and merge_sha else [],
            base_ref=str((pull.get("base") or {}).get("ref") or "main"),
            head_sha=str((pull.get("head") or {}).get("sha") or pull.get("merge_commit_sha") or ""),
            additions=int(pull.get("additions") or 0),
            deletions=int(pull.get("deletions") or 0),
            changed_files=changed_files,
            files=files,
            files_truncated=changed_files > len(files),
            # Pending reviews are drafts nobody else sees yet.
            reviews=[Review(_login(r.get("user")), str(r.get("state"))) for r in raw_reviews
                     if r.get("state") != "PENDING"],
            commits=int(pull["commits"]) if pull.get("commits") is not None else None,
        )


    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """The PR's files from /files alone (a page per 100 files, revalidated by ETag), not its whole detail."""
        rows = self.pages(f"repos/{repo}/pulls/{ref.number}/files", {"per_page": PER_PAGE})
        return [str(name) for f in rows for name in (f.get("filename"), f.get("previous_filename")) if name]

    def _co_authors(self, repo: str, sha: str) -> list[str]:
        """Co-authors named by the merge commit's trailers (a squash merge collects them there)."""
        try:
            commit, _ = self.get_json(self.url(f"repos/{repo}/git/commits/{sha}"))
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


def _message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.reason or ""
    return str(body.get("message", "")) if isinstance(body, dict) else ""


def export(repo: str, period: Period, out: IO[str], source: Any) -> int:
    """Write the export format (one PR per line, by merge time) for `period`; returns the number of PRs."""
    count = 0
    for ref in source.list_merged(repo, period):
        out.write(json.dumps(source.get(repo, ref).to_export(), ensure_ascii=False) + "\n")
        count += 1
    return count
