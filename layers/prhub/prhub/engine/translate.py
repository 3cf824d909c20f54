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
LABEL = re.compile(r"^([\w./+-]*[A-Z/.][\w./+-]*)\s*[:：]\s+(.+)$")  # "SDFT/SDPO: ...", "StackLLaMA: ..."
NAMED = re.compile(r"^([\w-]+(?:\s[\w-]+)?)\s*[:：]\s+(.+)$")  # "Hotfix CI: Add ...": a two-word lead-in
ADVERBS = {"always", "now", "also", "properly", "correctly", "just", "further", "explicitly", "temporarily",
           "only", "partially", "actually"}
# Adverbs that open a verb phrase and say something: said before the verb ("do not manually move X": 不再手动移动 X).
ADVERB_ZH = {"automatically": "自动", "auto": "自动", "conditionally": "按条件", "gracefully": "优雅地",
             "safely": "安全地", "manually": "手动", "explicitly": "显式", "temporarily": "临时", "temporary": "临时",
             "lazily": "延迟", "optionally": "可选地", "asynchronously": "异步", "silently": "静默"}
ARTICLES = {"the", "a", "an"}
FILLERS = {"actually", "really", "just"}  # emphasis Chinese leaves unsaid
# Verbs whose "in Y" names where the thing is ("修复 Y 中的 X"); others say where the doing is ("在 Y 中新增 X").
OBJECT_IN = {"fix", "hotfix", "avoid", "prevent", "strip", "remove", "expand", "correct", "resolve", "drop",
             "delete", "handle", "update", "silence", "ignore", "skip", "optimize"}
FOR_TARGET = {"add", "support", "re-support", "implement", "introduce", "enable", "provide", "expose", "register",
              "create", "document", "test", "modify", "change", "update", "optimize", "adjust", "tweak", "set",
              "backfill"}
TROUBLES = re.compile(r"\b(?:issues?|problems?|bugs?|errors?)$", re.I)  # "fix issues with X": trouble in X
PREPOSITIONS = {"in", "on", "at", "to", "from", "for", "with", "of", "by", "and", "or", "via", "into", "over", "per",
                "through", "under", "across", "within", "without", "than", "as", "vs"}
HEADS = ("for", "of", "in", "with", "between")  # "X with A and B": the "and" joins the preposition's objects
CONTAINERS = re.compile(r"(?:脚本|文件|文档|模块|配置|测试|script|file|module)$")
SUBJECT_IN = {"return", "raise", "emit", "warn", "accept", "produce", "yield"}  # "return X in f": f does it
FOLDER = re.compile(r"(?:目录|目录名|路径|文件夹)$")
COLLECTIONS = re.compile(r"(?:列表|依赖|表格|集合|矩阵|list|deps|matrix)$")
VERSION = re.compile(r"(?:^|[\s=<>@~^])v?\d+(?:\.\d+)*\b")
WITH_BASE = {"refactor", "add", "implement", "build", "rework", "create", "introduce"}
# "X to avoid Y": a purpose, said "以" and the verb's Chinese ("以避免 Y"); other verbs after "to" name a target.
# Any verb of the glossary after "to" and before its object is a purpose (_purpose); verbs that take "X to Y"
# as a target (TO_TARGET) are read as such first.
PURPOSES = {"avoid", "prevent", "fix", "reduce", "support", "enable", "speed up", "allow", "keep", "make", "resolve",
            "unblock", "improve", "ensure", "address", "mitigate", "simplify", "accelerate", "match", "unify"}
INFINITIVE = {"try", "make sure", "continue", "start", "fail", "attempt", "refuse", "prefer", "need", "forget"}
# "allow users to pass X": the verb's object does the second verb, no purpose ("允许用户传入 X").
CAUSATIVE = {"allow", "let", "help", "require", "force", "ask", "permit", "enable"}
PURPOSE_ZH = {"keep": "以保持", "use": "以使用"}  # where the purpose reads otherwise than the verb's own Chinese
# "support X via Y": the means, said first ("通过 Y 支持 X"); "over" only before a name ("over NCCL").
MEANS = re.compile(r"^(.+?)\s+(?:via|through|using|over(?=\s+[A-Z0-9`]))\s+(.+)$")
# "stop X from sampling Y": what is kept from happening, said as a verb phrase.
KEPT_FROM = {"stop": "阻止", "prevent": "防止", "block": "阻止", "keep": "避免"}
# "build X from Y": made from a source ("基于 Y 构建 X").
# "offload X to a thread executor": where a thing is put ("将 X 卸载到线程池").
MOVED_TO = {"move": "移到", "migrate": "迁移到", "offload": "卸载到", "port": "移植到", "forward": "转发到",
            "export": "导出到", "dump": "转储到", "propagate": "传递到"}
