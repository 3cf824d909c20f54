"""The platform-neutral message a channel gets when a report is published.

`build_message(report, links)` reads report.json (schema prhub.report/1) and the site's URLs and keeps
what a reader needs at a glance: the title, a one-line summary, 3-5 highlights with their PRs, the
counts (PRs, key PRs, breaking changes, risks) and links to the page, the PDF and the highlighted PRs'
pages. The text is cleaned (controls, bidi overrides) but not escaped: each platform escapes it for its
own markup, since PR titles are written by PR authors and untrusted.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from prhub.core.text import clean, safe_url
from prhub.report.digest import ROOT as DIGEST_ROOT

MAX_HIGHLIGHTS = 5
MAX_PRS = 5  # PR links per highlight: a theme citing thirty PRs keeps its first five (the page has all)
MIN_HIGHLIGHTS = 3  # fewer highlights in the report: topped up from its key PRs
SUMMARY_CHARS = 280  # "one line": the summary's first paragraph, cut at a sentence or this length
HIGHLIGHT_CHARS = 300
TITLE_CHARS = 200

T = TypeVar("T")


class TooLarge(ValueError):
    """No version of the message fits the platform's limits, even with no highlights."""


WORDS: dict[str, dict[str, str]] = {
    "zh": {"prs": "合并 PR", "key_prs": "关键 PR", "breaking": "破坏性变更", "risks": "风险",
           "highlights": "本期要点", "page": "查看报告", "pdf": "PDF 版", "colon": "："},
    "en": {"prs": "PRs merged", "key_prs": "key PRs", "breaking": "breaking changes", "risks": "risks",
           "highlights": "Highlights", "page": "Read the report", "pdf": "PDF", "colon": ": "},
}


@dataclass(frozen=True)
class Links:
    """Where the report lives on the site: its page, its PDF, and each PR's page (by number)."""

    page: str
    pdf: str
    pr_pages: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def for_report(cls, site_url: str, base: str, since: str, until: str, prs: list[int] | tuple[int, ...] = (),
                   lang_dir: str | None = None) -> Links:
        """The site layout of DESIGN.md: `base` is "owner/repo" (or a slice's or the digest's folder);
        `lang_dir` the language subfolder of a report in a language other than the repository's."""
        root = site_url.rstrip("/") + "/" + base.strip("/")
        sub = f"{lang_dir}/" if lang_dir else ""
        report = f"{root}/reports/{since}-to-{until}/{sub}"
        return cls(page=report, pdf=report + "report.pdf",
                   pr_pages={n: f"{root}/pull/{n}/{sub}" for n in prs})


@dataclass(frozen=True)
class PrRef:
    number: int
    title: str
    url: str | None  # the PR on GitHub
    page: str | None  # the PR's page on the site

    def links(self) -> list[tuple[str, str]]:
        """(label, url): "#N" to the PR's page on the site (else GitHub), then "GitHub" when both exist."""
        out = [(f"#{self.number}", self.page or self.url)] if self.page or self.url else []
        if self.page and self.url:
            out.append(("GitHub", self.url))
        return [(label, url) for label, url in out if url]


@dataclass(frozen=True)
class Highlight:
    text: str
    prs: tuple[PrRef, ...] = ()


@dataclass(frozen=True)
class Counts:
    prs: int
    key_prs: int
    breaking: int
    risks: int


@dataclass(frozen=True)
class Message:
    lang: str
    repo: str
    title: str
    summary: str
    highlights: tuple[Highlight, ...]
    counts: Counts
    page: str | None
    pdf: str | None
    since: str = ""
    until: str = ""
    digest: str = ""  # the organisation digest's name, on a digest's message (a report's message has its repo)

    @property
    def words(self) -> dict[str, str]:
        return WORDS.get(self.lang, WORDS["en"])

    def keep(self, n: int) -> Message:
        """The same message with only its first `n` highlights (how a platform fits its size limit)."""
        return replace(self, highlights=self.highlights[:n])

    def shortened(self, summary_chars: int, title_chars: int = TITLE_CHARS) -> Message:
        return replace(self, summary=shorten(self.summary, summary_chars), title=shorten(self.title, title_chars))


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut at a word (or anywhere for CJK), marked with an ellipsis."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:，。；：") + "…"


def choose_report(reports: Mapping[str, dict[str, Any]], lang: str | None, default: str) -> dict[str, Any]:
    """The report in the channel's `lang` when it exists, else the repository's language (`default`)."""
    if lang and lang in reports:
        return reports[lang]
    if default in reports:
        return reports[default]
    return next(iter(reports.values()))


class _Refs:
    """The report's PRs by number, as the message links them."""

    def __init__(self, report: dict[str, Any], links: Links) -> None:
        self.prs: dict[int, dict[str, Any]] = {p["number"]: p for p in report.get("prs", [])
                                               if isinstance(p, dict) and isinstance(p.get("number"), int)}
        self.links = links

    def ref(self, number: Any) -> PrRef | None:
        if not isinstance(number, int) or isinstance(number, bool):
            return None
        pr = self.prs.get(number, {})
        return PrRef(number, shorten(clean(pr.get("title")), TITLE_CHARS), safe_url(pr.get("url")),
                     safe_url(self.links.pr_pages.get(number)))


