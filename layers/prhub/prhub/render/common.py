"""What every rendering shares: text cleaning, link checks, number formatting and the report's view.

The Markdown, HTML and PDF renderings all read `view(report)`, so they show the
same sections, in the same order, with the same numbers (formatted by `num`).
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import quote, urlsplit

from prhub import narrative
from prhub.period import Period
from prhub.render.labels import labels, risk_label, trend_label

# Controls (NUL, escapes), bidi overrides/isolates and zero-width characters: untrusted
# text could use them to hide or reorder what a reader sees, so they never reach a page.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)
_SPACES = re.compile(r"\s+")
# Key points shown per PR in the key-PR table: a row of five long bullets buried the table (report.json keeps all).
KEY_POINTS = 3


def clean(value: Any) -> str:
    """Untrusted text made safe to lay out: invisible/control characters removed, whitespace folded."""
    text = unicodedata.normalize("NFC", "" if value is None else str(value))
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()


def safe_url(value: Any) -> str | None:
    """An http(s) URL with unsafe characters percent-encoded, or None for anything else."""
    if not isinstance(value, str):
        return None
    url = _INVISIBLE.sub("", value).strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    # Quote what could end a Markdown link destination or an HTML attribute early.
    return quote(url, safe=":/?#@!$&'*+,;=%~-._[]")


# "#123" in narrative text: a PR reference, unless part of a word or an entity such as "&#123;".
_PR_REF = re.compile(r"(?<![&\w])#(\d{1,7})\b")


def segments(text: str, links: dict[int, str]) -> list[tuple[str, str | None]]:
    """`text` cut around "#N" references to PRs the data has URLs for: [(text, url or None)]."""
    out: list[tuple[str, str | None]] = []
    last = 0
    for match in _PR_REF.finditer(text):
        url = links.get(int(match.group(1)))
        if url:
            if match.start() > last:
                out.append((text[last:match.start()], None))
            out.append((match.group(0), url))
            last = match.end()
    if last < len(text):
        out.append((text[last:], None))
    return out


def num(value: Any) -> str:
    """One formatting of numbers for every rendering (floats with one decimal when exact)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.1f}"
        return text if float(text) == value else repr(value)
    return clean(value)


