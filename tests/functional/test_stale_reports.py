"""A publication never replaces a report built from a newer or more complete run of the same range and language
(issue 24, item 2): the stale one is recorded on its run, not published.

The first test follows the issue's reproduction on moto through the handlers: a run orphaned part-way, a second
run of the range that reports every PR, then the sweep that finds the orphan. The second stages, on the in-memory
adapters, a late revision of an older run arriving after a newer run's report.
"""
from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from prhub.cloud import aws
from prhub.core.config import WatchList
from prhub.flow.messages import ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record

from prhub_local.runner import LambdaContext
from prhub_local.sample import sample_settings
from prhub_local.template import Stack
from tests.fakes.memory import SETTINGS, memory_stack
from tests.functional.flow_support import delete, deliver, handler, invoke, receive_all, run_item
from tests.functional.test_flow_in_memory import record

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
SAMPLE_PRS = 32
REPORT_JSON = "acme/rocket/reports/2026-06-01-to-2026-06-07/report.json"


def report_json(stack: Stack) -> dict[str, Any]:
    body = aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"], Key=REPORT_JSON)["Body"].read()
    return json.loads(body)  # type: ignore[no-any-return]


def score(stack: Stack, messages: list[dict[str, Any]]) -> None:
    fn = handler(stack, "ScoreFunction")
    for start in range(0, len(messages), 10):
        assert deliver(fn, stack, "ScoreQueue", messages[start:start + 10]) == set()


def test_a_late_sweep_of_an_orphaned_run_does_not_publish_over_the_complete_report(stack: Stack) -> None:
    # GIVEN a run stopped part-way (10 PRs scored, the rest of its messages lost) ...
    planner = handler(stack, "PlanFunction")
    orphan = invoke(planner, SAMPLE)["runs"][0]["run_id"]
    first, *lost = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    score(stack, [first, *lost[:9]])
    delete(stack, "ScoreQueue", lost[9:])
    time.sleep(1.1)  # planned a second later: the runs' times differ
    # ... and a second run of the range that scored every PR and published (the ten the cache holds for their head
    # stored by its plan, the rest by its workers)
    good = invoke(planner, SAMPLE)["runs"][0]["run_id"]
    score(stack, receive_all(stack, "ScoreQueue", SAMPLE_PRS - 10))
    reporter = handler(stack, "ReportFunction")
    [ask] = receive_all(stack, "ReportQueue", 1)
    assert json.loads(ask["Body"]) == {"run_id": good}
    assert deliver(reporter, stack, "ReportQueue", [ask]) == set()
    published = report_json(stack)
    assert (published["stats"]["pr_count"], published["unscored"]) == (SAMPLE_PRS, [])

    # WHEN the sweep finds the orphan
    swept = invoke(reporter, {"sweep": True, "older_than_minutes": 0}, "ReportFunction")

    # THEN the orphan is recorded as superseded, and the complete report stays at the URL
    assert swept["swept"] == [orphan] and swept["failed"] == []
    assert report_json(stack) == published
    item = run_item(stack, orphan)
    assert (item["status"], item["superseded_by"], item["revision"]) == ("reported", good, 1)
    assert run_item(stack, good)["superseded_by"] == ""
    assert invoke(reporter, {"sweep": True, "older_than_minutes": 0}, "ReportFunction")["swept"] == [], \
        "recorded: not swept again"


def test_a_report_of_an_older_run_does_not_replace_a_newer_runs_report() -> None:
    # GIVEN two complete runs of the range, the older planned 20 minutes before the newer
    stack = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                     "repos": [sample_settings()["config"]]})))
    now = datetime.now(UTC)
    planned = []
    for minutes_ago in (30, 10):
        stack.deps.clock = lambda m=minutes_ago: now - timedelta(minutes=m)  # type: ignore[misc]
        [run] = plan(SAMPLE, stack.deps)
        planned.append(run["run_id"])
        for message in stack.queue.take(SETTINGS.score_queue_url):
            score_record(record(message), stack.deps)
    stack.deps.clock = lambda: now
    older, newer = planned
    asks = {m.body["run_id"]: m.body for m in stack.queue.take(SETTINGS.report_queue_url)}
    assert set(asks) == {older, newer}
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    # WHEN the newer one publishes first, then the older one's report message arrives (redelivered, late)
    first = report_message(ReportMessage.of(asks[newer]), reporter)
    published = stack.bucket.get(REPORT_JSON)
    late = report_message(ReportMessage.of(asks[older]), reporter)
    # THEN the older report is recorded as superseded: not published, no channel told
    assert "superseded_by" not in first and first["pr_count"] == SAMPLE_PRS
    assert (late["superseded_by"], late["deliveries"]) == (newer, 0)
    assert stack.bucket.get(REPORT_JSON) == published
    assert stack.bucket.puts.count(REPORT_JSON) == 1
    assert (stack.store.runs[older].status, stack.store.runs[older].superseded_by) == ("reported", newer)
    # AND the newer run's own revisions still publish over its own report
    mine = stack.store.runs[newer]
    assert mine.report_key is not None and stack.store.superseding(mine.report_key, mine, SAMPLE_PRS) is None
    assert stack.store.superseding(mine.report_key, stack.store.runs[older], SAMPLE_PRS) == newer
