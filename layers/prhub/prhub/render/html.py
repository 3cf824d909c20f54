from __future__ import annotations

import html
from typing import Any


def render_html(report: dict[str, Any]) -> str:
    items = "".join(f"<li>#{p['number']} {html.escape(p['title'])}</li>" for p in report["prs"])
    return f"<!doctype html><meta charset=utf-8><title>{html.escape(report['title'])}</title><ul>{items}</ul>"
