"""report.pdf: the report on A4 with fpdf2, a CJK font, bookmarks, wrapped tables and drawn charts.

Each section kind has its layout here (LAYOUTS), drawn on the document of prhub.site.render.pdfdoc (ReportPDF, the
text layout) in the font prhub.site.render.pdffont chooses; a week's report (render_pdf), a PR's page and the
digest (render_sections) walk the same layouts.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from prhub.core.report import Report
from prhub.site.render import charts
from prhub.site.render.pdfdoc import (
    BODY,
    MARGIN,
    MUTED,
    SMALL,
    WARN,
    ReportPDF,
    Run,
    fewest_pages,
    wrap,
)
from prhub.site.render.view import ReportView, view

# The key-PR table's columns (PR, title, modules, importance, key points): the key points get the most room.
KEY_PR_WIDTHS = [1.2, 4.6, 1.6, 7.6]


def _points(points: Sequence[str]) -> str:
    """Key points in one table cell: bulleted when several ("；" joined English points and doubled stops)."""
    return points[0] if len(points) == 1 else " ".join(f"• {p}" for p in points)


def _refs_cell(pdf: ReportPDF, refs: Sequence[dict[str, Any]]) -> list[Run]:
    out: list[Run] = []
    for i, ref in enumerate(refs):
        if i:
            out.append(Run(pdf.words["list_sep"]))
        out.append(Run(ref["label"], ref.get("url")))
    return out


def _cover(pdf: ReportPDF, v: ReportView) -> None:
    """Page 1's top: the title, the byline and the stat cards."""
    words, T, s = v.words, pdf.fit, v.stats
    pdf.set_font("cjk", size=18)
    pdf.start_section(T(v.title), level=0)
    for line in wrap([Run(T(v.title))], pdf.epw, pdf.measure):
        pdf.draw_line(line, MARGIN, 9)
        pdf.ln(9)
    pdf.ln(1)
    byline = f"{words['repo']} {v.repo} · {words['period']} {v.dates}{words['lp']}{v.tz}{words['rp']}"
    pdf.paragraph([Run(T(byline))], size=SMALL, after=0.5)
    pdf.paragraph([Run(T(f"{words['generated_by']} {v.scorer} · {words['generated_at']} {v.generated_at}"))],
                  size=SMALL, after=2)
    cards = [(words["pr_count"], s.pr_count), (words["key_pr_count"], s.key_pr_count),
             (words["avg_importance"], s.avg_importance), (words["avg_insight"], s.avg_insight),
             (words["changes"], f"+{s.additions} / -{s.deletions}"), (words["authors"], s.authors)]
    card_w, y = pdf.epw / len(cards), pdf.get_y()
    for i, (label, value) in enumerate(cards):
        x = MARGIN + i * card_w
        pdf.set_fill_color(244, 246, 248)
        pdf.rect(x + 0.6, y, card_w - 1.2, 14, style="F")
        pdf.set_xy(x + 2, y + 1.5)
        pdf.set_font("cjk", size=7)
        pdf.set_text_color(*MUTED)
        pdf.cell(card_w - 4, 4, T(label))
        pdf.set_xy(x + 2, y + 6.5)
        pdf.set_font("cjk", size=11.5)
        pdf.set_text_color(0, 0, 0)
        pdf.cell(card_w - 4, 6, T(value))
    pdf.set_y(y + 17)
    if s.new_contributors:
        named = ", ".join(s.new_contributors)
        pdf.paragraph([Run(T(f"{s.new_contributors_label}{words['colon']}{named}"))], size=SMALL)
    if s.bots:
        pdf.paragraph([Run(T(f"{words['bots']}{words['colon']}{s.bots}"))], size=SMALL)


# -- one layout per section kind (render/view.py) -----------------------------------------------------------------

def _opening(pdf: ReportPDF, item: dict[str, Any]) -> str:
    """What opens the PRs listed after an item: "（另见 " past a text that names PRs, else the bracket alone."""
    return str(pdf.words["see_also"]) if item.get("also") else ""


