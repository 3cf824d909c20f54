"""PR descriptions: strip the template, find sections, extract a summary, key points and references.

Most descriptions of busy repositories are their PR template with a few lines
filled in; what a reader learns is only what the author wrote. `strip_template`
removes checklists, quoted template guidance, unfilled headings, empty code
stubs and HTML comments; everything else here works on its result.

Descriptions are read with a Markdown parser (markdown-it-py: headings, lists, fences, quotes, tables and HTML
blocks as GitHub sees them) and split into sentences with pySBD, which knows "e.g.", "vs." and "1.3.0rc14" end
no sentence. The parser reads blocks only; inline markup (links, code, emphasis) is parsed for the few short
texts a summary or key point is taken from, so a long or hostile description costs one linear pass.
"""
from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterator
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
# Sentence ends for Chinese text and for review comments (prhub.engine.reviews); English prose goes to pySBD.
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")

# What a text names in code: identifiers (`compute_data_metrics`, `DataProto`, `a.b.c`) and flags (`--edges`). The
# analysis joins PRs by them; the brief names them when a title cannot be said in Chinese.
IDENTIFIER = re.compile(r"(?<![\w/.-])(--[a-z][\w-]{2,}|[A-Za-z_]\w*(?:[_.]\w+)+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)"
                        r"(?![\w/])")

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
    return [(h, "\n\n".join(b.source for b in content)) for h, content in _sections(text)]


