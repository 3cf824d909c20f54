"""Verb phrases and clauses in Chinese order: a verb, its object and the structure around them ("fix X when Y" ->
"修复 Y 时的 X", "add missing X for Y" -> "为 Y 补上缺失的 X", "bump X to V" -> "将 X 升级到 V", "remove X from Y"
-> "从 Y 中移除 X", "make X optional" -> "让 X 变为可选"), a subject before its verb ("X should use Y"), a passive
or a state ("X is None"), and a title without a verb ("X not take effect").

Clauses and verb phrases hold each other ("X to avoid Y", "stop X from sampling Y"), so they live together; noun
phrases (prhub.engine.noun_phrases) are below them and are told how to say a clause.
"""
from __future__ import annotations

import re

from prhub.engine import noun_phrases
from prhub.engine.lexicon import (
    AS_TARGET,
    CAUSATIVE,
    FOR_TARGET,
    FROM_SOURCE,
    GRAMMAR,
    INFINITIVE,
    KEPT_FROM,
    MOVED_TO,
    OBJECT_IN,
    PREPOSITIONS,
    PURPOSE_ZH,
    QUALIFIERS,
    SUBJECT_IN,
    SYMPTOMS,
    TO_TARGET,
    TOKEN,
    WITH_BASE,
    gerund,
    glossary,
    join,
    known,
    lookup,
    placed_in,
    purpose,
    split,
    unknown_verb,
    verb,
    verbatim,
)
from prhub.engine.noun_phrases import CAUSED, HEADS, TROUBLES

ADVERBS = {"always", "now", "also", "properly", "correctly", "just", "further", "explicitly", "temporarily",
           "only", "partially", "actually"}
# Adverbs that open a verb phrase and say something: said before the verb ("do not manually move X": 不再手动移动 X).
ADVERB_ZH = {"automatically": "自动", "auto": "自动", "conditionally": "按条件", "gracefully": "优雅地",
             "safely": "安全地", "manually": "手动", "explicitly": "显式", "temporarily": "临时", "temporary": "临时",
             "lazily": "延迟", "optionally": "可选地", "asynchronously": "异步", "silently": "静默",
             "uniformly": "统一", "consistently": "一致地", "fully": "完整", "always": "始终"}
# How a verb phrase is done, said last in English and before the verb in Chinese ("按顺序报告所有错误").
MANNER_ZH = {"in order": "按顺序", "in parallel": "并行", "in place": "原地", "in advance": "提前", "in bulk": "批量",
             "at once": "一次性", "on demand": "按需", "in the background": "在后台", "where possible": "尽可能",
             "if possible": "尽可能", "instead": ""}  # "use pip instead": 改用 pip says it
MANNER = re.compile(rf"^(.+?),?\s+({'|'.join(MANNER_ZH)})$", re.I)
# "scan X a block at a time": one unit after another, said before the verb (逐块扫描 X).
AT_A_TIME = re.compile(r"^(.+?),?\s+(?:a|one)\s+([a-z]+)\s+at\s+a\s+time$", re.I)
# "deprecate X in favor of Y": what replaces the thing, said after it ("弃用 X，改用 Y").
FAVOURED = re.compile(r"^(.+?)\s+in\s+favou?r\s+of\s+(.+)$", re.I)
MODALS = {"should": "应", "must": "必须", "will": "将", "can": "可以", "cannot": "无法", "can't": "无法",
          "shall": "应", "may": "可以"}
# "X is set", "X will be initialized in Y": said as the verb acting on X ("在 Y 中初始化 X").
PASSIVE = re.compile(r"^(.+?)\s+(?:is|are|was|were|gets?|got|(?:will|should|must|can|would)\s+(?:now\s+)?be|"
                     r"has\s+been|have\s+been)\s+(?:now\s+)?(not\s+)?([a-z][a-z-]*(?:ed|en)|set|built|run|put|cut|"
                     r"split|kept|left|read|shut down|sent|spent|thrown|bound|found|held)\b\s*(.*)$", re.I)
# "X is None", "X is invalid", "X is not compatible with Y": a state, said "X 为 None", "X 无效".
# "X should be non-blocking": what a fix makes true ("X 应是非阻塞的", "X 应为 list[int]").
COPULA = re.compile(r"^(.+?)\s+(?:is|are|(should|must)(?=\s+(?:not\s+)?be\s)(?:\s+be)?)\s+(not\s+)?(?:be\s+)?"
                    r"(.+)$", re.I)
# "support X via Y": the means, said first ("通过 Y 支持 X"); "over" only before a name ("over NCCL").
MEANS = re.compile(r"^(.+?)\s+(?:via|through|using|over(?=\s+[A-Z0-9`]))\s+(.+)$")
FOLDER = re.compile(r"(?:目录|目录名|路径|文件夹)$")
COLLECTIONS = re.compile(r"(?:列表|依赖|表格|集合|矩阵|list|deps|matrix)$")
VERSION = re.compile(r"(?:^|[\s=<>@~^])v?\d+(?:\.\d+)*\b")


def _phrase(text: str) -> str:
    """A noun phrase; a parenthesis in it that opens with a verb is said as a clause, and so is a whole object that
    is a gerund and its own object ("support for reading nested structs": 对读取嵌套结构体的支持). Not one inside a
    longer phrase ("on reading papers with the hf CLI"): which words it takes is then a guess."""
    if _gerund_object(text):
        return _doing(text)
    if (match := HOW_TO.search(text.strip())) and verb(TOKEN.findall(match.group(3))):
        done = clause(match.group(3))  # "how to use X": 如何使用 X (改用 is a change of tool)
        done = "使用" + done[2:] if done.startswith("改用") else done
        other, listed = re.subn(r"\s+(?:and|or)$", "", match.group(1) or "")  # "list X and how to override"
        return join([_phrase(other), "以及" if listed else "", HOW_TO_ZH[match.group(2).lower()], done])
    return noun_phrases.phrase(text, clause)


# "teach users how to pin edition", "hint how to resolve X": the way (or the time) to do something, an object
HOW_TO = re.compile(r"^(?:(.+?)\s+)?(how|when|where)\s+to\s+(.+)$", re.I)
HOW_TO_ZH = {"how": "如何", "when": "何时", "where": "在哪里"}
WHEN = r"when(?!\s+to\s)"  # a condition's "when", not "decide when to run gc" (HOW_TO)


def _gerund_object(text: str) -> bool:
    return gerund(TOKEN.findall(text)) and not any(split(text, w) for w in ("and", "or", "on", "from", *HEADS))


def _place(text: str) -> str:
    """Where a thing is, after "in", "on", ...: a name when it opens with two capitalised words ("in Skip
    Manager"), though its first word is also a verb; else a noun phrase."""
    tokens = TOKEN.findall(text)
    if len(tokens) == 2 and all(re.fullmatch(r"[A-Z][a-z]+", t) for t in tokens) and verb(tokens):
        return text
    return _phrase(text)


def clause(text: str, kind: str = "") -> str:
    """One verb phrase in Chinese order; without a verb, the type's action (fix) or the phrase itself."""
    text = re.sub(r"^let'?s\s+", "", text.strip().rstrip("."), flags=re.I)  # "Let's support X": support X
    if (match := re.match(r"^(.+?)\s+due\s+to\s+(.+)$", text, re.I)) and match.group(1).strip():
        because = match.group(2)  # "disable X due to Y": the cause first, as Chinese says it
        return join(["因", _gerund(because), "，", clause(match.group(1), kind)])
    if match := re.match(r"^(when|while|if|after|before)\s+([^,]+),\s+(.+)$", text, re.I):  # "When V-ing X, do Y"
        at = {"after": "后", "before": "前"}.get(match.group(1).lower(), "时")
        condition = _gerund(match.group(2))
        return join(["" if condition.startswith("在") else "在", condition, at, "，", clause(match.group(3), kind)])
    if match := re.match(r"^(.+?),\s+(?:with\s+support\s+for|supporting)\s+(.+)$", text, re.I):  # ", with support
        return join([clause(match.group(1), kind), "，支持", _phrase(match.group(2))])  # for A and B": 支持 A 和 B
    if (match := re.match(r"^(.+?)\s+on\s+top\s+of\s+(.+)$", text, re.I)) and match.group(1).strip():
        return join(["除", _phrase(match.group(2)), "外，", clause(match.group(1), kind)])  # "X on top of Y": 除 Y 外
    if (match := FAVOURED.match(text)) and match.group(1).strip():  # "deprecate X in favor of Y": 弃用 X，改用 Y
        return join([clause(match.group(1), kind), "，改用", _phrase(match.group(2))])
    if (match := MANNER.match(text)) and verb(TOKEN.findall(match.group(1))):  # "report all errors, in order"
        return join([MANNER_ZH[match.group(2).lower()], clause(match.group(1), kind)])
    if (match := AT_A_TIME.match(text)) and verb(TOKEN.findall(match.group(1))):  # "scan X a block at a time"
        unit = lookup(glossary()["nouns"], [match.group(2)])
        return join([f"逐{unit}" if unit and len(unit) == 1 else join(["每次一个", unit or match.group(2)]) + "地",
                     clause(match.group(1), kind)])
    tokens = TOKEN.findall(text)
    while tokens and tokens[0].lower() in ADVERBS - ADVERB_ZH.keys():
        tokens = tokens[1:]
    if (said := _qualified(tokens, kind)) is not None:
        return said
    if kind == "fix" and tokens and tokens[0].lower() in SYMPTOMS:  # "Panic in X": the failure's word, not a name
        text, tokens = text.replace(tokens[0], tokens[0].lower(), 1), [tokens[0].lower(), *tokens[1:]]
    return _plain(text, tokens, kind)


