"""PR titles and short description sentences in Chinese a maintainer would write, without a model.

A title is a verb, its object and a clause or two ("fix X when Y", "add missing X for Y", "support X under Y",
"remove X from Y", "bump X to V", "make X optional", "use X for Y"). Each structure has its Chinese order
("为 Y 补上缺失的 X", "修复 Y 时的 X", "将 X 升级到 V"); words come from the reviewed glossary
(engine/glossary.json), and identifiers, paths, flags, versions, code and names stay as the author wrote them.
What the glossary does not know stays English: a wrong Chinese word is worse than the author's own.

This module is the entry the rest of the code uses: a title's prefixes, clauses and asides here; the words in
prhub.engine.lexicon, noun phrases in prhub.engine.noun_phrases, verb phrases and clauses in
prhub.engine.verb_phrases.
"""
from __future__ import annotations

import re
from functools import cache

from prhub.engine import conventions, noun_phrases
from prhub.engine.lexicon import CJK, GLOSSARY, GRAMMAR, TOKEN, blank_code, glossary, join, module, verb, verbatim
from prhub.engine.verb_phrases import clause

__all__ = ["GLOSSARY", "GRAMMAR", "clause", "glossary", "join", "leftover", "module", "sentence", "strip", "title"]

# Tags and prefixes a title opens with: "[trainer, fsdp]", "feat(config)!:", "🪦", "util:".
TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")
CONVENTIONAL = re.compile(r"^\s*(?:[a-z][\w-]*(?:\([^)]*\))?!?\s*[:：]\s+|"  # a type word needs no space: "fix:MiMo"
                          r"(?:fix|feat|chore|docs?|test|refactor|perf|ci)(?:\([^)]*\))?!?\s*[:：]\s*)", re.I)
# not what opens a name (<Activity>, @scope/pkg, .github); "ℹ️" is a symbol Unicode files as a letter (trl's titles)
SYMBOLS = re.compile(r"^(?:[^\w`'\"\[(<@.{$/~]|\u2139)+")
SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
LABEL = re.compile(r"^([\w./+-]*[A-Z/.][\w./+-]*)\s*[:：]\s+(.+)$")  # "SDFT/SDPO: ...", "StackLLaMA: ..."
# An image that is a container's, by the word just before it ("stable trtllm image", "ci image", "vllm 0.20.2
# image") or what follows it ("image build", "image to 1.3.0rc15"); a plain word, not code, a path or a flag.
IMAGE = re.compile(r"(?i)(?<![\w/.`-])images?(?![\w/.`-])")
# a version before "image" is a container's tag ("0.10.1 image", "vLLM-0.8.5 image", "CUDA12.4 image"), a model's
# name with a version inside it is not ("MiniCPM-V-4.6 image preprocessing", "qwen2.5-vl image": 图像), nor a count
IMAGE_BEFORE = re.compile(r"(?:^|[\s(])(?:(?i:docker|ci|cann|stable|base|npu|runtime|container|trtllm|vllm|sglang|"
                          r"mcore)|v?\d+(?:\.\d+)+[\w.+]*|[A-Za-z]+[-_]?v?\d+(?:\.\d+)+[\w.+]*)\s+$")
IMAGE_AFTER = re.compile(r"(?i)^\s+(?:build|upload|tag|registry|version|(?:version\s+)?to\s+v?\d)")
ABBREVIATIONS = ("etc", "misc", "compat", "wrt", "approx", "incl", "impl", "config", "deps", "resp")  # "Misc. fix"
# A sentence's end inside a title ("make wandb optional. allow extra args"), not an abbreviation's ("e.g.", "Misc.")
# nor a version's
SENTENCE_END = r"(?<=[a-z]{3})" + "".join(rf"(?<!\b(?i:{a}))" for a in ABBREVIATIONS) + r"\.\s+(?=[A-Za-z])"
NAMED = re.compile(r"^([\w-]+(?:\s[\w-]+)?)\s*[:：]\s+(.+)$")  # "Hotfix CI: Add ...": a two-word lead-in


SPACED_COMPOUND = re.compile(r"(?:(?<=\s)|^)(?:([A-Za-z']+)\s+)?([A-Za-z][\w.]*) based\b(?!\s+(?:on|upon)\b)")


