"""A scheduled plan whose listing fails for one repository (issue 24, item 1), on moto with the fake GitHub.

A transient failure (GitHub's 5xx, timeouts, network faults, rate limits) retries that repository alone through
PlanQueue, whose redrive ends in PlanDLQ; a permanent one (a bad token, a repository that does not exist, an
export that does not cover the week) is recorded as a failed run and counted (PlansFailed, PlansFailedAlarm). The
answer says so: it is not `ok`, and `prhub invoke` exits non-zero with the state kept.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from prhub.cloud import aws
from prhub.cloud.store import Run
from prhub.flow.deps import Deps
from prhub.sources.github import GitHubSource
from prhub.sources.http import MemoryEtagCache

from prhub_local.invoke import invoke_function
from prhub_local.runner import LambdaContext, run_store, sqs_event
from prhub_local.sample import sample_settings
from prhub_local.template import Stack
from tests.conftest import load_event
from tests.fakes import FakeGitHub
from tests.functional.flow_support import depth, items, receive_all, run_item
from tests.functional.test_github_source import make_pull

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 6, 8, 1, tzinfo=UTC)  # Monday 03:00 in Berlin: the sample's week has just ended
EVENT = {**load_event("plan-scheduled.json"), "time": "2026-06-08T01:00:00Z"}
WIDGETS = "acme/widgets"
TOKEN = "right-t0ken"


@pytest.fixture
def watchlist() -> dict[str, Any]:
    """The sample repository (its export) and one read from GitHub, both on Berlin's week."""
    return {"defaults": {"language": "en"},
            "repos": [sample_settings()["config"], {"repo": WIDGETS, "tz": "Europe/Berlin", "source": "github"}]}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    start = datetime(2026, 6, 1, 8, tzinfo=UTC)
    pulls = [make_pull(500 + i, start + timedelta(hours=20 * i)) for i in range(3)]
    with FakeGitHub(pulls, WIDGETS, token=TOKEN) as gh:
        yield gh


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The metric names counted (the EMF lines themselves are tests/functional/test_metrics_emitted.py's)."""
    names: list[str] = []
    monkeypatch.setattr("prhub.cloud.metrics.count", lambda name, *args, **kwargs: names.append(name))
    return names


def plan_handler(gh: FakeGitHub, token: str = TOKEN) -> Callable[[Any], Any]:
    """PlanFunction's handler in a fresh module whose Deps read `acme/widgets` from the fake GitHub (retrying a
    fault without sleeping) and the sample from its export."""
    source = GitHubSource(token=token, api_url=gh.url, sleep=lambda seconds: None, etag_cache=MemoryEtagCache())
    deps = Deps.from_env()
    exports = deps.sources
    deps = dataclasses.replace(deps, sources=lambda spec: source if spec == "github" else exports(spec))
    spec = importlib.util.spec_from_file_location(f"plan_app_{uuid.uuid4().hex[:8]}", ROOT / "functions/plan/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module._deps = deps
    return lambda event: module.handler(event, LambdaContext("PlanFunction"))


def scheduled(fn: Callable[[Any], Any]) -> Any:
    with mock.patch("prhub.flow.deps.utc_now", return_value=NOW):
        return fn(EVENT)


def by_repo(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["repo"]: r for r in answer["runs"]}


def take(stack: Stack, queue: str) -> dict[str, Any]:
    """The queue's one message, received and deleted, as Lambda's SQS event."""
    [message] = receive_all(stack, queue, 1)
    aws.client("sqs").delete_message(QueueUrl=stack.queues[queue], ReceiptHandle=message["ReceiptHandle"])
    return sqs_event([message], stack.queue_arns[queue])


def test_a_repository_github_cannot_answer_now_is_retried_alone(
        stack: Stack, github: FakeGitHub, counted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("prhub.flow.plan.RETRY_DELAY", 0, raising=False)  # deployed: minutes, for GitHub to recover
    # GIVEN GitHub answering 502 to every try of the listing's first request
    github.inject("502", times=5)
    plan = plan_handler(github)
    # WHEN the weekly schedule fires
    answer = scheduled(plan)
    # THEN the sample's week is planned, and the answer says acme/widgets is not, and why
    assert answer["ok"] is False and WIDGETS in answer["error"]
    runs = by_repo(answer)
    assert runs["acme/rocket"]["expected"] == 32
    assert runs[WIDGETS]["retrying"] is True and "502" in runs[WIDGETS]["error"]
    assert [i["repo"] for i in items(stack, "RunsTable")] == ["acme/rocket"]
    # AND that repository alone waits on PlanQueue, not a failed run: GitHub may recover
    assert depth(stack, "PlanQueue") == 1 and "PlansFailed" not in counted
    # WHEN the retry meets GitHub still failing, it is handed back (SQS redelivers it, then PlanDLQ)...
    github.inject("502", times=5)
    event = take(stack, "PlanQueue")
    failed = plan(event)
    assert failed["batchItemFailures"] == [{"itemIdentifier": event["Records"][0]["messageId"]}]
    # ... and once GitHub answers, the redelivery plans that week, and only it
    assert plan(event) == {"batchItemFailures": []}
    planned = {i["repo"]: Run.from_item(i) for i in items(stack, "RunsTable")}
    assert set(planned) == {"acme/rocket", WIDGETS}
    assert planned[WIDGETS].run_id == runs[WIDGETS]["run_id"] and planned[WIDGETS].expected == 3
    assert depth(stack, "ScoreQueue") == 32 + 3  # the sample's PRs were not queued twice
    assert counted.count("RunsPlanned") == 2


def test_a_repository_that_can_never_be_listed_is_a_failed_run_counted_and_alarmed(
        stack: Stack, github: FakeGitHub, counted: list[str]) -> None:
    # GIVEN a token GitHub rejects (401): asking again cannot help
    answer = scheduled(plan_handler(github, token="wr0ng"))
    # THEN the sample's week is planned, acme/widgets' is recorded as failed with the error, and counted
    assert answer["ok"] is False and answer["failed"] == [by_repo(answer)[WIDGETS]["run_id"]]
    widgets = by_repo(answer)[WIDGETS]
    assert widgets["failed"] is True and "rejected the token" in widgets["error"]
    item = run_item(stack, widgets["run_id"])
    assert item["status"] == "failed" and "rejected the token" in item["error"]
    assert item["period"] == {"since": "2026-06-01", "until": "2026-06-07", "tz": "Europe/Berlin"}
    assert counted.count("PlansFailed") == 1 and counted.count("RunsPlanned") == 1
    assert depth(stack, "PlanQueue") == 0 and depth(stack, "ScoreQueue") == 32
    # AND the sweep does not take the failed run for a stuck one to report (it has no PRs to report)
    assert [r.repo for r in run_store(stack).open_runs()] == ["acme/rocket"]
    # WHEN the token is fixed and the event redriven from PlanDLQ, the failed week is planned; the other is not
    # planned twice
    again = scheduled(plan_handler(github))
    assert again["ok"] is True, again
    assert by_repo(again)["acme/rocket"]["duplicate"] is True and by_repo(again)[WIDGETS]["expected"] == 3
    assert run_item(stack, widgets["run_id"])["status"] == "scoring"
    assert depth(stack, "ScoreQueue") == 32 + 3


def test_a_bad_watch_list_is_counted_and_kept_in_plan_dlq(stack: Stack, github: FakeGitHub,
                                                          counted: list[str]) -> None:
    aws.client("ssm").put_parameter(Name=stack.env["PRHUB_CONFIG_PARAMETER"], Value='{"repos": [{"repo": 7}]}',
                                    Type="String", Overwrite=True)
    # Raised: Lambda retries the event, then keeps it in PlanDLQ for a redrive once the watch list is fixed.
    with pytest.raises(Exception, match="repo"):
        scheduled(plan_handler(github))
    assert counted.count("PlansFailed") == 1 and items(stack, "RunsTable") == []


def test_aws_sample_scheduled_event_replayed_at_1970_does_not_answer_ok(aws_endpoint: str, tmp_path: Path) -> None:
    # AWS's own sample: `prhub invoke` replays a schedule event at its own time, 1970, a week no source covers.
    event = {"version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
             "source": "aws.events", "account": "123456789012", "time": "1970-01-01T00:00:00Z",
             "region": "us-east-1", "resources": ["arn:aws:events:us-east-1:123456789012:rule/ExampleRule"],
             "detail": {}}
    # The watch list names the bundled sample alone: verl would be read from GitHub, which tests never reach.
    sample = json.dumps({"repos": [sample_settings()["config"]]})
    result = invoke_function("PlanFunction", event, endpoint_url=aws_endpoint, state=tmp_path / "state",
                             prefix="i" + uuid.uuid4().hex[:10], progress=lambda line: None, config_text=sample)
    assert result.answer["ok"] is False and not result.refused
    # Every repository is reported as failed: `prhub invoke` exits 1 instead of 0.
    assert result.failures and sorted(result.failures) == sorted(r["run_id"] for r in result.answer["runs"])
    assert all(r.get("failed") for r in result.answer["runs"])
    assert json.dumps(result.answer).count("lies outside") >= 1


def test_a_rate_limit_outlasting_the_plan_retries_that_repository_after_the_reset(github: FakeGitHub) -> None:
    from prhub.core.config import WatchList

    from tests.fakes.memory import SETTINGS, memory_stack

    # GIVEN GitHub's primary limit spent, resetting in 2,000 s (longer than the client waits), on the in-memory
    # adapters with a PlanQueue
    github.inject("exhausted", reset_in=2000)
    source = GitHubSource(token=TOKEN, api_url=github.url, sleep=lambda seconds: None, etag_cache=MemoryEtagCache())
    watched = WatchList.parse(json.dumps({"repos": [{"repo": WIDGETS, "tz": "Europe/Berlin", "source": "github"}]}))
    memory = memory_stack(watched, sources=lambda spec: source, clock=lambda: NOW)
    memory.deps = dataclasses.replace(memory.deps, settings=dataclasses.replace(SETTINGS,
                                                                               plan_queue_url="memory://plan"))
    from prhub.flow.plan import MAX_DELAY, plan

    # WHEN the schedule fires
    [widgets] = plan(EVENT, memory.deps)
    # THEN the repository is planned again alone, as late as SQS can delay it (then again, until the reset)
    assert widgets["retrying"] is True and "rate" in widgets["error"].lower()
    [message] = memory.queue.messages["memory://plan"]
    assert message.body == {"plan": {"run_id": widgets["run_id"], "config": message.body["plan"]["config"],
                                     "period": {"since": "2026-06-01", "until": "2026-06-07", "tz": "Europe/Berlin"}}}
    assert message.visible_at - memory.queue.clock() == pytest.approx(MAX_DELAY, abs=5)
    assert memory.store.runs == {}
