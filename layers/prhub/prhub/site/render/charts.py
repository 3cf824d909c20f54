"""The report's charts: one computed series each, drawn as inline SVG (HTML) and as vector shapes (PDF).

Both drawings read the same `Series`, so the page and the PDF show the same bars.
"""
from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass
from typing import Any

from prhub.core.period import kind_of
from prhub.core.report import Report
from prhub.core.text import clean, num
from prhub.site.render.labels import labels

MAX_MODULES = 10
BAR_COLOR = "#3b6fb6"
KEY_COLOR = "#d9822b"


@dataclass(frozen=True)
class Series:
    key: str  # modules | importance | weeks
    title: str
    labels: list[str]
    values: list[int | float]
    horizontal: bool  # long category names read better on the left

    @property
    def peak(self) -> float:
        return max([float(v) for v in self.values] + [1.0])


def importance_bins(report: Report) -> list[int]:
    """PR counts per importance band [0,1), [1,2), … [9,10] (10 falls in the last band)."""
    bins = [0] * 10
    for pr in report.get("prs", []):
        value = pr.get("importance")
        if isinstance(value, int | float):
            bins[min(9, max(0, int(value)))] += 1
    return bins


def series(report: Report) -> list[Series]:
    """The charts the report has data for, in reading order."""
    words = labels(report.get("language", "zh"), kind_of(report.get("period") or {}))
    out = []
    modules = [m for m in report.get("modules", []) if isinstance(m.get("pr_count"), int | float)][:MAX_MODULES]
    if modules:
        out.append(Series("modules", words["chart_modules"], [clean(m.get("name")) for m in modules],
                          [m["pr_count"] for m in modules], True))
    if report.get("prs"):
        out.append(Series("importance", words["chart_importance"], [str(i) for i in range(10)],
                          list(importance_bins(report)), False))
    weeks = [w for w in (report.get("trends") or {}).get("weeks", []) if isinstance(w.get("pr_count"), int | float)]
    if len(weeks) > 1:
        out.append(Series("weeks", words["chart_weeks"], [clean(w.get("since"))[5:] for w in weeks],
                          [w["pr_count"] for w in weeks], False))
    return out


