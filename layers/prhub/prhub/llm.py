"""The LLM analyst: per-PR judgement and the week's narrative through any OpenAI-compatible endpoint.

    LlmScorer(chat, language)            per-PR judgement by the model (prhub.scorers decides who scores)
    model_narrative(draft, config, chat, cache) -> Narration   the narrative; the engine's text wherever the model fails

The deterministic engine stays underneath: its result is the model's fact sheet,
the yardstick of the injection guard and the answer whenever the model fails
(API error, an answer still invalid after one repair, the run's token budget
spent). Numbers the report prints (lines, counts, averages) always come from the
data; the narrative's are checked by prhub.factguard.

Which endpoint, key and model a run uses is prhub.scorers' business.

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
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, cast

from aws_lambda_powertools import Logger
from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from prhub import narrative
from prhub.aws import LazyClient
from prhub.config import RepoConfig
from prhub.factguard import Facts, check_prs, check_text
from prhub.models import PullRequest, Risk, ScoredPR
from prhub.prompting import estimate_tokens, pr_prompt, prompt_version, render, repair_message
from prhub.report import Narration, Report
from prhub.scorers import Endpoint, Scorers
from prhub.scoring import Budget, HeuristicScorer, Scorer
from prhub.secrets import Secrets

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
INJECTION = re.compile(
    r"ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+instructions|disregard\s+(?:all\s+)?"
    r"(?:previous|prior|above)|(?:rate|score)\s+(?:this|it)(?:\s+PR)?\s+(?:as\s+|an?\s+)?10\b|you\s+are\s+now\s+"
    r"|system\s+prompt|忽略(?:之前|以上|前面|先前)的?(?:所有)?(?:指令|指示|说明)|(?:打|评)\s*10\s*分",
    re.IGNORECASE)

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


class ChatModel:
    """Chat completions asking for JSON: `json_schema` where the endpoint takes it, else `json_object`.

    OpenAI-compatible endpoints differ: some reject json_schema, reasoning models reject
    `max_tokens` (they take `max_completion_tokens`) or any non-default temperature. A 400
    naming such a parameter teaches this endpoint-and-model a quirk, remembered for the
    process, and the call is made again without it. Retries (429 honouring Retry-After, 5xx,
    timeouts, connection errors) are the openai client's own (config.llm.max_retries, timeout).
    """

    def __init__(self, endpoint: Endpoint, client: openai.OpenAI | None = None) -> None:
        self.endpoint = endpoint
        self.client = client or _openai().OpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url,
                                              timeout=endpoint.timeout, max_retries=endpoint.max_retries)
        self.url = str(self.client.base_url)
        # Quirks learnt from 400s: no_schema | max_completion_tokens | no_temperature (prhub.scorers keeps one
        # ChatModel per endpoint and process, so they are learnt once).
        self.quirks: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self.endpoint.model

    def complete(self, messages: list[dict[str, str]], name: str, schema: dict[str, Any],
                 max_tokens: int) -> Completion:
        """One answer; raises openai.APIError when the endpoint fails beyond the client's retries."""
        while True:  # ends: each pass either returns, raises, or learns one of three quirks
            quirks = self.quirks
            # Plain dicts for messages and response_format: the SDK's TypedDicts describe the same JSON.
            request: dict[str, Any] = {"model": self.model, "messages": messages}
            request["max_completion_tokens" if "max_completion_tokens" in quirks else "max_tokens"] = max_tokens
            if "no_temperature" not in quirks:
                request["temperature"] = self.endpoint.temperature
            request["response_format"] = {"type": "json_object"} if "no_schema" in quirks else {
                "type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
            try:
                response = self.client.chat.completions.create(**request)
            except _openai().BadRequestError as exc:
                quirk = self._quirk(exc, quirks)
                if quirk is None:
                    raise
                with self._lock:
                    self.quirks = self.quirks | {quirk}
                logger.info("endpoint rejected a parameter; adapting", extra={"endpoint": self.url, "quirk": quirk})
                continue
            content = (response.choices[0].message.content or "") if response.choices else ""
            usage = response.usage
            tokens_in = usage.prompt_tokens if usage else estimate_tokens(json.dumps(messages, ensure_ascii=False))
            tokens_out = usage.completion_tokens if usage else estimate_tokens(content)
            return Completion(content, int(tokens_in or 0), int(tokens_out or 0))

    @staticmethod
    def _quirk(exc: openai.BadRequestError, known: frozenset[str]) -> str | None:
        """The quirk a 400 reveals (by its `param`, else its message), if it is one not yet known."""
        body: Any = exc.body if isinstance(exc.body, dict) else {}
        error: Any = body.get("error", body)  # the SDK gives the error object, or the whole body
        error = error if isinstance(error, dict) else {}
        text = f"{error.get('param') or ''} {error.get('message') or exc}".lower()
        for quirk, words in (("max_completion_tokens", ("max_tokens",)), ("no_temperature", ("temperature",)),
                             ("no_schema", ("response_format", "json_schema", "schema"))):
            if quirk not in known and any(w in text for w in words):
                return quirk
        return None


def record_tokens(stage: str, model: str, tokens_in: int, tokens_out: int) -> None:
    """Token counts as CloudWatch metrics (EMF on stdout) where the stack names a namespace and Powertools'
    POWERTOOLS_METRICS_DISABLED / POWERTOOLS_DEV do not turn metrics off; never the key."""
    namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE")
    # single_metric prints even when POWERTOOLS_METRICS_DISABLED is set; honour Powertools' switch here.
    if not namespace or is_metrics_disabled():
        return
    for name, value in (("LlmTokensIn", tokens_in), ("LlmTokensOut", tokens_out)):
        with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace=namespace) as metric:
            metric.add_dimension(name="stage", value=stage)
            metric.add_dimension(name="model", value=model)


def describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}{f' {status}' if status else ''}"


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


def merge(engine: ScoredPR, answer: dict[str, Any], config: RepoConfig, injected: bool) -> ScoredPR:
    """The model's judgement over the engine's facts. Line and file counts, references and the engine's
    risks stay; modules declared by the author (title tags, module map) win over the model's guesses."""
    reasons = list(engine.reasons)
    importance, why = guard(answer["importance"], engine.importance, "importance")
    if why:
        reasons.append(why)
    insight, why = guard(answer["insight"], engine.insight, "insight")
    if why:
        reasons.append(why)
    risks = list(engine.risks)
    kinds = {r.kind for r in risks}
    risks += [r for r in answer["risks"] if r.kind not in kinds][:3]
    if injected:
        risks.append(Risk("prompt_injection", "the PR text addresses instructions to an AI reviewer; they were "
                                              "ignored and the scores checked against the engine's"))
    modules = engine.modules if engine.modules and engine.modules != ["misc"] else (answer["modules"] or
                                                                                    engine.modules)
    breaking = engine.breaking or answer["breaking"]
    if breaking and "breaking" not in {r.kind for r in risks}:  # the model saw a break the engine did not
        risks.insert(0, Risk("breaking", answer["breaking_reason"] or engine.breaking_reason))
    return replace(
        engine, importance=importance, insight=insight, key=importance >= config.key_threshold,
        modules=modules, type="revert" if engine.type == "revert" else answer["type"], breaking=breaking,
        breaking_reason=(answer["breaking_reason"] or engine.breaking_reason) if breaking else "",
        risks=risks, summary=answer["summary"], key_points=answer["key_points"][:3], reasons=reasons,
        scored_by="llm",
    )


FALLBACK = "scored by the engine: "  # reason prefix; model_narrative counts these into the report's notes


def fallback(engine: ScoredPR, note: str, tokens_in: int = 0, tokens_out: int = 0) -> ScoredPR:
    """The engine's result standing in for the model's, saying why (in reasons, which report.json keeps)."""
    return replace(engine, scored_by="heuristic", note=note, reasons=[*engine.reasons, FALLBACK + note],
                   tokens_in=tokens_in, tokens_out=tokens_out)


