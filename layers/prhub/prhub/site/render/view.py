"""The report as every rendering reads it: the header, then one ordered list of sections.

`view(report)` cleans the text, checks the links and formats the numbers once, so
report.md, index.html and report.pdf show the same sections, in the same order,
with the same numbers. Each renderer walks `sections` and lays each one out by its
`kind`; BRIEF and APPENDIX below are the only place the order is written. Adding a section is
one row there (and a layout per renderer when it brings a new kind).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from functools import cached_property
from typing import Any

from prhub.core.period import kind_of, zh_dates
from prhub.core.report import Report, Stats
from prhub.core.text import PR_REF, capitalised, clean, comment_link, num, prs_counted, safe_url, signed, usd
from prhub.site import paths as sitepaths
from prhub.site.render import charts
from prhub.site.render.labels import labels, risk_label, trend_label, type_label

# Key points shown per PR in the key-PR table: a row of five long bullets buried the table (report.json keeps all).
KEY_POINTS = 3
# Rows of the key-PR table: a month or a year has hundreds of key PRs; the rest stay in report.json (prs[], the
# `key` flags and counts as judged), and the heading says how many are shown.
KEY_PR_ROWS = 10
# New contributors named in the header; past this the header names these and says how many more.
NEWCOMERS_SHOWN = 20
# Long lists stop here in every rendering with "… and N more" pointing to report.json, which keeps them whole: a
# year's report.md was 473 KB, 760 of its lines one risk's PRs without tests.
RISK_ITEMS = 20  # a risk kind's per-PR items
RISK_PRS = 30  # a risk kind's PRs when it has no items
UNSCORED_ROWS = 30
RELATED_ROWS = 20  # clusters, and revert chains
REVIEW_ROWS = 20  # reviewers, unresolved threads, follow-ups
# A risk in the brief names the PRs its text does not cite when there are at most this many; more, and it names
# none: three bare numbers and "…另 13 个" tell a reader nothing the count did not, and the appendix's risk
# details list every one with what it did (the section's heading says so)
BRIEF_REFS = 2
REFS_SHOWN = 20  # PRs named after a note, a hot file, a module, a cluster: then "…另 N 个" (a ref marked `more`)
# The list of every merged PR: whole (folded) on the web page, where each links to its page; its first rows in
# report.md and report.pdf, which travel without the site.
PR_INDEX_ROWS = 100


@dataclass(frozen=True)
class Section:
    id: str  # the page's anchor (<section id>)
    heading: str  # in the report's language
    kind: str  # how it is laid out: notes, risk_brief, paragraphs, key_changes, trends, risks, key_prs, related, ...
    data: Any  # what that kind lays out (see the builders below)


def _cited(text: str) -> set[int]:
    return {int(m.group(1)) for m in PR_REF.finditer(text)}


def _texts(items: Any) -> list[str]:
    out = []
    for item in items or []:
        text = item.get("text") if isinstance(item, dict) else item
        if clean(text):
            out.append(clean(text))
    return out


class _Parts:
    """What the section builders share: the report, its words and its PRs by number."""

    def __init__(self, report: Report, with_charts: bool, pull_links: tuple[str, str] | None = None) -> None:
        self.report = report
        self.pull_links = pull_links
        self.lang = report["language"]
        self.words = labels(self.lang, kind_of(report["period"]))
        self.with_charts = with_charts
        self.prs: dict[Any, Any] = {p["number"]: p for p in report["prs"] if isinstance(p, dict) and "number" in p}
        self.paged = set(self.prs) if pull_links else set()  # scored PRs have a page of their own
        for item in report["unscored"]:
            self.prs.setdefault(item.get("number"), item)

    @cached_property
    def numbers(self) -> list[int]:
        """Every merged PR's number, scored or not, in order (a hostile report's non-numbers left out)."""
        return sorted({n for n in self.prs if isinstance(n, int) and not isinstance(n, bool)})

    def url(self, number: Any) -> str | None:
        """The PR's own page on the site when it has one, else its GitHub URL (http(s) only)."""
        if self.pull_links and number in self.paged and isinstance(number, int) and not isinstance(number, bool):
            return f"{self.pull_links[0]}{number}/{self.pull_links[1]}"
        pr = self.prs.get(number) if isinstance(number, int) else None
        return safe_url(pr.get("url")) if pr else None

    def ref(self, number: Any) -> dict[str, Any]:
        pr = self.prs.get(number) if isinstance(number, int) else None
        return {"number": number, "label": f"#{num(number)}", "url": self.url(number),
                "title": clean(pr.get("title")) if pr else ""}

    def refs(self, numbers: Any, shown: int = REFS_SHOWN) -> list[dict[str, Any]]:
        """The PRs' references, the first `shown` of them and then one `more` reference saying how many follow."""
        numbers = list(numbers or [])
        out = [self.ref(n) for n in numbers[:shown]]
        if len(numbers) > shown:
            out.append({"number": None, "label": self.words["more_refs"].format(n=num(len(numbers) - shown)),
                        "url": None, "title": "", "more": True})
        return out

    def notes(self, items: Any, shown: int = REFS_SHOWN) -> list[dict[str, Any]]:
        """Items {text, prs} (or plain strings); `prs` keeps only the PRs the text does not already cite as "#N",
        the first `shown` of them."""
        out: list[dict[str, Any]] = []
        for item in items or []:
            text = clean(item.get("text") if isinstance(item, dict) else item)
            if not text:
                continue
            numbers = item.get("prs") if isinstance(item, dict) else []
            cited = _cited(text)
            # past a text that names PRs the rest are more ("另见"); a text naming none is about them all
            out.append({"text": text, "prs": self.refs([n for n in numbers or [] if n not in cited], shown),
                        "also": bool(cited)})
        return out

    def more(self, total: int, shown: int) -> str:
        """"… 另有 N 项，完整列表见 report.json" past `shown` of `total`, else ""."""
        return self.words["more_items"].format(n=num(total - shown)) if total > shown else ""

    @cached_property
    def risks(self) -> list[dict[str, Any]]:
        out = []
        for r in self.report["risks"]:
            items = [i for i in r.get("items") or [] if isinstance(i, dict)]
            prs = list(r.get("prs") or [])
            out.append({"kind": clean(r.get("kind")), "label": risk_label(clean(r.get("kind")), self.lang),
                        "detail": clean(r.get("detail")), "prs": self.refs(prs[:RISK_PRS], RISK_PRS),
                        "items": [{"pr": self.ref(i.get("pr")), "detail": clean(i.get("detail"))}
                                  for i in items[:RISK_ITEMS]],
                        "more": self.more(len(items), RISK_ITEMS) if items else self.more(len(prs), RISK_PRS)})
        return out


