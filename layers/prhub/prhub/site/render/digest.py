"""The organisation digest (prhub.report.digest, schema prhub.digest/1) as index.html, report.md, report.pdf and
report.json.

The same machinery as a week and a PR page: a header, then ordered `Section`s that each renderer lays out by
kind (sections.*.j2 macros, pdf.LAYOUTS). Links: on the web page repositories go to their reports and PRs to
their pages on the site (relative, so a copied site still works); Markdown and PDF, which travel without the
site, link PRs to GitHub and reports to the site only when its URL is known.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from prhub.core.text import clean, num, prs_counted, safe_url
from prhub.report import digest as domain
from prhub.site import paths as sitepaths
from prhub.site.render.labels import labels, type_label
from prhub.site.render.view import Section, TemplateView, dates, zone_name

WORDS = {
    "zh": {"repos": "各仓库", "top_prs": "跨仓库的重要 PR", "themes": "共同主题", "breaking": "破坏性变更",
           "missing": "截止时仍无报告", "summary": "概览", "no_report": "截止时无报告", "in": "见于",
           "module": "模块", "type": "类型", "feed": "汇总订阅", "name": "组织汇总",
           "counts": "合并 {pr} · 关键 {key} · 破坏性 {breaking} · 风险 {risks}", "prs_in": "{n} 个 PR",
           "reviewers": "各仓库的审阅者", "reviewed": "审阅 {n} 个 PR（要求修改 {asked} 个）"},
    "en": {"repos": "Repositories", "top_prs": "Most important PRs across repositories", "themes": "Shared themes",
           "breaking": "Breaking changes", "missing": "No report by the deadline", "summary": "Overview",
           "no_report": "no report by the deadline", "in": "in", "module": "module", "type": "type",
           "feed": "Digest feed", "name": "Organisation digest",
           "counts": "{pr} PRs · {key} key · {breaking} breaking · {risks} risks", "prs_in": "{n} PR(s)",
           "reviewers": "Reviewers across repositories",
           "reviewed": "reviewed {n} PR(s) ({asked} with changes requested)"},
}


def words(lang: str) -> dict[str, str]:
    return {**labels(lang), **{f"digest_{k}": v for k, v in WORDS.get(lang, WORDS["en"]).items()}}


def _here(digest: dict[str, Any]) -> str:
    return f"{domain.ROOT}{digest['period']['since']}-to-{digest['period']['until']}/"


@dataclass(frozen=True)
class DigestView(TemplateView):
    """A digest as its renderings read it: the header's fields, then its non-empty sections."""
    words: dict[str, str]  # the digest language's labels, with the digest's own (digest_*)
    lang: str
    html_lang: str
    links: dict[int, str]  # none: a digest's text cites no "#N" of its own
    title: str
    name: str
    since: str
    until: str
    dates: str  # since to until, as the language writes dates
    tz: str
    generated_at: str
    sections: list[Section]  # the brief
    appendix: list[Section]
    root_href: str
    feed_href: str


def _theme_line(theme: dict[str, Any], lang: str, w: dict[str, str]) -> str:
    """"类型 新功能：12 个 PR，见于 a/b、c/d" / "type feat: 12 PRs in a/b, c/d": a type in the digest's language."""
    name = type_label(clean(theme["name"]), lang) if theme["kind"] == "type" else clean(theme["name"])
    repos = ("、" if lang == "zh" else ", ").join(clean(r) for r in theme["repos"])
    prs = w["digest_prs_in"].format(n=num(theme["pr_count"]))
    if lang == "zh":
        return f"{w['digest_' + theme['kind']]} {name}：{prs}，{w['digest_in']} {repos}"
    return prs_counted(f"{w['digest_' + theme['kind']]} {name}: {prs} {w['digest_in']} {repos}")


