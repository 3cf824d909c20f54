"""PR titles and short description sentences in Chinese a maintainer would write, without a model.

A title is a verb, its object and a clause or two ("fix X when Y", "add missing X for Y", "support X under Y",
"remove X from Y", "bump X to V", "make X optional", "use X for Y"). Each structure has its Chinese order
("为 Y 补上缺失的 X", "修复 Y 时的 X", "将 X 升级到 V"); words come from the reviewed glossary
(engine/glossary.json), and identifiers, paths, flags, versions, code and names stay as the author wrote them.
What the glossary does not know stays English: a wrong Chinese word is worse than the author's own.
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

GLOSSARY = Path(__file__).with_name("glossary.json")
TOKEN = re.compile(r"`[^`]*`|'[^']*'|\([^()]*\)|[^\s,]+|,")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# Tags and prefixes a title opens with: "[trainer, fsdp]", "feat(config)!:", "🪦", "util:".
TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")
CONVENTIONAL = re.compile(r"^\s*(?:[a-z][\w-]*(?:\([^)]*\))?!?|fix|feat|chore|docs?|test|refactor|perf|ci)\s*[:：]\s+",
                          re.I)
SYMBOLS = re.compile(r"^[^\w`'\"\[(]+")
SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
NAMED = re.compile(r"^([\w-]+(?:\s[\w-]+)?)\s*[:：]\s+(.+)$")  # "Hotfix CI: Add ...": a two-word lead-in
ADVERBS = {"always", "now", "also", "properly", "correctly", "just", "further", "explicitly", "temporarily",
           "only", "partially", "actually"}
ARTICLES = {"the", "a", "an"}
# Verbs whose "in Y" names where the thing is ("修复 Y 中的 X"); others say where the doing is ("在 Y 中新增 X").
OBJECT_IN = {"fix", "hotfix", "avoid", "prevent", "strip", "remove", "expand", "correct", "resolve", "drop",
             "delete", "handle", "update", "silence", "ignore", "skip", "optimize"}
FOR_TARGET = {"add", "support", "re-support", "implement", "introduce", "enable", "provide", "expose", "register",
              "create", "document", "test", "modify", "change", "update", "optimize", "adjust", "tweak", "set",
              "backfill"}
TROUBLES = re.compile(r"\b(?:issues?|problems?|bugs?|errors?)$", re.I)  # "fix issues with X": trouble in X
PREPOSITIONS = {"in", "on", "at", "to", "from", "for", "with", "of", "by", "and", "or", "via", "into", "over", "per",
                "through", "under", "across", "within", "without", "than", "as", "vs"}
HEADS = ("for", "of", "in", "with")  # "X with A and B": the "and" joins the preposition's objects
CONTAINERS = re.compile(r"(?:脚本|文件|文档|模块|配置|测试|script|file|module)$")
SUBJECT_IN = {"return", "raise", "emit", "warn", "accept", "produce", "yield"}  # "return X in f": f does it
FOLDER = re.compile(r"(?:目录|目录名|路径|文件夹)$")
COLLECTIONS = re.compile(r"(?:列表|依赖|表格|集合|矩阵|list|deps|matrix)$")
VERSION = re.compile(r"(?:^|[\s=<>@~^])v?\d+(?:\.\d+)*\b")
WITH_BASE = {"refactor", "add", "implement", "build", "rework", "create", "introduce"}
# "X to avoid Y": a purpose, said "以" and the verb's Chinese ("以避免 Y"); other verbs after "to" name a target.
PURPOSE = re.compile(r"\s+(?:in order\s+)?to\s+(avoid|prevent|fix|reduce|support|enable|speed up|allow|keep|make|"
                     r"resolve|unblock|improve|ensure|address|mitigate|simplify|accelerate|match|unify)\s+", re.I)
PURPOSE_ZH = {"keep": "以保持"}  # where the purpose reads otherwise than the verb's own Chinese
# "support X via Y": the means, said first ("通过 Y 支持 X"); "over" only before a name ("over NCCL").
MEANS = re.compile(r"^(.+?)\s+(?:via|through|using|over(?=\s+[A-Z0-9`]))\s+(.+)$")
# "stop X from sampling Y": what is kept from happening, said as a verb phrase.
KEPT_FROM = {"stop": "阻止", "prevent": "防止", "block": "阻止", "keep": "避免"}
# "build X from Y": made from a source ("基于 Y 构建 X").
# "offload X to a thread executor": where a thing is put ("将 X 卸载到线程池").
MOVED_TO = {"move": "移到", "migrate": "迁移到", "offload": "卸载到", "port": "移植到", "forward": "转发到",
            "export": "导出到", "dump": "转储到", "propagate": "传递到"}
FROM_SOURCE = {"build", "create", "construct", "derive", "generate", "compute", "calculate", "infer", "initialize"}


# An acronym's English plural ("GPUs", "LLMs", "APIs"); the acronym stays, its -s goes.
ACRONYM_PLURAL = re.compile(r"^([A-Z]{2,})s$")


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GLOSSARY.read_text(encoding="utf-8"))
    return data


@cache
def glossary() -> dict[str, dict[str, str]]:
    """The reviewed glossary: verbs, nouns, attributes (lower-case English -> Chinese)."""
    return {part: _data()[part] for part in ("verbs", "nouns", "attributes")}


def _modules() -> dict[str, str]:
    modules: dict[str, str] = _data().get("modules", {})
    return modules


def module(name: str) -> str:
    """What zh prose calls a module: a generic name ("doc", "algo") in Chinese; a proper name (megatron) as is."""
    return _modules().get(name.lower(), name)


def _stems(word: str) -> list[str]:
    """The forms a glossary may list an inflected word under ("fixes" -> fix, "stopped" -> stop)."""
    w = word.lower()
    out = [w]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("d", ""),
                         ("ing", ""), ("ing", "e")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 2:
            stem = w[:-len(suffix)] + repl
            out.append(stem)
            if len(stem) > 2 and stem[-1] == stem[-2] and repl == "":
                out.append(stem[:-1])  # "stopped" -> "stopp" -> "stop"
    return out


def _lookup(table: dict[str, str], words: list[str]) -> str | None:
    phrase = " ".join(words).lower()
    if phrase in table:
        return table[phrase]
    head, last = words[:-1], words[-1]
    for stem in _stems(last)[1:]:
        key = " ".join([*(w.lower() for w in head), stem])
        if key in table:
            return table[key]
    return None


def _verbatim(token: str, first: bool) -> bool:
    """An identifier, path, flag, version, code or name: kept as written."""
    if token[0] in "`'(" or re.search(r"[_/.\\<>:=@#\d+]", token) or token.startswith("-"):
        return True
    if re.search(r"[a-z][A-Z]|[A-Z]{2}", token):  # CamelCase, ALLCAPS
        return True
    return token[0].isupper() and not first


def join(parts: list[str]) -> str:
    """Parts joined as mixed Chinese is written: no space between Chinese, one between Chinese and Latin."""
    out = ""
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if out and not (CJK.match(out[-1]) and CJK.match(part[0])):
            out += " "
        out += part
    return re.sub(r"\s+(?=[，。；：、）])|(?<=[，。；：、（])\s+", "", out)


def _words(tokens: list[str], first: bool = False) -> str:
    """A run of words, glossary phrases (up to 3 words) in Chinese, the rest as written."""
    tables = glossary()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.lower() in ARTICLES:
            i += 1
            continue
        if token.isdigit() and i + 1 < len(tokens) and (unit := _lookup(tables["nouns"], tokens[i + 1:i + 2])):
            out.append(f"{token} 个{unit}")  # "1 version" -> "1 个版本"
            i += 2
            continue
        if token == ",":
            out.append("、")
            i += 1
            continue
        if token.startswith("(") and token.endswith(")"):
            out.append("（" + "、".join(_aside(t.strip()) for t in token[1:-1].split(",")) + "）")
            i += 1
            continue
        found, size, noun = _known(tokens, i, first)
        if found is None:
            _attach(out, ACRONYM_PLURAL.sub(r"\1", token), known=False)  # "GPUs" -> "GPU": Chinese has no plural
            i += 1
            continue
        if noun and CJK.search(found) and _unknown(tokens, i + size):
            found = " ".join(tokens[i:i + size])  # "reward loop": a name the glossary knows half of stays whole
        _attach(out, found, known=True)
        i += size
    return join(out)


def _aside(text: str) -> str:
    """A part of a parenthesis: a clause when it opens with a verb ("expose X" -> 暴露 X), else a noun phrase."""
    tokens = TOKEN.findall(text)
    return clause(text) if len(tokens) > 1 and _verb(tokens) else _phrase(text)


def _unknown(tokens: list[str], i: int) -> bool:
    """Whether tokens[i] is a plain English word the glossary does not know (half of a compound name)."""
    if not 0 <= i < len(tokens):
        return False
    word = tokens[i]
    return re.fullmatch(r"[a-z][a-z-]*", word) is not None and word not in PREPOSITIONS and \
        word not in ARTICLES and _known(tokens, i, False)[0] is None and _verb([word]) is None


def _known(tokens: list[str], i: int, first: bool) -> tuple[str | None, int, bool]:
    """The glossary's Chinese for the longest phrase (up to 3 words) at tokens[i], its length, whether a noun."""
    tables = glossary()
    for size in (3, 2, 1):
        chunk = tokens[i:i + size]
        if len(chunk) < size or any(_verbatim(t, first and i == 0) for t in chunk):
            continue
        if found := tables["attributes"].get(" ".join(chunk).lower()):  # "merged": 合并后的, before the noun's stem
            return found, size, False
        if found := _lookup(tables["nouns"], chunk):
            return found, size, True
        if found := _lookup(tables["attributes"], chunk):
            return found, size, False
    return None, 0, False