def _qualified(tokens: list[str], kind: str) -> str | None:
    """A verb phrase after an adverb that says something or a negation ("do not manually move X": 不再手动移动 X);
    None when it has neither."""
    if len(tokens) > 1 and tokens[0].lower() in ADVERB_ZH and (found := verb(tokens[1:])):  # "automatically resume X"
        how, said, zh = ADVERB_ZH[tokens[0].lower()], clause(" ".join(tokens[1:]), kind), found[1]
        if found[0] == "use":  # "always use X" says how X is used (始终使用), not a switch to it (改用)
            said, zh = said.replace(zh, "使用", 1), "使用"
        at = said.rfind(zh)  # before the main verb, last in Chinese ("在 TurboMind 中完整实现")
        return join([said[:at], how + zh, said[at + len(zh):]]) if at > 0 else join([how, said])
    if tokens and tokens[0].lower() in ("don't", "do", "never", "dont") and len(tokens) > 1:
        negated = tokens[2:] if tokens[0].lower() == "do" and tokens[1].lower() == "not" else tokens[1:]
        if verb(negated) or negated and negated[0].lower() in ADVERB_ZH and verb(negated[1:]):
            # "Don't gather logits ...": 不再汇总; "don't panic on X" says the failure it stops (不再…触发 panic)
            return join(["不再", clause(" ".join(negated), "" if kind == "fix" else kind)])
    return None


def _opening_verb(tokens: list[str], kind: str) -> tuple[str, str, int] | None:
    """The clause's opening verb (lexicon.verb); none when its first word is a noun the title opens with ("Packing
    with X", "Sampling of Y") or, in a fix, the failure it ends ("fix(tree): panic in X" had read 触发 panic, as if
    the fix added one: gin #4535)."""
    found = verb(tokens)
    first = tokens[0].lower() if tokens else ""
    if found and (first.endswith("ing") and first in glossary()["nouns"] or kind == "fix" and first in SYMPTOMS):
        return None
    return found


def _plain(text: str, tokens: list[str], kind: str) -> str:
    """A clause without its adverb: its opening verb in the structure the clause uses (_shaped); without one, its
    subject and verb, its state, or the verbless phrase (_nominal)."""
    found = _opening_verb(tokens, kind)
    if len(tokens) > 2 and tokens[0].lower() in ("default", "defaults") and tokens[1].lower() == "to":
        return _shaped("default to", "默认改为", " ".join(tokens[2:]))  # "… and default to `.agents`"
    if tokens and tokens[0].lower() == "default" and (parts := split(" ".join(tokens[1:]), "to")):
        return join(["将", _phrase(parts[0]), "默认设为", _phrase(parts[1])])  # "Default SFT loss to chunked_nll"
    if not found and (said := _fixed(text)) is not None:
        return said
    if not found and (said := _subject_verb(tokens)):
        return said
    if not found and tokens and unknown_verb(tokens[0]) and any(t.lower() in GRAMMAR for t in tokens[1:]):
        return text  # "reflect X in Y": a verb the glossary lacks; a guessed noun phrase would mislead
    moved = re.search(r"\s(?:from|into)\s", text, re.I) is not None  # "separate X from Y": the verb
    if not found or _opens_with_attribute(tokens) and not moved:
        if (stated := _stated(" ".join(tokens), kind)) is not None:  # a fix's "X should be Y" is what it makes true
            made_true = (copula := COPULA.match(" ".join(tokens))) is not None and copula.group(2) is not None
            return join(["修复", stated, "的问题"]) if kind == "fix" and not made_true else stated
        return _nominal(tokens, kind)
    key, zh, size = found
    rest = " ".join(tokens[size:]).replace(" ,", ",")
    if (undone := _back(key, rest)) is not None:
        return undone
    return _shaped(key, zh, rest)


# "add X back", "rename X back to Y": a thing restored, or set as it was.
RESTORED = {"add", "bring", "put", "re-add", "readd"}
SET_BACK = {"rename": "改回", "switch": "切换回", "change": "改回", "set": "改回", "move": "移回", "turn": "改回",
            "downgrade": "降级回", "roll": "回滚到"}  # not "revert": it quotes a title


def _back(key: str, rest: str) -> str | None:
    """"add X back (to Y)" / "add back X" -> "（为 Y）恢复 X"; "rename X back to Y" -> "将 X 改回 Y"; None
    without "back" (where "back" had stayed English: "将 "clip" mode back 重命名为 "mask" 模式")."""
    if key in SET_BACK and (match := re.match(r"^(.+?)\s+back\s+to\s+(.+)$", rest, re.I)):
        return join(["将", _phrase(match.group(1)), SET_BACK[key], _phrase(match.group(2))])
    if key not in RESTORED:
        return None
    if match := re.match(r"^back\s+(.+)$", rest, re.I):
        return join(["恢复", _phrase(match.group(1))])
    if match := re.match(r"^(.+?)\s+back(?:\s+(to|in|into|for)\s+(.+))?$", rest, re.I):
        what = join(["恢复", _phrase(match.group(1))])
        if not match.group(2):
            return what
        where = ["为", _phrase(match.group(3))] if match.group(2).lower() in ("to", "for") \
            else ["在", _phrase(match.group(3)), "中"]
        return join([*where, what])
    return None


# Verbs a title by a non-native writer puts after its subject unconjugated ("verl add rl insight"); none of them is
# the noun of a compound before an object ("fix" is: "LoRA fix for X"; "enable" is: "reward_loop enable flag").
BARE_VERBS = {"support", "add", "integrate", "implement", "introduce"}


def _bare_verb(tokens: list[str], j: int) -> str | None:
    """"model engine support mtp": the subject tokens[:j], then a BARE_VERBS verb and its object (模型引擎支持 MTP);
    None when tokens[j] is none or what follows it is no object (a symbol, a preposition: "X support / Y")."""
    word = tokens[j].lower()
    if word not in BARE_VERBS or j + 1 >= len(tokens) or not re.match(r"[\w`]", tokens[j + 1]) or \
            tokens[j + 1].lower() in GRAMMAR or any(t.lower() in BARE_VERBS for t in tokens[:j]):
        return None
    return join([_phrase(" ".join(tokens[:j])), _shaped(word, glossary()["verbs"][word], " ".join(tokens[j + 1:]))])


NOT_MODALS = {"should": "不应", "must": "不得", "will": "不会", "would": "不会", "shall": "不应", "may": "不可",
              "can": "无法", "shouldn't": "不应", "mustn't": "不得", "won't": "不会", "wouldn't": "不会"}
# "X should also use Y": 也应使用; "X should always be …": 应始终
MODAL_ADVERBS = {"also": ("也", ""), "still": ("仍", ""), "now": ("现在", ""), "always": ("", "始终")}


def _modal(tokens: list[str], j: int) -> str | None:
    """"X should (not) V Y" with its subject tokens[:j]: what a fix makes true, said as such ("`host.runner` should not
    apply to `cargo run`" -> "`host.runner` 不应作用于 `cargo run`"); None when tokens[j] is no modal or no verb the
    glossary knows follows it."""
    word, k = tokens[j].lower(), j + 1
    said: str | None = MODALS.get(word) or NOT_MODALS.get(word) if word.endswith("n't") else MODALS.get(word)
    if k < len(tokens) and tokens[k].lower() == "not" and word in NOT_MODALS:
        said, k = NOT_MODALS[word], k + 1
    if said is None:
        return None
    before, after = MODAL_ADVERBS.get(tokens[k].lower(), ("", "")) if k < len(tokens) else ("", "")
    k += bool(before or after)
    if not (found := verb(tokens[k:])):
        return None
    rest = " ".join(tokens[k + found[2]:])
    # "should use X": 应使用 X (改用 is a change of tool); "apply to X" a rule's reach: 作用于 X
    zh = "使用" if found[0] == "use" else "作用于" if found[0] == "apply" and re.match(r"to\s", rest) else found[1]
    rest = rest[3:] if zh == "作用于" else rest
    return join([_phrase(" ".join(tokens[:j])), before + said + after, _shaped(found[0], zh, rest)])