# -- the sections: each builder returns what its kind lays out, or nothing when the report has none of it --

def _numbers(refs: list[dict[str, Any]]) -> set[Any]:
    """The PR numbers of references (a `more` reference names none)."""
    return {r["number"] for r in refs if not r.get("more")}


def _highlights(p: _Parts) -> Any:
    """The highlights by theme: a subsystem heading several items (subjects the engine keeps apart) is said once,
    at its first item's place, with its subjects listed under it ("sub")."""
    items = [i for i in p.report["highlights"] or [] if isinstance(i, dict)]
    themes = Counter(clean(i.get("theme")) for i in items if i.get("theme"))
    out: list[dict[str, Any]] = []
    groups: dict[str, dict[str, Any]] = {}
    for item in items:
        theme = clean(item.get("theme"))
        if themes[theme] < 2 or not theme:
            out += p.notes([item])
            continue
        if theme not in groups:
            groups[theme] = {"text": theme, "prs": [], "sub": []}
            out.append(groups[theme])
        groups[theme]["sub"] += p.notes([{**item, "text": _without(clean(item.get("text")), theme)}])
    return out


def _without(text: str, theme: str) -> str:
    """An item's text without the theme it opens with: "[破坏性变更] megatron 模块：#1 …" → "[破坏性变更] #1 …"."""
    for said in (f"{theme}：", f"{theme}: "):
        if said in text:  # what followed the colon now opens the line: "hide X (#6000)" → "Hide X (#6000)"
            rest = text.replace(said, "", 1)
            flag = m.group(0) if (m := re.match(r"\[[^\]]*\] ", rest)) else ""
            return flag + capitalised(rest[len(flag):])
    return text