def _attach(out: list[str], word: str, known: bool) -> None:
    """`word` after `out`, with 的 where a Chinese or code modifier meets an English term the glossary keeps
    ("配置的 docstring") or any word after code ("`AsyncGRPOTrainer` 的 clip-ratio")."""
    plain = re.fullmatch(r"[a-z][a-z-]*", word) is not None and word not in PREPOSITIONS
    modifier = out[-1] in glossary()["attributes"].values() if out else False  # "异步 rollout", not "异步的"
    after_code = bool(out) and out[-1].startswith("`")
    after_chinese = bool(out) and known and CJK.match(out[-1][-1]) is not None and not out[-1].endswith("的")
    if plain and not modifier and (after_code or after_chinese):
        out.append("的")
    out.append(word)


def _split(text: str, word: str) -> tuple[str, str] | None:
    """`text` around the last top-level ` word ` (not inside backticks or brackets)."""
    depth, positions = 0, []
    tokens = TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if token.lower() == word and 0 < i < len(tokens) - 1 and depth == 0:
            positions.append(i)
    if not positions:
        return None
    i = positions[-1]
    before = " ".join(tokens[:i]).replace(" ,", ",").rstrip(",")  # "A, B, and C": the serial comma goes
    return before, " ".join(tokens[i + 1:]).replace(" ,", ",")