def _subject_verb(tokens: list[str]) -> str | None:
    """A sentence with its subject first: "X falls back to Y" -> "X 回退到 Y", "X should use Y" -> "X 应改用 Y",
    "X does not exceed Y" -> "X 不超出 Y" (the subject at most three words, five before a modal, none of them a
    verb)."""
    nouns = glossary()["nouns"]
    for j in range(1, min(6, len(tokens))):
        word = tokens[j].lower()
        if verb(tokens[:j]) or any(t in (",", "and", "or") for t in tokens[:j]):
            return None
        if j > 3:  # a longer subject only before a modal, which no noun is ("non-mergeable list from cli should …")
            if said := _modal(tokens, j):
                return said
            continue
        if all(t.lower() in glossary()["attributes"] for t in tokens[:j]):
            continue  # "minor fixes to X": an attribute is no subject
        negated = j + 1 if word in ("doesn't", "don't") else \
            j + 2 if word in ("does", "do") and j + 1 < len(tokens) and tokens[j + 1].lower() == "not" else 0
        # "X does not exceed Y": X 不超出 Y; "need" only so ("when needed" is no verb the glossary may hold)
        if negated and (found := verb(tokens[negated:]) or (
                ("need", "需要", 1) if tokens[negated:negated + 1] == ["need"] else None)):
            rest = " ".join(tokens[negated + found[2]:])
            return join([_phrase(" ".join(tokens[:j])), "不", _shaped(found[0], found[1], rest)])
        if said := _modal(tokens, j):
            return said
        if (said := _bare_verb(tokens, j)) is not None:
            return said
        if re.fullmatch(r"[a-z]+(?:e?s)", word) and word not in nouns and word[:-1] not in nouns and \
                (found := verb(tokens[j:])) and found[0] != word:
            rest = " ".join(tokens[j + found[2]:])
            zh = "使用" if found[0] == "use" else found[1]  # "X uses Y": 使用 (改用 is a change of tool)
            return join([_phrase(" ".join(tokens[:j])), _shaped(found[0], zh, rest)])
    return None


def _nominal(tokens: list[str], kind: str) -> str:
    """A title without a verb: "X fix" -> "修复 X", "X not take effect" -> "修复 X 不生效的问题"."""
    text = " ".join(tokens)
    if match := re.match(r"^(?:bug\s*fix|hot\s*fix)(?:es)?\s+(?:on|for|in|of|to)\s+(.+)$", text, re.I):
        return join(["修复", _phrase(match.group(1)), "的问题"])  # "bugfix on X", not "修复修复对 X 的处理"
    if match := re.match(r"^(.+?)\s+(?:does\s+not|doesn't|not|never)\s+(?:take|takes|taking)\s+effect$", text, re.I):
        return join([_phrase(match.group(1)), "不生效"]) if kind != "fix" else \
            join(["修复", _phrase(match.group(1)), "不生效的问题"])
    if (said := _undone(text)) is not None:
        return join(["修复", said, "的问题"]) if kind == "fix" else said
    if (done := re.match(r"^(.+?)\s+(corrected|fixed|updated|removed|added|renamed)$", text, re.I)) and \
            (found := verb([done.group(2)])):  # "Broken link to AI Policy corrected": 修正指向 AI Policy 的损坏的链接
        return join([found[1], _phrase(done.group(1))])
    if (match := re.match(rf"^(.+?)\s+(?:{WHEN}|while|if|after|during)\s+(.+)$", text, re.I)) and \
            not unknown_verb(tokens[0]):  # "X deadlock when Y"; not "Invalidate X when Y" (a verb it lacks)
        joint = text[match.end(1):].split()[0].lower()
        at = {"after": "后", "during": "期间"}.get(joint, "时")
        said = join([_gerund(match.group(2)), f"{at}的", _phrase(match.group(1))])
        return join(["修复", said]) if kind == "fix" else said
    if (parts := split(text, "to")) and all(verbatim(p, False) and " " not in p for p in parts):
        return join([parts[0], "改为", parts[1]])  # "`max_seq_length` to `max_length`": a rename
    if kind != "fix" and (said := _supported(text)):
        return said
    if kind != "fix" and (parts := split(text, "for")) and (match := MEANS.match(parts[0])):
        return join(["为", _phrase(parts[1]), "提供基于", _phrase(match.group(2)), "的", _phrase(match.group(1))])
    if kind == "fix" and (parts := split(text, "on")):  # "[trainer] fix: f on image and video"
        if tokens[0].lower() in SYMPTOMS:  # "panic on empty input": when it happens, 修复空输入时的 panic
            return join(["修复", _phrase(parts[1]), "时的", _phrase(parts[0])])
        return join(["修复", _phrase(parts[0]), "对", _phrase(parts[1]), "的处理"])
    if kind == "fix":
        said = _phrase(text)
        return said if said.endswith("修复") else join(["修复", said])  # "minor fixes to X": no 修复 twice
    return _phrase(text)


def _supported(text: str) -> str:
    """"PP/VPP support for X" -> "为 X 支持 PP/VPP"; "minimax m2.5 support" -> "支持 minimax m2.5" (not a list's
    last item's support, nor "X with LoRA support"); '' otherwise."""
    if match := re.match(r"^(.+?)\s+support\s+for\s+(.+)$", text, re.I):
        return join(["为", _phrase(match.group(2)), "支持", _phrase(match.group(1))])
    if things := _support_of(text):
        return join(["支持", _phrase(things)])
    return ""


def _support_of(text: str, listed: bool = False) -> str:
    """What "X support" is support of ("minimax m2.5"), not a phrase around it ("X with LoRA support", "X, Y
    support"); `listed`: a list joined by "and" may be it ("vllm v0.5.4 and v0.6.3 support"), a clause may not
    ("X and add Y support"). '' when `text` is no such phrase."""
    if not (match := re.match(r"^(?:the\s+)?(.+?)\s+support$", text, re.I)):
        return ""
    things = match.group(1)
    parts = re.split(r"\band\b", things)
    if len(parts) > 1 and not (listed and all(not verb(TOKEN.findall(part)) for part in parts[1:])):
        return ""
    return "" if re.search(r",|\b(?:with|for|in|on|to|of|from|by)\b", things, re.I) else things


UNDONE = re.compile(r"^(.+?)\s+(?:(?:is|are)\s+)?not\s+([a-z]+ed)\b\s*(?:(when|if|after|with|in|on|to)\s+(.+))?$",
                    re.I)
# "rollout key not found (when Y)": what is looked for and missing.
NOT_FOUND = re.compile(r"^(.+?)\s+(?:(?:is|are|was)\s+)?not\s+found(?:\s+(when|if|after|with|in|on)\s+(.+))?$", re.I)
# "X not working with Y", "X doesn't work when Y": a thing that fails, under what.
BROKEN = re.compile(r"^(.+?)\s+(?:(?:is|are)\s+)?(?:not\s+working|(?:does\s+not|doesn'?t|do\s+not|don'?t)\s+work)"
                    r"(?:\s+(when|if|after|with|in|on)\s+(.+))?$", re.I)
UNDONE_AT = {"when": ("在", "时"), "if": ("在", "时"), "after": ("在", "后"), "with": ("在", "下"), "in": ("在", "中"),
             "on": ("在", "上")}


# "X being ignored in Y", "X was being silently dropped", "X not being installed with Y": a thing a step wrongly did
BEING = re.compile(r"^(.+?)\s+(?:(?:is|are|was|were)\s+)?(not\s+)?being\s+(?:(\w+ly)\s+)?([a-z]+(?:ed|en|wn))\b\s*"
                   r"(?:(when|if|after|with|in|on|by)\s+(.+))?$", re.I)


def _suffered(text: str) -> str | None:
    """"X being ignored in health checks" -> "在 health 检查中 X 被忽略"; None when `text` is not one."""
    if not (match := BEING.match(text)) or not (found := verb([match.group(4)])) or \
            verb(TOKEN.findall(match.group(1))) or not _subject(match.group(1)) or \
            match.group(3) and match.group(3).lower() not in ADVERB_ZH:
        return None
    how = ADVERB_ZH.get((match.group(3) or "").lower(), "")
    done = join(["未被" if match.group(2) else "被", how, found[1]])
    joint, where = (match.group(5) or "").lower(), match.group(6)
    if joint == "by":  # "X being overwritten by Y": X 被 Y 覆盖
        return join([_phrase(match.group(1)), "被", _phrase(where), how, found[1]]) if not match.group(2) else None
    return _at(joint, where, join([_phrase(match.group(1)), done]))


def _broken(text: str) -> str | None:
    """"X not working with Y" -> "在 Y 下 X 无法正常工作", "X not found" -> "找不到 X"; None when `text` is not
    one."""
    if (lost := NOT_FOUND.match(text)) and not verb(TOKEN.findall(lost.group(1))) and \
            not re.search(r"\b\d{3}$", lost.group(1)):  # "404 not found" is the error's name
        return _at(lost.group(2), lost.group(3), join(["找不到", _phrase(lost.group(1))]))
    if not (broken := BROKEN.match(text)) or verb(TOKEN.findall(broken.group(1))):
        return None
    return _at(broken.group(2), broken.group(3), join([_phrase(broken.group(1)), "无法正常工作"]))


def _undone(text: str) -> str | None:
    """"X not applied with Y" -> "在 Y 下 X 未被应用": a thing a step did not reach, or one that fails ("X not
    working with Y"); None when `text` is neither."""
    if not (match := UNDONE.match(text)) or not (found := verb([match.group(2)])) or \
            verb(TOKEN.findall(match.group(1))) or not _subject(match.group(1)):
        return _broken(text)
    said = join([_phrase(match.group(1)), "未被", "使用" if found[0] == "use" else found[1]])
    if not match.group(3):
        return said
    if match.group(3).lower() == "to":  # "not pushed to all inputs": 未被推送到所有输入
        return join([said, "到", _phrase(match.group(4))])
    return _at(match.group(3), match.group(4), said)


def _at(joint: str | None, where: str, said: str) -> str:
    """`said` under its condition or place ("when X", "with Y", "in Z": 在 X 时, 在 Y 下, 在 Z 中)."""
    if not joint:
        return said
    before, after = UNDONE_AT[joint.lower()]
    return join([before, _gerund(where) if joint.lower() in ("when", "if", "after") else _phrase(where), after, said])


