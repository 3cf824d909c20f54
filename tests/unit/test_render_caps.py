"""Every PR of a report is reachable from its page, and long lists are capped alike in every rendering while
report.json keeps them whole (issue 25)."""
from __future__ import annotations

import copy
import json
import re

from prhub.site.render import view as views
from prhub.site.render.html import render_html
from prhub.site.render.markdown import render_markdown

from tests.golden.cases import load
from tests.unit.render_support import parse_html, pdf_text, render_all_strict


def test_the_week_page_links_every_merged_pr_in_a_folded_list():
    # GIVEN a week with PRs that are not key and so not in the key-PR table (issue 25: two of a verl week's 34 PRs
    # appeared nowhere on its page, though each had a page of its own)
    report = load("zh-week")
    html = render_html(report, "zh")
    folded = html.split('<section id="all-prs">', 1)[1].split("</section>", 1)[0]
    assert "<details" in folded and "<details open" not in folded
    hrefs = parse_html(folded).hrefs()
    for pr in report["prs"]:  # each scored PR to its own page
        assert f"../../pull/{pr['number']}/" in hrefs
    for item in report["unscored"]:  # an unscored one to GitHub (it has no page)
        assert item["url"] in hrefs
    md = render_markdown(report)
    index = md.split("## 全部合并 PR", 1)[1].split("\n## ", 1)[0]
    assert all(f"\\#{p['number']}" in index for p in [*report["prs"], *report["unscored"]])


def _year(report: dict, prs: int, missing: int, unscored: int) -> dict:
    """zh-week grown to a year's lists: `prs` PRs, a missing-tests risk naming `missing` of them, `unscored` more."""
    year = copy.deepcopy(report)
    base = year["prs"][0]
    year["prs"] = [{**copy.deepcopy(base), "number": 10000 + i, "key": False,
                    "url": f"https://github.com/example-org/trainer/pull/{10000 + i}"} for i in range(prs)]
    risk = next(r for r in year["risks"] if r["kind"] == "missing_tests")
    risk["items"] = [{"pr": 10000 + i, "detail": f"改动了 pkg/m{i}.py（12 行），没有相应测试"} for i in range(missing)]
    risk["prs"] = [10000 + i for i in range(missing)]
    year["unscored"] = [{"number": 20000 + i, "title": f"t{i}", "reason": "未评分",
                         "url": f"https://github.com/example-org/trainer/pull/{20000 + i}"} for i in range(unscored)]
    return year


def test_long_lists_are_capped_alike_in_markdown_html_and_pdf_and_whole_in_report_json(tmp_path):
    # GIVEN a year: 1,200 PRs, 760 of them without tests, 120 unscored (its report.md was 473 KB)
    year = _year(load("zh-week"), 1200, 760, 120)
    files = render_all_strict(year)
    md, html = files["report.md"].decode(), files["index.html"].decode()
    pdf = re.sub(r"\s+", " ", pdf_text(files["report.pdf"], tmp_path))
    # THEN the risk list shows its first items and says how many more, pointing to report.json, in all three
    more_risk = f"… 另有 {760 - views.RISK_ITEMS} 项"
    more_unscored = f"… 另有 {120 - views.UNSCORED_ROWS} 项"
    for text in (md, html, pdf):
        assert more_risk in text and more_unscored in text, text[:200]
        assert "report.json" in text
    assert md.count("没有相应测试") <= views.RISK_ITEMS + 5
    assert "report.json" in parse_html(html).hrefs()
    assert len(files["report.md"]) < 100_000
    # the web page still reaches every PR (folded); report.md and report.pdf list the first and point on
    hrefs = set(parse_html(html).hrefs())
    assert all(f"../../pull/{p['number']}/" in hrefs for p in year["prs"])
    more_index = f"… 另有 {1200 + 120 - views.PR_INDEX_ROWS} 项"
    assert more_index in md and more_index in pdf
    # report.json keeps every item
    whole = json.loads(files["report.json"])
    assert len(next(r for r in whole["risks"] if r["kind"] == "missing_tests")["items"]) == 760
    assert len(whole["unscored"]) == 120


def test_pr_lists_in_notes_hot_files_and_clusters_stop_with_how_many_more(tmp_path):
    # GIVEN a year whose risk note, hot file and cluster each name 600 PRs (a year's report.md spent 67 KB on its
    # risk brief and 100 KB on its clusters, in PR numbers)
    year = _year(load("zh-week"), 600, 0, 0)
    numbers = [p["number"] for p in year["prs"]]
    year["risk_notes"] = [{"text": "这些 PR 缺少测试", "prs": numbers}]
    year["hot_files"] = [{"path": "verl/a.py", "pr_count": 600, "prs": numbers}]
    year["clusters"] = [{"title": f"同改 verl/a{i}.py", "reason": "", "prs": numbers} for i in range(45)]
    files = render_all_strict(year)
    md, html = files["report.md"].decode(), files["index.html"].decode()
    pdf = re.sub(r"\s+", " ", pdf_text(files["report.pdf"], tmp_path))
    marker = f"另 {600 - views.REFS_SHOWN} 个"  # "…另 580 个" (the PDF may wrap a table cell after its "…")
    for text in (md, html, pdf):
        assert text.count(marker) >= 3, text[:300]
    assert md.count("…另 580 个") >= 3
    more_clusters = f"… 另有 {45 - views.RELATED_ROWS} 项"  # and the clusters past the first RELATED_ROWS
    assert all(more_clusters in text for text in (md, html, pdf))
    assert len(files["report.md"]) < 60_000


def test_a_related_group_s_title_shows_its_code_as_code_and_its_markup_as_text(tmp_path):
    # pydantic-ai's appendix read "基于 \`Agent.realtime\(\)\` 新增…": the group's title (its lead's headline) was
    # escaped whole in report.md, its code shown with backslashes, where every other line sets code as code
    report = load("zh-week")
    numbers = [p["number"] for p in report["prs"]][:2]
    report["clusters"] = [{"title": "基于 `Agent.realtime()` 新增实时支持 <script>alert(1)</script>", "reason": "",
                           "prs": numbers}]
    files = render_all_strict(report)
    md, html = files["report.md"].decode(), files["index.html"].decode()
    assert "`Agent.realtime()`" in md and "\\`" not in md.split("基于", 1)[1].split("\n", 1)[0]
    assert "<code>Agent.realtime()</code>" in html and "<script>alert(1)" not in html
    assert "Agent.realtime()" in pdf_text(files["report.pdf"], tmp_path)