def _phrase(text: str) -> str:
    """A noun phrase: "X of Y" -> "Y 的 X", "X in Y" -> "Y 中的 X", "X and Y" -> "X 和 Y"."""
    text = text.strip()
    if not text:
        return ""
    if (parts := _split(text, "for")) and CONTAINERS.search(container := _phrase(parts[1])):
        return join([container, "中的", _phrase(parts[0])])  # "output_dir for the script": 脚本中的 output_dir
    for word, before, between, after in (("and", False, "和", ""), ("of", True, "的", ""), ("for", True, "的", ""),
                                         ("in", True, "中的", ""), ("with", True, "带有", "的")):
        if (parts := _split(text, word)) and word == "and" and any(_split(parts[0], w) for w in HEADS):
            continue  # "X for A and B": the "and" joins the preposition's objects, it is split below
        if parts:
            a, b = _phrase(parts[0]), _phrase(parts[1])
            if word == "and" and (named := re.fullmatch(r"([A-Za-z][\w .-]*?)\s*([\u4e00-\u9fff]\S*)", b)) \
                    and not CJK.search(a):
                b = join([named.group(1), "的", named.group(2)])  # "PyTorch JIT 和 DataLoader 的弃用警告"
            if word == "with" and TROUBLES.search(parts[0]):
                return join([b, "中的", a])  # "issues with X": the trouble is in X
            return join([between, b, after, a] if word == "with" else
                        [b, between, a, after] if before else [a, between, b, after])
    return _words(TOKEN.findall(text), first=True)


