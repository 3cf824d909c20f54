"""The PR-page service (PagesFunction): each published report's PR pages, rendered by a fan-out of their own.

    publish_facts(report, scored, deps, history=None, config=None)
                                                  the report's publication (prhub.flow.publish), before the
                                                  indexes: its pulls.json (the PR pages' facts and the dashboard's
                                                  record of the repository, completed to its 52 weeks from config's
                                                  source)
    queue_pages(report, home, scored, deps) -> int   its announcement (prhub.flow.announce): PagesQueue messages
                                                  (prhub.flow.messages.PagesMessage) of at most PAGES_PER_MESSAGE PR
                                                  numbers each, plus the earlier periods' PRs it adds relations to
    pages_message(message, deps) -> dict          one message, parsed by PagesFunction's handler: render and
                                                  publish those PRs' pages

The report worker only queues; a PagesFunction invocation renders a bounded number of
pages (each about 0.2 s with its PDF), so no invocation nears its timeout however large
the week, and the score worker never loads a renderer. Should pages run slow, an invocation near its deadline queues
the pages it has not rendered as a new message instead of running past its timeout. A message is idempotent: it
re-renders the same pages from what the bucket holds.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any, cast

from aws_lambda_powertools import Logger

from prhub.core.config import RepoConfig
from prhub.core.history import COMPARISONS, History
from prhub.core.models import ScoredPR
from prhub.core.period import Period, parse_timestamp, zone
from prhub.core.report import Report
from prhub.flow.deps import Deps
from prhub.flow.messages import PagesMessage
from prhub.site import paths as sitepaths
from prhub.site import publish as site
from prhub.site import pulls
from prhub.site.paths import LANGUAGES
from prhub.sources import scope
from prhub.sources.source import TimedSource

logger = Logger(service="prhub", child=True)

PAGES_PER_MESSAGE = 10  # pages per invocation: the PDF dominates (0.5-5 s a page), so ~50 s at worst of 120
PAGE_SECONDS_MAX = 15.0  # room kept for one more page; with less left the rest goes back on the queue

# A page to render: the page, the site's home, the configured font, whether its PDF too (render_pull_all's arguments).
PageJob = tuple[pulls.PullPage, str, str, bool]


def render_in_turn(jobs: Iterable[PageJob]) -> Iterator[dict[str, bytes]]:
    """Each page's files, one after another in this process: a Lambda (about one vCPU at 1,024 MB, no /dev/shm
    for a process pool) has nothing better."""
    from prhub.site.render.pull import render_pull_all  # the renderers: with the first page, not at import

    return (render_pull_all(*job) for job in jobs)


def _renderer(deps: Deps) -> Callable[[list[PageJob]], Iterator[dict[str, bytes]]]:
    """How a message's pages are rendered, in order and lazily (the deadline check stops between two): the Deps'
    renderer (the local runner hands in a process pool's, the only way for the PR pages to use a second core:
    prhub_local/render_pool.py), else in turn."""
    return deps.render_pages or render_in_turn


def _period(report: Report) -> Period:
    p = report["period"]
    return Period.parse(p["since"], p["until"], p["tz"])


def _slug(report: Report) -> str:
    return str(_period(report).slug)


def record(report: Report, history: History | None) -> dict[str, Any]:
    """The dashboard's share of pulls.json: the comparison periods' PRs the run's source listed (`earlier`, judged by
    their titles) and the days the record is complete for (`covers`: the period, and the comparison periods when
    the run had them, from the first day the source can see)."""
    period = _period(report)
    since = period.since
    if history is not None:
        since = max(period.previous(COMPARISONS)[0].since, _reach(history, period.tz) or date.min)
    return {"earlier": _entries(history.earlier if history is not None else []),
            "covers": {"since": since.isoformat(), "until": period.until.isoformat(), "tz": period.tz},
            "languages": [report["language"]]}  # the period's reports: a page in another language links to one


def _reach(history: History, tz: str) -> date | None:
    """The first day the source sees (None: the whole repository)."""
    return parse_timestamp(history.reach).astimezone(zone(tz)).date() if history.reach else None


def _entries(listed: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """History entries as the record keeps them: breaking and revert judged by their titles."""
    from prhub.site.dashboard import title_flags  # the dashboard's code: with the first record, not at import

    return [{"number": int(e["number"]), "merged_at": str(e["merged_at"]), "author": str(e.get("author") or ""),
             "modules": list(e.get("modules") or []), **title_flags(str(e.get("title") or ""))} for e in listed]


def merged(doc: dict[str, Any], other: Mapping[str, Any] | None) -> dict[str, Any]:
    """`doc`'s record with `other`'s: each PR once (doc's entry first), and the days of both when their spans meet
    (a span apart would claim the days between). Other keys of `doc` are kept."""
    if not other:
        return doc
    mine, theirs = doc.get("covers") or {}, other.get("covers") or {}
    covers = dict(mine)
    try:
        a, b = (date.fromisoformat(mine["since"]), date.fromisoformat(mine["until"]))
        c, d = (date.fromisoformat(theirs["since"]), date.fromisoformat(theirs["until"]))
    except (KeyError, TypeError, ValueError):
        pass
    else:
        if c <= b + timedelta(days=1) and a <= d + timedelta(days=1):
            covers.update(since=min(a, c).isoformat(), until=max(b, d).isoformat())
    entries = {int(e["number"]): e for e in [*(other.get("earlier") or []), *(doc.get("earlier") or [])]}
    # a record written before languages were kept does not say which the period is published in: unknown still
    # (pages link their own language, as they did), not only the language of this run
    known = "languages" in other and "languages" in doc
    languages = list(dict.fromkeys([*(other.get("languages") or []), *(doc.get("languages") or [])]))
    merged_doc = {k: v for k, v in doc.items() if k != "languages"}
    return {**merged_doc, "earlier": sorted(entries.values(), key=lambda e: (str(e["merged_at"]), int(e["number"]))),
            "covers": covers, **({"languages": languages} if known else {})}


LISTING_RESERVE = 60.0  # seconds kept past the year's listing for the indexes, the invalidation and the answer


def year(report: Report, config: RepoConfig, doc: dict[str, Any], stored: Mapping[str, Mapping[str, Any]],
         history: History | None, deps: Deps) -> dict[str, Any]:
    """`doc` (the period's record) with the days of the dashboard's 52 weeks no stored record covers, listed once
    from the run's source (as its history is, narrowed as the report is); `doc` as it is when nothing is missing,
    or when the source fails (warned: those weeks stay "no data", as before)."""
    # The engine's rules, only where the dashboard has weeks to list: a PagesFunction cold start never needs them.
    from prhub.engine.scoring import modules_for
    from prhub.site import dashboard

    slug = _slug(report)
    tz = doc["covers"]["tz"]
    reach = _reach(history, tz) if history is not None else None
    span = dashboard.unlisted([d for s, d in stored.items() if s != slug], doc["covers"], reach)
    if span is None:
        return doc
    days = Period(span[0], span[1], tz)
    try:
        # The source outlives the invocation (cached per process): its calls get this invocation's time left
        # less LISTING_RESERVE; a rate-limit wait past that raises RetryLater.
        source = TimedSource(deps.sources(config.source), deps.deadline(reserve=LISTING_RESERVE))
        found = scope.record(source, config, days, lambda pr: modules_for(pr, config))
    except Exception as exc:  # SourceError, RetryLater, a secret or bucket it cannot read: none fails the report
        logger.warning("the dashboard's weeks could not be listed", extra={
            "repo": config.repo, "since": days.since.isoformat(), "until": days.until.isoformat(),
            "error": f"{type(exc).__name__}: {exc}"[:500]})
        return doc
    since = max(days.since, _reach(found, tz) or date.min)
    logger.info("dashboard weeks listed", extra={"repo": config.repo, "since": since.isoformat(),
                                                 "until": days.until.isoformat(), "prs": len(found.earlier)})
    if since > days.until:  # the source sees nothing of the span
        return doc
    return merged(doc, {"earlier": _entries(found.earlier),
                        "covers": {"since": since.isoformat(), "until": days.until.isoformat(), "tz": tz}})


def _chunks(numbers: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(numbers), size):
        yield numbers[start:start + size]


def publish_facts(report: Report, scored: list[ScoredPR], deps: Deps, history: History | None = None,
                  config: RepoConfig | None = None) -> None:
    """Write the period's pulls.json: its PRs' facts (what their pages show of them and relate them by) and the
    dashboard's record of the repository. Before the indexes, which read it.

    `history` is the run's (what its source listed before the period), for the dashboard's record; with the run's
    `config`, the weeks of the dashboard's year no record covers are listed from its source (`year`). What an
    earlier run of the period recorded (another language, a revision before) is kept."""
    slug = _slug(report)
    facts = {p.number: {"files": list(p.files), "lines": list(p.file_lines), "merged_at": p.merged_at,
                        "url": p.url, "note": p.note, "author": p.author, "modules": list(p.modules),
                        "breaking": p.breaking, "revert": p.type == "revert" or p.reverts is not None,
                        **({"head": p.head_sha} if p.head_sha else {})}
             for p in scored}
    stored = site.pull_records(deps.bucket, sitepaths.base(report))
    doc = merged(record(report, history), stored.get(slug))
    if config is not None:
        doc = year(report, config, doc, stored, history, deps)
    site.publish_pull_facts(deps.bucket, report, facts, doc)


def queue_pages(report: Report, home: str, scored: list[ScoredPR], deps: Deps) -> int:
    """Queue the published report's PR pages, and the earlier periods' pages its PRs add relations to (after
    publish_facts: the messages read what it wrote); returns how many messages. A page already built for the same
    PR head, scoring and neighbours (`current`) is not queued again: a re-run, or a year after its weeks, reuses the
    pages the runs before built."""
    slug = _slug(report)
    repo, lang = report["repo"], report["language"]
    base = sitepaths.base(report)
    part = sitepaths.slice_name(report) or ""  # a slice's own pages
    stored = site.pull_records(deps.bucket, base)
    periods = {s: {int(n): f for n, f in (d.get("prs") or {}).items()} for s, d in stored.items() if s != slug}
    # Every period's facts as the pages' messages will read them: built once for both kinds of message.
    every = _facts_of(stored)
    entries = {p["number"]: p for p in report["prs"]}
    mine = [n for n in sorted(entries)
            if not current(deps.bucket, base, n, lang, home, every, entries[n], report["scorer"])]
    messages = [PagesMessage(repo, slug, lang, home, tuple(chunk), part) for chunk in _chunks(mine, PAGES_PER_MESSAGE)]
    messages += _related(deps.bucket, PagesMessage(repo, "", "", home, (), part), periods, every, scored, set(entries))
    if messages:
        deps.queue.send_batch(deps.settings.pages_queue_url, [m.body() for m in messages])
    logger.info("pull pages queued", extra={"repo": repo, "slug": slug, "lang": lang, "queued": len(mine),
                                            "reused": len(entries) - len(mine), "messages": len(messages)})
    return len(messages)


def _related(bucket: site.Bucket, where: PagesMessage, periods: dict[str, dict[int, dict[str, Any]]],
             every: _Facts, scored: list[ScoredPR], mine: set[int]) -> list[PagesMessage]:
    """The messages for the pages of other periods' PRs on the same files as `scored` (`where`: their repository,
    slice and home): they gain a "later" (or "earlier") link, so they are rendered again (each once, from the first
    period listing it), unless that link is there already."""
    paths = {f for p in scored for f in p.files}
    seen: set[int] = set(mine)
    messages: list[PagesMessage] = []
    folder = sitepaths.folder(where.repo, where.slice)
    for other, prs in sorted(periods.items()):
        touched = sorted(n for n, f in prs.items() if n not in seen and paths & set(f.get("files") or []))
        seen.update(touched)
        for language in LANGUAGES:  # the worker skips a language the period was not published in
            stale = [n for n in touched if not current(bucket, folder, n, language, where.home, every)]
            messages += [replace(where, slug=other, lang=language, numbers=tuple(chunk))
                         for chunk in _chunks(stale, PAGES_PER_MESSAGE)]
    return messages


# What a PR page shows of its PR's scoring that one period's run cannot change without the PR changing: its page is
# built anew when one of these differs (importance and "key" are relative to the period, and stay as first built).
# "judged": a maintainer's verdict, which a correction changes (prhub judge).
SCORED_AS = ("title", "summary", "key_points", "risks", "scored_by", "type", "breaking", "breaking_reason", "judged")
SCORER_AS = ("kind", "model", "prompt_version")
CURRENT, RELISTED, STALE = "current", "relisted", "stale"  # how a published PR page stands (built)


def current(bucket: site.Bucket, base: str, number: int, lang: str, home: str, facts: _Facts,
            entry: Mapping[str, Any] | None = None, scorer: Mapping[str, Any] | None = None) -> bool:
    """Whether PR `number`'s page in `lang` is built for its head in `facts`, with the neighbours `facts` give it and,
    given the PR's report `entry` and that report's `scorer`, as they scored it. A PR of unknown head is never
    current."""
    return built(bucket, base, number, lang, home, facts, entry, scorer) == (CURRENT, None)


def built(bucket: site.Bucket, base: str, number: int, lang: str, home: str, facts: _Facts,
          entry: Mapping[str, Any] | None = None, scorer: Mapping[str, Any] | None = None,
          ) -> tuple[str, dict[str, Any] | None]:
    """How PR `number`'s published page in `lang` stands against `facts` (see `current`): CURRENT; RELISTED with the
    stored page when only the reports listing the PR changed (a month or a year after its week), which its PDF does not
    show; STALE (no page given back) when it must be built anew."""
    head = str(facts.heads.get(number) or "")
    if not head:
        return STALE, None
    page = site.load_pull(bucket, base, number, lang, home)
    if page is None or page.get("head") != head or page.get("neighbours") != facts.neighbours(number):
        return STALE, None
    if entry is not None and any(page["pr"].get(k) != entry.get(k) for k in SCORED_AS):
        return STALE, None
    if scorer is not None and any((page.get("scorer") or {}).get(k) != scorer.get(k) for k in SCORER_AS):
        return STALE, None
    # A report published since that lists the PR too is named on the page: its HTML, Markdown and JSON change.
    if {(m.get("slug"), m.get("language")) for m in page.get("mentions") or []} != \
            {(s, facts.shown_in(s, lang)) for s in facts.listing(number)}:
        return RELISTED, page
    return CURRENT, None


def relisted(page: dict[str, Any], here: pulls.Mention, tz: str, facts: _Facts) -> pulls.PullPage | None:
    """The stored `page` naming the reports `facts` list its PR in (`here`: the message's report, `tz` its period's
    zone), or None when the report the page belongs to changes with them (a week published after its year): its
    byline, which the PDF shows too. The rest stays as first built, as a reused page keeps it (its importance, key
    mark and cluster are its own report's)."""
    number = int(page["pr"]["number"])
    mentions = facts.mentions(number, here["slug"], here["language"])
    own = pulls.own_report(here, mentions, pulls.merge_day(str(page["pr"].get("merged_at") or ""), tz))
    was = page.get("report") or {}
    if (own["slug"], own["language"]) != (was.get("slug"), was.get("language") or own["language"]):
        return None  # its back link and byline go elsewhere: built anew
    return cast(pulls.PullPage, {**page, "mentions": mentions})


@dataclass(frozen=True)
class _Facts:
    """Every period's pulls.json facts (slug -> PR number -> facts), indexed once for the pages they relate."""

    periods: dict[str, dict[int, dict[str, Any]]]
    files: dict[int, list[str]]
    merged_at: dict[int, str]
    urls: dict[int, str]
    heads: dict[int, str]
    by_file: dict[str, set[int]]  # path -> the PRs that changed it
    near: dict[int, pulls.Neighbours] = field(default_factory=dict, compare=False)  # neighbours() once per PR
    # slug -> the languages its reports are published in, the first first (a record before they were kept: none)
    languages: dict[str, list[str]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, periods: dict[str, dict[int, dict[str, Any]]],
           languages: dict[str, list[str]] | None = None) -> _Facts:
        every = [(n, f) for prs in periods.values() for n, f in prs.items()]
        files = {n: f.get("files") or [] for n, f in every}
        by_file: dict[str, set[int]] = {}
        for n, paths in files.items():
            for path in paths:
                by_file.setdefault(path, set()).add(n)
        return cls(periods, files, {n: str(f.get("merged_at") or "") for n, f in every},
                   {n: str(f.get("url") or "") for n, f in every},
                   {n: str(f.get("head") or "") for n, f in every if f.get("head")}, by_file,
                   languages=dict(languages or {}))

    def listing(self, number: int) -> set[str]:
        """The slugs of the published periods whose records hold PR `number`."""
        return {slug for slug, prs in self.periods.items() if number in prs}

    def neighbours(self, number: int) -> pulls.Neighbours:
        """pulls.file_neighbours over every period, from the PRs sharing a file only (not a scan of every PR); each
        PR's once, since the report's fan-out and then the pages' messages ask for every PR of a year (a copy: the
        caller's to keep)."""
        near = self.near.get(number)
        if near is None:
            sharing = set().union(*(self.by_file.get(p, set()) for p in self.files.get(number, ())))
            near = self.near[number] = pulls.file_neighbours(number, {n: self.files[n] for n in sharing | {number}},
                                                             self.merged_at)
        return {"earlier": list(near["earlier"]), "later": list(near["later"])}

    def mentions(self, number: int, slug: str, lang: str) -> list[pulls.Mention]:
        """The periods whose reports list PR `number` (`slug` when none does yet), each linked in `lang` when it
        is published in it, else in the first language it is (an en page of a PR whose week is zh only had linked
        an en week that does not exist)."""
        # Periods are named by their dates, in no language: a mention reads the same on every page.
        return [{"slug": s, "title": s.replace("-to-", " – "), "language": self.shown_in(s, lang)}
                for s in sorted(s for s, prs in self.periods.items() if number in prs) or [slug]]

    def shown_in(self, slug: str, lang: str) -> str:
        """The language a page in `lang` links period `slug`'s report in."""
        published = self.languages.get(slug) or [lang]
        return lang if lang in published else published[0]


_FACTS_HELD = 4  # folders whose last _Facts stay built (a process's pages poller serves one or two at a time)
_facts_built: dict[tuple[tuple[str, int], ...], tuple[dict[str, Any], _Facts]] = {}
_facts_lock = threading.Lock()


def _facts_of(records: dict[str, dict[str, Any]]) -> _Facts:
    """_Facts of every period's pulls.json (site.pull_records), built once while the documents stay the same.
    Bucket.get_json gives an unchanged document back as the same read-only object, so the documents' identities
    name what was built (they are held with it, so none is freed and its id reused). A year's 165 messages of
    pages each built it anew from 54 periods' records: 3 s of a year's pages under the one GIL."""
    key = tuple(sorted((slug, id(doc)) for slug, doc in records.items()))
    with _facts_lock:
        held = _facts_built.get(key)
    if held is not None:
        return held[1]
    facts = _Facts.of(site.facts_from(records), {slug: [str(x) for x in doc.get("languages") or []]
                                                 for slug, doc in records.items()})
    with _facts_lock:
        if len(_facts_built) >= _FACTS_HELD:
            _facts_built.clear()
        _facts_built[key] = (records, facts)
    return facts


def _pull_page(report: Any, slug: str, lang: str, number: int, facts: _Facts,
               module_map: Mapping[str, str]) -> pulls.PullPage:
    """PR `number`'s page in `report` (the period `slug`), with what pulls.json records of it and its neighbours."""
    mine = facts.periods.get(slug, {}).get(number, {})
    return pulls.pull_page(report, slug, number, files=pulls.file_lines(mine), note=str(mine.get("note") or ""),
                           mentions=facts.mentions(number, slug, lang),
                           neighbours=facts.neighbours(number), module_map=module_map, urls=facts.urls,
                           head=facts.heads.get(number, ""))


def pages_message(message: PagesMessage, deps: Deps) -> dict[str, Any]:
    """Render and publish the pages of the message's PRs (at most PAGES_PER_MESSAGE) from its period's report."""
    repo, slug, lang, home = message.repo, message.slug, message.lang, message.home
    base = sitepaths.folder(repo, message.slice)  # a slice's pages live in its own folder
    numbers = list(message.numbers[:PAGES_PER_MESSAGE])
    report: Any = site.load_report(deps.bucket, base, slug, lang, home)
    if report is None:  # that period was never published in this language
        return {"repo": repo, "slug": slug, "lang": lang, "pages": 0}
    facts = _facts_of(site.pull_records(deps.bucket, base))
    config = deps.watchlist().get(repo, message.slice)
    entries = {p["number"]: p for p in report["prs"]}
    listed = [n for n in numbers if n in entries]
    # A message delivered again, or queued before another built the page, renders nothing already current.
    states = {n: built(deps.bucket, base, n, lang, home, facts, entries[n], report["scorer"]) for n in listed}
    todo = [n for n in listed if states[n][0] != CURRENT]
    left = deps.deadline()
    keys: list[str] = []
    done = 0
    here: pulls.Mention = {"slug": slug, "title": report["title"], "language": report["language"]}
    tz = str((report.get("period") or {}).get("tz") or "UTC")
    jobs: list[PageJob] = []
    work: list[tuple[pulls.PullPage, dict[str, bytes] | None]] = []  # each page, with its files when not rendered
    relisted_count = 0
    for number in todo:
        stored = states[number][1]
        light = relisted(stored, here, tz, facts) if stored is not None else None
        page = light or _pull_page(report, slug, lang, number, facts, config.module_map)
        files = None
        if light is not None and stored is not None:  # a relisted page keeps its PDF, and the rest but its mentions
            relisted_count += 1
            from prhub.site.render.pull import relist_pull  # the renderers: with the first page, not at import

            files = relist_pull(light, cast(pulls.PullPage, stored),
                                site.load_pull_files(deps.bucket, base, number, lang, home), home)
        work.append((page, files))
        if files is None:
            jobs.append((page, home, deps.settings.cjk_font, light is None))
    rendered = _renderer(deps)(jobs)
    try:
        for i, (page, files) in enumerate(work):
            if left is not None and done and left() < PAGE_SECONDS_MAX:
                # A slow invocation (a loaded host, huge file lists) hands its remaining pages to the next one.
                deps.queue.send(deps.settings.pages_queue_url, replace(message, numbers=tuple(todo[i:])).body())
                break
            keys += site.publish_pull(deps.bucket, page, next(rendered) if files is None else files, home)
            done += 1
    finally:
        close = getattr(rendered, "close", None)
        if close is not None:
            close()  # a pool's map cancels the pages it has not started
    site.invalidate(deps.cdn, ["/" + k for k in keys])
    logger.info("pull pages published", extra={"repo": repo, "slug": slug, "lang": lang, "pages": done,
                                               "reused": len(listed) - len(todo), "relisted": relisted_count})
    return {"repo": repo, "slug": slug, "lang": lang, "pages": done, "requeued": len(todo) - done,
            "reused": len(listed) - len(todo), "relisted": relisted_count}