def _compound(found: re.Match[str]) -> str:
    """"entropy based filtering" is the compound "entropy-based filtering" where one word makes it (after a verb, a
    preposition or nothing); "model engine based critic" is left, its noun two words long."""
    before, word = found.group(1) or "", found.group(2)
    if word.lower() in GRAMMAR or before and before.lower() not in GRAMMAR and verb([before]) is None:
        return found.group(0)
    return f"{before} {word}-based".lstrip()


def strip(title: str) -> str:
    """A title without its tags, conventional prefix (or a type word in capitals: "FIX Resolve ...", or a branch's:
    "Feat/…"), leading symbols, (#N) suffix and stray backticks."""
    text = SUFFIX.sub("", title).strip()
    for _ in range(3):
        text = SYMBOLS.sub("", TAGS.sub("", CONVENTIONAL.sub("", conventions.BRANCH_TYPE.sub("", text)))).strip()
        text = text[conventions.bare_type_word(text)[1]:]
    return _code_mended(text.rstrip(".").strip())


def _code_mended(text: str) -> str:
    """Code spans as a title means them: a run of backticks is one (```x```, ``x``), none is left open (pydantic-ai
    #7412 "… from `#6676```" had read "`#6676` `` 中的"), and a code's plural is the code ("`FileUrl`s" had read
    "`FileUrl` 的 s")."""
    text = re.sub(r"`{2,}", "`", text)
    if text.count("`") % 2:
        cut = text.rfind("`")
        text = text[:cut] + text[cut + 1:]
    return re.sub(r"(`[^`]+`)s\b", r"\1", text)


# "Node 24": the JavaScript runtime and its version (not 节点 and a count: "对节点 24 个兼容性").
NODE_VERSION = re.compile(r"\bNode\s+(?=\d)")
# A version and what comes after it ("transformers==4.54.0 and above", "v0.13.0 or later"): 及以上.
AND_ABOVE = re.compile(r"(\d[\w.]*)\s+(?:and|or)\s+(?:above|later|newer|higher)\b", re.I)


# GitHub caps a title at 256 characters; a longer one (an export's, a hostile one) is not read clause by clause: its
# phrases nest without end ("avoid reading reading reading …" overflowed the recursion), and the line falls back.
LONGEST = 256


SERIES = re.compile(r"\s+(\[[\w.]{1,4}/(?:N|n|\d{1,3})\])\s*$")


def title(raw: str, kind: str = "") -> str:
    """A PR title in Chinese: its clauses ("; ") and its verb phrases ("X and Y" with a verb on each side)."""
    if len(raw) > LONGEST:
        return strip(raw)
    text = AND_ABOVE.sub("\\1\u2191", NODE_VERSION.sub("Node.js ", strip(raw)))  # "4.54.0 and above": one word
    text = re.sub(r"(?<![\w/])w/o(?=\s)", "without", re.sub(r"(?<![\w/])w/(?=\s)", "with", text))  # "LoRA w/ VLMs"
    text = SPACED_COMPOUND.sub(_compound, text)
    text = re.sub(r"\bafter\s+(?:being\s+)?(moved\s+to)\b", r"\1", text, flags=re.I)  # trl: "X after moved to Y"
    lead = ""
    if (named := NAMED.match(text)) and verb(TOKEN.findall(named.group(1))):
        lead, text = clause(named.group(1), kind) + "：", named.group(2)
    elif (named := LABEL.match(text)) and verbatim(named.group(1), False):
        lead, text = named.group(1) + "：", named.group(2)  # "SDFT/SDPO: live teacher logprobs": a name, then what
    # a call's parentheses ("CombinedLoader.reset()", "f(x)") are code, not an aside
    asides = [m.group(0) for m in re.finditer(r"(?<!`)(?:\s+|(?<![\w.)]))\([^()`]*[^()`\s][^()`]*\)", text)]
    for aside in asides:  # "(1 version)", "(GRPO, RLOO)": said after the sentence, as Chinese brackets them
        text = text.replace(aside, "")
    # "; ", a sentence's end and a colon (a quote keeps its colon) part a title's clauses
    # a series' "[4/N]:" ends a clause too ("Implement Agent Skills [4/N]: Create skills CLI")
    breaks = rf"\s*;\s+|{SENTENCE_END}" if '"' in text else rf"\s*;\s+|(?<=[A-Za-z0-9)`\]])\s*:\s+|{SENTENCE_END}"
    parts = _split_outside_code(breaks, text)
    said = ""
    for i in range(0, len(parts), 2):  # "Align KTO with DPO: Support VLM": a colon still names what, in Chinese
        # a series' mark ends its clause in Chinese too, not the phrase it follows ("… with DPO [a/N]: …")
        marked = SERIES.search(parts[i])
        part = _coordinated(parts[i][:marked.start()] if marked else parts[i], kind)
        part = join([part, marked.group(1)]) if marked and part else part
        if part:
            said += ("：" if ":" in parts[i - 1] else "；") + part if said else part
    said = join([lead + said, *(noun_phrases.words([a.strip()], clause) for a in asides)])
    said = re.sub(rf"\u2191\s*(?={CJK.pattern})", " 及以上", said).replace("\u2191", " 及以上")
    said = _abbreviations_said(said)
    return said.replace("图像", "镜像") if _container_images(text) else said