def _verb(tokens: list[str]) -> tuple[str, str, int] | None:
    """(the verb's glossary key, its Chinese, how many tokens it takes) at the start of `tokens`."""
    verbs = glossary()["verbs"]
    for size in (2, 1):
        chunk = tokens[:size]
        if len(chunk) < size or any(t[0] in "`'(" for t in chunk):
            continue
        for stem in _stems(chunk[-1]):
            key = " ".join([*(t.lower() for t in chunk[:-1]), stem])
            if key in verbs:
                return key, verbs[key], size
    return None


def _gerund(text: str) -> str:
    """A "when"/"while" clause: "initializing multiple tools" -> "初始化多个工具"."""
    return clause(text) if _verb(TOKEN.findall(text)) else _phrase(text)


def clause(text: str, kind: str = "") -> str:
    """One verb phrase in Chinese order; without a verb, the type's action (fix) or the phrase itself."""
    text = text.strip().rstrip(".")
    tokens = TOKEN.findall(text)
    while tokens and tokens[0].lower() in ADVERBS:
        tokens = tokens[1:]
    if tokens and tokens[0].lower() in ("don't", "do", "never", "dont") and len(tokens) > 1:
        negated = tokens[2:] if tokens[0].lower() == "do" and tokens[1].lower() == "not" else tokens[1:]
        if _verb(negated):
            return join(["不再", clause(" ".join(negated), kind)])  # "Don't gather logits ...": 不再汇总
    found = _verb(tokens)
    if not found or tokens[0].lower() in glossary()["attributes"]:  # "sharded delta weight sync": a noun phrase
        return _nominal(tokens, kind)
    key, zh, size = found
    rest = " ".join(tokens[size:]).replace(" ,", ",")
    return _shaped(key, zh, rest)


def _nominal(tokens: list[str], kind: str) -> str:
    """A title without a verb: "X fix" -> "修复 X", "X not take effect" -> "修复 X 不生效的问题"."""
    text = " ".join(tokens)
    if match := re.match(r"^(.+?)\s+(?:does\s+not|doesn't|not|never)\s+(?:take|takes|taking)\s+effect$", text, re.I):
        return join([_phrase(match.group(1)), "不生效"]) if kind != "fix" else \
            join(["修复", _phrase(match.group(1)), "不生效的问题"])
    if tokens and tokens[-1].lower() in ("fix", "fixes"):
        return join(["修复", " ".join(tokens[:-1])])  # "nccl broadcast bucket size fix": the thing, as named
    if kind != "fix" and (match := re.match(r"^(.+?)\s+support\s+for\s+(.+)$", text, re.I)):
        return join(["为", _phrase(match.group(2)), "支持", _phrase(match.group(1))])  # "PP/VPP support for X"
    if kind != "fix" and (parts := _split(text, "for")) and (match := MEANS.match(parts[0])):
        return join(["为", _phrase(parts[1]), "提供基于", _phrase(match.group(2)), "的", _phrase(match.group(1))])
    if kind == "fix" and (parts := _split(text, "on")):  # "[trainer] fix: f on image and video"
        return join(["修复", _phrase(parts[0]), "对", _phrase(parts[1]), "的处理"])
    if kind == "fix":
        return join(["修复", _phrase(text)])
    return _phrase(text)


