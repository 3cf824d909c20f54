"""report.pdf: the report on A4 with fpdf2, a CJK font, bookmarks, wrapped tables and drawn charts.

Text is laid out here, not by fpdf2's multi_cell, so that Chinese wraps per
character and no line starts with closing punctuation (kinsoku: the character
before it moves down with it). Characters the font lacks (emoji, scripts
outside CJK/Latin) are dropped rather than drawn as boxes.
"""
from __future__ import annotations

import copy
import dataclasses
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

from fpdf import FPDF
from fpdf.fonts import TTFFont

from prhub.core.errors import PrhubError
from prhub.core.report import Report
from prhub.core.text import clean, segments
from prhub.site.render import charts
from prhub.site.render.view import ReportView, view

# Where the CJK font comes from, first match wins: the configured font ($PRHUB_CJK_FONT, read by
# prhub.core.config.Settings: a path; "path#N" picks face N of a .ttc), the font the layer build
# (layers/prhub/Makefile) puts into the package, Debian's fonts-noto-cjk.
FONT_ENV = "PRHUB_CJK_FONT"
PACKAGED_FONT = Path(__file__).resolve().parents[2] / "fonts" / "NotoSansSC-Regular.otf"
DEBIAN_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc#2"  # face 2: Simplified Chinese forms
# The font cut to its common characters (layers/prhub/cut_font.py): a PDF whose text the cut covers is
# several times cheaper to write with it (TrueType outlines: half the subsetting of CFF's). The layer ships it
# beside its font; `make setup` writes one into the virtualenv, cut from the font found there. Smaller cuts go
# beside it (Latin for English pages, GB 2312's level 1 for Chinese), and a larger one (every CJK ideograph of the
# BMP: a quoted traditional or Japanese character costs a renderer 45 MB, not the whole font's 130 MB); the
# smallest that covers a PDF's text is used.
COMMON = "NotoSansSC-Common.ttf"
CUTS = ("NotoSansSC-Latin.ttf", "NotoSansSC-Frequent.ttf", COMMON, "NotoSansSC-Ideographs.ttf")
COMMON_FONTS = (PACKAGED_FONT.with_name(COMMON), Path(sys.prefix) / "share" / "prhub" / COMMON)

NO_LINE_START = set("，。、；：？！）》」』】〕〉”’,.;:?!)]}%…·ー～")
NO_LINE_END = set("（《「『【〔〈“‘([{")
_TOKEN = re.compile(r"[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+\s*|\s+|.")

BODY, SMALL, LINE = 10.0, 8.5, 5.6
# The key-PR table's columns (PR, title, modules, importance, key points): the key points get the most room.
KEY_PR_WIDTHS = [1.2, 4.6, 1.6, 7.6]
# A document whose last page would hold no more than this (mm) is laid out again with TIGHT spacing, the
# first that saves that page kept.
ORPHAN_MM = 3 * LINE + 15  # a level-0 heading (about 15 mm with its rule) and two or three lines
TIGHT = (0.92, 0.84)
MARGIN = 16.0
ACCENT = (59, 111, 182)
MUTED = (90, 99, 110)
WARN = (179, 89, 0)


def font_location(configured: str = "") -> tuple[str, int]:
    """(path, collection face) of the CJK font, `configured` (Settings.cjk_font) when given, else the packaged or
    Debian's; raises PrhubError naming what to install or set."""
    configured = configured.strip()
    candidates = [configured] if configured else [str(PACKAGED_FONT), DEBIAN_FONT]
    for candidate in candidates:
        path, _, face = candidate.partition("#")
        if Path(path).is_file():
            return path, int(face or 0)
    raise PrhubError(f"no CJK font for the PDF: tried {', '.join(candidates)}; install fonts-noto-cjk "
                     f"(scripts/system-deps.sh) or set {FONT_ENV}=/path/to/font.otf[#face]")


