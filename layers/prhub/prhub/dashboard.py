"""A repository's dashboard: its weeks summed from the reports published for it (their report.json files).

Contract: build(reports, lang) -> dict, where `reports` is site.published's list of
(slug, language folder, report.json). Each period counts once (its version in
`lang` when there is one); each PR once, in the ISO week of its merge in the
report's time zone. Weeks without a published report have no data and are shown
as such, never as zero: the page says how many weeks of each window have one.
"""
from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from prhub.render import charts
from prhub.render.common import clean, num
from prhub.render.labels import labels

WINDOWS = (12, 52)
QUARTER = 13  # weeks
TOP_MODULES, TOP_FILES, TOP_AUTHORS = 8, 10, 10
MERGED, BREAKING, REVERT, KEY = "#3b6fb6", "#b35900", "#7a4fb5", "#d9822b"


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _merge_day(merged_at: str, tz: str) -> date | None:
    try:
        when = datetime.fromisoformat(merged_at.replace("Z", "+00:00"))
        return when.astimezone(ZoneInfo(tz or "UTC")).date()
    except (ValueError, KeyError):
        return None


def _one_per_period(reports: list[tuple[str, str, dict[str, Any]]], lang: str) -> list[dict[str, Any]]:
    chosen: dict[str, dict[str, Any]] = {}
    for slug, _, report in sorted(reports, key=lambda r: r[1]):
        if slug not in chosen or report.get("language") == lang:
            chosen[slug] = report
    return [chosen[s] for s in sorted(chosen)]


def _weeks_covered(report: dict[str, Any]) -> set[date]:
    period = report.get("period") or {}
    try:
        since, until = date.fromisoformat(period["since"]), date.fromisoformat(period["until"])
    except (KeyError, ValueError):
        return set()
    return {_monday(since + timedelta(days=d)) for d in range((until - since).days + 1)}


def build(reports: list[tuple[str, str, dict[str, Any]]], lang: str) -> dict[str, Any] | None:
    """The dashboard's charts, hot files and contributors in `lang`; None without a report."""
    docs = _one_per_period(reports, lang)
    if not docs:
        return None
    L = labels(lang)
    covered: set[date] = set()
    prs: dict[int, tuple[date, dict[str, Any]]] = {}
    reverts: set[int] = set()
    for doc in docs:
        covered |= _weeks_covered(doc)
        tz = (doc.get("period") or {}).get("tz", "UTC")
        reverts |= {r["pr"] for r in doc.get("reverts", []) if isinstance(r.get("pr"), int)}
        for pr in doc.get("prs", []):
            day = _merge_day(str(pr.get("merged_at") or ""), tz)
            if day is not None and isinstance(pr.get("number"), int):
                prs.setdefault(pr["number"], (day, pr))
    last = max(covered)
    windows = []
    for n in WINDOWS:
        weeks = [last - timedelta(weeks=n - 1 - i) for i in range(n)]
        windows.append(_window(n, weeks, covered, prs, reverts, L))
    quarter = {last - timedelta(weeks=i) for i in range(QUARTER)}
    return {"windows": windows,
            "hot_files": _hot_files(docs, quarter), **_contributors(docs, prs, set(windows[-1]["week_set"]))}


