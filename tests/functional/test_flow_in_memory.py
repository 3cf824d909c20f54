"""plan -> score -> report on in-memory adapters (tests/fakes/memory.py), no moto: the flow's guarantees that the
moto tests check end to end (a duplicate delivery changes nothing; exactly one report however workers interleave)
hold in the services themselves, whatever the adapters underneath."""
from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from prhub.cloud.queue import QueueError
from prhub.core.config import WatchList
from prhub.flow.messages import ReportMessage
from prhub.flow.plan import continue_listing, plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record

from bench import synthetic
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
    answer = report_message(ReportMessage.of(ask.body), reporter)
    assert report_message(ReportMessage.of(ask.body), reporter) == answer
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter) == {"swept": [], "failed": []}
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
    report_message(ReportMessage.of(ask.body), stack.deps.invoked(LambdaContext("ReportFunction")))
    # THEN the report came out and names the PR as unscored, with the reason
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    [unscored] = json.loads(body)["unscored"]
    assert unscored["number"] == 999_999 and "not in" in unscored["reason"]


# -- a scheduled plan stopped after writing its run (issue 46, item 2) ------------------------------------------------

SCHEDULE = {"time": "2026-06-08T01:00:00Z"}  # EventBridge Scheduler's input: the sample's week has just ended
NOW = datetime(2026, 6, 8, 1, tzinfo=UTC)
PLAN = "memory://plan"


def scheduled_stack(repos: list[dict[str, Any]] | None = None) -> MemoryStack:
    watched = WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                          "repos": repos or [sample_settings()["config"]]}))
    stack = memory_stack(watched, clock=lambda: NOW)
    stack.deps = replace(stack.deps, settings=replace(SETTINGS, plan_queue_url=PLAN))
    return stack


def failing_sends(stack: MemoryStack, failures: list[int]) -> list[int]:
    """ScoreQueue refuses the send_batch calls numbered in `failures` (1: the first), as SQS would after the
    client's retries; the others go through. Returns the calls' sizes."""
    calls: list[int] = []
    send_batch = stack.queue.send_batch

    def flaky(queue_url: str, bodies: list[dict[str, Any]]) -> int:
        calls.append(len(bodies))
        if len(calls) in failures:
            raise QueueError(f"SQS refused {len(bodies)} message(s) after 3 attempts")
        return send_batch(queue_url, bodies)

    stack.queue.send_batch = flaky  # type: ignore[method-assign]
    return calls


def score_and_report(stack: MemoryStack) -> dict[str, Any]:
    """Deliver every score message (a fresh environment each), then the report messages and the sweep; the week's
    report.json."""
    for m in stack.queue.take(SCORE):
        score_record(record(m), replace(stack.deps, runs={}))
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    for ask in stack.queue.take(REPORT):
        report_message(ReportMessage.of(ask.body), reporter)
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter)["failed"] == []
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    return dict(json.loads(body))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    monkeypatch.setattr("prhub.cloud.metrics.count", lambda name, *args, **kwargs: names.append(name))
    return names