def _risk_brief(p: _Parts) -> Any:
    """The narrative's risk observations, then the kinds no observation mentions, so the brief misses none."""
    notes = [{**note, "prs": [] if any(r.get("more") for r in note["prs"]) else note["prs"]}
             for note in p.notes(p.report["risk_notes"], BRIEF_REFS)]
    if not notes and not p.risks:
        return None
    noted = {n for note in p.report["risk_notes"] or [] if isinstance(note, dict) for n in note.get("prs") or []}
    noted |= {n for note in notes for n in _cited(note["text"])}
    every = {clean(r.get("kind")): list(r.get("prs") or []) for r in p.report["risks"]}
    # a kind no note covers: its first BRIEF_REFS PRs, then how many more ("…另 N 个")
    unnoted = [{**r, "prs": p.refs(every.get(r["kind"], []), BRIEF_REFS)} for r in p.risks
               if not _numbers(r["prs"]) <= noted or not r["prs"]]
    return {"notes": notes, "unnoted": unnoted}


def _summary(p: _Parts) -> Any:
    return [clean(para) for para in p.report["summary"].split("\n\n") if clean(para)]


def _key_changes(p: _Parts) -> Any:
    return [{"theme": clean(k.get("theme")), "text": clean(k.get("text")),
             "prs": p.refs([n for n in k.get("prs") or [] if n not in (cited := _cited(clean(k.get("text"))))]),
             "also": bool(cited)} for k in p.report["key_changes"]]


def _reviewers(stats: Any) -> list[dict[str, Any]]:
    raw = stats.get("reviewers") or []
    if isinstance(raw, dict):
        return [{"name": clean(k), "count": v} for k, v in raw.items()]
    rows = []
    for item in raw:
        if isinstance(item, dict):
            name = item.get("login") or item.get("name") or item.get("reviewer")
            rows.append({"name": clean(name), "count": item.get("count", item.get("reviews", item.get("prs")))})
        else:
            rows.append({"name": clean(item), "count": None})
    return rows


def _types(stats: Any, lang: str) -> list[dict[str, Any]]:
    """The PR types and their counts, each type as the report's language says it (zh: 修复, not fix)."""
    raw = stats.get("types") or {}
    pairs = raw.items() if isinstance(raw, dict) else \
        [(t.get("type") or t.get("name"), t.get("count")) for t in raw if isinstance(t, dict)]
    return [{"name": clean(type_label(str(k), lang)), "count": v} for k, v in pairs]


def _trends(p: _Parts) -> Any:
    """Trend notes, charts (where the rendering draws them), modules, hot files, reviewers and PR types."""
    stats = p.report["stats"]
    modules = [
        {"name": clean(m.get("name")), "pr_count": num(m.get("pr_count")),
         "baseline": num(m["baseline"]) if m.get("baseline") is not None else "",
         "delta": signed(m["delta"]) if m.get("delta") is not None else "",
         "trend": trend_label(clean(m.get("trend")), p.lang), "prs": p.refs(m.get("prs"))}
        for m in p.report["modules"]
    ]
    parts = {
        "notes": p.notes(p.report["trend_notes"]),
        "charts": charts.series(p.report) if p.with_charts else [],
        "modules": modules,
        "has_module_trend": any(m["baseline"] or m["delta"] or m["trend"] for m in modules),
        "hot_files": [{"path": clean(f.get("path")), "pr_count": num(f.get("pr_count")), "prs": p.refs(f.get("prs"))}
                      for f in p.report["hot_files"]],
        "reviewers": [] if p.report.get("reviews") else _reviewers(stats),  # the Reviews section has them then
        "types": _types(stats, p.lang),
    }
    return parts if any(v for k, v in parts.items() if k != "has_module_trend") else None


