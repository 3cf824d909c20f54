"""PR descriptions: strip the template, find sections, extract a summary, key points and references.

Most descriptions of busy repositories are their PR template with a few lines
filled in; what a reader learns is only what the author wrote. `strip_template`
removes checklists, quoted template guidance, unfilled headings, empty code
stubs and HTML comments; everything else here works on its result.
"""
from __future__ import annotations

import html
import re
from functools import lru_cache

# Quoted guidance a PR template ships with (verl's and the common GitHub ones); a quoted paragraph
# containing one of these is the template's, any other quote is the author's answer (verl's old
# template asked authors to answer inside the quote).
GUIDANCE = (
    "add **concise** overview", "add concise overview", "add one-line overview", "can not be tested by ci",
    "cannot be tested by ci", "demonstrate how the api changes", "demonstrate the high-level design",
    "list the specific changes", "provide usage example", "[!important]", "please check all the following items",
    "describe your changes", "please include a summary", "thank you for contributing",
)
CHECKLIST_HEADINGS = ("checklist", "before submitting", "before starting", "who can review", "before describing")
EMPTY_ANSWERS = {"", "n/a", "na", "none", "no", "nope", "-", "...", "tbd", "todo", "无", "暂无", "n.a.",
                 "not applicable"}
CODE_STUB = re.compile(r"^\s*#\s*(add code snippet|\.\.\.)", re.IGNORECASE)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s*(.*?)\s*#*\s*$")
CHECK_ITEM = re.compile(r"^\s*[-*+]\s*\[[^\]]{0,8}\]")
LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,2}[.)])\s+(.*)$")
FENCE = re.compile(r"^\s*(```|~~~)")
REF = re.compile(r"(?:(?<![\w/&])#|/pull/|/issues/)(\d{1,7})\b")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Bounded lengths: an unclosed "[" must not make every later "[" scan to the end of the text (quadratic).
LINK = re.compile(r"!\[[^\]\n]{0,300}\]\([^)\s]{0,500}\)|\[([^\]\n]{0,300})\]\([^)\s]{0,500}\)")
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks, keeping fenced code (with its blank lines) in one block."""
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if FENCE.match(line):
            if not in_fence and current:
                blocks.append("\n".join(current))
                current = []
            current.append(line)
            in_fence = not in_fence
            if not in_fence:
                blocks.append("\n".join(current))
                current = []
            continue
        if in_fence:
            current.append(line)
        elif HEADING.match(line) and not line.lstrip().startswith("#!"):
            if current:
                blocks.append("\n".join(current))
            blocks.append(line)
            current = []
        elif not line.strip():
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _is_heading(block: str) -> bool:
    return "\n" not in block and bool(HEADING.match(block)) and not block.lstrip().startswith("#!")


def _drop_check_items(block: str) -> str:
    """Remove task-list items (and their wrapped continuation lines); other lines stay."""
    kept: list[str] = []
    skipping = False
    for line in block.split("\n"):
        if CHECK_ITEM.match(line):
            skipping = True
            continue
        if skipping and not LIST_ITEM.match(line):
            continue  # continuation of a checklist item wrapped by the author's editor
        skipping = False
        kept.append(line)
    return "\n".join(kept).strip()


def _clean_block(block: str) -> str:
    if FENCE.match(block):
        inner = [ln for ln in block.split("\n")[1:-1] if ln.strip()]
        if not inner or all(CODE_STUB.match(ln) for ln in inner):
            return ""
        return block
    if block.lstrip().startswith(">"):
        unquoted = "\n".join(re.sub(r"^\s*>\s?", "", ln) for ln in block.split("\n")).strip()
        flat = " ".join(unquoted.split()).lower()
        if any(g in flat for g in GUIDANCE):
            return ""
        block = unquoted
    block = _drop_check_items(block)
    if block.strip().strip(".:：。").lower() in EMPTY_ANSWERS:
        return ""
    return block


def strip_template(body: str) -> str:
    """The author's own words: the description without template guidance, checklists and empty sections."""
    text = HTML_COMMENT.sub("", (body or "").replace("\r\n", "\n").replace("\r", "\n"))
    out: list[str] = []
    pending: str | None = None  # a heading is written only once content follows it
    skip_level = 0
    for block in _paragraphs(text):
        if _is_heading(block):
            match = HEADING.match(block)
            assert match is not None
            level, name = len(match.group(1)), match.group(2).lower()
            if skip_level and level > skip_level:
                continue
            skip_level = level if any(h in name for h in CHECKLIST_HEADINGS) else 0
            pending = None if skip_level else block.strip()
            continue
        if skip_level:
            continue
        cleaned = _clean_block(block)
        if not cleaned:
            continue
        if pending:
            out.append(pending)
            pending = None
        out.append(cleaned)
    return "\n\n".join(out).strip()


