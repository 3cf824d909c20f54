"""plan -> score -> report on in-memory adapters (tests/fakes/memory.py), no moto: the flow's guarantees that the
moto tests check end to end (a duplicate delivery changes nothing; exactly one report however workers interleave)
hold in the services themselves, whatever the adapters underneath."""
from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from prhub.core.config import WatchList
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record

from prhub_local.runner import LambdaContext
from prhub_local.sample import sample_settings
from tests.fakes.memory import SETTINGS, MemoryStack, Message, memory_stack

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
SAMPLE_PRS = 32
PREFIX = "acme/rocket/reports/2026-06-01-to-2026-06-07/"
SCORE, REPORT = SETTINGS.score_queue_url, SETTINGS.report_queue_url


def sample_stack() -> MemoryStack:
    return memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                    "repos": [sample_settings()["config"]]})))


def record(message: Message) -> SQSRecord:
    """The message as Lambda's SQS event shows it to the score worker."""
    return SQSRecord({"messageId": message.id, "receiptHandle": message.id, "body": json.dumps(message.body),
                      "attributes": {"ApproximateReceiveCount": str(message.receives)}, "messageAttributes": {},
                      "eventSource": "aws:sqs"})


def planned(stack: MemoryStack) -> tuple[str, list[Message]]:
    [run] = plan(SAMPLE, stack.deps)
    assert run["expected"] == SAMPLE_PRS
    messages = stack.queue.take(SCORE)
    assert len(messages) == SAMPLE_PRS
    return str(run["run_id"]), messages


def test_plan_score_report_on_memory_adapters_a_duplicate_delivery_changes_nothing() -> None:
    # GIVEN a planned run of the sample week
    stack = sample_stack()
    run_id, messages = planned(stack)
    # WHEN every message is delivered twice, the second time to another execution environment
    first = [score_record(record(m), stack.deps) for m in messages]
    other = replace(stack.deps, runs={})
    second = [score_record(record(m), other) for m in messages]
    # THEN each PR was stored and counted once, the copies changed nothing, and one report was asked for
    assert all(o["stored"] for o in first) and not any(o["stored"] for o in second)
    assert all(o["cached"] for o in second)  # the engine's score was cached by the first delivery
    run = stack.store.get_run(run_id)
    assert run is not None and (run.done, run.failed) == (SAMPLE_PRS, 0)
    assert len(stack.store.results(run_id)) == SAMPLE_PRS
    [ask] = stack.queue.take(REPORT)
    assert ask.body == {"run_id": run_id} and stack.queue.depth(REPORT) == 0

    # WHEN the report message is delivered twice and the sweep runs too
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    answer = report_message(ask.body, reporter)
    assert report_message(ask.body, reporter) == answer
    assert report_message({"sweep": True, "older_than_minutes": 0}, reporter) == {"swept": [], "failed": []}
    # THEN exactly one report was published, with every PR, and the run says so
    assert stack.bucket.puts.count(PREFIX + "report.json") == 1
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    report = json.loads(body)
    assert report["stats"]["pr_count"] == SAMPLE_PRS and report["unscored"] == []
    assert {PREFIX + n for n in ("report.md", "report.pdf", "index.html")} <= set(stack.bucket.objects)
    assert {"acme/rocket/index.html", "acme/rocket/feed.xml", "index.html"} <= set(stack.bucket.objects)
    assert answer["report_key"] == PREFIX and stack.store.runs[run_id].status == "reported"
    assert any("/acme/rocket/" in paths for paths in stack.cdn.invalidations)


def test_interleaved_workers_ask_for_exactly_one_report() -> None:
    # GIVEN a planned run, and eight workers (each its own execution environment) getting every message 3 times
    stack = sample_stack()
    run_id, messages = planned(stack)
    deliveries = [m for m in messages for _ in range(3)]
    stored: list[bool] = []
    lock = threading.Lock()

    def worker(share: list[Message]) -> None:
        deps = replace(stack.deps, runs={})
        for m in share:
            outcome: dict[str, Any] = score_record(record(m), deps)
            with lock:
                stored.append(bool(outcome["stored"]))

    threads = [threading.Thread(target=worker, args=(deliveries[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # THEN every PR is counted once and the report is asked for once
    assert stored.count(True) == SAMPLE_PRS and len(stored) == 3 * SAMPLE_PRS
    progress = stack.store.progress(run_id)
    assert progress is not None and progress.complete and (progress.done, progress.failed) == (SAMPLE_PRS, 0)
    assert [m.body for m in stack.queue.take(REPORT)] == [{"run_id": run_id}]


def test_a_pr_that_cannot_be_scored_is_named_in_the_report() -> None:
    # GIVEN a run whose last PR keeps failing (its message is on its last receive)
    stack = sample_stack()
    run_id, messages = planned(stack)
    *good, bad = messages
    for m in good:
        score_record(record(m), stack.deps)
    run = stack.store.runs[run_id]
    at = run.refs.index(bad.body["number"])
    run.listing[at] = replace(run.listing[at], number=999_999)  # a PR the export does not hold: it cannot load
    bad.body["ref"]["number"] = bad.body["number"] = 999_999
    bad.receives = SETTINGS.max_receive_count
    try:
        score_record(record(bad), stack.deps)
    except Exception:  # noqa: BLE001 - the record fails (SQS would move it to the DLQ)
        pass
    else:
        raise AssertionError("the last receive must still fail the record")
    # WHEN the run, now complete, is reported
    [ask] = stack.queue.take(REPORT)
    report_message(ask.body, stack.deps.invoked(LambdaContext("ReportFunction")))
    # THEN the report came out and names the PR as unscored, with the reason
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    [unscored] = json.loads(body)["unscored"]
    assert unscored["number"] == 999_999 and "not in" in unscored["reason"]
