"""report.pdf's tables and pages (issue 25): a header word never breaks, the key points get the room, and no PDF
ends on a page of a line or two."""
from __future__ import annotations

import copy
import re

import pytest
from prhub.site import pulls
from prhub.site.render import pdf as pdfs
from prhub.site.render import pdfdoc, pdffont
from prhub.site.render.pull import render_pull_pdf

from tests.golden.cases import load
from tests.unit.render_support import pdf_text, render_pdf_strict

SLUG = "2026-05-04-to-2026-05-10"


def test_the_en_key_pr_tables_header_keeps_its_words_whole(tmp_path):
    # GIVEN the en report, whose key-PR table's "Importance" wrapped as "Importanc" / "e"
    text = pdf_text(render_pdf_strict(load("en-small")), tmp_path)
    header = next(line for line in text.splitlines() if "Key points" in line)
    assert "Importance" in header, header


def test_a_header_word_gets_its_width_and_the_key_points_most_of_the_row():
    # a column too narrow for its header's longest word is widened from the widest column
    def measure(text: str) -> float:
        return 2.0 * len(text)

    widths = pdfdoc.column_widths(["PR", "Title", "Importance"], [1, 6, 1], 100.0, measure, pad=1.0)
    assert widths[2] >= measure("Importance") + 2.0 and abs(sum(widths) - 100.0) < 1e-6
    assert widths[0] >= measure("PR") + 2.0
    # the key-PR table gives its key points the widest column, at least 40 % of the row
    share = pdfs.KEY_PR_WIDTHS[-1] / sum(pdfs.KEY_PR_WIDTHS)
    assert share >= 0.4 and pdfs.KEY_PR_WIDTHS[-1] == max(pdfs.KEY_PR_WIDTHS)


def _content_lines(page: str) -> list[str]:
    """A page's lines less the running title and the page number."""
    lines = [ln for ln in page.splitlines() if ln.strip()]
    return [ln for ln in lines if not re.search(r"(第\s*\d+\s*页|Page\s*\d+)\s*/\s*\d+", ln)][1:]


@pytest.mark.parametrize("files", [4, 5, 6, 7, 37, 40, 70])  # those whose PDFs ended on a heading and a line
def test_a_pr_pdf_never_ends_on_a_page_of_one_or_two_lines(tmp_path, files):
    # GIVEN PR pages of ever more files: some would overflow their page by a line or two
    report = copy.deepcopy(load("zh-week"))
    number = report["prs"][0]["number"]
    paths = [{"path": f"verl/workers/m{i:03d}.py", "additions": i, "deletions": 1} for i in range(files)]
    try:
        pdffont.font_location()
    except Exception as exc:  # noqa: BLE001 - no font on this machine
        pytest.skip(str(exc))
    data = render_pull_pdf(pulls.pull_page(report, SLUG, number, files=paths))
    pages = pdf_text(data, tmp_path).split("\f")
    pages = [p for p in pages if p.strip()]
    if len(pages) > 1:
        assert len(_content_lines(pages[-1])) > 2, pages[-1]


def _undated(data: bytes) -> bytes:
    """The PDF less its creation date and the file ID fpdf2 derives from it."""
    return re.sub(rb"/ID \[<[0-9A-F]+><[0-9A-F]+>\]", b"", re.sub(rb"/CreationDate \(D:[^)]*\)", b"", data))


def test_pr_pdfs_from_the_once_decoded_font_tables_are_those_of_a_fresh_font_even_from_threads(monkeypatch):
    # GIVEN the zh week's PR pages, each with its own characters (so its own subset of the font)
    from concurrent.futures import ThreadPoolExecutor

    from fontTools import ttLib

    try:
        pdffont.font_location()
    except Exception as exc:  # noqa: BLE001 - no font on this machine
        pytest.skip(str(exc))
    report = load("zh-week")
    pages = [pulls.pull_page(report, SLUG, p["number"]) for p in report["prs"]]
    # WHEN they are rendered from the shared decoded cmap and post, four documents at a time
    with ThreadPoolExecutor(4) as pool:
        shared = list(pool.map(lambda page: _undated(render_pull_pdf(page)), pages * 2))
    # AND one at a time with a font each document decodes itself, as fpdf2 does
    monkeypatch.setattr(pdffont, "_document_ttfont", lambda path, face: ttLib.TTFont(
        path, recalcTimestamp=False, fontNumber=face, lazy=True))
    fresh = [_undated(render_pull_pdf(page)) for page in pages]
    # THEN every PDF is byte for byte the same
    assert len(set(fresh)) == len(pages) and shared == fresh * 2


def test_glyf_is_shared_only_by_a_font_without_composite_glyphs(tmp_path):
    # GIVEN a TrueType font whose "Á" is a composite of "A" and an accent (a font an operator may configure)
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib.tables._g_l_y_f import GlyphComponent

    def box() -> object:
        pen = TTGlyphPen(None)
        pen.moveTo((0, 0)), pen.lineTo((0, 500)), pen.lineTo((400, 500)), pen.lineTo((400, 0)), pen.closePath()
        return pen.glyph()

    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder([".notdef", "A", "acute", "Aacute"])
    builder.setupCharacterMap({0x41: "A", 0xB4: "acute", 0xC1: "Aacute"})
    glyphs = {name: box() for name in (".notdef", "A", "acute")}
    glyphs["Aacute"] = box()
    glyphs["Aacute"].numberOfContours, glyphs["Aacute"].components = -1, []
    for name, dx in (("A", 0), ("acute", 100)):
        part = GlyphComponent()
        part.glyphName, part.x, part.y, part.flags = name, dx, 0, 0
        glyphs["Aacute"].components.append(part)
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (500, 0) for name in glyphs})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Composite", "styleName": "Regular"})
    builder.setupOS2(), builder.setupPost()
    path = tmp_path / "composite.ttf"
    builder.save(str(path))
    # WHEN its tables are decoded for sharing, as the cuts' are
    shared, _ = pdffont._decoded_tables(str(path), 0)
    # THEN its glyphs are not shared (the subsetter renumbers a composite's components in place); the cut's are
    assert "glyf" not in shared and {"cmap", "post", "hmtx"} <= set(shared)
    try:
        cut, face = pdffont.font_for({ord("a")})
    except Exception as exc:  # noqa: BLE001 - no font on this machine
        pytest.skip(str(exc))
    assert "glyf" in pdffont._decoded_tables(cut, face)[0] or not cut.endswith(".ttf")


def test_a_heading_wider_than_the_page_wraps_inside_the_margins():
    # "Risks at a glance (every PR of each kind is in the appendix, …)" ran 6 mm past the right margin: a heading was
    # one cell, never wrapped (a theme's heading can be a PR's long title, too)
    from prhub.site.render.labels import labels

    words = labels("en", "week")
    long = 'Key PRs (top 10 of 69 by importance; every PR is in the appendix, "All merged PRs") ' * 2
    heights = []
    for text in ("Short", long):
        pdf = pdfdoc.ReportPDF("t", words, {}, text)
        pdf.add_page()
        start = pdf.get_y()
        pdf.heading(text, 0)
        heights.append(pdf.get_y() - start)
        pdf.set_font("cjk", size=15.0)
        assert pdf.measure(long.strip()) > pdf.epw  # the long one cannot fit one line
    assert heights[1] >= heights[0] + 2 * 15.0 * 0.55  # three lines, not one running off the page