# "pass X to Y", "set X to Y": the verb's Chinese with where X goes ("将 X 传给 Y"); also "fall back to Y" alone.
TO_TARGET = {"pass": "传给", "set": "设为", "change": "改为", "point": "指向", "pad": "填充到", "truncate": "截断到",
             "extend": "扩展到", "restrict": "限制在", "limit": "限制为", "cap": "限制为", "write": "写入",
             "send": "发送到", "apply": "应用到", "attach": "附加到", "map": "映射到", "increase": "增大到",
             "decrease": "减小到", "reduce": "降低到", "lower": "降低到", "raise": "提高到", "downgrade": "降级到",
             "expose": "暴露给", "log": "记录到", "save": "保存到", "upload": "上传到", "redirect": "重定向到",
             "route": "路由到", "link": "链接到", "append": "追加到", "copy": "复制到", "clamp": "截断到",
             "return": "返回给", "broadcast": "广播到", "dispatch": "分发到", "push": "推送到", "publish": "发布到",
             "bind": "绑定到", "pin": "固定到", "restore": "恢复到", "reset": "重置为", "revert": "回滚到",
             "fall back": "回退到", "update": "更新到", "upgrade": "升级到", "bump": "升级到", "adapt": "适配到",
             "default": "默认设为", "scale": "扩展到", "contribute": "贡献给", "report": "报告给", "assign": "分配给",
             "delegate": "委托给", "integrate": "集成到", "fallback": "回退到",
             "reassign": "重新分配给"}
# "treat X as Y": the verb's Chinese with what X becomes ("将 X 视为 Y").
AS_TARGET = {"treat": "视为", "use": "用作", "mark": "标记为", "register": "注册为", "set": "设为", "expose": "暴露为",
             "export": "导出为", "save": "保存为", "store": "存储为", "rename": "重命名为", "keep": "保留为",
             "document": "记为", "record": "记为", "label": "标记为", "tag": "标记为", "define": "定义为",
             "report": "报告为", "return": "返回为", "cast": "转换为", "convert": "转换为", "parse": "解析为"}
# "X is set", "X will be initialized in Y": said as the verb acting on X ("在 Y 中初始化 X").
PASSIVE = re.compile(r"^(.+?)\s+(?:is|are|was|were|gets?|got|(?:will|should|must|can|would)\s+(?:now\s+)?be|"
                     r"has\s+been|have\s+been)\s+(?:now\s+)?(not\s+)?([a-z][a-z-]*(?:ed|en)|set|built|run|put|cut|"
                     r"split|kept|left|read|shut down|sent|spent|thrown|bound|found|held)\b\s*(.*)$", re.I)
# "X is None", "X is invalid", "X is not compatible with Y": a state, said "X 为 None", "X 无效".
COPULA = re.compile(r"^(.+?)\s+(?:is|are)\s+(not\s+)?(.+)$", re.I)
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
    out = out.replace("的的", "的")  # "兼容的" before a "的" that joins a phrase
    return re.sub(r"\s+(?=[，。；：、）])|(?<=[，。；：、（])\s+", "", out)


def _words(tokens: list[str], first: bool = False) -> str:
    """A run of words, glossary phrases (up to 3 words) in Chinese, the rest as written."""
    tables = glossary()
    out: list[str] = []
    tokens = [t for t in tokens if t.lower() not in FILLERS]
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
        if re.fullmatch(r"[A-Za-z][\w.-]*'s", token):  # "VeOmni's native path": VeOmni 的原生路径
            _attach(out, token[:-2], known=False)
            out.append("的")
            i += 1
            continue
        found, size, noun = _known(tokens, i, first)
        if found is None and (done := _participle(tokens, i)):
            _attach(out, done, known=True)  # "generated files": 生成的文件
            i += 1
            continue
        if found is None:
            _attach(out, ACRONYM_PLURAL.sub(r"\1", token), known=False)  # "GPUs" -> "GPU": Chinese has no plural
            i += 1
            continue
        if noun and CJK.search(found) and _unknown(tokens, i + size):
            found = " ".join(tokens[i:i + size])  # "reward loop": a name the glossary knows half of stays whole
        _attach(out, found, known=True)
        i += size
    return join(out)


