"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

    with FakeOpenAI(latency=0.3) as fake:           # rule-based answers
        os.environ["OPENAI_BASE_URL"] = fake.base_url
        ...
    fake.calls, fake.tokens_in, fake.tokens_out     # what the client sent and was charged

Answers come from, in order: the `script` (one item consumed per call), else the
`responder` (a callable getting the request JSON). An item or a responder's result
is a str (the message content), a dict (sent as JSON content) or a `Fault`
(429 with Retry-After, 500, a sleep past the client's timeout, a 400 ...).

The default responder, `rule_based`, answers Prhub's prompts from the data blocks
they carry: per-PR answers echo the engine's features, narratives cite only the
week's PRs and quote only its computed counts. `obey_injection` wraps a responder
into a model that follows instructions planted in the PR text (to prove the guard);
`reject_schema=True` makes the server refuse `response_format: json_schema` with a
400, as some OpenAI-compatible endpoints do; `reject_params=("max_tokens", "temperature")`
refuses those parameters as OpenAI's reasoning models do.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackServer

Responder = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Fault:
    """An injected failure: HTTP `status` with `body`, after sleeping `sleep` seconds."""

    status: int
    body: dict[str, Any] | None = None
    retry_after: float | None = None
    sleep: float = 0.0

    @classmethod
    def rate_limited(cls, retry_after: float = 1) -> Fault:
        return cls(429, {"error": {"message": "rate limited", "type": "rate_limit_error"}}, retry_after)

    @classmethod
    def server_error(cls) -> Fault:
        return cls(500, {"error": {"message": "internal error", "type": "server_error"}})

    @classmethod
    def timeout(cls, seconds: float) -> Fault:
        """Answer nothing for `seconds` (set it beyond the client's timeout)."""
        return cls(200, None, sleep=seconds)


def message_text(request: dict[str, Any], role: str | None = None) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages", [])
                     if role is None or m.get("role") == role)


def data_block(request: dict[str, Any], tag: str) -> Any:
    """The JSON inside <tag>...</tag> of the last user message (Prhub's prompts carry their facts so)."""
    found = re.findall(rf"<{tag}>\s*(.*?)\s*</{tag}>", message_text(request, "user"), re.DOTALL)
    return json.loads(found[-1]) if found else None


def _pr_answer(request: dict[str, Any]) -> dict[str, Any]:
    features = data_block(request, "engine_features") or {}
    zh = "中文" in message_text(request, "system")
    title = features.get("title", "")
    return {
        "importance": features.get("importance", 5),
        "insight": features.get("insight", 5),
        "modules": features.get("modules", []),
        "type": features.get("type", "chore"),
        "breaking": features.get("breaking", False),
        "breaking_reason": "标题带 [BREAKING]" if zh and features.get("breaking") else
        ("tagged [BREAKING]" if features.get("breaking") else ""),
        "risks": [],
        "summary": f"该 PR {title}。" if zh else f"This PR does: {title}.",
        "key_points": ["要点一"] if zh else ["first point"],
    }


def _narrative_answer(request: dict[str, Any]) -> dict[str, Any]:
    facts = data_block(request, "week_facts") or {}
    stats = facts.get("stats", {})
    numbers = [p["number"] for p in facts.get("prs", [])]
    zh = "中文" in message_text(request, "system")
    top = numbers[:5] or []
    cite = ", ".join(f"#{n}" for n in top[:2])
    if zh:
        summary = f"本周合并 {stats.get('pr_count', 0)} 个 PR，其中关键 PR {stats.get('key_pr_count', 0)} 个。"
    else:
        summary = f"{stats.get('pr_count', 0)} PRs were merged this week, {stats.get('key_pr_count', 0)} of them key."
    return {
        "summary": summary,
        "highlights": [{"text": f"Highlight #{n}", "prs": [n]} for n in top],
        "key_changes": [{"theme": "core", "text": f"Work on {cite}", "prs": top[:2]}] if top else [],
        "trend_notes": [{"text": "Modules moved steadily", "prs": []}],
        "risk_notes": [{"text": "Watch the largest changes", "prs": top[:1]}],
        "relation_notes": [{"text": f"{cite} touch related code", "prs": top[:2]}] if len(top) > 1 else [],
        "suggestions": ["Add tests", "Review the largest PRs", "Document the changes"],
    }


