"""Noun phrases in Chinese order: "X of Y" -> "Y 的 X", "X in Y" -> "Y 中的 X", "X and Y" -> "X 和 Y", "the same X
as Y" -> "与 Y 相同的 X"; a run of words in glossary Chinese where the glossary knows them, as written where not.

A parenthesis that opens with a verb ("(expose X)") is a clause: the caller says how a clause is said (the verb
phrases, prhub.engine.verb_phrases, pass their own), since clauses hold noun phrases and this module must not
import them back.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from prhub.engine.lexicon import (
    CJK,
    GRAMMAR,
    PREPOSITIONS,
    TOKEN,
    compound,
    glossary,
    join,
    known,
    lookup,
    module,
    placed_in,
    split,
    verb,
)

Clause = Callable[[str], str]  # how a verb phrase is said (prhub.engine.verb_phrases.clause)

ARTICLES = {"the", "a", "an"}
FILLERS = {"actually", "really", "just"}  # emphasis Chinese leaves unsaid
TROUBLES = re.compile(r"\b(?:issues?|problems?|bugs?|errors?)$", re.I)  # "fix issues with X": trouble in X
HEADS = ("for", "of", "in", "with", "between")  # "X with A and B": the "and" joins the preposition's objects
CONTAINERS = re.compile(r"(?:脚本|文件|文档|模块|配置|测试|script|file|module)$")
# An acronym's English plural ("GPUs", "LLMs", "APIs"); the acronym stays, its -s goes.
ACRONYM_PLURAL = re.compile(r"^([A-Z]{2,})s$")
QUANTITY_ZH = {"bunch": "一批", "lot": "大量", "lots": "大量", "couple": "几个", "handful": "几个", "number": "一些"}
QUANTITY = re.compile(rf"^(?:a\s+)?({'|'.join(QUANTITY_ZH)})\s+of\s+(.+)$", re.I)
# A thing and what it does: "tools that generate multimodal data" (生成多模态数据的工具).
RELATIVE = re.compile(r"^(.+?)\s+(?:that|which)\s+(.+)$", re.I)
# A thing told by its cause: "X caused by Y" (Y 导致的 X), also a fix's object (verb_phrases).
CAUSED = re.compile(r"^(.+?)\s+caused\s+by\s+(.+)$", re.I)
# A thing told by where it went: "classes moved to experimental" ("after moved to", as trl writes it, too).
MOVED = re.compile(r"^(.+?)\s+(?:after\s+)?(?:(?:was|were|being|been)\s+)?moved\s+to\s+(?:the\s+)?(\S+)$", re.I)
# A change told by its ends: "(upcoming) X change from A to B".
CHANGED = re.compile(r"^(?:the\s+|an?\s+)?(upcoming\s+|planned\s+)?(.+?)\s+(?:change|switch)\s+"
                     r"from\s+(.+?)\s+to\s+(.+)$", re.I)
# "X and Y", "X of Y": the word, whether Y is said first, what joins them and what follows.
JOINS = (("and", False, "和", ""), ("or", False, "或", ""), ("of", True, "的", ""), ("for", True, "的", ""),
         ("in", True, "中的", ""), ("with", True, "带有", "的"), ("from", True, "中的", ""), ("on", True, "上的", ""))


def phrase(text: str, clause: Clause) -> str:
    """A noun phrase in Chinese order (`clause`: how a parenthesis that opens with a verb is said)."""
    text = text.strip()
    if not text:
        return ""
    if (said := _framed(text, clause)) is not None:
        return said
    if (said := _joined(text, clause)) is not None:
        return said
    return words(TOKEN.findall(text), clause, first=True)


def _framed(text: str, clause: Clause) -> str | None:
    """A phrase in a fixed Chinese frame: "X, not Y", "the same X as Y", "X older than Y", "fixes to X", "per X",
    "X between A and B", "X about Y", "X for the script", "a bunch of X", "either of X or Y", "X pointing at Y"; None
    when `text` is none of them."""
    if match := re.match(r"^(?:either\s+(?:of\s+)?|both\s+(?=.+\sand\s))(.+)$", text, re.I):
        return phrase(match.group(1), clause)  # "either of X or Y": X 或 Y; "both X and Y": X 和 Y
    if match := re.match(r"^(.+?)\s+(pointing\s+(?:at|to)|containing|referring\s+to)\s+(.+)$", text, re.I):
        how = {"pointing": "指向", "containing": "包含", "referring": "引用"}[match.group(2).split()[0].lower()]
        return join([how, phrase(match.group(3), clause), "的", phrase(match.group(1), clause)])  # "X pointing at Y"
    if (said := _told(text, clause)) is not None:
        return said
    if match := QUANTITY.match(text):  # "a bunch of lint warnings": 一批 lint 警告, not "lint 警告的 bunch"
        return join([QUANTITY_ZH[match.group(1).lower()], phrase(match.group(2), clause)])
    if match := re.match(r"^(.+?)(?:\s+instead\s+of|\s+rather\s+than|\s*,\s+not)\s+(.+)$", text, re.I):
        return join([phrase(match.group(1), clause), "，而非", phrase(match.group(2), clause)])  # "X, not per mb"
    if match := re.match(r"^(.+?)\s+outside\s+(?:of\s+)?(.+)$", text, re.I):  # "bits outside the range": 范围之外的位
        return join([phrase(match.group(2), clause), "之外的", phrase(match.group(1), clause)])
    if match := re.match(r"^(?:the\s+)?same\s+(.+?)\s+(?:with|as)\s+(.+)$", text, re.I):
        return join(["与", phrase(match.group(2), clause), "相同的", phrase(match.group(1), clause)])  # "same X as Y"
    if match := re.match(r"^(.+?)\s+(older|newer|higher|lower|greater|less|more|larger|smaller|shorter|longer)\s+than"
                         r"\s+(.+)$", text, re.I):  # "vLLM older than 0.18.0": 早于 0.18.0 的 vLLM
        said = glossary()["attributes"][f"{match.group(2).lower()} than"]
        return join([said, phrase(match.group(3), clause), "的", phrase(match.group(1), clause)])
    if (parts := split(text, "to")) and (toward := re.search(
            r"\b(?:(fix|fixes|changes?|updates?|improvements?|tweaks?|calls?)|(references?|links?|pointers?))$",
            parts[0], re.I)):  # "minor fixes to X": 对 X 的 …; "link to X": 指向 X 的链接
        return join(["对" if toward.group(1) else "指向", phrase(parts[1], clause), "的", phrase(parts[0], clause)])
    if match := re.match(r"^(.+?)\s+based\s+on\s+(.+)$", text, re.I):  # "datatype based on X": 基于 X 的 datatype
        return join(["基于", phrase(match.group(2), clause), "的", phrase(match.group(1), clause)])
    if match := re.match(r"^per\s+(.+)$", text, re.I):
        return join(["按", phrase(match.group(1), clause)])  # "per micro-batch": 按微批次
    if (parts := split(text, "between")) and (pair := split(parts[1], "and")):
        return join([phrase(pair[0], clause), "与", phrase(pair[1], clause), "之间的", phrase(parts[0], clause)])
    if parts := split(text, "about"):  # "the readme about X": 关于 X 的 readme
        return join(["关于", phrase(parts[1], clause), "的", phrase(parts[0], clause)])
    if (parts := split(text, "for")) and CONTAINERS.search(container := phrase(parts[1], clause)):
        return join([container, "中的", phrase(parts[0], clause)])  # "output_dir for the script": 脚本中的 output_dir
    return None


def _told(text: str, clause: Clause) -> str | None:
    """A thing told by a clause about it: what it does ("tools that generate X"), what caused it, where it moved,
    how it changes ("X change from A to B"); None when `text` is none of them."""
    if (match := RELATIVE.match(text)) and verb(TOKEN.findall(match.group(2))) and \
            not match.group(1).endswith(","):  # "tools that generate X data"; not ", which …", an aside
        return join([clause(match.group(2)), "的", phrase(match.group(1), clause)])
    if match := CAUSED.match(text):  # "CI failures caused by port conflicts": 端口冲突导致的 CI 失败
        return join([phrase(match.group(2), clause), "导致的", phrase(match.group(1), clause)])
    if match := MOVED.match(text):  # "classes moved to experimental": 已移至实验特性的类 (a module by its name)
        where = module(match.group(2))
        where = where if where != match.group(2) else phrase(where, clause)
        return join(["已移至", where, "的", phrase(match.group(1), clause)])
    if match := CHANGED.match(text):  # "upcoming SFT `loss_type` default change from A to B": X 即将从 A 改为 B
        return join([phrase(match.group(2), clause), "即将" if match.group(1) else "", "从",
                     phrase(match.group(3), clause), "改为", phrase(match.group(4), clause)])
    return None


def _joined(text: str, clause: Clause) -> str | None:
    """Two phrases around the first of JOINS `text` has: "X and Y" -> "X 和 Y", "X of Y" -> "Y 的 X", "X with Y" ->
    "带有 Y 的 X"; None when it has none."""
    for word, before, between, after in JOINS:
        if (parts := split(text, word)) and word in ("and", "or") and any(split(parts[0], w) for w in HEADS):
            continue  # "X for A and B": the "and" joins the preposition's objects, it is split below
        if word == "or" and re.search(r"\bOR\b", text):
            continue  # "bitwise OR" names an operator
        if parts:
            a, b = phrase(parts[0], clause), phrase(parts[1], clause)
            if word == "and" and (named := re.fullmatch(r"([A-Za-z][\w .-]*?)\s*([\u4e00-\u9fff]\S*)", b)) \
                    and not CJK.search(a):
                b = join([named.group(1), "的", named.group(2)])  # "PyTorch JIT 和 DataLoader 的弃用警告"
            if word == "with" and TROUBLES.search(parts[0]):
                return join([b, "中的", a])  # "issues with X": the trouble is in X
            if between in ("中的", "上的"):
                between = placed_in(between, a)
            return join([between, b, after, a] if word == "with" else
                        [b, between, a, after] if before else [a, between, b, after])
    return None


def words(tokens: list[str], clause: Clause, first: bool = False) -> str:
    """A run of words, glossary phrases (up to 3 words) in Chinese, the rest as written (`clause`: as for
    phrase)."""
    tables = glossary()
    out: list[str] = []
    tokens = [t for t in tokens if t.lower() not in FILLERS]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.lower() in ARTICLES:
            i += 1
            continue
        named = bool(out) and i > 0 and out[-1] == tokens[i - 1] and tokens[i - 1][:1].isalpha()  # "safari 15 error"
        if (token.isdigit() and not named and i + 1 < len(tokens)
                and (unit := lookup(tables["nouns"], tokens[i + 1:i + 2]))):  # "Gemma 4 support": a name's version
            out.append(f"{token} 个{unit}")  # "1 version" -> "1 个版本"
            i += 2
            continue
        if token == ",":
            out.append("、")
            i += 1
            continue
        if token.startswith("(") and token.endswith(")"):
            out.append("（" + "、".join(_aside(t.strip(), clause) for t in token[1:-1].split(",")) + "）")
            i += 1
            continue
        if token in ("'s", "’s") and out:  # after code: "`toml`'s default features": `toml` 的默认特性
            out.append("的")
            i += 1
            continue
        if re.fullmatch(r"[A-Za-z][\w.-]*'s", token):  # "VeOmni's native path": VeOmni 的原生路径
            _attach(out, *_owner(token[:-2]))
            out.append("的")
            i += 1
            continue
        if compared := _comparative(tokens, i):
            _attach(out, compared[0], in_glossary=True)
            i += compared[1]
            continue
        found, size, noun = known(tokens, i, first)
        if found is None and (whole := _whole(tokens, i)):
            _attach(out, whole, in_glossary=True)
            i += 1
            continue
        if found is None and (done := _participle(tokens, i)):
            _attach(out, done, in_glossary=True)  # "generated files": 生成的文件
            i += 1
            continue
        if found is None:
            _attach(out, ACRONYM_PLURAL.sub(r"\1", token), in_glossary=False)  # "GPUs" -> "GPU": Chinese has no plural
            i += 1
            continue
        _attach(out, _in_place(found, noun, tokens, i, size, bool(out)), in_glossary=True)
        i += size
    return join(out)


def _comparative(tokens: list[str], i: int) -> tuple[str, int] | None:
    """"more precise" at tokens[i]: (更精确, the words it takes), not 更多精确, where it compares: after "a"/"the",
    before one thing ("more helpful error") or before nothing; None where it counts ("more native completions":
    更多原生补全)."""
    if tokens[i].lower() != "more" or i + 1 >= len(tokens):
        return None
    said, size, noun = known(tokens, i + 1, False)
    if not said or noun or said.startswith("更"):
        return None
    following = tokens[i + 1 + size] if i + 1 + size < len(tokens) else ""
    counted = following.lower().endswith("s") and known([following], 0, False)[2] and not (
        i > 0 and tokens[i - 1].lower() in ("a", "an", "the"))
    return None if counted else ("更" + said, 1 + size)


def _owner(word: str) -> tuple[str, bool]:
    """The owner before 's, and whether said by the glossary: a name as written, a lower-case noun in Chinese
    ("model's code": 模型的代码; "lockfile", which the glossary keeps English, as written)."""
    said = lookup(glossary()["nouns"], [word]) if word.islower() else None
    return (said, True) if said and CJK.search(said) else (word, False)


def _whole(tokens: list[str], i: int) -> str:
    """tokens[i] said as one word the glossary does not list: "use" last in its phrase, a noun ("the use of X": X
    的用法; the glossary lists "use" as a verb), or a compound ("EP-aware": EP 感知的; "eviction/refill handling":
    淘汰/回填处理). A slash pair is read only as a modifier of a noun: "codeowner for role/engine" names a folder.
    Said last, a compound is a state ("make X thread-safe": 线程安全), not a modifier. '' when it is none of them."""
    token, last = tokens[i], i == len(tokens) - 1
    if token.lower() == "use" and last:
        return glossary()["nouns"]["usage"]
    framed = compound(token)
    if not framed or "-" not in token and (last or not known(tokens, i + 1, False)[2]):
        return ""
    return framed.removesuffix("的") if last else framed


def _participle(tokens: list[str], i: int) -> str:
    """A past participle before its noun ("customized datasets"), said as the verb's Chinese and 的; '' otherwise."""
    word = tokens[i]
    if not re.fullmatch(r"[a-z][a-z-]*ed", word) or i + 1 >= len(tokens) or tokens[i + 1].lower() in PREPOSITIONS \
            or tokens[i + 1] == "," or word in GRAMMAR:
        return ""
    found = verb([word])
    return f"{found[1]}的" if found and found[0] != word else ""


