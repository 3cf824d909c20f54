"""A repository's dashboard: its weeks from the repository's record, its published reports for what only they know.

Contract: build(reports, lang, records=None) -> dict | None, where `reports` is site.published's list of
(slug, language folder, report.json) and `records` site.pull_records' slug -> pulls.json;
full_lists(board) -> str: dashboard.json, the lists the page caps at NAMES_SHOWN, whole (schema prhub.dashboard/1);
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

The quarter's hot files are the files of the PRs merged in its last 13 weeks, each PR once (the files pulls.json
records of it, else the reports' hot files naming it): a year's report overlapping the quarter adds nothing twice.

Each period's report counts once (its version in `lang` when there is one); each PR once, in the ISO week of
its merge in its record's time zone.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from prhub.core.text import clean, num
from prhub.site.render import charts
from prhub.site.render.labels import labels

WINDOWS = (12, 52)
QUARTER = 13  # weeks
TOP_MODULES, TOP_FILES, TOP_AUTHORS = 8, 10, 10
NAMES_SHOWN = 30  # newcomers on the page: a year has hundreds; dashboard.json has them all
SCHEMA = "prhub.dashboard/1"
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
    words = labels(lang)
    rec = _record(docs, records or {})
    reported = _full_weeks(set().union(*(_days(str((d.get("period") or {}).get("since")),
                                                str((d.get("period") or {}).get("until"))) for d in docs)))
    known = _full_weeks(rec.days) | reported
    scored = {n for d in docs for p in d.get("prs", []) if isinstance(n := p.get("number"), int)}
    last = max(known | {_monday(max(rec.days))} if rec.days else known)
    windows = []
    for n in WINDOWS:
        weeks = [last - timedelta(weeks=n - 1 - i) for i in range(n)]
        windows.append(_window(n, weeks, known, reported, rec, scored, words))
    quarter = {last - timedelta(weeks=i) for i in range(QUARTER)}
    return {"windows": windows, "hot_files": _hot_files(_files_of(docs, records or {}), rec, quarter),
            "quarter_weeks": QUARTER, "names_shown": NAMES_SHOWN,
            **_contributors(docs, rec, set(windows[-1]["week_set"]))}


def full_lists(board: Mapping[str, Any]) -> str:
    """dashboard.json: the lists under the charts in full (the page shows the first NAMES_SHOWN newcomers)."""
    return json.dumps({"schema": SCHEMA, "quarter_weeks": board["quarter_weeks"], "hot_files": board["hot_files"],
                       "most_active": board["most_active"], "newcomers": board["newcomers"]},
                      ensure_ascii=False, indent=2)


def _by_week(weeks: list[date], rec: _Record, scored: set[int]) -> dict[date, list[dict[str, Any]]]:
    """The record's PRs in each of `weeks` (by their merge day's Monday), each marked `_scored` when a report
    scored it."""
    in_week: dict[date, list[dict[str, Any]]] = {w: [] for w in weeks}
    for number, (day, pr) in rec.prs.items():
        week = _monday(day)
        if week in in_week:
            in_week[week].append({**pr, "_scored": number in scored})
    return in_week


@dataclass
class _Weekly:
    """A window's numbers, one per week in order."""
    have: list[bool]  # the week is known in full
    in_reports: list[bool]  # a published report covers it
    merged: list[float]
    breaking: list[float]
    reverts: list[float]
    key: list[float]
    importance: list[list[float]]  # the importance of the week's scored PRs
    avg: list[float]


def _weekly(weeks: list[date], in_week: dict[date, list[dict[str, Any]]], known: set[date],
            reported: set[date]) -> _Weekly:
    def known_count(flag: str) -> list[float]:
        # A week known only in part (a record starting mid-week) draws nothing: a part would read as the whole.
        return [sum(1 for p in in_week[w] if p.get(flag)) if w in known else 0 for w in weeks]

    # Key PRs and importance only a scorer knows: the weeks with a published report.
    imps = [[float(p["importance"]) for p in in_week[w]
             if p["_scored"] and isinstance(p.get("importance"), int | float)] for w in weeks]
    return _Weekly(
        have=[w in known for w in weeks], in_reports=[w in reported for w in weeks],
        merged=[len(in_week[w]) if w in known else 0 for w in weeks],
        breaking=known_count("breaking"), reverts=known_count("revert"),
        key=[sum(1 for p in in_week[w] if p["_scored"] and p.get("key")) for w in weeks],
        importance=imps, avg=[round(sum(v) / len(v), 1) if v else 0.0 for v in imps])


