"""Untrusted text made inert in each platform's markup, and sizes measured as the platforms count them.

PR titles and highlights are written by PR authors: in a chat message they must not become mentions
(Slack's <!channel>), links ([text](url), <url|text>), tags (WeCom's <font>, Feishu's <at>) or HTML.
Only the URLs Prhub itself puts in a message are links.
"""
from __future__ import annotations

import html
import json
from typing import Any

from prhub.notify.message import Message

# Markdown as DingTalk, WeCom, Feishu (lark_md) and Teams (TextBlock) read it: brackets and angle brackets
# make links, autolinks and tags. Their support for backslash escapes is not documented (Feishu documents
# HTML entities, the others nothing), so these characters become their full-width forms, which read the
# same and can never open a link or a tag. Emphasis characters only style text and are left alone.
_MARKDOWN = str.maketrans({"[": "［", "]": "］", "<": "＜", ">": "＞"})


def slack(text: str) -> str:
    """Slack mrkdwn: `&`, `<`, `>` as entities, as Slack documents for untrusted text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markdown(text: str) -> str:
    """Chat Markdown (DingTalk, WeCom, Feishu, Teams): no bracket or angle bracket can open a link or a tag."""
    return text.translate(_MARKDOWN)


def link(label: str, url: str) -> str:
    """A Markdown link; `url` comes from safe_url (percent-encoded, so `)` and spaces cannot end it early)."""
    return f"[{markdown(label)}]({url.replace(')', '%29').replace('(', '%28')})"


def html_text(text: str) -> str:
    return html.escape(text, quote=True)


def json_bytes(payload: Any) -> bytes:
    """The body as sent: compact UTF-8 JSON (sizes are counted on these bytes)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def markdown_message(message: Message) -> str:
    """The Markdown message DingTalk and WeCom share: title, summary, counts, highlights, links."""
    w = message.words
    c = message.counts
    lines = [f"### {markdown(message.title)}", ""]
    if message.summary:
        lines += [markdown(message.summary), ""]
    lines += [f"**{c.prs}** {w['prs']} · **{c.key_prs}** {w['key_prs']} · "
              f"**{c.breaking}** {w['breaking']} · **{c.risks}** {w['risks']}", ""]
    if message.highlights:
        lines.append(f"**{w['highlights']}**")
        lines.append("")
        for h in message.highlights:
            refs = " ".join(link(label, url) for r in h.prs for label, url in r.links())
            lines.append(f"- {markdown(h.text)}" + (f" {refs}" if refs else ""))
        lines.append("")
    links = [link(label, url) for label, url in ((w["page"], message.page), (w["pdf"], message.pdf)) if url]
    if links:
        lines.append(" · ".join(links))
    return "\n".join(lines).strip()