def fallback_notes(report: Report) -> list[str]:
    """One note per cause of PRs the engine scored in place of the model (budget, outage, invalid answers)."""
    causes: Counter[str] = Counter()
    for p in report.get("prs") or []:
        for reason in p.get("reasons") or []:
            if reason.startswith(FALLBACK):
                causes[reason[len(FALLBACK):].split(":")[0].split(" (")[0]] += 1
    return [f"{n} PR(s) scored by the engine instead of the model: {cause}" for cause, n in sorted(causes.items())]


# -- the scorer -----------------------------------------------------------------------------------------------------

def pr_prompt_version(language: str) -> str:
    """The per-PR prompt version (part of the score cache key): templates, answer schema and guard."""
    return prompt_version(language, json.dumps([ANALYST_VERSION, GUARD_POINTS, PR_SCHEMA], sort_keys=True))


class LlmScorer:
    """Scores a PR with the model, the engine's result as facts, guard and fallback."""

    kind = "llm"

    def __init__(self, chat: ChatModel, language: str, engine: HeuristicScorer | None = None) -> None:
        self.chat = chat
        self.model: str | None = chat.model
        self.engine = engine or HeuristicScorer(language=language)
        self.prompt_version = pr_prompt_version(language)

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR:
        engine = self.engine.score(pr, config, budget)
        prompt = pr_prompt(pr, engine, config)
        messages = prompt.messages
        injected = bool(INJECTION.search(f"{pr.title}\n{pr.body}"))
        spent_in = spent_out = 0
        errors: list[str] = []
        for attempt in range(2):  # the answer, then at most one repair
            if budget.remaining() <= estimate_tokens("".join(m["content"] for m in messages)):
                return fallback(engine, "budget exhausted: the run's model tokens are spent", spent_in, spent_out)
            try:
                answer = self.chat.complete(messages, "prhub_pr", PR_SCHEMA, PR_ANSWER_TOKENS)
            except _openai().APIError as exc:
                logger.warning("model call failed, engine scores the PR",
                               extra={"number": pr.number, "error": describe(exc)})
                return fallback(engine, f"model unavailable ({describe(exc)})", spent_in, spent_out)
            spent_in += answer.tokens_in
            spent_out += answer.tokens_out
            budget.spend(answer.tokens_in + answer.tokens_out)
            record_tokens("pr", self.chat.model, answer.tokens_in, answer.tokens_out)
            parsed, errors = validate_pr_answer(answer.content, config.language)
            if not errors:
                scored = merge(engine, parsed, config, injected)
                scored.tokens_in, scored.tokens_out = spent_in, spent_out
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


def _items(name: str, value: Any, facts: Facts, keys: tuple[str, ...]) -> tuple[list[dict[str, Any]], list[str]]:
    if not isinstance(value, list):
        return [], [f"{name} must be a list"]
    errors: list[str] = []
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
        text = " ".join(item[k] for k in keys)
        errors += [f"{where}: {e}" for e in check_text(text, facts) + check_prs(prs, facts)]
        cited = [int(n) for n in re.findall(r"(?<![\w&/])#(\d{1,7})\b", text)]
        numbers = list(dict.fromkeys([p for p in prs if isinstance(p, int)] + cited))
        if name == "highlights" and not numbers:
            errors.append(f"{where} must cite the PRs it is about")
        items.append({**{k: item[k].strip() for k in keys}, "prs": numbers})
    return items, errors