def rule_based(request: dict[str, Any]) -> dict[str, Any]:
    """A well-behaved model: valid JSON grounded in the facts the prompt carries."""
    if data_block(request, "week_facts") is not None:
        return _narrative_answer(request)
    return _pr_answer(request)


INJECTION = re.compile(r"ignore (all )?previous instructions|rate (this|it) (a )?10", re.IGNORECASE)


def obey_injection(inner: Responder = rule_based) -> Responder:
    """A gullible model: when the PR text asks for a 10, it answers 10."""

    def respond(request: dict[str, Any]) -> Any:
        answer = inner(request)
        if isinstance(answer, dict) and INJECTION.search(message_text(request, "user")):
            answer = {**answer, "importance": 10, "insight": 10}
        return answer

    return respond


def out_of_range(inner: Responder = rule_based, importance: float = 42) -> Responder:
    """A model whose per-PR scores leave the 0-10 scale."""

    def respond(request: dict[str, Any]) -> Any:
        answer = inner(request)
        return {**answer, "importance": importance} if "importance" in answer else answer

    return respond


def hallucinating(inner: Responder = rule_based, number: int = 99999) -> Responder:
    """A model whose narrative cites a PR that is not in the week, and miscounts the PRs."""

    def respond(request: dict[str, Any]) -> Any:
        answer = inner(request)
        if "highlights" not in answer:
            return answer
        stats = (data_block(request, "week_facts") or {}).get("stats", {})
        return {**answer, "highlights": [*answer["highlights"], {"text": f"Landmark work in #{number}",
                                                                 "prs": [number]}],
                "summary": f"{stats.get('pr_count', 0) + 1} PRs were merged this week."}

    return respond


def down_for(numbers: set[int], inner: Responder = rule_based) -> Responder:
    """A model that fails (500) every call about the PRs in `numbers`, whatever order the calls come in."""

    def respond(request: dict[str, Any]) -> Any:
        features = data_block(request, "engine_features") or {}
        return Fault.server_error() if features.get("number") in numbers else inner(request)

    return respond


def malformed(request: dict[str, Any]) -> str:
    """A model that answers prose instead of JSON."""
    return "Sure! Here is my analysis: the PR looks great."


