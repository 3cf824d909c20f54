"""A real verl week published in zh, then in en, with its PR pages rendered by the pages fan-out (in-memory stack).

The report service's publishing steps (site.publish_report, pages.publish_facts with the run's history,
rebuild_indexes, then pages.queue_pages) run as publish and announce call them, and every queued PagesQueue message
is handed to pages_message, as PagesFunction would receive it.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from prhub.core.config import WatchList
from prhub.core.period import Period, parse_timestamp
from prhub.flow import pages
from prhub.flow.messages import PagesMessage
from prhub.site import publish as site
from prhub.site.render import render_all

from bench.render_week import DATA, scored_week, week_history
from tests.fakes.memory import memory_stack

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is absent (real data lives outside the repo)")

REPO = "verl-project/verl"
WEEK = "verl-project/verl/reports/2026-05-04-to-2026-05-10/"
ATOM = "{http://www.w3.org/2005/Atom}"


def publish(stack, lang):
    """What publish_run does after composing: the files, the indexes, the pages' fan-out; then PagesFunction."""
    report, scored = scored_week(lang)
    home = stack.deps.watchlist().get(REPO).language
    site.publish_report(stack.bucket, report, render_all(report, home), home)
    pages.publish_facts(report, scored, stack.deps, week_history())
    site.rebuild_indexes(stack.bucket, REPO, "", home)
    queued = pages.queue_pages(report, home, scored, stack.deps)
    answers = [pages.pages_message(PagesMessage.of(m.body), stack.deps) for m in stack.queue.take("memory://pages")]
    return report, queued, answers


@pytest.fixture(scope="module")
def both():
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    zh = publish(stack, "zh")
    en = publish(stack, "en")
    return stack, zh, en


def text(stack, key):
    body = stack.bucket.get(key)
    assert body is not None, key
    return body.decode()


@pytest.mark.slow
def test_zh_then_en_keeps_both_reports_each_in_its_folder(both):
    stack, (zh, _, _), (en, _, _) = both
    assert json.loads(text(stack, WEEK + "report.json"))["language"] == "zh"
    assert json.loads(text(stack, WEEK + "en/report.json"))["language"] == "en"
    assert json.loads(text(stack, WEEK + "report.json"))["title"] == zh["title"]
    assert "周报" in text(stack, WEEK + "report.md") and "weekly report" in text(stack, WEEK + "en/report.md")


def test_the_two_week_pages_link_to_each_other(both):
    stack, _, _ = both
    zh_page, en_page = text(stack, WEEK + "index.html"), text(stack, WEEK + "en/index.html")
    assert 'href="en/" hreflang="en"' in zh_page  # re-rendered when the English version arrived
    assert 'href="../" hreflang="zh"' in en_page


def test_every_pr_has_a_page_in_both_languages_and_the_batches_are_bounded(both):
    stack, (zh, queued, answers), (en, _, en_answers) = both
    assert queued == -(-len(zh["prs"]) // pages.PAGES_PER_MESSAGE)  # first run: nothing earlier to update
    assert all(a["pages"] <= pages.PAGES_PER_MESSAGE for a in answers + en_answers)
    assert sum(a["pages"] for a in answers) == len(zh["prs"]) == sum(a["pages"] for a in en_answers)
    for pr in zh["prs"]:
        folder = f"{REPO}/pull/{pr['number']}/"
        zh_pull = json.loads(text(stack, folder + "report.json"))
        en_pull = json.loads(text(stack, folder + "en/report.json"))
        assert (zh_pull["language"], en_pull["language"]) == ("zh", "en")
        assert zh_pull["pr"]["importance"] == pr["importance"] and zh_pull["pr"]["title"] == pr["title"]
        assert stack.bucket.get(folder + "report.pdf")[:5] == b"%PDF-"
        assert 'hreflang="en"' in text(stack, folder + "index.html")


def test_a_pr_page_shows_its_files_by_module_its_relations_and_links_back(both):
    stack, (zh, _, _), _ = both
    cluster = zh["clusters"][0]
    number = cluster["prs"][0]
    page = json.loads(text(stack, f"{REPO}/pull/{number}/report.json"))
    assert page["cluster"]["prs"] == cluster["prs"]
    assert sum(len(g["files"]) for g in page["files"]) == len(set(sum(([f["path"] for f in g["files"]]
                                                                        for g in page["files"]), [])))
    assert page["files"] and all(g["module"] for g in page["files"])
    html = text(stack, f"{REPO}/pull/{number}/index.html")
    assert 'href="../../reports/2026-05-04-to-2026-05-10/"' in html  # back to the week
    for other in cluster["prs"]:
        if other != number:
            assert f'href="../{other}/"' in html
    week = text(stack, WEEK + "index.html")
    assert f'href="../../pull/{number}/"' in week


def test_a_pr_page_gives_each_file_and_module_its_line_counts_from_the_export(both):
    from prhub.core.models import PullRequest
    from prhub.core.text import num

    stack, (zh, _, _), _ = both
    rows = {r["number"]: r for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines())}
    biggest = max(zh["prs"], key=lambda p: p["changed_files"])  # several files, likely several modules
    export = {f.filename: f for f in PullRequest.from_export(rows[biggest["number"]]).files}
    folder = f"{REPO}/pull/{biggest['number']}/"
    page = json.loads(text(stack, folder + "report.json"))
    listed = [f for g in page["files"] for f in g["files"]]
    assert {f["path"] for f in listed} == set(export)
    assert all((f["additions"], f["deletions"]) == (export[f["path"]].additions, export[f["path"]].deletions)
               for f in listed)
    for g in page["files"]:  # a module's count is the sum of its files'
        assert (g["additions"], g["deletions"]) == (sum(f["additions"] for f in g["files"]),
                                                    sum(f["deletions"] for f in g["files"]))
    top = page["files"][0]["files"][0]
    lines = f"+{num(top['additions'])} / -{num(top['deletions'])}"
    assert lines in text(stack, folder + "index.html") and lines in text(stack, folder + "report.md")


