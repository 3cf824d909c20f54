"""The PDF document every report PDF is laid out on (ReportPDF: A4, running title, page numbers, headings with
bookmarks, wrapped paragraphs and tables) and its text layout.

Text is laid out here, not by fpdf2's multi_cell, so that Chinese wraps per
character and no line starts with closing punctuation (kinsoku: the character
before it moves down with it). Characters the font lacks (emoji, scripts
outside CJK/Latin) are dropped rather than drawn as boxes.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from fpdf import FPDF

from prhub.core.text import clean, pieces
from prhub.site.render.pdffont import add_cjk, codepoints, font_for

NO_LINE_START = set("，。、；：？！）》」』】〕〉”’,.;:?!)]}%…·ー～")
NO_LINE_END = set("（《「『【〔〈“‘([{")
_TOKEN = re.compile(r"[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+\s*|\s+|.")

BODY, SMALL, LINE = 10.0, 8.5, 5.6
# A document whose last page would hold no more than this (mm) is laid out again with TIGHT spacing, the
# first that saves that page kept.
ORPHAN_MM = 3 * LINE + 15  # a level-0 heading (about 15 mm with its rule) and two or three lines
TIGHT = (0.92, 0.84)
MARGIN = 16.0
ACCENT = (59, 111, 182)
MUTED = (90, 99, 110)
WARN = (179, 89, 0)
CODE = (150, 50, 40)


@dataclass
class Run:
    text: str
    link: str | None = None
    code: bool = False  # drawn in CODE: the PDF's one font has no monospace face


def tokens(runs: Sequence[Run]) -> list[Run]:
    """Break points: every CJK character, every Latin word with its trailing spaces."""
    return [replace(r, text=t) for r in runs for t in _TOKEN.findall(r.text)]


def _carried(line: list[Run], tok: Run) -> list[Run]:
    """Kinsoku: the runs taken off the end of a full `line` to start the next one with `tok` (the character
    before a closing punctuation mark, an opening mark that may not end a line)."""
    carry: list[Run] = []
    if line and tok.text[0] in NO_LINE_START and len(line) > 1:
        carry = [line.pop()]  # the character before moves down with the punctuation
    while len(line) > 1 and line[-1].text.rstrip() and line[-1].text.rstrip()[-1] in NO_LINE_END:
        carry.insert(0, line.pop())
    return carry


def _fitting(text: str, used: float, width: float, measure: Callable[[str], float]) -> int:
    """How many characters of a word too long for a line fit after `used` mm (one at least)."""
    cut = 1
    while cut < len(text) and used + measure(text[: cut + 1]) <= width:
        cut += 1
    return cut


def wrap(runs: Sequence[Run], width: float, measure: Callable[[str], float]) -> list[list[Run]]:
    """Lines no wider than `width` (mm); words longer than a line break by character; kinsoku applied."""
    lines: list[list[Run]] = []
    line: list[Run] = []
    used = 0.0
    for tok in tokens(runs):
        w = measure(tok.text.rstrip())
        if not line and tok.text.isspace():
            continue
        if used + w <= width or not line and w <= width:
            line.append(tok)
            used += measure(tok.text)
            continue
        carry = _carried(line, tok)
        if line:
            lines.append(line)
        line, used = carry, sum(measure(c.text) for c in carry)
        if tok.text.isspace():
            continue
        while measure(tok.text.rstrip()) + used > width and len(tok.text.rstrip()) > 1:
            cut = _fitting(tok.text, used, width, measure)
            line.append(replace(tok, text=tok.text[:cut]))
            lines.append(line)
            line, used = [], 0.0
            tok = replace(tok, text=tok.text[cut:])
        line.append(tok)
        used += measure(tok.text)
    if line:
        lines.append(line)
    for ln in lines:  # trailing spaces take no room at a line end
        ln[-1] = replace(ln[-1], text=ln[-1].text.rstrip())
    return lines


class ReportPDF(FPDF):
    """A4 portrait with the report's title in the header and page numbers in the footer."""

    def __init__(self, running_title: str, words: dict[str, str], pr_urls: dict[int, str], text: Any,
                 font: str = "") -> None:
        """`text`: everything the PDF will hold (a view), which decides the font; `font`: the configured font
        (Settings.cjk_font), "" for the packaged one."""
        super().__init__(orientation="P", unit="mm", format="A4")
        self.running_title = running_title
        self.words = words  # the report language's labels
        self.cjk = add_cjk(self, *font_for(codepoints([running_title, words, text]), font))
        self.glyphs = self.cjk.cmap.keys()  # the characters the font can draw
        self.set_margins(MARGIN, 18, MARGIN)
        self.c_margin = 0  # text starts exactly where wrap() measured it
        self.set_auto_page_break(True, margin=16)
        self.set_font("cjk", size=BODY)
        self.set_creator("Prhub")
        self.tight = 1.0  # line and heading spacing, below 1 when a last page of a line or two is to be saved
        self.pr_urls = pr_urls  # PR number -> URL, for "#N" in narrative text
        self.lp, self.rp = words["lp"], words["rp"]  # around a PR list after text (full-width in Chinese)
        self.depth = 0  # added to every heading's level: the appendix's sections sit one level below it

    @contextmanager
    def deeper(self) -> Iterator[None]:
        """Headings drawn inside are one level lower (the appendix's sections' own subheadings)."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def fit(self, value: Any) -> str:
        """Cleaned text with only the characters the font can draw."""
        return "".join(ch for ch in clean(value) if ord(ch) in self.glyphs or ch == " ")

    def header(self) -> None:
        if self.page_no() == 1:
            return
        self.set_font("cjk", size=7.5)
        self.set_text_color(*MUTED)
        self.set_xy(MARGIN, 8)
        self.cell(self.epw, 4, self.running_title[:90])
        self.set_draw_color(210, 215, 220)
        self.line(MARGIN, 13, self.w - MARGIN, 13)
        self.set_text_color(0, 0, 0)
        self.set_font("cjk", size=BODY)
        self.set_y(18)

    def footer(self) -> None:
        self.set_y(-11)
        self.set_font("cjk", size=7.5)
        self.set_text_color(*MUTED)
        self.cell(0, 4, self.words["page_n"].format(n=self.page_no()) + " / {nb}", align="C")
        self.set_text_color(0, 0, 0)

    # -- text -------------------------------------------------------------------------------------------

    def runs(self, text: Any, refs: Sequence[dict[str, Any]] = (), linked: bool = True, opening: str = "") -> list[Run]:
        """Text (its code marked, its "#N" PR references linked unless not `linked`) followed by "(#1, #2)"
        links, opened by `opening` ("（另见 ") where given."""
        out = [Run(p.text, p.url, p.code) for p in pieces(self.fit(text), self.pr_urls if linked else {})]
        if refs:
            opened = opening or self.lp
            out.append(Run(opened if out else opened.strip()))
            for i, ref in enumerate(refs):
                if i:
                    out.append(Run(self.words["list_sep"]))
                out.append(Run(ref["label"], ref.get("url")))
            out.append(Run(self.rp))
        return out

    def measure(self, text: str) -> float:
        """Width of `text` in mm in the current font: fpdf2's own sum, without its per-call parsing."""
        widths = self.cjk.cw  # the only font in the document
        return sum(widths[ord(c)] for c in text) * self.font_size_pt * 0.001 / self.k

    def draw_line(self, line: list[Run], x: float, h: float) -> None:
        self.set_x(x)
        merged: list[Run] = []
        for run in line:  # one cell per link span, not per character: cells are what cost time
            if merged and (merged[-1].link, merged[-1].code) == (run.link, run.code):
                merged[-1] = replace(run, text=merged[-1].text + run.text)
            else:
                merged.append(run)
        for run in merged:
            if run.link or run.code:
                self.set_text_color(*(ACCENT if run.link else CODE))
            self.cell(self.measure(run.text), h, run.text, link=run.link or "")
            if run.link or run.code:
                self.set_text_color(0, 0, 0)

    def paragraph(self, runs: list[Run], size: float = BODY, indent: float = 0.0, bullet: str = "",
                  after: float = 1.5) -> None:
        self.set_font("cjk", size=size)
        h = LINE * size / BODY * self.tight
        width = self.epw - indent
        for i, line in enumerate(wrap(runs, width, self.measure)):
            if self.will_page_break(h):
                self.add_page()
            if bullet and i == 0:
                self.set_x(MARGIN + indent - 4.5)
                self.cell(4.5, h, bullet)
            self.draw_line(line, MARGIN + indent, h)
            self.ln(h)
        self.ln(after * self.tight)

    def heading(self, text: str, level: int, keep: float = 0.0) -> None:
        """A bookmarked heading; `keep` mm more stay with it (a subheading right below, say)."""
        level += self.depth
        size = {0: 15.0, 1: 11.5, 2: 10.5}[level]
        need = (28 if level == 0 else 18) + keep  # keep a heading with the first lines below it
        if self.tight < 1:  # a heading and two lines, no more: the room the tight pass is for
            need = (6.5 if level == 0 else 5) + 3 * LINE
        if self.get_y() + need > self.page_break_trigger:
            self.add_page()
        self.ln((4 if level == 0 else 1.5) * self.tight)
        self.start_section(self.fit(text), level=level)
        self.set_font("cjk", size=size)
        self.set_text_color(*(ACCENT if level == 0 else (30, 35, 40)))
        # a heading wider than the page ("Key PRs (top 10 of 69 by importance; …)", a theme's long lead) wraps
        for line in wrap([Run(self.fit(text))], self.epw, self.measure):
            self.cell(self.epw, size * 0.55, "".join(run.text for run in line))
            self.ln(size * 0.55)
        self.ln(1)
        if level == 0:
            self.set_draw_color(*ACCENT)
            self.set_line_width(0.4)
            self.line(MARGIN, self.get_y(), self.w - MARGIN, self.get_y())
            self.set_line_width(0.2)
            self.ln(2.5)
        self.set_text_color(0, 0, 0)
        self.set_font("cjk", size=BODY)

    # -- tables -----------------------------------------------------------------------------------------

    def wrapped_table(self, headers: list[str], rows: list[list[list[Run]]], widths: list[float],
              align: str = "") -> None:
        """Rows of cells (each a list of runs) whose text wraps inside fixed column widths."""
        size, pad = SMALL, 1.4 * self.tight
        h = LINE * size / BODY * self.tight
        self.set_font("cjk", size=size)
        widths = column_widths(headers, widths, self.epw, self.measure, pad)
        align = align.ljust(len(widths), "L")

        def draw_row(cells: list[list[Run]], head: bool) -> None:
            self.set_font("cjk", size=size)
            wrapped = [wrap(c, w - 2 * pad, self.measure) or [[]] for c, w in zip(cells, widths, strict=True)]
            height = max(len(lines) for lines in wrapped) * h + 2 * pad
            if self.will_page_break(height) and not head:
                self.add_page()
                draw_row([[Run(t)] for t in headers], True)
            y, x = self.get_y(), MARGIN
            if head:
                self.set_fill_color(240, 243, 246)
                self.rect(MARGIN, y, self.epw, height, style="F")
            for lines, w, a in zip(wrapped, widths, align, strict=True):
                for i, line in enumerate(lines):
                    self.set_y(y + pad + i * h)
                    lw = sum(self.measure(r.text) for r in line)
                    self.draw_line(line, x + pad + (w - 2 * pad - lw if a == "R" else 0), h)
                x += w
            self.set_draw_color(215, 220, 225)
            self.line(MARGIN, y + height, MARGIN + self.epw, y + height)
            self.set_y(y + height)

        draw_row([[Run(t)] for t in headers], True)
        for row in rows:
            draw_row(row, False)
        self.ln(3)


