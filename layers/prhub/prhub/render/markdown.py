from __future__ import annotations

from typing import Any


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"# {report['title']}", "", report["summary"], ""]
    lines += [f"- #{p['number']} {p['title']} ({p['importance']})" for p in report["prs"]]
    return "\n".join(lines) + "\n"