# "nccl broadcast bucket size fix", "minor BCO fixes": a noun phrase, then its fix (none of "for", "&", " - ": a
# sentence); what is fixed is named after the words that only qualify the fix ("Minor fix" names nothing).
FIXED = re.compile(rf"(?i)(?:(?:{QUALIFIERS})\s+)*(?!(?:{QUALIFIERS})\b)"
                   r"((?:(?!\b(?:for|to|in|on|with|of)\b)[^;:&])+?)\s+(?:bug\s*)?fix(?:es)?")


def _fixed(text: str) -> str | None:
    """A verbless title that names a thing and its fix, said "修复 X" ("修复 nccl 广播 bucket 大小"); None otherwise."""
    if " - " in text or not (match := FIXED.fullmatch(text)):
        return None
    return join(["修复", _phrase(match.group(1))])


def _stated(text: str, kind: str = "") -> str | None:
    """A passive or a state: "tools will be initialized in Y" -> "在 Y 中初始化工具" (the verb acting on its subject),
    "X is None" -> "X 为 None", "X is not compatible with Y" -> "X 与 Y 不兼容". None when `text` is neither."""
    if (match := PASSIVE.match(text)) and _subject(match.group(1)) and \
            (found := verb([match.group(3).split()[0]])) and match.group(3).lower() not in glossary()["attributes"]:
        if found[0] == "combine" and not match.group(2) and (used := re.match(r"^with\s+(.+)$", match.group(4), re.I)):
            # "X is combined with Y": the two used together (同时使用), not merged into one
            return join([_phrase(match.group(1)), "与", _phrase(used.group(1)), "同时使用"])
        active = _doing(f"{found[0]} {match.group(1)} {match.group(4)}".strip())
        if match.group(2):
            return join(["不再" if kind != "fix" else "未", active])
        return active
    if not (match := COPULA.match(text)) or verb(TOKEN.findall(match.group(1))) or not _subject(match.group(1)):
        return None
    return _state(match)


def _state(match: re.Match[str]) -> str | None:
    """A subject and its state (COPULA's match): "X 为 None", "X 与 Y 不兼容", "X 应是非阻塞的"."""
    subject, negated, state = _phrase(match.group(1)), bool(match.group(3)), match.group(4).strip()
    modal = (NOT_MODALS if negated else MODALS)[match.group(2).lower()] if match.group(2) else ""
    tokens = TOKEN.findall(state)
    attributes = glossary()["attributes"]
    for size in (2, 1):  # "compatible with Y", "invalid"
        word = " ".join(tokens[:size]).lower()
        if len(tokens) >= size and word in attributes:
            said = attributes[word].removesuffix("的")
            tail = _phrase(" ".join(tokens[size:]))
            if size == 2 and said.startswith(("兼容", "与")):
                return join([subject, "与", tail, modal or ("不" if negated else ""), said.removeprefix("与其")])
            if modal:  # 应是非阻塞的
                return join([subject, modal + "是" + said + "的", tail])
            return join([subject, "不" if negated else "", said, tail])
    if (len(tokens) == 1 or modal and " " not in state) and verbatim(state, False) or \
            state.lower() in ("none", "null", "true", "false", "empty"):
        return join([subject, (modal or ("不" if negated else "")) + "为", state])
    return None


def _subject(text: str) -> bool:
    """Whether `text` can be a sentence's subject: a noun phrase of at most five words, no clause inside it
    (no "when", "to", "for"...), not opened by a capitalised word the glossary does not know (a verb it lacks:
    "Assert X is applied")."""
    tokens = TOKEN.findall(text)
    if not 0 < len(tokens) <= 5 or any(t.lower() in GRAMMAR - {"the", "a", "an", "of", "all", "new", "its"}
                                       for t in tokens):
        return False
    return not unknown_verb(tokens[0], lower=False)


def _gerund(text: str) -> str:
    """A "when"/"while" clause: "initializing multiple tools" -> "初始化多个工具", "using X" -> "使用 X", "X is
    disabled" -> "禁用 X"."""
    # "offload is disabled": a state, though "offload" is a verb too; "X is not configured" a state too, 未配置
    # (not 不再配置, which says a change): a condition tells how things are
    if needed := re.match(r"^(?:it\s+is\s+)?(?:needed|necessary|required)(?:\s+(?:for|by)\s+(.+))?$", text, re.I):
        return join([_phrase(needed.group(1) or ""), "需要"])  # "when needed for disambiguation": 消歧需要时
    if (stated := _stated(text, "fix")) is not None:
        return stated
    if (undone := _undone(text)) is not None:  # "if predicates not pushed to all inputs"
        return undone
    if not verb(TOKEN.findall(text)) and (said := _subject_verb(TOKEN.findall(text))):
        return said  # "a worker restarts": worker 重启
    return _doing(text)


def _gerund_taken(_key: str, zh: str, rest: str) -> str | None:
    """"avoid triggering X when using Y": 避免在使用 Y 时触发 X, the gerund a verb and its own object; None when
    `rest` is no single gerund phrase."""
    tokens = TOKEN.findall(rest)
    if gerund(tokens) and tokens[1].lower() not in ("of", "over", "on", "with", "when", "while") \
            and not split(rest, "and") \
            and not split(rest, "or") and not re.search(r"\b(?:if|unless|until)\b", rest, re.I):
        return join([zh, _gerund(rest)])  # not "reading of files", "iterating over enums", "compressing if X"
    return None


def _doing(text: str) -> str:
    """A verb phrase inside a sentence ("by setting X", "using X", "instead of duplicating X"): its verb in base
    form even where the gerund is a glossary noun ("setting"), and "use" said 使用 (改用 names a switch)."""
    tokens = TOKEN.findall(text)
    if (found := verb(tokens)) is None or re.fullmatch(r"[a-z]+ed", tokens[0]):
        return _phrase(text)  # "due to retained value": a participle before its noun, no verb phrase
    said = _shaped(found[0], "使用" if found[0] == "use" else found[1], " ".join(tokens[found[2]:]).replace(" ,", ","))
    return said


# Verbs whose object may be told by its cause ("fix X caused by Y": noun_phrases.CAUSED).
REMEDIES = {"fix", "hotfix", "resolve", "prevent", "avoid", "handle", "address", "correct", "suppress", "catch"}


def _caused(key: str, zh: str, rest: str) -> str | None:
    """"fix X error caused by Y": 修复 Y 导致的 X 错误, the cause first, as Chinese says it; None otherwise."""
    if key in REMEDIES and (caused := CAUSED.match(rest)):
        return join([zh, _phrase(caused.group(2)), "导致的", _phrase(caused.group(1))])
    return None


def _shaped(key: str, zh: str, rest: str) -> str:
    """The verb `zh` (glossary key `key`) and its object `rest`, in the structure the title uses."""
    if not rest:
        return zh
    if key == "release" and re.match(r"^(?:version\s+)?v?\d+(?:\.\d+)+\S*$", rest, re.I):  # a version is 发布d,
        return join(["发布", re.sub(r"^version\s+", "", rest, flags=re.I)])  # memory is 释放d
    if (match := re.match(r"^to\s+(.+)$", rest, re.I)) and (aim := verb(words := TOKEN.findall(match.group(1)))) \
            and aim[0].split()[0] == words[0].lower():  # "bump to patched version": a participle is no purpose
        if key in INFINITIVE:  # "try to fix X", "make sure to keep X": 尝试修复 X
            return join([zh, _doing(match.group(1))])
        return join([zh, "，以", _doing(match.group(1))])  # "refactor to use X": 重构，以使用 X
    if key in THAT_CLAUSE and (said := _that(rest)):  # "ensure X does not exceed Y": 确保 X 不超出 Y
        return join([zh, said])
    if (how := re.match(r"^([^,:;]+?)\s+(\w+ly)$", rest)) and how.group(2).lower() in ADVERB_ZH \
            and not split(how.group(1), "and"):  # "set X safely"; in "X and do Y conditionally" it is Y's
        return join([ADVERB_ZH[how.group(2).lower()], _shaped(key, zh, how.group(1))])
    if key in ("fix", "hotfix", "resolve") and (said := _undone(rest) or _suffered(rest)) is not None:
        return join([zh, said, "的问题"])  # "fix X not applied with Y", "fix X being ignored in Y"
    for shape in (_objectless, _caused, _unsupported, _begun, _gerund_taken,
                  _contrasted, _defaulted, _conditioned, _aimed, _means, _to_shaped, _paired):
        if (said := shape(key, zh, rest)) is not None:
            return said
    if key == "depend" and rest.lower().startswith("on "):
        rest = rest[3:]
    if key == "support" and rest.lower().startswith("for "):
        return join([zh, _phrase(rest[4:])])  # "Support for Activated LoRA": 支持 Activated LoRA
    if key == "prepare" and (release := re.match(r"^(?:for\s+)?(?:the\s+)?(`?v?\d\S*)\s+releases?$", rest, re.I)):
        return join(["准备发布", _phrase(release.group(1))])  # "Prepare for `55.2.0` release": 准备发布 `55.2.0`
    if (said := _permitted(key, zh, rest)) is not None:
        return said
    return _placed(key, zh, rest)


