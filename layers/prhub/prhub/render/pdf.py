from __future__ import annotations

from typing import Any

from fpdf import FPDF

CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def render_pdf(report: dict[str, Any]) -> bytes:
    pdf = FPDF()
    pdf.add_font("cjk", fname=CJK_FONT, collection_font_number=2)
    pdf.add_page()
    pdf.set_font("cjk", size=12)
    pdf.multi_cell(0, 8, report["title"])
    return bytes(pdf.output())
