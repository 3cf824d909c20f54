"""The brief (issue 45): how long, how Chinese and how well chosen the top of report.md is.

The report is to open with a short brief (title block, highlights by theme, risks at a glance, executive
summary, key changes, the key-PR table, follow-ups) and put everything else under one heading, `## 附录` (zh) /
`## Appendix` (en). For each range (five verl weeks, a verl month, a cargo week, a trl week) and language, the
report is built as the ReportFunction builds it without a model (bench.zh_share.build) and rendered to
report.md (prhub.site.render.markdown), and this prints:

- brief chars: the visible characters of the brief, i.e. of the Markdown above the appendix heading (the whole
  report while there is none). The Markdown is rendered with markdown-it-py (CommonMark, tables, strikethrough,
  raw HTML shown as text but the key-PR table's own `<br>`, a line break on GitHub) and the tags are stripped:
  link text counts, link targets do not, nor does any URL left in the text; escapes, emphasis marks and table
  pipes are gone. Visible characters are the non-whitespace characters of that text.
- zh share (zh only): CJK ideographs / (CJK ideographs + Latin letters A–Z a–z + ASCII digits 0–9), over the
  same visible text of the brief, tables included, with only URLs and inline code removed. Punctuation and
  spaces are neither. This is the share a reader means by "N % Chinese": digits count as not-Chinese because a
  reader sees "#6302 +43/−1768" as figures, not Chinese. Calibrated on 2026-12-06: main's whole zh reports
  read 10–15 % (verl 05-04, 05-18, 06-15: 13.2, 14.4, 12.9 %; the issue's "14–15 %"), a hand-written Chinese
  brief of verl 05-04 with technical names left in English reads 53.9 % (tests/unit/test_bench_brief.py; the
  issue's "53–57 %"; letters alone would read 67.9 %). Target at least SHARE_TARGET.
- quotes (zh only): quotations in the brief's prose (tables left out; “…” or "…") holding three or more
  English words in a row; target 0. Runs: any run of six or more English words in a row anywhere in that prose
  (a title quoted raw, with or without quote marks; words may be joined by "," ";" ":"); target 0.
- repeated (zh only): clauses of six or more Chinese characters that stand beside three or more different PRs
  in the prose sections (bench.zh_text.repeated, its fixed labels aside; they are printed); target 0.
- misses: breaking PRs (prs[].breaking of report.json) and the three most important PRs that the highlights
  section does not name (its "#N" references, in the visible text from the highlights heading to the next
  level-2 heading); target 0.

And for the weeks of the panel (bench/brief_panel.json, written by a maintainer's reading before the brief was
tuned; docs/brief-panel.md), in both languages:

- PR hits: the share of the panel's highlighted PRs (all its themes' PRs) that the report's highlights name;
- lead hits: the share of the panel's themes whose lead PR the highlights name;
- pair precision / recall: grouping agreement over the PRs that both the panel and the highlights name. A pair
  of such PRs is "together" in the report when one highlight item names both (an item is a top-level list item
  of the highlights section, or a level-3 subsection when the section has them), and in the panel when one
  theme lists both. Precision = pairs together in both / pairs together in the report; recall = pairs together
  in both / pairs together in the panel; "-" when there is no pair to count.

The panel's held-out weeks (verl 2026-07-27, trl 2026-07-06) run too but print in their own block, marked
HELD OUT: never tune on them.

    python -m bench.brief [--json FILE]
"""
from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
from collections.abc import Iterable
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any, cast

from bench.zh_share import build, export_path, export_rows
from bench.zh_text import FIXED, repeated

PANEL = Path(__file__).with_name("brief_panel.json")
VERL, SH = "verl-project/verl", "Asia/Shanghai"
RANGES: list[tuple[str, str, str, str]] = [(VERL, SH, since, until) for since, until in (
    ("2026-05-04", "2026-05-10"), ("2026-05-18", "2026-05-24"), ("2026-06-15", "2026-06-21"),
    ("2026-07-13", "2026-07-19"), ("2026-08-10", "2026-08-16"), ("2026-07-01", "2026-07-31"))] + [
    ("rust-lang/cargo", "UTC", "2026-06-08", "2026-06-14"), ("huggingface/trl", "UTC", "2026-06-08", "2026-06-14")]
LANGS = ("zh", "en")
SHARE_TARGET = 0.55
TOP = 3