def _sections(text: str) -> list[tuple[str, list[Block]]]:
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
    short text is read by the parser instead (`_inline`)."""
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


def _inline(source: str) -> Inline:
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


# What a description says that is not about the change: template placeholders, credits, pointers elsewhere.
BARE_URL = re.compile(r"\(?<?\bhttps?://[^\s)>]{0,500}[)>]?")
NOT_A_POINT = re.compile(
    r"\[note which|if any\b|^issue number\b|^title\s*:|^as title\b|^same as title|^n/?a\b|^none\b|^todo\b|\bcredits?\b|"
    r"\bthanks?\b|"
    r"\bthank you\b|\bkudos\b|co-authored|carried as-is|^cc\b|^@|^(?:please )?(?:see|refer to|check)\b|"
    r"^(?:fix(?:es)?|close[sd]?|resolve[sd]?|related(?: to)?|follow-?ups?(?: to| of)?|part of|reapply|"
    r"issue(?: number)?|related (?:issue|pr)s?)\s*[:：#]?\s*(?:(?:[\w.-]+/[\w.-]+)?#\d+|issue\b|$)|"
    r"\b(?:see|refer to) (?:the )?(?:issue|pr|discussion|thread)\b|^(?:added|updated?|new)? ?tests?\b.*\.py\b",
    re.IGNORECASE)
# Praise for someone's work ("Tor did a lot of great work on this"): a credit in other words.
PRAISE = re.compile(r"\b(?:great|awesome|amazing|excellent|nice|fantastic|hard|heavy) work\b|\bappreciat\w*|"
                    r"\bgrateful\b|\bshout-?outs?\b|\bhats? off\b|\bhuge props\b", re.IGNORECASE)
# Where the PR stands rather than what it does: "[Merged]", "Requires … to be merged", "Ready for review", "as title".
STATUS = re.compile(
    r"\[(?:merged|closed|wip|draft|done|landed|open|in progress)\]|\((?:merged|landed|wip|draft)\)|"
    r"^(?:requires|depends on|blocked (?:by|on)|needs|waiting (?:on|for)|stacked on(?: top of)?|based on|"
    r"on top of)\b.{0,120}\b(?:merged?|land(?:ed|s)?|released?|updated|pr|prs|#\d+)\b|"
    r"\bready for (?:review|merge)\b|\b(?:do not|don'?t) merge\b|^(?:wip|draft)\b|"
    r"^(?:this (?:pr|change|patch) is |this is )?(?:a )?(?:follow[- ]?up|split (?:out )?|stacked)"
    r"(?: to| of| on| from| for)?\s+\S+[.!]?$|"
    r"^let me know\b|\bfeel free to\b|^(?:any )?(?:feedback|suggestions?|comments?) (?:is |are )?welcome\b|"
    r"\bas (?:the )?title\b|\b(?:see|per) (?:the )?title\b|\btitle says\b|\bself-?explanatory\b", re.IGNORECASE)
# A template's heading written as a line of text ("What does this PR do?", "Checklist:").
TEMPLATE_LINE = re.compile(r"^(?:what does this pr (?:do|try to resolve)|"
                           r"how (?:should we|to) test(?: and review)?(?: this pr)?|what|why|how|motivation|summary|"
                           r"description|changes|checklist|test(?:ing)?|test plan|"
                           r"related issues?|additional context|type of change)\W*$", re.IGNORECASE)
# A sentence whose link was its object: what is left ends on a word that leads into it ("For more, see").
DANGLING = re.compile(r"\b(?:to|at|by|of|from|with|see|include|includes|including|via|e\.g|i\.e|following|"
                      r"like|such as|the|a|an|in|on|for|and|or|into|than)"
                      r"\s*[.:,]?$", re.IGNORECASE)
# A short sentence about "this" or "it" that names nothing ("This caused some confusions.", "It works.").
VAGUE = re.compile(r"^(?:this|that|it|these|those|they)\b", re.IGNORECASE)
NAMED = re.compile(r"[_./#\d`()\[\]]|[a-z][A-Z]|\b[A-Z]{2,}\b")
ACTION = (r"(?:add|fix|remov|delet|drop|introduc|implement|support|replac|renam|mov|refactor|switch|enabl|"
          r"disabl|allow|make|makes|made|use|uses|deprecat|bump|upgrad|updat|chang|extend|expos|split|merg|unif|"
          r"simplif|stabili[sz]|clean|rework|rewrit|restor|revert|avoid|prevent|skip|ensur|port|wire|pass|"
          r"reduc|speed|optimi[sz]|improv|correct|handl|guard|teach|let|lets|rais|emit|warn|document|migrat|expand|modif)\w*")
# A sentence that says what the PR changes: led by an action ("Adds …", "This PR removes …", "We now skip …"), or
# naming the PR as its subject ("Instead of patching, this PR uses …").
CHANGES = re.compile(rf"^(?:(?:this|the) (?:pr|change|patch|commit|diff|mr)\s+|this\s+|we\s+|i\s+|it\s+|now\s+)?"
                     rf"(?:(?:also|now|simply|just|instead|then|here|will|further)\s+)*{ACTION}\b|"
                     rf"\bthis (?:pr|change|patch|commit|mr)\s+(?:(?:also|now|simply|instead|only)\s+)?"
                     rf"(?!is\b|was\b|has\b|had\b)(?:{ACTION}|[\w-]+s)\b", re.IGNORECASE)
# The PR or its author as the subject of a change ("So I modified the logic …", "This commit fixes …"): what a
# summary looks for past the opening, where a sentence led by a bare verb ("Let me know …", "Updating ahash …") is
# as often a side note or a log.
SUBJECT_CHANGES = re.compile(
    rf"(?:^|\b(?:so|then|here|instead|now)\s*,?\s+|[,;]\s*)(?:(?:this|the) (?:pr|change|patch|commit|mr)|this|we|i)\s+"
    rf"(?:(?:now|just|simply|instead|then|further|will|have|has|had)\s+)*{ACTION}\b|"
    rf"\bthis (?:pr|change|patch|commit|mr)\s+(?:(?:now|simply|instead|only)\s+)?(?!is\b|was\b|has\b|had\b)\w+s\b",
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
# A heading or lead-in that frames the list under it ("Removed:", "### Breaking changes"): its items read as what
# it says, so it travels with them. Headings that only say "here are the changes" frame nothing.
FRAMES = re.compile(r"\b(?:remov\w*|delet\w*|drop\w*|deprecat\w*|add(?:ed|s|ing)?|additions?|new|breaking|renam\w*|"
                    r"mov\w*|replac\w*|"
                    r"fix\w*|refactor\w*|unchanged|no behaviou?r change|kept|not (?:changed|included|in this pr)|"
                    r"out of scope|follow-?ups?|todo|future work|known (?:issues?|limitations?)|limitations?|"
                    r"caveats?|migrat\w*|behaviou?r changes?)\b|移除|删除|新增|破坏|重构|修复|废弃", re.IGNORECASE)


def clean_point(text: str) -> str:
    """A key point as sentences a reader can take in, or '' when none is left.

    Sentence by sentence, drops template placeholders, credits and praise, status notes, "see issue" pointers
    and bare file names, and a last sentence that only opens what follows elsewhere ("Add config:"); links-only
    lines and HTML go first. Keeps the author's words otherwise, first letter up.
    """
    return _point(" ".join(_informative(text)))


def _informative(text: str, opener: bool = False) -> list[str]:
    """The sentences of a short Markdown text that tell something about the change; a last sentence that only opens
    what follows ("Add config:") is dropped unless the caller reads it with what follows (`opener`)."""
    seen = _inline(text)
    flat = re.sub(r"^(?:#\d+[\s,]*(?:and\s+)?)+(?=\w)", "", seen.text).strip()  # "#12, #13 ..." leading numbers
    flat = re.sub(r"^(?:\*\*|__)(?=\w)", "", flat)  # an unclosed "**Note that …" leaves its marker as text
    if flat.count("|") >= 2 or re.match(r"[-*+>](?:\s|$)|\[", flat):  # a table row, a stray marker (not "--flag")
        return []
    if seen.linked and seen.outside <= 1:  # a links-only line ("[e2e script.](…)", "- https://…")
        return []
    kept = [sentence for sentence in sentences(flat) if _is_sentence(sentence)
            and not (seen.linked and DANGLING.search(sentence))]  # "… to include [link]." without its link
    if kept and kept[-1].endswith((":", "：")) and not opener:
        kept.pop()
    # What is left of "Green line: trtllm https://..." is a bare link's label, not a sentence.
    joined = " ".join(kept)
    if len(re.findall(r"[A-Za-z]{2,}|[\u3400-\u9fff]", joined)) < (5 if seen.bare else 3) or " " not in joined:
        return []
    return kept


def _point(flat: str) -> str:
    """A point's first letter up."""
    if re.match(r"[a-z]+ ", flat):  # a plain word, not an identifier such as trust_remote_code
        flat = flat[:1].upper() + flat[1:]
    return flat