def column_widths(headers: Sequence[str], shares: Sequence[float], total: float, measure: Callable[[str], float],
                  pad: float) -> list[float]:
    """Column widths (mm) summing to `total` in the proportions `shares`, each wide enough for its header's longest
    word (an en "Importance" wrapped as "Importanc" / "e"): what a narrow column lacks comes off the widest."""
    widths = [w * total / sum(shares) for w in shares]
    need = [max((measure(word) for word in header.split()), default=0.0) + 2 * pad + 0.5 for header in headers]
    for i, least in enumerate(need):
        short = least - widths[i]
        if short > 0:
            widest = max((j for j in range(len(widths)) if j != i), key=lambda j: widths[j] - need[j])
            widths[i] += short
            widths[widest] -= short
    return widths


def fewest_pages(build: Callable[[float], ReportPDF]) -> bytes:
    """The document `build(spacing)` lays out; again with TIGHT spacing when its last page would hold a line or
    two, the first that saves the page kept (a PR's PDF ended on a page of two lines)."""
    pdf = build(1.0)
    if pdf.page_no() > 1 and pdf.get_y() - pdf.t_margin < ORPHAN_MM:
        for spacing in TIGHT:
            tight = build(spacing)
            if tight.page_no() < pdf.page_no():
                return bytes(tight.output())
    return bytes(pdf.output())