@cache
def _verb_zh_used() -> re.Pattern[str]:
    """The glossary's Chinese verbs where a phrase uses one as its verb: at its start (or after two characters:
    "始终使用") or before a space and a Latin object. One pattern, compiled once: a pattern a verb would overflow
    re's cache of 512 and every title's patterns would be compiled again."""
    verbs = sorted({v for v in glossary()["verbs"].values() if len(v) > 1 and all(CJK.match(c) for c in v)},
                   key=len, reverse=True)
    either = "|".join(map(re.escape, verbs))
    return re.compile(rf"^(?:\S{{2}})?(?:{either})|(?:{either})\s")


# A feature's last word that says a change of something there, not a thing brought ("wordle model_id 更新").
CHANGE_HEADS = ("更新", "重构", "修复", "修正", "改进", "清理", "移除", "删除", "调整", "升级", "重命名", "弃用",
                "失败", "问题", "崩溃")
# A Chinese verb phrase's opening: a preposition or adverb before its verb ("为 X 支持 Y", "始终使用 X").
PHRASE_OPENING = re.compile(r"新增|在|为|从|对|用|通过|让|使|把|给|向|以|始终|总是|自动|默认")


def brought(said: str, title: str) -> str:
    """A feature titled by the thing it brings, with no verb ("feat: A runnable separate async trainer": 可运行的
    独立的异步 trainer) said as a sentence: "新增可运行的独立的异步 trainer". `said` as it is otherwise: a title with a
    verb, a clause, a negation, a change's head ("X 重构"), or no Chinese (a bare name: "新功能：qwen3.8")."""
    english = strip(title)
    tokens = TOKEN.findall(english)
    if not CJK.search(said) or verb(tokens) or re.search(r"[:;]\s|\s[-–]\s|\bnot\b|n't\b", english, re.I) or \
            re.search(r"[，：；]|并|将|不|支持.", said) or said.endswith(CHANGE_HEADS) or \
            PHRASE_OPENING.match(said):
        return said
    if any(t.lower().endswith("s") and verb([t]) for t in tokens[1:]):
        return said  # "Agent Training Supports Async Tool Calls": its subject's verb
    # a verb of the glossary before a Latin object or at the start is the phrase's verb ("NPU 支持 Liger-Kernel",
    # "始终使用 robust X"); before Chinese it names or qualifies ("参数映射上的", "增量权重同步")
    if _verb_zh_used().search(said):
        return said
    return join(["新增", said.removeprefix("新的")])  # not "新增新的命令"


def _abbreviations_said(said: str) -> str:
    """e.g., i.e. and etc. left among Chinese said in Chinese: "（例如 Qwen3.5）", "`reveal_mro` 等"."""
    said = re.sub(r"[、，]?\s*\b(e\.g|i\.e)\.,?[、，]?\s*", lambda m: ("，" if m.group(0)[0] in "、，" else "") +
                  ("例如 " if m.group(1) == "e.g" else "即 "), said)
    said = re.sub(r"[、，]?\s*\betc\.(?=\s|$)", " 等", said)
    return re.sub(rf"(例如|即|等) (?={CJK.pattern})", r"\1", said)  # no space between Chinese


def _split_outside_code(pattern: str, text: str) -> list[str]:
    """`re.split(f"({pattern})", text)`, but not inside a code span: "for `once: true`" is one clause (vue #14902
    read "在 `once 的 wrapped 时…：true`", its code cut in two)."""
    parts, start = [], 0
    for found in re.finditer(pattern, blank_code(text, "`", "x")):
        parts += [text[start:found.start()], text[found.start():found.end()]]
        start = found.end()
    return [*parts, text[start:]]


