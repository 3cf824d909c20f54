"""A PR's page (prhub.site.pulls.PullPage) as index.html, report.md, report.pdf and report.json.

The same machinery as a week: a header, then ordered `Section`s that each renderer
lays out by kind (sections.*.j2 macros, pdf.LAYOUTS), with the PDF's CJK font and
its charts. Links: on the web page PR numbers go to the PRs' own pages beside this
one and the reports to their pages; Markdown and PDF, which travel without the
site, link PRs to GitHub.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from prhub.core.errors import InputError
from prhub.core.period import parse_timestamp, zone
from prhub.core.text import clean, comment_link, num, safe_url, usd
from prhub.site import paths as sitepaths
from prhub.site.pulls import Mention, PullPage
from prhub.site.render import charts
from prhub.site.render.labels import labels, risk_label, type_label
from prhub.site.render.view import Section, TemplateView, scorer_text, zone_name

# The section kinds a PR page lays out (the week's render/view.py BRIEF and APPENDIX have the rest).
PULL_KINDS = {"paragraphs", "notes", "risks", "files", "link_rows"}


def _folder(page: PullPage, home: str) -> str:
    return sitepaths.pull_dir(sitepaths.base(page), page["pr"]["number"], page["language"], home)


class _Refs:
    """PR references on this page: to the PR pages beside it (web) or to GitHub (Markdown, PDF)."""

    def __init__(self, page: PullPage, home: str, web: bool) -> None:
        self.page, self.home, self.web = page, home, web
        self.here = _folder(page, home)

    def pr(self, number: int) -> dict[str, Any]:
        url = safe_url(self.page["links"].get(str(number)))
        if self.web and url:  # the PR is in a published report: it has a page of its own
            url = sitepaths.relative(self.here, sitepaths.pull_dir(sitepaths.base(self.page), number,
                                                                   self.page["language"], self.home))
        return {"number": number, "label": f"#{number}", "url": url, "title": ""}

    def report(self, mention: Mention) -> dict[str, Any]:
        lang = mention.get("language") or self.page["language"]
        folder = sitepaths.report_dir(sitepaths.base(self.page), mention["slug"], lang, self.home)
        return {"label": clean(mention["title"]), "url": sitepaths.relative(self.here, folder) if self.web else None,
                "title": ""}


def _related(page: PullPage, refs: _Refs, words: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    if page["cluster"]:
        c = page["cluster"]
        rows.append({"label": f"{words['cluster']}: {clean(c['title'])}", "links": [refs.pr(n) for n in c["prs"]],
                     "note": clean(c.get("reason"))})
    for r in page["reverts"]:
        chain = [n for n in (r["reverts"], r["pr"], r["relanded_by"]) if n is not None]
        rows.append({"label": words["revert_chain"], "links": [refs.pr(n) for n in chain],
                     "note": clean(r.get("title"))})
    for key in ("earlier", "later"):
        if page["neighbours"][key]:  # type: ignore[literal-required]
            rows.append({"label": words[key], "links": [refs.pr(n) for n in page["neighbours"][key]],  # type: ignore[literal-required]
                         "note": ""})
    return rows


def _files_chart(page: PullPage, words: dict[str, str]) -> list[charts.Series]:
    groups = [g for g in page["files"] if g["additions"] + g["deletions"] > 0][: charts.MAX_MODULES]
    if len(groups) < 2:  # one bar says nothing the table does not
        return []
    return [charts.Series("files", words["chart_files"], [clean(g["module"]) for g in groups],
                          [g["additions"] + g["deletions"] for g in groups], True)]


def model_usage(page: PullPage) -> str:
    """"868 in / 61 out tokens · ≈ $0.000136 (prices 2025-06-01)": what scoring the PR spent in its run, priced as
    report.json prices it; "" when it spent no model tokens."""
    pr, words = page["pr"], labels(page["language"])
    if "tokens_in" not in pr and "tokens_out" not in pr:
        return ""
    text = words["pr_tokens"].format(tokens_in=num(pr.get("tokens_in", 0)), tokens_out=num(pr.get("tokens_out", 0)))
    cost = pr.get("cost_usd")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        table = page["scorer"].get("cost")
        as_of = clean(table["prices_as_of"]) if table else ""
        text += f" · ≈ {usd(cost)}" + (f" ({words['prices_as_of'].format(date=as_of)})" if as_of else "")
    return text


def _scorer_line(page: PullPage, words: dict[str, str]) -> str:
    """Who scored the PR: the report's scorer without the run's totals (the page shows what this PR's model calls
    used, model_usage), or the fallback that scored this PR instead."""
    pr, lang = page["pr"], page["language"]
    kind = {k: v for k, v in page["scorer"].items() if k not in ("tokens_in", "tokens_out", "cost")}
    if pr["scored_by"] and pr["scored_by"] != page["scorer"]["kind"]:
        return words.get(f"scorer_{pr['scored_by']}", clean(pr["scored_by"]))
    return scorer_text({"scorer": kind, "language": lang})  # type: ignore[typeddict-item]


def local_time(merged_at: str, tz: str | None, lang: str = "en") -> str:
    """A merge time as the report's readers keep time ("2026-05-06 14:03 (Asia/Shanghai)", in zh "（北京时间）", as
    the report's header names it); as stored (UTC) when the page knows no zone or the value is not a timestamp."""
    if not tz:
        return clean(merged_at)
    try:
        words = labels(lang)
        when = f"{parse_timestamp(merged_at).astimezone(zone(tz)):%Y-%m-%d %H:%M}"
        return f"{when}{words['lp']}{zone_name(tz, lang)}{words['rp']}"
    except (ValueError, InputError):
        return clean(merged_at)