def _aside(text: str, clause: Clause) -> str:
    """A part of a parenthesis: a clause when it opens with a verb ("expose X" -> 暴露 X), else a noun phrase."""
    tokens = TOKEN.findall(text)
    return clause(text) if len(tokens) > 1 and verb(tokens) else phrase(text, clause)


def _in_place(found: str, noun: bool, tokens: list[str], i: int, size: int, after: bool) -> str:
    """The glossary's word for tokens[i:i + size] where it stands (`after`: words came before it)."""
    if size == 1 and i + 1 == len(tokens):
        # as code writes them: a value ("set X to null"), Rust's trait ("derive Default for X"); a Title Case
        # title's "Restore Default" keeps its word too (capitalised, it cannot be told from the trait)
        if len(tokens) == 1 and tokens[i] in ("Default", "null", "nil"):
            return tokens[i]
        if tokens[i].lower() in ("default", "defaults"):  # the phrase's head: a value ("the X default": X 的默认值)
            return "默认值"  # before a noun it says which ("default config": 默认配置)
    if noun and CJK.search(found) and _unknown(tokens, i + size) and tokens[i].lower() not in NAMING:
        return " ".join(tokens[i:i + size])  # "reward loop": a name the glossary knows half of stays whole
    if not noun and after and i + size == len(tokens):
        return found.removesuffix("的")  # after its noun, a state: "nightly tests failing": 夜间测试失败
    return found