def _shaped(key: str, zh: str, rest: str) -> str:
    """The verb `zh` (glossary key `key`) and its object `rest`, in the structure the title uses."""
    if not rest:
        return zh
    for shape in (_conditioned, _aimed, _means, _to_shaped, _paired):
        if (said := shape(key, zh, rest)) is not None:
            return said
    if key == "depend" and rest.lower().startswith("on "):
        rest = rest[3:]
    return _placed(key, zh, rest)


def _conditioned(key: str, zh: str, rest: str) -> str | None:
    """"fix X when Y" -> "修复 Y 时的 X"; "drop X after Y in Z" -> "在 Z 中丢弃 Y 后 X"."""
    if not (match := re.match(r"^(.+?)\s+(?:when|while|if|after|before|during|without)\s+(.+)$", rest, re.I)):
        return None
    if PURPOSE.search(match.group(1)):
        return None  # "skip X to avoid OOM during Y": the condition is the purpose's, said with it (_aimed)
    joint = rest[match.end(1):].split()[0]
    at = {"after": "后", "before": "前", "during": "期间"}.get(joint.lower(), "时")
    when, obj = match.group(2), _phrase(match.group(1))
    if joint.lower() == "without":  # "preserve X without expert parallelism": 在不使用专家并行时保留 X
        done = _verb(TOKEN.findall(when))
        when = join(["不", clause(when)]) if done else join(["不使用", _phrase(when)])
        if key in OBJECT_IN:
            return join([zh, when, "时的", obj])
        return join(["在", when, "时", _shaped(key, zh, match.group(1))])
    if not _verb(TOKEN.findall(when)) and (parts := _split(when, "in")):  # "after truncation in SFT"
        return join(["在", _phrase(parts[1]), "中", _shaped(key, zh, f"{match.group(1)} {joint} {parts[0]}")])
    if key in OBJECT_IN:
        return join([zh, _gerund(when), at if "的" in obj[:6] else f"{at}的", obj])
    return join(["在", _gerund(when), at, _shaped(key, zh, match.group(1))])


def _aimed(key: str, zh: str, rest: str) -> str | None:
    """"X so Y works" -> "X，使 Y 可用"; "X to avoid Y" -> "X，以避免 Y"."""
    if match := re.match(r"^(.+?)\s+so\s+(?:that\s+)?(.+)$", rest, re.I):
        then, works = re.subn(r"\s+(?:works?|work again)$", "", match.group(2), flags=re.I)
        return join([_shaped(key, zh, match.group(1)), "，使", _phrase(then), "可用" if works else ""])
    if match := PURPOSE.search(rest):
        aim = match.group(1).lower()
        verb = glossary()["verbs"].get(aim, "")
        said = clause(f"{aim} {rest[match.end():]}")
        tail = said.removeprefix(verb) if said.startswith(verb) else said  # the purpose's verb is said once
        done = rest[:match.start()].rstrip(" ,")  # "upgrade X, to resolve Y": the comma is the purpose's
        return join([_shaped(key, zh, done), "，", PURPOSE_ZH.get(aim, "以" + verb), tail])
    return None


def _means(key: str, zh: str, rest: str) -> str | None:
    """"support X via Y" -> "通过 Y 支持 X"; "sync X over NCCL" -> "通过 NCCL 同步 X"."""
    if not (match := MEANS.match(rest)):
        return None
    way = match.group(2)
    how = "使用" if re.match(r"^.+?\s+using\s", rest) else "通过"
    return join([how, _phrase(way), _shaped(key, zh, match.group(1))])


