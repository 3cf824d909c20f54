"""Bad input at every function's door, on moto: malformed and unknown events, bad dates, unknown
repositories, corrupt/oversized/non-UTF-8 export rows. Each gets a clear error (nothing written),
or is skipped with a reason that reaches the report; no bad record fails its batch mates.

(PlanFunction's field-by-field validation is in test_plan_handler.py; this file covers the rest.)
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import aws

from prhub_local.runner import sqs_event
from prhub_local.template import Stack
from tests.conftest import load_event
from tests.fakes.github_server import FakeGitHub
from tests.functional.flow_support import deliver, depth, handler, invoke, items, receive_all, run_item

REPO = "acme/rocket"
WEEK = {"since": "2026-06-01", "until": "2026-06-07"}



def nothing_written(stack: Stack) -> None:
    for table in ("RunsTable", "ResultsTable"):
        assert items(stack, table) == [], table
    assert depth(stack, "ScoreQueue") == 0 and depth(stack, "ReportQueue") == 0


def plan(stack: Stack, event: Any) -> dict[str, Any]:
    return invoke(handler(stack, "PlanFunction"), event, "PlanFunction")  # type: ignore[no-any-return]


# -- PlanFunction ------------------------------------------------------------------------------------------------

EVENTS = [
    (None, "event must be a JSON object"),
    (42, "event must be a JSON object"),
    ({"repo": {"owner": "acme"}, **WEEK}, "owner/name"),
    ({"repo": "acme/rock\x00et", **WEEK}, "owner/name"),
    ({"repo": "acme/" + "r" * 1_000_000, **WEEK}, "owner/name"),
    ({"repo": "../../etc/passwd", **WEEK}, "owner/name"),
    ({"repo": REPO, **WEEK, "tz": None}, ""),  # null means "the repository's zone": allowed
    ({"repo": REPO, **WEEK, "tz": 8}, "tz must be a string"),
    ({"repo": REPO, **WEEK, "tz": "UTC+8"}, "unknown time zone"),
    ({"repo": REPO, "since": "2026-06-01T00:00:00Z", "until": "2026-06-07"}, "since must be a date"),
    ({"repo": REPO, "since": "", "until": ""}, "since and until are required"),
    ({"repo": REPO, "since": "2026-06-07", "until": "2026-06-01"}, "is after until"),
    ({"repo": REPO, "since": "1970-01-01", "until": "2026-06-07"}, "exceeds the maximum"),
    ({"repo": REPO, **WEEK, "scorer": "magic"}, "scorer must be"),
    ({"repo": REPO, **WEEK, "lang": ["zh"]}, "lang must be a string"),
    ({"repo": REPO, **WEEK, "source": "jsonl:"}, "unknown source"),
    ({"version": "0", "detail-type": "Scheduled Event", "bogus": 1}, "unknown event keys: bogus"),
    ({"time": "last monday", "detail-type": "Scheduled Event"}, "not a timestamp"),
]


@pytest.mark.parametrize(("event", "words"), EVENTS, ids=[f"{i}-{w or 'ok'}" for i, (_, w) in enumerate(EVENTS)])
def test_plan_refuses_bad_events_with_a_clear_message_and_writes_nothing(stack: Stack, event: Any,
                                                                          words: str) -> None:
    answer = plan(stack, event)
    if not words:
        assert answer["ok"], answer
        return
    assert answer == {"ok": False, "error": pytest.approx(answer["error"])}
    assert words in answer["error"]
    assert len(answer["error"]) < 600  # a message, not a dump of the input
    nothing_written(stack)


def test_plan_for_a_repository_github_does_not_know_is_a_clear_error(stack: Stack,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGitHub([], repo=REPO, token="ghp_test") as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
        answer = plan(stack, {"repo": "nobody/nothing", **WEEK, "source": "github"})
    assert answer["ok"] is False
    assert "nobody/nothing" in answer["error"] and "not found" in answer["error"].lower()
    nothing_written(stack)


# -- ScoreFunction -----------------------------------------------------------------------------------------------

def score_record(body: str, message_id: str, receives: int = 1) -> dict[str, Any]:
    record = copy.deepcopy(load_event("score-sqs.json")["Records"][0])
    record.update(body=body, messageId=message_id)
    record["attributes"]["ApproximateReceiveCount"] = str(receives)
    return record


def test_score_batch_with_every_kind_of_bad_record_fails_only_those(stack: Stack) -> None:
    answer = plan(stack, {"repo": REPO, **WEEK})
    run_id = answer["runs"][0]["run_id"]
    good = receive_all(stack, "ScoreQueue", 3)[:3]
    event = sqs_event(good, stack.queue_arns["ScoreQueue"])
    ref = {"number": 1201, "title": "t", "author": "a", "merged_at": "2026-06-02T00:00:00Z", "url": "u"}
    bad = {
        "not-json": "{\"run_id\": ",
        "array": "[1, 2, 3]",
        "no-ref": json.dumps({"run_id": run_id, "number": 1201}),
        "number-text": json.dumps({"run_id": run_id, "number": "twelve", "ref": ref}),
        "bad-date": json.dumps({"run_id": run_id, "number": 1201, "ref": {**ref, "merged_at": "yesterday"}}),
        "unknown-run": json.dumps({"run_id": "acme/rocket/1999-01-01_1999-01-07/x", "number": 1201, "ref": ref}),
        "empty": "",
        "binary": "\udcff\udcfe",
    }
    for i, (message_id, body) in enumerate(bad.items()):
        event["Records"].insert(i % 3, score_record(body.encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
                                                    message_id))
    answer = invoke(handler(stack, "ScoreFunction"), event, "ScoreFunction")
    # None of them can ever succeed: acknowledged without failing the batch, not retried into the DLQ
    assert answer["batchItemFailures"] == []
    stored = {r["number"] for r in items(stack, "ResultsTable")}
    assert stored == {json.loads(m["Body"])["number"] for m in good}
    assert run_item(stack, run_id)["done"] == 3


def test_score_function_given_a_non_sqs_event_says_so(stack: Stack) -> None:
    for event in ({}, {"Records": "nope"}, {"Records": [{"body": "x"}]}):
        with pytest.raises(Exception, match="(?i)event|record|messageId|eventSource"):
            invoke(handler(stack, "ScoreFunction"), event, "ScoreFunction")
    nothing_written(stack)


# -- ReportFunction ----------------------------------------------------------------------------------------------

def report_record(body: str, message_id: str) -> dict[str, Any]:
    record = copy.deepcopy(load_event("report-sqs.json")["Records"][0])
    record.update(body=body, messageId=message_id)
    return record


BAD_REPORT_BODIES = [(json.dumps({"run_id": "acme/rocket/2026-06-01_2026-06-07/nope"}), "does not exist")]
# Malformed bodies, refused where ReportMessage parses them (issue 49): a retry would meet the same body.
NOT_REPORT_MESSAGES = [("{}", "has none of run_id, sweep"), ("{run", "not JSON"),
                       (json.dumps({"run_id": 7}), "needs a run_id"), ("Hello from SQS!", "not JSON"),
                       (json.dumps({"sweep": True, "older_than_minutes": "soon"}),
                        "older_than_minutes must be a number"),
                       (json.dumps({"run_id": "acme/rocket/2026-06-01_2026-06-07/x", "revision": "2"}),
                        "revision must be a whole number")]


@pytest.mark.parametrize(("body", "words"), BAD_REPORT_BODIES, ids=[w for _, w in BAD_REPORT_BODIES])
def test_a_bad_report_message_fails_its_batch_of_one_with_a_clear_reason(stack: Stack, body: str, words: str) -> None:
    # ReportQueue delivers one message per batch (BatchSize 1): the failure is the invocation's, so SQS retries it
    # and then moves it to ReportDLQ; the reason is in the error.
    with pytest.raises(Exception, match=words):
        invoke(handler(stack, "ReportFunction"), {"Records": [report_record(body, "m1")]}, "ReportFunction")
    assert aws.client("s3").list_objects_v2(Bucket=stack.buckets["SiteBucket"]).get("KeyCount", 0) == 0


@pytest.mark.parametrize(("body", "words"), NOT_REPORT_MESSAGES, ids=[w for _, w in NOT_REPORT_MESSAGES])
def test_a_body_that_is_no_report_message_is_acknowledged_with_the_reason_logged(
        stack: Stack, body: str, words: str, caplog: pytest.LogCaptureFixture) -> None:
    # It can never succeed: retrying it would only fill ReportDLQ (tests/functional/test_malformed_records.py).
    answer = invoke(handler(stack, "ReportFunction"), {"Records": [report_record(body, "m1")]}, "ReportFunction")
    assert answer["batchItemFailures"] == []
    assert any(words in str(getattr(r, "reason", "")) for r in caplog.records), [r.__dict__ for r in caplog.records]
    assert aws.client("s3").list_objects_v2(Bucket=stack.buckets["SiteBucket"]).get("KeyCount", 0) == 0


@pytest.mark.parametrize(("event", "words"), [
    ({}, "run_id"),
    ({"run_id": ""}, "run_id"),
    ({"run_id": "acme/rocket/2026-06-01_2026-06-07/nope"}, "does not exist"),
    ({"sweep": True, "older_than_minutes": "soon"}, "older_than_minutes must be a number"),
    ({"sweep": True, "older_than_minutes": "nan"}, "older_than_minutes must be a number"),
    ({"sweep": True, "older_than_minutes": "-inf"}, "older_than_minutes must be a number"),
    ({"sweep": True, "older_than_minutes": -5}, "older_than_minutes must be a number"),
    ({"sweep": True, "older_than_minutes": True}, "older_than_minutes must be a number"),
])
def test_report_function_invoked_directly_with_a_bad_event_raises_a_clear_error(stack: Stack, event: Any,
                                                                                  words: str) -> None:
    with pytest.raises(Exception, match=words):
        invoke(handler(stack, "ReportFunction"), event, "ReportFunction")
    assert aws.client("s3").list_objects_v2(Bucket=stack.buckets["SiteBucket"]).get("KeyCount", 0) == 0


# -- a hostile export, end to end through the three functions ------------------------------------------------------

def hostile_export(path: Path) -> dict[str, Any]:
    """Rows of a week with a corrupt line, a non-object line, a duplicate, non-UTF-8 bytes and an oversized PR."""
    def row(number: int, title: str, **extra: Any) -> dict[str, Any]:
        return {"number": number, "title": title, "body": "body", "merged_at": "2026-06-02T10:00:00Z",
                "user": {"login": "dev"}, "html_url": f"https://github.com/{REPO}/pull/{number}",
                "files": [{"filename": "src/a.py", "additions": 3, "deletions": 1}], **extra}

    files = [{"filename": f"src/gen/module_{i}.py", "status": "added", "additions": 5, "deletions": 0}
             for i in range(3000)]
    lines = [
        json.dumps(row(1, "[trainer] fix: ordinary")).encode(),
        b'{"number": 2, "title": "cut off',
        b"[1, 2, 3]",
        json.dumps(row(3, "XX-title")).encode().replace(b"XX", b"\xff\xfe latin-1 caf\xe9"),
        json.dumps(row(4, "[ci] feat: oversized", body="word " * 210_000, files=files, files_truncated=True)).encode(),
        json.dumps(row(1, "[trainer] fix: duplicate of #1")).encode(),
        json.dumps(row(5, "<script>alert(1)</script> [doc] fix: markup in a title")).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return {"scored": {1, 3, 4, 5}, "skipped_lines": {2, 3, 6}}


def drain(stack: Stack, queue: str, fn_name: str, expected: int) -> None:
    messages = receive_all(stack, queue, expected)
    assert len(messages) == expected
    failed = deliver(handler(stack, fn_name), stack, queue, messages, fn_name)
    assert failed == set()


def test_a_hostile_export_is_reported_with_its_skipped_lines_named(stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    expect = hostile_export(path)
    answer = plan(stack, {"repo": REPO, **WEEK, "source": f"jsonl:{path}", "scorer": "heuristic"})
    assert answer["ok"], answer
    assert answer["runs"][0]["expected"] == len(expect["scored"])
    drain(stack, "ScoreQueue", "ScoreFunction", len(expect["scored"]))
    drain(stack, "ReportQueue", "ReportFunction", 1)
    key = f"{REPO}/reports/{WEEK['since']}-to-{WEEK['until']}/report.json"
    report = json.loads(aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"], Key=key)["Body"].read())
    assert {p["number"] for p in report["prs"]} == expect["scored"] and report["unscored"] == []
    by_number = {p["number"]: p for p in report["prs"]}
    assert "\ufffd" in by_number[3]["title"]  # undecodable bytes replaced, the PR kept
    assert by_number[4]["changed_files"] == 3000
    notes = "\n".join(report["notes"])
    for lineno in expect["skipped_lines"]:
        assert f"{path.name}:{lineno}:" in notes  # each skipped line named with its reason
    assert str(tmp_path) not in notes  # by the file's name: the operator's folders are not published
    html = aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"],
                                       Key=key.replace("report.json", "index.html"))["Body"].read().decode()
    assert "<script>alert(1)</script>" not in html