def _participle(tokens: list[str], i: int) -> str:
    """A past participle before its noun ("customized datasets"), said as the verb's Chinese and 的; '' otherwise."""
    word = tokens[i]
    if not re.fullmatch(r"[a-z][a-z-]*ed", word) or i + 1 >= len(tokens) or tokens[i + 1].lower() in PREPOSITIONS \
            or tokens[i + 1] == "," or word in GRAMMAR:
        return ""
    found = _verb([word])
    return f"{found[1]}的" if found and found[0] != word else ""


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
    if match := re.match(r"^(.+?)(?:\s+instead\s+of|\s+rather\s+than|\s*,\s+not)\s+(.+)$", text, re.I):
        return join([_phrase(match.group(1)), "，而非", _phrase(match.group(2))])  # "X, not per micro-batch"
    if match := re.match(r"^(?:the\s+)?same\s+(.+?)\s+(?:with|as)\s+(.+)$", text, re.I):
        return join(["与", _phrase(match.group(2)), "相同的", _phrase(match.group(1))])  # "the same X as Y"
    if match := re.match(r"^(.+?)\s+(older|newer|higher|lower|greater|less|more|larger|smaller|shorter|longer)\s+than"
                         r"\s+(.+)$", text, re.I):  # "vLLM older than 0.18.0": 早于 0.18.0 的 vLLM
        said = glossary()["attributes"][f"{match.group(2).lower()} than"]
        return join([said, _phrase(match.group(3)), "的", _phrase(match.group(1))])
    if (parts := _split(text, "to")) and re.search(r"\b(?:fix|fixes|changes?|updates?|improvements?|tweaks?)$",
                                                    parts[0], re.I):
        return join(["对", _phrase(parts[1]), "的", _phrase(parts[0])])  # "minor fixes to X": 对 X 的若干小修复
    if match := re.match(r"^per\s+(.+)$", text, re.I):
        return join(["按", _phrase(match.group(1))])  # "per micro-batch": 按微批次
    if (parts := _split(text, "between")) and (pair := _split(parts[1], "and")):
        return join([_phrase(pair[0]), "与", _phrase(pair[1]), "之间的", _phrase(parts[0])])
    if parts := _split(text, "about"):  # "the readme about X": 关于 X 的 readme
        return join(["关于", _phrase(parts[1]), "的", _phrase(parts[0])])
    if (parts := _split(text, "for")) and CONTAINERS.search(container := _phrase(parts[1])):
        return join([container, "中的", _phrase(parts[0])])  # "output_dir for the script": 脚本中的 output_dir
    for word, before, between, after in (("and", False, "和", ""), ("of", True, "的", ""), ("for", True, "的", ""),
                                         ("in", True, "中的", ""), ("with", True, "带有", "的"),
                                         ("from", True, "中的", "")):
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
    for size in (3, 2, 1):
        chunk = tokens[:size]
        if len(chunk) < size or any(t[0] in "`'(" for t in chunk):
            continue
        for stem in _stems(chunk[-1]):
            key = " ".join([*(t.lower() for t in chunk[:-1]), stem])
            if key in verbs:
                return key, verbs[key], size
        for stem in _stems(chunk[0])[1:] if size == 2 else ():  # "falls back": the first word inflected
            key = f"{stem} {chunk[1].lower()}"
            if key in verbs:
                return key, verbs[key], size
    return None


def _doing(text: str) -> str:
    """A verb phrase inside a sentence ("by setting X", "using X", "instead of duplicating X"): its verb in base
    form even where the gerund is a glossary noun ("setting"), and "use" said 使用 (改用 names a switch)."""
    tokens = TOKEN.findall(text)
    if (found := _verb(tokens)) is None or re.fullmatch(r"[a-z]+ed", tokens[0]):
        return _phrase(text)  # "due to retained value": a participle before its noun, no verb phrase
    said = _shaped(found[0], "使用" if found[0] == "use" else found[1], " ".join(tokens[found[2]:]).replace(" ,", ","))
    return said


def _gerund(text: str) -> str:
    """A "when"/"while" clause: "initializing multiple tools" -> "初始化多个工具", "using X" -> "使用 X", "X is
    disabled" -> "禁用 X"."""
    if (stated := _stated(text)) is not None:  # "offload is disabled": a state, though "offload" is a verb too
        return stated
    if not _verb(TOKEN.findall(text)) and (said := _subject_verb(TOKEN.findall(text))):
        return said  # "a worker restarts": worker 重启
    return _doing(text)


