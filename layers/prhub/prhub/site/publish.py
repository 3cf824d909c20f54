"""The static site in the bucket: report files, repository and root indexes, Atom feeds.

Contract (`bucket` is a Bucket, e.g. prhub.cloud.aws.S3Bucket; `cdn` a Cdn, e.g. prhub.cloud.aws.CloudFrontCdn):
    publish_report(bucket, report, files, home) -> list[str]  writes <owner>/<repo>/reports/<slug>/[<lang>/]<file>
    publish_pull(bucket, page, files, home) -> list[str]      writes <owner>/<repo>/pull/<N>/[<lang>/]<file>
    rebuild_indexes(bucket, repo, site_url='', home=None) -> list[str]
                                               per language: the repo's dashboard index.html (its capped
                                               lists whole in dashboard.json) and feed.xml;
                                               then the root index.html
    publish_digest(bucket, digest, files, site_url) -> list[str]
                                               writes _digest/<slug>/<file>, _digest/feed.xml, the root index.html
    invalidate(cdn, paths) -> None                        drops CloudFront's copies (no-op without a distribution)
    rewrite(path) -> str                                  CloudFront's /path/ -> /path/index.html

Every object gets its Content-Type and a Cache-Control: report files change
only when a period is re-run or a late result makes a revision (and then
CloudFront is invalidated), so browsers keep them a day; indexes and feeds
change every week, so they stay fresh. A revision keeps its report's URL and
feed entry id; its card and entry name the revision, and the entry's `updated`
is the revision's time, so feed readers show it as updated.

Where pages live is prhub.site.paths. Wherever a function here takes `repo`, it is the
base folder of a report (sitepaths.base): "<owner>/<repo>", or "<owner>/<repo>/slices/<name>"
for a monorepo's slice, whose pages, reports, PR pages and feeds are laid out the same.
The repository's configured language (`home`)
at a folder's root, each other language in a subfolder named by its code. Writing
one language never touches another's files; when a folder gains a second language,
the web pages of every language there are re-rendered from their report.json to
link to each other. Index cards and feeds are per language, never mixed.
"""
from __future__ import annotations

import json
import posixpath
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from prhub.core.report import Report
from prhub.core.text import clean, num, safe_url
from prhub.report.digest import ROOT
from prhub.site import paths as sitepaths
from prhub.site.pulls import PullPage
from prhub.site.render.labels import labels


def _render_page(template: str, **values: Any) -> str:
    # Imported here: flow imports this module in every function, and the score worker must not load Jinja2.
    from prhub.site.render.html import render_page

    return render_page(template, **values)

