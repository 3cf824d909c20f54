"""Cuts the PDF's CJK font to the characters nearly every report uses: `python cut_font.py FONT[#face] OUT.ttf`.

fpdf2 parses and subsets the whole font for every PDF it writes, and a CJK font has 30,000-65,000 glyphs:
about a second per PDF, paid once per PR page. The cut keeps ASCII, Latin, general and CJK punctuation,
full-width forms and the 7,445 characters of GB 2312 (every common Simplified Chinese character), about a
tenth of the glyphs, which makes a PDF several times cheaper. The cut's outlines are converted from CFF to
TrueType quadratics (fontTools cu2qu): fontTools subsets glyf outlines in about half the time it takes for
CFF charstrings (52 ms against 114 ms of CPU for a 300-character page), and a run writes one PDF per PR.
Beside it go a Latin cut (LATIN: the blocks alone, no GB 2312, about 1,100 glyphs): an English PR page's PDF then
costs 17 ms of CPU instead of 78 ms, fontTools decompiling a seventh of the glyphs for each document; and a
frequent one (FREQUENT: the blocks and GB 2312's level 1) for Chinese pages; and a larger one (IDEOGRAPHS: the
common cut, every CJK Unified Ideograph of the BMP and kana, about 22,700 glyphs) for the page that quotes a
traditional or Japanese character: the whole font (65,535 glyphs) costs a renderer about 130 MB that it keeps,
this cut about 45 MB.
render/pdffont.py chooses the smallest cut that covers a PDF's text, else the whole font, so no character is lost.
Run at build time (the layer's Makefile, beside the layer's font; the project's Makefile, into the
virtualenv), never in a Lambda: the cut and its conversion take seconds. Standalone (fontTools only), as
the layer build runs it before the layer's packages exist.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from fontTools import subset
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont, newTable

# Latin, punctuation, arrows, mathematical operators (the engine writes "−" for deleted lines) and technical
# symbols, circled digits, box drawing and shapes, symbols and dingbats (✓, ✗ in titles), CJK/full-width
BLOCKS = [(0x20, 0x7F), (0xA0, 0x250), (0x2000, 0x2070), (0x2190, 0x2400), (0x2460, 0x2600), (0x2600, 0x27C0),
          (0x3000, 0x3040), (0xFF00, 0xFFF0)]


LATIN = "NotoSansSC-Latin.ttf"  # the Latin cut's name, beside the common cut
FREQUENT = "NotoSansSC-Frequent.ttf"  # the blocks and GB 2312's level 1, beside the common cut
IDEOGRAPHS = "NotoSansSC-Ideographs.ttf"  # the common cut, the BMP's CJK ideographs and kana, beside it
# Characters of level 2 that the engine's own Chinese writes (渲染, 阈值, 熵): without them a report's page
# would miss the frequent cut for one word of its own. A character missing here costs time, never a glyph.
ENGINE_WORDS = "渲阈熵嘈"


def latin_codepoints() -> set[int]:
    """The blocks above."""
    return {cp for lo, hi in BLOCKS for cp in range(lo, hi)}


def frequent_codepoints() -> set[int]:
    """The blocks, GB 2312's level 1 (its 3,755 most used characters, rows 16-55) and ENGINE_WORDS."""
    points = latin_codepoints() | set(map(ord, ENGINE_WORDS))
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            try:
                points.add(ord(bytes([row, cell]).decode("gb2312")))
            except UnicodeDecodeError:  # the row's unassigned cells
                continue
    return points


def common_codepoints() -> set[int]:
    """The blocks above and every character GB 2312 encodes."""
    points = latin_codepoints()
    for cp in range(0x80, 0x10000):
        try:
            chr(cp).encode("gb2312")
        except UnicodeEncodeError:
            continue
        points.add(cp)
    return points