def digest_view(digest: dict[str, Any], web: bool = True, site_url: str = "") -> DigestView:
    """The header and the non-empty sections of a digest, as every rendering reads them."""
    lang = digest["language"]
    w = words(lang)
    here = _here(digest)
    base = (safe_url(site_url) or "").rstrip("/")

    def site_link(path: str) -> str | None:
        if web:
            return sitepaths.relative(here, path)
        return safe_url(f"{base}/{path}") if base else None

    def pr(p: dict[str, Any]) -> dict[str, Any]:
        url = site_link(p["page"]) if web else safe_url(p["url"])
        return {"number": p["number"], "label": f"#{num(p['number'])}", "url": url or safe_url(p["url"]),
                "title": clean(p["title"])}

    counts = [{"label": clean(r["repo"]),
               "links": [{"label": clean(r["title"]), "url": site_link(r["path"])}],
               "note": w["digest_counts"].format(pr=num(r["pr_count"]), key=num(r["key_pr_count"]),
                                                 breaking=num(r["breaking_count"]), risks=num(r["risk_count"]))}
              for r in digest["repos"]]
    counts += [{"label": "", "links": [{"label": clean(m), "url": None}], "note": w["digest_no_report"]}
               for m in digest["missing"]]
    # a PR's key points are what its report's key-PR table says (in the report's language); a report before the
    # brief had none, and its summary stands in
    top = [{**pr(p), "title": f"{clean(p['repo'])} · {clean(p.get('headline') or p['title'])}",
            "original": clean(p["title"]), "modules": p["modules"], "importance": num(p["importance"]),
            "key_points": [clean(x) for x in p.get("points") or []], "summary": clean(p["summary"])}
           for p in digest["top_prs"]]
    themes = [{"text": _theme_line(t, lang, w), "prs": []} for t in digest["themes"]]
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for b in digest["breaking"]:
        by_repo.setdefault(clean(b["repo"]), []).append({"pr": pr(b), "detail": clean(b["detail"])})
    breaking = [{"kind": "breaking", "label": repo, "detail": "", "prs": [], "items": items, "more": ""}
                for repo, items in by_repo.items()]
    reviewers = [{"text": prs_counted(f"{clean(r['login'])}: " + w["digest_reviewed"].format(
                      n=num(r["pr_count"]), asked=num(r["changes_requested"]))
                      + f" {w['digest_in']} " + ", ".join(clean(x) for x in r["repos"])), "prs": []}
                 for r in digest.get("reviewers") or []]
    # The brief (what a reader of every repository reads first), then the appendix: each repository's counts
    # and who reviewed.
    sections = [
        Section("summary", w["digest_summary"], "paragraphs", [clean(digest["summary"])]),
        Section("top-prs", w["digest_top_prs"], "key_prs", top),
        Section("breaking", w["digest_breaking"], "risks", breaking),
        Section("themes", w["digest_themes"], "notes", themes),
        Section("missing", w["digest_missing"], "notes", [{"text": clean(m), "prs": []} for m in digest["missing"]]),
    ]
    appendix = [
        Section("repos", w["digest_repos"], "link_rows", counts),
        Section("reviewers", w["digest_reviewers"], "notes", reviewers),
    ]
    return DigestView(words=w, lang=lang, html_lang="zh-CN" if lang == "zh" else "en", links={},
                      title=clean(digest["title"]), name=clean(digest["name"]),
                      since=clean(digest["period"]["since"]), until=clean(digest["period"]["until"]),
                      dates=dates(digest["period"], lang, w),
                      tz=zone_name(digest["period"]["tz"], lang), generated_at=clean(digest["generated_at"]),
                      sections=[s for s in sections if s.data], appendix=[s for s in appendix if s.data],
                      root_href=sitepaths.relative(here, ""),
                      feed_href=sitepaths.relative(here, domain.ROOT) + "feed.xml")


def render_digest_html(digest: dict[str, Any]) -> str:
    from prhub.site.render.html import render_page

    return render_page("digest.html.j2", **digest_view(digest).context())


def render_digest_markdown(digest: dict[str, Any], site_url: str = "") -> str:
    from prhub.site.render.markdown import environment

    v = digest_view(digest, web=False, site_url=site_url)
    text = environment().get_template("digest.md.j2").render(**v.context())
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def render_digest_pdf(digest: dict[str, Any], site_url: str = "", font: str = "") -> bytes:
    from prhub.site.render.pdf import render_sections

    v = digest_view(digest, web=False, site_url=site_url)
    w = v.words
    byline = [f"{w['period']} {v.dates}{w['lp']}{v.tz}{w['rp']}", f"{w['generated_at']} {v.generated_at}"]
    return render_sections(v.title, w, v.links, byline, v.sections, font, v.appendix)


def render_digest_all(digest: dict[str, Any], site_url: str = "", font: str = "") -> dict[str, bytes]:
    """The four files of a digest; report.json is the digest itself (schema prhub.digest/1); `font` as
    render_all's."""
    return {
        "report.json": json.dumps(digest, ensure_ascii=False, indent=2).encode(),
        "report.md": render_digest_markdown(digest, site_url).encode(),
        "report.pdf": render_digest_pdf(digest, site_url, font),
        "index.html": render_digest_html(digest).encode(),
    }