def test_a_scheduled_plan_whose_fan_out_failed_is_finished_by_its_retry(counted: list[str]) -> None:
    # GIVEN the weekly plan, whose first send to ScoreQueue fails after the run is written
    stack = scheduled_stack()
    failing_sends(stack, [1])
    [first] = plan(SCHEDULE, stack.deps)
    # THEN the answer says the repository failed, it is counted, and it waits on PlanQueue to be planned again
    assert first["failed"] is True and first["retrying"] is True and "QueueError" in first["error"]
    assert counted.count("PlansFailed") == 1 and stack.queue.depth(SCORE) == 0
    run_id = str(first["run_id"])
    assert stack.store.runs[run_id].fanned == 0 and not stack.store.runs[run_id].fanned_out
    # WHEN Lambda retries the event (the same weekly run id)
    [again] = plan(SCHEDULE, stack.deps)
    # THEN the retry hands on every PR instead of answering `duplicate`
    assert again["run_id"] == run_id and again["sent"] == SAMPLE_PRS and "duplicate" not in again
    assert stack.store.runs[run_id].fanned_out and counted.count("RunsPlanned") == 1
    # AND the PlanQueue retry and a third delivery of the event find nothing left to do
    [retry] = stack.queue.messages[PLAN]
    assert continue_listing({"Records": [{"messageId": "p1", "body": json.dumps(retry.body)}]},
                            stack.deps) == {"batchItemFailures": []}
    assert plan(SCHEDULE, stack.deps)[0]["duplicate"] is True
    assert stack.queue.depth(SCORE) == SAMPLE_PRS
    # AND the week comes out complete: every PR scored once, nothing unscored, nothing counted twice
    report = score_and_report(stack)
    assert report["stats"]["pr_count"] == SAMPLE_PRS and report["unscored"] == []
    assert len(report["prs"]) == SAMPLE_PRS == stack.store.runs[run_id].done
    assert counted.count("PlansFailed") == 1  # the sweep found no run left part-way


def test_a_plan_stopped_part_way_sends_only_what_it_had_not(monkeypatch: pytest.MonkeyPatch,
                                                            counted: list[str]) -> None:
    # GIVEN a fan-out in chunks of 10, whose second send fails: 10 PRs were sent, 22 were not
    monkeypatch.setattr("prhub.flow.plan.FAN_OUT_CHUNK", 10)
    stack = scheduled_stack()
    calls = failing_sends(stack, [2])
    [first] = plan(SCHEDULE, stack.deps)
    assert first["failed"] is True and calls == [10, 10] and stack.queue.depth(SCORE) == 10
    # WHEN the event is retried
    [again] = plan(SCHEDULE, stack.deps)
    # THEN the 22 not sent are, and no PR twice
    assert again["resumed_from"] == 10 and again["sent"] == 22
    numbers = [m.body["number"] for m in stack.queue.messages[SCORE]]
    assert len(numbers) == len(set(numbers)) == SAMPLE_PRS
    report = score_and_report(stack)
    assert report["stats"]["pr_count"] == SAMPLE_PRS and report["unscored"] == []


def test_the_sweep_counts_a_run_whose_plan_never_finished_as_a_failed_plan(counted: list[str]) -> None:
    # GIVEN a plan stopped after writing its run, with no retry (its PlanQueue message lost too)
    stack = scheduled_stack()
    failing_sends(stack, [1])
    stack.deps = replace(stack.deps, settings=SETTINGS)  # no PlanQueue: nothing plans it again
    [first] = plan(SCHEDULE, stack.deps)
    assert first["failed"] is True and "retrying" not in first and counted.count("PlansFailed") == 1
    # WHEN the sweep reports it
    report = score_and_report(stack)
    # THEN the week is out with its PRs unscored, and the sweep counted a failed plan
    assert len(report["unscored"]) == SAMPLE_PRS and counted.count("PlansFailed") == 2


def test_one_repository_failing_does_not_stop_the_others(tmp_path: Path, counted: list[str]) -> None:
    # GIVEN two watched repositories, the first one's fan-out failing
    export = synthetic.write_jsonl(tmp_path / "other.jsonl", 5, seed=3, since=date(2026, 6, 1), days=7,
                                   repo="acme/other", tz_offset_hours=2)
    stack = scheduled_stack([sample_settings()["config"],
                             {"repo": "acme/other", "tz": "Europe/Berlin", "source": f"jsonl:{export}"}])
    failing_sends(stack, [1])
    # WHEN the schedule fires
    rocket, other = plan(SCHEDULE, stack.deps)
    # THEN the first is named as failed, and the second is planned all the same
    assert rocket["repo"] == "acme/rocket" and rocket["failed"] is True
    assert other["repo"] == "acme/other" and other["expected"] == 5 and "error" not in other
    assert stack.queue.depth(SCORE) == 5