# "Rebuild when X changes": a verb with no object, then its one condition (no second one, no clause after a comma)
OBJECTLESS_CONDITION = re.compile(r"^(when|if|after|before)\s+(?!to\s)((?:(?!\b(?:when|if|after|before)\b)[^,;:])+)$",
                                  re.I)
# "check if X": whether X (是否), no condition; "X exists when Y" says where X holds ("if none exists when building")
WHETHER = {"check", "verify", "test", "validate", "detect", "determine", "ensure", "confirm", "see", "ask"}


def _objectless(key: str, zh: str, rest: str) -> str | None:
    """"warn when X is Y" -> "在 X 过期时警告": a verb with no object, its condition said first; None otherwise."""
    if not (cond := OBJECTLESS_CONDITION.match(rest)) or key == "exist" or cond.group(1).lower() == "if" and \
            key in WHETHER:
        return None
    at = {"after": "后", "before": "前"}.get(cond.group(1).lower(), "时")
    said = _condition(cond.group(2))
    return join(["" if said.startswith("在") else "在", said, at, zh])


def _condition(text: str) -> str:
    """A verb's condition when the verb has no object ("Rebuild when X changes": 在 X 改动时重建): a clause with its
    subject or a state, else what is being done."""
    tokens = TOKEN.findall(text)
    return _subject_verb(tokens) or _stated(text) or _gerund(text)


WITHDRAWN = {"drop", "remove", "deprecate"}  # verbs that end support for a thing


def _unsupported(key: str, zh: str, rest: str) -> str | None:
    """"drop vLLM 0.16 support" -> "移除对 vLLM 0.16 的支持" (the thing is no longer supported: not "丢弃 … 支持", as
    if support were a thing thrown away); "drop Python 3.9" (a name and its version) -> "不再支持 Python 3.9"."""
    if key not in WITHDRAWN:
        return None
    if things := _support_of(rest, listed=True):
        return join(["移除" if key == "drop" else zh, "对", _phrase(things), "的支持"])
    if key == "drop" and re.fullmatch(r"[A-Z][\w.-]*\s+v?\d+(?:\.\d+)+", rest):
        return join(["不再支持", rest])
    return None


# Verbs whose object may be a sentence ("ensure (that) X does not exceed Y").
THAT_CLAUSE = {"ensure", "make sure", "check", "verify", "assert", "guarantee"}


def _that(rest: str) -> str | None:
    """The sentence a verb of THAT_CLAUSE takes, in Chinese (its subject, then a verb or a state); None when `rest`
    is a noun phrase."""
    rest, said_that = re.subn(r"^that\s+", "", rest, flags=re.I)
    tokens = TOKEN.findall(rest)
    if verb(tokens) and not (said_that and tokens[0].lower().endswith("ing")):  # "that training templates keep X"
        return None
    return _subject_verb(tokens) or (_plural_subject(tokens) if said_that else None) or _stated(rest, "fix")


def _plural_subject(tokens: list[str]) -> str | None:
    """"(check that) training chat templates keep X": a plural subject of at most three words, then a verb's bare
    form, where "that" says a sentence follows; None otherwise."""
    for j in range(1, min(4, len(tokens))):
        if any(t in (",", "and", "or") for t in tokens[:j]):
            return None
        if tokens[j - 1].lower().endswith("s") and (found := verb(tokens[j:])):
            rest = " ".join(tokens[j + found[2]:])
            return join([_phrase(" ".join(tokens[:j])), _shaped(found[0], found[1], rest)])
    return None


def _permitted(key: str, zh: str, rest: str) -> str | None:
    """"allow X to be Y" -> "允许 X 为 Y"; "allow X to target Y" -> "允许 X 指向 Y" (what X may do, a clause)."""
    if key not in ("allow", "enable", "let", "force") or not (match := re.match(r"^(.+?)\s+to\s+(.+)$", rest, re.I)):
        return None
    what, then = match.groups()
    if be := re.match(r"^be\s+(?:a|an)\s+(.+)$", then, re.I):  # a noun; "to be different with X" is left
        return join([zh, _phrase(what), "为", _phrase(be.group(1))])
    if verb(TOKEN.findall(then)) and not re.search(r"\d", then):
        return join([zh, _phrase(what), clause(then)])
    return None


def _contrasted(key: str, zh: str, rest: str) -> str | None:
    """"X instead of Y", "X rather than Y", "X, not Y" -> "X，而非 Y" (Y a verb phrase or a noun phrase)."""
    if not (match := re.match(r"^(.+?)(?:\s+instead\s+of|\s+rather\s+than|\s*,\s+not)\s+(.+)$", rest, re.I)):
        return None
    other = match.group(2)
    return join([_shaped(key, zh, match.group(1)), "，而非", _doing(other)])


def _defaulted(key: str, zh: str, rest: str) -> str | None:
    """"enable X by default" -> "默认启用 X"; "reduce X by moving Y" -> "通过移动 Y 减少 X"; "wrap X by name" ->
    "按名称封装 X"."""
    if match := re.match(r"^(.+?)\s+by\s+default$", rest, re.I):
        return join(["默认", _shaped(key, zh, match.group(1))])
    if not (parts := split(rest, "by")):
        return None
    how, way = "", parts[1]
    if (adverb := re.match(r"^(\w+ly)\s+(\S+ing\b.*)$", way)) and adverb.group(1).lower() in ADVERB_ZH:
        how, way = ADVERB_ZH[adverb.group(1).lower()], adverb.group(2)  # "by explicitly releasing X": 通过显式释放 X
    means = TOKEN.findall(way)
    if verb(means) and (re.match(r"^\S+ing\b", way) or means[0].lower() in glossary()["verbs"] and
                        means[0].lower() not in glossary()["nouns"]):  # "by setting X", "by downgrade X"
        return join(["通过", how + _doing(way), _shaped(key, zh, parts[0])])
    if key in ("sort", "group", "wrap", "filter", "split", "index", "order", "select", "key", "partition", "normalize",
               "scale", "divide", "multiply", "weight", "average"):
        zh = "缩放" if key == "scale" else zh  # "scale the loss by the token count": 按 token 数量缩放损失
        return join(["按", _phrase(parts[1]), _shaped(key, zh, parts[0])])
    return None


def _conditioned(key: str, zh: str, rest: str) -> str | None:
    """"fix X when Y" -> "修复 Y 时的 X"; "drop X after Y in Z" -> "在 Z 中丢弃 Y 后 X"."""
    if not (match := re.match(rf"^(.+?)\s+(?:{WHEN}|while|if|after|before|during|without)\s+(.+)$", rest, re.I)):
        return None
    if purpose().search(match.group(1)):
        return None  # "skip X to avoid OOM during Y": the condition is the purpose's, said with it (_aimed)
    if (aim := purpose().search(f"{match.group(2)} ")) and aim.group(1).islower():  # "clear X after resolve to
        # enable GC": the whole's purpose; not "when equal to PAD" (a name)
        then = _conditioned(key, zh, rest[:match.start(2) + aim.start()])
        return join([then, "，以", clause(match.group(2)[aim.start(1):])]) if then else None
    joint = rest[match.end(1):].split()[0]
    at = {"after": "后", "before": "前", "during": "期间"}.get(joint.lower(), "时")
    when, obj = match.group(2), _phrase(match.group(1))
    if joint.lower() == "without":  # "preserve X without expert parallelism": 在不使用专家并行时保留 X
        done = verb(TOKEN.findall(when))
        when = join(["不", clause(when)]) if done else join(["不使用", _phrase(when)])
        if key in OBJECT_IN:
            return join([zh, when, "时的", obj])
        return join(["在", when, "时", _shaped(key, zh, match.group(1))])
    if not verb(TOKEN.findall(when)) and (parts := split(when, "in")):  # "after truncation in SFT"
        return join(["在", _phrase(parts[1]), "中", _shaped(key, zh, f"{match.group(1)} {joint} {parts[0]}")])
    if key in OBJECT_IN:
        return join([zh, _gerund(when), at if "的" in obj[:6] else f"{at}的", obj])
    condition = _gerund(when)  # "在查询模式中转发 X" is its own 在: not "在在查询模式中转发 X 时"
    return join(["" if condition.startswith("在") else "在", condition, at, _shaped(key, zh, match.group(1))])


