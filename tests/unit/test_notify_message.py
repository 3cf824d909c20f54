"""The platform-neutral message: what it keeps of a report, in which language, and how it is cut to fit."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from prhub.notify.message import (
    MAX_HIGHLIGHTS,
    MAX_PRS,
    Counts,
    Links,
    TooLarge,
    build_message,
    choose_report,
    fit,
    shorten,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SITE = "https://reports.example.org"


def report(name: str = "zh-week") -> dict[str, Any]:
    return json.loads((GOLDEN / name / "report.json").read_text(encoding="utf-8"))


def links(doc: dict[str, Any], lang_dir: str | None = None) -> Links:
    return Links.for_report(SITE, doc["repo"], doc["period"]["since"], doc["period"]["until"],
                            [p["number"] for p in doc["prs"]], lang_dir)


def test_the_message_carries_the_reports_facts() -> None:
    doc = report()
    message = build_message(doc, links(doc))
    assert message.lang == "zh" and message.title == doc["title"]
    assert message.summary == "本周共合并 7 个 PR，其中关键 PR 4 个，平均重要度 5.5。"  # the first paragraph
    # breaking: PRs flagged breaking; risks: PRs named by the report's risk findings (1 + 2 + 1)
    assert message.counts == Counts(prs=7, key_prs=4, breaking=1, risks=4)
    assert [h.text for h in message.highlights] == [h["text"] for h in doc["highlights"]]
    first = message.highlights[0].prs[0]
    assert (first.number, first.url, first.page) == (
        4101, "https://github.com/example-org/trainer/pull/4101", f"{SITE}/example-org/trainer/pull/4101/")
    assert first.links() == [("#4101", first.page), ("GitHub", first.url)]
    assert message.page == f"{SITE}/example-org/trainer/reports/2026-05-04-to-2026-05-10/"
    assert message.pdf == message.page + "report.pdf"


def test_a_report_in_another_language_links_its_subfolder() -> None:
    doc = report("en-small")
    found = links(doc, lang_dir="en")
    assert found.page.endswith("/reports/2026-05-05-to-2026-05-07/en/")
    assert found.pr_pages[4107] == f"{SITE}/example-org/trainer/pull/4107/en/"
    assert build_message(doc, found).words["page"] == "Read the report"


def test_few_highlights_are_topped_up_from_key_prs_and_many_are_cut_to_five() -> None:
    doc = report()
    doc["highlights"] = doc["highlights"][:1]
    topped = build_message(doc, links(doc))
    assert len(topped.highlights) == 3
    assert [r.number for h in topped.highlights for r in h.prs] == [4101, 4107, 4110]  # key PRs by importance

    doc["highlights"] = [{"text": f"item {i}", "prs": list(range(4101, 4122))} for i in range(9)]
    many = build_message(doc, links(doc))
    assert len(many.highlights) == MAX_HIGHLIGHTS
    assert all(len(h.prs) == MAX_PRS for h in many.highlights)


def test_unsafe_links_and_invisible_characters_are_dropped() -> None:
    doc = report()
    doc["prs"][0]["url"] = "javascript:alert(1)"
    doc["highlights"][0]["text"] = "a\u202eb\u200bc\x00d"
    message = build_message(doc, links(doc))
    assert message.highlights[0].text == "abcd"
    assert message.highlights[0].prs[0].url is None and message.highlights[0].prs[0].links()[0][0] == "#4101"


def test_a_channel_language_picks_that_report_when_it_exists() -> None:
    zh, en = {"language": "zh"}, {"language": "en"}
    assert choose_report({"zh": zh, "en": en}, "en", "zh") is en
    assert choose_report({"zh": zh}, "en", "zh") is zh
    assert choose_report({"zh": zh, "en": en}, None, "zh") is zh


def test_shorten_cuts_at_a_word_and_marks_it() -> None:
    assert shorten("short", 10) == "short"
    assert shorten("one two three four", 12) == "one two…"
    assert shorten("很长的中文句子没有空格", 6) == "很长的中文…"
    assert len(shorten("x" * 500, 100)) == 100


def test_fit_drops_highlights_from_the_end_then_shortens_then_refuses() -> None:
    doc = report()
    message = build_message(doc, links(doc))

    def size(m: Any) -> int:
        return len(m.summary) + len(m.title) + sum(len(h.text) for h in m.highlights)

    full = size(message)
    kept = fit(message, lambda m: m, lambda m: size(m) <= full - 5)
    assert len(kept.highlights) == len(message.highlights) - 1
    assert kept.highlights == message.highlights[:-1]
    bare = fit(message, lambda m: m, lambda m: size(m) <= 100)
    assert bare.highlights == () and len(bare.summary) <= 40
    with pytest.raises(TooLarge):
        fit(message, lambda m: m, lambda m: False)


def test_a_topped_up_highlight_says_what_the_brief_says_of_the_pr() -> None:
    # a zh message topped up from key PRs took their summaries, which may quote an English title
    doc = report()
    doc["highlights"] = doc["highlights"][:1]
    for pr in doc["prs"]:
        pr["summary"], pr["headline"] = "新功能：“an English title”。", f"新增第 {pr['number']} 号功能"
    topped = build_message(doc, links(doc))
    assert [h.text for h in topped.highlights[1:]] == ["新增第 4107 号功能", "新增第 4110 号功能"]
