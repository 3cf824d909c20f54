"""The model's HTTP client: chat completions asking for JSON at any OpenAI-compatible endpoint.

    ChatModel(endpoint).complete(messages, name, schema, max_tokens) -> Completion

The one module of the layer that imports openai (on first use: it costs about half a second of a cold start,
which an engine-only worker should not pay). Here are the endpoints' differences learnt from their refusals
(quirks, the context window), the calls in flight of a process (Gate), retries, and the refusals no retry
clears (billing). A rate limit that outlasts the retries becomes ModelBusy: the PR goes back to the queue.
"""
from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics, tracing
from prhub.core.errors import HandBack
from prhub.model.endpoint import Endpoint
from prhub.model.prompting import estimate_tokens

if TYPE_CHECKING:
    import openai


def _openai() -> Any:
    """The openai package, imported on first use: it costs about half a second of every cold start,
    which an engine-only worker should not pay."""
    import openai

    return openai


_models_built = threading.Event()
_models_lock = threading.Lock()


def _build_response_models() -> None:
    """Build the pydantic models of a chat completion's answer, once per process, before any thread parses one.

    openai defers each model's build to first use, and pydantic's lazy build is not thread-safe: two threads
    parsing their first answers at once can see a half-built class ("BaseModel cannot be instantiated directly",
    AttributeError __pydantic_core_schema__). The local runner's invocations are threads of one process. ~15 ms."""
    if _models_built.is_set():
        return
    import typing

    from openai.types.chat import ChatCompletion
    from pydantic import BaseModel

    def walk(kind: Any, seen: set[type[BaseModel]]) -> None:
        if isinstance(kind, type) and issubclass(kind, BaseModel) and kind not in seen:
            seen.add(kind)
            for field in kind.model_fields.values():
                walk(field.annotation, seen)
        for argument in typing.get_args(kind):
            walk(argument, seen)

    with _models_lock:
        if not _models_built.is_set():
            seen: set[type[BaseModel]] = set()
            walk(ChatCompletion, seen)
            for model in seen:
                model.model_rebuild()
            _models_built.set()


logger = Logger(service="prhub", child=True)


@dataclass
class Completion:
    content: str
    tokens_in: int
    tokens_out: int


class Gate:
    """At most `limit` model calls in flight in this process; the provider's rate limit lowers it, and answers
    without pressure raise it again one step at a time up to `ceiling`."""

    def __init__(self, ceiling: int = 64) -> None:
        self.ceiling = self.limit = ceiling
        self.active = 0
        self._cond = threading.Condition()

    def __enter__(self) -> Gate:
        with self._cond:
            while self.active >= self.limit:
                self._cond.wait()
            self.active += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.active -= 1
            self._cond.notify_all()

    def shrink(self, to: int) -> None:
        with self._cond:
            self.limit = max(1, min(self.limit, to))

    def grow(self) -> None:
        with self._cond:
            if self.limit < self.ceiling:
                self.limit += 1
                self._cond.notify_all()


