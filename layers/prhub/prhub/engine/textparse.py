"""PR descriptions read as Markdown: strip the template, find sections and prose, split sentences, references.

Most descriptions of busy repositories are their PR template with a few lines
filled in; what a reader learns is only what the author wrote. `strip_template`
removes checklists, quoted template guidance, unfilled headings, empty code
stubs and HTML comments; everything else here, and the summary and key points taken from it
(prhub.engine.synopsis), works on its result.

Descriptions are read with a Markdown parser (markdown-it-py: headings, lists, fences, quotes, tables and HTML
blocks as GitHub sees them) and split into sentences with pySBD, which knows "e.g.", "vs." and "1.3.0rc14" end
no sentence. The parser reads blocks only; inline markup (links, code, emphasis) is parsed for the few short
texts a summary or key point is taken from, so a long or hostile description costs one linear pass.
"""
from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import pysbd
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pysbd.lang.english import English

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
# An HTML comment, or an unclosed one to the end of its block (GitHub shows nothing after an unclosed "<!--").
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
TASK = re.compile(r"^\[[^\]]{0,8}\]")  # a task-list item's box: "[ ]", "[x]", "[]"
REF = re.compile(r"(?:(?<![\w/&])#|/pull/|/issues/)(\d{1,7})\b")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Bounded lengths: an unclosed "[" must not make every later "[" scan to the end of the text (quadratic).
LINK = re.compile(r"!\[[^\]\n]{0,300}\]\([^)\s]{0,500}\)|\[([^\]\n]{0,300})\]\([^)\s]{0,500}\)")
BARE_URL = re.compile(r"\(?<?\bhttps?://[^\s)>]{0,500}[)>]?")
# Sentence ends for Chinese text and for review comments (prhub.engine.reviews); English prose goes to pySBD.
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")

# What a text names in code: identifiers (`compute_data_metrics`, `DataProto`, `a.b.c`) and flags (`--edges`). The
# analysis joins PRs by them; the brief names them when a title cannot be said in Chinese.
IDENTIFIER = re.compile(r"(?<![\w/.-])(--[a-z][\w-]{2,}|[A-Za-z_]\w*(?:[_.]\w+)+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)"
                        r"(?![\w/])")

QUALIFIED = re.compile(r"\b(?:[A-Za-z_]\w*::)+[A-Za-z_]\w*")

# Names every codebase mentions in passing, which say nothing about a PR's subject: the language's exceptions and
# warnings, attribute access on `self`, and the standard and ubiquitous libraries' namespaces.
GENERIC_NAME = re.compile(r"\w*(?:error|exception|warning)|(?:torch|np|numpy|os|sys|ray|re|json|math|typing|"
                          r"logging|time|pathlib|collections|functools|std)\..*|(?:std|core|alloc|crate|self|super)::.*")


@lru_cache(maxsize=65536)
def identifiers(text: str) -> frozenset[str]:
    """The identifiers, config keys and flags `text` names that can be a PR's subject, lower case."""
    names: set[str] = set()
    # A path (`DataFrame::transpose_from_dtype`) names its last part; its qualifiers are where that lives, no
    # subject of their own (polars' DataFrame had joined a hash_rows deadlock to a transpose fix)
    for path in QUALIFIED.findall(text):
        if len(path.rsplit("::", 1)[1]) >= 4 and not GENERIC_NAME.fullmatch(path.lower()):
            names.add(path.lower())
    for found in IDENTIFIER.findall(QUALIFIED.sub(lambda m: m.group(0).rsplit("::", 1)[1], text)):
        name = re.sub(r"^(?:self|cls)\.", "", found).strip("._")
        name = re.sub(r"\.__\w+$", "", name)
        # Still an identifier once `self.` is gone (`self.trainer` is the word "trainer"), not a file name, not
        # a product's spelling (vLLM), nor a versioned model family (qwen3.5 names every Qwen3.5 script).
        if (len(name) >= 4 and "://" not in name and not name[:1].isdigit()
                and re.search(r"[_.]|[a-z][A-Z]+[a-z]|^--", name) and not re.fullmatch(r"[\w]+\.(?:py|rs|md|sh)", name)
                and not GENERIC_NAME.fullmatch(name.lower()) and not re.search(r"\d\.\d", name)):
            names.add(name.lower())
    return frozenset(names)


