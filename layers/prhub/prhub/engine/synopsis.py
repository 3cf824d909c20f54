"""What a PR description says the PR does: its summary and its key points, in the author's words.

    summarize(strip_template(body), fallback) -> str        the sentences that say what the PR changes
    key_points(strip_template(body)) -> list[str]           the changes it lists, each a short sentence

The description is read by prhub.engine.textparse (its Markdown blocks and sections, sentences, plain text); what
is taken is prose about the change, not template lines, credits, instructions, test logs or formulas.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from prhub.core.text import capitalised
from prhub.engine.textparse import CHECKLIST_HEADINGS, GUIDANCE, PROSE, Block, inline, section_blocks, sentences

# What a description says that is not about the change: template placeholders, credits, pointers elsewhere.
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
# Where the PR stands rather than what it does: "[Merged]", "Requires … to be merged", "Ready for review", "as title";
# and the lines git and GitHub write into a revert ("This reverts commit 15a7672…", "Reverts rust-lang/cargo#16847"),
# which say less than its title.
STATUS = re.compile(
    r"^this reverts commit [0-9a-f]{7,40}(?:\s*\(#\d+\))?(?:,\s*reversing\s+changes\s+made\s+to\s+[0-9a-f]{7,40})?"
    r"\.?$|^reverts [\w.-]+/[\w.-]+#\d+\W*$|"
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
    seen = inline(text)
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
    """A point's first letter up (a plain word's, not an identifier's such as trust_remote_code)."""
    return capitalised(flat)


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
        # Chinese sentences follow each other without a space ("…不存在。现在按 UTC…")
        gap = "" if not text or text.endswith(("。", "！", "？")) else " "
        longer = f"{text}{gap}{sentence}"
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


SUMMARY_SECTIONS = ("what does this pr do", "summary", "description", "motivation", "overview", "what", "problem",
                    "背景", "描述", "概述")
LOOK_AHEAD = 3  # blocks read past the opening for a sentence that says what the PR changes
ALSO = re.compile(r"\balso\b|\badditionally\b|\bas well\b|^(?:note|n\.?b|ps|p\.s)\b|\bbtw\b", re.IGNORECASE)
# A lead-in that only announces its list: the list says more without it.
ANNOUNCES = re.compile(r"\b(?:follow\w*|below|these|things|as follows|changes?|summary|details?|includes?|contains?|"
                       r"consists? of|steps?)\W*$", re.IGNORECASE)


def _frame(text: str) -> str:
    """A heading's or lead-in's words when they frame the list under them ("Removed"), else ''."""
    words = inline(text[:200]).text.strip().rstrip(":：").strip()  # a frame is a few words
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
    parts = section_blocks(cleaned)
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
    for heading, content in section_blocks(cleaned):
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
