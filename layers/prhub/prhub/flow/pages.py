"""The PR-page service (PagesFunction): each published report's PR pages, rendered by a fan-out of their own.

    fan_out(report, home, scored, deps, history=None) -> int
                                                  after a report is published: its pulls.json (the PR pages' facts
                                                  and the dashboard's record of the repository), then PagesQueue
                                                  messages of at most PAGES_PER_MESSAGE PR numbers each, plus the
                                                  earlier periods' PRs it adds relations to; returns the count
    pages_message(body, deps) -> dict             one message: render and publish those PRs' pages

The report worker only queues; a PagesFunction invocation renders a bounded number of
pages (each about 0.2 s with its PDF), so no invocation nears its timeout however large
the week, and the score worker never loads a renderer. Should pages run slow, an invocation near its deadline queues
the pages it has not rendered as a new message instead of running past its timeout. A message is idempotent: it
re-renders the same pages from what the bucket holds.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools import Logger

from prhub.flow.deps import Deps
from prhub.models import ScoredPR
from prhub.report import Report
from prhub.sources import History

logger = Logger(service="prhub", child=True)

PAGES_PER_MESSAGE = 10  # pages per invocation: the PDF dominates (0.5-5 s a page), so ~50 s at worst of 120
PAGE_SECONDS_MAX = 15.0  # room kept for one more page; with less left the rest goes back on the queue


def _period(report: Report) -> Any:
    from prhub.period import Period

    p = report["period"]
    return Period.parse(p["since"], p["until"], p["tz"])


def _slug(report: Report) -> str:
    return str(_period(report).slug)


def record(report: Report, history: History | None) -> dict[str, Any]:
    """The dashboard's share of pulls.json: the comparison periods' PRs the run's source listed (`earlier`, judged by
    their titles) and the days the record is complete for (`covers`: the period, and the comparison periods when
    the run had them, from the first day the source can see)."""
    from prhub.dashboard import title_flags
    from prhub.period import parse_timestamp, zone
    from prhub.sources import COMPARISONS

    period = _period(report)
    since = period.since
    if history is not None:
        since = period.previous(COMPARISONS)[0].since
        if history.reach:  # the source sees nothing before its first merge: those days are not known
            since = max(since, parse_timestamp(history.reach).astimezone(zone(period.tz)).date())
    earlier = [{"number": int(e["number"]), "merged_at": str(e["merged_at"]), "author": str(e.get("author") or ""),
                "modules": list(e.get("modules") or []), **title_flags(str(e.get("title") or ""))}
               for e in (history.earlier if history is not None else [])]
    return {"earlier": earlier, "covers": {"since": since.isoformat(), "until": period.until.isoformat(),
                                           "tz": period.tz}}


def _chunks(numbers: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(numbers), size):
        yield numbers[start:start + size]


def fan_out(report: Report, home: str, scored: list[ScoredPR], deps: Deps, history: History | None = None) -> int:
    """Write the period's pulls.json and queue its PR pages, and the earlier pages its PRs add relations to.

    `history` is the run's (what its source listed before the period), for the dashboard's record."""
    from prhub import site, sitepaths
    from prhub.sitepaths import LANGUAGES

    slug = _slug(report)
    facts = {p.number: {"files": list(p.files), "lines": list(p.file_lines), "merged_at": p.merged_at,
                        "url": p.url, "note": p.note, "author": p.author, "modules": list(p.modules),
                        "breaking": p.breaking, "revert": p.type == "revert" or p.reverts is not None}
             for p in scored}
    site.publish_pull_facts(deps.bucket, report, facts, record(report, history))
    repo, lang = report["repo"], report["language"]
    where = {"slice": name} if (name := sitepaths.slice_name(report)) else {}  # a slice's own pages
    mine = {p["number"] for p in report["prs"]}
    bodies = [{"repo": repo, **where, "slug": slug, "lang": lang, "home": home, "numbers": chunk}
              for chunk in _chunks(sorted(mine), PAGES_PER_MESSAGE)]
    # PRs of other periods on the same files gain a "later" (or "earlier") link: their pages are re-rendered.
    paths = {f for p in scored for f in p.files}
    for other, prs in sorted(site.pull_facts(deps.bucket, sitepaths.base(report)).items()):
        if other == slug:
            continue
        touched = sorted(n for n, f in prs.items() if n not in mine and paths & set(f.get("files") or []))
        for chunk in _chunks(touched, PAGES_PER_MESSAGE):
            bodies += [{"repo": repo, **where, "slug": other, "lang": language, "home": home, "numbers": chunk}
                       for language in LANGUAGES]  # the worker skips a language the period was not published in
    if bodies:
        deps.queue.send_batch(deps.settings.pages_queue_url, bodies)
    return len(bodies)


def pages_message(body: dict[str, Any], deps: Deps) -> dict[str, Any]:
    """Render and publish the pages of body["numbers"] from the period body["slug"] in body["lang"]."""
    from prhub import pulls, site, sitepaths
    from prhub.render.pull import render_pull_all

    repo, slug, lang, home = str(body["repo"]), str(body["slug"]), str(body["lang"]), str(body["home"])
    part = str(body.get("slice") or "")  # a slice's pages live in its own folder
    base = sitepaths.folder(repo, part)
    numbers = [int(n) for n in body["numbers"]][:PAGES_PER_MESSAGE]
    report: Any = site.load_report(deps.bucket, base, slug, lang, home)
    if report is None:  # that period was never published in this language
        return {"repo": repo, "slug": slug, "lang": lang, "pages": 0}
    facts = site.pull_facts(deps.bucket, base)
    files_by_pr = {n: f.get("files") or [] for prs in facts.values() for n, f in prs.items()}
    merged_at = {n: str(f.get("merged_at") or "") for prs in facts.values() for n, f in prs.items()}
    urls = {n: str(f.get("url") or "") for prs in facts.values() for n, f in prs.items()}
    mine = facts.get(slug, {})
    config = deps.watchlist().get(repo, part)
    listed = {p["number"] for p in report["prs"]}
    todo = [n for n in numbers if n in listed]
    left = deps.deadline()
    keys: list[str] = []
    done = 0
    for i, number in enumerate(todo):
        if left is not None and done and left() < PAGE_SECONDS_MAX:
            # A slow invocation (a loaded host, huge file lists) hands its remaining pages to the next one.
            deps.queue.send(deps.settings.pages_queue_url, {**body, "numbers": todo[i:]})
            break
        # Periods are named by their dates, in no language: a mention reads the same on every page.
        mentions: list[pulls.Mention] = [{"slug": s, "title": s.replace("-to-", " – "), "language": lang}
                                         for s in sorted(s for s, prs in facts.items() if number in prs) or [slug]]
        page = pulls.pull_page(report, slug, number, files=pulls.file_lines(mine.get(number, {})),
                               note=str(mine.get(number, {}).get("note") or ""), mentions=mentions,
                               neighbours=pulls.file_neighbours(number, files_by_pr, merged_at),
                               module_map=config.module_map, urls=urls)
        keys += site.publish_pull(deps.bucket, page, render_pull_all(page, home), home)
        done += 1
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    logger.info("pull pages published", extra={"repo": repo, "slug": slug, "lang": lang, "pages": done})
    return {"repo": repo, "slug": slug, "lang": lang, "pages": done, "requeued": len(todo) - done}
