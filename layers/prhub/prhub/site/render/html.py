"""index.html of a report and the site's pages (Jinja2 with autoescape; templates/*.html.j2).

Untrusted text is escaped by Jinja; the only markup inserted unescaped is what
this module builds itself (PR links with checked http(s) URLs, charts whose
labels charts.svg escapes). Pages carry a CSP that allows no script at all.
"""
from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from prhub.core.report import Report
from prhub.core.text import Piece, pieces
from prhub.site import paths as sitepaths
from prhub.site.render import charts
from prhub.site.render.view import view


def pr_link(ref: dict[str, Any]) -> Markup:
    """#123 linked to its PR when the data has an http(s) URL; plain text otherwise."""
    if ref.get("url"):
        title = f' title="{escape(ref["title"])}"' if ref.get("title") else ""
        return Markup('<a class="pr" href="{}"{} rel="nofollow noopener">{}</a>').format(
            ref["url"], Markup(title), ref["label"])
    return Markup('<span class="pr">{}</span>').format(ref["label"])


def html_text(value: str, links: dict[int, str] | None = None) -> Markup:
    """Escaped text with each "#N" of a PR in the data linked to its URL and code (`name`, snake_case, files) in
    <code>."""
    return Markup("").join(_piece(p) for p in pieces(value, links or {}))


def _piece(piece: Piece) -> Markup:
    if piece.code:
        return Markup("<code>{}</code>").format(piece.text)
    if piece.url:
        return Markup('<a class="pr" href="{}" rel="nofollow noopener">{}</a>').format(piece.url, piece.text)
    return escape(piece.text)


def pr_links(refs: list[dict[str, Any]], sep: str = ", ") -> Markup:
    return Markup(escape(sep)).join(pr_link(r) for r in refs)


def svg(series: charts.Series) -> Markup:
    """A chart as inline SVG (charts.svg escapes its labels)."""
    return Markup(charts.svg(series))


def columns(chart: charts.Columns) -> Markup:
    """Weekly columns as inline SVG (charts.columns_svg escapes its labels)."""
    return Markup(charts.columns_svg(chart))


def demote(html: Markup) -> Markup:
    """A section's subheadings one level down, for the appendix, whose sections are <h3> under its <h2>. Only the
    templates write tags: every untrusted string in `html` was escaped, so "<h3>" is always a template's."""
    return Markup(str(html).replace("<h3>", "<h4>").replace("</h3>", "</h4>"))


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("prhub.site", "templates"),
                             autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pr_link=pr_link, pr_links=pr_links, html_text=html_text, svg=svg, columns=columns,
                       demote=demote)
    return env


def render_page(template: str, **context: Any) -> str:
    """Render one of the site's templates (report, repository and root pages, feed)."""
    return environment().get_template(template).render(**context)


def render_html(report: Report, home: str | None = None, alternates: list[dict[str, str]] | None = None) -> str:
    """The report page: same sections as report.md, inline SVG charts, no JavaScript.

    Its PR numbers link to the PR pages in the same language; `alternates` are the links to the other languages.
    """
    home = home or report["language"]
    here = sitepaths.report_folder(report, home)
    pulls = sitepaths.relative(here, f"{sitepaths.base(report)}/pull/")
    links = (pulls, sitepaths.lang_dir(report["language"], home))
    return render_page("report.html.j2", **view(report, pull_links=links).context(), alternates=alternates or [],
                       **sitepaths.nav(here, sitepaths.base(report), report["language"], home))
