"""Hostile PR text through all four renderings: nothing runs, nothing links where the data did not, nothing crashes."""
from __future__ import annotations

import json
import re

import pytest
from prhub.core.text import safe_url
from prhub.site.render.html import render_html
from prhub.site.render.markdown import render_markdown

from tests.golden.cases import HOSTILE, hostile_report
from tests.unit.render_support import markdown_to_html, parse_html, pdf_text, render_all_strict

OWN_LINKS = {"index.html", "report.md", "report.pdf", "report.json", "../../", "../../../../", "../../feed.xml"}


@pytest.fixture(scope="module")
def report():
    return hostile_report()


@pytest.fixture(scope="module")
def files(report):
    return render_all_strict(report)


def _data_urls(report):
    """The PRs' URLs from the data, and the site's own pages of the scored PRs (their numbers are ints)."""
    return ({safe_url(p.get("url")) for p in report["prs"] + report["unscored"]} - {None}) \
        | {f"../../pull/{p['number']}/" for p in report["prs"]}


def _assert_safe_tags(tags, allowed_hrefs):
    names = [t for t, _ in tags.tags]
    assert "script" not in names and "img" not in names and "iframe" not in names
    for tag, attrs in tags.tags:
        assert not [a for a in attrs if a.lower().startswith("on")], (tag, attrs)
        assert "display:none" not in str(attrs.get("style", "")), (tag, attrs)
    for tag, attrs in tags.tags:
        if tag == "link":  # the template's empty favicon, nothing else
            assert attrs == {"rel": "icon", "href": "data:,"}
        elif "href" in attrs:
            href = str(attrs["href"])
            assert href in allowed_hrefs, href
            assert not href.lower().startswith(("javascript", "data", "//"))


def test_html_runs_no_script_and_links_only_to_http_urls_from_the_data(report):
    page = render_html(report)
    tags = parse_html(page)
    _assert_safe_tags(tags, OWN_LINKS | _data_urls(report) | {"https://github.com/example-org/trainer"})
    text = "".join(tags.text)
    assert "<script>alert(1)</script>" in text  # shown as text, not run
    assert "\u202e" not in page and "\x00" not in page and "\u200b" not in page
    assert 'http-equiv="Content-Security-Policy"' in page and "default-src 'none'" in page


def test_html_bad_urls_are_not_links(report):
    tags = parse_html(render_html(report))
    linked = set(tags.hrefs())
    assert "https://github.com/example-org/trainer/pull/4107" not in linked  # its url was replaced by data: …
    assert not any(c in h for h in linked for c in ' "<>')  # a quote cannot end the attribute early


def test_html_long_words_wrap_instead_of_widening_the_page(report):
    page = render_html(report)
    assert "overflow-wrap: anywhere" in page and "table-layout: fixed" in page


def test_markdown_injects_no_link_image_or_html(report):
    text = render_markdown(report)
    tags = parse_html(markdown_to_html(text))
    _assert_safe_tags(tags, OWN_LINKS | _data_urls(report))
    names = [t for t, _ in tags.tags]
    # A title's `code` is shown as code, as GitHub shows it; nothing else of the author's text becomes markup.
    assert names.count("h1") == 1 and "style" not in names and "del" not in names
    assert "blockquote" not in names and "em" not in names
    headings = re.findall(r"^#{1,3} .*$", text, re.MULTILINE)
    assert all(not h.startswith("# ") or h == headings[0] for h in headings)  # one title only
    assert "evil.example" in "".join(tags.text)  # the text is kept, just not linked


def test_markdown_table_rows_keep_their_columns(report):
    text = render_markdown(report)
    table = text.split("## 关键 PR\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    cells = [len(re.findall(r"(?<!\\)\|", row)) for row in table]
    assert len(set(cells)) == 1, table


def test_pdf_renders_without_missing_glyph_warnings_and_gives_the_text_back(files, tmp_path):
    text = pdf_text(files["report.pdf"], tmp_path)
    flat = re.sub(r"\s+", "", text)
    assert "<script>alert(1)</script>" in flat
    assert "超长中文超长中文" in flat and "A" * 60 in flat
    assert "emoji" in text and "🚀" not in text  # the font has no emoji: dropped, not a crash


def test_json_round_trips_hostile_text(report, files):
    assert json.loads(files["report.json"].decode("utf-8")) == report
    assert set(files) == {"report.json", "report.md", "report.pdf", "index.html"}


def test_corpus_covers_what_the_issue_names():
    joined = "".join(HOSTILE)
    for needle in ("<script>", "onerror", "javascript:", "](", "\u202e", "\u200b", "🚀", "\x00", "A" * 300):
        assert needle in joined