# One parser for the blocks (inline parsing off: it is the costly part) and one for a short text's inline markup;
# built once, since building a MarkdownIt compiles its rules.
_BLOCKS = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).disable("inline")
_INLINE = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
# pySBD's Segmenter keeps the text it is segmenting on itself (segment() sets self.original_text): one per thread,
# or the local runner's score workers, which share this module, read each other's sentences.
_SEGMENTERS = threading.local()


def _segmenter() -> pysbd.Segmenter:
    if not hasattr(_SEGMENTERS, "one"):
        _SEGMENTERS.one = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return _SEGMENTERS.one
MAYBE_END = re.compile(r"(\S*?)[.!?]+[\"')\]]*\s+(?=\S)")


@dataclass(frozen=True)
class Block:
    """A top-level block of a description, as the parser sees it."""

    kind: str  # heading | paragraph | list | code | table | quote | html | rule
    source: str  # its Markdown as written
    text: str = ""  # a heading's or a paragraph's own inline source
    level: int = 0  # a heading's level
    items: tuple[str, ...] = ()  # a list's top-level items: each one's own paragraphs, nested lists left out
    tasks: frozenset[int] = frozenset()  # a list's lines (from its first) that are task-list items, at any depth


def _close(tokens: list[Token], start: int) -> int:
    """The index past the token that closes tokens[start]."""
    depth = 0
    for i in range(start, len(tokens)):
        depth += tokens[i].nesting
        if depth == 0:
            return i + 1
    return len(tokens)


KINDS = {"heading_open": "heading", "paragraph_open": "paragraph", "bullet_list_open": "list",
         "ordered_list_open": "list", "fence": "code", "code_block": "code", "table_open": "table",
         "blockquote_open": "quote", "html_block": "html", "hr": "rule"}


@lru_cache(maxsize=64)  # the summary, the key points and insight read the same cleaned description
def blocks(text: str) -> tuple[Block, ...]:
    """The top-level blocks of a Markdown text, in order."""
    lines = text.split("\n")
    tokens = _BLOCKS.parse(text)
    found: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        end = _close(tokens, i)
        kind = KINDS.get(token.type)
        if kind and token.map:
            source = "\n".join(lines[token.map[0]:token.map[1]]).strip("\n")
            inner = tokens[i:end]
            if kind == "heading":
                found.append(Block(kind, source, inner[1].content.strip(), int(token.tag[1:])))
            elif kind == "paragraph":
                found.append(Block(kind, source, inner[1].content))
            elif kind == "list":
                first = token.map[0]
                found.append(Block(kind, source, items=_items(inner, token.level + 1),
                                   tasks=frozenset(n - first for n in _task_lines(inner))))
            elif kind in ("code", "html"):
                found.append(Block(kind, source, token.content))
            else:
                found.append(Block(kind, source))
        i = end
    return tuple(found)


def _items(tokens: list[Token], level: int) -> tuple[str, ...]:
    """A list's top-level items: the inline source of each item's own paragraphs."""
    items: list[list[str]] = []
    for token in tokens:
        if token.type == "list_item_open" and token.level == level:
            items.append([])
        elif token.type == "inline" and token.level == level + 2 and items:
            items[-1].append(token.content)
    return tuple("\n".join(parts) for parts in items)


