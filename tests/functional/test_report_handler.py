"""ReportFunction on moto: one report per run however often it is asked, and the sweep for stuck runs."""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from prhub.cloud import aws

from prhub_local.runner import sqs_event
from prhub_local.template import Stack
from tests.conftest import load_event
from tests.functional.flow_support import (
    deliver,
    depth,
    handler,
    invoke,
    objects,
    receive_all,
    run_item,
)

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
PREFIX = "acme/rocket/reports/2026-06-01-to-2026-06-07/"
SAMPLE_PRS = 32


def plan_and_score(stack: Stack, twice: bool = False, keep: int = 0) -> tuple[str, list[dict[str, Any]]]:
    """Plan the sample and score it; `keep` messages are left undelivered (in flight) and returned."""
    answer = invoke(handler(stack, "PlanFunction"), SAMPLE)
    run_id = answer["runs"][0]["run_id"]
    messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    kept, todo = messages[:keep], messages[keep:]
    score = handler(stack, "ScoreFunction")
    for start in range(0, len(todo), 10):
        batch = todo[start:start + 10]
        if twice:
            invoke(score, sqs_event(batch, stack.queue_arns["ScoreQueue"]))
        assert deliver(score, stack, "ScoreQueue", batch) == set()
    return run_id, kept


def report_event(run_id: str) -> dict[str, Any]:
    event = copy.deepcopy(load_event("report-sqs.json"))
    event["Records"][0]["body"] = json.dumps({"run_id": run_id})
    return event


def report_json(stack: Stack) -> dict[str, Any]:
    body = aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"], Key=PREFIX + "report.json")["Body"].read()
    return json.loads(body)  # type: ignore[no-any-return]


def test_report_is_published_once_however_often_it_is_asked(stack: Stack) -> None:
    run_id, _ = plan_and_score(stack)
    [message] = receive_all(stack, "ReportQueue", 1)
    report = handler(stack, "ReportFunction")
    assert deliver(report, stack, "ReportQueue", [message]) == set()
    published = objects(stack)
    assert {PREFIX + n for n in ("report.json", "report.md", "report.pdf", "index.html")} <= set(published)
    first = report_json(stack)
    assert first["stats"]["pr_count"] == SAMPLE_PRS and first["unscored"] == []
    assert first["scorer"]["heuristic_prs"] + first["scorer"]["llm_prs"] == SAMPLE_PRS
    run = run_item(stack, run_id)
    assert run["status"] == "reported" and run["report_key"] == PREFIX
    # A redelivered report message, and another worker's copy of the function: nothing is rewritten.
    assert invoke(report, report_event(run_id))["batchItemFailures"] == []
    assert invoke(handler(stack, "ReportFunction"), report_event(run_id))["batchItemFailures"] == []
    again = objects(stack)
    assert {k: (v["ETag"], v["LastModified"]) for k, v in again.items()} == {
        k: (v["ETag"], v["LastModified"]) for k, v in published.items()}
    assert report_json(stack)["generated_at"] == first["generated_at"]


def test_every_message_delivered_twice_gives_the_same_report(stack: Stack) -> None:
    report = handler(stack, "ReportFunction")
    plan_and_score(stack)
    deliver(report, stack, "ReportQueue", receive_all(stack, "ReportQueue", 1))
    once = report_json(stack)
    run_id, _ = plan_and_score(stack, twice=True)
    [message] = receive_all(stack, "ReportQueue", 1)
    invoke(report, sqs_event([message], stack.queue_arns["ReportQueue"]))
    deliver(report, stack, "ReportQueue", [message])
    twice = report_json(stack)
    assert run_item(stack, run_id)["done"] == SAMPLE_PRS
    for volatile in ("generated_at",):
        once.pop(volatile), twice.pop(volatile)
    assert twice == once


def test_sweep_finishes_a_stuck_run_and_a_late_worker_asks_for_a_revision_once(stack: Stack) -> None:
    # GIVEN a run whose last 3 PRs never came back (their worker died holding them)
    run_id, kept = plan_and_score(stack, keep=3)
    assert run_item(stack, run_id)["done"] == SAMPLE_PRS - 3
    assert depth(stack, "ReportQueue") == 0
    report = handler(stack, "ReportFunction")
    # WHEN the scheduled sweep runs while the run's progress is recent, it leaves it alone
    assert invoke(report, load_event("report-sweep.json"))["swept"] == []
    # WHEN the sweep runs past the threshold (next to a run item it cannot read, which must not stop it)
    aws.client("dynamodb").put_item(TableName=stack.tables["RunsTable"],
                                    Item={"run_id": {"S": "broken"}, "status": {"S": "scoring"}})
    swept = invoke(report, {"sweep": True, "older_than_minutes": 0})
    # THEN the run is reported, the missing PRs named as unscored
    assert swept["swept"] == [run_id]
    published = report_json(stack)
    missing = sorted(json.loads(m["Body"])["number"] for m in kept)
    assert [u["number"] for u in published["unscored"]] == missing
    assert published["language"] == "en"  # the stack's watch list
    assert all(u["reason"] == "no result: its worker never finished" and u["title"] for u in published["unscored"])
    # The headline counts every merged PR and says how many are not scored yet.
    assert published["stats"]["pr_count"] == SAMPLE_PRS and published["stats"]["unscored_count"] == 3
    assert published["summary"].startswith(f"{SAMPLE_PRS} PRs were merged (3 not scored yet")
    assert run_item(stack, run_id)["status"] == "reported"
    # AND a late worker finishing one of them asks for the report's second revision, not a second first one
    assert deliver(handler(stack, "ScoreFunction"), stack, "ScoreQueue", kept[:1]) == set()
    [ask] = receive_all(stack, "ReportQueue", 1)
    assert json.loads(ask["Body"]) == {"run_id": run_id, "revision": 2}
    # AND the same result delivered again asks for nothing more
    assert invoke(handler(stack, "ScoreFunction"), sqs_event(kept[:1], stack.queue_arns["ScoreQueue"])) == {
        "batchItemFailures": []}
    assert depth(stack, "ReportQueue") == 1  # the revision's message, still in flight


def test_the_feed_links_are_absolute_under_the_site_url(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    # Feed readers resolve relative links against the feed's own URL at best; the stack knows its site's URL.
    monkeypatch.setenv("SITE_URL", "https://reports.example.org")
    run_id, _ = plan_and_score(stack)
    [message] = receive_all(stack, "ReportQueue", 1)
    assert deliver(handler(stack, "ReportFunction"), stack, "ReportQueue", [message]) == set()
    feed = aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"],
                                       Key="acme/rocket/feed.xml")["Body"].read().decode()
    assert f'href="https://reports.example.org/{PREFIX}"' in feed
    assert 'href="https://reports.example.org/acme/rocket/feed.xml"' in feed
