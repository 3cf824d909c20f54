"""A repository's dashboard: its weeks from the repository's record, its published reports for what only they know.

Contract: build(reports, lang, records=None) -> dict | None, where `reports` is site.published's list of
(slug, language folder, report.json) and `records` site.pull_records' slug -> pulls.json;
unlisted(records, own, reach=None) -> (first, last) | None: the days a run lists so that the 52 weeks are known
(prhub.flow.pages.year lists them from the run's source when it writes the period's pulls.json).

Two sources, and the page says which chart reads which:

- the repository's history (merged PRs per week, module shares, breaking changes and reverts, contributors):
  every PR the runs have seen from their source, each run's period and the comparison periods before it that
  its source listed (pulls.json `earlier`, `covers`; the first run also lists the weeks of the year no record
  covered), plus the reported PRs. A week counts as known when every
  day of it lies in a span some run's source covered completely; other weeks are shown as "no data", never
  as zero. PRs known only from a history listing are judged by their title: breaking when it declares it
  (`[BREAKING]`, `feat!:`), a revert when it is one;
- the published reports (key PRs, average importance): only for the weeks a report covers, labelled so.

Each period's report counts once (its version in `lang` when there is one); each PR once, in the ISO week of
its merge in its record's time zone.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from prhub.site.render import charts
from prhub.site.render.common import clean, num
from prhub.site.render.labels import labels

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


def _days(since: str, until: str) -> set[date]:
    """The days from since to until, both inclusive (ISO dates); none when either is not a date."""
    try:
        first, last = date.fromisoformat(since), date.fromisoformat(until)
    except (TypeError, ValueError):
        return set()
    return {first + timedelta(days=d) for d in range((last - first).days + 1)}


def _one_per_period(reports: list[tuple[str, str, dict[str, Any]]], lang: str) -> list[dict[str, Any]]:
    chosen: dict[str, dict[str, Any]] = {}
    for slug, _, report in sorted(reports, key=lambda r: r[1]):
        if slug not in chosen or report.get("language") == lang:
            chosen[slug] = report
    return [chosen[s] for s in sorted(chosen)]


def _full_weeks(days: set[date]) -> set[date]:
    """The Mondays of the weeks every day of which is in `days`."""
    return {m for m in {_monday(d) for d in days} if all(m + timedelta(days=i) in days for i in range(7))}


class _Record:
    """The repository's history as the runs' sources gave it: one entry per PR, the days known in full."""

    def __init__(self) -> None:
        self.prs: dict[int, tuple[date, dict[str, Any]]] = {}  # number -> (merge day, entry)
        self.days: set[date] = set()

    def add(self, entries: Iterable[Mapping[str, Any]], tz: str, override: bool) -> None:
        for e in entries:
            number, day = e.get("number"), _merge_day(str(e.get("merged_at") or ""), tz)
            if isinstance(number, int) and day is not None and (override or number not in self.prs):
                self.prs[number] = (day, dict(e))


def _record(docs: list[dict[str, Any]], records: Mapping[str, Mapping[str, Any]]) -> _Record:
    rec = _Record()
    for _, doc in sorted(records.items()):
        tz = str((doc.get("covers") or {}).get("tz") or "UTC")
        rec.add(doc.get("earlier") or [], tz, override=False)
        rec.add(({**e, "number": int(n)} for n, e in (doc.get("prs") or {}).items() if "author" in e), tz, True)
        covers = doc.get("covers") or {}
        rec.days |= _days(str(covers.get("since")), str(covers.get("until")))
    for doc in docs:  # the reported PRs are authoritative: the scorer judged them, not their title
        period = doc.get("period") or {}
        reverts = {r["pr"] for r in doc.get("reverts", []) if isinstance(r.get("pr"), int)}
        rec.add(({**p, "revert": p.get("number") in reverts} for p in doc.get("prs", [])),
                str(period.get("tz") or "UTC"), override=True)
        rec.days |= _days(str(period.get("since")), str(period.get("until")))
    return rec


def build(reports: list[tuple[str, str, dict[str, Any]]], lang: str,
          records: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """The dashboard's charts, hot files and contributors in `lang`; None without a report."""
    docs = _one_per_period(reports, lang)
    if not docs:
        return None
    L = labels(lang)
    rec = _record(docs, records or {})
    reported = _full_weeks(set().union(*(_days(str((d.get("period") or {}).get("since")),
                                                str((d.get("period") or {}).get("until"))) for d in docs)))
    known = _full_weeks(rec.days) | reported
    scored = {n for d in docs for p in d.get("prs", []) if isinstance(n := p.get("number"), int)}
    last = max(known | {_monday(max(rec.days))} if rec.days else known)
    windows = []
    for n in WINDOWS:
        weeks = [last - timedelta(weeks=n - 1 - i) for i in range(n)]
        windows.append(_window(n, weeks, known, reported, rec, scored, L))
    quarter = {last - timedelta(weeks=i) for i in range(QUARTER)}
    return {"windows": windows, "hot_files": _hot_files(docs, quarter),
            **_contributors(docs, rec, set(windows[-1]["week_set"]))}