def font_for(text: set[int], configured: str = "") -> tuple[str, int]:
    """The smallest cut that has every character of `text` the whole font has, else the whole font (always the
    configured font, when there is one: the cuts are of the packaged one)."""
    path, face = font_location(configured)
    common = next((c for c in COMMON_FONTS if c.is_file()), None)
    if configured.strip() or common is None:
        return path, face
    needed = text & _charset(path, face)
    cuts = [p for p in (common.with_name(name) for name in CUTS) if p.is_file()]  # an older setup: the common cut alone
    return next(((str(p), 0) for p in cuts if needed <= _charset(str(p), 0)), (path, face))


@cache
def _charset(path: str, face: int) -> frozenset[int]:
    """The characters a font has, from its cmap alone (far cheaper than fpdf2's parse of the whole font)."""
    from fontTools.ttLib import TTFont

    with TTFont(path, fontNumber=face, lazy=True) as font:
        return frozenset(font.getBestCmap())


def codepoints(value: Any) -> set[int]:
    """Every character of every string in a view (dicts, lists, sections), to choose the font by. The strings are
    gathered, then read once: yielded character by character through the view's nesting, a year's report took
    0.2 s here."""
    texts: list[str] = []
    _strings(value, texts)
    return set(map(ord, set("".join(texts))))


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _strings(key, out)
            _strings(item, out)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _strings(item, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _strings(getattr(value, f.name), out)


@dataclass
class Run:
    text: str
    link: str | None = None


def tokens(runs: Sequence[Run]) -> list[Run]:
    """Break points: every CJK character, every Latin word with its trailing spaces."""
    return [Run(t, r.link) for r in runs for t in _TOKEN.findall(r.text)]


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
            line.append(Run(tok.text[:cut], tok.link))
            lines.append(line)
            line, used = [], 0.0
            tok = Run(tok.text[cut:], tok.link)
        line.append(tok)
        used += measure(tok.text)
    if line:
        lines.append(line)
    for ln in lines:  # trailing spaces take no room at a line end
        ln[-1] = Run(ln[-1].text.rstrip(), ln[-1].link)
    return lines


@cache
def _parsed_font(path: str, face: int) -> TTFFont:
    """The CJK font as fpdf2's add_font parses it (cmap, widths, glyph ids, descriptor), once per process.

    add_font spent about 40 % of a PR page's PDF re-reading the same cmap and metrics for every document; what
    it derives is read-only while a document is laid out. Only the fontTools TTFont, the subset map and the font
    descriptor are per document: fpdf2 subsets the TTFont and numbers the descriptor when it writes the PDF."""
    probe = FPDF()
    probe.add_font("cjk", fname=path, collection_font_number=face)
    font = cast(TTFFont, probe.fonts["cjk"])
    font.ttfont.close()  # never subset: every document opens its own
    return font


@cache
def _decoded_tables(path: str, face: int) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The font's tables that fpdf2's subsetting decodes in full for every document (cmap, post, hmtx and, for a
    TrueType font without composite glyphs, glyf), decoded once per process, and its glyph order: decoding them
    was most of a PR page's PDF. glyf is shared only without composites: the subsetter renumbers a composite's
    components inside the glyph itself, which a shared glyph must not be; it only trims padding off the others,
    which gives the same bytes however often it is done."""
    from fontTools import ttLib

    with ttLib.TTFont(path, recalcTimestamp=False, fontNumber=face, lazy=True) as font:
        tables = {tag: font[tag] for tag in ("cmap", "post", "hmtx")}
        for table in tables["cmap"].tables:
            table.ensureDecompiled()
        if "glyf" in font:
            glyf = font["glyf"]
            if not any(glyph.isComposite() for glyph in glyf.glyphs.values()):
                tables["glyf"] = glyf
        return tables, tuple(font.getGlyphOrder())


def _document_ttfont(path: str, face: int) -> Any:
    """A document's own TTFont for fpdf2 to subset, its decoded tables copied from the shared ones. Shallow copies
    are enough: fontTools' subsetter replaces what it prunes in them (a subtable's map, post's names, the metrics,
    the glyphs' dictionary), never changes them in place, so documents laid out at once (threads) do not share what
    they subset."""
    from fontTools import ttLib

    font = ttLib.TTFont(path, recalcTimestamp=False, fontNumber=face, lazy=True)
    tables, order = _decoded_tables(path, face)
    font.setGlyphOrder(list(order))
    for tag, table in tables.items():
        font[tag] = copy.copy(table)
    font["cmap"].tables = [copy.copy(sub) for sub in tables["cmap"].tables]
    return font


def _add_cjk(pdf: FPDF, path: str, face: int) -> TTFFont:
    """Register the CJK font in `pdf` as add_font("cjk") would, from the shared parse (what fpdf2's own
    TTFFont.__deepcopy__ shares: cmap, descriptor; widths and glyph ids are only read)."""
    from fpdf.fonts import SubsetMap

    parsed = _parsed_font(path, face)
    if parsed.color_font is not None:  # a colour font's glyph objects belong to its document: parse it anew
        pdf.add_font("cjk", fname=path, collection_font_number=face)
        return cast(TTFFont, pdf.fonts["cjk"])
    font = copy.copy(parsed)
    font.i = len(pdf.fonts) + 1
    # The descriptor is a PDF object fpdf2 numbers and extends (its font file) while it writes the document: each
    # document has its own, or two written at once (threads of one process) renumber each other's (KeyError: 28).
    font.desc = copy.copy(parsed.desc)
    font.ttfont = _document_ttfont(path, face)
    # Subsetting would recompute every kept glyph's bounds (for a CFF font its FontBBox: a third of the render
    # time); the full font's boxes are valid, if loose, for its subset.
    font.ttfont.recalcBBoxes = False
    font.missing_glyphs = []
    font.biggest_size_pt = 0
    font.subset = SubsetMap(font)
    pdf.fonts["cjk"] = font
    if font.is_cff and font.is_cid_keyed:
        pdf._set_min_pdf_version("1.6")  # as add_font does: CID-keyed CFF needs PDF 1.6
    return font


class ReportPDF(FPDF):
    """A4 portrait with the report's title in the header and page numbers in the footer."""

    def __init__(self, running_title: str, words: dict[str, str], pr_urls: dict[int, str], text: Any,
                 font: str = "") -> None:
        """`text`: everything the PDF will hold (a view), which decides the font; `font`: the configured font
        (Settings.cjk_font), "" for the packaged one."""
        super().__init__(orientation="P", unit="mm", format="A4")
        self.running_title = running_title
        self.words = words  # the report language's labels
        self.cjk = _add_cjk(self, *font_for(codepoints([running_title, words, text]), font))
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

    def runs(self, text: Any, refs: Sequence[dict[str, Any]] = ()) -> list[Run]:
        """Text (its "#N" PR references linked) followed by "(#1, #2)" links."""
        out = [Run(seg, url) for seg, url in segments(self.fit(text), self.pr_urls)]
        if refs:
            out.append(Run(self.lp if out else self.lp.strip()))
            for i, ref in enumerate(refs):
                if i:
                    out.append(Run(", "))
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
            if merged and merged[-1].link == run.link:
                merged[-1] = Run(merged[-1].text + run.text, run.link)
            else:
                merged.append(run)
        for run in merged:
            if run.link:
                self.set_text_color(*ACCENT)
            self.cell(self.measure(run.text), h, run.text, link=run.link or "")
            if run.link:
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
        self.cell(self.epw, size * 0.55, self.fit(text))
        self.ln(size * 0.55 + 1)
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


def _fewest_pages(build: Callable[[float], ReportPDF]) -> bytes:
    """The document `build(spacing)` lays out; again with TIGHT spacing when its last page would hold a line or
    two, the first that saves the page kept (a PR's PDF ended on a page of two lines)."""
    pdf = build(1.0)
    if pdf.page_no() > 1 and pdf.get_y() - pdf.t_margin < ORPHAN_MM:
        for spacing in TIGHT:
            tight = build(spacing)
            if tight.page_no() < pdf.page_no():
                return bytes(tight.output())
    return bytes(pdf.output())


def _points(points: Sequence[str]) -> str:
    """Key points in one table cell: bulleted when several ("；" joined English points and doubled stops)."""
    return points[0] if len(points) == 1 else " ".join(f"• {p}" for p in points)


def _refs_cell(pdf: ReportPDF, refs: Sequence[dict[str, Any]]) -> list[Run]:
    out: list[Run] = []
    for i, ref in enumerate(refs):
        if i:
            out.append(Run(", "))
        out.append(Run(ref["label"], ref.get("url")))
    return out


def _cover(pdf: ReportPDF, v: ReportView) -> None:
    """Page 1's top: the title, the byline and the stat cards."""
    words, T, s = v.words, pdf.fit, v.stats
    pdf.set_font("cjk", size=18)
    pdf.start_section(T(v.title), level=0)
    for line in wrap([Run(T(v.title))], pdf.epw, pdf.measure):
        pdf.draw_line(line, MARGIN, 9)
        pdf.ln(9)
    pdf.ln(1)
    byline = f"{words['repo']} {v.repo} · {words['period']} {v.since} {words['to']} {v.until} ({v.tz})"
    pdf.paragraph([Run(T(byline))], size=SMALL, after=0.5)
    pdf.paragraph([Run(T(f"{words['generated_by']} {v.scorer} · {words['generated_at']} {v.generated_at}"))],
                  size=SMALL, after=2)
    cards = [(words["pr_count"], s.pr_count), (words["key_pr_count"], s.key_pr_count),
             (words["avg_importance"], s.avg_importance), (words["avg_insight"], s.avg_insight),
             (words["changes"], f"+{s.additions} / -{s.deletions}"), (words["authors"], s.authors)]
    card_w, y = pdf.epw / len(cards), pdf.get_y()
    for i, (label, value) in enumerate(cards):
        x = MARGIN + i * card_w
        pdf.set_fill_color(244, 246, 248)
        pdf.rect(x + 0.6, y, card_w - 1.2, 14, style="F")
        pdf.set_xy(x + 2, y + 1.5)
        pdf.set_font("cjk", size=7)
        pdf.set_text_color(*MUTED)
        pdf.cell(card_w - 4, 4, T(label))
        pdf.set_xy(x + 2, y + 6.5)
        pdf.set_font("cjk", size=11.5)
        pdf.set_text_color(0, 0, 0)
        pdf.cell(card_w - 4, 6, T(value))
    pdf.set_y(y + 17)
    if s.new_contributors:
        pdf.paragraph([Run(T(f"{s.new_contributors_label}: {', '.join(s.new_contributors)}"))], size=SMALL)
    if s.bots:
        pdf.paragraph([Run(T(f"{words['bots']}: {s.bots}"))], size=SMALL)


# -- one layout per section kind (render/view.py) -----------------------------------------------------------------

def _bullets(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for n in items:
        pdf.paragraph(pdf.runs(n["text"], n["prs"]), indent=5, bullet="•", after=0.8)


def _risk_brief(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """The narrative's observations, then the kinds they do not cover."""
    _bullets(pdf, d["notes"])
    for r in d["unnoted"]:
        pdf.set_text_color(*WARN)
        pdf.paragraph([Run(pdf.fit(r["label"]) + (": " if r["prs"] else "")), *_refs_cell(pdf, r["prs"])],
                      indent=5, bullet="•", after=0.8)
        pdf.set_text_color(0, 0, 0)


def _paragraphs(pdf: ReportPDF, items: list[str]) -> None:
    for para in items:
        pdf.paragraph(pdf.runs(para), after=2)


def _key_changes(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for k in items:
        pdf.heading(k["theme"], 1)
        pdf.paragraph(pdf.runs(k["text"], k["prs"]))


def _trends(pdf: ReportPDF, d: dict[str, Any]) -> None:
    words = pdf.words
    T = pdf.fit
    _bullets(pdf, d["notes"])
    _charts(pdf, d["charts"])
    if d["modules"]:
        pdf.heading(words["modules"], 1)
        trend = d["has_module_trend"]
        headers = [words["module"], words["prs"]]
        headers += [words["baseline"], words["delta"], words["trend"]] if trend else []
        rows = [[[Run(T(m["name"]))], [Run(m["pr_count"])]]
                + ([[Run(m["baseline"])], [Run(m["delta"])], [Run(T(m["trend"]))]] if trend else [])
                for m in d["modules"]]
        pdf.wrapped_table(headers, rows, [4, 1.5, 2, 1.5, 2] if trend else [4, 1.5], "LRRRL" if trend else "LR")
    if d["hot_files"]:
        pdf.heading(words["hot_files"], 1)
        pdf.wrapped_table([words["file"], words["prs"], "PR"],
                          [[[Run(T(f["path"]))], [Run(f["pr_count"])], _refs_cell(pdf, f["prs"])]
                           for f in d["hot_files"]], [6, 1.2, 3], "LRL")
    if d["reviewers"]:
        pdf.heading(words["reviewers"], 1)
        text = ", ".join(r["name"] + (f": {r['count']}" if r["count"] is not None else "") for r in d["reviewers"])
        pdf.paragraph([Run(T(text))])
    if d["types"]:
        pdf.heading(words["types"], 1)
        pdf.paragraph([Run(T(", ".join(f"{t['name']}: {t['count']}" for t in d["types"])))])


def _reviews(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """Who reviewed, the threads open at merge, PRs merged without review, follow-ups, timing (view._reviews)."""
    words, T = pdf.words, pdf.fit
    for line in d["lines"]:
        pdf.paragraph(pdf.runs(line), indent=5, bullet="•", after=0.8)
    if d["reviewers"]:
        pdf.heading(words["reviewers"], 1)
        pdf.wrapped_table([words["reviewer"], words["reviewed_prs"], words["changes_requested"]],
                          [[[Run(T(r["name"]))], [Run(r["prs"])], [Run(r["changes_requested"])]]
                           for r in d["reviewers"]], [5, 2, 2], "LRR")
        _more(pdf, d["reviewers_more"])
    if d["threads"] or d["unknown"]:
        pdf.heading(words["unresolved_threads"], 1)
        for t in d["threads"]:
            where = T(t["where"]) + (f" ({T(t['outdated'])})" if t["outdated"] else "")
            link = [Run(" ("), Run(T(words["comment"]), t["url"]), Run(")")] if t["url"] else []
            pdf.paragraph([Run(t["pr"]["label"], t["pr"]["url"]), Run(f" {where}: {T(t['text'])} — {T(t['author'])}"),
                           *link], size=SMALL, indent=5, bullet="•", after=0.5)
        if d["unknown"]:
            pdf.paragraph([Run(T(d["unknown"]))], size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, d["threads_more"])
    if d["unreviewed"]:
        pdf.heading(words["unreviewed_prs"], 1)
        own = [Run(f" ({T(words['self_merged_prs'])}: "), *_refs_cell(pdf, d["self_merged"]), Run(")")]
        pdf.paragraph([*_refs_cell(pdf, d["unreviewed"]), *(own if d["self_merged"] else [])])
    if d["follow_ups"]:
        pdf.heading(words["follow_ups"], 1)
        for f in d["follow_ups"]:
            link = [Run(" ("), Run(T(words["comment"]), f["url"]), Run(")")] if f["url"] else []
            pdf.paragraph([Run(f["pr"]["label"], f["pr"]["url"]), Run(f" {T(f['author'])}: “{T(f['text'])}”"), *link,
                           Run(" — "), *pdf.runs(f["state"])], size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, d["follow_ups_more"])
    if d["timing"]:
        pdf.heading(words["review_timing"], 1)
        for line in d["timing"]:
            pdf.paragraph(pdf.runs(line), indent=5, bullet="•", after=0.8)


def _more(pdf: ReportPDF, text: str) -> None:
    """A capped list's "… and N more; report.json has the full list"."""
    if text:
        pdf.set_text_color(*MUTED)
        pdf.paragraph([Run(pdf.fit(text))], size=SMALL, indent=5)
        pdf.set_text_color(0, 0, 0)


def _risks(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for r in items:
        pdf.heading(r["label"], 1)
        if not r["items"]:  # the engine's detail repeats its per-PR items
            pdf.paragraph(pdf.runs(r["detail"], r["prs"]))
        for item in r["items"]:
            pdf.paragraph([Run(item["pr"]["label"], item["pr"]["url"]), Run(": "), *pdf.runs(item["detail"])],
                          size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, r["more"])


def _key_prs(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    words = pdf.words
    rows = [[[Run(p["label"], p["url"])], [Run(pdf.fit(p["title"]))],
             [Run(p["importance"])], pdf.runs(_points(p["key_points"]) or p["summary"])]
            for p in items]
    pdf.wrapped_table([words["pr"], words["title"], words["importance"], words["key_points"]], rows,
                      KEY_PR_WIDTHS, "LLRL")


def _related(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """Clusters, then the narrative's notes on how PRs relate, else the bare revert chains."""
    words = pdf.words
    for c in d["clusters"]:
        reason = [Run(" — " + pdf.fit(c["reason"]))] if c["reason"] else []
        pdf.paragraph([Run(pdf.fit(c["title"]) + ": "), *_refs_cell(pdf, c["prs"]), *reason], indent=5, bullet="•",
                      after=0.8)
    _bullets(pdf, d["relation_notes"])
    for r in [] if d["relation_notes"] else d["reverts"]:
        runs = [Run(r["pr"]["label"], r["pr"]["url"]), Run(f" {pdf.fit(words['reverts_pr'])} "),
                Run(r["reverts"]["label"], r["reverts"]["url"])]
        if r["relanded_by"]:
            runs += [Run(pdf.fit(words["sep"] + words["relanded_by"]) + " "),
                     Run(r["relanded_by"]["label"], r["relanded_by"]["url"])]
        pdf.paragraph(runs, indent=5, bullet="•", after=0.8)
    _more(pdf, d["more"])


def _numbered(pdf: ReportPDF, items: list[str]) -> None:
    for i, text in enumerate(items, 1):
        pdf.paragraph(pdf.runs(text), indent=6, bullet=f"{i}.", after=0.8)


def _pr_index(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """The first PR_INDEX_ROWS merged PRs, one compact line each."""
    for p in d["prs"][: d["shown"]]:
        pdf.paragraph([Run(p["label"], p["url"]), Run(" " + pdf.fit(p["title"]))], size=SMALL, indent=5,
                      after=0.2)
    _more(pdf, d["more"])


def _unscored(pdf: ReportPDF, d: dict[str, Any]) -> None:
    words = pdf.words
    pdf.wrapped_table([words["pr"], words["title"], words["reason"]],
                      [[[Run(u["label"], u["url"])], [Run(pdf.fit(u["title"]))], [Run(pdf.fit(u["reason"]))]]
                       for u in d["rows"]], [1.3, 6, 4])
    _more(pdf, d["more"])


def _files(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """A PR's files by module, with its chart of lines per module when it has several."""
    words = pdf.words
    _charts(pdf, d["charts"])
    for g in d["groups"]:
        pdf.heading(g["module"] + (f" ({g['lines']})" if g["lines"] else ""), 1)
        pdf.wrapped_table([words["file"], words["lines"]],
                          [[[Run(pdf.fit(f["path"]))], [Run(f["lines"])]] for f in g["files"]],
                          [7, 2], "LR")


def _links(pdf: ReportPDF, rows: list[dict[str, Any]]) -> None:
    for r in rows:
        runs = [Run(pdf.fit(r["label"]) + ": ")] if r["label"] else []
        for i, link in enumerate(r["links"]):
            runs += ([Run(", ")] if i else []) + [Run(pdf.fit(link["label"]), link.get("url"))]
        if r.get("note"):
            runs.append(Run(" — " + pdf.fit(r["note"])))
        pdf.paragraph(runs, indent=5, bullet="•", after=0.8)


LAYOUTS: dict[str, Callable[[ReportPDF, Any], None]] = {
    "notes": _bullets, "risk_brief": _risk_brief, "paragraphs": _paragraphs, "key_changes": _key_changes,
    "trends": _trends, "reviews": _reviews, "risks": _risks, "key_prs": _key_prs, "related": _related,
    "numbered": _numbered,
    "unscored": _unscored, "files": _files, "link_rows": _links, "pr_index": _pr_index,
}
# Kinds that open with a subheading: their heading keeps room for it, so it never ends a page alone.
OPENS_WITH_SUBHEADING = {"key_changes", "risks"}


def render_pdf(report: Report, font: str = "") -> bytes:
    """The report as an A4 PDF with the same sections and numbers as report.md; `font` as ReportPDF's."""
    v = view(report)

    def build(spacing: float) -> ReportPDF:
        pdf = ReportPDF(v.title, v.words, v.links, v, font)
        pdf.tight = spacing
        pdf.set_title(pdf.fit(v.title))
        pdf.set_author("Prhub")
        pdf.add_page()
        _cover(pdf, v)
        for section in v.sections:
            pdf.heading(section.heading, 0, keep=12 if section.kind in OPENS_WITH_SUBHEADING else 0)
            LAYOUTS[section.kind](pdf, section.data)
        _appendix(pdf, v.appendix)
        return pdf

    return _fewest_pages(build)


def _appendix(pdf: ReportPDF, appendix: Sequence[Any]) -> None:
    """The appendix after the brief, on a page of its own (the brief's reader can stop there), its sections one
    heading level down."""
    if not appendix:
        return
    pdf.add_page()
    pdf.heading(pdf.words["appendix"], 0)
    for section in appendix:
        pdf.heading(section.heading, 1, keep=12 if section.kind in OPENS_WITH_SUBHEADING else 0)
        with pdf.deeper():
            LAYOUTS[section.kind](pdf, section.data)


def render_sections(title: str, words: dict[str, str], links: dict[int, str], byline: Sequence[str],
                    sections: Sequence[Any], font: str = "", appendix: Sequence[Any] = ()) -> bytes:
    """A page other than a week (a PR's, a digest) through the same layouts: its title, byline lines, its
    sections, then its appendix."""
    def build(spacing: float) -> ReportPDF:
        pdf = ReportPDF(title, words, links, [byline, sections, appendix], font)
        pdf.tight = spacing
        pdf.set_title(pdf.fit(title))
        pdf.set_author("Prhub")
        pdf.add_page()
        pdf.set_font("cjk", size=16)
        pdf.start_section(pdf.fit(title), level=0)
        for line in wrap([Run(pdf.fit(title))], pdf.epw, pdf.measure):
            pdf.draw_line(line, MARGIN, 8)
            pdf.ln(8)
        pdf.ln(1)
        for text in byline:
            pdf.paragraph([Run(pdf.fit(text))], size=SMALL, after=0.3)
        pdf.ln(2)
        for section in sections:
            pdf.heading(section.heading, 0, keep=12 if section.kind in OPENS_WITH_SUBHEADING | {"files"} else 0)
            LAYOUTS[section.kind](pdf, section.data)
        _appendix(pdf, appendix)
        return pdf

    return _fewest_pages(build)


def _charts(pdf: ReportPDF, series: list[charts.Series]) -> None:
    """Charts two to a row, each with its caption."""
    box_w, box_h, gap = (pdf.epw - 8) / 2, 44.0, 8.0
    for i in range(0, len(series), 2):
        pair = series[i : i + 2]
        if pdf.get_y() + box_h + 8 > pdf.page_break_trigger:
            pdf.add_page()
        y = pdf.get_y()
        for j, s in enumerate(pair):
            x = MARGIN + j * (box_w + gap)
            pdf.set_font("cjk", size=SMALL)
            pdf.set_text_color(*MUTED)
            pdf.set_xy(x, y)
            pdf.cell(box_w, 5, pdf.fit(s.title))
            pdf.set_text_color(0, 0, 0)
            h = min(box_h, 5.0 * len(s.values) + 2) if s.horizontal else box_h
            charts.draw(pdf, s, x, y + 6, box_w, h, pdf.fit)
        pdf.set_y(y + box_h + 9)
    pdf.set_font("cjk", size=BODY)
