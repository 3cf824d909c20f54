"""PR pages are built once per PR head and language (issue 24 item 7, issue 25's year on a state where the weeks ran).

A re-run of a published week queues no PR page again; a wider period holding the same PRs (a year after its weeks)
reuses the weeks' pages, naming it without rendering their PDFs again; a PR whose head moved, or whose neighbours
changed, is rebuilt. On the in-memory stack, with every queued PagesQueue message handed to pages_message as
PagesFunction would receive it.
"""
from __future__ import annotations

import copy
import json

import pytest
from prhub.core.config import WatchList
from prhub.flow import pages
from prhub.flow.messages import PagesMessage
from prhub.site import publish as site
from prhub.site.render import render_all
from prhub.site.render.pull import render_pull_all

from bench.render_week import DATA, scored_week, week_history
from tests.fakes.memory import MemoryStack, memory_stack

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is absent (real data lives outside the repo)")

REPO = "verl-project/verl"
QUEUE = "memory://pages"


def publish(stack: MemoryStack, report: dict, scored: list) -> int:
    """What publish and announce do with a composed report, then PagesFunction on every queued message; the
    messages queued."""
    site.publish_report(stack.bucket, report, render_all(report, "zh"), "zh")
    pages.publish_facts(report, scored, stack.deps, week_history())
    queued = pages.queue_pages(report, "zh", scored, stack.deps)
    for message in stack.queue.take(QUEUE):
        pages.pages_message(PagesMessage.of(message.body), stack.deps)
    return queued


def pull_puts(stack: MemoryStack) -> list[str]:
    return [k for k in stack.bucket.puts if "/pull/" in k and k.endswith("report.pdf")]


@pytest.fixture(scope="module")
def week() -> tuple[MemoryStack, dict, list]:
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    report, scored = scored_week("zh")
    assert publish(stack, report, scored) > 0
    return stack, report, scored


def test_the_pages_are_rendered_by_the_renderer_their_deps_hand_in(week):
    # The local runner renders PR pages in a process pool it hands PagesFunction in its Deps (Deps.render_pages),
    # changing no module of the layer: every page a message renders goes through it, in the message's order.
    _, report, scored = week
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    rendered: list[int] = []

    def render_pages(jobs):
        jobs = list(jobs)
        rendered.extend(job[0]["pr"]["number"] for job in jobs)
        return pages.render_in_turn(jobs)

    stack.deps.render_pages = render_pages
    publish(stack, copy.deepcopy(report), copy.deepcopy(scored))
    assert sorted(rendered) == sorted(p["number"] for p in report["prs"])
    assert len(pull_puts(stack)) == len(report["prs"])


def test_a_rerun_of_the_week_queues_no_page_again(week):
    stack, report, scored = week
    built = len(pull_puts(stack))
    assert built == len(report["prs"])
    # WHEN the same week is published again (a re-run on the same state)
    queued = publish(stack, copy.deepcopy(report), copy.deepcopy(scored))
    # THEN no page was queued, and none rebuilt
    assert queued == 0
    assert len(pull_puts(stack)) == built


def pull_files(stack: MemoryStack, name: str) -> list[str]:
    return [k for k in stack.bucket.puts if "/pull/" in k and k.endswith(name)]