def test_index_and_feed_stay_single_language(both):
    stack, _, _ = both
    zh_index, en_index = text(stack, f"{REPO}/index.html"), text(stack, f"{REPO}/en/index.html")
    assert "2026 年第 19 周周报" in zh_index and "weekly report" not in zh_index
    assert "weekly report, 2026-W19" in en_index and "周报" not in en_index
    for key, lang in ((f"{REPO}/feed.xml", "zh"), (f"{REPO}/en/feed.xml", "en")):
        entries = ET.fromstring(text(stack, key)).findall(f"{ATOM}entry")
        assert len(entries) == 1
        summary = entries[0].find(f"{ATOM}summary").text
        cjk = len(re.findall(r"[\u4e00-\u9fff]", summary))
        assert (cjk > 0) if lang == "zh" else (cjk == 0), summary


def test_the_dashboard_charts_the_published_weeks_as_inline_svg_with_a_text_alternative(both):
    stack, (zh, _, _), _ = both
    page = text(stack, f"{REPO}/index.html")
    assert page.count("<svg") >= 6 and "<script" not in page
    # the charts say where they come from: the run's history, the four weeks before the reported one as far as its
    # source reaches (its first merge is on Tuesday 04-07: that week is not known in full)
    assert "12 周中已知 4 周" in page and "有已发布报告的 1 周" in page
    row = '<td class="lead">{}</td><td class="num" data-label="合并 PR">{}</td>'
    assert row.format("2026-05-04", zh["stats"]["pr_count"]) in page
    for monday, sunday in (("2026-04-13", "2026-04-19"), ("2026-04-27", "2026-05-03")):  # as the export counts them
        period = Period.parse(monday, sunday, "Asia/Shanghai")
        merged = sum(1 for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines())
                     if period.contains(parse_timestamp(r["merged_at"])))
        assert merged and row.format(monday, merged) in page
    assert '<td class="lead">2026-04-06</td><td colspan="5">无数据</td>' in page  # a part of a week: no data
    assert page.count('class="nodata"') >= 8  # the 12-week charts hatch the weeks without data
    # the lists the page caps are published whole beside it; the quarter's files count each PR once
    full = json.loads(text(stack, f"{REPO}/dashboard.json"))
    assert full["schema"] == "prhub.dashboard/1" and full["newcomers"] and full["hot_files"]
    assert all(f["pr_count"] == len(set(f["prs"])) <= zh["stats"]["pr_count"] for f in full["hot_files"])


def test_a_later_report_updates_the_earlier_pages_it_adds_relations_to(both):
    stack, (zh, _, _), _ = both
    # A later week changing a file one of this week's PRs changed: that PR's page gains a "later" PR.
    earlier = zh["prs"][0]["number"]
    facts = site.pull_facts(stack.bucket, REPO)["2026-05-04-to-2026-05-10"]
    path = facts[earlier]["files"][0]
    later_report, later_scored = scored_week("zh")
    pr, scored = later_report["prs"][0], later_scored[0]
    later_number = 99_001
    later = {**later_report, "period": {**later_report["period"], "since": "2026-05-11", "until": "2026-05-17"},
             "prs": [{**pr, "number": later_number, "merged_at": "2026-05-12T01:00:00Z"}], "clusters": [],
             "reverts": []}
    scored.number, scored.files, scored.merged_at = later_number, [path], "2026-05-12T01:00:00Z"
    site.publish_report(stack.bucket, later, render_all(later, "zh"), "zh")
    pages.publish_facts(later, [scored], stack.deps)
    pages.queue_pages(later, "zh", [scored], stack.deps)
    bodies = [m.body for m in stack.queue.take("memory://pages")]
    assert any(b["slug"] == "2026-05-04-to-2026-05-10" and earlier in b["numbers"] for b in bodies)
    for body in bodies:
        pages.pages_message(PagesMessage.of(body), stack.deps)
    page = json.loads(text(stack, f"{REPO}/pull/{earlier}/report.json"))
    assert later_number in page["neighbours"]["later"]
    assert f'href="../{later_number}/"' in text(stack, f"{REPO}/pull/{earlier}/index.html")