APPENDIX = re.compile(r"^##[ \t]+(?:附录|Appendix)[ \t]*#*[ \t]*$", re.M)
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z]")
DIGIT = re.compile(r"[0-9]")
URL = re.compile(r"(?i)\b(?:https?|ftp)://[^\s<>\"“”）)]+|\bwww\.[^\s<>\"“”）)]+")
_BLOCK_TAG = re.compile(r"</?(?:p|li|ul|ol|h[1-6]|table|thead|tbody|tr|td|th|pre|blockquote|hr|br)\b[^>]*>")
_TAG = re.compile(r"<[^>]+>")
# An English word as a reader sees one: letters first (or "_" for a code name), then letters, digits, _ ' . - /.
_WORD = r"_?[A-Za-z](?:[A-Za-z0-9_'’.\-/]*[A-Za-z0-9])?"
RUN3 = re.compile(rf"{_WORD}(?:\s+{_WORD}){{2,}}")
RUN6 = re.compile(rf"{_WORD}(?:[,;:]?\s+{_WORD}){{5,}}")
# A quotation ends at its closing mark, or at the end of its line when a clipped heading left it open.
QUOTE = re.compile(r"“([^”\n]*)(?:”|$)|\"([^\"\n]*)\"", re.M)
REF = re.compile(r"#(\d+)\b")


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # "html": False renders raw HTML as the text a reader sees, as GitHub and the site's renderer show it.
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def brief(markdown: str) -> str:
    """The Markdown above the first `## 附录` / `## Appendix` heading; all of it when there is none."""
    found = APPENDIX.search(markdown)
    return markdown[:found.start()] if found else markdown


def has_appendix(markdown: str) -> bool:
    return APPENDIX.search(markdown) is not None


def visible_text(markdown: str, *, tables: bool = True, code: bool = True) -> str:
    """What a reader sees of `markdown`: rendered, tags stripped (block ends become line breaks), entities
    decoded, URLs cut. `tables=False` leaves tables out (prose only), `code=False` inline code."""
    # the key-PR table's own line break between two points ("<br>", which GitHub renders in a table cell), not
    # an author's "\<br\>" (escaped): whitespace, not the letters b and r
    out = _markdown().render(re.sub(r"(?<!\\)<br>", " ", markdown))
    if not tables:
        out = re.sub(r"<table>.*?</table>", "\n", out, flags=re.S)
    if not code:
        out = re.sub(r"(?<!<pre>)<code>.*?</code>", " ", out, flags=re.S)
    out = _TAG.sub("", _BLOCK_TAG.sub("\n", out))
    return URL.sub(" ", html.unescape(out))


def visible_chars(markdown: str) -> int:
    """Non-whitespace characters of the visible text of `markdown`."""
    return sum(1 for c in visible_text(markdown) if not c.isspace())


def chinese_share(markdown: str) -> float:
    """CJK / (CJK + Latin letters + digits) over the visible text, tables included, URLs and inline code cut."""
    text = visible_text(markdown, code=False)
    cjk, latin, digits = len(CJK.findall(text)), len(LATIN.findall(text)), len(DIGIT.findall(text))
    return cjk / (cjk + latin + digits) if cjk + latin + digits else 0.0


def english_quotes(text: str) -> list[str]:
    """The quotations in `text` (“…” or "…") that hold three or more English words in a row."""
    quotes = (m.group(1) if m.group(1) is not None else m.group(2) for m in QUOTE.finditer(text))
    return [q for q in quotes if RUN3.search(q)]


def english_runs(text: str) -> list[str]:
    """Runs of six or more English words in a row in `text`."""
    return [m.group(0) for m in RUN6.finditer(text)]


def section(markdown: str, heading: str) -> str:
    """The Markdown under the level-2 heading `heading` (with or without a bracketed aside after it, as "风险速览
    （每类的全部 PR 见附录「风险详情」）"), up to the next level-1 or level-2 heading."""
    found = re.search(rf"^##[ \t]+{re.escape(heading)}(?:[ \t]*(?:（|\()[^\n]*)?[ \t]*$", markdown, re.M)
    if not found:
        return ""
    rest = markdown[found.end():]
    end = re.search(r"^#{1,2}[ \t]", rest, re.M)
    return rest[:end.start()] if end else rest


def items(section_md: str) -> list[str]:
    """A section's items: its level-3 subsections when it has them, else its top-level list items; a top-level
    item that only heads a nested list (a theme over its subjects) counts as its nested items."""
    if re.search(r"^###[ \t]", section_md, re.M):
        return [p for p in re.split(r"^(?=###[ \t])", section_md, flags=re.M) if p.startswith("###")]
    out: list[str] = []
    for p in re.split(r"^(?=(?:[-*+]|\d+[.)])[ \t])", section_md, flags=re.M):
        if not re.match(r"(?:[-*+]|\d+[.)])[ \t]", p):
            continue
        head, *nested = re.split(r"^(?=[ \t]+[-*+][ \t])", p, flags=re.M)
        out += [n.strip() for n in nested] if nested and not refs(head) else [p]
    return out