def _facts(page: PullPage, words: dict[str, str]) -> list[tuple[str, str]]:
    """The header's (label, value) rows: author, merge time, modules, scores, size, scorer, and what applies."""
    pr = page["pr"]
    merged = local_time(pr["merged_at"], page.get("tz"), page["language"])
    kind = clean(type_label(str(pr["type"]), page["language"]))
    files = words["files_one"] if pr["changed_files"] == 1 else words["files_n"].format(n=num(pr["changed_files"]))
    facts = [(words["author"], clean(pr["author"])), (words["merged_at"], merged),
             (words["modules"], ", ".join(clean(m) for m in pr["modules"])), (words["type"], kind),
             (words["importance"], num(pr["importance"])), (words["insight"], num(pr["insight"])),
             (words["changes"], f"+{num(pr['additions'])} / -{num(pr['deletions'])} · {files}"),
             (words["scored_by"], _scorer_line(page, words))]
    if pr["breaking"]:
        facts.insert(4, (words["breaking"], clean(pr["breaking_reason"]) or words["yes"]))
    if pr.get("judged") in ("key", "minor"):  # a verdict the maintainers gave (issue 27): the page says so
        facts.append((words["judged"], words[f"judged_{pr['judged']}"]))
    if clean(page["note"]):
        facts.append((words["scored_note"], clean(page["note"])))
    if pr.get("reviewers"):
        facts.append((words["reviewers"], ", ".join(clean(r) for r in pr["reviewers"])))
    if usage := model_usage(page):
        facts.append((words["model_usage"], usage))
    return facts


def _lines(item: Any) -> str:
    return f"+{num(item['additions'])} / -{num(item['deletions'])}"


def _file_groups(page: PullPage) -> list[dict[str, Any]]:
    """The files by module; line counts when the scorer recorded them per file (never "+0 / -0" for unknown)."""
    return [{"module": clean(g["module"]),
             "lines": _lines(g) if any("additions" in f for f in g["files"]) else "",
             "files": [{"path": clean(f["path"]), "lines": _lines(f) if "additions" in f else ""} for f in g["files"]]}
            for g in page["files"]]


def _notes(texts: Any) -> list[dict[str, Any]]:
    return [{"text": clean(k), "prs": []} for k in texts if clean(k)]


def _threads(pr: Any, words: dict[str, str]) -> list[dict[str, Any]]:
    """The review threads open at merge (or of unknown resolution), each linked to its first comment."""
    rows = []
    for t in (pr.get("review") or {}).get("threads") or []:
        where = clean(f"{t['path']}:{t['line']}" if t.get("line") is not None else t["path"])
        state = words["outdated"] if t.get("outdated") else ""
        state = ", ".join(x for x in (state, "" if t.get("resolved") is False else words["resolution_unknown"]) if x)
        url = comment_link(t.get("url"), pr.get("url"))
        rows.append({"label": f"{where} ({state})" if state else where,
                     "links": [{"label": words["comment"], "url": url}] if url else [],
                     "note": f"{clean(t.get('author'))}: {clean(t.get('text'))}"})
    return rows


