"""The LLM analyst: per-PR judgement and the week's narrative through any OpenAI-compatible endpoint.

    LlmScorer(chat, language)            per-PR judgement by the model (prhub.model.scorers decides who scores)
    model_narrative(draft, config, chat, cache) -> Narration   the narrative; the engine's text wherever the model fails

The deterministic engine stays underneath: its result is the model's fact sheet,
the yardstick of the injection guard and the answer whenever the model fails
(API error, an answer still invalid after one repair, the run's token budget
spent). Numbers the report prints (lines, counts, averages) always come from the
data; the narrative's are checked by prhub.model.factguard.

Which endpoint, key and model a run uses is prhub.model.scorers' business.

Risk kind added here: `prompt_injection` (the PR text addresses instructions to
an AI reviewer; they were ignored). Model-reported risks use the kinds in RISK_KINDS.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, cast

from aws_lambda_powertools import Logger

from prhub.cloud import metrics, tracing

from prhub.engine import narrative
from prhub.cloud.aws import LazyClient
from prhub.core.config import RepoConfig
from prhub.core.errors import HandBack
from prhub.model.factguard import CITE, Facts, check_prs, clean_text
from prhub.core.models import PullRequest, Risk, ScoredPR
from prhub.model.pricing import Prices, priced, token_limit
from prhub.model.prompting import (
    PrPrompt,
    estimate_tokens,
    narrative_messages,
    pr_prompt,
    prompt_version,
    repair_message,
)
from prhub.core.report import Narration, Report
from prhub.model.scorers import Endpoint, Scorers
from prhub.engine.scoring import Budget, HeuristicScorer, Scorer
from prhub.cloud.secrets import Secrets

if TYPE_CHECKING:
    import openai


def _openai() -> Any:
    """The openai package, imported on first use: it costs about half a second of every cold start,
    which an engine-only worker should not pay."""
    import openai

    return openai

logger = Logger(service="prhub", child=True)

# Bumped when how an answer becomes a ScoredPR changes (merge, guard): part of prompt_version, so of the cache key.
ANALYST_VERSION = "2"
PR_TYPES = ("feat", "fix", "perf", "refactor", "docs", "test", "ci", "build", "chore", "revert")
RISK_KINDS = ("missing_tests", "breaking", "revert", "dependency_pin", "todo_left", "large_change",
              "title_convention", "doc_mismatch", "security", "performance", "compatibility", "other")
GUARD_POINTS = 3.0  # how far the model's score may stray from the engine's before it is capped
PR_ANSWER_TOKENS = 1000
NARRATIVE_ANSWER_TOKENS = 3000
NARRATIVE_MAX_PRS = 80  # the week's table sent to the model: the most important PRs first
SECTIONS = ("summary", "highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes", "suggestions")
LIST_LIMITS = {"highlights": 7, "key_changes": 8, "trend_notes": 5, "risk_notes": 5, "relation_notes": 5,
               "suggestions": 5}
CJK = re.compile(r"[\u3400-\u9fff]")
# Text that addresses the model instead of describing the change. Matched on normalise()d text (NFKC, no
# zero-width characters, one space), so full-width letters, "i\u200bgnore" or line breaks do not hide it.
_EN_VERB = r"(?:ignore|disregard|forget|override|bypass|skip|drop|discard|overlook)"
_EN_WHAT = (r"(?:instructions?|guidance|guidelines?|rules?|directions?|directives?|prompts?|context|constraints?|"
            r"orders?|commands?|policy|policies|system\s+message)")
_ZH_WHAT = r"(?:指令|指示|说明|提示词?|规则|要求|设定|约束|命令|规定)"
INJECTION = re.compile(
    # English: "ignore all prior guidance", "disregard the above", "forget your rules", "override the system prompt"
    rf"\b{_EN_VERB}\s+(?:(?:all|any|every|the|your|these|those|its|of)\s+){{0,3}}"
    rf"(?:previous|prior|above|earlier|preceding|former|original|initial|system|safety|scoring|reviewer'?s?)\s+"
    rf"(?:\w+\s+)?{_EN_WHAT}"
    rf"|\b{_EN_VERB}\s+(?:(?:all|any|every)\s+(?:of\s+)?)?(?:your|the\s+model'?s|the\s+ai'?s)\s+(?:\w+\s+)?{_EN_WHAT}"
    rf"|\b{_EN_VERB}\s+(?:all|any|every)\s+{_EN_WHAT}\b(?!\s+(?:in|of|for|from)\b)"
    rf"|\b(?:disregard|ignore|forget)\s+(?:(?:all|everything|anything|the)\s+)?(?:said\s+)?(?:above|before|previously)(?=\s*(?:[.,;:!]|$|and\b))"
    r"|\b(?:new|updated|real|actual)\s+instructions?\s*:"
    r"|\byou\s+are\s+(?:now|no\s+longer)\b|\bact\s+as\s+(?:an?\s+)?(?:different|new|unrestricted)\b"
    r"|\b(?:dear|attention|note\s+to|message\s+to|hey|hello|hi)\s*,?\s+(?:an?\s+|the\s+)?(?:ai|llm|language\s+model|"
    r"model|gpt|assistant|bot|automated\s+reviewer|ai\s+reviewer|reviewer\s+bot)\b"
    r"|\b(?:reveal|print|show|repeat|leak|override)\s+(?:your|the)\s+system\s+prompt\b"
    # asking for a score: "score this 10", "rate it as a 10/10", "give this PR maximum importance", "importance: 10"
    r"|\b(?:rate|score|mark|grade|rank|give|assign)\s+(?:this|it|me|my|our|the)\s*(?:pr|pull\s+request|change|"
    r"patch)?\s*(?:as|an?|at|with|to)?\s*(?:a\s+)?(?:10|ten|9|nine|max(?:imum)?|highest|top|critical|perfect|"
    r"full\s+marks)\b(?!\s*(?:ms|s|seconds|%|x|times|gb|mb|minutes))"
    r"|\b(?:importance|insight|score|priority)\s*(?:of|to|=|:|should\s+be|must\s+be|is)\s*(?:10|ten|max(?:imum)?)\b"
    r"|\bmark\s+(?:this|it)\s+(?:as\s+)?(?:a\s+)?key\b"
    # Chinese: 忽略/无视/忘记……指令, 打/给 10 分, 满分, 评为最高, 标记为关键
    rf"|(?:忽略|无视|忽视|忘记|忘掉|不要理会|跳过|覆盖)(?:掉)?(?:你|您)?(?:之前|以上|上面|前面|先前|此前|所有|全部|一切|原有|原来|系统)?"
    rf"(?:的)?(?:所有|全部|任何)?(?:的)?{_ZH_WHAT}"
    r"|(?:打|评|给|给予|评为|评|定为)\s*(?:它|这个|本|该)?\s*(?:PR|pr)?\s*(?:10|十|满)\s*分|满分|(?:评为|设为|定为|给予)(?:最高|最重要)"
    r"|(?:标记|标为|列为)(?:为)?(?:关键|重点)|你现在是|(?:致|给|亲爱的)(?:AI|人工智能|大模型|模型|评审模型|审阅模型)"
    # Japanese, Korean, Spanish, French, German, Russian, Portuguese: "ignore the previous instructions"
    r"|(?:以前|前|上記|これまで)の(?:すべての)?(?:指示|命令|指令)を?(?:無視|忘れ)|(?:指示|命令)を無視"
    r"|(?:이전|위의|모든)\s*(?:지시|지침|명령)(?:을|를|사항을)?\s*(?:무시|잊)"
    r"|\bignor(?:a|e|ez|ar)\s+(?:todas\s+|toutes\s+|tous\s+)?(?:las|les|os|as)\s+(?:\w+\s+)?(?:instrucciones|instructions|"
    r"instruções|consignes)"
    r"|\bignorier(?:e|en)?\s+(?:alle\s+)?(?:vorherigen\s+|bisherigen\s+)?(?:anweisungen|instruktionen|regeln)"
    r"|(?:игнорируй|игнорируйте|забудь|забудьте)\s+(?:все\s+)?(?:предыдущие\s+)?(?:инструкции|указания|правила)",
    re.IGNORECASE)
ZERO_WIDTH = re.compile(r"[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")


def normalise(text: str) -> str:
    """Text as an injection check reads it: NFKC (full-width letters become ASCII), zero-width characters
    and soft hyphens gone, every run of whitespace (line breaks included) one space."""
    return re.sub(r"\s+", " ", ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", text)))


def injected(text: str) -> bool:
    """Whether PR text tries to instruct the model (any language the patterns know)."""
    return bool(INJECTION.search(normalise(text)))


_ITEM = {"type": "object", "additionalProperties": False, "required": ["text", "prs"],
         "properties": {"text": {"type": "string"}, "prs": {"type": "array", "items": {"type": "integer"}}}}
PR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["importance", "insight", "modules", "type", "breaking", "breaking_reason", "risks", "summary",
                 "key_points"],
    "properties": {
        "importance": {"type": "number", "minimum": 0, "maximum": 10},
        "insight": {"type": "number", "minimum": 0, "maximum": 10},
        "modules": {"type": "array", "items": {"type": "string"}},
        "type": {"type": "string", "enum": list(PR_TYPES)},
        "breaking": {"type": "boolean"},
        "breaking_reason": {"type": "string"},
        "risks": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["kind", "detail"],
            "properties": {"kind": {"type": "string", "enum": list(RISK_KINDS)}, "detail": {"type": "string"}}}},
        "summary": {"type": "string"},
        "key_points": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    },
}
NARRATIVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": list(SECTIONS),
    "properties": {
        "summary": {"type": "string"},
        "highlights": {"type": "array", "items": _ITEM},
        "key_changes": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["theme", "text", "prs"],
            "properties": {"theme": {"type": "string"}, "text": {"type": "string"},
                           "prs": {"type": "array", "items": {"type": "integer"}}}}},
        "trend_notes": {"type": "array", "items": _ITEM},
        "risk_notes": {"type": "array", "items": _ITEM},
        "relation_notes": {"type": "array", "items": _ITEM},
        "suggestions": {"type": "array", "items": {"type": "string"}},
    },
}


# -- the endpoint ---------------------------------------------------------------------------------------------------

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
        """One answer; raises openai.APIError when the endpoint fails beyond our retries."""
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
        prompt = math.ceil(estimate_tokens(_text(messages)) * self.tokens_per_estimate)
        return max(MIN_ANSWER_TOKENS, min(max_tokens, self.window - prompt))

    def _learn_window(self, refusal: str, messages: list[dict[str, str]]) -> None:
        window, prompt = context_limits(refusal)
        with self._lock:
            self.window = window
            if prompt:
                self.tokens_per_estimate = max(self.tokens_per_estimate,
                                               prompt / max(1, estimate_tokens(_text(messages))))

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


def _text(messages: list[dict[str, str]]) -> str:
    return "".join(m["content"] for m in messages)


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


# -- answers --------------------------------------------------------------------------------------------------------

def parse_json(content: str) -> tuple[Any, list[str]]:
    """The JSON object in an answer (a ```json fence is tolerated), or errors saying why not."""
    text = content.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        # Endpoints in plain JSON mode sometimes wrap the object in a sentence; the object alone is the answer.
        start, end = text.find("{"), text.rfind("}")
        try:
            value = json.loads(text[start:end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            value = None
        if value is None:
            return None, [f"the answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"]
    if not isinstance(value, dict):
        return None, ["the answer must be one JSON object"]
    return value, []


def _score_value(data: dict[str, Any], key: str, errors: list[str]) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        errors.append(f"{key} must be a number from 0 to 10, got {value!r}")
        return 0.0
    if not 0 <= value <= 10:
        errors.append(f"{key} must be between 0 and 10, got {value!r}")
    return round(float(value), 1)


def _strings(data: dict[str, Any], key: str, errors: list[str]) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        errors.append(f"{key} must be a list of strings")
        return []
    return [v.strip() for v in value if v.strip()]


def validate_pr_answer(content: str, lang: str) -> tuple[dict[str, Any], list[str]]:
    """The model's per-PR answer, normalised, and every way it breaks the schema or the rules."""
    data, errors = parse_json(content)
    if data is None:
        return {}, errors
    missing = [k for k in PR_SCHEMA["required"] if k not in data]
    if missing:
        errors.append(f"missing keys: {', '.join(missing)}")
    answer: dict[str, Any] = {
        "importance": _score_value(data, "importance", errors),
        "insight": _score_value(data, "insight", errors),
        "modules": [m.lower()[:40] for m in _strings(data, "modules", errors)][:5],
        "key_points": [p[:300] for p in _strings(data, "key_points", errors)],
    }
    if len(answer["key_points"]) > 3:
        errors.append(f"key_points must have at most 3 items, got {len(answer['key_points'])}")
    if data.get("type") not in PR_TYPES:
        errors.append(f"type must be one of {', '.join(PR_TYPES)}, got {data.get('type')!r}")
    answer["type"] = data.get("type")
    if not isinstance(data.get("breaking"), bool):
        errors.append("breaking must be true or false")
    answer["breaking"] = data.get("breaking") is True
    reason = data.get("breaking_reason", "")
    if not isinstance(reason, str):
        errors.append("breaking_reason must be a string")
        reason = ""
    answer["breaking_reason"] = reason.strip()[:300]
    if answer["breaking"] and not answer["breaking_reason"]:
        errors.append("breaking is true but breaking_reason is empty")
    risks = data.get("risks")
    answer["risks"] = []
    if not isinstance(risks, list):
        errors.append("risks must be a list of {kind, detail}")
    else:
        for i, r in enumerate(risks):
            if not isinstance(r, dict) or r.get("kind") not in RISK_KINDS or not isinstance(r.get("detail"), str):
                errors.append(f"risks[{i}] must be {{kind, detail}} with kind one of {', '.join(RISK_KINDS)}")
            else:
                answer["risks"].append(Risk(str(r["kind"]), r["detail"].strip()[:300]))
    summary = data.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        errors.append("summary must be a non-empty string of one or two sentences")
        summary = ""
    elif len(summary) > 600:
        errors.append(f"summary must be one or two sentences, got {len(summary)} characters")
    elif lang == "zh" and not CJK.search(summary):
        errors.append("summary must be written in Chinese (中文)")
    answer["summary"] = summary.strip()
    return answer, errors


def guard(model: float, engine: float, label: str) -> tuple[float, str | None]:
    """Cap a model score that strays more than GUARD_POINTS from the engine's (what an injected
    "rate this 10" produces); the reason says so."""
    if abs(model - engine) <= GUARD_POINTS:
        return model, None
    capped = round(engine + math.copysign(GUARD_POINTS, model - engine), 1)
    return capped, (f"model {label} {model:g} was more than {GUARD_POINTS:g} points from the engine's {engine:g}; "
                    f"capped at {capped:g}")


# Risk kinds the engine checks from the data: the model's word alone does not make one (it becomes a
# `model_concern`, the model's opinion with its reason).
ENGINE_CHECKED = ("breaking", "missing_tests", "dependency_pin", "revert", "todo_left", "large_change",
                  "title_convention")
GUARD = "fact guard removed a sentence: "  # reason prefix, one per sentence; guard_counts adds them up
INJECTION_RISK = {
    "zh": "PR 文本试图向 AI 评审下达指令；已忽略，重要性与是否关键均采用引擎的判断",
    "en": "the PR text addresses instructions to an AI reviewer; they were ignored, and its importance and key "
          "flag are the engine's",
}
OPINION = {"zh": "模型认为（引擎未找到依据）：{kind}：{detail}", "en": "the model's opinion (no evidence the engine "
           "found): {kind}: {detail}"}


def guard_fields(answer: dict[str, Any], facts: Facts) -> tuple[dict[str, Any], list[str]]:
    """Every text field of a per-PR answer without the sentences the facts do not support, and the reason of each
    removal (summary, key points, breaking reason, risk details)."""
    removed: list[str] = []

    def clean(text: str) -> str:
        kept, why = clean_text(text, facts)
        removed.extend(why)
        return kept

    answer = dict(answer)
    answer["summary"] = clean(answer["summary"])
    answer["key_points"] = [k for k in (clean(p) for p in answer["key_points"]) if k]
    answer["breaking_reason"] = clean(answer["breaking_reason"])
    answer["risks"] = [Risk(r.kind, d) for r in answer["risks"] if (d := clean(r.detail))]
    return answer, removed


def merge(engine: ScoredPR, answer: dict[str, Any], config: RepoConfig, injected: bool,
          removed: Sequence[str] = ()) -> ScoredPR:
    """The model's judgement over the engine's facts. Line and file counts, references and the engine's
    risks stay; modules declared by the author (title tags, module map) win over the model's guesses.

    A PR whose text tries to instruct the model keeps the engine's importance, insight and key flag. Risks
    the engine checks (ENGINE_CHECKED) stand only on its evidence: the model's others are shown as its opinion
    (`model_concern`), at most one per kind, so the week's risk counts count PRs the data supports."""
    lang = config.language
    reasons = list(engine.reasons) + [GUARD + why for why in removed]
    if injected:
        importance, insight, key = engine.importance, engine.insight, engine.key
        reasons.append("prompt injection: the model's scores were discarded for the engine's")
    else:
        importance, why = guard(answer["importance"], engine.importance, "importance")
        if why:
            reasons.append(why)
        insight, why = guard(answer["insight"], engine.insight, "insight")
        if why:
            reasons.append(why)
        key = importance >= config.key_threshold
    risks = list(engine.risks)
    kinds = {r.kind for r in risks}
    claims = [*([Risk("breaking", answer["breaking_reason"] or "")] if answer["breaking"] else []), *answer["risks"]]
    concerns: list[str] = []
    for r in claims:
        if r.kind in kinds:
            continue  # the engine has its own evidence for this kind
        kinds.add(r.kind)
        if r.kind in ENGINE_CHECKED:
            if r.detail:
                concerns.append(OPINION[lang if lang in OPINION else "en"].format(kind=r.kind, detail=r.detail))
        elif len(risks) - len(engine.risks) < 3:
            risks.append(r)
    if concerns:
        risks.append(Risk("model_concern", "; ".join(concerns)[:600]))
    if injected:
        risks.append(Risk("prompt_injection", INJECTION_RISK[lang if lang in INJECTION_RISK else "en"]))
    modules = engine.modules if engine.modules and engine.modules != ["misc"] else (answer["modules"] or
                                                                                    engine.modules)
    return replace(
        engine, importance=importance, insight=insight, key=key,
        modules=modules, type="revert" if engine.type == "revert" else answer["type"], breaking=engine.breaking,
        breaking_reason=engine.breaking_reason if engine.breaking else "",
        risks=risks, summary=answer["summary"] or engine.summary,
        key_points=answer["key_points"][:3] or engine.key_points, reasons=reasons, scored_by="llm",
    )


def guard_counts(prs: list[Any]) -> dict[str, int]:
    """Sentences the fact guard removed from the PRs' model-written fields, by reason (from their reasons)."""
    counts: Counter[str] = Counter()
    for p in prs:
        for reason in p.get("reasons") or []:
            if reason.startswith(GUARD):
                counts[reason[len(GUARD):]] += 1
    return dict(sorted(counts.items()))


FALLBACK = "scored by the engine: "  # reason prefix; model_narrative counts these into the report's notes


def fallback(engine: ScoredPR, note: str, tokens_in: int = 0, tokens_out: int = 0) -> ScoredPR:
    """The engine's result standing in for the model's, saying why (in reasons, which report.json keeps)."""
    metrics.count("ModelFallbacks")
    return replace(engine, scored_by="heuristic", note=note, reasons=[*engine.reasons, FALLBACK + note],
                   tokens_in=tokens_in, tokens_out=tokens_out)


def fallback_notes(report: Report) -> list[str]:
    """One note per cause of PRs the engine scored in place of the model (budget, outage, invalid answers),
    naming them."""
    causes: dict[str, list[int]] = {}
    for p in report.get("prs") or []:
        for reason in p.get("reasons") or []:
            if reason.startswith(FALLBACK):
                causes.setdefault(reason[len(FALLBACK):].split(":")[0].split(" (")[0], []).append(int(p["number"]))
    return [f"{len(prs)} PR(s) scored by the engine instead of the model: {cause} "
            f"({', '.join(f'#{n}' for n in sorted(prs))})" for cause, prs in sorted(causes.items())]


# -- the scorer -----------------------------------------------------------------------------------------------------

def pr_prompt_version(language: str) -> str:
    """The per-PR prompt version (part of the score cache key): templates, answer schema and guard."""
    return prompt_version(language, json.dumps([ANALYST_VERSION, GUARD_POINTS, PR_SCHEMA], sort_keys=True))


class LlmScorer:
    """Scores a PR with the model, the engine's result as facts, guards and fallback.

    `period` is the run's PRs: the numbers, besides the PR itself and those its title or description cite,
    that the model's text may name."""

    kind = "llm"

    def __init__(self, chat: ChatModel, language: str, engine: HeuristicScorer | None = None,
                 period: Collection[int] = ()) -> None:
        self.chat = chat
        self.model: str | None = chat.model
        self.engine = engine or HeuristicScorer(language=language)
        self.prompt_version = pr_prompt_version(language)
        self.period = frozenset(period)

    def facts(self, pr: PullRequest, engine: ScoredPR, prompt: PrPrompt) -> Facts:
        """What the model's text about `pr` may cite and quote: the PR, the period's PRs and the PRs its own text
        cites; the numbers of what it read (the prompt carries the title, description, files, diffs, the engine's
        figures) and the PR's counts."""
        cited = {int(n) for n in CITE.findall(f"{pr.title}\n{pr.body}")}
        allowed = {pr.number, *self.period, *engine.refs, *cited, *([engine.reverts] if engine.reverts else [])}
        return Facts.for_text(allowed, "\n".join(m["content"] for m in prompt.messages if m["role"] == "user"),
                              {pr.additions, pr.deletions, pr.changed_files, pr.additions + pr.deletions,
                               pr.commits or 0, len(pr.reviews), 1})

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR:
        engine = self.engine.score(pr, config, budget)
        prompt = pr_prompt(pr, engine, config)
        messages = prompt.messages
        hostile = injected(f"{pr.title}\n{pr.body}")
        spent_in = spent_out = 0
        errors: list[str] = []
        for attempt in range(2):  # the answer, then at most one repair
            reserved = estimate_tokens(_text(messages)) + PR_ANSWER_TOKENS
            if not budget.reserve(reserved):
                return fallback(engine, f"budget exhausted: {budget.exhausted}", spent_in, spent_out)
            try:
                answer = self.chat.complete(messages, "prhub_pr", PR_SCHEMA, PR_ANSWER_TOKENS)
            except _openai().APIError as exc:
                budget.settle(reserved, 0)
                if isinstance(exc, _openai().RateLimitError) and not billing_refusal(exc):
                    # Still limited after our retries: not an outage to paper over with the engine, but a wait
                    # the queue takes better than this invocation (score.py hands the PR back, then the engine).
                    raise ModelBusy(f"model rate limited ({describe(exc)})",
                                    retry_after(exc.response.headers) or BUSY_WAIT, (spent_in, spent_out)) from exc
                logger.warning("model call failed, engine scores the PR",
                               extra={"number": pr.number, "error": describe(exc)})
                return fallback(engine, f"model unavailable ({describe(exc)})", spent_in, spent_out)
            spent_in += answer.tokens_in
            spent_out += answer.tokens_out
            budget.settle(reserved, answer.tokens_in + answer.tokens_out)
            record_tokens("pr", self.chat.model, answer.tokens_in, answer.tokens_out)
            parsed, errors = validate_pr_answer(answer.content, config.language)
            if not errors:
                parsed, removed = guard_fields(parsed, self.facts(pr, engine, prompt))
                scored = merge(engine, parsed, config, hostile, removed)
                scored.tokens_in, scored.tokens_out = spent_in, spent_out
                scored.reasons.append(prompt.coverage(pr, config.language))
                if prompt.left_out:
                    scored.note = f"diff left out for {len(prompt.left_out)} files to fit the token budget"
                return scored
            if attempt == 0:
                messages = [*messages, {"role": "assistant", "content": answer.content[:4000]},
                            repair_message(config.language, errors)]
        logger.info("model answer invalid after repair", extra={"number": pr.number, "errors": errors[:5]})
        return fallback(engine, "model answer invalid after one repair: " + "; ".join(errors[:3]), spent_in,
                        spent_out)


def make_scorer(config: RepoConfig) -> Scorer:
    """The scorer `config` gets with this process's environment (the local runner's early check, tests);
    the flow asks its Deps' Scorers instead."""
    return Scorers(os.environ, Secrets(LazyClient("secretsmanager"))).scorer(config)


# -- the week's narrative -------------------------------------------------------------------------------------------

class NarrativeCache(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, value: dict[str, Any]) -> None: ...


def narrative_key(chat: ChatModel, report: Report, messages: list[dict[str, str]]) -> str:
    """What the narrative depends on: endpoint, model and the exact prompt (prompts, language, facts)."""
    digest = hashlib.sha256(json.dumps([chat.url, chat.model, messages], ensure_ascii=False,
                                       sort_keys=True).encode()).hexdigest()
    return f"narrative#{report.get('repo')}#{digest}"


def week_facts(report: Report) -> dict[str, Any]:
    """What the narrative model reads: the scored PR table and the computed statistics, nothing to compute."""
    prs = report.get("prs") or []
    table = [{k: p.get(k) for k in ("number", "title", "author", "modules", "type", "importance", "insight", "key",
                                    "breaking", "summary", "additions", "deletions", "changed_files")}
             | {"risks": sorted({r.get("kind") for r in p.get("risks") or []})}
             for p in prs[:NARRATIVE_MAX_PRS]]
    facts = {"repo": report.get("repo"), "period": report.get("period"), "stats": report.get("stats"), "prs": table,
             "modules": report.get("modules"), "hot_files": (report.get("hot_files") or [])[:10],
             "clusters": report.get("clusters"), "reverts": report.get("reverts"), "risks": report.get("risks"),
             "trends": report.get("trends"), "unscored_count": len(report.get("unscored") or [])}
    if len(prs) > NARRATIVE_MAX_PRS:
        facts["prs_not_listed"] = len(prs) - NARRATIVE_MAX_PRS
    return facts


def _items(name: str, value: Any, facts: Facts, keys: tuple[str, ...]
           ) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    if not isinstance(value, list):
        return [], [f"{name} must be a list"], []
    errors: list[str] = []
    removed: list[str] = []
    items: list[dict[str, Any]] = []
    for i, item in enumerate(value[:LIST_LIMITS[name]]):
        where = f"{name}[{i}]"
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item[k].strip() for k in keys):
            errors.append(f"{where} must be an object with non-empty {', '.join(keys)} and prs")
            continue
        prs = item.get("prs", [])
        if not isinstance(prs, list):
            errors.append(f"{where}.prs must be a list of PR numbers")
            continue
        cleaned = {}
        for k in keys:
            cleaned[k], why = clean_text(item[k], facts)
            removed += why
        bad = check_prs(prs, facts)
        removed += ["pr_number"] * len(bad)
        if not all(cleaned.values()):  # nothing left that the data supports: the item goes
            continue
        text = " ".join(cleaned[k] for k in keys)
        cited = [int(n) for n in CITE.findall(text)]
        numbers = list(dict.fromkeys([p for p in prs if isinstance(p, int) and not isinstance(p, bool)
                                      and p in facts.prs] + cited))
        if name == "highlights" and not numbers:
            removed.append("pr_number")
            continue
        items.append({**cleaned, "prs": numbers})
    return items, errors, removed


def check_section(name: str, value: Any, facts: Facts, lang: str) -> tuple[Any, list[str], list[str]]:
    """A narrative section normalised and cleaned: every sentence (or item) citing a PR, date or number the data
    does not support is removed (their reasons: the third value); the second lists shape and language errors,
    which ask the model again."""
    if name == "summary":
        if not isinstance(value, str) or not value.strip():
            return "", ["summary must be a non-empty string"], []
        kept, removed = clean_text(value, facts)
        errors = [] if kept else ["summary must say something the data supports"]
        if lang == "zh" and kept and not CJK.search(kept):
            errors.append("summary must be written in Chinese (中文)")
        return kept, errors, removed
    if name == "suggestions":
        if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
            return [], ["suggestions must be a list of non-empty strings"], []
        gone: list[str] = []
        suggestions: list[str] = []
        for s in value[:LIST_LIMITS[name]]:
            text, why = clean_text(s.strip(), facts)
            gone += why
            if text:
                suggestions.append(text)
        errors = [] if len(value) >= 3 else [f"suggestions must have 3 to 5 items, got {len(value)}"]
        return suggestions, errors, gone
    keys = ("theme", "text") if name == "key_changes" else ("text",)
    items, errors, removed = _items(name, value, facts, keys)
    # Five highlights, or one per PR in a quieter week.
    if name == "highlights" and isinstance(value, list) and len(value) < min(5, len(facts.week)):
        errors.append(f"highlights must have 5 to 7 items (one per PR when fewer than 5), got {len(value)}")
    return items, errors, removed


def model_narrative(report: Report, config: RepoConfig, chat: ChatModel | None = None,
                    cache: NarrativeCache | None = None, prices: Prices | None = None) -> Narration:
    """The narrative sections (SECTIONS), `scorer` with narrative_by per section, the run's tokens and the fact
    guard's counts, and `notes`.

    A narrator for prhub.report.compose: `report` is the draft (analysis, title, notes). Each section the model
    writes passes check_section: sentences the data does not support are removed, and a section whose shape
    or language is wrong is asked for once more with the errors, then falls back to
    narrative.engine_narrative. Whatever the guard kept is cached (the stack's prhub.cloud.cache) under the exact
    prompt once the model has answered, so a re-run of an unchanged week makes no call and reports 0 narrative
    tokens; an outage or a spent budget is not cached.
    """
    result: dict[str, Any] = dict(narrative.engine_narrative(report))
    by = dict.fromkeys(SECTIONS, "heuristic")
    info: dict[str, Any] = dict(report["scorer"])
    notes = list(report.get("notes") or []) + fallback_notes(report)
    tokens_in = tokens_out = 0
    written: Counter[str] = Counter()  # sentences the guard removed from the narrative, by reason
    if not report.get("prs"):
        chat = None  # nothing to write about beyond what the engine says about an empty week
    if chat is not None:
        lang = config.language
        facts = Facts.from_report(report)
        messages = narrative_messages(config.repo, lang, report["title"], week_facts(report))
        used = int(info.get("tokens_in") or 0) + int(info.get("tokens_out") or 0)
        limit, why = token_limit(config.llm, prices or Prices(), chat.model)  # the token or the money budget
        pending = list(SECTIONS)
        stopped = ""  # why the model stopped writing before every section passed
        key = narrative_key(chat, report, messages)
        cached = cache.get(key) if cache else None
        if isinstance(cached, dict) and isinstance(cached.get("sections"), dict):
            for name, value in cached["sections"].items():
                if name in SECTIONS:
                    result[name], by[name] = value, "llm"
            written.update({str(k): int(v) for k, v in (cached.get("removed") or {}).items()})
            pending = []
        for attempt in range(2 if pending else 0):
            if limit - used - tokens_in - tokens_out <= estimate_tokens(_text(messages)):
                stopped = why
                break
            try:
                answer = chat.complete(messages, "prhub_narrative", NARRATIVE_SCHEMA, NARRATIVE_ANSWER_TOKENS)
            except _openai().APIError as exc:
                logger.warning("narrative model call failed", extra={"error": describe(exc)})
                stopped = f"the model was unavailable ({describe(exc)})"
                break
            tokens_in += answer.tokens_in
            tokens_out += answer.tokens_out
            record_tokens("narrative", chat.model, answer.tokens_in, answer.tokens_out)
            data, errors = parse_json(answer.content)
            failing: list[str] = []
            for name in pending:
                if data is None or name not in data:
                    failing.append(name)
                    continue
                value, problems, removed = check_section(name, data[name], facts, lang)
                if problems:
                    failing.append(name)
                    errors += problems
                else:
                    result[name], by[name] = value, "llm"
                    written.update(removed)
            pending = failing
            if not pending:
                break
            if attempt == 0:
                errors += [f"{name} is missing" for name in pending if data is not None and name not in data]
                messages = [*messages, {"role": "assistant", "content": answer.content[:8000]},
                            repair_message(lang, errors[:20], only=pending)]
                logger.info("narrative sections failed the checks, asking once more",
                            extra={"sections": pending, "errors": errors[:10]})
        if cache is not None and cached is None and not stopped:
            cache.put(key, {"sections": {name: result[name] for name in SECTIONS if by[name] == "llm"},
                            "removed": dict(written)})
        if pending:
            metrics.count("ModelFallbacks")
            notes.append(f"narrative: the engine wrote {', '.join(pending)} because "
                         f"{stopped or 'the model text failed the checks twice'}")
        info["narrative_model"] = chat.model
    in_prs = guard_counts(list(report.get("prs") or []))
    total = Counter(in_prs) + written
    info.update({"narrative_by": by, "narrative_tokens_in": tokens_in, "narrative_tokens_out": tokens_out,
                 "tokens_in": int(info.get("tokens_in") or 0) + tokens_in,
                 "tokens_out": int(info.get("tokens_out") or 0) + tokens_out,
                 "guard": {"removed_sentences": sum(total.values()), "by_reason": dict(sorted(total.items())),
                           "in_prs": sum(in_prs.values()), "in_narrative": sum(written.values())}})
    record_guard(total)
    model = info.get("narrative_model") or info.get("model")
    if model:
        table = prices or Prices()
        rate = table.rate(model)
        usd = table.cost(model, info["tokens_in"], info["tokens_out"])
        info["cost"] = {"usd": usd, "prices_as_of": table.as_of, "usd_per_million_in": rate[0] if rate else None,
                        "usd_per_million_out": rate[1] if rate else None}
        if usd is not None:
            record_cost(model, usd)
        return cast(Narration, {**result, "scorer": info, "notes": notes,
                                "prs": priced(list(report.get("prs") or []), table, model)})
    return cast(Narration, {**result, "scorer": info, "notes": notes})


def record_guard(removed: Counter[str]) -> None:
    """The sentences the fact guard removed in a run, as the CloudWatch metric GuardRemovedSentences (one per
    reason, and the total; prhub.cloud.metrics)."""
    for reason, value in [("all", sum(removed.values())), *sorted(removed.items())]:
        metrics.count("GuardRemovedSentences", value, reason=reason)


def record_cost(model: str, usd: float) -> None:
    """The run's model cost as the CloudWatch metric LlmCostUsd (prhub.cloud.metrics)."""
    metrics.count("LlmCostUsd", usd, model=model)
