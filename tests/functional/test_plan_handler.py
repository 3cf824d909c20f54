"""PlanFunction on moto: custom ranges, the weekly schedule, and bad input that writes nothing."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.store import Run
from prhub.core.errors import InputError
from prhub.flow.deps import Deps
from prhub.sources.source import SourceCache

from prhub_local.template import Stack
from tests.conftest import load_event
from tests.functional.flow_support import depth, handler, invoke, items, receive_all, run_item

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}


def plan(stack: Stack, event: Any) -> dict[str, Any]:
    return invoke(handler(stack, "PlanFunction"), event, "PlanFunction")


def test_custom_range_event_lists_the_week_and_sends_one_message_per_pr(stack: Stack, verl_export: Path) -> None:
    # GIVEN the sample custom-range event (verl's week 25), read from the shared export
    event = {**load_event("plan-custom-range.json"), "source": f"jsonl:{verl_export}"}
    # WHEN plan runs
    answer = plan(stack, event)
    # THEN one run for 21 PRs exists and 21 score messages wait, each naming its PR once
    assert answer["ok"], answer
    [run] = answer["runs"]
    assert run["expected"] == 21
    item = run_item(stack, run["run_id"])
    assert item["status"] == "scoring" and item["done"] == 0 and item["failed"] == 0
    assert item["period"] == {"since": "2026-06-15", "until": "2026-06-21", "tz": "Asia/Shanghai"}
    assert json.loads(item["config"])["repo"] == "verl-project/verl"
    assert item["expires_at"] > 0
    bodies = [json.loads(m["Body"]) for m in receive_all(stack, "ScoreQueue", 21)]
    refs = Run.from_item(item).refs
    assert sorted(b["number"] for b in bodies) == sorted(refs)
    assert len(set(refs)) == 21
    assert {b["run_id"] for b in bodies} == {run["run_id"]}
    assert all(b["ref"]["number"] == b["number"] for b in bodies)
    # AND the run carries the repository's record before the week, from the source: the four weeks before it
    # (the trend baseline, tagged with modules) and the first merge of each of the week's authors who had one
    history = Run.from_item(item).history
    assert history.earlier and all(e["number"] not in refs and e["merged_at"] < "2026-06-15" for e in history.earlier)
    assert min(e["merged_at"] for e in history.earlier) >= "2026-05-17" and all(e["modules"] for e in history.earlier)
    assert history.first_merged and history.reach.startswith("2024-10-31")


def test_each_custom_range_call_is_a_new_run(stack: Stack) -> None:
    first = plan(stack, SAMPLE)["runs"][0]["run_id"]
    second = plan(stack, SAMPLE)["runs"][0]["run_id"]
    assert first != second
    assert first.startswith("acme/rocket/2026-06-01_2026-06-07/")


def test_overrides_reach_the_run_config(stack: Stack) -> None:
    answer = plan(stack, {**SAMPLE, "lang": "zh", "scorer": "heuristic", "tz": "UTC"})
    config = json.loads(run_item(stack, answer["runs"][0]["run_id"])["config"])
    assert (config["language"], config["scorer"], config["tz"]) == ("zh", "heuristic", "UTC")
    # In UTC the week loses PR 1201 (merged 2026-05-31 22:40Z, Monday 00:40 in Berlin) and gains 1233.
    refs = Run.from_item(run_item(stack, answer["runs"][0]["run_id"])).refs
    assert 1201 not in refs and 1233 in refs


@pytest.mark.parametrize("event", [load_event("plan-scheduled.json"), {}], ids=["eventbridge-shape", "empty-input"])
def test_schedule_event_reports_every_watched_repo_for_its_last_week(stack: Stack, event: dict[str, Any]) -> None:
    from datetime import UTC, datetime
    from unittest import mock

    # The sample's week ended Sunday 2026-06-07 (Europe/Berlin); the schedule fires the next Monday.
    event = {**event, "time": "2026-06-08T01:00:00Z"}
    with mock.patch("prhub.flow.deps.utc_now", return_value=datetime(2026, 6, 8, 1, tzinfo=UTC)):
        answer = plan(stack, event)
        # A redelivered schedule event plans nothing twice.
        again = plan(stack, event)
    assert answer["ok"], answer
    [run] = answer["runs"]
    assert run["repo"] == "acme/rocket"
    assert run["period"] == {"since": "2026-06-01", "until": "2026-06-07", "tz": "Europe/Berlin"}
    assert run["expected"] == 32
    assert again["runs"][0].get("duplicate") is True
    assert len(items(stack, "RunsTable")) == 1
    assert depth(stack, "ScoreQueue") == 32


def test_empty_range_goes_straight_to_the_report(stack: Stack) -> None:
    # A day inside what the sample export covers on which nothing was merged.
    answer = plan(stack, {"repo": "acme/rocket", "since": "2026-05-27", "until": "2026-05-27"})
    assert answer["ok"] and answer["runs"][0]["expected"] == 0
    assert depth(stack, "ScoreQueue") == 0
    [message] = receive_all(stack, "ReportQueue", 1)
    assert json.loads(message["Body"]) == {"run_id": answer["runs"][0]["run_id"]}


BAD = [
    ({"repo": "acme/rocket", "since": "2026-01-05", "until": "2026-01-11"}, "lies outside it"),
    ({"repo": "not-a-repo", "since": "2026-06-01", "until": "2026-06-07"}, "owner/name"),
    ({"repo": "a/b/c", "since": "2026-06-01", "until": "2026-06-07"}, "owner/name"),
    ({"repo": "acme/rocket", "since": "2026-02-30", "until": "2026-03-07"}, "since must be a date"),
    ({"repo": "acme/rocket", "since": "2026-06-01", "until": "June 7"}, "until must be a date"),
    ({"repo": "acme/rocket", "since": "2026-06-08", "until": "2026-06-01"}, "is after until"),
    ({"repo": "acme/rocket", "since": "2025-01-01", "until": "2026-06-01"}, "exceeds the maximum of 366"),
    ({"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07", "tz": "Mars/Olympus"}, "unknown time zone"),
    ({"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07", "lang": "fr"}, "language"),
    ({"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07", "source": "ftp://x"}, "unknown source"),
    ({"repo": "acme/rocket", "since": "2026-06-01"}, "since and until are required"),
    ({"since": "2026-06-01", "until": "2026-06-07"}, "owner/name"),
    ({"repo": "acme/rocket", "since": 20260601, "until": "2026-06-07"}, "since must be a string"),
    ({"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07", "extra": 1}, "unknown event keys: extra"),
    ({"hello": "world"}, "unknown event keys: hello"),
    (["acme/rocket"], "event must be a JSON object"),
    ("acme/rocket", "event must be a JSON object"),
]


@pytest.mark.parametrize(("event", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_input_is_refused_clearly_and_writes_nothing(stack: Stack, event: Any, message: str) -> None:
    answer = plan(stack, event)
    assert answer["ok"] is False
    assert message in answer["error"]
    for table in ("RunsTable", "ResultsTable"):
        assert items(stack, table) == [], table
    assert depth(stack, "ScoreQueue") == 0 and depth(stack, "ReportQueue") == 0


def test_unreadable_source_is_a_clear_error_and_writes_nothing(stack: Stack, tmp_path: Path) -> None:
    answer = plan(stack, {**SAMPLE, "source": f"jsonl:{tmp_path}/missing.jsonl"})
    assert answer["ok"] is False and "cannot read export file" in answer["error"]
    assert items(stack, "RunsTable") == [] and depth(stack, "ScoreQueue") == 0


STACK_NAMES = ("RUNS_TABLE", "RESULTS_TABLE", "CACHE_TABLE", "IDEMPOTENCY_TABLE", "SCORE_QUEUE_URL",
               "REPORT_QUEUE_URL", "SITE_BUCKET", "PAGES_QUEUE_URL")


def deps_for(**env: str) -> Deps:
    return Deps.from_env({**dict.fromkeys(STACK_NAMES, "x"), **env})


def test_the_github_source_follows_a_changed_api_url_and_token() -> None:
    # A process whose environment changes (a test, a local runner pointed elsewhere) builds new Deps, and they
    # must not keep the first run's server and token; within one Deps the source is made once.
    first_deps = deps_for(GITHUB_API_URL="http://127.0.0.1:9/a", GITHUB_TOKEN="token-a")
    first = first_deps.sources("github")
    assert first_deps.sources("github") is first
    second = deps_for(GITHUB_API_URL="http://127.0.0.1:9/b", GITHUB_TOKEN="token-a").sources("github")
    assert getattr(second, "api_url") == "http://127.0.0.1:9/b"  # noqa: B009 - Source does not declare it
    third_deps = deps_for(GITHUB_API_URL="http://127.0.0.1:9/b", GITHUB_TOKEN="token-b")
    third = third_deps.sources("github")
    assert third is not second and getattr(third, "token") == "token-b"  # noqa: B009
    sources = third_deps.sources
    assert isinstance(sources, SourceCache)
    assert all("token-b" not in part for key in sources.cached() for part in key)  # the key holds no secret


def test_an_export_is_parsed_once_until_the_file_changes(tmp_path: Path) -> None:
    sources = deps_for(LOCAL_EXPORTS="true").sources
    export = tmp_path / "prs.jsonl"
    export.write_text("")
    spec = f"jsonl:{export}"
    first = sources(spec)
    assert sources(spec) is first
    export.write_text("not json\n")
    os.utime(export, ns=(export.stat().st_atime_ns, export.stat().st_mtime_ns + 1_000_000_000))
    second = sources(spec)
    assert second is not first and list(getattr(second, "skipped")) != []  # noqa: B009


SCHEDULE_NOW = "2026-06-08T01:00:00Z"  # Monday 03:00 in Berlin: the sample's week has just ended


@pytest.mark.parametrize(("time", "words"), [
    ("1970-01-01T00:00:00Z", "more than 14 days old"),  # AWS's own sample scheduled event
    ("2099-06-08T01:00:00Z", "is in the future"),
    ("2026-06-15T01:00:00Z", "is in the future"),  # early: this Monday's event carrying next Monday's time
    ("2026-06-07T22:02:00Z", "has not ended"),  # Monday 00:02 in Berlin, two minutes ahead of the clock
])
def test_schedule_events_the_clock_contradicts_are_refused_and_do_not_block_the_real_run(
        stack: Stack, time: str, words: str) -> None:
    from datetime import UTC, datetime
    from unittest import mock

    event = {**load_event("plan-scheduled.json"), "time": time}
    now = datetime(2026, 6, 7, 21, 58, tzinfo=UTC) if "has not ended" in words else datetime(2026, 6, 8, 1, tzinfo=UTC)
    with mock.patch("prhub.flow.deps.utc_now", return_value=now):
        answer = plan(stack, event)
    assert answer["ok"] is False and words in answer["error"]
    assert items(stack, "RunsTable") == [] and depth(stack, "ScoreQueue") == 0
    with mock.patch("prhub.flow.deps.utc_now", return_value=datetime(2026, 6, 8, 1, tzinfo=UTC)):
        real = plan(stack, {**event, "time": SCHEDULE_NOW})
    assert real["ok"] and real["runs"][0]["expected"] == 32 and not real["runs"][0].get("duplicate")


def test_a_scheduled_plan_that_fails_raises_so_lambda_retries_it(stack: Stack) -> None:
    from datetime import UTC, datetime
    from unittest import mock

    from prhub.cloud import aws

    aws.client("ssm").put_parameter(Name=stack.env["PRHUB_CONFIG_PARAMETER"], Value="{not json", Type="String",
                                    Overwrite=True)
    with mock.patch("prhub.flow.deps.utc_now", return_value=datetime(2026, 6, 8, 1, tzinfo=UTC)), \
            pytest.raises(InputError):
        plan(stack, {**load_event("plan-scheduled.json"), "time": SCHEDULE_NOW})
    assert items(stack, "RunsTable") == []
    # A person's direct invoke still gets the message as an answer.
    answer = plan(stack, {**SAMPLE})
    assert answer["ok"] is False and "not valid JSON" in answer["error"]



def test_a_listing_longer_than_one_invocation_is_continued_and_holds_every_pr_once(stack: Stack) -> None:
    import dataclasses
    import math

    from prhub.flow.plan import continue_listing
    from prhub.flow.plan import plan as plan_service
    from prhub.sources.graphql import GraphQLSource

    from prhub_local.runner import LambdaContext, sqs_event
    from tests.fakes import FakeGitHub
    from tests.functional.test_github_graphql import week
    from tests.functional.test_github_source import REPO, WEEK, expected

    # GIVEN a week of 12 merged PRs on GitHub, listed 5 a page, and a plan with no time to spare: each
    # invocation lists one page, then hands the rest on to PlanQueue
    pulls = week(12)
    with FakeGitHub(pulls, REPO) as gh:
        source = GraphQLSource(token="t0ken", api_url=gh.url, page_size=5, max_wait=math.inf)
        deps = dataclasses.replace(Deps.from_env(), sources=lambda spec: source).invoked(
            LambdaContext("PlanFunction", timeout_ms=1))
        event = {"repo": REPO, "since": str(WEEK.since), "until": str(WEEK.until), "tz": WEEK.tz,
                 "source": "github", "scorer": "heuristic"}
        # WHEN it is planned, and each continuation delivered (the first one twice: SQS delivers at least once)
        [first] = plan_service(event, deps)
        assert first["continued"] is True and first["listed"] == 5
        assert items(stack, "RunsTable") == []  # no run (nor any score message) until the listing is complete
        delivered = 0
        while depth(stack, "PlanQueue"):
            messages = receive_all(stack, "PlanQueue", 1)
            batch = sqs_event(messages, stack.queue_arns["PlanQueue"])
            for _ in range(2 if delivered == 0 else 1):
                assert continue_listing(batch, deps)["batchItemFailures"] == []
            delivered += 1
            for m in messages:
                aws.client("sqs").delete_message(QueueUrl=stack.queues["PlanQueue"], ReceiptHandle=m["ReceiptHandle"])
    # THEN the run exists once, expecting exactly the week's PRs, and every PR has one score message
    want = sorted(p.number for p in expected(pulls))
    [item] = items(stack, "RunsTable")
    run = Run.from_item(item)
    assert run.run_id == first["run_id"] and run.expected == len(want) == 12
    assert sorted(run.refs) == want
    sqs, bodies = aws.client("sqs"), []
    while got := sqs.receive_message(QueueUrl=stack.queues["ScoreQueue"], MaxNumberOfMessages=10,
                                     VisibilityTimeout=60).get("Messages", []):
        bodies += [json.loads(m["Body"]) for m in got]
    assert sorted(b["number"] for b in bodies) == want  # the redelivered continuation planned nothing twice
    assert delivered >= 2


def test_a_continuation_that_can_never_succeed_is_acknowledged_and_writes_nothing(stack: Stack) -> None:
    from prhub_local.runner import sqs_event

    messages = [{"MessageId": "m1", "ReceiptHandle": "r1", "Body": json.dumps({"continue": {"run_id": 7}})},
                {"MessageId": "m2", "ReceiptHandle": "r2", "Body": "not json"}]
    answer = plan(stack, sqs_event(messages, stack.queue_arns["PlanQueue"]))
    assert answer == {"batchItemFailures": []}  # asking again cannot help: not retried towards PlanDLQ
    assert items(stack, "RunsTable") == [] and depth(stack, "ScoreQueue") == 0
def stack_env(name: str) -> str:
    """A variable as template.yaml sets it for the functions (the test stack's is the local runner's)."""
    from tests.unit.test_template import load_template

    value = load_template()["Globals"]["Function"]["Environment"]["Variables"][name]
    assert isinstance(value, str), value
    return value


@pytest.mark.parametrize(("source", "words"), [
    ("jsonl:/etc/passwd", "names a local path, which is not read here"),
    ("jsonl:prhub_local/sample/acme-rocket.jsonl", "names a local path"),
    ("jsonl:s3://someone-elses-bucket/prs.jsonl", "is not in the export bucket"),
])
def test_an_export_outside_the_export_bucket_is_refused_in_the_stack(
        stack: Stack, monkeypatch: pytest.MonkeyPatch, source: str, words: str) -> None:
    # GIVEN the functions' environment exactly as the template sets it: no local paths, and an export bucket
    monkeypatch.setenv("LOCAL_EXPORTS", stack_env("LOCAL_EXPORTS"))
    monkeypatch.setenv("EXPORT_BUCKET", f"{stack.prefix}-exports")
    # WHEN a direct invoke names a source outside that bucket
    answer = plan(stack, {**SAMPLE, "source": source})
    # THEN it is refused with a clear error, and nothing is written, queued or published
    assert answer["ok"] is False and words in answer["error"], answer
    assert f"jsonl:s3://{stack.prefix}-exports/KEY" in answer["error"]
    assert "root:" not in answer["error"]  # the file was never read
    assert items(stack, "RunsTable") == [] and depth(stack, "ScoreQueue") == 0 and depth(stack, "ReportQueue") == 0
    from tests.functional.flow_support import objects

    assert objects(stack) == {}


def test_with_no_export_bucket_no_jsonl_source_is_allowed_in_the_stack(
        stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_EXPORTS", stack_env("LOCAL_EXPORTS"))
    monkeypatch.setenv("EXPORT_BUCKET", "")  # the parameter's default
    for source in ("jsonl:/etc/passwd", "jsonl:s3://any-bucket/prs.jsonl"):
        answer = plan(stack, {**SAMPLE, "source": source})
        assert answer["ok"] is False and "no export bucket is configured" in answer["error"], answer
    assert items(stack, "RunsTable") == []


def test_an_export_in_the_export_bucket_is_read_by_plan_and_score(
        stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub.cloud import aws

    from tests.functional.flow_support import deliver

    # GIVEN the sample export in the stack's export bucket, and the template's own LOCAL_EXPORTS
    bucket = f"{stack.prefix}-exports"
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=bucket)
    sample = Path(__file__).resolve().parents[2] / "prhub_local" / "sample" / "acme-rocket.jsonl"
    s3.put_object(Bucket=bucket, Key="acme/rocket.jsonl", Body=sample.read_bytes())
    monkeypatch.setenv("LOCAL_EXPORTS", stack_env("LOCAL_EXPORTS"))
    monkeypatch.setenv("EXPORT_BUCKET", bucket)
    # WHEN plan lists the week from it, and a score worker (another environment) scores a batch of its PRs
    answer = plan(stack, {**SAMPLE, "source": f"jsonl:s3://{bucket}/acme/rocket.jsonl"})
    assert answer["ok"], answer
    run_id = answer["runs"][0]["run_id"]
    messages = receive_all(stack, "ScoreQueue", 32)
    failed = deliver(handler(stack, "ScoreFunction"), stack, "ScoreQueue", messages[:5], "ScoreFunction")
    # THEN the week's 32 PRs are planned and the worker read their details from the same object
    assert answer["runs"][0]["expected"] == 32 and failed == set()
    assert run_item(stack, run_id)["done"] == 5