def _aimed(key: str, zh: str, rest: str) -> str | None:
    """"X so Y works" -> "X，使 Y 可用"; "X to avoid Y" -> "X，以避免 Y"; "X to Y for generating Z" -> "…，用于生成 Z"
    (okhttp's "add curl() method to Request for generating cURL commands")."""
    # after a target ("X to Y for V-ing Z"), where "for" would be read as which Y (为生成 cURL 命令的请求)
    if (match := re.match(r"^(.+?\s+to\s+.+?)\s+for\s+([a-z]+ing\s+.+)$", rest)) and \
            gerund(TOKEN.findall(match.group(2))):
        return join([_shaped(key, zh, match.group(1)), "，用于", _doing(match.group(2))])
    if match := re.match(r"^(.+?)\s+so\s+(?:that\s+)?(.+)$", rest, re.I):
        then, works = re.subn(r"\s+(?:works?|work again)$", "", match.group(2), flags=re.I)
        return join([_shaped(key, zh, match.group(1)), "，使", _phrase(then), "可用" if works else ""])
    if (how := re.search(r"\s+to\s+(\w+ly)\s+", rest)) and how.group(1).lower() in ADVERB_ZH:
        said = _aimed(key, zh, rest[:how.start(1)] + rest[how.end(1) + 1:])  # "to uniformly manage X": 以统一管理 X
        if said and "，以" in said:
            return said.replace("，以", "，以" + ADVERB_ZH[how.group(1).lower()], 1)
    if (match := purpose().search(rest)) and known(TOKEN.findall(rest[match.start(1):]), 0, False)[1] < 2:
        aim = match.group(1).lower()  # not "to ignore list" (a noun phrase the glossary knows)
        verb = glossary()["verbs"].get(aim, "")
        said = clause(f"{aim} {rest[match.end():]}")
        tail = said.removeprefix(verb) if said.startswith(verb) else said  # the purpose's verb is said once
        done = rest[:match.start()].rstrip(" ,")  # "upgrade X, to resolve Y": the comma is the purpose's
        lead = PURPOSE_ZH.get(aim, "以" + verb) if said.startswith(verb) else "以"  # "以在 fork 上运行"
        if key in CAUSATIVE and done and not split(done, "in") and not split(done, "for"):
            return join([zh, _phrase(done), _doing(rest[match.start():].strip()[3:])])  # "allow users to pass X"
        return join([_shaped(key, zh, done), "，", lead, tail])
    return None


def _begun(key: str, zh: str, rest: str) -> str | None:
    """"Start publishing X": 开始发布 X (a thing started is launched, 启动; doing something is begun); "start
    existing services" starts services."""
    words = TOKEN.findall(rest)
    if key == "start" and words and words[0].lower().endswith("ing") and verb(words) and \
            words[0].lower() not in glossary()["attributes"]:
        return join(["开始", _doing(rest)])
    return None


def _means(key: str, zh: str, rest: str) -> str | None:
    """"support X via Y" -> "通过 Y 支持 X"; "sync X over NCCL" -> "通过 NCCL 同步 X"."""
    if not (match := MEANS.match(rest)):
        return None
    way = match.group(2)
    how = "使用" if re.match(r"^.+?\s+using\s", rest) else "通过"
    # "add aliases for the command, via help": the comma closed the object, not a list ("为命令、新增别名")
    return join([how, _phrase(way), _shaped(key, zh, match.group(1).rstrip(",").rstrip())])


def _to_shaped(key: str, zh: str, rest: str) -> str | None:
    """Structures around "to"/"into": enable X to Y, bump X to V, move X to Y, refactor X into Y, add X to Y."""
    parts = split(rest, "to")
    if key == "enable" and parts:
        return join(["让", _phrase(parts[0]), "支持", _phrase(parts[1])])
    for shape in (_bumped, _moved, _put_into, _to_target):
        if (said := shape(key, zh, rest, parts)) is not None:
            return said
    return _as_target(key, zh, rest)


LATEST = re.compile(r"^(?:the\s+)?(?:latest\s+|newest\s+)?(?:stable\s+)?(?:release|version)\s+(?=v?\d)", re.I)


BUMPED_PAIR = re.compile(r"^(\S+(?:\s+\S+)?\s+to\s+v?\d\S*)\s+and\s+(\S+(?:\s+\S+)?\s+to\s+v?\d\S*)$", re.I)


def _bumped(key: str, zh: str, rest: str, parts: tuple[str, str] | None) -> str | None:
    """"bump X to 0.5.15" -> "将 X 升级到 0.5.15", "bump X from A to B" -> "将 X 从 A 升级到 B" (`parts`: `rest`
    around its last "to")."""
    if key in ("bump", "upgrade", "update", "downgrade") and parts and (source := split(parts[0], "from")) and \
            re.search(r"\d", parts[1]):  # "bump X from 0.5.14 to 0.5.15": 将 X 从 0.5.14 升级到 0.5.15
        return join(["将", _phrase(source[0]), "从", source[1], f"{zh}到", parts[1]])
    if key in ("bump", "upgrade", "update", "pin") and (pair := BUMPED_PAIR.match(rest)):  # "bump A to 1.3 and
        first, second = _bumped(key, zh, pair.group(1), split(pair.group(1), "to")), \
            _bumped(key, zh, pair.group(2), split(pair.group(2), "to"))  # B to 0.7": 将 A 升级到 1.3，将 B 升级到 0.7
        if first and second:
            return join([first, "，", second])
    if key in ("bump", "upgrade", "update", "pin", "set") and parts and re.search(r"\d", parts[1]):
        target = LATEST.sub("", parts[1])  # "to the latest release 0.69": 到 0.69
        return join(["将", _phrase(parts[0]), f"{zh}到", target]) if parts[0] else join([f"{zh}到", target])
    if key == "bump" and re.match(r"^to\s+\S*\d", rest, re.I):
        return join([f"{zh}到", rest[3:]])
    return None


def _moved(key: str, zh: str, rest: str, parts: tuple[str, str] | None) -> str | None:
    """"migrate X from A to B" -> "将 X 从 A 迁移到 B", "refactor X into Y" -> "将 X 重构为 Y", "switch from A to B"
    -> "从 A 改为 B", "switch to X" -> "改用 X"."""
    if key in ("move", "pull", "take", "factor") and (out := re.match(r"^(.+?)\s+out\s+of\s+(.+)$", rest, re.I)):
        return join(["将", _phrase(out.group(1)), "移出", _phrase(out.group(2))])  # "move X out of Y": 将 X 移出 Y
    if key in MOVED_TO and parts:
        if source := split(parts[0], "from"):  # "migrate X from A to B": 将 X 从 A 迁移到 B
            return join(["将", _phrase(source[0]), "从", _phrase(source[1]), MOVED_TO[key], _phrase(parts[1])])
        return join(["将", _phrase(parts[0]), MOVED_TO[key], _phrase(parts[1])])
    if key in ("refactor", "rename", "convert", "split") and (into := split(rest, "into") or parts):
        return join(["将", _phrase(into[0]), f"{zh}为", _phrase(into[1])])
    if key == "switch" and (match := re.match(r"^from\s+(.+?)\s+to\s+(.+)$", rest, re.I)):
        return join(["从", _phrase(match.group(1)), "改为", _phrase(match.group(2))])
    if key == "switch" and rest.lower().startswith("to "):
        return join(["改用", _phrase(rest[3:])])
    return None


def _put_into(key: str, zh: str, rest: str, parts: tuple[str, str] | None) -> str | None:
    """"add X to Y" -> "为 Y 添加 X" (a list: "将 X 加入 Y"), "merge X into Y" -> "将 X 合并到 Y"."""
    if key in ("add", "re-add") and parts:
        target = _phrase(parts[1])
        if key == "add" and not COLLECTIONS.search(target):  # added to a thing, not put into a list
            return join(["为", target, "添加", _phrase(parts[0])])
        return join(["将", _phrase(parts[0]), "加入" if key == "add" else zh, target])
    if key in ("merge", "integrate", "inject", "fold", "load", "insert", "incorporate", "embed", "put", "pull out",
               "extract", "factor out", "wire", "move", "push", "pack") and \
            (into := split(rest, "into")):
        return join(["将", _phrase(into[0]), f"{zh.removesuffix('到')}到", _phrase(into[1])])
    return None


def _to_target(key: str, zh: str, rest: str, parts: tuple[str, str] | None) -> str | None:
    """Verbs that take "X to Y" as a target (TO_TARGET): "pass X to Y" -> "将 X 传给 Y", "change X from A to B",
    "set X to Y for Z", "fall back to Y"; a verb after the target's "to" is a purpose ("update docs to document X")."""
    if key in TO_TARGET and parts and (after := TOKEN.findall(parts[1])) and len(after) > 1 and \
            after[0].lower() in glossary()["verbs"] and not known(after, 0, False)[1] > 1:
        return join([_shaped(key, zh, parts[0]), "，以", _doing(parts[1])])  # "update docs to document X": a purpose
    if key in TO_TARGET and parts and (source := split(parts[0], "from")):  # "change X from A to B": 将 X 从 A 改为 B
        return join(["将", _phrase(source[0]), "从", _phrase(source[1]), TO_TARGET[key], _phrase(parts[1])])
    if key in TO_TARGET and parts:
        if aim := split(parts[1], "for"):  # "set X to True for some scripts": 为部分脚本将 X 设为 True
            return join(["为", _phrase(aim[1]), "将", _phrase(parts[0]), TO_TARGET[key], _phrase(aim[0])])
        return join(["将", _phrase(parts[0]), TO_TARGET[key], _phrase(parts[1])])
    if rest.lower().startswith("to ") and (key in TO_TARGET or key in MOVED_TO):  # "fall back to X", "migrate to X"
        return join([TO_TARGET.get(key) or MOVED_TO[key], _phrase(rest[3:])])
    return None


def _as_target(key: str, zh: str, rest: str) -> str | None:
    """"treat X as Y" -> "将 X 视为 Y", "cap X at N" -> "将 X 限制在 N 内", "add X as Y" -> "新增 X 作为 Y"."""
    if key in AS_TARGET and (parts := split(rest, "as")):
        if aim := split(parts[1], "for"):  # "treat X as 0 for engine init": 为引擎初始化将 X 视为 0
            return join(["为", _phrase(aim[1]), "将", _phrase(parts[0]), AS_TARGET[key], _phrase(aim[0])])
        return join(["将", _phrase(parts[0]), AS_TARGET[key], _phrase(parts[1])])
    if key in ("cap", "limit", "clamp", "pin", "set") and (parts := split(rest, "at")):
        pinned = key == "pin"
        return join(["将", _phrase(parts[0]), "固定在" if pinned else "限制在", _phrase(parts[1]),
                     "" if pinned else "内"])
    if key != "give" and (parts := split(rest, "as")) and parts[0] and \
            not re.match(r"^(?:well|much|many|soon|long)\b", parts[1], re.I):
        return join([zh, _phrase(parts[0]), "作为", _phrase(parts[1])])  # "add X as an alternative engine"
    return None