@cache
def _purpose() -> re.Pattern[str]:
    """" to <verb> ": a purpose when the verb is one the glossary knows (longest first: "speed up" before "speed"),
    not also a noun ("add license to test file") unless a purpose is what it always says (PURPOSES), and not after
    "how" ("add how to use X" is no purpose)."""
    nouns = glossary()["nouns"]
    verbs = sorted((k for k in glossary()["verbs"] if re.fullmatch(r"[a-z-]+(?: [a-z]+)?", k) and
                    (k not in nouns or k in PURPOSES)), key=len, reverse=True)
    return re.compile(rf"(?<!\bhow)(?<!\bwhat)(?<!\bwhere)\s+(?:in order\s+)?to\s+"
                      rf"({'|'.join(map(re.escape, verbs))})\s+", re.I)


def _subject(text: str) -> bool:
    """Whether `text` can be a sentence's subject: a noun phrase of at most five words, no clause inside it
    (no "when", "to", "for"...), not opened by a capitalised word the glossary does not know (a verb it lacks:
    "Assert X is applied")."""
    tokens = TOKEN.findall(text)
    if not 0 < len(tokens) <= 5 or any(t.lower() in GRAMMAR - {"the", "a", "an", "of", "all", "new", "its"}
                                       for t in tokens):
        return False
    return not _unknown_verb(tokens[0], lower=False)


def _unknown_verb(word: str, lower: bool = True) -> bool:
    """A title's first word that may be a verb the glossary lacks ("Invalidate", "reflect"): a plain word that is
    neither a glossary word, nor a short lower-case name ("hccl", "npu"), nor shaped as an adjective
    ("Conversational"); `lower`: whether a lower-case word may be one."""
    if not re.fullmatch(r"[A-Z][a-z]+" if not lower else r"[A-Za-z][a-z]+", word) or \
            word.islower() and len(word) <= 4 or re.search(r"(?:al|ous|ic|able|ible|ful|less|ary)$", word):
        return False
    return _known([word.lower()], 0, False)[0] is None and _verb([word]) is None


def _stated(text: str, kind: str = "") -> str | None:
    """A passive or a state: "tools will be initialized in Y" -> "在 Y 中初始化工具" (the verb acting on its subject),
    "X is None" -> "X 为 None", "X is not compatible with Y" -> "X 与 Y 不兼容". None when `text` is neither."""
    if (match := PASSIVE.match(text)) and _subject(match.group(1)) and \
            (found := _verb([match.group(3).split()[0]])) and match.group(3).lower() not in glossary()["attributes"]:
        active = _doing(f"{found[0]} {match.group(1)} {match.group(4)}".strip())
        if match.group(2):
            return join(["不再" if kind != "fix" else "未", active])
        return active
    if not (match := COPULA.match(text)) or _verb(TOKEN.findall(match.group(1))) or not _subject(match.group(1)):
        return None
    subject, negated, state = _phrase(match.group(1)), bool(match.group(2)), match.group(3).strip()
    tokens = TOKEN.findall(state)
    attributes = glossary()["attributes"]
    for size in (2, 1):  # "compatible with Y", "invalid"
        word = " ".join(tokens[:size]).lower()
        if len(tokens) >= size and word in attributes:
            said = attributes[word].removesuffix("的")
            tail = _phrase(" ".join(tokens[size:]))
            if size == 2 and said.startswith(("兼容", "与")):
                return join([subject, "与", tail, "不" if negated else "", said.removeprefix("与其")])
            return join([subject, "不" if negated else "", said, tail])
    if len(tokens) == 1 and _verbatim(tokens[0], False) or state.lower() in ("none", "null", "true", "false", "empty"):
        return join([subject, "不为" if negated else "为", state])
    return None


