"""The model's answers as data: what is asked for (the JSON schemas), what PR text may not say to the model
(injection), and how an answer is checked, guarded and merged with the engine's judgement. Pure functions:
no I/O, no client, no metrics.

    validate_pr_answer(content, lang) -> (answer, errors)    the per-PR answer, normalised, and what breaks it
    guard_fields(answer, facts), merge(engine, answer, ...)   the per-PR answer cleaned and set over the engine's
    check_section(name, value, facts, lang)                   one narrative section cleaned, and what breaks it
    fallback(engine, note)                                    the engine's result standing in for the model's

Risk kind added here: `prompt_injection` (the PR text addresses instructions to an AI reviewer; they were
ignored). Model-reported risks use the kinds in RISK_KINDS.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.models import Risk, ScoredPR
from prhub.core.report import Report
from prhub.core.text import prs_counted
from prhub.engine.wording import cause_words, joined, say
from prhub.model.factguard import CITE, INJECTION_KIND, Quotable, check_prs, clean_text

# Bumped when how an answer becomes a ScoredPR changes (merge, guard): part of prompt_version, so of the cache key.
ANALYST_VERSION = "3"
PR_TYPES = ("feat", "fix", "perf", "refactor", "docs", "test", "ci", "build", "chore", "revert")
RISK_KINDS = ("missing_tests", "breaking", "revert", "dependency_pin", "todo_left", "large_change",
              "title_convention", "doc_mismatch", "security", "performance", "compatibility", "other")
GUARD_POINTS = 3.0  # how far the model's score may stray from the engine's before it is capped
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
    answer["breaking"], answer["breaking_reason"] = _breaking(data, errors)
    answer["risks"] = _risks(data.get("risks"), errors)
    answer["summary"] = _summary(data.get("summary"), lang, errors)
    return answer, errors


def _breaking(data: dict[str, Any], errors: list[str]) -> tuple[bool, str]:
    """Whether the model calls the change breaking, and why (a reason is required when it does)."""
    if not isinstance(data.get("breaking"), bool):
        errors.append("breaking must be true or false")
    breaking = data.get("breaking") is True
    reason = data.get("breaking_reason", "")
    if not isinstance(reason, str):
        errors.append("breaking_reason must be a string")
        reason = ""
    reason = reason.strip()[:300]
    if breaking and not reason:
        errors.append("breaking is true but breaking_reason is empty")
    return breaking, reason


def _risks(risks: Any, errors: list[str]) -> list[Risk]:
    """The model's risks of the kinds it may name (RISK_KINDS); each malformed one is an error."""
    if not isinstance(risks, list):
        errors.append("risks must be a list of {kind, detail}")
        return []
    kept: list[Risk] = []
    for i, r in enumerate(risks):
        if not isinstance(r, dict) or r.get("kind") not in RISK_KINDS or not isinstance(r.get("detail"), str):
            errors.append(f"risks[{i}] must be {{kind, detail}} with kind one of {', '.join(RISK_KINDS)}")
        else:
            kept.append(Risk(str(r["kind"]), r["detail"].strip()[:300]))
    return kept


def _summary(summary: Any, lang: str, errors: list[str]) -> str:
    """The summary: one or two sentences, in Chinese for a zh report."""
    if not isinstance(summary, str) or not summary.strip():
        errors.append("summary must be a non-empty string of one or two sentences")
        return ""
    if len(summary) > 600:
        errors.append(f"summary must be one or two sentences, got {len(summary)} characters")
    elif lang == "zh" and not CJK.search(summary):
        errors.append("summary must be written in Chinese (中文)")
    return summary.strip()


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
    "zh": "PR 文本试图向 AI 评审下达指令；已忽略，此处关于它的一切均为引擎的判断",
    "en": "the PR text addresses instructions to an AI reviewer; they were ignored, and everything said of it "
          "here is the engine's",
}
OPINION = {"zh": "模型认为（引擎未找到依据）：{kind}：{detail}", "en": "the model's opinion (no evidence the engine "
           "found): {kind}: {detail}"}


def guard_fields(answer: dict[str, Any], facts: Quotable) -> tuple[dict[str, Any], list[str]]:
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


@dataclass(frozen=True)
class RepoWord:
    """What the repository's own conventions say of a PR (prhub.engine.conventions): a type, a minor marker."""

    type: str | None = None
    minor: str = ""


def merge(engine: ScoredPR, answer: dict[str, Any], config: RepoConfig, injected: bool,
          removed: Sequence[str] = (), said: RepoWord | None = None) -> ScoredPR:
    """The model's judgement over the engine's facts. Line and file counts, references and the engine's
    risks stay; modules declared by the author (title tags, module map) win over the model's guesses. The
    repository's own word (`said`, issue 48) wins too: a type its convention states stands, and a PR it marks
    minor scores no higher than the engine scored it under that marker.

    A PR whose text tries to instruct the model is the engine's alone (`injected_pr`): an answer it may have
    dictated says nothing in the report. Risks the engine checks (ENGINE_CHECKED) stand only on its evidence: the
    model's others are shown as its opinion (`model_concern`), at most one per kind, so the week's risk counts
    count PRs the data supports."""
    if injected:
        return injected_pr(engine, config.language)
    reasons = list(engine.reasons) + [GUARD + why for why in removed]
    said = said or RepoWord()
    importance, why = guard(answer["importance"], engine.importance, "importance")
    if said.minor and importance > engine.importance:
        why = (f"model importance {importance:g} over the engine's {engine.importance:g} for a PR the repository "
               f"marks '{said.minor}'; kept at the engine's")
        importance = engine.importance
    insight, why_insight = guard(answer["insight"], engine.insight, "insight")
    reasons += [w for w in (why, why_insight) if w]
    modules = engine.modules if engine.modules and engine.modules != ["misc"] else (answer["modules"] or
                                                                                    engine.modules)
    return replace(
        engine, importance=importance, insight=insight, key=importance >= config.key_threshold,
        modules=modules, type=engine.type if engine.type == "revert" or said.type else answer["type"],
        breaking=engine.breaking,
        breaking_reason=engine.breaking_reason if engine.breaking else "",
        risks=_risks_over(engine, answer, config.language), summary=answer["summary"] or engine.summary,
        key_points=answer["key_points"][:3] or engine.key_points, reasons=reasons, scored_by="llm",
    )