def signed(value: Any) -> str:
    """A change with its sign (+2, -1.5, 0)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return "+" + num(value)
    return num(value)


def _ref(number: Any, prs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    pr = prs.get(number) if isinstance(number, int) else None
    return {"number": number, "label": f"#{num(number)}", "url": safe_url(pr.get("url")) if pr else None,
            "title": clean(pr.get("title")) if pr else ""}


def _cited(text: str) -> set[int]:
    return {int(m.group(1)) for m in _PR_REF.finditer(text)}


def _texts(items: Any) -> list[str]:
    out = []
    for item in items or []:
        text = item.get("text") if isinstance(item, dict) else item
        if clean(text):
            out.append(clean(text))
    return out


def _reviewers(stats: dict[str, Any]) -> list[dict[str, Any]]:
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


def _types(stats: dict[str, Any]) -> list[dict[str, Any]]:
    raw = stats.get("types") or {}
    if isinstance(raw, dict):
        return [{"name": clean(k), "count": v} for k, v in raw.items()]
    return [{"name": clean(t.get("type") or t.get("name")), "count": t.get("count")}
            for t in raw if isinstance(t, dict)]


def scorer_text(report: dict[str, Any]) -> str:
    """How the report was generated, e.g. "大模型 gpt-4o-mini (prompt v3)"."""
    scorer = report.get("scorer") or {}
    words = labels(report.get("language", "zh"))
    kind = scorer.get("kind") or "heuristic"
    parts = [words.get(f"scorer_{kind}", clean(kind))]
    if scorer.get("model"):
        parts.append(clean(scorer["model"]))
    if scorer.get("prompt_version"):
        parts.append(f"({clean(scorer['prompt_version'])})")
    if scorer.get("tokens_in") or scorer.get("tokens_out"):
        parts.append(f"· tokens {num(scorer.get('tokens_in', 0))} in / {num(scorer.get('tokens_out', 0))} out")
    return " ".join(parts)


def _newcomer_label(stats: dict[str, Any], words: dict[str, str]) -> str:
    """"New contributors", or "first seen in the last N weeks" when the history reached back only N weeks."""
    window = stats.get("new_contributors_window")
    if isinstance(window, int) and not isinstance(window, bool) and window > 0:
        return words["new_contributors_window"].format(n=window)
    return words["new_contributors"]


def _title(report: dict[str, Any]) -> str:
    period = Period.from_dict(report["period"])
    return narrative.title(clean(report.get("repo")), period, report.get("language", "zh"))


def view(report: dict[str, Any]) -> dict[str, Any]:
    """The report as the templates see it: cleaned text, checked links, only non-empty sections."""
    lang = report.get("language", "zh")
    words = labels(lang)
    prs_by_number = {p["number"]: p for p in report.get("prs", []) if isinstance(p, dict) and "number" in p}
    for item in report.get("unscored", []):
        prs_by_number.setdefault(item.get("number"), item)

    def refs(numbers: Any) -> list[dict[str, Any]]:
        return [_ref(n, prs_by_number) for n in (numbers or [])]

    def notes(items: Any) -> list[dict[str, Any]]:
        """Narrative items {text, prs}; `prs` keeps only the PRs the text does not already cite as "#N"."""
        out: list[dict[str, Any]] = []
        for item in items or []:
            text = clean(item.get("text") if isinstance(item, dict) else item)
            if not text:
                continue
            numbers = item.get("prs") if isinstance(item, dict) else []
            cited = _cited(text)
            out.append({"text": text, "prs": refs([n for n in numbers or [] if n not in cited])})
        return out

    stats = report.get("stats") or {}
    period = report.get("period") or {}
    key_prs = [
        {**_ref(p["number"], prs_by_number), "title": clean(p.get("title")),
         "modules": [clean(m) for m in p.get("modules", [])], "importance": num(p.get("importance")),
         "insight": num(p.get("insight")), "key_points": _texts(p.get("key_points"))[:KEY_POINTS],
         "summary": clean(p.get("summary")), "author": clean(p.get("author")), "breaking": bool(p.get("breaking"))}
        for p in report.get("prs", []) if p.get("key")
    ]
    risks: list[dict[str, Any]] = [
        {"kind": clean(r.get("kind")), "label": risk_label(clean(r.get("kind")), lang),
         "detail": clean(r.get("detail")), "prs": refs(r.get("prs")),
         "items": [{"pr": _ref(i.get("pr"), prs_by_number), "detail": clean(i.get("detail"))}
                   for i in r.get("items") or [] if isinstance(i, dict)]}
        for r in report.get("risks", [])
    ]
    modules = [
        {"name": clean(m.get("name")), "pr_count": num(m.get("pr_count")),
         "baseline": num(m["baseline"]) if m.get("baseline") is not None else "",
         "delta": signed(m["delta"]) if m.get("delta") is not None else "",
         "trend": trend_label(clean(m.get("trend")), lang), "prs": refs(m.get("prs"))}
        for m in report.get("modules", [])
    ]
    reverts = [
        {"pr": _ref(r.get("pr"), prs_by_number), "reverts": _ref(r.get("reverts"), prs_by_number),
         "relanded_by": _ref(r["relanded_by"], prs_by_number) if r.get("relanded_by") is not None else None}
        for r in report.get("reverts", [])
    ]
    risk_notes = notes(report.get("risk_notes"))
    # Risk kinds whose PRs no observation mentions still get a line in the brief, so it misses no kind.
    noted = {n for note in risk_notes for n in _cited(note["text"]) | {r["number"] for r in note["prs"]}}
    unnoted = [r for r in risks if not {ref["number"] for ref in r["prs"]} <= noted or not r["prs"]]
    page_url = safe_url(report.get("page_url")) or "index.html"
    return {
        "L": words,
        "links": {n: url for n, pr in prs_by_number.items() if isinstance(n, int) and (url := safe_url(pr.get("url")))},
        "lang": lang,
        "html_lang": "zh-CN" if lang == "zh" else "en",
        "title": clean(report.get("title")) or _title(report),
        "repo": clean(report.get("repo")),
        "repo_url": safe_url(f"https://github.com/{report.get('repo', '')}"),
        "since": clean(period.get("since")),
        "until": clean(period.get("until")),
        "tz": clean(period.get("tz")),
        "generated_at": clean(report.get("generated_at")),
        "scorer": scorer_text(report),
        "page_url": page_url,
        "stats": {
            "pr_count": num(stats.get("pr_count", 0)),
            "key_pr_count": num(stats.get("key_pr_count", 0)),
            "avg_importance": num(stats.get("avg_importance", 0.0)),
            "avg_insight": num(stats.get("avg_insight", 0.0)),
            "additions": num(stats.get("additions", 0)),
            "deletions": num(stats.get("deletions", 0)),
            "authors": num(stats.get("authors", 0)),
            "new_contributors": [clean(a) for a in stats.get("new_contributors", [])],
            "new_contributors_label": _newcomer_label(stats, words),
        },
        "highlights": notes(report.get("highlights")),
        "risk_notes": risk_notes,
        "risks_unnoted": unnoted,
        "trend_notes": notes(report.get("trend_notes")),
        "relation_notes": notes(report.get("relation_notes")),
        "risks": risks,
        "summary": [clean(p) for p in str(report.get("summary") or "").split("\n\n") if clean(p)],
        "key_changes": [{"theme": clean(k.get("theme")), "text": clean(k.get("text")),
                         "prs": refs([n for n in k.get("prs") or [] if n not in _cited(clean(k.get("text")))])}
                        for k in report.get("key_changes", [])],
        "modules": modules,
        "has_module_trend": any(m["baseline"] or m["delta"] or m["trend"] for m in modules),
        "hot_files": [{"path": clean(f.get("path")), "pr_count": num(f.get("pr_count")), "prs": refs(f.get("prs"))}
                      for f in report.get("hot_files", [])],
        "reviewers": _reviewers(stats),
        "types": _types(stats),
        "key_prs": key_prs,
        "clusters": [{"title": clean(c.get("title")), "reason": clean(c.get("reason")), "prs": refs(c.get("prs"))}
                     for c in report.get("clusters", [])],
        "reverts": reverts,
        "suggestions": _texts(report.get("suggestions")),
        "unscored": [{**_ref(u.get("number"), prs_by_number), "title": clean(u.get("title")),
                      "reason": clean(u.get("reason"))} for u in report.get("unscored", [])],
        "notes": _texts(report.get("notes")),
    }