def _week_rows(weeks: list[date], w: _Weekly) -> list[dict[str, Any]]:
    """The table under the charts: a week's counts, "–" for what only a report knows when none covers it."""
    return [{"week": f"{week:%Y-%m-%d}", "covered": w.have[i], "reported": w.in_reports[i], "merged": w.merged[i],
             "breaking": w.breaking[i], "reverts": w.reverts[i], "key": w.key[i] if w.in_reports[i] else "–",
             "avg_importance": (num(w.avg[i]) if w.importance[i] else "") if w.in_reports[i] else "–"}
            for i, week in enumerate(weeks)]


def _week_charts(n: int, weeks: list[date], w: _Weekly, words: dict[str, str]) -> list[charts.Columns]:
    label = [f"{week:%m-%d}" for week in weeks]
    return [
        charts.Columns(f"merged-{n}", words["chart_merged"], label, [(words["pr_count"], MERGED, w.merged)], w.have),
        charts.Columns(f"breaking-{n}", words["chart_breaking_reverts"], label,
                       [(words["breaking_changes"], BREAKING, w.breaking), (words["reverts"], REVERT, w.reverts)],
                       w.have),
        # Counts (0-5) and a mean importance (0-10) on their own axes: on one, the importance bars were flat.
        charts.Columns(f"key-{n}", words["chart_key"], label, [(words["key_pr_count"], KEY, w.key)], w.in_reports),
        charts.Columns(f"importance-{n}", words["chart_avg_importance"], label,
                       [(words["avg_importance"], MERGED, w.avg)], w.in_reports),
    ]


def _module_shares(n: int, weeks: list[date], in_week: dict[date, list[dict[str, Any]]], known: set[date],
                   words: dict[str, str]) -> dict[str, Any]:
    """The modules the known weeks' PRs touched most, as a chart of shares and its rows."""
    modules: Counter[str] = Counter(clean(m) for w in weeks if w in known for p in in_week[w]
                                    for m in set(p.get("modules") or []))
    total = sum(modules.values())
    shares = modules.most_common(TOP_MODULES)
    return {
        "modules": charts.Series(f"modules-{n}", words["chart_module_share"], [m for m, _ in shares],
                                 [round(100 * c / total, 1) if total else 0.0 for _, c in shares], True)
        if shares else None,
        "module_rows": [{"name": m, "count": c, "share": f"{num(round(100 * c / total, 1))} %"} for m, c in shares],
    }


def _window(n: int, weeks: list[date], known: set[date], reported: set[date], rec: _Record, scored: set[int],
            words: dict[str, str]) -> dict[str, Any]:
    in_week = _by_week(weeks, rec, scored)
    w = _weekly(weeks, in_week, known, reported)
    have, in_reports = sum(w.have), sum(w.in_reports)
    return {
        "n": n, "title": words[f"weeks_{n}"], "have": have, "reported": in_reports,
        "week_set": [week.isoformat() for week in weeks],
        "note": words["dashboard_source"].format(have=have, reported=in_reports, covered=n),
        "charts": _week_charts(n, weeks, w, words),
        **_module_shares(n, weeks, in_week, known, words),
        "rows": _week_rows(weeks, w),
    }


def _files_of(docs: list[dict[str, Any]], records: Mapping[str, Mapping[str, Any]]) -> dict[int, set[str]]:
    """Each PR's files: as pulls.json records them, else as the reports' hot files name it."""
    files: dict[int, set[str]] = {}
    for doc in records.values():
        for n, facts in (doc.get("prs") or {}).items():
            if str(n).isdigit() and facts.get("files"):
                files.setdefault(int(n), set()).update(clean(f) for f in facts["files"])
    named: dict[int, set[str]] = {}
    for doc in docs:
        for f in doc.get("hot_files", []):
            for n in f.get("prs", []):
                if isinstance(n, int) and n not in files:
                    named.setdefault(n, set()).add(clean(f.get("path")))
    return {**named, **files}


def _hot_files(files: Mapping[int, set[str]], rec: _Record, quarter: set[date]) -> list[dict[str, Any]]:
    """The files the most PRs merged in the quarter's weeks changed, each PR counted once."""
    users: dict[str, set[int]] = {}
    for number, paths in files.items():
        merged = rec.prs.get(number)
        if merged is None or _monday(merged[0]) not in quarter:
            continue
        for path in paths:
            users.setdefault(path, set()).add(number)
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