def ideograph_codepoints() -> set[int]:
    """The common cut's, the CJK Unified Ideographs (U+4E00-9FFF), the compatibility ideographs and kana: what
    traditional and Japanese text quoted in a Chinese or English PR needs. Hangul and extension A are left to the
    whole font (rarer still, and 17,000 glyphs more)."""
    kana = {*range(0x3040, 0x3100), *range(0x31F0, 0x3200)}
    return common_codepoints() | set(range(0x4E00, 0xA000)) | set(range(0xF900, 0xFB00)) | kana


# cu2qu's tolerance in font units (of 1,000 per em): a tenth of a point's error at 100 pt, invisible in print
MAX_ERROR = 1.0


def to_truetype(font: TTFont) -> None:
    """Replaces the CFF outlines of `font` by TrueType ones (glyf/loca), in place; a TrueType font already
    is one is left alone."""
    if "CFF " not in font:
        return
    order = font.getGlyphOrder()
    glyphset = font.getGlyphSet()
    glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyphset)
        # CFF draws outer contours counter-clockwise, TrueType clockwise
        glyphset[name].draw(Cu2QuPen(pen, MAX_ERROR, reverse_direction=True))
        glyphs[name] = pen.glyph()
    font["loca"] = newTable("loca")
    glyf = font["glyf"] = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = glyphs
    del font["CFF "]
    font["head"].glyphDataFormat = 0
    maxp = font["maxp"]  # version 1.0 (TrueType); its point and contour maxima are recomputed on save
    maxp.tableVersion = 0x00010000
    maxp.maxZones = 1
    for field in ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements",
                  "maxSizeOfInstructions", "maxComponentElements", "maxComponentDepth"):
        setattr(maxp, field, 0)
    post = font["post"]  # format 3 (CFF's) keeps no names; glyf fonts carry them in format 2
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font.sfntVersion = "\x00\x01\x00\x00"


def cut(source: str, face: int, out: Path, codepoints: set[int] | None = None) -> int:
    """Writes the cut of `source` (face `face` of a collection) to `codepoints` (the common ones by default) to
    `out` atomically; returns its glyph count."""
    font = TTFont(source, fontNumber=face, lazy=True, recalcTimestamp=False)
    have = font.getBestCmap()
    # Desubroutinized: fpdf2 would otherwise prune the subroutines of every subset it makes, half its work.
    options = subset.Options(notdef_outline=True, recommended_glyphs=True, name_IDs=["*"], name_languages=["*"],
                             glyph_names=True,  # a cut cut again (cut_font's smaller cuts) keeps its post names
                             desubroutinize=True)
    options.drop_tables += ["GSUB", "GPOS", "GDEF", "vhea", "vmtx", "VORG"]  # fpdf2 lays out horizontally, alone
    cutter = subset.Subsetter(options)
    wanted = common_codepoints() if codepoints is None else codepoints
    cutter.populate(unicodes=[cp for cp in wanted if cp in have])
    cutter.subset(font)
    to_truetype(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(f".{out.name}.{os.getpid()}")
    font.save(str(part))
    os.replace(part, out)  # a reader sees the old cut or the new one, never half of one
    return len(font.getGlyphOrder())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python cut_font.py FONT[#face] OUT")
    path, _, number = sys.argv[1].partition("#")
    common = Path(sys.argv[2])
    # The largest cut first, converted once; the smaller cuts are cut from it (glyf outlines subset as they are,
    # so their glyphs are the same, and no glyph is converted twice). OUT, the common cut, is written last
    # (make's target: a build stopped before the others never looks done); cut() writes each one atomically.
    largest = common.with_name(IDEOGRAPHS)
    targets = [(largest, ideograph_codepoints()), (common.with_name(LATIN), latin_codepoints()),
               (common.with_name(FREQUENT), frequent_codepoints()), (common, common_codepoints())]
    for target, points in targets:
        source, face = (path, int(number or 0)) if target == largest else (str(largest), 0)
        glyphs = cut(source, face, target, points)
        print(f"cut {path} to {glyphs} glyphs: {target} ({target.stat().st_size // 1024} KiB)")