def _is_sentence(sentence: str) -> bool:
    lowered = sentence.lower()
    return not (NOT_A_POINT.search(sentence) or FILE_LIKE.match(sentence) or any(g in lowered for g in GUIDANCE)
                or any(h in lowered for h in CHECKLIST_HEADINGS) or LEGEND.match(sentence)
                or INSTRUCTION.match(sentence) or _formula(sentence) or PRAISE.search(sentence)
                or STATUS.search(sentence) or TEMPLATE_LINE.match(sentence) or _vague(sentence))


def _vague(sentence: str) -> bool:
    """"This caused some confusions.": a few words about "this" that name nothing and change nothing."""
    words = sentence.split()
    return bool(VAGUE.match(sentence)) and len(words) <= 6 and not NAMED.search(sentence.rstrip(".!?")) \
        and not CHANGES.match(sentence)


def _formula(sentence: str) -> bool:
    """A sentence that is arithmetic rather than words: two equations with hardly a word around them, or three
    operators and at most one plain word outside code ("cp_rank 0: remain_start = 4804 - 1201 = 3603")."""
    prose = re.sub(r"`[^`]*`", " ", sentence)
    words = re.findall(r"(?<![\w.])[A-Za-z]{3,}(?![\w.(])", prose)
    bare = sentence.replace("`", " ")
    operators = len(OPERATOR.findall(bare))
    equations = len(re.findall(r"(?<![=<>!])\s=\s(?!=)", bare))
    return equations >= 2 and len(words) < 4 or operators >= 3 and len(words) < 2


def _fit(said: list[str], limit: int) -> str:
    """Whole sentences up to `limit` characters; a first sentence longer than that is cut at a word, with '…'."""
    text = ""
    for sentence in said:
        longer = f"{text} {sentence}" if text else sentence
        if len(longer) > limit:
            break
        text = longer
    if text:
        return text
    cut = said[0][:limit] if said else ""
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:，；：") + "…"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else _fit(sentences(text), limit)


def prose_blocks(text: str) -> list[str]:
    """The blocks of a text that are prose: paragraphs, lists, quotes and HTML, not headings, code or tables."""
    return [b.source for b in blocks(text) if b.kind in PROSE]


PROSE = ("paragraph", "list", "quote", "html")
SUMMARY_SECTIONS = ("what does this pr do", "summary", "description", "motivation", "overview", "what", "problem",
                    "背景", "描述", "概述")
LOOK_AHEAD = 3  # blocks read past the opening for a sentence that says what the PR changes
ALSO = re.compile(r"\balso\b|\badditionally\b|\bas well\b|^(?:note|n\.?b|ps|p\.s)\b|\bbtw\b", re.IGNORECASE)
# A lead-in that only announces its list: the list says more without it.
ANNOUNCES = re.compile(r"\b(?:follow\w*|below|these|things|as follows|changes?|summary|details?|includes?|contains?|"
                       r"consists? of|steps?)\W*$", re.IGNORECASE)


def _frame(text: str) -> str:
    """A heading's or lead-in's words when they frame the list under them ("Removed"), else ''."""
    words = _inline(text[:200]).text.strip().rstrip(":：").strip()  # a frame is a few words
    if not words or words.endswith("?") or len(words.split()) > 5 or not FRAMES.search(words):
        return ""
    return words[:1].upper() + words[1:]


def _framed(frame: str, point: str) -> str:
    """An item with the frame it was listed under: "Removed: 5 tool implementations …"."""
    if not frame or point.lower().startswith(frame.lower()[:4]):  # "Removed: Remove x" says it twice
        return point
    return f"{frame}: {point[:1].lower() + point[1:] if re.match(r'(?!I )[A-Z][a-z]* ', point) else point}"


