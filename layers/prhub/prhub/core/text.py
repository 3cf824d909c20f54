"""How every output writes text: cleaning untrusted text, link checks, "#N" references and number formatting
(the renderings, the channels' messages and the digest share it)."""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any
from urllib.parse import quote, urlsplit

# Controls (NUL, escapes), bidi overrides/isolates and zero-width characters: untrusted
# text could use them to hide or reorder what a reader sees, so they never reach a page.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)
_SPACES = re.compile(r"\s+")


def clean(value: Any) -> str:
    """Untrusted text made safe to lay out: invisible/control characters removed, whitespace folded."""
    text = unicodedata.normalize("NFC", "" if value is None else str(value))
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()


def comment_link(value: Any, pr_url: Any) -> str | None:
    """A review comment's link, only where it points into its PR's own page (as GitHub's html_url does): the engine
    keeps no other (engine.reviews), and a renderer does not take report.json's word for it."""
    url, base = safe_url(value), safe_url(pr_url)
    return url if url and base and url.startswith(base.rstrip("/") + "#") else None


def safe_url(value: Any) -> str | None:
    """An http(s) URL with unsafe characters percent-encoded, or None for anything else."""
    return _safe_url(value) if isinstance(value, str) else None


@functools.lru_cache(maxsize=8192)
def _safe_url(value: str) -> str | None:
    # Memoized: a year's report and its pages check the same few thousand PR URLs again for every reference to them
    # (0.3 s of the year's report).
    url = _INVISIBLE.sub("", value).strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    # Quote what could end a Markdown link destination or an HTML attribute early.
    return quote(url, safe=":/?#@!$&'*+,;=%~-._[]")


# "#123" in narrative text: a PR reference, unless part of a word or an entity such as "&#123;".
PR_REF = re.compile(r"(?<![&\w])#(\d{1,7})\b")


def segments(text: str, links: dict[int, str]) -> list[tuple[str, str | None]]:
    """`text` cut around "#N" references to PRs the data has URLs for: [(text, url or None)]."""
    out: list[tuple[str, str | None]] = []
    last = 0
    for match in PR_REF.finditer(text):
        url = links.get(int(match.group(1)))
        if url:
            if match.start() > last:
                out.append((text[last:match.start()], None))
            out.append((match.group(0), url))
            last = match.end()
    if last < len(text):
        out.append((text[last:], None))
    return out


def num(value: Any) -> str:
    """One formatting of numbers for every rendering (floats with one decimal when exact)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.1f}"
        return text if float(text) == value else repr(value)
    return clean(value)


def usd(value: float) -> str:
    """A model cost in US dollars: 4 decimals, 6 below a cent (one PR's cost is often a few hundredths of one)."""
    return f"${value:.4f}" if value >= 0.01 or value == 0 else f"${value:.6f}"


def signed(value: Any) -> str:
    """A change with its sign (+2, -1.5, 0)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return "+" + num(value)
    return num(value)