def refs(markdown: str) -> set[int]:
    """The PR numbers "#N" a reader sees in `markdown`."""
    return {int(n) for n in REF.findall(visible_text(markdown))}


def highlight_misses(report: dict[str, Any], named: set[int], top: int = TOP) -> dict[str, list[int]]:
    """The breaking PRs and the `top` most important PRs of `report` that `named` (the highlights' PRs) lacks."""
    prs = report.get("prs") or []
    ranked = sorted(prs, key=lambda p: -(p.get("importance") or 0.0))[:top]
    return {"breaking": [p["number"] for p in prs if p.get("breaking") and p["number"] not in named],
            "top": [p["number"] for p in ranked if p["number"] not in named]}


def _pairs(groups: Iterable[Iterable[int]], among: set[int]) -> set[tuple[int, int]]:
    return {pair for group in groups for pair in combinations(sorted(set(group) & among), 2)}


def panel_hits(themes: list[dict[str, Any]], groups: list[set[int]]) -> dict[str, Any]:
    """How the report's highlight items (`groups`, the PRs each names) meet the panel's `themes`."""
    named = set().union(*groups) if groups else set()
    wanted = {n for t in themes for n in t["prs"]}
    common = wanted & named
    ours, theirs = _pairs(groups, common), _pairs((t["prs"] for t in themes), common)
    both = ours & theirs
    return {"pr_hits": [len(common), len(wanted)],
            "lead_hits": [sum(1 for t in themes if t["prs"][0] in named), len(themes)],
            "pair_precision": len(both) / len(ours) if ours else None,
            "pair_recall": len(both) / len(theirs) if theirs else None,
            "missed": sorted(wanted - named)}


def highlights_heading(report: dict[str, Any]) -> str:
    from prhub.core.period import kind_of
    from prhub.site.render.labels import labels

    return labels(report.get("language") or "zh", kind_of(report.get("period") or {}))["highlights"]


def measure(report: dict[str, Any]) -> dict[str, Any]:
    """The brief's figures for one rendered report (see the module's docstring)."""
    from prhub.core.report import Report
    from prhub.site.render.markdown import render_markdown

    markdown = render_markdown(cast(Report, report))
    top = brief(markdown)
    groups = [refs(item) for item in items(section(top, highlights_heading(report)))]
    named = set().union(*groups) if groups else set()
    figures: dict[str, Any] = {"prs": len(report.get("prs") or []), "appendix": has_appendix(markdown),
                               "brief_chars": visible_chars(top), "report_chars": visible_chars(markdown),
                               "highlight_groups": [sorted(g) for g in groups],
                               "misses": highlight_misses(report, named)}
    if report.get("language") == "zh":
        prose = visible_text(top, tables=False)
        figures |= {"zh_share": round(chinese_share(top), 4), "quotes": english_quotes(prose),
                    "runs": english_runs(prose), "repeated": {k: sorted(v) for k, v in repeated(report).items()}}
    return figures


def _label(repo: str, since: str, until: str) -> str:
    name = repo.split("/")[1]
    return f"{name} {since[:7]} (month)" if since.endswith("-01") and until[8:] in ("28", "29", "30", "31") \
        else f"{name} {since}..{until[5:]}"


