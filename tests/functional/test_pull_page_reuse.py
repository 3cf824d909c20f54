"""PR pages are built once per PR head and language (issue 24 item 7, issue 25's year on a state where the weeks ran).

A re-run of a published week queues no PR page again; a wider period holding the same PRs (a year after its weeks)
reuses the weeks' pages; a PR whose head moved, or whose neighbours changed, is rebuilt. On the in-memory stack,
with every queued PagesQueue message handed to pages_message as PagesFunction would receive it.
"""
from __future__ import annotations

import copy
import json

import pytest
from prhub.core.config import WatchList
from prhub.flow import pages
from prhub.site import publish as site
from prhub.site.render import render_all

from bench.render_week import DATA, scored_week, week_history
from tests.fakes.memory import MemoryStack, memory_stack

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is absent (real data lives outside the repo)")

REPO = "verl-project/verl"
QUEUE = "memory://pages"


def publish(stack: MemoryStack, report: dict, scored: list) -> int:
    """What publish_run does after composing, then PagesFunction on every queued message; the messages queued."""
    site.publish_report(stack.bucket, report, render_all(report, "zh"), "zh")
    queued = pages.fan_out(report, "zh", scored, stack.deps, week_history())
    for message in stack.queue.take(QUEUE):
        pages.pages_message(message.body, stack.deps)
    return queued


def pull_puts(stack: MemoryStack) -> list[str]:
    return [k for k in stack.bucket.puts if "/pull/" in k and k.endswith("report.pdf")]


@pytest.fixture(scope="module")
def week() -> tuple[MemoryStack, dict, list]:
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh"}]})))
    report, scored = scored_week("zh")
    assert publish(stack, report, scored) > 0
    return stack, report, scored


def test_a_rerun_of_the_week_queues_no_page_again(week):
    stack, report, scored = week
    built = len(pull_puts(stack))
    assert built == len(report["prs"])
    # WHEN the same week is published again (a re-run on the same state)
    queued = publish(stack, copy.deepcopy(report), copy.deepcopy(scored))
    # THEN no page was queued, and none rebuilt
    assert queued == 0
    assert len(pull_puts(stack)) == built


def test_a_wider_period_with_the_same_prs_rebuilds_their_pages_to_name_it_once(week):
    # A page names every published report listing its PR (issue 25): a month after the week adds one, so its
    # pages are built again, once; a re-run of the month then reuses them.
    stack, report, scored = week
    before = len(pull_puts(stack))
    month = {**copy.deepcopy(report), "period": {**report["period"], "since": "2026-05-01", "until": "2026-05-31"}}
    assert publish(stack, month, copy.deepcopy(scored)) > 0 and len(pull_puts(stack)) > before
    assert "2026-05-01-to-2026-05-31" in site.pull_facts(stack.bucket, REPO)  # the dashboard and pages read it
    built = len(pull_puts(stack))
    assert publish(stack, copy.deepcopy(month), copy.deepcopy(scored)) == 0 and len(pull_puts(stack)) == built


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
    answer = pages.pages_message(body, stack.deps)
    assert (answer["pages"], answer["reused"]) == (0, 1)
    assert len(pull_puts(stack)) == before