def _container_images(text: str) -> bool:
    """Whether the title's images are all containers' ("bump stable trtllm image to 1.3.0rc15": 镜像, not 图像)."""
    plain = blank_code(text)
    found = list(IMAGE.finditer(plain))
    return bool(found) and all(IMAGE_BEFORE.search(plain[:m.start()]) or IMAGE_AFTER.match(plain[m.end():])
                               for m in found)


def _same_form(before: list[str], then: str) -> bool:
    """Whether a word after "and" can be a verb joined to one before it: in "Add hooks and sampling controls"
    "sampling" qualifies a noun; "by using X and reducing Y" joins two -ing verbs."""
    return not then.lower().endswith("ing") or any(w.lower().endswith("ing") and verb([w]) for w in before)


def _coordinated(text: str, kind: str) -> str:
    tokens = TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if token.lower() in ("and", "&") and 0 < i < len(tokens) - 2 and verb(tokens[i + 1:]) and verb(tokens) \
                and _same_form(tokens[:i], tokens[i + 1]):
            return join([clause(" ".join(tokens[:i]), kind), "并", _coordinated(" ".join(tokens[i + 1:]), kind)])
        if token == "," and 0 < i < len(tokens) - 2 and verb(tokens) and (after := verb(tokens[i + 1:])) and \
                (after[0] not in glossary()["nouns"] or tokens[i + 1].lower() == tokens[0].lower()) and \
                tokens[i + 1].lower() != "and":
            # "deprecate workers, migrate to engines": two verb phrases; a verb that is also a noun ("test",
            # "support") may be a list's next item, so it does not split, unless the title opened with it
            # ("Update version to 59.2.0, update changelog generation to git-cliff")
            return join([clause(" ".join(tokens[:i]), kind), "，", _coordinated(" ".join(tokens[i + 1:]), kind)])
    return clause(text, kind)


def leftover(line: str) -> int:
    """How many words of English grammar (GRAMMAR) or verbs the glossary knows ("replaces") a translation left, and
    one more when its Chinese is a thin frame (fewer Chinese characters than a quarter of its plain English letters):
    a line with any reads as English in a Chinese frame. Names, code and a few technical nouns do not count."""
    nouns = glossary()["nouns"]
    # a kept name of several words ("model engine", verl's) is a name, though its words alone translate
    line = _kept_phrases().sub(" ", re.sub(r"`[^`]*`|“[^”]*”", "", line))
    words = re.findall(r"(?<![\w`'/.-])[A-Za-z][a-z'-]*(?![\w`/.-])", line)
    left = sum(1 for w in words if w.lower() in GRAMMAR or w.islower() and w.endswith(("s", "ed", "ing"))
               and w not in nouns and verb([w]) is not None and w[:-1] not in nouns  # "replaces", "enabled"
               or _prefixed_verb(w))
    plain = sum(len(w) for w in words if w.islower() and not _package(w) and nouns.get(w) != w)  # kept terms
    return left + (1 if len(CJK.findall(line)) * 4 < plain else 0)  # a thin Chinese frame around English


@cache
def _kept_phrases() -> re.Pattern[str]:
    """The glossary's nouns of several words that it keeps in English, the longest first."""
    kept = sorted((w for w, zh in glossary()["nouns"].items() if zh == w and " " in w), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, kept)) + r")(?![\w-])", re.I) if kept \
        else re.compile(r"(?!)")


# A hyphenated word opening with one of these is English made of English ("re-structure", "non-local").
PREFIXES = {"re", "auto", "un", "non", "pre", "post", "mid", "multi", "self", "cross", "semi", "anti", "co", "sub",
            "over", "under", "in", "out", "de", "dis", "inter", "intra", "per", "single", "first", "well", "as"}
# A hyphenated word ending in one of these is an English adjective ("model-agnostic"), not a package's name.
ADJECTIVE_ENDINGS = ("ive", "ent", "ant", "al", "ic", "able", "ible", "less", "ous", "ful", "ly", "ed", "ing")