def _highlights(report: dict[str, Any], refs: _Refs) -> list[Highlight]:
    """The report's highlights (text, then their first MAX_PRS PRs), topped up to MIN_HIGHLIGHTS from its key PRs."""
    highlights: list[Highlight] = []
    for item in report.get("highlights") or []:
        text = clean(item.get("text") if isinstance(item, dict) else item)
        numbers = item.get("prs") if isinstance(item, dict) else []
        if text:
            found = tuple(r for r in (refs.ref(n) for n in numbers or []) if r)[:MAX_PRS]
            highlights.append(Highlight(shorten(text, HIGHLIGHT_CHARS), found))
    cited = {r.number for h in highlights for r in h.prs}
    # prs[] is sorted by importance: the first key PRs not yet cited top the highlights up.
    for pr in refs.prs.values():
        if len(highlights) >= MIN_HIGHLIGHTS:
            break
        # what the report's brief says of it (its headline, in the report's language), else its summary or title
        if pr.get("key") and pr["number"] not in cited and (
                text := clean(pr.get("headline") or pr.get("summary") or pr.get("title"))):
            ref = refs.ref(pr["number"])
            highlights.append(Highlight(shorten(text, HIGHLIGHT_CHARS), (ref,) if ref else ()))
    return highlights


def _counts(report: dict[str, Any], prs: Mapping[int, dict[str, Any]]) -> Counts:
    """The report's own counts where it gives them, else counted from its PRs; risks are flagged PRs over kinds."""
    stats = report.get("stats") or {}
    return Counts(prs=_int(stats.get("pr_count"), len(prs)),
                  key_prs=_int(stats.get("key_pr_count"), sum(1 for p in prs.values() if p.get("key"))),
                  breaking=sum(1 for p in prs.values() if p.get("breaking")),
                  risks=sum(len(r.get("prs") or []) for r in report.get("risks", []) if isinstance(r, dict)))


def build_message(report: dict[str, Any], links: Links) -> Message:
    """The message for `report` (report.json), in the report's language."""
    lang = str(report.get("language")) if report.get("language") in WORDS else "zh"
    refs = _Refs(report, links)
    period = report.get("period") or {}
    return Message(
        lang=lang,
        repo=clean(report.get("repo")),
        title=shorten(clean(report.get("title")) or clean(report.get("repo")), TITLE_CHARS),
        summary=_one_line(str(report.get("summary") or "")),
        highlights=tuple(_highlights(report, refs)[:MAX_HIGHLIGHTS]),
        counts=_counts(report, refs.prs),
        page=safe_url(links.page),
        pdf=safe_url(links.pdf),
        since=clean(period.get("since")),
        until=clean(period.get("until")),
    )


def _one_line(summary: str) -> str:
    first = clean(summary.split("\n\n")[0])
    return shorten(first, SUMMARY_CHARS)


def _int(value: Any, fallback: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else fallback


def fit(message: Message, render: Callable[[Message], T], fits: Callable[[T], bool]) -> T:
    """The richest rendering of `message` within a platform's limits: highlights are dropped from the
    end, then the summary and title shortened; never an over-limit payload (TooLarge instead)."""
    for n in range(len(message.highlights), -1, -1):
        out = render(message.keep(n))
        if fits(out):
            return out
    for summary, title in ((120, 120), (40, 60)):
        out = render(message.keep(0).shortened(summary, title))
        if fits(out):
            return out
    raise TooLarge(f"the message does not fit the platform's limits even without highlights ({message.title:.80})")


def digest_message(digest: Mapping[str, Any], site_url: str) -> Message:
    """The channels' message for a digest (prhub.report.digest): its counts, top PRs and links."""
    base = site_url.rstrip("/") + "/" if site_url else ""
    since, until = digest["period"]["since"], digest["period"]["until"]
    page = safe_url(f"{base}{DIGEST_ROOT}{since}-to-{until}/") if base else None
    highlights = tuple(
        Highlight(shorten(f"{p['repo']}: {p.get('headline') or p['summary'] or p['title']}", HIGHLIGHT_CHARS),
                  (PrRef(p["number"], shorten(p["title"], 200), safe_url(p["url"]),
                         safe_url(base + p["page"]) if base else None),))
        for p in digest["top_prs"][:MAX_HIGHLIGHTS])
    s = digest["stats"]
    return Message(lang=digest["language"], repo=clean(digest["name"]), title=clean(digest["title"]),
                   summary=shorten(clean(digest["summary"]), SUMMARY_CHARS), highlights=highlights,
                   counts=Counts(prs=s["pr_count"], key_prs=s["key_pr_count"], breaking=s["breaking_count"],
                                 risks=s["risk_count"]),
                   page=page, pdf=page + "report.pdf" if page else None, since=since, until=until,
                   digest=clean(digest["name"]))