def _risks(p: _Parts) -> Any:
    return p.risks


def _hours_line(words: dict[str, str], key: str, figures: Any) -> list[str]:
    if not figures:
        return []
    return [words[key].format(median=num(figures["median_hours"]), slowest=num(figures["slowest_hours"]),
                              pr=num(figures["slowest_pr"]), n=num(figures["pr_count"]))]


def _timing_lines(words: dict[str, str], timing: Any) -> list[str]:
    """Time to first review and to merge, then the comparison periods' medians where their listing had them."""
    lines = [*_hours_line(words, "first_review_line", timing.get("first_review")),
             *_hours_line(words, "merge_line", timing.get("merge"))]
    if timing.get("before_pr_count"):
        lines.append(words["before_line"].format(first=num(timing.get("before_first_review_median_hours")) or "–",
                                                 merge=num(timing.get("before_merge_median_hours")) or "–",
                                                 n=num(timing["before_pr_count"])))
    return lines


def _reviews(p: _Parts) -> Any:
    """Who reviewed, what was left open at merge, what was merged without review, what was promised, how fast."""
    r: Any = p.report.get("reviews")
    if not r:
        return None
    words = p.words
    lines = [words["reviewed_share"].format(reviewed=num(r["reviewed_count"]), known=num(r["known_count"]))]
    if r["main_reviewers"]:
        lines.append(words["main_reviewers_line"].format(names=", ".join(clean(n) for n in r["main_reviewers"])))
    threads, follow_ups, reviewers = r["unresolved"], r["follow_ups"], r["reviewers"]

    def link(said: Any) -> str | None:  # a follow-up's PR may be an earlier week's, not in this report
        pr = p.prs.get(said["pr"]) or {"url": f"https://github.com/{p.report['repo']}/pull/{said['pr']}"}
        return comment_link(said["url"], pr.get("url"))

    return {
        "lines": lines,
        "reviewers": [{"name": clean(c["login"]), "prs": num(c["pr_count"]),
                       "changes_requested": num(c["changes_requested"])} for c in reviewers[:REVIEW_ROWS]],
        "reviewers_more": p.more(len(reviewers), REVIEW_ROWS),
        "threads": [{"pr": p.ref(t["pr"]), "where": clean(f"{t['path']}:{t['line']}" if t["line"] is not None
                                                            else t["path"]),
                     "text": clean(t["text"]), "author": clean(t["author"]), "url": link(t),
                     "outdated": words["outdated"] if t["outdated"] else ""} for t in threads[:REVIEW_ROWS]],
        "threads_more": p.more(len(threads), REVIEW_ROWS),
        "unknown": words["unknown_threads"].format(n=num(r["unknown_threads"])) if r["unknown_threads"] else "",
        "unreviewed": p.refs(r["unreviewed"], RISK_PRS),
        "self_merged": p.refs(r["self_merged"], RISK_PRS),
        "follow_ups": [{"pr": p.ref(f["pr"]), "text": clean(f["text"]), "author": clean(f["author"]),
                        "url": link(f),
                        "state": (words["follow_up_done"].format(n=num(f["done_by"])) if f["done_by"] is not None
                                  else words["follow_up_open"])} for f in follow_ups[:REVIEW_ROWS]],
        "follow_ups_more": p.more(len(follow_ups), REVIEW_ROWS),
        "timing": _timing_lines(words, r["timing"]),
    }