def _paired(key: str, zh: str, rest: str) -> str | None:
    """make X Y, give X a Y, remove X from Y, replace X with Y, align X with Y, prevent X from appearing in Y."""
    if key == "make":
        return _make(rest)
    if key == "let":  # "Let git decide when to run gc": 让 git 决定何时运行 gc
        return _made_to(TOKEN.findall(rest)) or None
    if key == "keep" and len(tokens := TOKEN.findall(rest)) > 1 and \
            (state := glossary()["attributes"].get(tokens[-1].lower())):  # "keep X optional": 保持 X 可选
        return join(["保持", _phrase(" ".join(tokens[:-1])), state.removesuffix("的")])
    if key == "give" and (said := _given(zh, rest)) is not None:
        return said
    if key in ("remove", "drop", "exclude", "delete", "rip") and (parts := split(rest, "from")):
        return join(["从", _phrase(parts[1]), "中", zh, _phrase(parts[0])])
    if (said := _with_shaped(key, zh, rest)) is not None:
        return said
    return _from_shaped(key, zh, rest)


def _given(zh: str, rest: str) -> str | None:
    """"give X a Y" -> "为 X 提供 Y", "give X the same Y as Z" -> "让 X 的 Y 与 Z 相同"."""
    if not (match := re.match(r"^(.+?)\s+(?:the|a|an)\s+(.+)$", rest, re.I)):
        return None
    if same := re.match(r"^same\s+(.+?)\s+as\s+(.+)$", match.group(2), re.I):  # "give X the same Y as Z"
        return join(["让", _phrase(match.group(1)), "的", _phrase(same.group(1)), "与", _phrase(same.group(2)),
                     "相同"])
    return join(["为", _phrase(match.group(1)), zh, _phrase(match.group(2))])  # "give X a Y": 为 X 提供 Y


def _with_shaped(key: str, zh: str, rest: str) -> str | None:
    """"replace X with Y" -> "用 Y 替换 X", "align X with Y" -> "让 X 与 Y 对齐", "share X with Y" ->
    "将 X 与 Y 共享"."""
    if key == "replace" and (parts := split(rest, "with")):
        return join(["用", _phrase(parts[1]), "替换", _phrase(parts[0])])
    if key in ("align", "sync") and (alone := re.match(r"^with\s+(.+)$", rest, re.I)):  # "(to) align with X"
        return join(["与", _phrase(alone.group(1)), "对齐" if key == "align" else "保持一致"])
    if key in ("align", "sync") and (parts := split(rest, "with")):
        return join(["让", _phrase(parts[0]), "与", _phrase(parts[1]), "对齐" if key == "align" else "保持一致"])
    if key in ("share", "pair", "match", "compare", "merge", "combine") and (parts := split(rest, "with")):
        return join(["将", _phrase(parts[0]), "与", _phrase(parts[1]), zh])  # "share X with Y": 将 X 与 Y 共享
    return None


def _from_shaped(key: str, zh: str, rest: str) -> str | None:
    """"prevent X from appearing in Y", "stop X from sampling Y" (what is kept from happening), "move X from A to B",
    "build X from Y" (a source: "基于 Y 构建 X"), "load X from Y" -> "从 Y 中加载 X"."""
    if key == "prevent" and (match := re.match(r"^(.+?)\s+from\s+appearing\s+in\s+(.+)$", rest, re.I)):
        return join([zh, _phrase(match.group(2)), "中出现", _phrase(match.group(1))])
    if key in KEPT_FROM and (parts := split(rest, "from")) and verb(TOKEN.findall(parts[1])):
        return join([KEPT_FROM[key], _phrase(parts[0]), clause(parts[1])])  # "stop the policy from sampling X"
    if (parts := split(rest, "from")) and (moved := split(parts[1], "to")) and key in ("move", "migrate", "sync",
                                                                                            "copy", "port", "backport"):
        return join(["将", _phrase(parts[0]), "从", _phrase(moved[0]), f"{zh}到", _phrase(moved[1])])
    if key in FROM_SOURCE and (parts := split(rest, "from")):
        return join(["基于", _phrase(parts[1]), zh, _phrase(parts[0])])  # "build RL tokenizer from HFModelConfig"
    if (parts := split(rest, "from")) and not re.search(r"\bto\b", parts[1]) and key not in OBJECT_IN and \
            not re.match(r"^\S+ing\b", parts[1]):  # "fix X loading from Y", "stop X from scrolling": not a source
        return join(["从", _phrase(parts[1]), "中" if not verbatim(parts[1], False) else "", zh, _phrase(parts[0])])
    return None


def _placed(key: str, zh: str, rest: str) -> str:
    """The verb and its object with a place or target: "in Y", "on Y", "for Y", "with Y", "from Y"."""
    tokens = TOKEN.findall(rest)
    if re.fullmatch(r"[a-z]+ing", tokens[0]) and tokens[0] not in glossary()["nouns"] and verb(tokens) and \
            tokens[0] not in glossary()["attributes"] and len(tokens) > 1 and \
            tokens[1].lower() not in PREPOSITIONS:  # not "fix caching in SFT" (a noun), "use existing X" (a state)
        return join([zh, _doing(rest)])  # "prevent creating new threads for X": 防止为 X 创建新线程
    if key in ("fix", "correct") and re.match(r"^(?:a\s+|some\s+)?typos?\b", rest, re.I):
        zh = "修正"
    if (parts := split(rest, "with")) and TROUBLES.search(parts[0]):
        return join([zh, _phrase(rest)])
    if (said := _located(key, zh, rest)) is not None:
        return said
    if parts := split(rest, "for"):
        return _targeted(key, zh, parts)
    if parts := split(rest, "with"):
        return _with_placed(key, zh, rest, parts)
    if (parts := split(rest, "from")) and key in ("reuse", "load", "read", "copy", "import", "restore"):
        return join([zh, _phrase(parts[1]), "的", _phrase(parts[0])])
    if key == "pin" and not VERSION.search(rest):
        pinned = _phrase(rest)  # "pin torch" pins its version; "pin torch version" says so already
        return join([zh, pinned, "" if pinned.endswith("版本") else "版本"])
    if key == "add" and rest.lower() in ("test", "tests", "testing"):
        return "补充测试"
    return join([zh, _phrase(rest)])


ALIGNED = re.compile(r"(.+?)\s+(?:coordinated|aligned|consistent|in sync|in parity)", re.I)


def _with_placed(key: str, zh: str, rest: str, parts: tuple[str, str]) -> str:
    """The verb, its object and "with Y": which X ("prevent X with heterogeneous buffers": 防止带有异构缓冲区的 X;
    "reject X with trailing chars"), else what X is done with ("用 Y …", "基于 Y …"); "X coordinated with Y" follows
    Y ("Refactor KTO coordinated with DPO": 参照 DPO 重构 KTO)."""
    if matched := ALIGNED.fullmatch(parts[0]):
        return join(["参照", _phrase(parts[1]), zh, _phrase(matched.group(1))])
    if key in OBJECT_IN or key not in WITH_BASE | BETTERED and _described(parts[1]) or \
            re.search(r"\bsame\b", parts[0], re.I):  # "use the same X with Y": 使用与 Y 相同的 X
        return join([zh, _phrase(rest)])
    if supported := re.fullmatch(r"([^:\[]+?)\s+support", parts[1], re.I):  # X's feature: 新增支持思考的 Z.AI provider
        return join([zh, "支持", _phrase(supported.group(1)), "的", _phrase(parts[0])])
    return join(["基于" if key in WITH_BASE else "用", _phrase(parts[1]), zh, _phrase(parts[0])])


# Verbs that answer an event: after them "on" names when ("warn on import failure": 在导入失败时警告), not where.
REACTIONS = {"warn", "error", "panic", "abort", "raise", "throw", "bail"}
PLATFORMS = re.compile(r"\b(?:[cgnt]pus?|main|master|nightly|stable|beta|windows|linux|mac(?:os)?|rocm|cuda|ci)\b",
                       re.I)


# What "on" names as a moment after any verb ("clear the cache on exit": 在退出时).
EVENTS = {"change", "exit", "error", "errors", "failure", "timeout", "save", "startup", "shutdown", "close", "reload",
          "abort"}


def _event(key: str, after: str) -> bool:
    """Whether "on" after the verb `key` names an event (a lower-case noun phrase: "panic on unknown bins"; one of
    EVENTS after any verb), not a platform, a branch or a name ("warn on ROCm", "on main": 在 ... 上)."""
    if after.strip().lower() in EVENTS:
        return True
    return key in REACTIONS and after[:1].islower() and not verbatim(after, False) and not PLATFORMS.search(after)


