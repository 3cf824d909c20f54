"""GitHub's HTTP client, shared by the REST source (prhub.sources.github) and the GraphQL one
(prhub.sources.graphql): one session per thread, the auth headers, the ETag cache and the request loop.

The loop is built to never lose a request to a rate limit or a flaky answer:

- the primary rate limit: sleep until the reset when it comes before the caller's deadline, else raise
  RetryLater so the score worker hands its message back instead of burning an SQS receive;
- secondary limits (403/429 with Retry-After) are honoured by sleeping;
- 5xx, connection errors, timeouts and cut-off bodies are retried with exponential backoff and jitter, a
  bounded number of times, then SourceError.

Each API keeps its own budget (`Limits`): REST's is read from its answers' headers (`GitHubClient.rate`),
GraphQL's points budget is checked before each query as well (prhub.sources.graphql_budget.PointsBudget).
Conditional GETs (ETag / If-None-Match, `get_json`) make a re-run of the same range cost 304s, which GitHub
does not count. Sleep, clock and randomness are injectable so tests never really wait.
"""
from __future__ import annotations

import contextlib
import logging
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import urlencode

import requests

from prhub.cloud import metrics, secrets
from prhub.core.errors import RetryLater, SourceError, SourceUnavailable
from prhub.sources.source import call_deadline

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
RETRYABLE_EXCEPTIONS = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)
T = TypeVar("T")
# What a network fault says in one line, by the words its urllib3 cause carries (its own text is a nested repr).
_NETWORK_WORDS = (("Connection refused", "connection refused"), ("Name or service not known", "host name not found"),
                  ("nodename nor servname", "host name not found"),
                  ("Temporary failure in name resolution", "host name not found"),
                  ("No route to host", "no route to host"), ("Network is unreachable", "network unreachable"),
                  ("Connection reset", "connection reset"), ("CERTIFICATE_VERIFY_FAILED", "TLS certificate refused"))


def network_problem(exc: Exception, timeout: float) -> str:
    """A network fault of `requests` in a few readable words ("connection refused"), not its nested repr."""
    if isinstance(exc, requests.exceptions.Timeout):
        return f"no answer within {timeout:g} s"
    text = str(exc)
    for words, said in _NETWORK_WORDS:
        if words in text:
            return said
    return type(exc).__name__


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


def read_rate(headers: Mapping[str, str]) -> RateLimit | None:
    """The budget an answer's X-RateLimit-* headers state; None without them, or when they are malformed (which
    must not fail the request)."""
    if "X-RateLimit-Remaining" not in headers:
        return None
    with contextlib.suppress(ValueError):
        return RateLimit(int(headers.get("X-RateLimit-Limit", 0)), int(headers["X-RateLimit-Remaining"]),
                         float(headers.get("X-RateLimit-Reset", 0)))
    return None


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


def message(response: requests.Response) -> str:
    """GitHub's `message` of an error answer (its reason phrase when the body is not JSON)."""
    try:
        body = response.json()
    except ValueError:
        return response.reason or ""
    return str(body.get("message", "")) if isinstance(body, dict) else ""


def options_from_env(env: Mapping[str, str], reader: secrets.Secrets | None = None) -> dict[str, Any]:
    """The client's endpoint and token from the ecosystem's names: GITHUB_API_URL, and GITHUB_TOKEN or the
    secret GITHUB_TOKEN_SECRET names (read through `reader`, else a one-off Secrets Manager client)."""
    return {"api_url": env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            "token": secrets.github_token(env=env, secrets=reader)}


@dataclass(frozen=True)
class Fault:
    """A reader's verdict on an answer worth asking for again (a 5xx, a cut-off body): retried with backoff."""

    problem: str


def answered(response: requests.Response) -> requests.Response | Fault:
    """The reader of callers that read every answer below 500 themselves; a 5xx is a fault."""
    return response if response.status_code < 500 else Fault(f"HTTP {response.status_code}")