def retry_after(headers: Any) -> float | None:
    """Seconds a 429 asks to wait: `retry-after-ms` or `retry-after` (seconds), as OpenAI-compatible APIs send."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name)) / divisor
        except (TypeError, ValueError, AttributeError):
            continue
        if math.isfinite(value) and value >= 0:
            return min(value, MAX_RETRY_AFTER)
    return None


MAX_RETRY_AFTER = 60.0  # a longer wait is the queue's to take (ModelBusy), not one call's
BUSY_WAIT = 30.0  # s a PR waits in the queue after a 429 that named no wait (DashScope names none)


class ModelBusy(HandBack):
    """The model's rate limit outlasted the call's retries: the PR goes back to the queue for later."""


_clients: dict[tuple[str | None, str, float], openai.OpenAI] = {}
_clients_lock = threading.Lock()
MAX_CLIENTS = 8  # distinct endpoints kept per process (a stack has one or two)


def shared_client(endpoint: Endpoint) -> openai.OpenAI:
    """The process's openai client for the endpoint's URL, key and timeout, made once: making one builds an SSL
    context from the CA bundle (about 0.2 s of CPU), which every worker and invocation would otherwise pay again.
    A batch's threads already share one (httpx's pool locks its connections); retries are ours (max_retries=0)."""
    key = (endpoint.base_url, endpoint.api_key, endpoint.timeout)
    with _clients_lock:
        if key not in _clients:
            if len(_clients) >= MAX_CLIENTS:
                _clients.pop(next(iter(_clients)))  # the oldest; whoever holds it keeps using it
            _clients[key] = _openai().OpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url,
                                             timeout=endpoint.timeout, max_retries=0)
        return _clients[key]


class ChatModel:
    """Chat completions asking for JSON: `json_schema` where the endpoint takes it, else `json_object`, else none.

    OpenAI-compatible endpoints differ: DeepSeek (400 or 422) and Qwen on DashScope outside qwen-plus reject
    json_schema, Qwen in thinking mode ("Json mode response is not supported") and some servers any
    response_format; reasoning models reject `max_tokens` (they take `max_completion_tokens`) or any non-default
    temperature. A 400 naming such a parameter teaches this endpoint-and-model a quirk, remembered for the
    process, and the call is made again without it. Ollama (>= 0.5) and vLLM take json_schema; an Ollama before
    0.5 ignores it silently, and parse_json reads the unconstrained answer. A vLLM whose context window cannot
    hold the prompt plus `max_tokens` says how much fits: that call asks for no more (see context_room), and
    the window is remembered, so later calls ask for what fits beside their prompt at once.

    Calls from a batch's threads pass one Gate. Retries are ours (config.llm.max_retries): a 429 waits its
    Retry-After (DashScope sends none: then the 5xx backoff) and halves the gate; 5xx (Ollama's 503 "server
    busy"), timeouts and connection errors back off exponentially; an answer's `x-ratelimit-remaining-requests`
    below the calls in flight shrinks the gate to it.
    """

    def __init__(self, endpoint: Endpoint, client: openai.OpenAI | None = None,
                 sleep: Any = time.sleep) -> None:
        self.endpoint = endpoint
        self.client = client or shared_client(endpoint)
        _build_response_models()
        self.url = str(self.client.base_url)
        # Quirks learnt from 400s: no_schema | no_format | max_completion_tokens | no_temperature (prhub.model.scorers
        # keeps one ChatModel per endpoint and process, so they are learnt once).
        self.quirks: frozenset[str] = frozenset()
        self.gate = Gate()
        self.sleep = sleep
        self.rate_limited = 0  # 429s seen (for tests and logs)
        # The model's context window once a refusal named it, and the most its tokenizer counted per token of our
        # estimate: a later long prompt asks for what fits at once, instead of a refusal each time.
        self.window: int | None = None
        self.tokens_per_estimate = 1.0
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self.endpoint.model

    def request(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any],
                max_tokens: int) -> dict[str, Any]:
        """The request body, as this endpoint's quirks allow."""
        quirks = self.quirks
        # Plain dicts for messages and response_format: the SDK's TypedDicts describe the same JSON.
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        request["max_completion_tokens" if "max_completion_tokens" in quirks else "max_tokens"] = max_tokens
        if "no_temperature" not in quirks:
            request["temperature"] = self.endpoint.temperature
        if "no_format" not in quirks:
            request["response_format"] = {"type": "json_object"} if "no_schema" in quirks else {
                "type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        return request

    @tracing.traced("model complete")
    def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any],
                 max_tokens: int) -> Completion:
        """One answer; raises openai.APIError when the endpoint fails beyond our retries.

        A call that timed out was still read, and maybe answered, by the provider, which bills it: its tokens are
        charged by estimate (the prompt sent, and the most it could answer), on the answer that came after, or on
        the error (`charged(exc)`), so a run's token and money budget count what the provider counts."""
        lost = [0, 0]
        try:
            answer = self._complete(messages, name, schema, max_tokens, lost)
        except Exception as exc:
            if any(lost):
                exc.prhub_charged = (lost[0], lost[1])  # type: ignore[attr-defined]
            raise
        answer.tokens_in += lost[0]
        answer.tokens_out += lost[1]
        return answer

    def _complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any], max_tokens: int,
                  lost: list[int]) -> Completion:
        oa = _openai()
        failures = 0
        max_tokens = self._fit(messages, max_tokens)
        while True:  # ends: each pass returns, raises, learns one of 4 quirks, lowers max_tokens or counts a failure
            quirks = self.quirks
            wait = 0.0
            with self.gate:
                try:
                    metrics.count("ModelCalls")
                    raw = self.client.chat.completions.with_raw_response.create(
                        **self.request(messages, name, schema, max_tokens))
                    response = raw.parse()
                except (oa.BadRequestError, oa.UnprocessableEntityError) as exc:  # DeepSeek answers 422 too
                    room = context_room(error_text(exc))
                    if room is not None:  # this prompt leaves less room than asked: ask for what fits, once
                        self._learn_window(error_text(exc), messages)
                        if not MIN_ANSWER_TOKENS <= room < max_tokens:
                            raise
                        logger.info("answer budget cut to the model's context window",
                                    extra={"endpoint": self.url, "max_tokens": room})
                        max_tokens = room
                        continue
                    quirk = self._quirk(exc, quirks)
                    if quirk is None:
                        raise
                    with self._lock:
                        self.quirks = self.quirks | {quirk}
                    logger.info("endpoint rejected a parameter; adapting",
                                extra={"endpoint": self.url, "quirk": quirk})
                    continue
                except (oa.RateLimitError, oa.InternalServerError, oa.APIConnectionError) as exc:
                    if billing_refusal(exc):
                        raise
                    if isinstance(exc, oa.APITimeoutError):  # sent and maybe answered: the provider bills it
                        lost[0] += sent_tokens(messages)
                        lost[1] += max_tokens
                    failures += 1
                    if failures > self.endpoint.max_retries:
                        raise
                    if isinstance(exc, oa.RateLimitError):
                        self.rate_limited += 1
                        self.gate.shrink(max(1, self.gate.active // 2))
                        wait = retry_after(exc.response.headers) or 0.0
                    wait = wait or min(8.0, 0.5 * 2 ** (failures - 1))
                else:
                    self._pace(raw.headers)
            if wait:
                self.sleep(wait)
                continue
            content = (response.choices[0].message.content or "") if response.choices else ""
            usage = response.usage
            tokens_in = usage.prompt_tokens if usage else estimate_tokens(json.dumps(messages, ensure_ascii=False))
            tokens_out = usage.completion_tokens if usage else estimate_tokens(content)
            return Completion(content, int(tokens_in or 0), int(tokens_out or 0))

    def _fit(self, messages: list[dict[str, str]], max_tokens: int) -> int:
        """`max_tokens`, or less where a known context window leaves less beside this prompt (at least
        MIN_ANSWER_TOKENS: a prompt that leaves no room is refused, as before)."""
        if self.window is None:
            return max_tokens
        prompt = math.ceil(estimate_tokens(message_text(messages)) * self.tokens_per_estimate)
        return max(MIN_ANSWER_TOKENS, min(max_tokens, self.window - prompt))

    def _learn_window(self, refusal: str, messages: list[dict[str, str]]) -> None:
        window, prompt = context_limits(refusal)
        with self._lock:
            self.window = window
            if prompt:
                self.tokens_per_estimate = max(self.tokens_per_estimate,
                                               prompt / max(1, estimate_tokens(message_text(messages))))

    def _pace(self, headers: Any) -> None:
        """Follow the provider's own count of requests left in its window (OpenAI, DeepSeek, DashScope send it)."""
        try:
            remaining = int(headers.get("x-ratelimit-remaining-requests"))
        except (TypeError, ValueError):
            self.gate.grow()
            return
        if remaining < self.gate.active:
            self.gate.shrink(max(1, remaining))
        else:
            self.gate.grow()

    @staticmethod
    def _quirk(exc: openai.APIStatusError, known: frozenset[str]) -> str | None:
        """The quirk a 400 reveals (by its `param`, else its message), if it is one not yet known.

        DashScope's "'messages' must contain the word 'json'" names response_format too, but it is about our
        prompt, not the endpoint: it is no quirk (our prompts all say JSON; tests hold them to it)."""
        text = error_text(exc)
        if "must contain the word" in text:
            return None
        format_words = ("response_format", "json_schema", "json_object", "json mode", "schema", "format")
        for quirk, words in (("max_completion_tokens", ("max_tokens",)), ("no_temperature", ("temperature",)),
                             ("no_schema", format_words), ("no_format", format_words)):
            if quirk not in known and any(w in text for w in words):
                return quirk
        return None


def error_text(exc: openai.APIStatusError) -> str:
    """A refusal's `param` and message, lower-case: the SDK gives the error object, or the whole body (vLLM's
    older `{"object": "error", "message": ...}`, FastAPI's `detail`)."""
    body: Any = exc.body if isinstance(exc.body, dict) else {}
    error: Any = body.get("error", body)
    error = error if isinstance(error, dict) else {}
    return f"{error.get('param') or ''} {error.get('message') or error.get('detail') or exc}".lower()


MIN_ANSWER_TOKENS = 256  # less room than this in the context window: no useful JSON answer fits, the call fails
_WINDOW = re.compile(r"maximum context length is (\d+)")
_PROMPT = re.compile(r"request has (\d+) input tokens|\((\d+) in the messages|messages resulted in (\d+) tokens")


def context_room(text: str) -> int | None:
    """Answer tokens that fit beside the prompt, from a context-length refusal (vLLM: "'max_tokens' or
    'max_completion_tokens' is too large: 3000. This model's maximum context length is 4096 tokens and your
    request has 2778 input tokens"; older vLLM and OpenAI: "... However, you requested 5060 tokens (4036 in the
    messages, 1024 in the completion)"); None when `text` is no such refusal. Not a quirk: it depends on the
    prompt, and its mention of max_tokens must not teach max_completion_tokens."""
    window, prompt = context_limits(text)
    if window is None:
        return None
    return window - prompt if prompt is not None else 0


def context_limits(text: str) -> tuple[int | None, int | None]:
    """(the model's context window, the prompt's tokens as it counted them) that a context-length refusal names."""
    window, prompt = _WINDOW.search(text), _PROMPT.search(text)
    used = next((int(g) for g in prompt.groups() if g), None) if prompt else None
    return (int(window.group(1)) if window else None), used


def message_text(messages: list[dict[str, str]]) -> str:
    """The messages' text, as the token estimates read it."""
    return "".join(m["content"] for m in messages)


def sent_tokens(messages: list[dict[str, str]]) -> int:
    """The prompt's tokens by estimate, with the few a provider adds per message (its role and delimiters)."""
    return estimate_tokens(message_text(messages)) + 4 * len(messages)


def charged(exc: BaseException) -> tuple[int, int]:
    """The (in, out) tokens a failed complete() is charged by estimate: its calls that timed out."""
    value = getattr(exc, "prhub_charged", (0, 0))
    return (int(value[0]), int(value[1])) if isinstance(value, tuple) and len(value) == 2 else (0, 0)


def record_tokens(stage: str, model: str, tokens_in: int, tokens_out: int) -> None:
    """Token counts as CloudWatch metrics by stage and model (prhub.cloud.metrics); never the key."""
    metrics.count("LlmTokensIn", tokens_in, stage=stage, model=model)
    metrics.count("LlmTokensOut", tokens_out, stage=stage, model=model)


def describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    billing = f" {getattr(exc, 'code', '')}" if billing_refusal(exc) else ""
    return f"{type(exc).__name__}{f' {status}' if status else ''}{billing}"


# OpenAI's 429s for a spent account or a spending limit (error.code; error.type may still be insufficient_quota):
# no wait clears them, so they are not retried. A bare insufficient_quota is not among them: DashScope's
# per-minute token throttle says it too, and clears within the minute (tests/fakes/openai_server.py).
BILLING_CODES = frozenset({"credit_balance_exhausted", "organization_spend_limit_exceeded",
                           "project_spend_limit_exceeded", "organization_usage_limit_exceeded"})


def billing_refusal(exc: Exception) -> bool:
    return str(getattr(exc, "code", "") or "") in BILLING_CODES



def model_error() -> type[Exception]:
    """What ChatModel.complete raises once the endpoint fails beyond its retries (openai.APIError), for an
    `except` clause outside this module."""
    return _openai().APIError  # type: ignore[no-any-return]


def busy_handback(exc: Exception, spent: tuple[int, int]) -> ModelBusy | None:
    """The hand-back for a call still rate limited after its retries (`spent`: the tokens of the PR's calls so
    far), or None when `exc` is no such wait (an outage, a spent account)."""
    if isinstance(exc, _openai().RateLimitError) and not billing_refusal(exc):
        return ModelBusy(f"model rate limited ({describe(exc)})", retry_after(exc.response.headers) or BUSY_WAIT,
                         spent)
    return None