def _sections(page: PullPage, refs: _Refs, words: dict[str, str], with_charts: bool) -> list[Section]:
    """The page's non-empty sections in reading order."""
    pr, lang = page["pr"], page["language"]
    files = _file_groups(page)
    risks = [{"kind": clean(r["kind"]), "label": risk_label(clean(r["kind"]), lang), "detail": clean(r["detail"]),
              "prs": [], "items": [], "more": ""} for r in pr["risks"]]
    chart = _files_chart(page, words) if with_charts else []
    sections = [
        Section("summary", words["summary"], "paragraphs", [clean(pr["summary"])] if clean(pr["summary"]) else []),
        Section("key-points", words["key_points"], "notes", _notes(pr["key_points"])),
        Section("importance", words["importance_reasons"], "notes", _notes(pr["reasons"])),
        Section("risks", words["risks"], "risks", risks),
        Section("threads", words["pr_threads"], "link_rows", _threads(pr, words)),
        Section("files", words["files"], "files", {"groups": files, "charts": chart} if files else None),
        Section("related", words["related"], "link_rows", _related(page, refs, words)),
        _mentions(page, refs, words),  # last: relist_pull replaces it alone
    ]
    return [s for s in sections if s.data]


def _mentions(page: PullPage, refs: _Refs, words: dict[str, str]) -> Section:
    """The other reports listing the PR (a month, a year): the page's own report is its byline's."""
    return Section("mentions", words["mentioned_in"], "link_rows",
                   [{"label": "", "links": [refs.report(m)], "note": ""} for m in page["mentions"]
                    if m["slug"] != page["report"]["slug"]])


@dataclass(frozen=True)
class PullView(TemplateView):
    """A PR page as its renderings read it: the header's fields, then its non-empty sections."""
    words: dict[str, str]  # the page language's labels
    lang: str
    html_lang: str
    links: dict[int, str]  # PR number -> URL, for "#N" in the text
    title: str  # "#N title"
    repo: str
    github: str | None  # the PR on GitHub
    facts: list[tuple[str, str]]  # (label, value)
    report: dict[str, Any]  # the link to the report that scored it
    sections: list[Section]
    root_href: str
    repo_href: str
    feed_href: str


def pull_view(page: PullPage, home: str | None = None, web: bool = True, with_charts: bool = True) -> PullView:
    """The header fields and the non-empty sections of a PR page, as every rendering reads them."""
    home = home or page["language"]
    lang = page["language"]
    words = labels(lang)
    pr = page["pr"]
    refs = _Refs(page, home, web)
    nav = sitepaths.nav(_folder(page, home), sitepaths.base(page), lang, home)
    return PullView(
        words=words, lang=lang, html_lang="zh-CN" if lang == "zh" else "en",
        links={int(n): u for n, u in ((k, refs.pr(int(k))["url"]) for k in page["links"]) if u},
        title=f"#{pr['number']} {clean(pr['title'])}", repo=clean(sitepaths.display(sitepaths.base(page))),
        github=safe_url(pr["url"]), facts=_facts(page, words), report=refs.report(page["report"]),
        sections=_sections(page, refs, words, with_charts),
        root_href=nav["root_href"], repo_href=nav["repo_href"], feed_href=nav["feed_href"],
    )


def render_pull_html(page: PullPage, home: str | None = None, alternates: list[dict[str, str]] | None = None) -> str:
    from prhub.site.render.html import render_page

    return render_page("pull.html.j2", **pull_view(page, home).context(), alternates=alternates or [])


def render_pull_markdown(page: PullPage) -> str:
    from prhub.site.render.markdown import environment

    v = pull_view(page, web=False, with_charts=False)
    return _tidy(environment().get_template("pull.md.j2").render(**v.context()))


