"""The PDF's CJK font: which file (the configured font, the packaged one, Debian's), which cut of it covers a
document's text, and its parse shared by every document of the process (fpdf2 would parse and decode it again for
each: most of a PR page's PDF).

    font_for(codepoints(view), configured) -> (path, face)   the smallest cut with every character, else the font
    add_cjk(pdf, path, face)                                  registers it as add_font("cjk") would, from the parse
"""
from __future__ import annotations

import copy
import dataclasses
import sys
from functools import cache
from pathlib import Path
from typing import Any, cast

from fpdf import FPDF
from fpdf.fonts import TTFFont

from prhub.core.errors import PrhubError

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


def add_cjk(pdf: FPDF, path: str, face: int) -> TTFFont:
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
