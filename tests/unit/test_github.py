"""Pure parts of the GitHub client and REST source: Link parsing, trailers, token resolution, backoff, rate-limit
decisions."""
from __future__ import annotations

import pytest
import requests
from prhub.core.errors import RetryLater
from prhub.core.period import Period
from prhub.flow.deps import DEADLINE_RESERVE, Deps
from prhub.sources.github import GitHubSource, co_authors_from
from prhub.sources.http import GitHubClient, options_from_env, parse_link
from prhub.sources.source import TimedSource, call_deadline


def response(status: int, headers: dict[str, str], body: bytes = b"{}") -> requests.Response:
    answer = requests.Response()
    answer.status_code = status
    answer.headers.update(headers)
    answer._content = body
    return answer


def source(**options: object) -> GitHubClient:
    return GitHubClient(**{"token": "t", "api_url": "http://127.0.0.1:9", "clock": lambda: 1000.0, **options})


def test_parse_link_reads_every_relation() -> None:
    header = ('<https://api.github.com/search/issues?q=a&page=2>; rel="next", '
              '<https://api.github.com/search/issues?q=a&page=10>; rel="last"')
    assert parse_link(header) == {"next": "https://api.github.com/search/issues?q=a&page=2",
                                  "last": "https://api.github.com/search/issues?q=a&page=10"}
    assert parse_link("") == {}


def test_co_authors_prefer_the_login_from_githubs_noreply_address() -> None:
    message = ("feat: x (#12)\n\nbody\n\nCo-authored-by: Jane Doe <1234+janed@users.noreply.github.com>\n"
               "co-authored-by: OpenAI Codex <codex@openai.com>\n"
               "Co-authored-by: Jane Doe <janed@users.noreply.github.com>\n"
               "Not a trailer: Co-authored-by: nobody <x@y>")
    assert co_authors_from(message) == ["janed", "OpenAI Codex"]


def test_token_order_argument_then_secret_then_env() -> None:
    assert GitHubSource.from_env({"GITHUB_TOKEN": "env"}, token="given").token == "given"
    assert options_from_env({"GITHUB_TOKEN": "env"})["token"] == "env"
    assert options_from_env({"GITHUB_TOKEN": ""})["token"] is None


def test_api_url_defaults_to_github_and_drops_a_trailing_slash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    assert GitHubSource(token="t").api_url == "https://api.github.com"
    assert GitHubSource(token="t", api_url="https://ghe.example.com/api/v3/").url(
        "repos/o/n/pulls/1/files", {"per_page": 100}) == "https://ghe.example.com/api/v3/repos/o/n/pulls/1/files?per_page=100"


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    low, high = source(rng=lambda: 0.0), source(rng=lambda: 0.999)
    assert [low.backoff(n) for n in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert all(low.backoff(n) < high.backoff(n) <= 2 ** n for n in range(4))
    assert high.backoff(20) <= 30.0


def test_rate_limit_decisions() -> None:
    client = source()
    assert client.limit_wait(response(403, {"Retry-After": "42"})) == 42
    assert client.limit_wait(response(403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1600"})) == 600
    assert client.limit_wait(response(429, {})) == 60
    assert client.limit_wait(response(403, {"X-RateLimit-Remaining": "10"},
                                       b'{"message": "You have exceeded a secondary rate limit"}')) == 60
    # A plain permission refusal is not something waiting fixes.
    assert client.limit_wait(response(403, {"X-RateLimit-Remaining": "10"},
                                       b'{"message": "Resource not accessible by integration"}')) is None


def test_waiting_past_the_deadline_raises_retry_later_instead_of_sleeping() -> None:
    slept: list[float] = []
    client = source(deadline=lambda: 100.0, sleep=slept.append, margin=5.0)
    client.wait(50, "rate limit")
    with pytest.raises(RetryLater) as caught:
        client.wait(600, "rate limit")
    assert slept == [50] and caught.value.retry_after == 605


class FakeContext:
    def __init__(self, millis: int) -> None:
        self.millis = millis

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def test_lambda_deadline_follows_the_invocation_and_keeps_a_reserve() -> None:
    context = FakeContext(120_000)
    names = ("RUNS_TABLE", "RESULTS_TABLE", "CACHE_TABLE", "IDEMPOTENCY_TABLE", "SCORE_QUEUE_URL",
             "REPORT_QUEUE_URL", "SITE_BUCKET", "PAGES_QUEUE_URL")
    deadline = Deps.from_env(dict.fromkeys(names, "x")).invoked(context).deadline()
    assert DEADLINE_RESERVE == 10
    client = source(deadline=deadline, sleep=lambda s: None)
    client.wait(100, "rate limit")  # 110 s usable: fits
    context.millis = 60_000  # later in the same invocation
    with pytest.raises(RetryLater):
        client.wait(100, "rate limit")


class Answers:
    """A session answering each request with the next of `responses`."""

    def __init__(self, responses: list[requests.Response]) -> None:
        self.responses = responses

    def request(self, method: str, url: str, **options: object) -> requests.Response:
        return self.responses.pop(0)


def test_a_timed_call_waits_within_its_own_deadline_and_leaves_the_shared_source_as_it_was() -> None:
    slept: list[float] = []
    client = source(sleep=slept.append, margin=5.0,  # no deadline of its own: waits up to max_wait are slept
                    session=Answers([response(429, {"Retry-After": "60"})]))  # type: ignore[arg-type]
    shared = GitHubSource(http=client)
    week = Period.parse("2026-06-01", "2026-06-07", "UTC")
    with pytest.raises(RetryLater) as caught:
        TimedSource(shared, lambda: 30.0).list_merged("o/n", week)  # 60 s of wait do not fit in 30
    assert caught.value.retry_after == 65 and slept == []
    assert shared.deadline is None and call_deadline() is None and client.time_left() == client.max_wait