def _window(n: int, weeks: list[date], known: set[date], reported: set[date], rec: _Record, scored: set[int],
            L: dict[str, str]) -> dict[str, Any]:
    in_week: dict[date, list[dict[str, Any]]] = {w: [] for w in weeks}
    for number, (day, pr) in rec.prs.items():
        week = _monday(day)
        if week in in_week:
            in_week[week].append({**pr, "_scored": number in scored})
    label = [f"{w:%m-%d}" for w in weeks]
    have = [w in known for w in weeks]
    # A week known only in part (a record starting mid-week) draws nothing: a part would read as the whole.
    merged: list[float] = [len(in_week[w]) if w in known else 0 for w in weeks]
    breaking: list[float] = [sum(1 for p in in_week[w] if p.get("breaking")) if w in known else 0 for w in weeks]
    revert_n: list[float] = [sum(1 for p in in_week[w] if p.get("revert")) if w in known else 0 for w in weeks]
    # Key PRs and importance only a scorer knows: the weeks with a published report.
    key: list[float] = [sum(1 for p in in_week[w] if p["_scored"] and p.get("key")) for w in weeks]
    imps = [[float(p["importance"]) for p in in_week[w]
             if p["_scored"] and isinstance(p.get("importance"), int | float)] for w in weeks]
    avg = [round(sum(v) / len(v), 1) if v else 0.0 for v in imps]
    modules: Counter[str] = Counter(clean(m) for w in weeks if w in known for p in in_week[w]
                                    for m in set(p.get("modules") or []))
    total = sum(modules.values())
    shares = modules.most_common(TOP_MODULES)
    in_reports = [w in reported for w in weeks]
    rows = [{"week": f"{w:%Y-%m-%d}", "covered": have[i], "reported": in_reports[i], "merged": merged[i],
             "breaking": breaking[i], "reverts": revert_n[i], "key": key[i] if in_reports[i] else "–",
             "avg_importance": (num(avg[i]) if imps[i] else "") if in_reports[i] else "–"}
            for i, w in enumerate(weeks)]
    return {
        "n": n, "title": L[f"weeks_{n}"], "have": sum(have), "reported": sum(in_reports),
        "week_set": [w.isoformat() for w in weeks],
        "note": L["dashboard_source"].format(have=sum(have), reported=sum(in_reports), covered=n),
        "charts": [
            charts.Columns(f"merged-{n}", L["chart_merged"], label, [(L["pr_count"], MERGED, merged)], have),
            charts.Columns(f"breaking-{n}", L["chart_breaking_reverts"], label,
                           [(L["breaking_changes"], BREAKING, breaking), (L["reverts"], REVERT, revert_n)], have),
            charts.Columns(f"key-{n}", L["chart_key_importance"], label,
                           [(L["key_pr_count"], KEY, key), (L["avg_importance"], MERGED, avg)], in_reports),
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
        period = doc.get("period") or {}
        if not {_monday(d) for d in _days(str(period.get("since")), str(period.get("until")))} & quarter:
            continue
        for f in doc.get("hot_files", []):
            users.setdefault(clean(f.get("path")), set()).update(n for n in f.get("prs", []) if isinstance(n, int))
    top = sorted(users.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:TOP_FILES]
    return [{"path": path, "pr_count": len(prs), "prs": sorted(prs)} for path, prs in top]


def _contributors(docs: list[dict[str, Any]], rec: _Record, window: set[str]) -> dict[str, Any]:
    # Bots are counted apart in each report (stats.bots), never among the people: as each report judged them.
    bots = {clean(b).lower() for doc in docs for b in ((doc.get("stats") or {}).get("bots") or {}).get("logins", [])}

    def person(login: str) -> bool:
        return bool(login) and login.lower() not in bots and not login.lower().endswith("[bot]")

    in_window = [(day, pr) for day, pr in rec.prs.values() if _monday(day).isoformat() in window]
    active = Counter(clean(pr.get("author")) for _, pr in in_window if person(clean(pr.get("author"))))
    first: dict[str, date] = {}
    for day, pr in rec.prs.values():
        author = clean(pr.get("author"))
        if author and (author not in first or day < first[author]):
            first[author] = day
    # "New" is the reports' judgement, against the source's whole record (History.first_merged).
    newcomers = {clean(a) for doc in docs for a in (doc.get("stats") or {}).get("new_contributors", [])
                 if person(clean(a))}
    return {
        "most_active": [{"name": a, "count": c} for a, c in active.most_common(TOP_AUTHORS)],
        "newcomers": sorted(({"name": a, "first": first[a].isoformat()} for a in newcomers if a in first),
                            key=lambda r: (r["first"], r["name"]), reverse=True),
    }


def unlisted(records: Iterable[Mapping[str, Any]], own: Mapping[str, Any], reach: date | None = None
             ) -> tuple[date, date] | None:
    """The days (first, last) a run whose record covers `own` ({since, until}) should list so that the 52-week
    window (ending on the last day a record covers) is known: the days no record covers, from `reach` (the first
    day the source sees) on, as one span that meets `own`, so the run's record stays one span. None when no day
    is missing."""
    covered = _days(str(own.get("since")), str(own.get("until")))
    since, until = min(covered, default=None), max(covered, default=None)
    if since is None or until is None:
        return None
    for doc in records:
        covers = doc.get("covers") or {}
        covered |= _days(str(covers.get("since")), str(covers.get("until")))
    last = max(covered)
    start = max(_monday(last) - timedelta(weeks=max(WINDOWS) - 1), reach or date.min)
    missing = [day for day in (start + timedelta(days=d) for d in range((last - start).days + 1))
               if day not in covered]
    if not missing:
        return None
    first, final = missing[0], missing[-1]
    # Covered days between a gap and the run's own span are listed again: one listing, one span.
    if final < since:
        return first, since - timedelta(days=1)
    if first > until:
        return until + timedelta(days=1), final
    return first, final


def title_flags(title: str) -> dict[str, bool]:
    """What a history listing's title says of a PR the engine did not score: breaking when the title declares it
    (a `[BREAKING]` tag, a conventional `!`), a revert when it is one."""
    from prhub.engine.scoring import REVERT_TITLE, parse_title

    description, _, _, bang = parse_title(title)
    tagged = "[breaking]" in title.lower().replace(" ", "")
    return {"breaking": bang or tagged, "revert": bool(REVERT_TITLE.match(description))}
