"""Renderings of a report model (placeholder: the reports issue makes them good).

Contract: `render_all(report) -> dict[file name, bytes]` with report.json,
report.md, report.pdf and index.html; every number comes from `report`.
"""
from __future__ import annotations

import json
from typing import Any


def render_all(report: dict[str, Any]) -> dict[str, bytes]:
    from prhub.render.html import render_html
    from prhub.render.markdown import render_markdown
    from prhub.render.pdf import render_pdf

    return {
        "report.json": json.dumps(report, ensure_ascii=False, indent=2).encode(),
        "report.md": render_markdown(report).encode(),
        "report.pdf": render_pdf(report),
        "index.html": render_html(report).encode(),
    }