def _task_lines(tokens: list[Token]) -> set[int]:
    """The lines of a list's task-list items ("- [ ] …", "- [x] …"), at any depth, with what they hold."""
    dropped: set[int] = set()
    for i, token in enumerate(tokens[:-2]):
        if token.type == "list_item_open" and token.map and tokens[i + 2].type == "inline" \
                and TASK.match(tokens[i + 2].content):
            dropped.update(range(*token.map))
    return dropped


def _clean(block: Block, depth: int) -> str:
    """A block as the author's words, or '' when it is template, checklist, an empty stub or an empty answer."""
    if block.kind == "code":
        inner = [ln for ln in block.text.split("\n") if ln.strip()]
        return "" if not inner or all(CODE_STUB.match(ln) for ln in inner) else block.source
    if block.kind == "rule":
        return ""
    source = HTML_COMMENT.sub("", block.source)
    if block.kind == "quote":
        unquoted = "\n".join(re.sub(r"^\s*>\s?", "", ln) for ln in source.split("\n")).strip()
        flat = " ".join(unquoted.split()).lower()
        if any(g in flat for g in GUIDANCE):
            return ""
        source = _strip(unquoted, depth + 1) if depth < 3 else unquoted  # the author's answer inside the quote
    elif block.kind == "list":
        source = "\n".join(ln for n, ln in enumerate(source.split("\n")) if n not in block.tasks).strip()
    elif block.kind == "paragraph" and re.match(r"^\s*[-*+]\s*\[[^\]]{0,8}\]", source):
        return ""  # a lone "- [ ]" the parser reads as text (an empty task item)
    if source.strip().strip(".:：。").lower() in EMPTY_ANSWERS:
        return ""
    return source.strip()


def strip_template(body: str) -> str:
    """The author's own words: the description without template guidance, checklists and empty sections."""
    return _strip((body or "").replace("\r\n", "\n").replace("\r", "\n"), 0)


def _strip(text: str, depth: int) -> str:
    out: list[str] = []
    pending: Block | None = None  # a heading is written only once content follows it
    skip_level = 0
    for block in blocks(text):
        if block.kind == "heading":
            name = block.text.lower()
            if skip_level and block.level > skip_level:
                continue
            skip_level = block.level if any(h in name for h in CHECKLIST_HEADINGS) else 0
            pending = None if skip_level else block
            continue
        if skip_level:
            continue
        cleaned = _clean(block, depth)
        if not cleaned:
            continue
        if pending:
            out.append(pending.source.strip())
            pending = None
        out.append(cleaned)
    return "\n\n".join(out).strip()


def sections(text: str) -> list[tuple[str, str]]:
    """(heading in lower case, content) pairs of a cleaned description; text before any heading has heading ''."""
    return [(h, "\n\n".join(b.source for b in content)) for h, content in section_blocks(text)]


def section_blocks(text: str) -> list[tuple[str, list[Block]]]:
    result: list[tuple[str, list[Block]]] = [("", [])]
    for block in blocks(text):
        if block.kind == "heading":
            result.append((plain(block.text).lower(), []))
        else:
            result[-1][1].append(block)
    return [(h, b) for h, b in result if b]


def plain(text: str) -> str:
    """Markdown inline markup, HTML tags (escaped or not) and bare links removed, whitespace collapsed.

    Linear regular expressions, for long texts (a whole description, a review); a summary's or key point's
    short text is read by the parser instead (`inline`)."""
    text = html.unescape(text)
    text = LINK.sub(lambda m: m.group(1) or "", text)
    text = re.sub(r"\*\*|`", "", text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)
    text = re.sub(r"<[^>]{0,500}>", "", text)
    text = BARE_URL.sub("", text)
    return " ".join(text.split()).strip(" ,;")


@dataclass(frozen=True)
class Inline:
    """A short Markdown text as a reader sees it."""

    text: str  # the words, links' labels kept, images, HTML and bare links dropped
    linked: bool  # it had a link or a bare URL
    bare: bool  # it had a bare URL (what is left around one is often only its label)
    outside: int  # words outside links' labels: 0 or 1 is a links-only line