def _width(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _short(text: str, limit: int) -> str:
    """At most `limit` columns (CJK characters count two), cut with an ellipsis."""
    if sum(_width(c) for c in text) <= limit:
        return text
    out, used = "", 0
    for ch in text:
        if used + _width(ch) > limit - 1:
            break
        out, used = out + ch, used + _width(ch)
    return out + "…"


def svg(s: Series) -> str:
    """Inline SVG markup for one series; every label is escaped here (the caller marks it safe)."""
    esc = html.escape
    if s.horizontal:
        row, label_w, width = 22, 110, 400
        height = row * len(s.values) + 10
        bar_room = width - label_w - 34
        parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(s.title)}" '
                 f'xmlns="http://www.w3.org/2000/svg">', f"<title>{esc(s.title)}</title>"]
        for i, (label, value) in enumerate(zip(s.labels, s.values, strict=True)):
            y = 5 + i * row
            w = max(1.0, bar_room * float(value) / s.peak)
            parts.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{esc(_short(label, 16))}</text>')
            parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 8}" rx="2" '
                         f'fill="{BAR_COLOR}"/>')
            parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 16}">{esc(num(value))}</text>')
        parts.append("</svg>")
        return "".join(parts)
    width, height, left, bottom, top = 400, 180, 8, 22, 16
    n = max(1, len(s.values))
    slot = (width - left - 10) / n
    plot_h = height - bottom - top
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(s.title)}" '
             f'xmlns="http://www.w3.org/2000/svg">', f"<title>{esc(s.title)}</title>",
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#999"/>']
    for i, (label, value) in enumerate(zip(s.labels, s.values, strict=True)):
        h = plot_h * float(value) / s.peak
        x = left + i * slot + slot * 0.15
        bar_y = height - bottom - h
        color = KEY_COLOR if s.key == "weeks" and i == n - 1 else BAR_COLOR
        parts.append(f'<rect x="{x:.1f}" y="{bar_y:.1f}" width="{slot * 0.7:.1f}" height="{h:.1f}" rx="2" '
                     f'fill="{color}"/>')
        mid = x + slot * 0.35
        if value:
            parts.append(f'<text x="{mid:.1f}" y="{bar_y - 4:.1f}" text-anchor="middle">{esc(num(value))}</text>')
        parts.append(f'<text x="{mid:.1f}" y="{height - 6}" text-anchor="middle">{esc(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def draw(pdf: Any, s: Series, x: float, y: float, w: float, h: float, text: Any) -> None:
    """Draw one series into an fpdf2 document inside the box (x, y, w, h) in mm; `text` cleans labels for the font."""
    pdf.set_draw_color(150, 150, 150)
    pdf.set_font_size(7.5)
    if s.horizontal:
        label_w = 38.0
        row = h / max(1, len(s.values))
        room = w - label_w - 12
        for i, (label, value) in enumerate(zip(s.labels, s.values, strict=True)):
            yy = y + i * row
            bw = max(0.3, room * float(value) / s.peak)
            pdf.set_xy(x, yy)
            pdf.cell(label_w - 2, row, text(_short(label, 22)), align="R")
            pdf.set_fill_color(59, 111, 182)
            pdf.rect(x + label_w, yy + row * 0.18, bw, row * 0.64, style="F")
            pdf.set_xy(x + label_w + bw + 1, yy)
            pdf.cell(10, row, num(value))
        return
    n = max(1, len(s.values))
    slot = (w - 4) / n
    base = y + h - 5
    plot_h = h - 10
    pdf.line(x, base, x + w, base)
    for i, (label, value) in enumerate(zip(s.labels, s.values, strict=True)):
        bh = plot_h * float(value) / s.peak
        bx = x + 2 + i * slot + slot * 0.15
        if s.key == "weeks" and i == n - 1:
            pdf.set_fill_color(217, 130, 43)
        else:
            pdf.set_fill_color(59, 111, 182)
        if bh > 0:
            pdf.rect(bx, base - bh, slot * 0.7, bh, style="F")
        if value:
            pdf.set_xy(bx - 2, base - bh - 4.5)
            pdf.cell(slot * 0.7 + 4, 4, num(value), align="C")
        pdf.set_xy(bx - 2, base + 0.5)
        pdf.cell(slot * 0.7 + 4, 4, text(label), align="C")


@dataclass(frozen=True)
class Columns:
    """Weekly columns for the dashboard: one or more named series side by side per week."""
    key: str
    title: str
    labels: list[str]  # one per column (week)
    series: list[tuple[str, str, list[float]]]  # (name, colour, a value per column)
    known: list[bool] | None = None  # per column: False draws "no data" (a hatched slot), never a zero

    @property
    def peak(self) -> float:
        return max([float(v) for _, _, values in self.series for v in values] + [1.0])


def columns_svg(c: Columns) -> str:
    """Inline SVG of weekly columns, sized by viewBox so it fits a 390 px phone; labels escaped here.

    A week label is drawn under every column when there are few, else about six across; the values are in
    the figure's table (its text alternative), so the drawing needs no number on every bar.
    """
    esc = html.escape
    width, height, left, bottom, top = 400, 170, 6, 22, 14
    n = max(1, len(c.labels))
    slot = (width - left - 6) / n
    plot_h = height - bottom - top
    every = 1 if n <= 6 else max(1, round(n / 6))  # about six labels: a 390 px screen fits no more
    k = max(1, len(c.series))
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(c.title)}" '
             f'xmlns="http://www.w3.org/2000/svg">', f"<title>{esc(c.title)}</title>",
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 6}" y2="{height - bottom}" stroke="#999"/>',
             f'<text x="{width - 6}" y="10" text-anchor="end">max {esc(num(c.peak))}</text>']
    hatch = esc(f"nodata-{c.key}")  # one id per chart: a page holds several
    if c.known is not None and not all(c.known):
        parts.insert(2, f'<defs><pattern id="{hatch}" width="4" height="4" patternUnits="userSpaceOnUse">'
                        '<path d="M0 4L4 0" stroke="#c8ccd2" stroke-width="1"/></pattern></defs>')
    for i, label in enumerate(c.labels):
        x0 = left + i * slot + slot * 0.1
        bar = slot * 0.8 / k
        if c.known is not None and not c.known[i]:
            parts.append(f'<rect class="nodata" x="{x0:.1f}" y="{top}" width="{slot * 0.8:.1f}" height="{plot_h}" '
                         f'fill="url(#{hatch})"/>')
        for j, (_, color, values) in enumerate(c.series):
            h = plot_h * float(values[i]) / c.peak
            if h > 0:
                parts.append(f'<rect x="{x0 + j * bar:.1f}" y="{height - bottom - h:.1f}" '
                             f'width="{max(bar - 0.5, 0.8):.1f}" height="{h:.1f}" fill="{color}"/>')
        if i % every == 0:
            parts.append(f'<text x="{x0 + slot * 0.4:.1f}" y="{height - 6}" text-anchor="middle">{esc(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