def sections(text: str) -> list[tuple[str, str]]:
    """(heading in lower case, content) pairs of a cleaned description; text before any heading has heading ''."""
    return list(_sections(text))


@lru_cache(maxsize=64)  # the summary, the key points and insight each read the same description's sections
def _sections(text: str) -> tuple[tuple[str, str], ...]:
    result: list[tuple[str, list[str]]] = [("", [])]
    for block in _paragraphs(text):
        if _is_heading(block):
            match = HEADING.match(block)
            assert match is not None
            result.append((match.group(2).strip().lower(), []))
        else:
            result[-1][1].append(block)
    return tuple((h, "\n\n".join(b)) for h, b in result if b)


def plain(text: str) -> str:
    """Markdown inline markup, HTML tags (escaped or not) and bare links removed, whitespace collapsed."""
    text = html.unescape(text)
    text = LINK.sub(lambda m: m.group(1) or "", text)
    text = re.sub(r"\*\*|`", "", text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)
    text = re.sub(r"<[^>]{0,500}>", "", text)
    text = BARE_URL.sub("", text)
    return " ".join(text.split()).strip(" ,;")


# What a description says that is not about the change: template placeholders, credits, pointers elsewhere.
BARE_URL = re.compile(r"\(?<?\bhttps?://[^\s)>]{0,500}[)>]?")
NOT_A_POINT = re.compile(
    r"\[note which|if any\b|^issue number\b|^as title\b|^same as title|^n/?a\b|^none\b|^todo\b|\bcredits?\b|"
    r"\bthanks?\b|"
    r"\bthank you\b|\bkudos\b|co-authored|carried as-is|^cc\b|^@|^(?:please )?(?:see|refer to|check)\b|"
    r"^(?:fix(?:es)?|close[sd]?|resolve[sd]?|related(?: to)?|follow-?ups?(?: to| of)?|part of|reapply|"
    r"issue(?: number)?|related (?:issue|pr)s?)\s*[:：#]?\s*(?:#\d+|issue\b|$)|"
    r"\b(?:see|refer to) (?:the )?(?:issue|pr|discussion|thread)\b|^(?:added|updated?|new)? ?tests?\b.*\.py\b",
    re.IGNORECASE)
# A description's scaffolding: a chart's legend ("The other two lines: vllm as reference"), an instruction to the
# reader ("Prepare your function tool definition python file."), bare arithmetic ("remain_start = 4804 - 1201").
LEGEND = re.compile(r"^(?:the\s+)?(?:[\w-]+\s+){0,3}(?:lines?|curves?|bars?|plots?|dots?|legend|x-?axis|y-?axis)"
                    r"\s*[:：]", re.IGNORECASE)
INSTRUCTION = re.compile(r"^(?:please\s+)?(?:prepare|run|install|create|put|copy|download|open|launch|write|define|"
                         r"make sure|ensure|set up|fill in|replace|edit|modify|update|change)\b[^.]*\byour?\b",
                         re.IGNORECASE)
OPERATOR = re.compile(r"(?<![\w-])[=+*/%<>≥≤](?![\w-])|//|==| - ")
FILE_LIKE = re.compile(r"^[\w./\\{},-]+\.(?:py|sh|ya?ml|json|md|toml|txt|cfg|ipynb)[.,;]?$")


def clean_point(text: str) -> str:
    """A key point as sentences a reader can take in, or '' when none is left.

    Sentence by sentence, drops template placeholders, credits, "see issue" pointers and bare file names,
    and a last sentence that only opens what follows elsewhere ("Add config:"); links and HTML go first.
    Keeps the author's words otherwise, first letter up.
    """
    flat = plain(text)
    flat = re.sub(r"^(?:#\d+[\s,]*(?:and\s+)?)+(?=\w)", "", flat).strip()  # "#12, #13 ..." leading numbers
    if flat.count("|") >= 2 or flat.startswith(("-", "*", ">", "[")):  # a table row, a stray marker
        return ""
    kept = [sentence for sentence in SENTENCE_END.split(flat) if sentence and _is_sentence(sentence)]
    if kept and kept[-1].endswith((":", "：")):
        kept.pop()
    flat = " ".join(kept)
    # What is left of "Green line: trtllm https://..." is a bare link's label, not a sentence.
    linked = bool(BARE_URL.search(LINK.sub(lambda m: m.group(1) or "", text)))
    if len(re.findall(r"[A-Za-z]{2,}|[\u3400-\u9fff]", flat)) < (5 if linked else 3) or " " not in flat:
        return ""
    if re.match(r"[a-z]+ ", flat):  # a plain word, not an identifier such as trust_remote_code
        flat = flat[:1].upper() + flat[1:]
    return flat


