"""The words titles are translated with: the reviewed glossary (glossary.json: verbs, nouns, attributes and
module names, lower-case English -> Chinese), the closed word classes grammar is read by (prepositions, the English
only a sentence needs, verbs by the structure they take), and how a word or phrase is found in them: inflected
("fixes", "stopped"), the longest phrase first, identifiers, paths, flags, versions and names kept as written; a
word that may be a verb the glossary lacks, and the " to <verb> " that opens a purpose.
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
PREPOSITIONS = {"in", "on", "at", "to", "from", "for", "with", "of", "by", "and", "or", "via", "into", "over", "per",
                "through", "under", "across", "within", "without", "than", "as", "vs"}
# English that only a sentence needs (no name or term is made of it): left in a translation, it shows that the
# structure was not understood.
GRAMMAR = {"to", "with", "for", "in", "on", "of", "from", "by", "via", "using", "is", "are", "was", "be", "been",
           "will", "not", "that", "which", "this", "these", "when", "if", "instead", "than", "as", "into", "during",
           "across", "without", "between", "after", "before", "so", "can", "should", "has", "have", "it", "its",
           "their", "the", "a", "an", "and", "or", "but", "all", "only", "also", "now", "then", "there", "because",
           "due", "where", "while", "does", "do", "don't", "doesn't", "no", "more", "less", "some", "any", "new",
           "over", "at", "per", "through", "under", "within", "vs", "upon", "about", "onto", "out", "up", "off",
           "down", "what", "how", "why", "we", "our", "you", "your", "another", "need", "needs", "must", "cannot",
           "inside", "behind", "above", "below"}

# Words that only qualify a fix ("minor fixes", "Quick fix"): a title of them and "fix" names nothing it fixes.
QUALIFIERS = r"small|minor|tiny|quick|various|misc|some|several|final|temporary|another|more|robust|proper|" \
             r"better|additional|further|critical|hot|partial|simple|major|real|correct"

# Verbs by the structure they take (prhub.engine.verb_phrases says each structure).
# Verbs whose "in Y" names where the thing is ("修复 Y 中的 X"); others say where the doing is ("在 Y 中新增 X").
OBJECT_IN = {"fix", "hotfix", "avoid", "prevent", "strip", "remove", "expand", "correct", "resolve", "drop",
             "delete", "handle", "update", "silence", "ignore", "skip", "optimize"}
FOR_TARGET = {"add", "support", "re-support", "implement", "introduce", "enable", "provide", "expose", "register",
              "create", "document", "test", "modify", "change", "update", "optimize", "adjust", "tweak", "set",
              "backfill"}
WITH_BASE = {"refactor", "add", "implement", "build", "rework", "create", "introduce"}
SUBJECT_IN = {"return", "raise", "emit", "warn", "accept", "produce", "yield"}  # "return X in f": f does it
# "X to avoid Y": a purpose, said "以" and the verb's Chinese ("以避免 Y"); other verbs after "to" name a target.
# Any verb of the glossary after "to" and before its object is a purpose (purpose()); verbs that take "X to Y"
# as a target (TO_TARGET) are read as such first.
PURPOSES = {"avoid", "prevent", "fix", "reduce", "support", "enable", "speed up", "allow", "keep", "make", "resolve",
            "unblock", "improve", "ensure", "address", "mitigate", "simplify", "accelerate", "match", "unify"}
INFINITIVE = {"try", "make sure", "continue", "start", "fail", "attempt", "refuse", "prefer", "need", "forget"}
# "allow users to pass X": the verb's object does the second verb, no purpose ("允许用户传入 X").
CAUSATIVE = {"allow", "let", "help", "require", "force", "ask", "permit", "enable"}
PURPOSE_ZH = {"keep": "以保持", "use": "以使用"}  # where the purpose reads otherwise than the verb's own Chinese
# "stop X from sampling Y": what is kept from happening, said as a verb phrase.
KEPT_FROM = {"stop": "阻止", "prevent": "防止", "block": "阻止", "keep": "避免"}
# "offload X to a thread executor": where a thing is put ("将 X 卸载到线程池").
MOVED_TO = {"move": "移到", "migrate": "迁移到", "offload": "卸载到", "port": "移植到", "forward": "转发到",
            "export": "导出到", "dump": "转储到", "propagate": "传递到"}
# What a fix's title may open with to name the failure it ends ("fix: panic on empty input", "fix: hang on exit"):
# the failure, not a verb (触发 panic would say the fix adds one).
SYMPTOMS = frozenset({"panic", "panics", "crash", "crashes", "hang", "hangs", "segfault", "segfaults", "deadlock",
                      "deadlocks", "leak", "leaks", "error", "errors"})
# "pass X to Y", "set X to Y": the verb's Chinese with where X goes ("将 X 传给 Y"); also "fall back to Y" alone.
TO_TARGET = {"pass": "传给", "set": "设为", "change": "改为", "point": "指向", "pad": "填充到", "truncate": "截断到",
             "extend": "扩展到", "restrict": "限制在", "limit": "限制为", "cap": "限制为", "write": "写入",
             "send": "发送到", "apply": "应用到", "attach": "附加到", "map": "映射到", "increase": "增大到",
             "decrease": "减小到", "reduce": "降低到", "lower": "降低到", "raise": "提高到", "downgrade": "降级到",
             "expose": "暴露给", "log": "记录到", "record": "记录到", "save": "保存到", "upload": "上传到",
             "redirect": "重定向到", "promote": "提升为",
             "route": "路由到", "link": "链接到", "append": "追加到", "copy": "复制到", "clamp": "钳制到",
             "return": "返回给", "broadcast": "广播到", "dispatch": "分发到", "push": "推送到", "publish": "发布到",
             "bind": "绑定到", "pin": "固定到", "restore": "恢复到", "reset": "重置为", "revert": "回滚到",
             "fall back": "回退到", "update": "更新到", "upgrade": "升级到", "bump": "升级到", "adapt": "适配到",
             "default": "默认设为", "scale": "扩展到", "contribute": "贡献给", "report": "报告给", "assign": "分配给",
             "delegate": "委托给", "integrate": "集成到", "fallback": "回退到",
             "reassign": "重新分配给", "convert": "转换为", "cast": "转换为", "widen": "放宽为", "narrow": "收窄为",
             "lend": "借给", "extract": "提取到", "split": "拆分到", "factor": "提取到"}
# "treat X as Y": the verb's Chinese with what X becomes ("将 X 视为 Y").
AS_TARGET = {"treat": "视为", "use": "用作", "mark": "标记为", "flag": "标记为", "register": "注册为",
             "set": "设为", "expose": "暴露为", "export": "导出为", "save": "保存为", "store": "存储为",
             "rename": "重命名为", "keep": "保留为", "document": "记为", "record": "记为", "label": "标记为",
             "tag": "标记为", "define": "定义为", "report": "报告为", "return": "返回为", "cast": "转换为",
             "convert": "转换为", "parse": "解析为"}
# "build X from Y": made from a source ("基于 Y 构建 X").
FROM_SOURCE = {"build", "create", "construct", "derive", "generate", "compute", "calculate", "infer", "initialize"}


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


UNPLACED = frozenset({"misc", "root", "other", "others"})  # modules that say no place in the repository


def area_name(name: str) -> str:
    """A module as zh prose names it: a generic one in Chinese (文档), a proper name marked a module (megatron 模块)."""
    said = module(name)
    return said if said != name or not name else f"{name} 模块"


def compound(token: str) -> str | None:
    """A hyphenated word of a name or noun and an ending the glossary frames ("EP-aware": EP 感知的,
    "backend-owned": 由后端持有的), or plain nouns the glossary knows paired by slashes ("eviction/refill":
    驱逐/回填); None otherwise. The head is the noun's Chinese where the glossary knows it, else as written; a
    compound the glossary lists whole ("function-based") is looked up before this."""
    if re.fullmatch(r"[a-z]+(?:/[a-z]+)+", token):
        parts = [lookup(glossary()["nouns"], [part]) or "" for part in token.split("/")]
        return "/".join(parts) if all(CJK.search(part) for part in parts) else None
    match = re.fullmatch(r"([A-Za-z][A-Za-z0-9.+]*)-([A-Za-z]+)", token)
    if match and match.group(1).lower() == "non":  # "non-native": 非原生, not "non 原生"
        said = glossary()["attributes"].get(match.group(2).lower()) or lookup(glossary()["nouns"], [match.group(2)])
        return "非" + said.removesuffix("的") if said and CJK.search(said) else None
    template = _data().get("compounds", {}).get(match.group(2).lower()) if match else None
    if match is None or template is None:
        return None
    head = match.group(1)
    said = lookup(glossary()["nouns"], [head]) if head.islower() or head.istitle() else None
    if said is None and head.islower() and len(head) < 3:
        return None  # "im-compatible" is a misspelt "incompatible", not "compatible with im"
    before, after = template.split("{}")
    return join([before, said if said and CJK.search(said) else head, after])


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


def lookup(table: dict[str, str], words: list[str]) -> str | None:
    phrase = " ".join(words).lower()
    if phrase in table:
        return table[phrase]
    head, last = words[:-1], words[-1]
    for stem in _stems(last)[1:]:
        key = " ".join([*(w.lower() for w in head), stem])
        if key in table:
            return table[key]
    return None


def verbatim(token: str, first: bool) -> bool:
    """An identifier, path, flag, version, code or name: kept as written."""
    if token[0] in "`'(" or re.search(r"[_/.\\<>:=@#\d+]", token) or token.startswith("-"):
        return True
    if re.search(r"[a-z][A-Z]|[A-Z]{2}", token):  # CamelCase, ALLCAPS
        return True
    return token[0].isupper() and not first


def blank_code(text: str, marks: str = " ", fill: str = " ") -> str:
    """`text` with its code spans (`x`) blanked, every other character where it was: words outside code are found
    at their own positions. `marks` stands for the backticks and `fill` for the code ("`", "x": a span still reads
    as one code word, not as space a pattern may swallow)."""
    return re.sub(r"`[^`]*`", lambda m: marks + fill * (len(m.group(0)) - 2) + marks, text)


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
    return re.sub(r"\s+(?=[，。；：、（）])|(?<=[，。；：、（])\s+", "", out)  # full-width marks take no space


def placed_in(where: str, thing: str) -> str:
    """The place word (中的, 上的) before `thing`, its 的 left out when `thing` has one: one 的 a phrase ("Y 中多余的
    克隆", not "Y 中的多余的克隆")."""
    return where.removesuffix("的") if "的" in thing else where


def known(tokens: list[str], i: int, first: bool) -> tuple[str | None, int, bool]:
    """The glossary's Chinese for the longest phrase (up to 3 words) at tokens[i], its length, whether a noun."""
    tables = glossary()
    for size in (3, 2, 1):
        chunk = tokens[i:i + size]
        if len(chunk) < size or any(verbatim(t, first and i == 0) for t in chunk):
            continue
        if found := tables["attributes"].get(" ".join(chunk).lower()):  # "merged": 合并后的, before the noun's stem
            return found, size, False
        if found := lookup(tables["nouns"], chunk):
            return found, size, True
        if found := lookup(tables["attributes"], chunk):
            return found, size, False
    return None, 0, False


# What is 解析d, not 解决d ("resolve tsconfig paths", "resolve the agent loop config"), unless a trouble is named too
# ("resolve packages dependency error": 解决).
RESOLVED = {"path", "paths", "config", "configuration", "import", "imports", "module", "modules", "root", "roots",
            "symlink", "symlinks", "alias", "aliases", "url", "urls", "uri", "host", "hosts", "hostname", "address",
            "addresses", "reference", "references", "ref", "refs", "symbol", "symbols", "specifier", "specifiers",
            "type", "types", "name", "names", "variable", "variables", "placeholder", "placeholders", "tsconfig",
            "entry", "entries", "workspace", "target", "targets"}
RESOLVE_TROUBLES = {"error", "errors", "issue", "issues", "bug", "bugs", "conflict", "conflicts", "failure", "failures",
                    "oom", "problem", "problems", "warning", "warnings", "mismatch", "crash", "crashes", "deadlock"}


def _sense(key: str, zh: str, after: list[str]) -> str:
    """The verb's Chinese for what follows it (up to a preposition): "resolve" names 解析 or 解决 by its object."""
    if key != "resolve":
        return zh
    words = []
    for token in after[:6]:
        if token.lower() in PREPOSITIONS:
            break
        words.append(token.lower())
    if RESOLVE_TROUBLES & set(words):
        return zh
    return "解析" if RESOLVED & set(words) or words[:1] and words[0][:1] in "`." else zh


def verb(tokens: list[str]) -> tuple[str, str, int] | None:
    """(the verb's glossary key, its Chinese, how many tokens it takes) at the start of `tokens`."""
    verbs = glossary()["verbs"]
    for size in (3, 2, 1):
        chunk = tokens[:size]
        if len(chunk) < size or any(t[0] in "`'(" for t in chunk):
            continue
        for stem in _stems(chunk[-1]):
            key = " ".join([*(t.lower() for t in chunk[:-1]), stem])
            if key in verbs:
                return key, _sense(key, verbs[key], tokens[size:]), size
        for stem in _stems(chunk[0])[1:] if size == 2 else ():  # "falls back": the first word inflected
            key = f"{stem} {chunk[1].lower()}"
            if key in verbs:
                return key, verbs[key], size
    return None


def gerund(tokens: list[str]) -> bool:
    """Whether `tokens` open with a verb's -ing form and its object ("reading encrypted pages"), not a noun the
    glossary knows ("sampling params", "padding")."""
    return len(tokens) > 1 and re.fullmatch(r"[a-z]+ing", tokens[0]) is not None \
        and known(tokens, 0, True)[0] is None and verb(tokens) is not None


def split(text: str, word: str) -> tuple[str, str] | None:
    """`text` around the last top-level ` word ` (not inside backticks or brackets, nor inside a phrase the glossary
    lists whole: "broadcast wait for complete" is no "X for Y")."""
    depth, positions = 0, []
    tokens = TOKEN.findall(text)
    nouns = glossary()["nouns"]
    for i, token in enumerate(tokens):
        if token.lower() == word and 0 < i < len(tokens) - 1 and depth == 0 and \
                " ".join(tokens[i - 1:i + 2]).lower() not in nouns:
            positions.append(i)
    if not positions:
        return None
    i = positions[-1]
    before = " ".join(tokens[:i]).replace(" ,", ",").rstrip(",")  # "A, B, and C": the serial comma goes
    return before, " ".join(tokens[i + 1:]).replace(" ,", ",")


def unknown_verb(word: str, lower: bool = True) -> bool:
    """A title's first word that may be a verb the glossary lacks ("Invalidate", "reflect"): a plain word that is
    neither a glossary word, nor a short lower-case name ("hccl", "npu"), nor shaped as an adjective
    ("Conversational"); `lower`: whether a lower-case word may be one."""
    if not re.fullmatch(r"[A-Z][a-z]+" if not lower else r"[A-Za-z][a-z]+", word) or \
            word.islower() and len(word) <= 4 or re.search(r"(?:al|ous|ic|able|ible|ful|less|ary)$", word):
        return False
    return known([word.lower()], 0, False)[0] is None and verb([word]) is None


@cache
def purpose() -> re.Pattern[str]:
    """" to <verb> ": a purpose when the verb is one the glossary knows (longest first: "speed up" before "speed"),
    not also a noun ("add license to test file") unless a purpose is what it always says (PURPOSES), and not after
    "how", "when" ("add how to use X", "decide when to run gc" are no purpose)."""
    nouns = glossary()["nouns"]
    verbs = sorted((k for k in glossary()["verbs"] if re.fullmatch(r"[a-z-]+(?: [a-z]+)?", k) and
                    (k not in nouns or k in PURPOSES)), key=len, reverse=True)
    return re.compile(rf"(?<!\bhow)(?<!\bwhat)(?<!\bwhere)(?<!\bwhen)\s+(?:in order\s+)?to\s+"
                      rf"({'|'.join(map(re.escape, verbs))})\s+", re.I)
