"""The week's narrative written by the engine, in the report's language (placeholder).

Contract: `title(repo, period, lang) -> str` and
`write(report) -> dict` with summary, highlights[{text, prs}], key_changes[{theme, text, prs}],
suggestions[str]; every number quoted comes from `report`.
"""
from __future__ import annotations

from typing import Any

from prhub.period import Period

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def title(repo: str, period: Period, lang: str) -> str:
    week = period.iso_week
    s, u = period.since, period.until
    if lang == "zh":
        if week:
            return f"{repo} {week[0]} 年第 {week[1]} 周周报（{s:%m-%d} 至 {u:%m-%d}）"
        return f"{repo} 周报（{s.isoformat()} 至 {u.isoformat()}）"
    if week:
        end = f"{u.day}" if s.month == u.month else f"{MONTHS[u.month - 1]} {u.day}"
        return f"{repo} weekly report, {week[0]}-W{week[1]:02d}, {MONTHS[s.month - 1]} {s.day}–{end}"
    return f"{repo} report, {s.isoformat()} to {u.isoformat()}"


def write(report: dict[str, Any]) -> dict[str, Any]:
    stats = report["stats"]
    if report["language"] == "zh":
        summary = f"本期共合并 {stats['pr_count']} 个 PR，其中关键 PR {stats['key_pr_count']} 个。"
    else:
        summary = f"{stats['pr_count']} PRs were merged, {stats['key_pr_count']} of them key."
    return {"summary": summary, "highlights": [], "key_changes": [], "suggestions": []}