class Bucket(Protocol):
    """Where the site lives (the stack's SiteBucket)."""

    def put(self, key: str, body: bytes, content_type: str, cache_control: str) -> None: ...

    def get(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is no such key."""
        ...

    def get_json(self, key: str) -> Any | None:
        """The JSON document at `key` parsed, or None when there is no such key; read-only (it may be shared with
        other callers)."""
        ...

    def folders(self, prefix: str) -> Iterator[str]:
        """Every sub-"folder" directly under `prefix` (with its trailing "/")."""
        ...


class Cdn(Protocol):
    def invalidate(self, paths: list[str]) -> None:
        """Drop the cached copies of `paths` (already in CloudFront's form)."""
        ...


TYPES = {".html": "text/html; charset=utf-8", ".md": "text/markdown; charset=utf-8",
         ".pdf": "application/pdf", ".json": "application/json", ".xml": "application/atom+xml",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png", ".txt": "text/plain"}
REPORT_CACHE = "public, max-age=86400"
INDEX_CACHE = "public, max-age=300, must-revalidate"
FEED_ENTRIES = 50
MAX_INVALIDATION_PATHS = 100  # beyond this one wildcard is cheaper than listing every path


def content_type(key: str) -> str:
    return TYPES.get(posixpath.splitext(key)[1].lower(), "application/octet-stream")


def report_prefix(report: Report, home: str | None = None) -> str:
    """The report's folder; `home` (the repository's configured language) defaults to the report's own."""
    return sitepaths.report_folder(report, home or report["language"])


def _put(bucket: Bucket, key: str, body: bytes, cache_control: str) -> str:
    bucket.put(key, body, content_type(key), cache_control)
    return key


def _write(bucket: Bucket, prefix: str, files: dict[str, bytes]) -> dict[str, bytes]:
    """The files under `prefix`, report.json last, so listings never see half a page; returns them by key."""
    order = sorted(files, key=lambda name: name == "report.json")
    return {_put(bucket, prefix + name, files[name], REPORT_CACHE): files[name] for name in order}


def _versions(bucket: Bucket, folder: str, written: dict[str, bytes], doc_written: Mapping[str, Any]
              ) -> dict[str, Mapping[str, Any]]:
    """The language versions published in a report or PR folder: language -> report.json (root and <lang>/),
    read-only. The report.json just `written` (key -> body) is `doc_written`, not parsed again (a year's 1,649
    relisted PR pages parsed each one they had just written); the others are read as Bucket.get_json keeps them."""
    out: dict[str, Mapping[str, Any]] = {}
    for sub in ["", *(f"{lang}/" for lang in sitepaths.LANGUAGES)]:
        key = folder + sub + "report.json"
        doc: Mapping[str, Any] | None = doc_written if key in written else bucket.get_json(key)
        if doc is not None:
            out[str(doc.get("language") or "")] = doc
    return out


def _relink(bucket: Bucket, folder: str, home: str, render: Any, written: dict[str, bytes],
            doc_written: Mapping[str, Any]) -> list[str]:
    """Re-render the web page of every language version in `folder` with links to the others (when there are)."""
    versions = _versions(bucket, folder, written, doc_written)
    if len(versions) < 2:
        return []
    where = {lang: folder + sitepaths.lang_dir(lang, home) for lang in versions}
    return [_put(bucket, where[lang] + "index.html",
                 render(doc, home, sitepaths.alternates(where, lang)).encode(), REPORT_CACHE)
            for lang, doc in sorted(versions.items())]


def publish_report(bucket: Bucket, report: Report, files: dict[str, bytes], home: str | None = None) -> list[str]:
    """Write the report's files in its period's folder (its language's subfolder unless it is `home`)."""
    from prhub.site.render.html import render_html

    home = home or report["language"]
    written = _write(bucket, report_prefix(report, home), files)
    folder = sitepaths.report_folder({**report, "language": home}, home)
    return [*written, *(k for k in _relink(bucket, folder, home, render_html, written, report) if k not in written)]


def publish_pull(bucket: Bucket, page: PullPage, files: dict[str, bytes], home: str) -> list[str]:
    """Write a PR page's files (prhub.site.pulls.PullPage) in pull/<N>/ (its language's subfolder unless it is
    `home`)."""
    from prhub.site.render.pull import render_pull_html

    number = page["pr"]["number"]
    written = _write(bucket, sitepaths.pull_dir(sitepaths.base(page), number, page["language"], home), files)
    folder = sitepaths.pull_dir(sitepaths.base(page), number, home, home)
    return [*written,
            *(k for k in _relink(bucket, folder, home, render_pull_html, written, page) if k not in written)]


def _load(bucket: Bucket, key: str) -> dict[str, Any] | None:
    body = bucket.get(key)
    return None if body is None else json.loads(body)  # type: ignore[no-any-return]


def publish_pull_facts(bucket: Bucket, report: Report, facts: dict[int, dict[str, Any]],
                       record: dict[str, Any] | None = None) -> str:
    """The per-PR facts PR pages need and report.json does not carry (files with their line counts, note), and the
    dashboard's record (prhub.flow.pages.record: `earlier`, `covers`), in the period's root folder.

    Language-independent, so every language's run writes the same file; PR pages read every period's one for
    the PRs that touched the same files before and after, the dashboard for the repository's weeks.
    """
    folder = sitepaths.report_folder(report, report["language"])  # the root: same home as its own language
    key = folder + "pulls.json"
    body = json.dumps({"prs": {str(n): f for n, f in sorted(facts.items())}, **(record or {})},
                      ensure_ascii=False).encode()
    return _put(bucket, key, body, REPORT_CACHE)


def pull_records(bucket: Bucket, repo: str) -> dict[str, dict[str, Any]]:
    """Every period's pulls.json as written, read-only (Bucket.get_json): slug -> {prs, earlier, covers}."""
    out: dict[str, dict[str, Any]] = {}
    for folder in bucket.folders(f"{repo}/reports/"):
        doc = bucket.get_json(folder + "pulls.json")
        if doc is not None:
            out[folder.rstrip("/").rsplit("/", 1)[-1]] = doc
    return out


def pull_facts(bucket: Bucket, repo: str) -> dict[str, dict[int, dict[str, Any]]]:
    """Every period's PR facts: slug -> PR number -> {files, lines, merged_at, note, ...}."""
    return facts_from(pull_records(bucket, repo))


def facts_from(records: dict[str, dict[str, Any]]) -> dict[str, dict[int, dict[str, Any]]]:
    """pull_records' documents as pull_facts gives them."""
    return {slug: {int(n): f for n, f in (doc.get("prs") or {}).items()} for slug, doc in records.items()}


def load_report(bucket: Bucket, repo: str, slug: str, lang: str, home: str) -> dict[str, Any] | None:
    """A report's report.json as published, read-only (Bucket.get_json)."""
    doc = bucket.get_json(sitepaths.report_dir(repo, slug, lang, home) + "report.json")
    return doc if isinstance(doc, dict) else None


def load_pull(bucket: Bucket, repo: str, number: int, lang: str, home: str) -> dict[str, Any] | None:
    """A PR page's report.json as published, read-only (None: there is none in `lang`). Bucket.get_json: the
    report's fan-out and then the page's own message each read every page of a year (1,649), parsed once."""
    doc = bucket.get_json(sitepaths.pull_dir(repo, number, lang, home) + "report.json")
    return doc if isinstance(doc, dict) else None


def load_pull_files(bucket: Bucket, repo: str, number: int, lang: str, home: str,
                    names: tuple[str, ...] = ("index.html", "report.md")) -> dict[str, bytes | None]:
    """A PR page's published files (None for one it has not)."""
    folder = sitepaths.pull_dir(repo, number, lang, home)
    return {name: bucket.get(folder + name) for name in names}


def _shorten(text: str, limit: int) -> str:
    """A teaser for list pages and feeds; the report page keeps the whole text."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


def in_language(text: str, lang: str) -> bool:
    """Whether a teaser reads in `lang`: no CJK in English; in Chinese, no more Latin letters than Chinese characters
    (a highlight that quotes a PR's English body reads as English, and the card would mix the two)."""
    cjk = sum(1 for ch in text if _cjk(ch))
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return cjk == 0 if lang == "en" else cjk > 0 and latin <= cjk


def index_card(report: dict[str, Any], slug: str, sub: str = "") -> dict[str, Any]:
    """One line of a repository page / one feed entry, from a report.json; `sub` is its language folder ("" or "en/").

    The teasers are the first highlight and summary paragraph written in the report's language; a card whose
    narrative quotes PR text in another language shows the numbers alone rather than mix the two.
    """
    lang = str(report.get("language") or "zh")
    stats = report.get("stats") or {}
    highlights = [t for h in report.get("highlights", []) if (t := clean(h.get("text"))) and in_language(t, lang)]
    summary = [t for p in str(report.get("summary") or "").split("\n\n") if (t := clean(p)) and in_language(t, lang)]
    period = report.get("period") or {}
    return {
        "slug": slug, "href": f"../reports/{slug}/{sub}" if sub else f"reports/{slug}/",
        "folder": f"{clean(sitepaths.base(report))}/reports/{slug}/{sub}", "sub": sub,
        "title": clean(report.get("title")) or slug,
        "since": clean(period.get("since")), "until": clean(period.get("until")),
        "generated_at": clean(report.get("generated_at")), "language": lang,
        "pr_count": num(stats.get("pr_count", 0)), "key_pr_count": num(stats.get("key_pr_count", 0)),
        "avg_importance": num(stats.get("avg_importance", 0.0)), "avg_insight": num(stats.get("avg_insight", 0.0)),
        "revision": _revision(report),
        "highlight": _shorten(highlights[0], 240) if highlights else "",
        "summary": _shorten(summary[0], 600) if summary else "",
    }


def _revision(report: dict[str, Any]) -> int:
    """The report's revision (1 when report.json names none: its first publication)."""
    value = report.get("revision", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1


def published(bucket: Bucket, repo: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every published report of `repo` in every language: (slug, language folder "" or "<lang>/", report.json)."""
    out = []
    for folder in bucket.folders(f"{repo}/reports/"):
        slug = folder.rstrip("/").rsplit("/", 1)[-1]
        for sub in ["", *(s[len(folder):] for s in bucket.folders(folder))]:
            report = _load(bucket, folder + sub + "report.json")
            if report is not None:
                out.append((slug, sub, report))
    return out


def list_reports(bucket: Bucket, repo: str, lang: str | None = None) -> list[dict[str, Any]]:
    """The cards of `repo`'s published reports (in `lang` only, when given), newest period first."""
    cards = [index_card(report, slug, sub) for slug, sub, report in published(bucket, repo)]
    cards = [c for c in cards if lang is None or c["language"] == lang]
    return sorted(cards, key=lambda e: (e["since"], e["until"], e["sub"]), reverse=True)


def _language(entries: list[dict[str, Any]]) -> str:
    return entries[0]["language"] if entries else "zh"


def render_repo_index(repo: str, entries: list[dict[str, Any]], lang: str | None = None,
                      dashboard: dict[str, Any] | None = None, alternates: list[dict[str, str]] | None = None,
                      depth: int = 0) -> str:
    """The repository's (or slice's) page: its dashboard (when given) and its reports, in one language; `depth`
    is 1 for a language subfolder."""
    lang = lang or _language(entries)
    up = "../" * (depth + repo.count("/") + 1)  # a slice's page sits two folders deeper than its repository's
    return _render_page("repo.html.j2", words=labels(lang), html_lang="zh-CN" if lang == "zh" else "en",
                        repo=clean(sitepaths.display(repo)),
                        repo_url=safe_url(f"https://github.com/{sitepaths.repo_of(repo)}"), reports=entries,
                        dashboard=dashboard, alternates=alternates or [], root_href=up)


def _atom_time(value: str) -> str:
    return value if value.endswith("Z") or "+" in value[10:] else value + "Z"


def render_feed(repo: str, entries: list[dict[str, Any]], site_url: str = "", lang: str | None = None) -> str:
    """An Atom feed of the repository's reports in one language (links absolute when the site URL is known)."""
    lang = lang or _language(entries)
    base = (safe_url(site_url) or "").rstrip("/")
    sub = entries[0]["sub"] if entries else ""
    home = f"{base}/{repo}/{sub}" if base else ""
    def entry_id(e: dict[str, Any]) -> str:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{repo}:{e['slug']}" + (f"/{e['sub']}" if e["sub"] else "")).urn

    items = [{**e, "id": entry_id(e),
              "updated": _atom_time(e["generated_at"] or f"{e['until']}T00:00:00Z"),
              "link": f"{base}/{e['folder']}" if base else e["href"]}
             for e in entries[:FEED_ENTRIES]]
    updated = max((i["updated"] for i in items), default="1970-01-01T00:00:00Z")
    feed_key = f"prhub:{repo}" + (f":{sub.rstrip('/')}" if sub else "")
    return _render_page("feed.xml.j2", words=labels(lang), repo=clean(sitepaths.display(repo)), entries=items,
                        feed_id=uuid.uuid5(uuid.NAMESPACE_URL, feed_key).urn, updated=updated,
                        self_link=f"{home}feed.xml" if home else "feed.xml", home=home or "./")


def render_root_index(repos: list[dict[str, Any]], digest: dict[str, Any] | None = None) -> str:
    """The site's root page: every repository, and the latest organisation digest when there is one."""
    lang = repos[0]["latest"]["language"] if repos and repos[0].get("latest") else digest["language"] if digest \
        else "zh"
    return _render_page("root.html.j2", words=labels(lang), html_lang="zh-CN" if lang == "zh" else "en", repos=repos,
                        digest=digest)


def list_digests(bucket: Bucket) -> list[dict[str, Any]]:
    """The cards of the published digests (_digest/<slug>/report.json), newest period first."""
    cards = []
    for folder in bucket.folders(ROOT):
        doc = _load(bucket, folder + "report.json")
        if doc is None:
            continue
        slug = folder.rstrip("/").rsplit("/", 1)[-1]
        stats, period = doc.get("stats") or {}, doc.get("period") or {}
        cards.append({"slug": slug, "href": f"{ROOT}{slug}/", "folder": f"{ROOT}{slug}/",
                      "title": clean(doc.get("title")) or slug, "name": clean(doc.get("name")),
                      "since": clean(period.get("since")), "until": clean(period.get("until")),
                      "generated_at": clean(doc.get("generated_at")), "language": clean(doc.get("language")) or "zh",
                      "pr_count": num(stats.get("pr_count", 0)), "key_pr_count": num(stats.get("key_pr_count", 0)),
                      "avg_importance": num(stats.get("avg_importance", 0.0)),
                      "repo_count": num(stats.get("repo_count", 0)), "reported": num(stats.get("reported", 0)),
                      "highlight": "", "summary": _shorten(clean(doc.get("summary")), 600)})
    return sorted(cards, key=lambda c: (c["since"], c["until"]), reverse=True)


def render_digest_feed(cards: list[dict[str, Any]], site_url: str = "") -> str:
    """_digest/feed.xml: an Atom feed of the digests (links absolute when the site URL is known)."""
    base = (safe_url(site_url) or "").rstrip("/")
    lang = cards[0]["language"] if cards else "zh"
    items = [{**c, "id": uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{ROOT}{c['slug']}").urn,
              "updated": _atom_time(c["generated_at"] or f"{c['until']}T00:00:00Z"),
              "link": f"{base}/{c['folder']}" if base else f"{c['slug']}/"} for c in cards[:FEED_ENTRIES]]
    updated = max((i["updated"] for i in items), default="1970-01-01T00:00:00Z")
    home = f"{base}/{ROOT}" if base else ""
    name = cards[0]["name"] if cards else ""
    return _render_page("feed.xml.j2", words=labels(lang), repo=name or ROOT.rstrip("/"), entries=items,
                        feed_id=uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{ROOT}").urn, updated=updated,
                        self_link=f"{home}feed.xml" if home else "feed.xml", home=home or "./")


def render_listing(heading: str, entries: list[dict[str, Any]], lang: str, root_href: str,
                   up: dict[str, str] | None = None, feed: str = "") -> str:
    """A folder's own page (`<repo>/reports/`, `_digest/`): its reports as cards whose `href` is relative to it."""
    return _render_page("listing.html.j2", words=labels(lang), html_lang="zh-CN" if lang == "zh" else "en",
                        heading=heading, entries=entries, root_href=root_href, up=up, feed=feed)


def _digest_index(cards: list[dict[str, Any]]) -> bytes:
    """_digest/index.html: every published digest, newest first."""
    lang = cards[0]["language"] if cards else "zh"
    heading = cards[0]["name"] if cards and cards[0]["name"] else labels(lang)["digests"]
    return render_listing(heading, [{**c, "href": f"{c['slug']}/"} for c in cards], lang, "../",
                          feed="feed.xml").encode()


def _root_index(bucket: Bucket) -> bytes:
    digests = list_digests(bucket)
    return render_root_index(list_repositories(bucket), digests[0] if digests else None).encode()


def publish_digest(bucket: Bucket, digest: dict[str, Any], files: dict[str, bytes], site_url: str = "") -> list[str]:
    """Write the digest's files in _digest/<slug>/, then the digests' feed and the root page that links it."""
    period = digest["period"]
    keys = list(_write(bucket, f"{ROOT}{period['since']}-to-{period['until']}/", files))
    cards = list_digests(bucket)
    keys.append(_put(bucket, f"{ROOT}feed.xml", render_digest_feed(cards, site_url).encode(), INDEX_CACHE))
    keys.append(_put(bucket, f"{ROOT}index.html", _digest_index(cards), INDEX_CACHE))
    keys.append(_put(bucket, "index.html", _root_index(bucket), INDEX_CACHE))
    return keys


def list_repositories(bucket: Bucket) -> list[dict[str, Any]]:
    """Repositories, and slices of them, with at least one report, each with its report count and latest report
    (home language)."""
    repos = []
    for owner in bucket.folders(""):
        if owner == ROOT:
            continue
        for repo_prefix in bucket.folders(owner):
            for prefix in [repo_prefix, *bucket.folders(f"{repo_prefix}{sitepaths.SLICES}/")]:
                slugs = sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in bucket.folders(prefix + "reports/"))
                if not slugs:
                    continue
                repo = prefix.rstrip("/")
                latest = _load(bucket, f"{repo}/reports/{slugs[-1]}/report.json")
                repos.append({"repo": clean(sitepaths.display(repo)), "href": f"{repo}/", "count": len(slugs),
                              "latest": index_card(latest, slugs[-1]) if latest else None})
    def newest(r: dict[str, Any]) -> str:
        return str(r["latest"]["since"]) if r["latest"] else ""

    return sorted(repos, key=newest, reverse=True)


def rebuild_indexes(bucket: Bucket, repo: str, site_url: str = "", home: str | None = None) -> list[str]:
    """Rewrite the repository's dashboard and feed in each language it has reports in, and the root index.html."""
    from prhub.site import dashboard

    reports = published(bucket, repo)
    records = pull_records(bucket, repo)
    home = home or next((r.get("language") for _, sub, r in reports if not sub), None) or "zh"
    cards = sorted((index_card(r, slug, sub) for slug, sub, r in reports),
                   key=lambda e: (e["since"], e["until"]), reverse=True)
    languages = sorted({c["language"] for c in cards} | {home})
    where = {lang: sitepaths.repo_dir(repo, lang, home) for lang in languages}
    keys = []
    for lang in languages:
        entries = [c for c in cards if c["language"] == lang]
        board = dashboard.build(reports, lang, records)
        page = render_repo_index(repo, entries, lang, board, sitepaths.alternates(where, lang),
                                 depth=0 if lang == home else 1)
        keys.append(_put(bucket, where[lang] + "index.html", page.encode(), INDEX_CACHE))
        if board is not None:  # the lists the page caps, whole (its "full list" link)
            keys.append(_put(bucket, where[lang] + "dashboard.json", dashboard.full_lists(board).encode(),
                             INDEX_CACHE))
        keys.append(_put(bucket, where[lang] + "feed.xml", render_feed(repo, entries, site_url, lang).encode(),
                         INDEX_CACHE))
    # The reports/ folder's own page, in the home language: the reports listed on the repository's page
    reports_page = render_listing(
        f"{clean(sitepaths.display(repo))} · {labels(home)['reports']}",
        [{**c, "href": f"{c['slug']}/"} for c in cards if c["language"] == home and not c["sub"]], home,
        "../" * (repo.count("/") + 2), up={"href": "../", "name": clean(sitepaths.display(repo))})
    keys.append(_put(bucket, where[home] + "reports/index.html", reports_page.encode(), INDEX_CACHE))
    keys.append(_put(bucket, "index.html", _root_index(bucket), INDEX_CACHE))
    return keys


def invalidation_paths(paths: list[str]) -> list[str]:
    """Paths as CloudFront caches them: leading "/", and "/x/" beside "/x/index.html" (what readers request)."""
    out: list[str] = []
    for path in paths:
        path = "/" + path.lstrip("/")
        for item in (path, path[: -len("index.html")] if path.endswith("/index.html") or path == "/index.html" else ""):
            if item and item not in out:
                out.append(item)
    return out if len(out) <= MAX_INVALIDATION_PATHS else ["/*"]


def invalidate(cdn: Cdn, paths: list[str]) -> None:
    """Ask the CDN to drop its copies of `paths` (bucket keys or URL paths)."""
    if paths:
        cdn.invalidate(invalidation_paths(paths))


def rewrite(path: str) -> str:
    """The CloudFront Function's rule: "/a/" and "/a" (no extension) serve "/a/index.html"."""
    if path.endswith("/"):
        return path + "index.html"
    if "." not in path.rsplit("/", 1)[-1]:
        return path + "/index.html"
    return path