def _package(word: str) -> bool:
    """Whether a hyphenated lower-case word is a name (a package, tool or feature: "cargo-semver-checks",
    "megatron-bridge"), not English of two known words ("mapping-independent") or a prefix ("re-structure")."""
    parts = word.split("-")
    if len(parts) < 2 or not all(parts) or parts[0] in PREFIXES or parts[-1].endswith(ADJECTIVE_ENDINGS):
        return False  # "model-agnostic", "case-insensitive", "null-terminated" are English
    known = _english()
    return any(p not in known and p.rstrip("s") not in known and p not in GRAMMAR for p in parts)


@cache
def _english() -> frozenset[str]:
    """Every English word and phrase the glossary translates."""
    return frozenset(word for part in glossary().values() for word in part)


def _prefixed_verb(word: str) -> bool:
    """A verb under a prefix ("Re-downgrade", "auto-update", "un-deprecate") left in English; a participle
    ("non-existing", "pre-tokenized") qualifies a noun."""
    head, _, rest = word.lower().partition("-")
    return head in ("re", "auto", "un", "de", "pre", "post", "self") and rest.isalpha() \
        and not rest.endswith(("ed", "ing")) and verb([rest]) is not None


def sentence(text: str, limit: int = 14) -> str:
    """A short description sentence (at most `limit` words) in Chinese, or '' when it is longer or has no verb
    the glossary knows: a long sentence is quoted as the author wrote it rather than guessed at."""
    words = text.split()
    if not words or len(words) > limit or not verb(TOKEN.findall(strip(text))):
        return ""
    return title(text)


# An English stretch that reads as a sentence, not a name: three words in a row, one of them lower-case prose.
ENGLISH_RUN = re.compile(r"[A-Za-z][\w'’.-]*(?:[ \t]+[A-Za-z][\w'’.-]*){2,}")
QUOTE = re.compile(r"[“\"]([^”\"]*)[”\"]")
# Words that only English prose needs: one in a zh line means the translator left the sentence in English.
PROSE = GRAMMAR | {"actually", "few", "several", "many", "some", "properly", "correctly", "really",
                   "already", "still", "again", "just", "maybe", "simply", "better", "easier", "regardless",
                   "until", "unless", "responsible", "even", "generally", "specifically", "throughout",
                   "among", "locally", "overwrote", "wrote", "broke", "around", "against", "outside",
                   "directly", "neither", "nor", "being"}


def english_prose(text: str) -> bool:
    """Whether `text` holds English a Chinese reader would have to read as English: a quote of three or more
    English words, or a word of English grammar outside code. Names, paths, flags and versions do not count; a name of
    several words the glossary keeps ("weight refit") counts as one word of a run ("R3 align router replay" is still
    English)."""
    plain = _kept_phrases().sub(" zz ", blank_code(text))
    if any(len(re.findall(r"[A-Za-z]+", q)) >= 3 for q in QUOTE.findall(plain)):
        return True
    words = re.finditer(r"(?<![\w/.`=-])[A-Za-z][a-z'’]*(?![\w/.`-])", plain)  # "=allow" is a value
    return any(w.group(0).lower() in PROSE or _verb_left(w, text.replace("`", " ")) for w in words) or any(
        len(re.findall(r"(?<![\w/.-])[a-z]{2,}(?![\w/.-])", run)) >= 3 for run in ENGLISH_RUN.findall(plain))


# Verbs a title opens with that no name or term is made of: one left in English in a zh line ("完全异步 Policy
# add Rollout …", "npu disable flash_attn") means the translator did not find the sentence's verb. A tool's
# subcommand ("cargo add", "add --path", "fix 命令") is a name.
LEFT_VERBS = {"add", "fix", "remove", "implement", "introduce", "enable", "disable", "deprecate", "rename", "support",
              "use", "allow", "modify"}
SUBCOMMAND = (re.compile(r"\b(?:cargo|git|npm|pnpm|yarn|pip|uv|poetry|conda|gh|rustup|go|docker|make|kubectl|"
                         r"helm)\s+$"),
              re.compile(r"^\s*(?:--?\w|\(|命令|子命令|方法|函数|指令|接口|开关|参数|选项|调用)"))


def _verb_left(word: re.Match[str], context: str) -> bool:
    """`word` (of `context` with its code marks blanked, positions kept) is a title's verb left in English."""
    said = word.group(0)
    return said.islower() and (found := verb([said])) is not None and found[0] in LEFT_VERBS and not (
        SUBCOMMAND[0].search(context[:word.start()]) or SUBCOMMAND[1].match(context[word.end():]))