def _is_sentence(sentence: str) -> bool:
    lowered = sentence.lower()
    return not (NOT_A_POINT.search(sentence) or FILE_LIKE.match(sentence) or any(g in lowered for g in GUIDANCE)
                or any(h in lowered for h in CHECKLIST_HEADINGS) or LEGEND.match(sentence)
                or INSTRUCTION.match(sentence) or _formula(sentence))


def _formula(sentence: str) -> bool:
    """A sentence that is arithmetic rather than words: two equations with hardly a word around them, or three
    operators and at most one plain word outside code ("cp_rank 0: remain_start = 4804 - 1201 = 3603")."""
    prose = re.sub(r"`[^`]*`", " ", sentence)
    words = re.findall(r"(?<![\w.])[A-Za-z]{3,}(?![\w.(])", prose)
    bare = sentence.replace("`", " ")
    operators = len(OPERATOR.findall(bare))
    equations = len(re.findall(r"(?<![=<>!])\s=\s(?!=)", bare))
    return equations >= 2 and len(words) < 4 or operators >= 3 and len(words) < 2


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.end() for m in SENTENCE_END.finditer(cut)]
    if ends and ends[-1] > limit // 3:
        return cut[:ends[-1]].strip()
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:，；：") + "…"


def prose_blocks(text: str) -> list[str]:
    return [b for b in _paragraphs(text)
            if not _is_heading(b) and not FENCE.match(b) and not b.lstrip().startswith("|")]


SUMMARY_SECTIONS = ("what does this pr do", "summary", "description", "motivation", "overview", "what", "problem",
                    "背景", "描述", "概述")


def summarize(cleaned: str, fallback: str, limit: int = 300) -> str:
    """The description's opening (its 'what does this PR do' section first), in the PR's own language."""
    parts = sections(cleaned)
    ordered = [c for h, c in parts if any(h.startswith(s) for s in SUMMARY_SECTIONS)] + [c for _, c in parts]
    for content in ordered:
        for block in prose_blocks(content):
            lines = [LIST_ITEM.sub(r"\2", ln) for ln in block[:4 * limit].split("\n")]  # enough for the cut
            text = clean_point(" ".join(lines))
            if len(text) >= 12:
                return _shorten(text, limit)
    return fallback


# Lists under these headings are evidence or housekeeping, not what the change does.
NOT_POINTS = ("test", "validation", "verification", "result", "benchmark", "ai assist", "why this is not",
              "screenshot", "related", "reference", "测试", "验证")


def key_points(cleaned: str, limit: int = 5, width: int = 160) -> list[str]:
    """Top-level list items of the description (the author's own change list), shortened."""
    points: list[str] = []
    for heading, content in sections(cleaned):
        if heading.startswith(NOT_POINTS):
            continue
        for block in prose_blocks(content):
            items: list[str] = []
            for line in block.split("\n"):
                match = LIST_ITEM.match(line)
                if match and len(match.group(1)) < 2:
                    items.append(match.group(2))
                elif items and line.strip() and not LIST_ITEM.match(line):
                    items[-1] += " " + line.strip()  # a wrapped item
            for item in items:
                text = clean_point(item[:4 * width])
                if len(text) >= 8 and _shorten(text, width) not in points:
                    points.append(_shorten(text, width))
                if len(points) >= limit:
                    return points
    return points


def references(text: str, own: int | None = None) -> list[int]:
    """PR/issue numbers mentioned (`#123`, `(#7278)`, `.../pull/123`), sorted, without the PR's own number."""
    return sorted({int(n) for n in REF.findall(text or "")} - ({own} if own is not None else set()))


def language(text: str) -> str:
    """'zh' when a noticeable share of the letters are CJK, else 'en'."""
    letters = sum(ch.isalpha() for ch in text)
    cjk = len(CJK.findall(text))
    return "zh" if letters and cjk / letters > 0.2 else "en"
