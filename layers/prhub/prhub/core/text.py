"""How every output writes text: cleaning untrusted text, link checks, "#N" references and number formatting
(the renderings, the channels' messages and the digest share it)."""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, NamedTuple
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


class Piece(NamedTuple):
    """A run of text as the renderings lay it out: linked to a PR (`url`), set as code, or plain."""
    text: str
    url: str | None = None
    code: bool = False


# A code span as GitHub shows one in a title or a description: `name`. No "|" (it would end a Markdown table's
# cell) and no line break; anything else between two backticks is shown literally.
_MARKED = re.compile(r"`([^`|\n]{1,120})`")
# A name a reader knows as code though nobody marked it: one token of word characters joined by "_", ".", "/",
# "::" or "-", with an optional "()"; ASCII only, so that it ends where Chinese text begins.
_NAME = re.compile(r"(?<![\w`./:-])[A-Za-z_][\w]*(?:(?:::|[./-])\w+)*(?:\(\))?(?![\w`/:-]|\.\w)", re.ASCII)
_FILE = re.compile(r"\.(?:py|pyi|rs|toml|md|rst|ya?ml|json|jsonl|sh|js|ts|tsx|jsx|cfg|ini|txt|lock|ipynb|go|c|cc|cpp|h|"
                   r"hpp|cu|java|kt|proto|sql|html|css|j2)$")
_CAMEL = re.compile(r"(?:[A-Z][a-z0-9]+){3,}|[a-z]+(?:[A-Z][a-z0-9]+){2,}")


def code_name(token: str) -> bool:
    """Whether `token` reads as code: snake_case, a file with its extension, a path with "::", a call "f()", or a
    CamelCase of three words (a class); product names such as "DeepSeek", "SGLang" or "vLLM" stay words."""
    if "_" in token.strip("_") or _FILE.search(token) or "::" in token or token.endswith("()"):
        return any(c.isalpha() for c in token)
    return "-" not in token and "." not in token and "/" not in token and bool(_CAMEL.fullmatch(token))


def pieces(text: str, links: dict[int, str]) -> list[Piece]:
    """`text` cut into pieces: its code spans (marked with backticks, or names that read as code) and around
    them its "#N" references to PRs the data has URLs for, linked."""
    out: list[Piece] = []
    last = 0
    for match in _code_spans(text):
        out += _linked(text[last:match[0]], links)
        out.append(Piece(match[2], code=True))
        last = match[1]
    return out + _linked(text[last:], links)


def _code_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, code) of every code span of `text`, marked ones first, then bare names between them."""
    spans, last = [], 0
    for marked in [*_MARKED.finditer(text), None]:
        stop = marked.start() if marked else len(text)
        spans += [(last + m.start(), last + m.end(), m.group(0)) for m in _NAME.finditer(text[last:stop])
                  if code_name(m.group(0))]
        if marked:
            if marked.group(1).strip():
                spans.append((marked.start(), marked.end(), marked.group(1)))
            last = marked.end()
    return spans


def _linked(text: str, links: dict[int, str]) -> list[Piece]:
    out: list[Piece] = []
    last = 0
    for match in PR_REF.finditer(text):
        url = links.get(int(match.group(1)))
        if url:
            if match.start() > last:
                out.append(Piece(text[last:match.start()]))
            out.append(Piece(match.group(0), url))
            last = match.end()
    if last < len(text):
        out.append(Piece(text[last:]))
    return out


_PRS = re.compile(r"(?<![#\d])\b(\d+) PR\(s\)")


def prs_counted(text: str) -> str:
    """English "N PR(s)" as a reader says it: "1 PR", "3 PRs" (a sentence is written once, for any count)."""
    return _PRS.sub(lambda m: f"{m.group(1)} PR{'' if m.group(1) == '1' else 's'}", text)


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


def capitalised(line: str) -> str:
    """A line's first letter up when it opens with a plain word ("add x" -> "Add x"); a name or code stays as
    written (`gen_batch_size falls back…` never becomes "Gen_batch_size")."""
    return line[:1].upper() + line[1:] if re.match(r"[a-z]+(?=[\s,:;]|$)", line) else line