# Words both an attribute and a verb that a title opening with them always uses as the verb: "correct filter
# rewrite recursion" (31 export lines had read "修复正确的错别字" and the like), "clear the cache", "changed X to Y".
VERB_FIRST = {"correct", "clear", "changed"}


def _opens_with_attribute(tokens: list[str]) -> bool:
    """"sharded delta weight sync" opens with an attribute, a noun phrase; a word of VERB_FIRST with the verb."""
    return bool(tokens) and tokens[0].lower() in glossary()["attributes"] and tokens[0].lower() not in VERB_FIRST


# Where a verb is done, around a place: "across weight updates" (跨…), "between A and B" (在…之间).
AROUND = {"across": ("跨", ""), "between": ("在", "之间")}


def _around(key: str, zh: str, word: str, thing: str, place: str) -> str | None:
    """`thing` done across, between, outside or at `place`; None for the other places."""
    place = re.sub(r"^of\s+", "", place)
    if word == "outside":  # only a move reaches here (_located): "move X outside Y", 将 X 移到 Y 之外
        return join(["将", _phrase(thing), MOVED_TO[key], place, "之外"])
    if word in AROUND:  # "cache X across weight updates": 跨权重更新缓存 X
        return join([AROUND[word][0], place, AROUND[word][1], _placed(key, zh, thing)])
    if word == "at" and key in OBJECT_IN:
        return join([zh, place, "处的", _phrase(thing)])
    if word == "at":  # "add X at the end of Y": 在 Y 的末尾新增 X
        return join(["在", place, _placed(key, zh, thing)])
    return None


def _located(key: str, zh: str, rest: str) -> str | None:
    """"fix X in Y" -> "修复 Y 中的 X"; "add X in Y" -> "在 Y 中新增 X"; "X on Y" -> "在 Y 上 ..."."""
    for word in ("in", "on", "under", "within", "inside", "at", "across", "over", "between",
                 *(("outside",) if key in MOVED_TO else ())):  # else "X outside Y" says which X (noun_phrases)
        if (parts := split(rest, word)) and re.search(r"\bpointing$", parts[0], re.I):
            continue  # "X pointing at Y" names X (noun_phrases): no place
        if parts:
            place = _place(parts[1])
            if (said := _around(key, zh, word, parts[0], place)) is not None:
                return said
            where = "上" if word in ("on", "over") else "下" if word == "under" or FOLDER.search(place) else "中"
            if word == "on" and _event(key, parts[1]):
                where = "时"  # "raise X on timeout": 在超时时引发 X, an event, not a place
            if key in SUBJECT_IN and word == "in" and verbatim(parts[1], False) and " " not in parts[1]:
                return join([place, _placed(key, zh, parts[0])])  # "return X in f": f returns X
            if key in OBJECT_IN and word in ("in", "within", "inside"):
                if "中的" in place:  # one 中的 a phrase: "脚本中 output_dir 的命名错误"
                    return join([zh, place.replace("中的", "中", 1), "的", _phrase(parts[0])])
                said = _phrase(parts[0])
                return join([zh, place, placed_in("中的", said), said])
            return join(["在", place, where, _placed(key, zh, parts[0])])
    if match := re.match(r"^(in|on|from)\s+(.+)$", rest, re.I):  # no object: "run in X", "exclude from X"
        spot = _phrase(match.group(2))
        when = "时" if _event(key, match.group(2)) else "上"
        around = {"in": ("在", "下" if FOLDER.search(spot) else "中"), "on": ("在", when),
                  "from": ("从", "中")}[match.group(1).lower()]
        return join([around[0], spot, around[1], zh])
    return None


# Verbs that make a thing better with a means ("reduce X with an efficient Y": 用高效的 Y 减少 X).
BETTERED = {"reduce", "improve", "enhance", "optimize", "speed up", "accelerate", "update", "extend", "clean",
            "test", "document"}


def _described(text: str) -> bool:
    """Whether a "with" object opens with a word that describes it (an attribute, a participle): it says which X
    ("eliminate filters with contradictory predicates": 带有矛盾谓词的过滤), not what X is done with."""
    tokens = [t for t in TOKEN.findall(text) if t.lower() not in ("a", "an", "the")]
    return bool(tokens) and (tokens[0].lower() in glossary()["attributes"] or re.fullmatch(r"[a-z]+ed", tokens[0]) is
                             not None)


def _targeted(key: str, zh: str, parts: tuple[str, str]) -> str:
    """"add X for Y" -> "为 Y 新增 X" (missing X: 补上缺失的 X); "return X for Y" -> "对 Y 返回 X"."""
    obj, target = parts
    if key in ("drop", "remove", "deprecate", "add", "restore") and re.fullmatch(r"(?:the\s+)?support", obj, re.I):
        return join(["移除" if key == "drop" else zh, "对", _phrase(target), "的支持"])  # 移除对 X 的支持
    if key in FOR_TARGET or key == "re-add":
        if key == "add" and obj.lower().startswith("missing "):
            return join(["为", _phrase(target), "补上缺失的", _phrase(obj[8:])])
        if key == "add" and obj.lower() in ("test", "tests", "testing", "unit tests"):
            return join(["为", _phrase(target), "补充测试"])
        return join(["为", _phrase(target), zh, _phrase(obj)])
    if key in OBJECT_IN:
        return join([zh, _phrase(target), "的", _phrase(obj)])
    if key == "use":  # "use uv for the docker image": Docker 镜像改用 uv
        return join([_phrase(target), zh, _phrase(obj)])
    return join(["对", _phrase(target), zh, _phrase(obj)])


def _make(rest: str) -> str:
    """"make X optional in Z" -> "让 Z 中的 X 变为可选"; "make X resilient to Y" -> "让 X 能应对 Y"; "make X a Y" ->
    "将 X 设为 Y"."""
    if match := re.match(r"^(.+?)\s+(?:the\s+)?default$", rest, re.I):
        return join(["将", _phrase(match.group(1)), "设为默认"])
    if (match := re.match(r"^(.+?)\s+(?:a|an)\s+(.+)$", rest, re.I)) and len(TOKEN.findall(match.group(1))) <= 3:
        return join(["将", _phrase(match.group(1)), "设为", _phrase(match.group(2))])  # "make X an opt-in flag"
    tokens = TOKEN.findall(rest)
    for i in range(1, len(tokens)):
        more = tokens[i].lower() == "more"  # "make X more modular": 更模块化, not 更多
        for size in (2, 1):
            if (said := _made_state(tokens, i, size, more)) is not None:
                return said
    return _made_to(tokens) or join(["让", _phrase(rest)])


def _made_state(tokens: list[str], i: int, size: int, more: bool) -> str | None:
    """"make X ATTR …" with the attribute of `size` words at tokens[i] (after "more" when `more`): "让 X 变为可选",
    "让 X 变得更模块化", "将 X 设为可选依赖"; None when no attribute stands there or more than one follows it."""
    attributes = glossary()["attributes"]
    at = i + 1 if more else i
    word = " ".join(tokens[at:at + size]).lower()
    if word not in attributes or len(tokens[at:at + size]) != size:
        return None
    subject, tail = " ".join(tokens[:i]), " ".join(tokens[at + size:])
    said = attributes[word].removesuffix("的")
    if size == 2 and not more:  # "resilient to", "compatible with": the attribute takes an object
        return join(["让", _phrase(subject), said, _phrase(tail)])
    following = tail.split()[0].lower() if tail else ""
    if following in ("in", "on"):  # "optional in Z": Z 中的 X
        subject = f"{subject} {tail}"
    elif following == "for" and not more:  # "available for async functions": 对异步函数可用 (not theirs)
        return join(["让", _phrase(subject), "对", _phrase(tail[4:]), said])
    elif tail and not more and len(tail.split()) == 1 and (known(tail.split(), 0, False)[2] or
                                                           re.fullmatch(r"[A-Z]{2,}s?", tail)) \
            and not any(verb([t]) for t in tokens[1:i]):  # "make X accept legacy kwargs" is _made_to's
        return join(["将", _phrase(subject), "设为", _phrase(f"{word} {tail}")])  # "optional dependency"
    elif tail and (single := attributes.get(tail.lower())):  # "runnable out-of-the-box"
        said = f"{said}、{single.removesuffix('的')}"
    elif tail and following not in PREPOSITIONS:
        return None  # "work more like Y": more than an attribute follows
    # a phrase after it is dropped, as a headline's few words are: "faster and more memory efficient" says the first
    return join(["让", _phrase(subject), "变得更" + said if more else "变为" + said])


def _made_to(tokens: list[str]) -> str:
    """"make UI tests handle hyperlinks" -> "让 UI 测试处理超链接" (a subject of at most three words, then a verb);
    '' for "make tests pass" (succeed, not 传递), "make the assert …" or "make X directly use Y"."""
    nouns = glossary()["nouns"]
    for i in range(1, min(4, len(tokens) - 1)):
        lead = [t.lower() for t in tokens[:i]]
        if tokens[i].islower() and tokens[i] not in nouns and tokens[i].rstrip("s") not in nouns and \
                (found := verb(tokens[i:])) and found[0] != "pass" and not verb(tokens[:i]) \
                and not any(t.endswith("ly") for t in lead) and not set(lead) <= {"the", "a", "an", "this"}:
            return join(["让", _phrase(" ".join(tokens[:i])), _shaped(found[0], found[1],
                                                                     " ".join(tokens[i + found[2]:]))])
    return ""