def _key_prs(p: _Parts) -> Any:
    """The key PRs by importance, at most KEY_PR_ROWS; a reverted one says so first in its points."""
    rows = []
    for pr in [pr for pr in p.report["prs"] if pr["key"]][:KEY_PR_ROWS]:
        if "points" in pr:  # what the brief says of it (engine.headline), in the report's language; never blank
            title, points, original = clean(pr.get("headline") or pr.get("title")), _texts(pr["points"]) or ["—"], \
                clean(pr.get("title"))  # the author's title: the web page's tooltip
        else:  # a report written before the brief: its title and description's points
            title, points, original = clean(pr.get("title")), _texts(pr.get("key_points"))[:KEY_POINTS], ""
            if isinstance(pr.get("reverted_by"), int):
                mark = p.words["reverted_by"].format(n=num(pr["reverted_by"]))
                points = [mark, *(points or _texts([pr.get("summary")]))][:KEY_POINTS + 1]
        rows.append({**p.ref(pr["number"]), "title": title, "original": original,
                     "modules": [clean(m) for m in pr.get("modules", [])], "importance": num(pr.get("importance")),
                     "insight": num(pr.get("insight")), "key_points": points,
                     "summary": clean(pr.get("summary")), "author": clean(pr.get("author")),
                     "breaking": bool(pr.get("breaking"))})
    return rows


def _key_prs_heading(p: _Parts) -> str:
    """"Key PRs", or "Key PRs (top 15 of 969)" when the table shows only the first rows, with where the rest are:
    the appendix's list, which Markdown and PDF stop at PR_INDEX_ROWS (the web page and report.json hold all)."""
    count = sum(1 for pr in p.report["prs"] if pr["key"])
    if count <= KEY_PR_ROWS:
        return p.words["key_prs"]
    listed = len(p.numbers) <= PR_INDEX_ROWS
    return p.words["key_prs_top" if listed else "key_prs_top_web"].format(shown=KEY_PR_ROWS, n=num(count))


def _pr_index(p: _Parts) -> Any:
    """Every merged PR by number, scored or not, each linked to its page (the scored) or to GitHub."""
    numbers = p.numbers
    if not numbers:
        return None
    return {"prs": [p.ref(n) for n in numbers], "shown": PR_INDEX_ROWS, "more": p.more(len(numbers), PR_INDEX_ROWS),
            "summary": p.words["all_prs_show"].format(n=num(len(numbers)))}


def _related(p: _Parts) -> Any:
    """Clusters, then the narrative's notes on how PRs relate, else the bare revert chains."""
    clusters, reverts = p.report["clusters"], p.report["reverts"]
    notes = p.notes(p.report["relation_notes"])
    parts = {
        "clusters": [{"title": clean(c.get("title")), "reason": clean(c.get("reason")), "prs": p.refs(c.get("prs"))}
                     for c in clusters[:RELATED_ROWS]],
        "relation_notes": notes,
        "reverts": [{"pr": p.ref(r.get("pr")), "reverts": p.ref(r.get("reverts")),
                     "relanded_by": p.ref(r["relanded_by"]) if r.get("relanded_by") is not None else None}
                    for r in reverts[:RELATED_ROWS]],
    }
    # The clusters and (when no note tells them) the revert chains past RELATED_ROWS: counted, in report.json.
    left = max(len(clusters) - RELATED_ROWS, 0) + (0 if notes else max(len(reverts) - RELATED_ROWS, 0))
    return {**parts, "more": p.more(left, 0)} if any(parts.values()) else None


def _suggestions(p: _Parts) -> Any:
    return _texts(p.report["suggestions"])


def _unscored(p: _Parts) -> Any:
    items = p.report["unscored"]
    if not items:
        return None
    return {"rows": [{**p.ref(u.get("number")), "title": clean(u.get("title")), "reason": clean(u.get("reason"))}
                     for u in items[:UNSCORED_ROWS]], "more": p.more(len(items), UNSCORED_ROWS)}


def _run_notes(p: _Parts) -> Any:
    return p.notes(p.report["notes"])