def _to_shaped(key: str, zh: str, rest: str) -> str | None:
    """Structures around "to"/"into": enable X to Y, bump X to V, move X to Y, refactor X into Y, add X to Y."""
    parts = _split(rest, "to")
    if key == "enable" and parts:
        return join(["让", _phrase(parts[0]), "支持", _phrase(parts[1])])
    if key in ("bump", "upgrade", "update", "pin", "set") and parts and re.search(r"\d", parts[1]):
        return join(["将", _phrase(parts[0]), f"{zh}到", parts[1]]) if parts[0] else join([f"{zh}到", parts[1]])
    if key == "bump" and re.match(r"^to\s+\S*\d", rest, re.I):
        return join([f"{zh}到", rest[3:]])
    if key in MOVED_TO and parts:
        if source := _split(parts[0], "from"):  # "migrate X from A to B": 将 X 从 A 迁移到 B
            return join(["将", _phrase(source[0]), "从", _phrase(source[1]), MOVED_TO[key], _phrase(parts[1])])
        return join(["将", _phrase(parts[0]), MOVED_TO[key], _phrase(parts[1])])
    if key in ("refactor", "rename", "convert", "split") and (into := _split(rest, "into") or parts):
        return join(["将", _phrase(into[0]), f"{zh}为", _phrase(into[1])])
    if key == "switch" and (match := re.match(r"^from\s+(.+?)\s+to\s+(.+)$", rest, re.I)):
        return join(["从", _phrase(match.group(1)), "改为", _phrase(match.group(2))])
    if key == "switch" and rest.lower().startswith("to "):
        return join(["改用", _phrase(rest[3:])])
    if key in ("add", "re-add") and parts:
        target = _phrase(parts[1])
        if key == "add" and not COLLECTIONS.search(target):  # added to a thing, not put into a list
            return join(["为", target, "添加", _phrase(parts[0])])
        return join(["将", _phrase(parts[0]), "加入" if key == "add" else zh, target])
    return None


def _paired(key: str, zh: str, rest: str) -> str | None:
    """make X Y, remove X from Y, replace X with Y, align X with Y, prevent X from appearing in Y."""
    if key == "make":
        return _make(rest)
    if key in ("remove", "drop", "exclude", "delete", "rip") and (parts := _split(rest, "from")):
        return join(["从", _phrase(parts[1]), "中", zh, _phrase(parts[0])])
    if key == "replace" and (parts := _split(rest, "with")):
        return join(["用", _phrase(parts[1]), "替换", _phrase(parts[0])])
    if key in ("align", "sync") and (parts := _split(rest, "with")):
        return join(["让", _phrase(parts[0]), "与", _phrase(parts[1]), "对齐" if key == "align" else "保持一致"])
    if key == "prevent" and (match := re.match(r"^(.+?)\s+from\s+appearing\s+in\s+(.+)$", rest, re.I)):
        return join([zh, _phrase(match.group(2)), "中出现", _phrase(match.group(1))])
    if key in KEPT_FROM and (parts := _split(rest, "from")) and _verb(TOKEN.findall(parts[1])):
        return join([KEPT_FROM[key], _phrase(parts[0]), clause(parts[1])])  # "stop the policy from sampling X"
    if (parts := _split(rest, "from")) and (moved := _split(parts[1], "to")) and key in ("move", "migrate", "sync",
                                                                                            "copy", "port", "backport"):
        return join(["将", _phrase(parts[0]), "从", _phrase(moved[0]), f"{zh}到", _phrase(moved[1])])
    if key in FROM_SOURCE and (parts := _split(rest, "from")):
        return join(["基于", _phrase(parts[1]), zh, _phrase(parts[0])])  # "build RL tokenizer from HFModelConfig"
    return None