def check_section(name: str, value: Any, facts: Facts, lang: str) -> tuple[Any, list[str]]:
    """A narrative section normalised, and every shape, language or fact error in it."""
    if name == "summary":
        if not isinstance(value, str) or not value.strip():
            return "", ["summary must be a non-empty string"]
        errors = [f"summary: {e}" for e in check_text(value, facts)]
        if lang == "zh" and not CJK.search(value):
            errors.append("summary must be written in Chinese (中文)")
        return value.strip(), errors
    if name == "suggestions":
        if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
            return [], ["suggestions must be a list of non-empty strings"]
        kept = [s.strip() for s in value[:LIST_LIMITS[name]]]
        errors = [f"suggestions[{i}]: {e}" for i, s in enumerate(kept) for e in check_text(s, facts)]
        if len(kept) < 3:
            errors.append(f"suggestions must have 3 to 5 items, got {len(kept)}")
        return kept, errors
    keys = ("theme", "text") if name == "key_changes" else ("text",)
    items, errors = _items(name, value, facts, keys)
    # Five highlights, or one per PR in a quieter week.
    if name == "highlights" and isinstance(value, list) and len(value) < min(5, len(facts.week)):
        errors.append(f"highlights must have 5 to 7 items (one per PR when fewer than 5), got {len(value)}")
    return items, errors


def model_narrative(report: Report, config: RepoConfig, chat: ChatModel | None = None,
                    cache: NarrativeCache | None = None) -> Narration:
    """The narrative sections (SECTIONS), `scorer` with narrative_by per section and the run's tokens, and `notes`.

    A narrator for prhub.compose: `report` is the draft (analysis, title, notes). Each section
    the model writes passes check_section (shape, language, fact guard); the failing ones are
    asked for once more with the errors, then fall back to narrative.engine_narrative.
    A narrative the model wrote in full is cached (the stack's prhub.cache) under the exact prompt, so
    a re-run of an unchanged week costs no call and reports 0 narrative tokens.
    """
    result: dict[str, Any] = dict(narrative.engine_narrative(report))
    by = dict.fromkeys(SECTIONS, "heuristic")
    info: dict[str, Any] = dict(report["scorer"])
    notes = list(report.get("notes") or []) + fallback_notes(report)
    tokens_in = tokens_out = 0
    if not report.get("prs"):
        chat = None  # nothing to write about beyond what the engine says about an empty week
    if chat is not None:
        lang = config.language
        facts = Facts.from_report(report)
        messages = [{"role": "system", "content": render("narrative_system", lang, repo=config.repo)},
                    {"role": "user", "content": render("narrative_user", lang, title=report["title"],
                                                       facts=week_facts(report))}]
        used = int(info.get("tokens_in") or 0) + int(info.get("tokens_out") or 0)
        pending = list(SECTIONS)
        stopped = ""  # why the model stopped writing before every section passed
        key = narrative_key(chat, report, messages)
        cached = cache.get(key) if cache else None
        if cached is not None:
            for name in SECTIONS:
                value, problems = check_section(name, cached.get(name), facts, lang)
                if not problems:
                    result[name], by[name] = value, "llm"
            pending = [name for name in SECTIONS if by[name] != "llm"]
        for attempt in range(2 if pending else 0):
            if config.llm.max_tokens_per_run - used - tokens_in - tokens_out <= estimate_tokens(
                    "".join(m["content"] for m in messages)):
                stopped = "the run's model token budget is spent"
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
                value, problems = check_section(name, data[name], facts, lang)
                if problems:
                    failing.append(name)
                    errors += problems
                else:
                    result[name], by[name] = value, "llm"
            pending = failing
            if not pending:
                break
            if attempt == 0:
                errors += [f"{name} is missing" for name in pending if data is not None and name not in data]
                messages = [*messages, {"role": "assistant", "content": answer.content[:8000]},
                            repair_message(lang, errors[:20], only=pending)]
                logger.info("narrative sections failed the checks, asking once more",
                            extra={"sections": pending, "errors": errors[:10]})
        if cache is not None and cached is None and not pending:
            cache.put(key, {name: result[name] for name in SECTIONS})
        if pending:
            notes.append(f"narrative: the engine wrote {', '.join(pending)} because "
                         f"{stopped or 'the model text failed the checks twice'}")
        info["narrative_model"] = chat.model
    info.update({"narrative_by": by, "narrative_tokens_in": tokens_in, "narrative_tokens_out": tokens_out,
                 "tokens_in": int(info.get("tokens_in") or 0) + tokens_in,
                 "tokens_out": int(info.get("tokens_out") or 0) + tokens_out})
    return cast(Narration, {**result, "scorer": info, "notes": notes})