# (id, heading label, kind, builder) in reading order. The brief comes first: what a maintainer reads in five
# minutes (highlights by theme, risks at a glance, the summary, key changes, the key PRs, follow-ups, and what the
# run could not score). Everything else sits under one appendix heading (附录 / Appendix), folded on the web page.
BRIEF: list[tuple[str, str, str, Callable[[_Parts], Any]]] = [
    ("highlights", "highlights", "notes", _highlights),
    ("risks-brief", "risks_brief", "risk_brief", _risk_brief),
    ("summary", "summary", "paragraphs", _summary),
    ("key-changes", "key_changes", "key_changes", _key_changes),
    ("key-prs", "key_prs", "key_prs", _key_prs),
    ("suggestions", "suggestions", "numbered", _suggestions),
    ("unscored", "unscored", "unscored", _unscored),
    ("notes", "notes", "notes", _run_notes),
]
APPENDIX: list[tuple[str, str, str, Callable[[_Parts], Any]]] = [
    ("trends", "trends", "trends", _trends),
    ("reviews", "review_section", "reviews", _reviews),
    ("risks", "risks", "risks", _risks),
    ("related", "related", "related", _related),
    ("all-prs", "all_prs", "pr_index", _pr_index),
]


def _sections(parts: _Parts, table: list[tuple[str, str, str, Callable[[_Parts], Any]]]) -> list[Section]:
    out = []
    for sid, label, kind, build in table:
        data = build(parts)
        if data:
            heading = _key_prs_heading(parts) if sid == "key-prs" else parts.words[label]
            out.append(Section(sid, heading, kind, data))
    return out


def scorer_text(report: Report) -> str:
    """How the report was generated, e.g. "大模型 gpt-4o-mini (prompt v3)"."""
    scorer = report["scorer"]
    words = labels(report["language"])
    kind = scorer["kind"] or "heuristic"
    parts = [words.get(f"scorer_{kind}", clean(kind))]
    if scorer["model"]:
        parts.append(clean(scorer["model"]))
    if scorer["prompt_version"]:
        parts.append(f"({clean(scorer['prompt_version'])})")
    if scorer.get("tokens_in") or scorer.get("tokens_out"):
        parts.append(words["run_tokens"].format(tokens_in=num(scorer.get("tokens_in", 0)),
                                                tokens_out=num(scorer.get("tokens_out", 0))))
    cost: Any = scorer.get("cost") or {}
    if isinstance(cost.get("usd"), int | float):  # the model's cost, with the date of its price table
        as_of = words["prices_as_of"].format(date=clean(str(cost.get("prices_as_of", ""))))
        parts.append(f"· ≈ {usd(cost['usd'])} ({as_of})")
    return " ".join(parts)


def _newcomer_label(stats: Stats, words: dict[str, str]) -> str:
    """"New contributors", or "not seen in the N weeks before" when the history reached back only N weeks."""
    window = stats["new_contributors_window"]
    if isinstance(window, int) and not isinstance(window, bool) and window > 0:
        return words["new_contributors_window"].format(n=window)
    return words["new_contributors"]


def _bots_line(stats: Stats, words: dict[str, str]) -> str:
    """"Bots: 3 PRs (dependabot[bot], renovate[bot])", or "" when no bot merged anything."""
    bots = stats.get("bots")
    if not bots or not bots["prs"]:
        return ""
    logins = ", ".join(clean(b) for b in bots["logins"])
    return prs_counted(words["bots_line"].format(n=num(bots["prs"]), logins=logins))


def _newcomers(stats: Stats, words: dict[str, str]) -> list[str]:
    """The new contributors' logins; past NEWCOMERS_SHOWN, those and "and N more" (a year has hundreds)."""
    names = [clean(a) for a in stats["new_contributors"]]
    if len(names) <= NEWCOMERS_SHOWN:
        return names
    return [*names[:NEWCOMERS_SHOWN], words["and_more"].format(n=num(len(names) - NEWCOMERS_SHOWN))]


@dataclass(frozen=True)
class HeaderStats:
    """The header's numbers, formatted (common.num), and its lines on new contributors and bots."""
    pr_count: str
    key_pr_count: str
    avg_importance: str
    avg_insight: str
    additions: str
    deletions: str
    authors: str
    new_contributors: list[str]  # logins, then "and N more" past NEWCOMERS_SHOWN
    new_contributors_label: str
    bots: str  # "" when no bot merged anything