# Words that name what the next word is ("update dependency esbuild", renovate's 23 titles in hono): 依赖 esbuild,
# not half of a compound name.
NAMING = {"dependency", "dependencies", "package", "packages", "crate", "crates", "library", "plugin"}


def _unknown(tokens: list[str], i: int) -> bool:
    """Whether tokens[i] is a plain English word the glossary does not know (half of a compound name)."""
    if not 0 <= i < len(tokens):
        return False
    word = tokens[i]
    return re.fullmatch(r"[a-z][a-z-]*", word) is not None and word not in PREPOSITIONS and \
        word not in ARTICLES and known(tokens, i, False)[0] is None and verb([word]) is None


def _attach(out: list[str], word: str, in_glossary: bool) -> None:
    """`word` after `out`, with 的 where a Chinese or code modifier meets an English term the glossary keeps
    ("配置的 docstring") or any word after code ("`AsyncGRPOTrainer` 的 clip-ratio")."""
    plain = re.fullmatch(r"[a-z][a-z-]*", word) is not None and word not in PREPOSITIONS
    modifier = out[-1] in glossary()["attributes"].values() if out else False  # "异步 rollout", not "异步的"
    after_code = bool(out) and out[-1].startswith("`")
    after_chinese = bool(out) and in_glossary and CJK.match(out[-1][-1]) is not None and not out[-1].endswith("的")
    if plain and not modifier and (after_code or after_chinese):
        out.append("的")
    out.append(word)