class Limits(Protocol):
    """One API's budget as the request loop honours it."""

    def before(self) -> None:
        """Before each try: wait for the budget when what is left would not pay for the request."""
        ...

    def note(self, response: requests.Response) -> None:
        """Keep what an answer says about the budget."""
        ...

    def wait(self, response: requests.Response) -> float | None:
        """Seconds to wait when the answer is a rate limit (then the request is sent again), else None."""
        ...


class CoreLimits:
    """REST's budget (GitHub's `core` and `search` resources): each answer's headers, kept in `client.rate`; a
    403/429 that is a rate limit is waited for."""

    def __init__(self, client: GitHubClient) -> None:
        self.client = client

    def before(self) -> None:
        return None  # REST's budget is only known from its answers

    def note(self, response: requests.Response) -> None:
        rate = read_rate(response.headers)
        if rate is not None:
            self.client.rate = rate

    def wait(self, response: requests.Response) -> float | None:
        return self.client.limit_wait(response) if response.status_code in (403, 429) else None


class GitHubClient:
    """One GitHub endpoint and token, for every API a source asks there.

    `deadline` returns the seconds the caller has left (e.g. Lambda's remaining time); a wait longer than that
    raises RetryLater instead. Without one, waits up to `max_wait` seconds are slept (pass math.inf to always
    wait, as a CLI export may). A long-lived source follows each invocation's deadline through
    prhub.sources.source.TimedSource, whose deadline comes first while its call runs. The ETag cache defaults to
    memory; the flow hands in the stack's (CacheEtags).
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
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.margin = margin
        self.rate: RateLimit | None = None  # REST's budget, as its last answer stated it
        self.stats: Counter[str] = Counter()  # requests sent, answers by kind, retries, sleeps
        self.core = CoreLimits(self)
        self._session = session
        self._local = threading.local()  # one session per thread when none is given: Session is not thread-safe

    @property
    def session(self) -> requests.Session:
        if self._session is not None:
            return self._session
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def headers(self, accept: str = "application/vnd.github+json") -> dict[str, str]:
        headers = {"Accept": accept, "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "prhub"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def url(self, path: str, params: dict[str, Any] | None = None) -> str:
        url = f"{self.api_url}/{path.lstrip('/')}"
        return f"{url}?{urlencode(sorted(params.items()))}" if params else url

    def time_left(self) -> float:
        deadline = call_deadline() or self.deadline  # the invocation's (prhub.sources.source.TimedSource), else its own
        return self.max_wait if deadline is None else deadline()

    def wait(self, seconds: float, why: str) -> None:
        """Sleep `seconds` if the caller's deadline allows, else hand the work back with RetryLater."""
        if seconds + 1 > self.time_left():
            raise RetryLater(f"GitHub {why}: retry in {seconds:.0f} s", retry_after=seconds + self.margin)
        log.warning("GitHub %s: waiting %.1f s", why, seconds)
        self.stats["sleeps"] += 1
        self.stats["slept_seconds"] += math.ceil(seconds)
        self.sleep(seconds)

    def backoff(self, attempt: int) -> float:
        # Exponential with "equal jitter": never zero, never in lockstep with other workers.
        step = min(self.backoff_cap, self.backoff_base * 2**attempt)
        return step / 2 + self.rng() * step / 2

    def limit_wait(self, response: requests.Response) -> float | None:
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
        if response.status_code == 429 or "rate limit" in message(response).lower():
            return 60.0  # GitHub's advice for a secondary limit without Retry-After: wait at least a minute
        return None

    def send(self, method: str, url: str, read: Callable[[requests.Response], T | Fault], *,
             headers: dict[str, str] | None = None, body: dict[str, Any] | None = None,
             limits: Limits | None = None, tally: str = "") -> T:
        """Send one request until `read` makes something of an answer (or raises): rate limits (as `limits`
        tells them, REST's by default) are waited for or raise RetryLater, network faults and the answers
        `read` calls a Fault are retried with backoff, then SourceError. `tally` counts the tries in `stats`."""
        limits = limits or self.core
        headers = headers if headers is not None else self.headers()
        faults = limited = 0
        while True:
            limits.before()
            problem = ""
            self.stats["requests"] += 1
            if tally:
                self.stats[tally] += 1
            metrics.count("GitHubRequests")
            try:
                response = self.session.request(method, url, headers=headers, json=body, timeout=self.timeout)
            except RETRYABLE_EXCEPTIONS as exc:
                problem = network_problem(exc, self.timeout)
            else:
                self.stats[f"http_{response.status_code}"] += 1
                limits.note(response)
                wait = limits.wait(response)
                if wait is not None:
                    limited += 1
                    metrics.count("RateLimitWaits")
                    if limited > self.max_tries:
                        raise RetryLater(f"GitHub keeps rate-limiting {url}", retry_after=wait + self.margin)
                    self.wait(wait, "rate limit")
                    continue
                outcome = read(response)
                if not isinstance(outcome, Fault):
                    return outcome
                problem = outcome.problem
            faults += 1
            self.stats["retries"] += 1
            if faults >= self.max_tries:
                raise SourceUnavailable(f"GitHub cannot answer now: {problem} ({faults} tries of {url})")
            self.wait(self.backoff(faults - 1), f"fault ({problem})")

    def get_json(self, url: str, conditional: bool = True) -> tuple[Any, str]:
        """GET `url` from the REST API: (decoded JSON body, Link header), revalidated by ETag when `conditional`.
        A 404 is NotFound, a bad token or any other refusal a SourceError."""
        return self._get(url, conditional, "application/vnd.github+json", _json_body)

    def get_text(self, url: str, accept: str) -> str:
        """GET `url` as text in the media type `accept` (a file's raw contents), revalidated by ETag; refusals
        as get_json's."""
        body, _ = self._get(url, True, accept, lambda response: response.text)
        return str(body)

    def _get(self, url: str, conditional: bool, accept: str,
             decode: Callable[[requests.Response], Any | Fault]) -> tuple[Any, str]:
        key = url if accept == "application/vnd.github+json" else f"{url}#{accept}"  # one ETag per rendering
        cached = self.etag_cache.get(key) if conditional else None
        headers = self.headers(accept)
        if cached:
            headers["If-None-Match"] = cached.etag

        def read(response: requests.Response) -> tuple[Any, str] | Fault:
            status = response.status_code
            if status == 304 and cached:
                return cached.body, cached.link
            if status == 200:
                return self._fresh(key, response, decode)
            if status in (403, 429):  # not a rate limit: those were waited for
                raise SourceError(f"GitHub refused {url} ({status}): {message(response)}")
            if status == 401:
                raise SourceError(f"GitHub rejected the token (401 {message(response)}): "
                                  "check GITHUB_TOKEN or the token secret")
            if status == 404:
                raise NotFound(f"not found on GitHub: {url}")
            if status >= 500:
                return Fault(f"HTTP {status}")
            raise SourceError(f"GitHub answered {status} for {url}: {message(response)}")

        return self.send("GET", url, read, headers=headers)

    def _fresh(self, key: str, response: requests.Response,
               decode: Callable[[requests.Response], Any | Fault]) -> tuple[Any, str] | Fault:
        """A 200's body and Link header, kept under its ETag; a body that does not decode was cut off."""
        body = decode(response)
        if isinstance(body, Fault):
            return body
        etag = response.headers.get("ETag")
        link = response.headers.get("Link", "")
        if etag:
            self.etag_cache.put(key, CachedResponse(etag, body, link))
        return body, link


def _json_body(response: requests.Response) -> Any | Fault:
    try:
        return response.json()
    except ValueError:
        return Fault("cut-off or invalid JSON body")


class OnClient:
    """What a source on a GitHubClient shows of it (GitHubSource and GraphQLSource each hold one; the GraphQL
    source's REST fallback shares its client). The deadline is read only: an invocation's comes with its
    TimedSource (prhub.sources.source), never set on the shared client."""

    http: GitHubClient

    @property
    def deadline(self) -> Callable[[], float] | None:
        return self.http.deadline

    @property
    def token(self) -> str | None:
        return self.http.token

    @property
    def api_url(self) -> str:
        return self.http.api_url

    @property
    def stats(self) -> Counter[str]:
        return self.http.stats