def run() -> dict[str, Any]:
    panel = json.loads(PANEL.read_text(encoding="utf-8"))
    weeks = [(w["repo"], w["tz"], w["since"], w["until"]) for w in panel["weeks"]]
    reports: dict[tuple[str, str, str, str, str], dict[str, Any]] = {}
    skipped: list[str] = []

    def figures_of(key: tuple[str, str, str, str], lang: str) -> dict[str, Any] | None:
        if (*key, lang) not in reports:
            rows = export_rows(key[0])
            if rows is None:
                skipped.append(f"{_label(key[0], key[2], key[3])}: {export_path(key[0])} is missing")
                return None
            reports[(*key, lang)] = measure(build(rows, key[2], key[3], key[0], key[1], lang))
        return reports[(*key, lang)]

    ranges: dict[str, dict[str, Any]] = {}
    held = {(w["repo"], w["tz"], w["since"], w["until"]) for w in panel["weeks"] if w["held_out"]}
    for key in RANGES + [k for k in weeks if k in held and k not in RANGES]:
        for lang in LANGS:
            figure = figures_of(key, lang)
            if figure is not None:
                ranges[f"{_label(key[0], key[2], key[3])} {lang}"] = {**figure, "held_out": key in held}
    hits: dict[str, dict[str, Any]] = {}
    for week, key in zip(panel["weeks"], weeks, strict=True):
        for lang in LANGS:
            figure = figures_of(key, lang)
            if figure is not None:
                groups = [set(g) for g in figure["highlight_groups"]]
                hits[f"{_label(key[0], key[2], key[3])} {lang}"] = {
                    **panel_hits(week["themes"], groups), "held_out": week["held_out"]}
    return {"rows": _rows(ranges, hits), "ranges": ranges, "panel": hits, "skipped": skipped,
            "fixed_labels": list(FIXED), "panel_written": panel["written"]}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _rows(ranges: dict[str, dict[str, Any]], hits: dict[str, dict[str, Any]]) -> list[list[str]]:
    """[measure, value, notes] rows for `python -m bench`'s table."""
    rows = []
    for name, f in ranges.items():
        note = [f"{'appendix' if f['appendix'] else 'no appendix: whole report'}",
                f"missed breaking {len(f['misses']['breaking'])}, top-{TOP} {len(f['misses']['top'])}"]
        if "zh_share" in f:
            note.insert(0, f"zh {f['zh_share']:.1%}, quotes {len(f['quotes'])}, runs {len(f['runs'])}, "
                           f"repeated {len(f['repeated'])}")
        rows.append([f"brief {name}{' (HELD OUT)' if f['held_out'] else ''}", f"{f['brief_chars']} chars",
                     "; ".join(note)])
    for name, h in hits.items():
        rows.append([f"panel {name}{' (HELD OUT)' if h['held_out'] else ''}",
                     f"{h['pr_hits'][0]}/{h['pr_hits'][1]} PRs",
                     f"leads {h['lead_hits'][0]}/{h['lead_hits'][1]}, pairs P {_pct(h['pair_precision'])} "
                     f"R {_pct(h['pair_recall'])}"])
    return rows


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths,
                                                                                                    strict=True)))
             for row in [header, *body]]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def report_text(result: dict[str, Any]) -> str:
    """The figures as the tables `python -m bench.brief` prints."""
    out = []
    for held in (False, True):
        body = []
        for name, f in result["ranges"].items():
            if f["held_out"] != held:
                continue
            zh = "zh_share" in f
            body.append([name, f["prs"], "yes" if f["appendix"] else "no", f["brief_chars"], f["report_chars"],
                         f"{f['zh_share']:.1%}" if zh else "", len(f["quotes"]) if zh else "",
                         len(f["runs"]) if zh else "", len(f["repeated"]) if zh else "",
                         len(f["misses"]["breaking"]), len(f["misses"]["top"])])
        if body:
            out.append(("HELD OUT (never tune on these)\n" if held else "")
                       + _table(["range", "PRs", "appendix", "brief chars", "report chars", "zh share", "quotes",
                                 "6-word runs", "repeated", "missed breaking", f"missed top-{TOP}"], body))
        hbody = [[name, f"{h['pr_hits'][0]}/{h['pr_hits'][1]}", f"{h['lead_hits'][0]}/{h['lead_hits'][1]}",
                  _pct(h["pair_precision"]), _pct(h["pair_recall"])]
                 for name, h in result["panel"].items() if h["held_out"] == held]
        if hbody:
            out.append(("Panel, HELD OUT (never tune on these)\n" if held else f"Panel (written "
                        f"{result['panel_written']})\n")
                       + _table(["week", "panel PRs named", "theme leads named", "pair precision", "pair recall"],
                                hbody))
    out.append(f"targets: zh share >= {SHARE_TARGET:.0%}; quotes, 6-word runs, repeated, missed: 0")
    out.append(f"fixed labels: {'、'.join(result['fixed_labels'])}")
    out += [f"skipped {line}" for line in result["skipped"]]
    return "\n\n".join(out)


def details(result: dict[str, Any]) -> list[str]:
    """The quotes, runs, repeated clauses and misses behind the counts."""
    lines = []
    for name, f in result["ranges"].items():
        lines += [f"  quote in {name}: “{q}”" for q in f.get("quotes", [])]
        lines += [f"  run in {name}: {r}" for r in f.get("runs", [])]
        lines += [f"  repeated in {name}: {k} beside {v[:6]}" for k, v in f.get("repeated", {}).items()]
        if f["misses"]["breaking"] or f["misses"]["top"]:
            lines.append(f"  missed in {name}: breaking {f['misses']['breaking']}, top-{TOP} {f['misses']['top']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.brief", description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also save the figures as JSON")
    parser.add_argument("--details", action="store_true", help="list the quotes, runs, clauses and misses")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run()
    print(report_text(result))
    if args.details:
        print("\n".join(details(result)))
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1,
                                              ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