INJECTED = "prompt injection"  # the fallback note of a PR caught instructing the model (fallback_notes' cause)


def injected_pr(engine: ScoredPR, lang: str) -> ScoredPR:
    """A PR whose text instructs the model: the engine's result and text with the injection flagged. Nothing the
    model answered (scores, summary, key points, risks, modules, type) is kept: it may be what the PR dictated."""
    flagged = replace(engine, risks=[*engine.risks, Risk(INJECTION_KIND,
                                                         INJECTION_RISK[lang if lang in INJECTION_RISK else "en"])])
    return fallback(flagged, f"{INJECTED}: the PR text addresses instructions to an AI reviewer, so the model's "
                             "answer was discarded")


def _risks_over(engine: ScoredPR, answer: dict[str, Any], lang: str) -> list[Risk]:
    """The engine's risks, then the model's of kinds it has no evidence for: those it checks (ENGINE_CHECKED) as
    one `model_concern`, the others as risks (at most 3)."""
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
    return risks


def guard_counts(prs: list[Any]) -> dict[str, int]:
    """Sentences the fact guard removed from the PRs' model-written fields, by reason (from their reasons)."""
    counts: Counter[str] = Counter()
    for p in prs:
        for reason in p.get("reasons") or []:
            if reason.startswith(GUARD):
                counts[reason[len(GUARD):]] += 1
    return dict(sorted(counts.items()))


FALLBACK = "scored by the engine: "  # reason prefix; fallback_notes counts these into the report's notes


def fallback(engine: ScoredPR, note: str, tokens_in: int = 0, tokens_out: int = 0) -> ScoredPR:
    """The engine's result standing in for the model's, saying why (in reasons, which report.json keeps). The
    caller counts it (the ModelFallbacks metric); prhub.flow.score marks its own stand-ins the same way."""
    return replace(engine, scored_by="heuristic", note=note, reasons=[*engine.reasons, FALLBACK + note],
                   tokens_in=tokens_in, tokens_out=tokens_out)


EARLIER = "kept from an earlier run: "  # after FALLBACK: a stand-in the score cache gave a later run
# What a run says of the stand-ins it took from the cache: the cause was the earlier run's (its budget, its
# outage), this run spent nothing on them, and asking again is one flag away. (Here, not in prhub.engine.wording,
# for now: the lead's restructuring of the report wording owns that module.)
EARLIER_NOTE = {
    "en": "{n} PR(s) with the engine's score kept from an earlier run in which the model did not score them: {cause} "
          "({prs}); this run spent nothing on them, and `prhub run --retry-model` asks the model again",
    "zh": "{n} 个 PR 沿用此前一次运行中由引擎代替模型给出的评分，当时的原因：{cause}（{prs}）；本次运行未为其花费，"
          "`prhub run --retry-model` 会重新请求模型",
}


def from_earlier_run(scored: ScoredPR) -> ScoredPR:
    """A result the score cache gave this run: an engine stand-in's reason says its cause was an earlier run's
    (report.json keeps it; fallback_notes words it so), not this run's budget or outage."""
    if not any(r.startswith(FALLBACK) and not r.startswith(FALLBACK + EARLIER) for r in scored.reasons):
        return scored
    return replace(scored, reasons=[FALLBACK + EARLIER + r[len(FALLBACK):]
                                    if r.startswith(FALLBACK) and not r.startswith(FALLBACK + EARLIER) else r
                                    for r in scored.reasons])


def fallback_notes(report: Report) -> list[str]:
    """One note per cause of PRs the engine scored in place of the model (budget, outage, invalid answers),
    naming them; the stand-ins kept from an earlier run (from_earlier_run) in notes of their own."""
    causes: dict[tuple[bool, str], list[int]] = {}
    for p in report.get("prs") or []:
        for reason in p.get("reasons") or []:
            if reason.startswith(FALLBACK):
                cause = reason[len(FALLBACK):]
                earlier = cause.startswith(EARLIER)
                cause = cause[len(EARLIER):] if earlier else cause
                causes.setdefault((earlier, cause.split(":")[0].split(" (")[0]), []).append(int(p["number"]))
    lang = str(report.get("language") or "en")
    notes = []
    for (earlier, cause), prs in sorted(causes.items()):
        named = joined(lang, [f"#{n}" for n in sorted(prs)], "comma")
        if earlier:
            notes.append(prs_counted(EARLIER_NOTE.get(lang, EARLIER_NOTE["en"]).format(
                n=len(prs), cause=cause_words(lang, cause), prs=named)))
        else:
            notes.append(say(lang, "engine_scored", n=len(prs), cause=cause_words(lang, cause), prs=named))
    return notes



def _items(name: str, value: Any, facts: Quotable, keys: tuple[str, ...]
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
        named = {*prs, *(int(n) for k in keys for n in CITE.findall(item[k]))}
        if facts.withheld & named:  # what the model says of a PR caught injecting may be what it dictated
            removed.append("injected_pr")
            continue
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


def check_section(name: str, value: Any, facts: Quotable, lang: str) -> tuple[Any, list[str], list[str]]:
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