def clause(text: str, kind: str = "") -> str:
    """One verb phrase in Chinese order; without a verb, the type's action (fix) or the phrase itself."""
    text = text.strip().rstrip(".")
    if (match := re.match(r"^(.+?)\s+due\s+to\s+(.+)$", text, re.I)) and match.group(1).strip():
        because = match.group(2)  # "disable X due to Y": the cause first, as Chinese says it
        return join(["因", _gerund(because), "，", clause(match.group(1), kind)])
    tokens = TOKEN.findall(text)
    while tokens and tokens[0].lower() in ADVERBS - ADVERB_ZH.keys():
        tokens = tokens[1:]
    if len(tokens) > 1 and tokens[0].lower() in ADVERB_ZH and _verb(tokens[1:]):  # "automatically resume X"
        return join([ADVERB_ZH[tokens[0].lower()], clause(" ".join(tokens[1:]), kind)])
    if tokens and tokens[0].lower() in ("don't", "do", "never", "dont") and len(tokens) > 1:
        negated = tokens[2:] if tokens[0].lower() == "do" and tokens[1].lower() == "not" else tokens[1:]
        if _verb(negated) or negated and negated[0].lower() in ADVERB_ZH and _verb(negated[1:]):
            return join(["不再", clause(" ".join(negated), kind)])  # "Don't gather logits ...": 不再汇总
    found = _verb(tokens)
    if found and tokens[0].lower().endswith("ing") and tokens[0].lower() in glossary()["nouns"]:
        found = None  # "Packing with X", "Sampling of Y": a noun that opens the title, not a verb
    if tokens and tokens[0].lower() == "default" and (parts := _split(" ".join(tokens[1:]), "to")):
        return join(["将", _phrase(parts[0]), "默认设为", _phrase(parts[1])])  # "Default SFT loss to chunked_nll"
    if not found and (said := _subject_verb(tokens)):
        return said
    if not found and tokens and _unknown_verb(tokens[0]) and any(t.lower() in GRAMMAR for t in tokens[1:]):
        return text  # "reflect X in Y": a verb the glossary lacks; a guessed noun phrase would mislead
    moved = re.search(r"\s(?:from|into)\s", text, re.I) is not None  # "separate X from Y": the verb
    if not found or tokens[0].lower() in glossary()["attributes"] and not moved:  # "sharded delta weight sync"
        if (stated := _stated(" ".join(tokens), kind)) is not None:
            return join(["修复", stated, "的问题"]) if kind == "fix" else stated
        return _nominal(tokens, kind)
    key, zh, size = found
    rest = " ".join(tokens[size:]).replace(" ,", ",")
    return _shaped(key, zh, rest)


MODALS = {"should": "应", "must": "必须", "will": "将", "can": "可以", "cannot": "无法", "can't": "无法",
          "shall": "应", "may": "可以"}


def _subject_verb(tokens: list[str]) -> str | None:
    """A sentence with its subject first: "X falls back to Y" -> "X 回退到 Y", "X should use Y" -> "X 应改用 Y"
    (the subject at most three words, none of them a verb)."""
    nouns = glossary()["nouns"]
    for j in range(1, min(4, len(tokens))):
        word = tokens[j].lower()
        if _verb(tokens[:j]) or any(t in (",", "and", "or") for t in tokens[:j]):
            return None
        if all(t.lower() in glossary()["attributes"] for t in tokens[:j]):
            continue  # "minor fixes to X": an attribute is no subject
        if word in MODALS and (found := _verb(tokens[j + 1:])):
            rest = " ".join(tokens[j + 1 + found[2]:])
            zh = "使用" if found[0] == "use" else found[1]  # "should use X": 应使用 X (改用 is a change of tool)
            return join([_phrase(" ".join(tokens[:j])), MODALS[word], _shaped(found[0], zh, rest)])
        if re.fullmatch(r"[a-z]+(?:e?s)", word) and word not in nouns and word[:-1] not in nouns and \
                (found := _verb(tokens[j:])) and found[0] != word:
            rest = " ".join(tokens[j + found[2]:])
            zh = "使用" if found[0] == "use" else found[1]  # "X uses Y": 使用 (改用 is a change of tool)
            return join([_phrase(" ".join(tokens[:j])), _shaped(found[0], zh, rest)])
    return None