def inline(source: str) -> Inline:
    parts: list[str] = []
    linked = bare = False
    in_link = 0
    outside = 0
    children = _INLINE.parseInline(source)[0].children or []
    for token in children:
        if token.type in ("text", "code_inline"):
            words = token.content
            if BARE_URL.search(words):
                linked = bare = True
                words = BARE_URL.sub(" ", words)
            words = re.sub(r"<[^>]{0,500}>", "", words)  # an escaped tag ("&lt;img …&gt;") is still a tag
            parts.append(words)
            if not in_link:
                outside += len(re.findall(r"[^\W\d_]{2,}|[\u3400-\u9fff]", words))
        elif token.type in ("softbreak", "hardbreak") or token.type == "html_inline" and token.content[:3].lower() \
                == "<br":
            parts.append(" ")
        elif token.type == "link_open":
            linked, in_link = True, in_link + 1
        elif token.type == "link_close":
            in_link -= 1
    return Inline(" ".join("".join(parts).split()).strip(" ,;"), linked, bare, outside)


def sentences(text: str) -> list[str]:
    """A plain text's sentences: pySBD for prose ("e.g.", "vs.", "1.3.0rc14" end none), 。！？ for Chinese."""
    if not text.strip():
        return []
    if CJK.search(text):
        return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]
    ends = list(MAYBE_END.finditer(text))
    if not ends:  # no full stop, "!" or "?" before a space: one sentence (most list items)
        return [text.strip()]
    if all(_plain_end(end) for end in ends):
        starts = [0] + [end.end() for end in ends]
    else:
        # Spans of the text itself (pySBD's own strings may be respaced); a boundary with no space after it
        # ("config/{a,b}.yaml", "a.b()") is inside a word, never between sentences.
        starts = [0] + [span.start for span in _segmenter().segment(text)[1:]
                        if text[span.start - 1:span.start].isspace()]
    return [s for s in (text[a:b].strip() for a, b in zip(starts, [*starts[1:], len(text)], strict=True)) if s]


# The words pySBD reads as abbreviations, and a few of technical prose it lacks ("incl. FP8 rollout"): a full stop
# after one of them may end no sentence.
ABBREVIATIONS = frozenset(English.Abbreviation.ABBREVIATIONS) | frozenset(
    English.Abbreviation.PREPOSITIVE_ABBREVIATIONS) | frozenset(English.Abbreviation.NUMBER_ABBREVIATIONS) | {
    "incl", "excl", "approx", "cf", "resp", "eg", "ie"}


def _plain_end(end: re.Match[str]) -> bool:
    """A boundary no rule of pySBD's would keep together: an ordinary word (not an abbreviation, a number, a
    dotted name or a letter) ends with "." "!" or "?", and a capital letter opens the next sentence; pySBD is
    asked about every other text (its segmenter costs about a millisecond a call)."""
    word = end.group(1).lstrip("([\"'*_").lower()
    following = end.string[end.end():end.end() + 1]
    return (len(word) > 1 and word.isalpha() and word not in ABBREVIATIONS and following.isupper())


PROSE = ("paragraph", "list", "quote", "html")


def prose_blocks(text: str) -> list[str]:
    """The blocks of a text that are prose: paragraphs, lists, quotes and HTML, not headings, code or tables."""
    return [b.source for b in blocks(text) if b.kind in PROSE]


def references(text: str, own: int | None = None) -> list[int]:
    """PR/issue numbers mentioned (`#123`, `(#7278)`, `.../pull/123`), sorted, without the PR's own number."""
    return sorted({int(n) for n in REF.findall(text or "")} - ({own} if own is not None else set()))


def language(text: str) -> str:
    """'zh' when a noticeable share of the letters are CJK, else 'en'."""
    letters = sum(ch.isalpha() for ch in text)
    cjk = len(CJK.findall(text))
    return "zh" if letters and cjk / letters > 0.2 else "en"
