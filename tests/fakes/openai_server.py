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
refuses those parameters as OpenAI's reasoning models do; `provider=` refuses
response_format and max tokens as a named provider does (PROVIDERS: DeepSeek, Qwen on
DashScope, Ollama, vLLM), and Fault.dashscope_throttled / Fault.ollama_busy are their
rate-limit answers.
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
    def dashscope_throttled(cls, quota: bool = False) -> Fault:
        """DashScope's 429s: the request-rate limit (Throttling.RateQuota's message, Model Studio's error codes)
        or, with `quota`, the per-minute token limit in OpenAI's billing words (oh-my-pi#8476: a throttle that
        clears within the minute, not a spent account). No Retry-After: its docs name none (not confirmed
        either way); the compatible mode's `code`/`type` values for the rate limit are our guess."""
        if quota:
            return cls(429, dashscope_error("You exceeded your current quota, please check your plan and billing "
                                            "details.", "insufficient_quota", "insufficient_quota"))
        return cls(429, dashscope_error("Requests rate limit exceeded, please try again later.", "limit_requests",
                                        "limit_requests"))

    @classmethod
    def ollama_busy(cls) -> Fault:
        """Ollama past OLLAMA_MAX_QUEUE: its scheduler's ErrMaxQueue as a 503, in its OpenAI error shape
        (openai.NewError gives 503 the type api_error; not confirmed on the wire). It has no 429 locally."""
        return cls(503, {"error": {"message": "server busy, please try again.  maximum pending requests exceeded",
                                   "type": "api_error", "param": None, "code": None}})

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
    # the brief's rules (prhub.model.brief): every breaking PR and the three most important named, in the
    # report's language
    breaking = [p["number"] for p in facts.get("prs", []) if p.get("breaking")]
    top = list(dict.fromkeys([*numbers[:5], *breaking]))
    cite = ", ".join(f"#{n}" for n in top[:2])
    # The period's word as the prompt names it ("报告时段（本月）", "The period (this month)").
    named = re.search(r"报告时段（(.+?)）|The period \((.+?)\)", message_text(request, "user"))
    now = next((g for g in named.groups() if g), "") if named else ("本周" if zh else "this week")
    if zh:
        return {
            "summary": f"{now}合并 {stats.get('pr_count', 0)} 个 PR，其中关键 PR {stats.get('key_pr_count', 0)} 个。",
            "highlights": [{"text": f"亮点：#{n}", "prs": [n]} for n in top],
            "key_changes": [{"theme": "核心", "text": f"围绕 {cite} 的工作", "prs": top[:2]}] if top else [],
            "trend_notes": [{"text": "各模块走势平稳", "prs": []}],
            "risk_notes": [{"text": "留意改动最大的 PR", "prs": top[:1]}],
            "relation_notes": [{"text": f"{cite} 改动相关的代码", "prs": top[:2]}] if len(top) > 1 else [],
            "suggestions": ["补充测试", "复查改动最大的 PR", "为改动补充文档"],
        }
    return {
        "summary": f"{stats.get('pr_count', 0)} PRs were merged {now}, {stats.get('key_pr_count', 0)} of them key.",
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


Refusal = tuple[int, dict[str, Any]] | None


def _format(request: dict[str, Any]) -> str | None:
    return (request.get("response_format") or {}).get("type")


def _deepseek(request: dict[str, Any]) -> Refusal:
    """DeepSeek: text and json_object only; json_schema is a 400 with this body (seen by its users' clients,
    e.g. llm-exe#662, khoj#1336; DeepSeek's docs list text and json_object)."""
    if _format(request) == "json_schema":
        return 400, {"error": {"message": "This response_format type is unavailable now",
                               "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}}
    return None


def _deepseek_422(request: dict[str, Any]) -> Refusal:
    """DeepSeek's older answer to json_schema: a 422 from its deserialiser (litellm#7580, deep-research#22)."""
    if _format(request) == "json_schema":
        return 422, {"error": {"message": "Failed to deserialize the JSON body into the target type: "
                                          "response_format: response_format.type `json_schema` is unavailable now "
                                          "at line 1 column 1193", "type": "invalid_request_error"}}
    return None


def _no_format(request: dict[str, Any]) -> Refusal:
    """A server taking no response_format at all (older local servers). Not confirmed for a named product: the
    body is our reading of a FastAPI-style validation error."""
    if request.get("response_format") is not None:
        return 400, {"object": "error", "message": "response_format is not supported by this server",
                     "type": "BadRequestError", "param": None, "code": 400}
    return None


# Qwen on DashScope's OpenAI-compatible mode (https://dashscope.aliyuncs.com/compatible-mode/v1). Model Studio's
# "structured output" page: json_object works with most Qwen models but the system or user messages must contain
# the word JSON (case-insensitive); json_schema only with some qwen-plus models.
DASHSCOPE_SCHEMA_MODELS = ("qwen-plus",)


def dashscope_error(message: str, code: str = "invalid_parameter_error",
                    kind: str = "invalid_request_error") -> dict[str, Any]:
    """DashScope's compatible-mode error envelope, as its users' logs show it (agno#5317, handy-multi-agent#9)."""
    return {"error": {"code": code, "param": None, "message": message, "type": kind},
            "id": "chatcmpl-07df985b-fake", "request_id": "07df985b-fake"}


def _dashscope(request: dict[str, Any]) -> Refusal:
    """The json word rule's message is documented and seen verbatim in users' logs; the wording of json_schema's
    refusal by a model outside the qwen-plus family is NOT confirmed (our guess, in DashScope's envelope)."""
    fmt = _format(request)
    if fmt == "json_schema" and not str(request.get("model", "")).startswith(DASHSCOPE_SCHEMA_MODELS):
        return 400, dashscope_error("<400> InternalError.Algo.InvalidParameter: The value of response_format.type "
                                    "'json_schema' is not supported by this model.")
    said = message_text({"messages": [m for m in request.get("messages", []) if m.get("role") in ("system", "user")]})
    if fmt == "json_object" and "json" not in said.lower():
        return 400, dashscope_error("<400> InternalError.Algo.InvalidParameter: 'messages' must contain the word "
                                    "'json' in some form, to use 'response_format' of type 'json_object'.")
    return None


def _dashscope_thinking(request: dict[str, Any]) -> Refusal:
    """A Qwen3 model in thinking mode takes no structured output ("Models with thinking mode do not support
    structured output", Model Studio; the message is from presenton#184, its envelope here is not confirmed)."""
    if request.get("response_format") is not None:
        return 400, dashscope_error("<400> InternalError.Algo.InvalidParameter: Json mode response is not "
                                    "supported when enable_thinking is true")
    return None


def _ollama(request: dict[str, Any]) -> Refusal:
    """Ollama >= 0.5 (/v1/chat/completions; openai/openai.go): json_object becomes its `format: "json"`,
    json_schema its schema as `format`; max_tokens becomes num_predict, while max_completion_tokens is not a field
    of its request (silently ignored). It refuses neither."""
    return None


def _ollama_old(request: dict[str, Any]) -> Refusal:
    """Ollama before 0.5: json_schema is not a type it knows and is ignored without an error, so the model
    answers unconstrained (ollama#10001 and fabrice-ai#118 show the symptom); the fake's responder decides what
    that answer looks like."""
    return None


VLLM_CONTEXT = 4096  # the fake vLLM's --max-model-len


def _vllm(request: dict[str, Any]) -> Refusal:
    """vLLM's OpenAI server: json_schema and json_object by guided decoding, max_tokens and max_completion_tokens
    alike. A prompt plus answer budget beyond the model's window is a 400 in this body (vLLM >= 0.8 wording, as
    its users' logs quote it; older releases said "However, you requested N tokens (P in the messages, C in the
    completion)"). The fake counts prompt tokens by its own estimate, as the real one by its tokenizer."""
    prompt = estimate_tokens(message_text(request))
    asked = request.get("max_completion_tokens") or request.get("max_tokens") or 0
    if prompt >= VLLM_CONTEXT:
        message = (f"This model's maximum context length is {VLLM_CONTEXT} tokens. However, your request has "
                   f"{prompt} input tokens. Please reduce the length of the input messages. None")
    elif prompt + asked > VLLM_CONTEXT:
        message = (f"'max_tokens' or 'max_completion_tokens' is too large: {asked}. This model's maximum context "
                   f"length is {VLLM_CONTEXT} tokens and your request has {prompt} input tokens "
                   f"({asked} > {VLLM_CONTEXT} - {prompt}). None")
    else:
        return None
    return 400, {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}


PROVIDERS: dict[str, Callable[[dict[str, Any]], Refusal]] = {
    "openai": lambda request: None, "deepseek": _deepseek, "deepseek-422": _deepseek_422, "no-format": _no_format,
    "dashscope": _dashscope, "dashscope-thinking": _dashscope_thinking, "ollama": _ollama,
    "ollama-0.4": _ollama_old, "vllm": _vllm}


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
        refusal = PROVIDERS[self.provider](request)
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
