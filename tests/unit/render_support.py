"""Helpers for the renderer tests: an HTML inspector, Markdown rendered as a reader's viewer would, PDF text."""
from __future__ import annotations

import shutil
import subprocess
import warnings
from html.parser import HTMLParser
from typing import Any

import pytest
from markdown_it import MarkdownIt


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def hrefs(self) -> list[str]:
        return [str(a.get("href")) for t, a in self.tags if "href" in a]


def parse_html(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    tags.close()
    return tags


def markdown_to_html(text: str) -> str:
    """GitHub-like Markdown: tables, strikethrough, bare-URL autolinks, raw HTML passed through."""
    return MarkdownIt("gfm-like", {"html": True, "linkify": True}).render(text)


def pdf_text(pdf: bytes, tmp_path: Any) -> str:
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed: scripts/system-deps.sh test")
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True,
                          text=True).stdout


def render_all_strict(report: dict[str, Any], font: str = "") -> dict[str, bytes]:
    """render_all with every warning (fpdf2 warns about glyphs a font lacks) turned into an error."""
    from prhub.core.errors import PrhubError
    from prhub.site.render import render_all
    from prhub.site.render.pdffont import font_location

    try:
        font_location(font)
    except PrhubError as exc:
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return render_all(report, font=font)


def render_pdf_strict(report: dict[str, Any], font: str = "") -> bytes:
    return render_all_strict(report, font)["report.pdf"]