def _nominal(tokens: list[str], kind: str) -> str:
    """A title without a verb: "X fix" -> "修复 X", "X not take effect" -> "修复 X 不生效的问题"."""
    text = " ".join(tokens)
    if match := re.match(r"^(.+?)\s+(?:does\s+not|doesn't|not|never)\s+(?:take|takes|taking)\s+effect$", text, re.I):
        return join([_phrase(match.group(1)), "不生效"]) if kind != "fix" else \
            join(["修复", _phrase(match.group(1)), "不生效的问题"])
    if (match := re.match(r"^(.+?)\s+(?:when|while|if|after|during)\s+(.+)$", text, re.I)) and \
            not _unknown_verb(tokens[0]):  # "X deadlock when Y"; not "Invalidate X when Y" (a verb it lacks)
        joint = text[match.end(1):].split()[0].lower()
        at = {"after": "后", "during": "期间"}.get(joint, "时")
        said = join([_gerund(match.group(2)), f"{at}的", _phrase(match.group(1))])
        return join(["修复", said]) if kind == "fix" else said
    if (parts := _split(text, "to")) and all(_verbatim(p, False) and " " not in p for p in parts):
        return join([parts[0], "改为", parts[1]])  # "`max_seq_length` to `max_length`": a rename
    if tokens and tokens[-1].lower() in ("fix", "fixes"):
        return join(["修复", " ".join(tokens[:-1])])  # "nccl broadcast bucket size fix": the thing, as named
    if kind != "fix" and (match := re.match(r"^(.+?)\s+support\s+for\s+(.+)$", text, re.I)):
        return join(["为", _phrase(match.group(2)), "支持", _phrase(match.group(1))])  # "PP/VPP support for X"
    if kind != "fix" and (parts := _split(text, "for")) and (match := MEANS.match(parts[0])):
        return join(["为", _phrase(parts[1]), "提供基于", _phrase(match.group(2)), "的", _phrase(match.group(1))])
    if kind == "fix" and (parts := _split(text, "on")):  # "[trainer] fix: f on image and video"
        return join(["修复", _phrase(parts[0]), "对", _phrase(parts[1]), "的处理"])
    if kind == "fix":
        said = _phrase(text)
        return said if said.endswith("修复") else join(["修复", said])  # "minor fixes to X": no 修复 twice
    return _phrase(text)


def _shaped(key: str, zh: str, rest: str) -> str:
    """The verb `zh` (glossary key `key`) and its object `rest`, in the structure the title uses."""
    if not rest:
        return zh
    if (match := re.match(r"^to\s+(.+)$", rest, re.I)) and _verb(TOKEN.findall(match.group(1))):
        if key in INFINITIVE:  # "try to fix X", "make sure to keep X": 尝试修复 X
            return join([zh, _doing(match.group(1))])
        return join([zh, "，以", _doing(match.group(1))])  # "refactor to use X": 重构，以使用 X
    for shape in (_contrasted, _defaulted, _conditioned, _aimed, _means, _to_shaped, _paired):
        if (said := shape(key, zh, rest)) is not None:
            return said
    if key == "depend" and rest.lower().startswith("on "):
        rest = rest[3:]
    return _placed(key, zh, rest)


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
    if not (parts := _split(rest, "by")):
        return None
    means = TOKEN.findall(parts[1])
    if _verb(means) and (re.match(r"^\S+ing\b", parts[1]) or means[0].lower() in glossary()["verbs"] and
                         means[0].lower() not in glossary()["nouns"]):  # "by setting X", "by downgrade X"
        return join(["通过", _doing(parts[1]), _shaped(key, zh, parts[0])])
    if key in ("sort", "group", "wrap", "filter", "split", "index", "order", "select", "key", "partition", "normalize",
               "scale", "divide", "multiply", "weight", "average"):
        zh = "缩放" if key == "scale" else zh  # "scale the loss by the token count": 按 token 数量缩放损失
        return join(["按", _phrase(parts[1]), _shaped(key, zh, parts[0])])
    return None