def _deepseek(fmt: Any) -> tuple[int, dict[str, Any]] | None:
    """DeepSeek: text and json_object only; json_schema is a 400 with this body (seen by its users' clients,
    e.g. llm-exe#662, khoj#1336; DeepSeek's docs list text and json_object)."""
    if (fmt or {}).get("type") == "json_schema":
        return 400, {"error": {"message": "This response_format type is unavailable now",
                               "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}}
    return None


def _deepseek_422(fmt: Any) -> tuple[int, dict[str, Any]] | None:
    """DeepSeek's older answer to json_schema: a 422 from its deserialiser (litellm#7580, deep-research#22)."""
    if (fmt or {}).get("type") == "json_schema":
        return 422, {"error": {"message": "Failed to deserialize the JSON body into the target type: "
                                          "response_format: response_format.type `json_schema` is unavailable now "
                                          "at line 1 column 1193", "type": "invalid_request_error"}}
    return None


def _no_format(fmt: Any) -> tuple[int, dict[str, Any]] | None:
    """A server taking no response_format at all (older local servers). Not confirmed for a named product: the
    body is our reading of a FastAPI-style validation error."""
    if fmt is not None:
        return 400, {"object": "error", "message": "response_format is not supported by this server",
                     "type": "BadRequestError", "param": None, "code": 400}
    return None


PROVIDERS: dict[str, Callable[[Any], tuple[int, dict[str, Any]] | None]] = {
    "openai": lambda fmt: None, "deepseek": _deepseek, "deepseek-422": _deepseek_422, "no-format": _no_format}


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FakeOpenAI(LoopbackServer):
    """POST /v1/chat/completions (and /chat/completions) on 127.0.0.1:<random port>, served from a thread."""

    def __init__(self, responder: Responder = rule_based, *, latency: float = 0.0, reject_schema: bool = False,
                 reject_params: tuple[str, ...] = (), script: list[Any] | None = None, provider: str = "openai",
                 remaining_requests: Callable[[], int] | None = None) -> None:
        self.responder = responder
        self.latency = latency
        self.reject_schema = reject_schema
        self.reject_params = reject_params  # e.g. ("max_tokens", "temperature"), as reasoning models do
        # How response_format is refused, as providers do (see PROVIDERS); "openai" takes json_schema.
        self.provider = provider
        self.remaining_requests = remaining_requests  # x-ratelimit-remaining-requests on each answer
        self.script: deque[Any] = deque(script or [])
        self.calls: list[dict[str, Any]] = []  # every request JSON, including failed ones
        self.answered = 0  # calls that got a 200 with content
        self.tokens_in = 0
        self.tokens_out = 0
        self.call_times: list[float] = []
        self.spans: list[tuple[float, float, dict[str, Any]]] = []  # (received, answered, request) per 200 answer
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle on, delayed ACKs add ~40 ms to every answer.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    request = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "body is not JSON"}})
                    return
                status, body, headers = fake._answer(request, self.headers.get("Authorization", ""))
                self._send(status, body, headers)

            def _send(self, status: int, body: dict[str, Any] | None, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body or {}).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout fault)

        return self.serve(Handler)

    @property
    def base_url(self) -> str:
        assert self._server, "start the server first"
        return f"http://127.0.0.1:{self.port}/v1"

    # -- behaviour -------------------------------------------------------------------------------------------------
    def enqueue(self, *items: Any) -> None:
        """Answers (str, dict or Fault) for the next calls, in order; the responder takes over after them."""
        with self._lock:
            self.script.extend(items)

    @property
    def schema_calls(self) -> int:
        return sum(1 for c in self.calls if (c.get("response_format") or {}).get("type") == "json_schema")

    def _answer(self, request: dict[str, Any], authorization: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        received = time.monotonic()
        with self._lock:
            self.calls.append(request)
            self.call_times.append(received)
            item = self.script.popleft() if self.script else None
        if not authorization.startswith("Bearer ") or len(authorization) <= len("Bearer "):
            return 401, {"error": {"message": "missing API key", "type": "invalid_request_error"}}, {}
        if self.reject_schema and (request.get("response_format") or {}).get("type") == "json_schema":
            return 400, {"error": {"message": "response_format json_schema is not supported",
                                   "type": "invalid_request_error", "param": "response_format"}}, {}
        refusal = PROVIDERS[self.provider](request.get("response_format"))
        if refusal is not None:
            return refusal[0], refusal[1], {}
        for param in self.reject_params:
            if param in request:
                hint = " Use 'max_completion_tokens' instead." if param == "max_tokens" else ""
                return 400, {"error": {"message": f"Unsupported parameter: '{param}' is not supported with this "
                                                  f"model.{hint}", "type": "invalid_request_error", "param": param,
                                       "code": "unsupported_parameter"}}, {}
        if self.latency:
            time.sleep(self.latency)
        if item is None:
            item = self.responder(request)
        if isinstance(item, Fault):
            if item.sleep:
                time.sleep(item.sleep)
            headers = {"Retry-After": f"{item.retry_after:g}"} if item.retry_after is not None else {}
            if item.body is not None or item.status != 200:
                return item.status, item.body or {}, headers
            item = self.responder(request)  # a slow answer, usually too late for the client
        content = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
        prompt_tokens = estimate_tokens(message_text(request))
        completion_tokens = estimate_tokens(content)
        with self._lock:
            self.answered += 1
            self.tokens_in += prompt_tokens
            self.tokens_out += completion_tokens
            self.spans.append((received, time.monotonic(), request))
        return 200, {
            "id": f"chatcmpl-fake-{len(self.calls)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }, ({"x-ratelimit-remaining-requests": str(self.remaining_requests())} if self.remaining_requests else {})
