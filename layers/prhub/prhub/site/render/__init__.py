"""Renderings of a report (prhub.core.report.Report, report.json's schema prhub.report/1).

Contract: `render_all(report, home) -> dict[file name, bytes]` with report.json,
report.md, report.pdf and index.html. Every number printed comes from `report`,
formatted by prhub.core.text.num; the three human renderings walk the same ordered
sections of view.view(report), so they show the same sections with the same numbers.

    view      the report's header and its sections in reading order (the one place the order is written)
    pull      a PR's page (prhub.site.pulls.PullPage) as the same four files, through the same layouts
    digest    the organisation digest (prhub.report.digest) as the same four files, through the same layouts
    labels    zh/en words around the data
    charts    the chart series, drawn as SVG (HTML) and as shapes (PDF)
    markdown  report.md (Jinja2, md-escape filter for untrusted text)
    html      index.html and the site's pages (Jinja2 autoescape, no script)
    pdf       report.pdf: each section kind's layout (fpdf2, bookmarks, tables, charts)
    pdfdoc    the PDF document those layouts draw on (ReportPDF) and its kinsoku text wrap
    pdffont   the PDF's CJK font: which file, which cut covers the text, parsed once per process

Text cleaning, http(s)-only links, "#N" references and number formatting are prhub.core.text's; the CJK font is
cut for the Lambda layer by layers/prhub/cut_font.py (docs/pdf-fonts.md).
"""
from __future__ import annotations

import json

from prhub.core.report import Report


def render_all(report: Report, home: str | None = None, font: str = "") -> dict[str, bytes]:
    """The four files of a report; `home` is the repository's configured language (the page's links depend on it),
    `font` the PDF's configured font (Settings.cjk_font; "" for the packaged one)."""
    from prhub.site.render.html import render_html
    from prhub.site.render.markdown import render_markdown
    from prhub.site.render.pdf import render_pdf

    return {
        "report.json": json.dumps(report, ensure_ascii=False, indent=2).encode(),
        "report.md": render_markdown(report).encode(),
        "report.pdf": render_pdf(report, font),
        "index.html": render_html(report, home).encode(),
    }