def _tidy(markdown: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"


def render_pull_pdf(page: PullPage, font: str = "") -> bytes:
    from prhub.site.render.pdf import render_sections

    v = pull_view(page, web=False)
    byline = [f"{v.words['repo']} {v.repo}", f"{v.words['own_report']}: {v.report['label']}",
              *(f"{k}: {val}" for k, val in v.facts)]
    # The other reports listing the PR are the site's navigation, and grow with every later report: left out, the PDF
    # depends on the PR's own page alone, so a year after its weeks keeps the weeks' PDFs (PDF_FREE).
    sections = [s for s in v.sections if s.id not in PDF_FREE]
    return render_sections(v.title, v.words, v.links, byline, sections, font)


# What the PR PDF leaves out (section keys), and so what a page can change without its PDF being rendered again.
PDF_FREE = frozenset({"mentions"})


def _others(page: PullPage) -> bool:
    """Whether the page names reports beside its own (it has a mentions section)."""
    return any(m["slug"] != page["report"]["slug"] for m in page["mentions"])


def _mentions_html(page: PullPage, home: str) -> str:
    return _mentions_rendered("html", _mentions(page, _Refs(page, home, web=True), labels(page["language"])))


def _mentions_markdown(page: PullPage) -> str:
    return _mentions_rendered("md", _mentions(page, _Refs(page, page["language"], web=False), labels(page["language"])))


_MENTIONS_HELD = 256
_mentions_done: dict[tuple[Any, ...], str] = {}


def _mentions_rendered(form: str, section: Section) -> str:
    """The mentions section as pull_sections.<form>.j2 lays it out ("" when it is empty), rendered once per heading
    and rows: the pages of one language folder link a report by the same relative URL, so a year's 1,649 relisted
    pages share a few. link_rows reads nothing of the context but its rows."""
    if not section.data:
        return ""
    rows = tuple((r["label"], r["note"], tuple((link["label"], link["url"]) for link in r["links"]))
                 for r in section.data)
    key = (form, section.heading, rows)
    done = _mentions_done.get(key)
    if done is None:
        if form == "html":
            from prhub.site.render.html import environment as html_environment

            template = html_environment().get_template("pull_sections.html.j2")
        else:
            from prhub.site.render.markdown import environment as md_environment

            template = md_environment().get_template("pull_sections.md.j2")
        done = template.render(sections=[section])
        if len(_mentions_done) >= _MENTIONS_HELD:
            _mentions_done.clear()
        _mentions_done[key] = done
    return done


# Where a PR page's last section, its mentions, ends (index.html) and starts (report.md): markup and headings of the
# templates' own, since untrusted text is escaped in both.
HTML_MAIN_END, HTML_MENTIONS = "</main>", '<section id="mentions">'


def relist_pull(page: PullPage, was: PullPage, stored: Mapping[str, bytes | None],
                home: str) -> dict[str, bytes] | None:
    """The files of `page` but its PDF, when it is the published page `was` naming other reports (pages.relisted):
    `stored` (was's index.html and report.md) with their mentions section, the last, rendered anew. A year after
    its weeks lists its 1,649 pages anew; rendering each whole took 1.6 ms, and two renderer processes to start.

    None when a stored file is not laid out as render_pull_all writes `was` (a page of an earlier layout, a damaged
    object): the page is rendered whole instead."""
    html, markdown = stored.get("index.html"), stored.get("report.md")
    if html is None or markdown is None:
        return None
    text, old = html.decode(), _mentions_html(was, home)
    end = text.rfind(HTML_MAIN_END)
    if end < 0 or not text[:end].endswith(old) or (HTML_MENTIONS in text[:end - len(old)]):
        return None
    # Markdown is tidied whole (blank lines collapsed, ends stripped): the stored file is cut where its mentions
    # section starts, and must come back from the cut and the old section tidied together.
    md, heading = markdown.decode(), "\n## " + labels(was["language"])["mentioned_in"] + "\n"
    cut = md.rfind(heading) + 1 if _others(was) else len(md)
    if cut <= 0 or heading in md[:cut] or _tidy(md[:cut] + "\n" + _mentions_markdown(was)) != md:
        return None
    return {"report.json": json.dumps(page, ensure_ascii=False, indent=2).encode(),
            "report.md": _tidy(md[:cut] + "\n" + _mentions_markdown(page)).encode(),
            "index.html": (text[:end - len(old)] + _mentions_html(page, home) + text[end:]).encode()}


def render_pull_all(page: PullPage, home: str | None = None, font: str = "", with_pdf: bool = True) -> dict[str, bytes]:
    """The four files of a PR page; report.json is the page itself (schema prhub.pull/1); `font` as render_all's.
    Without `with_pdf`, the other three: the page changed only where its PDF does not look (PDF_FREE)."""
    files = {"report.json": json.dumps(page, ensure_ascii=False, indent=2).encode(),
             "report.md": render_pull_markdown(page).encode()}
    if with_pdf:
        files["report.pdf"] = render_pull_pdf(page, font)
    files["index.html"] = render_pull_html(page, home).encode()
    return files