def _placed(key: str, zh: str, rest: str) -> str:
    """The verb and its object with a place or target: "in Y", "on Y", "for Y", "with Y", "from Y"."""
    if key in ("fix", "correct") and re.match(r"^(?:a\s+|some\s+)?typos?\b", rest, re.I):
        zh = "修正"
    if (parts := _split(rest, "with")) and TROUBLES.search(parts[0]):
        return join([zh, _phrase(rest)])
    if (said := _located(key, zh, rest)) is not None:
        return said
    if parts := _split(rest, "for"):
        return _targeted(key, zh, parts)
    if (parts := _split(rest, "with")) and key in OBJECT_IN:
        return join([zh, _phrase(rest)])  # "prevent X with heterogeneous buffers": 防止带有异构缓冲区的 X
    if parts := _split(rest, "with"):
        return join(["基于" if key in WITH_BASE else "用", _phrase(parts[1]), zh, _phrase(parts[0])])
    if (parts := _split(rest, "from")) and key in ("reuse", "load", "read", "copy", "import", "restore"):
        return join([zh, _phrase(parts[1]), "的", _phrase(parts[0])])
    if key == "pin" and not VERSION.search(rest):
        return join([zh, _phrase(rest), "版本"])
    if key == "add" and rest.lower() in ("test", "tests", "testing"):
        return "补充测试"
    return join([zh, _phrase(rest)])


def _located(key: str, zh: str, rest: str) -> str | None:
    """"fix X in Y" -> "修复 Y 中的 X"; "add X in Y" -> "在 Y 中新增 X"; "X on Y" -> "在 Y 上 ..."."""
    for word in ("in", "on", "under", "within", "inside"):
        if parts := _split(rest, word):
            place = _phrase(parts[1])
            where = "上" if word == "on" else "下" if word == "under" or FOLDER.search(place) else "中"
            if key in SUBJECT_IN and word == "in" and _verbatim(parts[1], False) and " " not in parts[1]:
                return join([place, _placed(key, zh, parts[0])])  # "return X in f": f returns X
            if key in OBJECT_IN and word in ("in", "within", "inside"):
                if "中的" in place:  # one 中的 a phrase: "脚本中 output_dir 的命名错误"
                    return join([zh, place.replace("中的", "中", 1), "的", _phrase(parts[0])])
                return join([zh, place, "中的", _phrase(parts[0])])
            return join(["在", place, where, _placed(key, zh, parts[0])])
    if match := re.match(r"^(in|on|from)\s+(.+)$", rest, re.I):  # no object: "run in X", "exclude from X"
        spot = _phrase(match.group(2))
        around = {"in": ("在", "下" if FOLDER.search(spot) else "中"), "on": ("在", "上"),
                  "from": ("从", "中")}[match.group(1).lower()]
        return join([around[0], spot, around[1], zh])
    return None


def _targeted(key: str, zh: str, parts: tuple[str, str]) -> str:
    """"add X for Y" -> "为 Y 新增 X" (missing X: 补上缺失的 X); "return X for Y" -> "对 Y 返回 X"."""
    obj, target = parts
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
    """"make X optional in Z" -> "让 Z 中的 X 变为可选"; "make X resilient to Y" -> "让 X 能应对 Y"."""
    if match := re.match(r"^(.+?)\s+(?:the\s+)?default$", rest, re.I):
        return join(["将", _phrase(match.group(1)), "设为默认"])
    attributes = glossary()["attributes"]
    tokens = TOKEN.findall(rest)
    for i in range(1, len(tokens)):
        for size in (2, 1):
            word = " ".join(tokens[i:i + size]).lower()
            if word in attributes and len(tokens[i:i + size]) == size:
                subject, tail = " ".join(tokens[:i]), " ".join(tokens[i + size:])
                said = attributes[word]
                if size == 2:  # "resilient to", "compatible with": the attribute takes an object
                    return join(["让", _phrase(subject), said, _phrase(tail)])
                if tail.lower().startswith("in "):
                    subject = f"{subject} in {tail[3:]}"
                return join(["让", _phrase(subject), "变为", said.removesuffix("的")])
    return join(["让", _phrase(rest)])


