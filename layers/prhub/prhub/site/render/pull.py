"""A PR's page (prhub.site.pulls.PullPage) as index.html, report.md, report.pdf and report.json.

The same machinery as a week: a header, then ordered `Section`s that each renderer
lays out by kind (sections.*.j2 macros, pdf.LAYOUTS), with the PDF's CJK font and
its charts. Links: on the web page PR numbers go to the PRs' own pages beside this
one and the reports to their pages; Markdown and PDF, which travel without the
site, link PRs to GitHub.
"""
from __future__ import annotations

import json
from typing import Any

from prhub.site import paths as sitepaths
from prhub.site.pulls import Mention, PullPage
from prhub.site.render import charts
from prhub.site.render.common import clean, num, safe_url, usd
from prhub.site.render.labels import labels, risk_label
from prhub.site.render.view import Section, scorer_text

# The section kinds a PR page lays out (the week's render/view.py SECTIONS has the rest).
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


def _related(page: PullPage, refs: _Refs, L: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    if page["cluster"]:
        c = page["cluster"]
        rows.append({"label": f"{L['cluster']}: {clean(c['title'])}", "links": [refs.pr(n) for n in c["prs"]],
                     "note": clean(c.get("reason"))})
    for r in page["reverts"]:
        chain = [n for n in (r["reverts"], r["pr"], r["relanded_by"]) if n is not None]
        rows.append({"label": L["revert_chain"], "links": [refs.pr(n) for n in chain], "note": clean(r.get("title"))})
    for key in ("earlier", "later"):
        if page["neighbours"][key]:  # type: ignore[literal-required]
            rows.append({"label": L[key], "links": [refs.pr(n) for n in page["neighbours"][key]],  # type: ignore[literal-required]
                         "note": ""})
    return rows


def _files_chart(page: PullPage, L: dict[str, str]) -> list[charts.Series]:
    groups = [g for g in page["files"] if g["additions"] + g["deletions"] > 0][: charts.MAX_MODULES]
    if len(groups) < 2:  # one bar says nothing the table does not
        return []
    return [charts.Series("files", L["chart_files"], [clean(g["module"]) for g in groups],
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


def pull_view(page: PullPage, home: str | None = None, web: bool = True, with_charts: bool = True) -> dict[str, Any]:
    """The header fields and the non-empty sections of a PR page, as every rendering reads them."""
    home = home or page["language"]
    lang = page["language"]
    L = labels(lang)
    pr = page["pr"]
    refs = _Refs(page, home, web)
    # The scorer without the run's totals: the page shows what this PR's model calls used (model_usage).
    kind = {k: v for k, v in page["scorer"].items() if k not in ("tokens_in", "tokens_out", "cost")}
    scorer = scorer_text({"scorer": kind, "language": lang})  # type: ignore[typeddict-item]
    if pr.get("scored_by") and pr.get("scored_by") != page["scorer"].get("kind"):
        scorer = L.get(f"scorer_{pr['scored_by']}", clean(pr["scored_by"]))
    facts = [(L["author"], clean(pr["author"])), (L["merged_at"], clean(pr["merged_at"])),
             (L["modules"], ", ".join(clean(m) for m in pr["modules"])), (L["type"], clean(pr["type"])),
             (L["importance"], num(pr["importance"])), (L["insight"], num(pr["insight"])),
             (L["changes"], f"+{num(pr['additions'])} / -{num(pr['deletions'])} · {num(pr['changed_files'])}"),
             (L["scored_by"], scorer)]
    if pr["breaking"]:
        facts.insert(4, (L["breaking"], clean(pr.get("breaking_reason")) or L["yes"]))
    if clean(page.get("note")):
        facts.append((L["scored_note"], clean(page["note"])))
    if usage := model_usage(page):
        facts.append((L["model_usage"], usage))
    # Line counts when the scorer recorded them per file; a page never prints "+0 / -0" for unknown.
    files = [{"module": clean(g["module"]),
              "lines": f"+{num(g['additions'])} / -{num(g['deletions'])}" if any("additions" in f for f in g["files"])
              else "",
              "files": [{"path": clean(f["path"]),
                         "lines": f"+{num(f['additions'])} / -{num(f['deletions'])}" if "additions" in f else ""}
                        for f in g["files"]]}
             for g in page["files"]]
    risks = [{"kind": clean(r["kind"]), "label": risk_label(clean(r["kind"]), lang), "detail": clean(r["detail"]),
              "prs": [], "items": []} for r in pr["risks"]]
    mentions = [{"label": "", "links": [refs.report(m)], "note": ""} for m in page["mentions"]]
    chart = _files_chart(page, L) if with_charts else []
    sections = [
        Section("summary", L["summary"], "paragraphs", [clean(pr["summary"])] if clean(pr["summary"]) else []),
        Section("key-points", L["key_points"], "notes",
                [{"text": clean(k), "prs": []} for k in pr["key_points"] if clean(k)]),
        Section("importance", L["importance_reasons"], "notes",
                [{"text": clean(k), "prs": []} for k in pr.get("reasons", []) if clean(k)]),
        Section("risks", L["risks"], "risks", risks),
        Section("files", L["files"], "files", {"groups": files, "charts": chart} if files else None),
        Section("related", L["related"], "link_rows", _related(page, refs, L)),
        Section("mentions", L["mentioned_in"], "link_rows", mentions),
    ]
    here = _folder(page, home)
    report = refs.report(page["report"])
    number = pr["number"]
    return {
        "L": L, "lang": lang, "html_lang": "zh-CN" if lang == "zh" else "en",
        "links": {int(n): u for n, u in ((k, refs.pr(int(k))["url"]) for k in page["links"]) if u},
        "title": f"#{number} {clean(pr['title'])}", "repo": clean(sitepaths.display(sitepaths.base(page))),
        "github": safe_url(pr.get("url")), "facts": facts, "report": report,
        "sections": [s for s in sections if s.data],
        **sitepaths.nav(here, sitepaths.base(page), lang, home),
    }


def render_pull_html(page: PullPage, home: str | None = None, alternates: list[dict[str, str]] | None = None) -> str:
    from prhub.site.render.html import render_page

    return render_page("pull.html.j2", **pull_view(page, home), alternates=alternates or [])


def render_pull_markdown(page: PullPage) -> str:
    import re

    from prhub.site.render.markdown import environment

    text = environment().get_template("pull.md.j2").render(**pull_view(page, web=False, with_charts=False))
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def render_pull_pdf(page: PullPage) -> bytes:
    from prhub.site.render.pdf import render_sections

    v = pull_view(page, web=False)
    L = v["L"]
    byline = [f"{L['repo']} {v['repo']}", *(f"{k}: {val}" for k, val in v["facts"])]
    return render_sections(v["title"], L, v["links"], byline, v["sections"])


def render_pull_all(page: PullPage, home: str | None = None) -> dict[str, bytes]:
    """The four files of a PR page; report.json is the page itself (schema prhub.pull/1)."""
    return {
        "report.json": json.dumps(page, ensure_ascii=False, indent=2).encode(),
        "report.md": render_pull_markdown(page).encode(),
        "report.pdf": render_pull_pdf(page),
        "index.html": render_pull_html(page, home).encode(),
    }