def test_after_a_longer_report_a_pr_page_still_links_to_its_week(both):
    # GIVEN the week's pages, then a month report listing the same PRs, published and its pages rendered (issue 25:
    # after a week and then a year run, pull/N's "返回周报" and byline pointed to the year)
    stack, (zh, _, _), _ = both
    report, scored = scored_week("zh")
    month = {**report, "period": {**report["period"], "since": "2026-05-01", "until": "2026-05-31"},
             "title": "verl-project/verl 2026 年 5 月月报"}
    site.publish_report(stack.bucket, month, render_all(month, "zh"), "zh")
    pages.publish_facts(month, scored, stack.deps)
    pages.queue_pages(month, "zh", scored, stack.deps)
    for m in stack.queue.take("memory://pages"):
        pages.pages_message(PagesMessage.of(m.body), stack.deps)
    # THEN each page belongs to its week and names the month among the other reports that list it
    number = zh["prs"][0]["number"]
    page = json.loads(text(stack, f"{REPO}/pull/{number}/report.json"))
    assert page["report"]["slug"] == "2026-05-04-to-2026-05-10"
    assert {m["slug"] for m in page["mentions"]} >= {"2026-05-04-to-2026-05-10", "2026-05-01-to-2026-05-31"}
    html = text(stack, f"{REPO}/pull/{number}/index.html")
    assert 'class="back" href="../../reports/2026-05-04-to-2026-05-10/"' in html
    assert 'href="../../reports/2026-05-01-to-2026-05-31/"' in html.split('id="mentions"', 1)[1]


class Context:
    """A Lambda context with `seconds` left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def get_remaining_time_in_millis(self) -> int:
        return int(self.seconds * 1000)


def test_an_invocation_near_its_deadline_queues_the_pages_it_did_not_render(both):
    stack, (zh, _, _), _ = both
    numbers = [p["number"] for p in zh["prs"]][:3]
    for n in numbers:  # pages not built yet (a page built for the same head is left as it is)
        stack.bucket.objects.pop(f"{REPO}/pull/{n}/report.json")
    body = {"repo": REPO, "slug": "2026-05-04-to-2026-05-10", "lang": "zh", "home": "zh", "numbers": numbers}
    # room for one page
    answer = pages.pages_message(PagesMessage.of(body), stack.deps.invoked(Context(pages.PAGE_SECONDS_MAX)))
    assert (answer["pages"], answer["requeued"]) == (1, 2)
    [rest] = stack.queue.take("memory://pages")
    assert rest.body == {**body, "numbers": numbers[1:]}


def test_a_page_in_a_language_its_week_lacks_links_the_week_in_the_language_it_has():
    # A new user's trial: hono's week in zh, then July in en on the same state; pull/N/en/ linked back to the en
    # week, which nobody had published (a 404), in its back link, its byline and its list of reports.
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    publish(stack, "zh")
    report, scored = scored_week("en")
    month = {**report, "period": {**report["period"], "since": "2026-05-01", "until": "2026-05-31"},
             "title": "verl-project/verl, May 2026"}

    def run(published):
        site.publish_report(stack.bucket, published, render_all(published, "zh"), "zh")
        pages.publish_facts(published, scored, stack.deps)
        pages.queue_pages(published, "zh", scored, stack.deps)
        for m in stack.queue.take("memory://pages"):
            pages.pages_message(PagesMessage.of(m.body), stack.deps)

    run(month)
    number = report["prs"][0]["number"]
    page = json.loads(text(stack, f"{REPO}/pull/{number}/en/report.json"))
    assert page["report"] == {"slug": "2026-05-04-to-2026-05-10", "title": "2026-05-04 – 2026-05-10", "language": "zh"}
    html = text(stack, f"{REPO}/pull/{number}/en/index.html")
    week_zh = f"{REPO}/reports/2026-05-04-to-2026-05-10/index.html"
    assert 'class="back" href="../../../reports/2026-05-04-to-2026-05-10/"' in html and stack.bucket.get(week_zh)
    assert "reports/2026-05-04-to-2026-05-10/en/" not in html
    # THEN the week published in en too: the en page links it in en
    run(report)
    html = text(stack, f"{REPO}/pull/{number}/en/index.html")
    assert 'class="back" href="../../../reports/2026-05-04-to-2026-05-10/en/"' in html
