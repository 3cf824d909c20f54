"""Every SQS-fed function treats a record that can never succeed alike (issue 24): acknowledged (not a batch item
failure, so it does not fill the DLQ), logged and counted; a good record beside it in the batch is still done."""
from __future__ import annotations

import json
from typing import Any

import pytest

from prhub_local.runner import sqs_event
from prhub_local.template import Stack
from tests.functional.flow_support import depth, handler, invoke, items

HELLO = "Hello from SQS!"  # AWS's own sample SQS event body
QUEUES = {"PlanFunction": "PlanQueue", "ScoreFunction": "ScoreQueue", "ReportFunction": "ReportQueue",
          "PagesFunction": "PagesQueue", "DeliveryFunction": "DeliveryQueue"}
# Bodies that are JSON but not the queue's message: no key the function needs.
NOT_THE_MESSAGE = {"PlanFunction": {"hello": 1}, "ScoreFunction": {"hello": 1}, "ReportFunction": {"hello": 1},
                   "PagesFunction": {"repo": "acme/rocket"}, "DeliveryFunction": {"run_id": "x"}}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    monkeypatch.setattr("prhub.cloud.metrics.count", lambda name, *args, **kwargs: names.append(name))
    return names


def records(stack: Stack, function: str, bodies: list[Any]) -> dict[str, Any]:
    messages = [{"MessageId": f"m{i}", "ReceiptHandle": f"r{i}", "Body": b if isinstance(b, str) else json.dumps(b),
                 "Attributes": {"ApproximateReceiveCount": "1"}} for i, b in enumerate(bodies)]
    return sqs_event(messages, stack.queue_arns[QUEUES[function]])


@pytest.mark.parametrize("function", list(QUEUES))
def test_a_record_that_can_never_succeed_is_acknowledged_counted_and_logged(
        stack: Stack, function: str, counted: list[str], caplog: pytest.LogCaptureFixture) -> None:
    bodies = [HELLO, "[1, 2]", NOT_THE_MESSAGE[function]]
    answer = invoke(handler(stack, function), records(stack, function, bodies), function)
    assert answer["batchItemFailures"] == [], answer
    assert counted.count("MessagesDropped") == len(bodies)  # one count for every function: the alarm reads it
    logged = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(logged) == len(bodies)
    assert items(stack, "RunsTable") == [] and depth(stack, "ScoreQueue") == 0


# Bodies with every key their message needs, one of them of the wrong kind: as hopeless as AWS's sample, refused
# where the handler parses them (prhub.flow.messages, issue 49) rather than failing deep in the service and being
# retried into the DLQ.
MALFORMED = {
    "ScoreFunction": {"run_id": "acme/rocket/2026-06-01_2026-06-07/x", "number": "twelve",
                      "ref": {"number": 12, "title": "t", "author": "a", "merged_at": "2026-06-02T00:00:00Z",
                              "url": "u"}},
    "ReportFunction": {"run_id": "acme/rocket/2026-06-01_2026-06-07/x", "revision": 0},
    "PagesFunction": {"repo": "acme/rocket", "slug": "2026-06-01-to-2026-06-07", "lang": "zh", "home": "zh",
                      "numbers": ["seven"]},
    "DeliveryFunction": {"run_id": "x", "report_key": "acme/rocket/reports/2026-06-01-to-2026-06-07/",
                         "channel": {"channel": "pager"}},
}
SWEEP = {"sweep": True, "older_than_minutes": "soon"}


@pytest.mark.parametrize("function", list(MALFORMED))
def test_a_body_with_a_malformed_field_is_refused_at_the_handler_not_retried(
        stack: Stack, function: str, counted: list[str]) -> None:
    bodies = [MALFORMED[function], *([SWEEP] if function == "ReportFunction" else [])]
    answer = invoke(handler(stack, function), records(stack, function, bodies), function)
    assert answer["batchItemFailures"] == [], answer
    assert counted.count("MessagesDropped") == len(bodies)


def test_a_malformed_report_record_does_not_fail_the_good_one_beside_it(stack: Stack, counted: list[str]) -> None:
    # GIVEN a planned empty range, whose report message waits on ReportQueue
    from tests.functional.flow_support import receive_all

    answer = invoke(handler(stack, "PlanFunction"), {"repo": "acme/rocket", "since": "2026-05-27",
                                                     "until": "2026-05-27"}, "PlanFunction")
    [message] = receive_all(stack, "ReportQueue", 1)
    event = records(stack, "ReportFunction", [HELLO, json.loads(message["Body"])])
    # WHEN ReportFunction gets it beside AWS's sample body
    result = invoke(handler(stack, "ReportFunction"), event, "ReportFunction")
    # THEN the report is published and the sample body acknowledged
    assert result["batchItemFailures"] == []
    [run] = [i for i in items(stack, "RunsTable") if i["run_id"] == answer["runs"][0]["run_id"]]
    assert run["status"] == "reported" and counted.count("MessagesDropped") == 1