def _lists(content: list[Block], heading: str) -> list[tuple[str, Block]]:
    """(frame, block) of a section's blocks: a list is framed by the lead-in just above it, else the heading."""
    framed: list[tuple[str, Block]] = []
    section = _frame(heading)
    previous: Block | None = None
    for block in content:
        frame = ""
        if block.kind == "list":
            lead = previous.text if previous and previous.kind == "paragraph" else ""
            frame = _frame(lead) if lead.rstrip().endswith((":", "：")) or lead.startswith(("**", "__")) else ""
            frame = frame or section
        framed.append((frame, block))
        previous = block
    return framed


def _said(frame: str, block: Block, limit: int, listed: Block | None = None) -> list[str]:
    """A prose block's informative sentences; a list's items each as one, under their frame. `listed` is the list
    right under a paragraph, which its lead-in sentence may open."""
    if block.kind == "list":
        said = []
        for item in block.items:
            kept = _informative(item[:4 * limit])
            if kept:
                said.append(_framed(frame, _point(" ".join(kept))))
        return said
    if block.kind != "paragraph":
        return _informative(block.source[:4 * limit])
    said = _informative(block.text[:4 * limit], opener=listed is not None)
    if said and said[-1].endswith((":", "：")) or said and not re.search(r"[.!?。！？)\]\"'`]$", said[-1]):
        # A lead-in to the list under it ("Fix 132 documentation issues across the tutorials:", "… consistent
        # between"): it reads with the list's items, unless it only announces them ("This PR contains the following:").
        items = [" ".join(kept) for item in listed.items if (kept := _informative(item[:4 * limit]))] \
            if listed is not None else []  # as written: they go on the lead-in's sentence
        if items and not ANNOUNCES.search(said[-1]):
            said[-1] = f"{said[-1]} {'; '.join(i.rstrip(' .;') for i in items)}."
        elif said[-1].endswith((":", "：")):
            said.pop()
    return [_point(said[0]), *said[1:]] if said else []


def summarize(cleaned: str, fallback: str, limit: int = 300) -> str:
    """The description's opening sentence about the change (its 'what does this PR do' section first), in the
    PR's own language.

    Skips what is not about the change (credits, status notes, pointers, vague lines about "this"); when the
    opening only sets the scene, a sentence a few blocks on that says what the PR does is preferred to it."""
    opening: list[str] = []
    for read, (heading, said) in enumerate(_candidates(cleaned, limit)):
        # In a test or results section "this PR …" tells how it was tested, not what it changes; past the opening,
        # a sentence that says "also" is a side note.
        changes = SUBJECT_CHANGES if opening else CHANGES
        change = None if heading.startswith(NOT_POINTS) else next(
            (i for i, sentence in enumerate(said) if changes.search(sentence)
             and not (opening and ALSO.search(sentence))), None)
        if change is not None and not opening:
            # The opening itself says what changes: from its start, unless that sentence would not fit.
            return _fit(said if len(" ".join(said[:change + 1])) <= limit else said[change:], limit)
        if change is not None:
            return _fit(said[change:], limit)
        opening = opening or said
        if read >= LOOK_AHEAD:
            break
    return _fit(opening, limit) if opening else fallback


def _candidates(cleaned: str, limit: int) -> Iterator[tuple[str, list[str]]]:
    """(heading, informative sentences) of the prose blocks a summary may come from, the summary sections first;
    a list gives its first item (its others are often squashed commit messages)."""
    parts = _sections(cleaned)
    ordered = [(h, f, b) for h, c in parts if h.startswith(SUMMARY_SECTIONS) for f, b in _lists(c, h)]
    ordered += [(h, f, b) for h, c in parts for f, b in _lists(c, h) if (h, f, b) not in ordered]
    for n, (heading, frame, block) in enumerate(ordered):
        if block.kind not in PROSE:
            continue
        after = ordered[n + 1] if n + 1 < len(ordered) else None
        listed = after[2] if after and after[0] == heading and after[2].kind == "list" else None
        said = _said(frame, block, limit, listed)
        if said and len(" ".join(said)) >= 12:
            yield heading, said[:1] if block.kind == "list" else said


# Lists under these headings are evidence or housekeeping, not what the change does.
NOT_POINTS = ("test", "validation", "verification", "result", "benchmark", "ai assist", "why this is not",
              "screenshot", "related", "reference", "how to test", "测试", "验证")


def key_points(cleaned: str, limit: int = 5, width: int = 160) -> list[str]:
    """Top-level list items of the description (the author's own change list), shortened, each with the heading
    or lead-in that frames its list ("Removed: …")."""
    points: list[str] = []
    for heading, content in _sections(cleaned):
        if heading.startswith(NOT_POINTS):
            continue
        for frame, block in _lists(content, heading):
            if block.kind != "list":
                continue
            for item in block.items:
                kept = _informative(item[:4 * width])
                text = _framed(frame, _point(" ".join(kept))) if kept else ""
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