def test_a_wider_period_with_the_same_prs_names_it_on_their_pages_and_keeps_their_pdfs(week, monkeypatch):
    # A page names every published report listing its PR (issue 25), which its PDF does not show: a month after the
    # week rewrites each page's HTML, Markdown and JSON once from the stored files, rendering no page again (the
    # year after its weeks); a re-run of the month then rewrites nothing.
    stack, report, scored = week
    rendered: list[int] = []

    def render_pages(jobs):
        jobs = list(jobs)
        rendered.extend(job[0]["pr"]["number"] for job in jobs)
        return pages.render_in_turn(jobs)

    monkeypatch.setattr(stack.deps, "render_pages", render_pages)
    pdfs, htmls = len(pull_puts(stack)), len(pull_files(stack, "index.html"))
    pdf_before = {p["number"]: stack.bucket.get(f"{REPO}/pull/{p['number']}/report.pdf") for p in report["prs"]}
    month = {**copy.deepcopy(report), "period": {**report["period"], "since": "2026-05-01", "until": "2026-05-31"}}
    assert publish(stack, month, copy.deepcopy(scored)) > 0
    assert len(pull_puts(stack)) == pdfs  # no PDF rendered again
    assert len(pull_files(stack, "index.html")) >= htmls + len(report["prs"])
    assert "2026-05-01-to-2026-05-31" in site.pull_facts(stack.bucket, REPO)  # the dashboard and pages read it
    for entry in report["prs"]:
        number = entry["number"]
        page = json.loads(stack.bucket.get(f"{REPO}/pull/{number}/report.json") or b"{}")
        assert {m["slug"] for m in page["mentions"]} == {"2026-05-04-to-2026-05-10", "2026-05-01-to-2026-05-31"}
        assert page["report"]["slug"] == "2026-05-04-to-2026-05-10"  # still its week's
        html = (stack.bucket.get(f"{REPO}/pull/{number}/index.html") or b"").decode()
        assert 'href="../../reports/2026-05-01-to-2026-05-31/"' in html.split('id="mentions"', 1)[1]
        assert stack.bucket.get(f"{REPO}/pull/{number}/report.pdf") == pdf_before[number]
        whole = render_pull_all(page, "zh", with_pdf=False)  # what rendering the page again would have written
        assert {name: stack.bucket.get(f"{REPO}/pull/{number}/{name}") for name in whole} == whole
    assert rendered == []
    built = len(pull_files(stack, "index.html"))
    assert publish(stack, copy.deepcopy(month), copy.deepcopy(scored)) == 0
    assert len(pull_files(stack, "index.html")) == built


def test_a_week_published_after_its_month_rebuilds_its_pages_pdfs_too():
    # GIVEN the month first: its pages belong to the month (no week holds them yet)
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    report, scored = scored_week("zh")
    month = {**copy.deepcopy(report), "period": {**report["period"], "since": "2026-05-01", "until": "2026-05-31"}}
    publish(stack, month, copy.deepcopy(scored))
    pdfs = len(pull_puts(stack))
    # WHEN the week is published: each page now belongs to the week, a byline the PDF shows
    publish(stack, copy.deepcopy(report), copy.deepcopy(scored))
    # THEN every page is built anew, its PDF included
    assert len(pull_puts(stack)) == pdfs + len(report["prs"])
    page = json.loads(stack.bucket.get(f"{REPO}/pull/{report['prs'][0]['number']}/report.json") or b"{}")
    assert page["report"]["slug"] == "2026-05-04-to-2026-05-10"


def test_a_pr_whose_head_moved_is_rebuilt_and_only_it(week):
    stack, report, scored = week
    before = len(pull_puts(stack))
    moved = copy.deepcopy(scored)
    moved[0].head_sha = "f" * 40
    queued = publish(stack, copy.deepcopy(report), moved)
    assert queued == 1
    assert pull_puts(stack)[before:] == [f"{REPO}/pull/{moved[0].number}/report.pdf"]
    page = json.loads(stack.bucket.get(f"{REPO}/pull/{moved[0].number}/report.json") or b"{}")
    assert page["head"] == "f" * 40


def test_a_redelivered_message_for_a_current_page_renders_nothing(week):
    stack, report, _ = week
    before = len(pull_puts(stack))
    number = report["prs"][1]["number"]
    body = {"repo": REPO, "slug": "2026-05-04-to-2026-05-10", "lang": "zh", "home": "zh", "numbers": [number]}
    answer = pages.pages_message(PagesMessage.of(body), stack.deps)
    assert (answer["pages"], answer["reused"]) == (0, 1)
    assert len(pull_puts(stack)) == before