def _conditioned(key: str, zh: str, rest: str) -> str | None:
    """"fix X when Y" -> "修复 Y 时的 X"; "drop X after Y in Z" -> "在 Z 中丢弃 Y 后 X"."""
    if not (match := re.match(r"^(.+?)\s+(?:when|while|if|after|before|during|without)\s+(.+)$", rest, re.I)):
        return None
    if _purpose().search(match.group(1)):
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
    if (match := _purpose().search(rest)) and _known(TOKEN.findall(rest[match.start(1):]), 0, False)[1] < 2:
        aim = match.group(1).lower()  # not "to ignore list" (a noun phrase the glossary knows)
        verb = glossary()["verbs"].get(aim, "")
        said = clause(f"{aim} {rest[match.end():]}")
        tail = said.removeprefix(verb) if said.startswith(verb) else said  # the purpose's verb is said once
        done = rest[:match.start()].rstrip(" ,")  # "upgrade X, to resolve Y": the comma is the purpose's
        lead = PURPOSE_ZH.get(aim, "以" + verb) if said.startswith(verb) else "以"  # "以在 fork 上运行"
        if key in CAUSATIVE and done and not _split(done, "in") and not _split(done, "for"):
            return join([zh, _phrase(done), _doing(rest[match.start():].strip()[3:])])  # "allow users to pass X"
        return join([_shaped(key, zh, done), "，", lead, tail])
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
    if key in ("bump", "upgrade", "update", "downgrade") and parts and (source := _split(parts[0], "from")) and \
            re.search(r"\d", parts[1]):  # "bump X from 0.5.14 to 0.5.15": 将 X 从 0.5.14 升级到 0.5.15
        return join(["将", _phrase(source[0]), "从", source[1], f"{zh}到", parts[1]])
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
    if key in ("merge", "integrate", "inject", "fold", "load", "insert", "incorporate", "embed", "put", "pull out",
               "extract", "factor out", "wire", "move", "push", "pack") and \
            (into := _split(rest, "into")):
        return join(["将", _phrase(into[0]), f"{zh.removesuffix('到')}到", _phrase(into[1])])
    if key in TO_TARGET and parts and (after := TOKEN.findall(parts[1])) and len(after) > 1 and \
            after[0].lower() in glossary()["verbs"] and not _known(after, 0, False)[1] > 1:
        return join([_shaped(key, zh, parts[0]), "，以", _doing(parts[1])])  # "update docs to document X": a purpose
    if key in TO_TARGET and parts and (source := _split(parts[0], "from")):  # "change X from A to B": 将 X 从 A 改为 B
        return join(["将", _phrase(source[0]), "从", _phrase(source[1]), TO_TARGET[key], _phrase(parts[1])])
    if key in TO_TARGET and parts:
        if aim := _split(parts[1], "for"):  # "set X to True for some scripts": 为部分脚本将 X 设为 True
            return join(["为", _phrase(aim[1]), "将", _phrase(parts[0]), TO_TARGET[key], _phrase(aim[0])])
        return join(["将", _phrase(parts[0]), TO_TARGET[key], _phrase(parts[1])])
    if rest.lower().startswith("to ") and (key in TO_TARGET or key in MOVED_TO):  # "fall back to X", "migrate to X"
        return join([TO_TARGET.get(key) or MOVED_TO[key], _phrase(rest[3:])])
    if key in AS_TARGET and (parts := _split(rest, "as")):
        if aim := _split(parts[1], "for"):  # "treat X as 0 for engine init": 为引擎初始化将 X 视为 0
            return join(["为", _phrase(aim[1]), "将", _phrase(parts[0]), AS_TARGET[key], _phrase(aim[0])])
        return join(["将", _phrase(parts[0]), AS_TARGET[key], _phrase(parts[1])])
    if key in ("cap", "limit", "clamp", "pin", "set") and (parts := _split(rest, "at")):
        pinned = key == "pin"
        return join(["将", _phrase(parts[0]), "固定在" if pinned else "限制在", _phrase(parts[1]),
                     "" if pinned else "内"])
    if key != "give" and (parts := _split(rest, "as")) and parts[0] and \
            not re.match(r"^(?:well|much|many|soon|long)\b", parts[1], re.I):
        return join([zh, _phrase(parts[0]), "作为", _phrase(parts[1])])  # "add X as an alternative engine"
    return None


def _paired(key: str, zh: str, rest: str) -> str | None:
    """make X Y, remove X from Y, replace X with Y, align X with Y, prevent X from appearing in Y."""
    if key == "make":
        return _make(rest)
    if key == "give" and (match := re.match(r"^(.+?)\s+(?:the|a|an)\s+(.+)$", rest, re.I)):
        if same := re.match(r"^same\s+(.+?)\s+as\s+(.+)$", match.group(2), re.I):  # "give X the same Y as Z"
            return join(["让", _phrase(match.group(1)), "的", _phrase(same.group(1)), "与", _phrase(same.group(2)),
                         "相同"])
        return join(["为", _phrase(match.group(1)), zh, _phrase(match.group(2))])  # "give X a Y": 为 X 提供 Y
    if key in ("remove", "drop", "exclude", "delete", "rip") and (parts := _split(rest, "from")):
        return join(["从", _phrase(parts[1]), "中", zh, _phrase(parts[0])])
    if key == "replace" and (parts := _split(rest, "with")):
        return join(["用", _phrase(parts[1]), "替换", _phrase(parts[0])])
    if key in ("align", "sync") and (parts := _split(rest, "with")):
        return join(["让", _phrase(parts[0]), "与", _phrase(parts[1]), "对齐" if key == "align" else "保持一致"])
    if key in ("share", "pair", "match", "compare", "merge", "combine") and (parts := _split(rest, "with")):
        return join(["将", _phrase(parts[0]), "与", _phrase(parts[1]), zh])  # "share X with Y": 将 X 与 Y 共享
    if key == "prevent" and (match := re.match(r"^(.+?)\s+from\s+appearing\s+in\s+(.+)$", rest, re.I)):
        return join([zh, _phrase(match.group(2)), "中出现", _phrase(match.group(1))])
    if key in KEPT_FROM and (parts := _split(rest, "from")) and _verb(TOKEN.findall(parts[1])):
        return join([KEPT_FROM[key], _phrase(parts[0]), clause(parts[1])])  # "stop the policy from sampling X"
    if (parts := _split(rest, "from")) and (moved := _split(parts[1], "to")) and key in ("move", "migrate", "sync",
                                                                                            "copy", "port", "backport"):
        return join(["将", _phrase(parts[0]), "从", _phrase(moved[0]), f"{zh}到", _phrase(moved[1])])
    if key in FROM_SOURCE and (parts := _split(rest, "from")):
        return join(["基于", _phrase(parts[1]), zh, _phrase(parts[0])])  # "build RL tokenizer from HFModelConfig"
    if (parts := _split(rest, "from")) and not re.search(r"\bto\b", parts[1]) and key not in OBJECT_IN and \
            not re.match(r"^\S+ing\b", parts[1]):  # "fix X loading from Y", "stop X from scrolling": not a source
        return join(["从", _phrase(parts[1]), "中" if not _verbatim(parts[1], False) else "", zh, _phrase(parts[0])])
    return None


