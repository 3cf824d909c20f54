"""The static site in the bucket: report files, repository and root indexes, Atom feeds.

Contract (`bucket` is a Bucket, e.g. prhub.aws.S3Bucket; `cdn` a Cdn, e.g. prhub.aws.CloudFrontCdn):
    publish_report(bucket, report, files) -> list[str]   writes <owner>/<repo>/reports/<slug>/<file>; returns keys
    rebuild_indexes(bucket, repo, site_url='') -> list[str]  repo index.html, feed.xml, root index.html
    invalidate(cdn, paths) -> None                        drops CloudFront's copies (no-op without a distribution)
    rewrite(path) -> str                                  CloudFront's /path/ -> /path/index.html

Every object gets its Content-Type and a Cache-Control: report files change
only when a period is re-run (and then CloudFront is invalidated), so browsers
keep them a day; indexes and feeds change every week, so they stay fresh.
"""
from __future__ import annotations

import json
import posixpath
import uuid
from collections.abc import Iterator
from typing import Any, Protocol

from prhub.period import Period
from prhub.render.common import clean, num, safe_url
from prhub.render.labels import labels
from prhub.report import Report


def _render_page(template: str, **values: Any) -> str:
    # Imported here: flow imports this module in every function, and the score worker must not load Jinja2.
    from prhub.render.html import render_page

    return render_page(template, **values)

class Bucket(Protocol):
    """Where the site lives (the stack's SiteBucket)."""

    def put(self, key: str, body: bytes, content_type: str, cache_control: str) -> None: ...

    def get(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is no such key."""
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


def report_prefix(report: Report) -> str:
    since, until, tz = report["period"]["since"], report["period"]["until"], report["period"]["tz"]
    return f"{report['repo']}/reports/{Period.parse(since, until, tz).slug}/"


def _put(bucket: Bucket, key: str, body: bytes, cache_control: str) -> str:
    bucket.put(key, body, content_type(key), cache_control)
    return key


def publish_report(bucket: Bucket, report: Report, files: dict[str, bytes]) -> list[str]:
    """Write the report's files under its period's prefix; report.json last, so listings never see half a report."""
    prefix = report_prefix(report)
    order = sorted(files, key=lambda name: name == "report.json")
    return [_put(bucket, prefix + name, files[name], REPORT_CACHE) for name in order]


def _load(bucket: Bucket, key: str) -> dict[str, Any] | None:
    body = bucket.get(key)
    return None if body is None else json.loads(body)  # type: ignore[no-any-return]


def _shorten(text: str, limit: int) -> str:
    """A teaser for list pages and feeds; the report page keeps the whole text."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def index_card(report: dict[str, Any], slug: str) -> dict[str, Any]:
    """One line of a repository page / one feed entry, from a report.json."""
    stats = report.get("stats") or {}
    highlights = [clean(h.get("text")) for h in report.get("highlights", []) if clean(h.get("text"))]
    summary = [clean(p) for p in str(report.get("summary") or "").split("\n\n") if clean(p)]
    period = report.get("period") or {}
    return {
        "slug": slug, "href": f"reports/{slug}/", "title": clean(report.get("title")) or slug,
        "since": clean(period.get("since")), "until": clean(period.get("until")),
        "generated_at": clean(report.get("generated_at")), "language": report.get("language", "zh"),
        "pr_count": num(stats.get("pr_count", 0)), "key_pr_count": num(stats.get("key_pr_count", 0)),
        "avg_importance": num(stats.get("avg_importance", 0.0)), "avg_insight": num(stats.get("avg_insight", 0.0)),
        "highlight": _shorten(highlights[0], 240) if highlights else "",
        "summary": _shorten(summary[0], 600) if summary else "",
    }


def list_reports(bucket: Bucket, repo: str) -> list[dict[str, Any]]:
    """Every published report of `repo`, newest period first."""
    entries = []
    for prefix in bucket.folders(f"{repo}/reports/"):
        slug = prefix.rstrip("/").rsplit("/", 1)[-1]
        report = _load(bucket, prefix + "report.json")
        if report is not None:
            entries.append(index_card(report, slug))
    return sorted(entries, key=lambda e: (e["since"], e["until"]), reverse=True)


def _language(entries: list[dict[str, Any]]) -> str:
    return entries[0]["language"] if entries else "zh"


def render_repo_index(repo: str, entries: list[dict[str, Any]]) -> str:
    lang = _language(entries)
    return _render_page("repo.html.j2", L=labels(lang), html_lang="zh-CN" if lang == "zh" else "en",
                       repo=clean(repo), repo_url=safe_url(f"https://github.com/{repo}"), reports=entries)


def _atom_time(value: str) -> str:
    return value if value.endswith("Z") or "+" in value[10:] else value + "Z"


def render_feed(repo: str, entries: list[dict[str, Any]], site_url: str = "") -> str:
    """An Atom feed of the repository's reports (links absolute when the site URL is known)."""
    base = (safe_url(site_url) or "").rstrip("/")
    root = f"{base}/{repo}/" if base else ""
    items = [{**e, "id": uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{repo}:{e['slug']}").urn,
              "updated": _atom_time(e["generated_at"] or f"{e['until']}T00:00:00Z"), "link": root + e["href"]}
             for e in entries[:FEED_ENTRIES]]
    updated = max((i["updated"] for i in items), default="1970-01-01T00:00:00Z")
    return _render_page("feed.xml.j2", L=labels(_language(entries)), repo=clean(repo), entries=items,
                       feed_id=uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{repo}").urn, updated=updated,
                       self_link=f"{root}feed.xml" if root else "feed.xml", home=root or "./")


def render_root_index(repos: list[dict[str, Any]]) -> str:
    lang = repos[0]["latest"]["language"] if repos and repos[0].get("latest") else "zh"
    return _render_page("root.html.j2", L=labels(lang), html_lang="zh-CN" if lang == "zh" else "en", repos=repos)


def list_repositories(bucket: Bucket) -> list[dict[str, Any]]:
    """Repositories with at least one report, each with its report count and latest report."""
    repos = []
    for owner in bucket.folders(""):
        for repo_prefix in bucket.folders(owner):
            slugs = sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in bucket.folders(repo_prefix + "reports/"))
            if not slugs:
                continue
            repo = repo_prefix.rstrip("/")
            latest = _load(bucket, f"{repo}/reports/{slugs[-1]}/report.json")
            repos.append({"repo": clean(repo), "href": f"{repo}/", "count": len(slugs),
                          "latest": index_card(latest, slugs[-1]) if latest else None})
    def newest(r: dict[str, Any]) -> str:
        return str(r["latest"]["since"]) if r["latest"] else ""

    return sorted(repos, key=newest, reverse=True)


def rebuild_indexes(bucket: Bucket, repo: str, site_url: str = "") -> list[str]:
    """Rewrite the repository's index.html and feed.xml and the root index.html from what the bucket holds."""
    entries = list_reports(bucket, repo)
    keys = [
        _put(bucket, f"{repo}/index.html", render_repo_index(repo, entries).encode(), INDEX_CACHE),
        _put(bucket, f"{repo}/feed.xml", render_feed(repo, entries, site_url).encode(), INDEX_CACHE),
    ]
    keys.append(_put(bucket, "index.html", render_root_index(list_repositories(bucket)).encode(), INDEX_CACHE))
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