def _bullets(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for n in items:
        pdf.paragraph(pdf.runs(n["text"], n["prs"], opening=_opening(pdf, n)), indent=5, bullet="•", after=0.8)
        for s in n.get("sub") or ():  # a theme's subjects, under it
            pdf.paragraph(pdf.runs(s["text"], s["prs"], opening=_opening(pdf, s)), indent=10, bullet="–",
                          after=0.8)


def _risk_brief(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """The narrative's observations, then the kinds they do not cover."""
    _bullets(pdf, d["notes"])
    for r in d["unnoted"]:
        pdf.set_text_color(*WARN)
        pdf.paragraph([Run(pdf.fit(r["label"]) + (pdf.words["colon"] if r["prs"] else "")), *_refs_cell(pdf, r["prs"])],
                      indent=5, bullet="•", after=0.8)
        pdf.set_text_color(0, 0, 0)


def _paragraphs(pdf: ReportPDF, items: list[str]) -> None:
    for para in items:
        pdf.paragraph(pdf.runs(para), after=2)


def _key_changes(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for k in items:
        pdf.heading(k["theme"], 1)
        pdf.paragraph(pdf.runs(k["text"], k["prs"], opening=_opening(pdf, k)))


def _trends(pdf: ReportPDF, d: dict[str, Any]) -> None:
    words = pdf.words
    T = pdf.fit
    _bullets(pdf, d["notes"])
    _charts(pdf, d["charts"])
    if d["modules"]:
        pdf.heading(words["modules"], 1)
        trend = d["has_module_trend"]
        headers = [words["module"], words["prs"]]
        headers += [words["baseline"], words["delta"], words["trend"]] if trend else []
        rows = [[[Run(T(m["name"]))], [Run(m["pr_count"])]]
                + ([[Run(m["baseline"])], [Run(m["delta"])], [Run(T(m["trend"]))]] if trend else [])
                for m in d["modules"]]
        pdf.wrapped_table(headers, rows, [4, 1.5, 2, 1.5, 2] if trend else [4, 1.5], "LRRRL" if trend else "LR")
    if d["hot_files"]:
        pdf.heading(words["hot_files"], 1)
        pdf.wrapped_table([words["file"], words["prs"], "PR"],
                          [[[Run(T(f["path"]))], [Run(f["pr_count"])], _refs_cell(pdf, f["prs"])]
                           for f in d["hot_files"]], [6, 1.2, 3], "LRL")
    if d["reviewers"]:
        pdf.heading(words["reviewers"], 1)
        text = ", ".join(r["name"] + (f": {r['count']}" if r["count"] is not None else "") for r in d["reviewers"])
        pdf.paragraph([Run(T(text))])
    if d["types"]:
        pdf.heading(words["types"], 1)
        pdf.paragraph([Run(T(", ".join(f"{t['name']}: {t['count']}" for t in d["types"])))])


def _reviews(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """Who reviewed, the threads open at merge, PRs merged without review, follow-ups, timing (view._reviews)."""
    words, T = pdf.words, pdf.fit
    for line in d["lines"]:
        pdf.paragraph(pdf.runs(line), indent=5, bullet="•", after=0.8)
    if d["reviewers"]:
        pdf.heading(words["reviewers"], 1)
        pdf.wrapped_table([words["reviewer"], words["reviewed_prs"], words["changes_requested"]],
                          [[[Run(T(r["name"]))], [Run(r["prs"])], [Run(r["changes_requested"])]]
                           for r in d["reviewers"]], [5, 2, 2], "LRR")
        _more(pdf, d["reviewers_more"])
    if d["threads"] or d["unknown"]:
        pdf.heading(words["unresolved_threads"], 1)
        for t in d["threads"]:
            where = T(t["where"]) + (f" ({T(t['outdated'])})" if t["outdated"] else "")
            link = [Run(" ("), Run(T(words["comment"]), t["url"]), Run(")")] if t["url"] else []
            pdf.paragraph([Run(t["pr"]["label"], t["pr"]["url"]), Run(f" {where}: {T(t['text'])} — {T(t['author'])}"),
                           *link], size=SMALL, indent=5, bullet="•", after=0.5)
        if d["unknown"]:
            pdf.paragraph([Run(T(d["unknown"]))], size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, d["threads_more"])
    if d["unreviewed"]:
        pdf.heading(words["unreviewed_prs"], 1)
        own = [Run(f" ({T(words['self_merged_prs'])}{words['colon']}"), *_refs_cell(pdf, d["self_merged"]), Run(")")]
        pdf.paragraph([*_refs_cell(pdf, d["unreviewed"]), *(own if d["self_merged"] else [])])
    if d["follow_ups"]:
        pdf.heading(words["follow_ups"], 1)
        for f in d["follow_ups"]:
            link = [Run(" ("), Run(T(words["comment"]), f["url"]), Run(")")] if f["url"] else []
            pdf.paragraph([Run(f["pr"]["label"], f["pr"]["url"]), Run(f" {T(f['author'])}: “{T(f['text'])}”"), *link,
                           Run(" — "), *pdf.runs(f["state"])], size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, d["follow_ups_more"])
    if d["timing"]:
        pdf.heading(words["review_timing"], 1)
        for line in d["timing"]:
            pdf.paragraph(pdf.runs(line), indent=5, bullet="•", after=0.8)


def _more(pdf: ReportPDF, text: str) -> None:
    """A capped list's "… and N more; report.json has the full list"."""
    if text:
        pdf.set_text_color(*MUTED)
        pdf.paragraph([Run(pdf.fit(text))], size=SMALL, indent=5)
        pdf.set_text_color(0, 0, 0)


def _risks(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    for r in items:
        pdf.heading(r["label"], 1)
        if not r["items"]:  # the engine's detail repeats its per-PR items
            pdf.paragraph(pdf.runs(r["detail"], r["prs"]))
        for item in r["items"]:
            pdf.paragraph([Run(item["pr"]["label"], item["pr"]["url"]), Run(pdf.words["colon"]),
                           *pdf.runs(item["detail"])], size=SMALL, indent=5, bullet="•", after=0.5)
        _more(pdf, r["more"])


def _key_prs(pdf: ReportPDF, items: list[dict[str, Any]]) -> None:
    words = pdf.words
    rows = [[[Run(p["label"], p["url"])], pdf.runs(p["title"], linked=False),
             [Run(p["importance"])], pdf.runs(_points(p["key_points"]) or p["summary"])]
            for p in items]
    pdf.wrapped_table([words["pr"], words["title"], words["importance"], words["key_points"]], rows,
                      KEY_PR_WIDTHS, "LLRL")


def _related(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """Clusters, then the narrative's notes on how PRs relate, else the bare revert chains."""
    words = pdf.words
    for c in d["clusters"]:
        reason = [Run(" — " + pdf.fit(c["reason"]))] if c["reason"] else []
        pdf.paragraph([*pdf.runs(c["title"], linked=False), Run(pdf.words["colon"]), *_refs_cell(pdf, c["prs"]),
                       *reason], indent=5, bullet="•", after=0.8)
    _bullets(pdf, d["relation_notes"])
    for r in [] if d["relation_notes"] else d["reverts"]:
        runs = [Run(r["pr"]["label"], r["pr"]["url"]), Run(f" {pdf.fit(words['reverts_pr'])} "),
                Run(r["reverts"]["label"], r["reverts"]["url"])]
        if r["relanded_by"]:
            runs += [Run(pdf.fit(words["sep"] + words["relanded_by"]) + " "),
                     Run(r["relanded_by"]["label"], r["relanded_by"]["url"])]
        pdf.paragraph(runs, indent=5, bullet="•", after=0.8)
    _more(pdf, d["more"])


def _numbered(pdf: ReportPDF, items: list[str]) -> None:
    for i, text in enumerate(items, 1):
        pdf.paragraph(pdf.runs(text), indent=6, bullet=f"{i}.", after=0.8)


def _pr_index(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """The first PR_INDEX_ROWS merged PRs, one compact line each."""
    for p in d["prs"][: d["shown"]]:
        pdf.paragraph([Run(p["label"], p["url"]), Run(" "), *pdf.runs(p["title"], linked=False)], size=SMALL, indent=5,
                      after=0.2)
    _more(pdf, d["more"])


def _unscored(pdf: ReportPDF, d: dict[str, Any]) -> None:
    words = pdf.words
    pdf.wrapped_table([words["pr"], words["title"], words["reason"]],
                      [[[Run(u["label"], u["url"])], [Run(pdf.fit(u["title"]))], [Run(pdf.fit(u["reason"]))]]
                       for u in d["rows"]], [1.3, 6, 4])
    _more(pdf, d["more"])


def _files(pdf: ReportPDF, d: dict[str, Any]) -> None:
    """A PR's files by module, with its chart of lines per module when it has several."""
    words = pdf.words
    _charts(pdf, d["charts"])
    for g in d["groups"]:
        pdf.heading(g["module"] + (f" ({g['lines']})" if g["lines"] else ""), 1)
        pdf.wrapped_table([words["file"], words["lines"]],
                          [[[Run(pdf.fit(f["path"]))], [Run(f["lines"])]] for f in g["files"]],
                          [7, 2], "LR")


def _links(pdf: ReportPDF, rows: list[dict[str, Any]]) -> None:
    for r in rows:
        runs = [Run(pdf.fit(r["label"]) + pdf.words["colon"])] if r["label"] else []
        for i, link in enumerate(r["links"]):
            runs += ([Run(", ")] if i else []) + [Run(pdf.fit(link["label"]), link.get("url"))]
        if r.get("note"):
            runs.append(Run(" — " + pdf.fit(r["note"])))
        pdf.paragraph(runs, indent=5, bullet="•", after=0.8)


LAYOUTS: dict[str, Callable[[ReportPDF, Any], None]] = {
    "notes": _bullets, "risk_brief": _risk_brief, "paragraphs": _paragraphs, "key_changes": _key_changes,
    "trends": _trends, "reviews": _reviews, "risks": _risks, "key_prs": _key_prs, "related": _related,
    "numbered": _numbered,
    "unscored": _unscored, "files": _files, "link_rows": _links, "pr_index": _pr_index,
}
# Kinds that open with a subheading: their heading keeps room for it, so it never ends a page alone.
OPENS_WITH_SUBHEADING = {"key_changes", "risks"}


def render_pdf(report: Report, font: str = "") -> bytes:
    """The report as an A4 PDF with the same sections and numbers as report.md; `font` as ReportPDF's."""
    v = view(report)

    def build(spacing: float) -> ReportPDF:
        pdf = ReportPDF(v.title, v.words, v.links, v, font)
        pdf.tight = spacing
        pdf.set_title(pdf.fit(v.title))
        pdf.set_author("Prhub")
        pdf.add_page()
        _cover(pdf, v)
        for section in v.sections:
            pdf.heading(section.heading, 0, keep=12 if section.kind in OPENS_WITH_SUBHEADING else 0)
            LAYOUTS[section.kind](pdf, section.data)
        _appendix(pdf, v.appendix)
        return pdf

    return fewest_pages(build)


def _appendix(pdf: ReportPDF, appendix: Sequence[Any]) -> None:
    """The appendix after the brief, on a page of its own (the brief's reader can stop there), its sections one
    heading level down."""
    if not appendix:
        return
    pdf.add_page()
    pdf.heading(pdf.words["appendix"], 0)
    for section in appendix:
        pdf.heading(section.heading, 1, keep=12 if section.kind in OPENS_WITH_SUBHEADING else 0)
        with pdf.deeper():
            LAYOUTS[section.kind](pdf, section.data)


def render_sections(title: str, words: dict[str, str], links: dict[int, str], byline: Sequence[str],
                    sections: Sequence[Any], font: str = "", appendix: Sequence[Any] = ()) -> bytes:
    """A page other than a week (a PR's, a digest) through the same layouts: its title, byline lines, its
    sections, then its appendix."""
    def build(spacing: float) -> ReportPDF:
        pdf = ReportPDF(title, words, links, [byline, sections, appendix], font)
        pdf.tight = spacing
        pdf.set_title(pdf.fit(title))
        pdf.set_author("Prhub")
        pdf.add_page()
        pdf.set_font("cjk", size=16)
        pdf.start_section(pdf.fit(title), level=0)
        for line in wrap([Run(pdf.fit(title))], pdf.epw, pdf.measure):
            pdf.draw_line(line, MARGIN, 8)
            pdf.ln(8)
        pdf.ln(1)
        for text in byline:
            pdf.paragraph([Run(pdf.fit(text))], size=SMALL, after=0.3)
        pdf.ln(2)
        for section in sections:
            pdf.heading(section.heading, 0, keep=12 if section.kind in OPENS_WITH_SUBHEADING | {"files"} else 0)
            LAYOUTS[section.kind](pdf, section.data)
        _appendix(pdf, appendix)
        return pdf

    return fewest_pages(build)


def _charts(pdf: ReportPDF, series: list[charts.Series]) -> None:
    """Charts two to a row, each with its caption."""
    box_w, box_h, gap = (pdf.epw - 8) / 2, 44.0, 8.0
    for i in range(0, len(series), 2):
        pair = series[i : i + 2]
        if pdf.get_y() + box_h + 8 > pdf.page_break_trigger:
            pdf.add_page()
        y = pdf.get_y()
        for j, s in enumerate(pair):
            x = MARGIN + j * (box_w + gap)
            pdf.set_font("cjk", size=SMALL)
            pdf.set_text_color(*MUTED)
            pdf.set_xy(x, y)
            pdf.cell(box_w, 5, pdf.fit(s.title))
            pdf.set_text_color(0, 0, 0)
            h = min(box_h, 5.0 * len(s.values) + 2) if s.horizontal else box_h
            charts.draw(pdf, s, x, y + 6, box_w, h, pdf.fit)
        pdf.set_y(y + box_h + 9)
    pdf.set_font("cjk", size=BODY)
