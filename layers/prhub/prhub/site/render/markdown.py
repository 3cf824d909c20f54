"""report.md: the report as Markdown (Jinja2, templates/report.md.j2 and a macro per section kind in sections.md.j2).

Autoescape is off (it is Markdown, not HTML), so every untrusted string goes
through the `md` filter, which backslash-escapes whatever Markdown or HTML
could turn into markup: no link, image, tag or heading appears that the
template did not write.
"""
from __future__ import annotations

import re
from functools import cache
from typing import Any

import jinja2

from prhub.core.report import Report
from prhub.core.text import Piece, clean, pieces
from prhub.site.render.view import view

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&@])")
# GFM autolinks bare URLs (scheme://, mailto:, xmpp:) and www. names; an escaped ":" or "." keeps them text.
_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):(?=//)|\b(mailto|xmpp|javascript|vbscript|data|file):")
_WWW = re.compile(r"(?i)\bwww\.")
_LINE_START = re.compile(r"^(\d+)([.)])|^([-+=])")


def _escape(text: str, line_start: bool = True) -> str:
    text = _SPECIAL.sub(r"\\\1", text)
    text = _SCHEME.sub(lambda m: (m.group(1) or m.group(2)) + "\\:", text)
    text = _WWW.sub(r"www\\.", text)
    if not line_start:
        return text
    # A leading "-", "+" or "1." would start a list where the template put a paragraph.
    return _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else f"\\{m.group(3)}", text)


def md(value: Any) -> str:
    """Untrusted text as literal Markdown text on one line."""
    return _escape(clean(value))


def md_text(value: Any, links: dict[int, str] | None = None) -> str:
    """Like `md`, with each "#N" of a PR in the data linked to its URL and code (`name`, snake_case, files) set as
    code spans, whose content is literal Markdown."""
    return "".join(_piece(p, i == 0) for i, p in enumerate(pieces(clean(value), links or {})))


def _piece(piece: Piece, first: bool) -> str:
    if piece.code:  # pieces() keeps "`", "|" and line breaks out of code: nothing can close the span early
        return f"`{piece.text}`"
    return f"[\\{piece.text}](<{piece.url}>)" if piece.url else _escape(piece.text, first)


def pr_link(ref: dict[str, Any]) -> str:
    """#123 as a link to its PR when the data gives an http(s) URL (already checked by `view`)."""
    if ref.get("more"):  # "…另 N 个": how many PRs the list leaves out
        return md(ref["label"])
    label = "\\#" + md(ref["label"][1:])
    return f"[{label}](<{ref['url']}>)" if ref.get("url") else label


def pr_links(refs: list[dict[str, Any]], sep: str = ", ") -> str:
    return sep.join(pr_link(r) for r in refs)


def demote(text: str) -> str:
    """A section's subheadings one level down ("### " → "#### "), for the appendix, whose sections are "###" under
    its "##". Untrusted text is escaped ("\\#"), so a line that starts with "#" is always a template's heading."""
    return re.sub(r"(?m)^#", "##", text)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("prhub.site", "templates"), autoescape=False,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(md=md, md_text=md_text, pr_link=pr_link, pr_links=pr_links, demote=demote)
    return env


def render_markdown(report: Report) -> str:
    """The report as Markdown, sections in reading order, empty ones left out (and no charts)."""
    text = environment().get_template("report.md.j2").render(**view(report, with_charts=False).context())
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