def strip(title: str) -> str:
    """A title without its tags, conventional prefix, leading symbols and (#N) suffix."""
    text = SUFFIX.sub("", title).strip()
    for _ in range(3):
        text = SYMBOLS.sub("", TAGS.sub("", CONVENTIONAL.sub("", text))).strip()
    return text.rstrip(".").strip()


def title(raw: str, kind: str = "") -> str:
    """A PR title in Chinese: its clauses ("; ") and its verb phrases ("X and Y" with a verb on each side)."""
    text = strip(raw)
    lead = ""
    if (named := NAMED.match(text)) and _verb(TOKEN.findall(named.group(1))):
        lead, text = clause(named.group(1), kind) + "：", named.group(2)
    asides = [m.group(0) for m in re.finditer(r"(?<!`)\s*\([^()`]*\)", text)]
    for aside in asides:  # "(1 version)", "(GRPO, RLOO)": said after the sentence, as Chinese brackets them
        text = text.replace(aside, "")
    breaks = r"\s*;\s+" if '"' in text else r"\s*;\s+|(?<=[A-Za-z0-9)`])\s*:\s+"  # a quote keeps its colon
    out = [_coordinated(part, kind) for part in re.split(breaks, text)]
    return join([lead + "；".join(p for p in out if p), *(_words([a.strip()]) for a in asides)])


def _coordinated(text: str, kind: str) -> str:
    tokens = TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if token.lower() == "and" and 0 < i < len(tokens) - 2 and _verb(tokens[i + 1:]) and _verb(tokens):
            return join([clause(" ".join(tokens[:i]), kind), "并", _coordinated(" ".join(tokens[i + 1:]), kind)])
    return clause(text, kind)


# English that only a sentence needs (no name or term is made of it): left in a translation, it shows that the
# structure was not understood.
GRAMMAR = {"to", "with", "for", "in", "on", "of", "from", "by", "via", "using", "is", "are", "was", "be", "been",
           "will", "not", "that", "which", "this", "these", "when", "if", "instead", "than", "as", "into", "during",
           "across", "without", "between", "after", "before", "so", "can", "should", "has", "have", "it", "its",
           "their", "the", "a", "an", "and", "or", "but", "all", "only", "also", "now", "then", "there", "because",
           "due", "where", "while", "does", "do", "don't", "doesn't", "no", "more", "less", "some", "any", "new",
           "over", "at", "per", "through", "under", "within", "vs", "upon", "about", "onto", "out", "up", "off"}


def leftover(line: str) -> int:
    """How many words of English grammar (GRAMMAR) or verbs the glossary knows ("replaces") a translation left, and
    one more when its Chinese is a thin frame (fewer Chinese characters than a quarter of its plain English letters):
    a line with any reads as English in a Chinese frame. Names, code and a few technical nouns do not count."""
    words = re.findall(r"(?<![\w`'/.-])[A-Za-z][a-z'-]*(?![\w`/.-])", re.sub(r"`[^`]*`|“[^”]*”", "", line))
    nouns = glossary()["nouns"]
    left = sum(1 for w in words if w.lower() in GRAMMAR or w.islower() and w.endswith(("s", "ed", "ing"))
               and w not in nouns and _verb([w]) is not None and w[:-1] not in nouns)  # "replaces", "enabled"
    plain = sum(len(w) for w in words if w.islower())
    return left + (1 if len(CJK.findall(line)) * 4 < plain else 0)  # a thin Chinese frame around English


def sentence(text: str, limit: int = 14) -> str:
    """A short description sentence (at most `limit` words) in Chinese, or '' when it is longer or has no verb
    the glossary knows: a long sentence is quoted as the author wrote it rather than guessed at."""
    words = text.split()
    if not words or len(words) > limit or not _verb(TOKEN.findall(strip(text))):
        return ""
    return title(text)