class TemplateView:
    """A page's view that its templates read: its fields are the templates' variables."""

    def context(self) -> dict[str, Any]:
        """The fields as a template's variables (shallow: nested views and sections stay objects)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


def dates(period: Mapping[str, Any], lang: str, words: dict[str, str]) -> str:
    """The period's dates as the header says them: Chinese dates in zh ("2026 年 5 月 4 日至 5 月 10 日"), else
    "2026-05-04 to 2026-05-10"."""
    since, until = clean(period["since"]), clean(period["until"])
    if lang == "zh":
        try:
            return zh_dates(date.fromisoformat(since), date.fromisoformat(until))
        except ValueError:
            pass
    return f"{since} {words['to']} {until}"


# Chinese readers name China's one time zone by its city, not by its IANA key.
ZONE_NAMES = {"zh": dict.fromkeys(("Asia/Shanghai", "Asia/Chongqing", "Asia/Harbin", "Asia/Urumqi", "PRC"),
                                  "北京时间")}


def zone_name(tz: Any, lang: str) -> str:
    """A time zone as a reader of `lang` names it ("北京时间" in zh for Asia/Shanghai, else the IANA name)."""
    name = clean(tz)
    return ZONE_NAMES.get(lang, {}).get(name, name)


@dataclass(frozen=True)
class ReportView(TemplateView):
    """A report as its renderings read it: the header's fields, then its non-empty sections in reading order."""
    words: dict[str, str]  # the report language's labels (prhub.site.render.labels)
    links: dict[int, str]  # PR number -> URL, for "#N" in narrative text
    lang: str
    html_lang: str
    title: str
    repo: str
    repo_url: str | None
    since: str
    until: str
    dates: str  # since to until, as the language writes dates
    tz: str
    generated_at: str
    scorer: str
    stats: HeaderStats
    sections: list[Section]  # the brief
    appendix: list[Section]  # under one heading after the brief: tables, details, every PR


def _header_stats(stats: Stats, words: dict[str, str]) -> HeaderStats:
    scored = stats["pr_count"] - (stats.get("unscored_count") or 0) > 0
    return HeaderStats(
        pr_count=num(stats["pr_count"]), key_pr_count=num(stats["key_pr_count"]),
        # no PR scored, no average: "—", not 0.0
        avg_importance=num(stats["avg_importance"]) if scored else "—",
        avg_insight=num(stats["avg_insight"]) if scored else "—",
        additions=num(stats["additions"]), deletions=num(stats["deletions"]), authors=num(stats["authors"]),
        new_contributors=_newcomers(stats, words), new_contributors_label=_newcomer_label(stats, words),
        bots=_bots_line(stats, words))


def view(report: Report, with_charts: bool = True, pull_links: tuple[str, str] | None = None) -> ReportView:
    """The header fields and the report's non-empty `sections` in reading order, as the renderings read them.

    `with_charts`: the rendering draws charts (Markdown does not, so a section of charts alone is left out).
    `pull_links`: (path to the pull/ folder, language folder) when PR numbers link to the site's PR pages
    (the web page); without it they link to GitHub (Markdown, PDF, which travel without the site).
    """
    lang = report["language"]
    parts = _Parts(report, with_charts, pull_links)
    period = report["period"]
    # A slice is named by its name too, as its title and its pages are (prhub.site.paths.display).
    name = sitepaths.slice_name(report)
    return ReportView(
        words=parts.words,
        links={n: url for n in parts.prs if isinstance(n, int) and (url := parts.url(n))},
        lang=lang, html_lang="zh-CN" if lang == "zh" else "en",
        title=clean(report["title"]),
        repo=clean(f"{report['repo']} ({name})" if name else report["repo"]),
        repo_url=safe_url(f"https://github.com/{report['repo']}"),
        since=clean(period["since"]), until=clean(period["until"]), tz=zone_name(period["tz"], lang),
        dates=dates(period, lang, parts.words),
        generated_at=clean(report["generated_at"]),
        scorer=scorer_text(report),
        stats=_header_stats(report["stats"], parts.words),
        sections=_sections(parts, BRIEF),
        appendix=_sections(parts, APPENDIX),
    )