def _placed(key: str, zh: str, rest: str) -> str:
    """The verb and its object with a place or target: "in Y", "on Y", "for Y", "with Y", "from Y"."""
    tokens = TOKEN.findall(rest)
    if re.fullmatch(r"[a-z]+ing", tokens[0]) and tokens[0] not in glossary()["nouns"] and _verb(tokens) and \
            len(tokens) > 1 and tokens[1].lower() not in PREPOSITIONS:  # not "fix caching in SFT": a noun
        return join([zh, _doing(rest)])  # "prevent creating new threads for X": 防止为 X 创建新线程
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
    if (parts := _split(rest, "with")) and re.search(r"\bsame\b", parts[0], re.I):
        return join([zh, _phrase(rest)])  # "use the same X with Y": 使用与 Y 相同的 X
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
    for word in ("in", "on", "under", "within", "inside", "at", "across", "over", "between"):
        if parts := _split(rest, word):
            place = _phrase(parts[1])
            if word == "across":  # "cache X across weight updates": 跨权重更新缓存 X
                return join(["跨", place, _placed(key, zh, parts[0])])
            if word == "between":
                return join(["在", place, "之间", _placed(key, zh, parts[0])])
            if word == "at" and key in OBJECT_IN:
                return join([zh, place, "处的", _phrase(parts[0])])
            if word == "at":  # "add X at the end of Y": 在 Y 的末尾新增 X
                return join(["在", place, _placed(key, zh, parts[0])])
            where = "上" if word in ("on", "over") else "下" if word == "under" or FOLDER.search(place) else "中"
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
    elif (named := LABEL.match(text)) and _verbatim(named.group(1), False):
        lead, text = named.group(1) + "：", named.group(2)  # "SDFT/SDPO: live teacher logprobs": a name, then what
    asides = [m.group(0) for m in re.finditer(r"(?<!`)\s*\([^()`]*\)", text)]
    for aside in asides:  # "(1 version)", "(GRPO, RLOO)": said after the sentence, as Chinese brackets them
        text = text.replace(aside, "")
    breaks = r"\s*;\s+" if '"' in text else r"\s*;\s+|(?<=[A-Za-z0-9)`])\s*:\s+"  # a quote keeps its colon
    out = [_coordinated(part, kind) for part in re.split(breaks, text)]
    return join([lead + "；".join(p for p in out if p), *(_words([a.strip()]) for a in asides)])


def _coordinated(text: str, kind: str) -> str:
    tokens = TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if token.lower() in ("and", "&") and 0 < i < len(tokens) - 2 and _verb(tokens[i + 1:]) and _verb(tokens):
            return join([clause(" ".join(tokens[:i]), kind), "并", _coordinated(" ".join(tokens[i + 1:]), kind)])
        if token == "," and 0 < i < len(tokens) - 2 and _verb(tokens) and (after := _verb(tokens[i + 1:])) and \
                after[0] not in glossary()["nouns"] and tokens[i + 1].lower() != "and":
            # "deprecate workers, migrate to engines": two verb phrases; a verb that is also a noun ("test",
            # "support") may be a list's next item, so it does not split
            return join([clause(" ".join(tokens[:i]), kind), "，", _coordinated(" ".join(tokens[i + 1:]), kind)])
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