def _window(n: int, weeks: list[date], covered: set[date], prs: dict[int, tuple[date, dict[str, Any]]],
            reverts: set[int], L: dict[str, str]) -> dict[str, Any]:
    in_week: dict[date, list[dict[str, Any]]] = {w: [] for w in weeks}
    for number, (day, pr) in prs.items():
        week = _monday(day)
        if week in in_week:
            in_week[week].append({**pr, "_revert": number in reverts})
    have = [w for w in weeks if w in covered]
    label = [f"{w:%m-%d}" for w in weeks]
    merged: list[float] = [len(in_week[w]) for w in weeks]
    breaking: list[float] = [sum(1 for p in in_week[w] if p.get("breaking")) for w in weeks]
    revert_n: list[float] = [sum(1 for p in in_week[w] if p["_revert"]) for w in weeks]
    key: list[float] = [sum(1 for p in in_week[w] if p.get("key")) for w in weeks]
    imps = [[float(p["importance"]) for p in in_week[w] if isinstance(p.get("importance"), int | float)] for w in weeks]
    avg = [round(sum(v) / len(v), 1) if v else 0.0 for v in imps]
    modules: Counter[str] = Counter(clean(m) for w in weeks for p in in_week[w] for m in set(p.get("modules") or []))
    total = sum(merged)
    shares = modules.most_common(TOP_MODULES)
    rows = [{"week": f"{w:%Y-%m-%d}", "covered": w in covered, "merged": merged[i], "breaking": breaking[i],
             "reverts": revert_n[i], "key": key[i], "avg_importance": num(avg[i]) if imps[i] else ""}
            for i, w in enumerate(weeks)]
    title = L[f"weeks_{n}"]
    return {
        "n": n, "title": title, "have": len(have), "week_set": [w.isoformat() for w in weeks],
        "note": L["dashboard_source"].format(have=len(have), covered=n),
        "charts": [
            charts.Columns(f"merged-{n}", L["chart_merged"], label, [(L["pr_count"], MERGED, merged)]),
            charts.Columns(f"breaking-{n}", L["chart_breaking_reverts"], label,
                           [(L["breaking_changes"], BREAKING, breaking), (L["reverts"], REVERT, revert_n)]),
            charts.Columns(f"key-{n}", L["chart_key_importance"], label,
                           [(L["key_pr_count"], KEY, key), (L["avg_importance"], MERGED, avg)]),
        ],
        "modules": charts.Series(f"modules-{n}", L["chart_module_share"], [m for m, _ in shares],
                                 [round(100 * c / total, 1) if total else 0.0 for _, c in shares], True)
        if shares else None,
        "module_rows": [{"name": m, "count": c, "share": f"{num(round(100 * c / total, 1))} %"} for m, c in shares],
        "rows": rows,
    }


def _hot_files(docs: list[dict[str, Any]], quarter: set[date]) -> list[dict[str, Any]]:
    users: dict[str, set[int]] = {}
    for doc in docs:
        if not _weeks_covered(doc) & quarter:
            continue
        for f in doc.get("hot_files", []):
            users.setdefault(clean(f.get("path")), set()).update(n for n in f.get("prs", []) if isinstance(n, int))
    top = sorted(users.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:TOP_FILES]
    return [{"path": path, "pr_count": len(prs), "prs": sorted(prs)} for path, prs in top]


def _contributors(docs: list[dict[str, Any]], prs: dict[int, tuple[date, dict[str, Any]]],
                  window: set[str]) -> dict[str, Any]:
    # Bots are counted apart in each report (stats.bots), never among the people: as each report judged them.
    bots = {clean(b).lower() for doc in docs for b in ((doc.get("stats") or {}).get("bots") or {}).get("logins", [])}

    def person(login: str) -> bool:
        return bool(login) and login.lower() not in bots and not login.lower().endswith("[bot]")

    in_window = [(day, pr) for day, pr in prs.values() if _monday(day).isoformat() in window]
    active = Counter(clean(pr.get("author")) for _, pr in in_window if person(clean(pr.get("author"))))
    first: dict[str, date] = {}
    for day, pr in prs.values():
        author = clean(pr.get("author"))
        if author and (author not in first or day < first[author]):
            first[author] = day
    newcomers = {clean(a) for doc in docs for a in (doc.get("stats") or {}).get("new_contributors", [])
                 if person(clean(a))}
    return {
        "most_active": [{"name": a, "count": c} for a, c in active.most_common(TOP_AUTHORS)],
        "newcomers": sorted(({"name": a, "first": first[a].isoformat()} for a in newcomers if a in first),
                            key=lambda r: (r["first"], r["name"]), reverse=True),
    }
