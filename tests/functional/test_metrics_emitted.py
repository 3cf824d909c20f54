"""The metrics the code emits are exactly template.yaml's catalogue (Mappings.Metrics.Emf), as the alarms read them.

The flows run with the stack's metrics environment (POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME), on
the in-memory adapters with the real GitHub client against the fake GitHub, the model client against the fake
OpenAI server and the chat client against the fake chat platforms; the EMF lines they print are read back.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from moto import mock_aws
from prhub.cloud import metrics
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.flow.deliver import DeliveryFailed, deliver_one
from prhub.flow.delivery_deps import DeliveryDeps, literal_channels
from prhub.flow.deps import Deps
from prhub.flow.messages import DeliveryMessage, ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record
from prhub.model.scorers import ModelSettings, Scorers
from prhub.notify.ledger import Ledger
from prhub.sources.github import GitHubSource
from prhub.sources.http import MemoryEtagCache

from prhub_local.runner import LambdaContext
from prhub_local.sample import sample_settings
from tests.fakes import FakeGitHub
from tests.fakes.chat_servers import FakeChat, Fault
from tests.fakes.memory import SETTINGS, MemoryStack, memory_stack
from tests.fakes.openai_server import FakeOpenAI, down_for
from tests.functional.test_flow_in_memory import record
from tests.functional.test_github_source import REPO, SLOW_ANSWER, WEEK, FakeClock, week_pulls
from tests.unit.test_template import load_template, metric_catalogue

ROOT = Path(__file__).resolve().parents[2]
DAY = {"repo": "acme/rocket", "since": "2026-06-02", "until": "2026-06-03"}  # a few of the sample's PRs
DELIVERY_QUEUE = "memory://delivery"


@pytest.fixture
def stack_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    """Metrics on, as template.yaml sets them for the functions."""
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    for name in ("POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_SERVICE_NAME"):
        monkeypatch.setenv(name, env[name])
    metrics.configure(env["POWERTOOLS_METRICS_NAMESPACE"])  # what Deps.from_env does with it (in-memory Deps here)
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with FakeChat() as fake:
        yield fake


@pytest.fixture
def ledger() -> Iterator[Ledger]:
    """The delivery ledger on moto's DynamoDB, its table as template.yaml declares it."""
    props = load_template()["Resources"]["DeliveriesTable"]["Properties"]
    with mock_aws():
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        ddb.create_table(TableName="deliveries", BillingMode="PAY_PER_REQUEST", KeySchema=props["KeySchema"],
                         AttributeDefinitions=props["AttributeDefinitions"])
        yield Ledger(ddb, "deliveries")


def plan_handler(deps: Deps) -> Callable[[Any, Any], Any]:
    """PlanFunction's handler in a fresh module (an execution environment) that already holds `deps`."""
    spec = importlib.util.spec_from_file_location(f"plan_app_{uuid.uuid4().hex[:8]}", ROOT / "functions/plan/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module._deps = deps
    return module.handler  # type: ignore[no-any-return]


def unreadable_watchlist() -> WatchList:
    raise InputError("watch list parameter 'prhub-watchlist' could not be read: throttled")


def emitted(out: str) -> list[dict[str, Any]]:
    """Each EMF document printed: {"namespace", "names", "dimensions", "values", "units"}."""
    docs = []
    for line in out.splitlines():
        if not line.startswith('{"_aws"'):
            continue
        doc = json.loads(line)  # one whole JSON document per line, or CloudWatch drops it
        [directive] = doc["_aws"]["CloudWatchMetrics"]
        [dimensions] = directive["Dimensions"]
        names = [m["Name"] for m in directive["Metrics"]]
        docs.append({"namespace": directive["Namespace"], "names": names,
                     "dimensions": {d: doc[d] for d in dimensions}, "values": {n: doc[n] for n in names},
                     "units": {m["Name"]: m["Unit"] for m in directive["Metrics"]}})
    return docs


def model_run(fake: FakeOpenAI, chat: FakeChat) -> MemoryStack:
    """The sample's repository scored by a model (priced, so the run has a cost) and told on four channels."""
    hooks = {kind: chat.hook("slack") for kind in ("delivered", "throttled", "transient", "permanent")}
    hooks["throttled"].always = Fault(429, "rate_limited", {"Retry-After": "2000"})
    hooks["transient"].always = Fault(500, "internal error")
    hooks["permanent"].always = Fault(404, "no_service")
    config = {**sample_settings()["config"], "scorer": "llm", "llm": {"model": "gpt-4o-mini", "max_retries": 0},
              "notify": [{"channel": "slack", "url": hook.url} for hook in hooks.values()]}
    stack = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"}, "repos": [config]})))
    stack.deps = replace(stack.deps, settings=replace(SETTINGS, delivery_queue_url=DELIVERY_QUEUE),
                         scorers=Scorers(ModelSettings(api_key="sk-test", base_url=fake.base_url), None))
    return stack


def superseded_report() -> int:
    """Two complete runs of DAY, the newer reported first: the older one's report is recorded as superseded, not
    published (ReportsSuperseded). Returns the PRs each run stored."""
    from datetime import UTC, datetime, timedelta

    stack = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                     "repos": [sample_settings()["config"]]})))
    now, asks, scored = datetime.now(UTC), [], 0
    for minutes_ago in (30, 10):
        stack.deps = replace(stack.deps, clock=lambda m=minutes_ago: now - timedelta(minutes=m))
        [run] = plan(DAY, stack.deps)  # the second run's PRs are cached: its plan stores them (PrsScored too)
        for message in stack.queue.take(SETTINGS.score_queue_url):
            score_record(record(message), stack.deps)
        scored += len(stack.store.results(str(run["run_id"])))
        asks += [m.body for m in stack.queue.take(SETTINGS.report_queue_url)]
    older, newer = asks
    assert "superseded_by" not in report_message(ReportMessage.of(newer), stack.deps)
    assert report_message(ReportMessage.of(older), stack.deps)["superseded_by"] == newer["run_id"]
    return scored // 2


def test_the_code_emits_every_catalogued_metric_with_the_alarms_dimensions_and_no_other(
        stack_metrics: None, ledger: Ledger, chat: FakeChat, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = metric_catalogue()
    # The PDF is most of a report's cost and none of what is counted here (tests/unit/test_render* check it).
    monkeypatch.setattr("prhub.site.render.pdf.render_pdf", lambda report, font="": b"%PDF-1.4\n% stand-in\n")
    capsys.readouterr()

    # A model run: planned, scored (one PR's model call fails, the engine stands in; one PR never finishes),
    # reported by the sweep with that PR unscored, its channels told: delivered, throttled, failing, revoked.
    with FakeOpenAI() as fake:
        run = model_run(fake, chat)
        [planned] = plan(DAY, run.deps)
        messages = run.queue.take(SETTINGS.score_queue_url)
        assert planned["expected"] == len(messages) >= 3
        first = messages[0].body["number"]
        fake.responder = down_for({first})
        outcomes = [score_record(record(m), run.deps) for m in messages[:-1]]
        assert all(o["stored"] for o in outcomes)
        swept = report_message(ReportMessage(sweep=True, older_than_minutes=0), run.deps)
        assert swept == {"swept": [planned["run_id"]], "failed": []}
    dropped = score_record(record(replace(messages[0], body={"not": "a score message"})), run.deps)
    assert "dropped" in dropped
    deliveries = DeliveryDeps(replace(SETTINGS, delivery_queue_url=DELIVERY_QUEUE), ledger, run.bucket, run.queue,
                              read_secret=lambda name: "", http=requests.Session(), allow_literal=True,
                              sleep=lambda seconds: None, literal=literal_channels(run.deps.watchlist))
    jobs = [DeliveryMessage.parse(json.dumps(m.body), deliveries.literal) for m in run.queue.take(DELIVERY_QUEUE)]
    assert len(jobs) == 4
    for job in jobs:
        with contextlib.suppress(DeliveryFailed):  # the failing channel: SQS would deliver its message again
            deliver_one(job, deliveries)

    # A sweep that cannot report a stuck run (the watch list it needs is unreadable).
    stuck = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                     "repos": [sample_settings()["config"]]})))
    plan(DAY, stuck.deps)
    stuck.deps = replace(stuck.deps, watchlist=unreadable_watchlist)
    # (nor the period's digest, which it tries after the runs: DigestFailures)
    assert len(report_message(ReportMessage(sweep=True, older_than_minutes=0), stuck.deps)["failed"]) == 1

    # GitHub: a week listed, then a PR whose details meet a spent rate limit that resets past the worker's time.
    clock = FakeClock()
    with FakeGitHub(week_pulls(3), REPO, clock=clock) as gh:
        source = GitHubSource(token="t0ken", api_url=gh.url, sleep=clock.sleep, clock=clock, timeout=SLOW_ANSWER,
                              etag_cache=MemoryEtagCache(), max_wait=60)
        limited = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                           "repos": [{"repo": REPO, "tz": WEEK.tz}]})),
                               sources=lambda spec: source)
        plan({"repo": REPO, "since": str(WEEK.since), "until": str(WEEK.until), "source": "github"}, limited.deps)
        gh.inject("exhausted", path="/pulls/", reset_in=900)
        [message, *_] = limited.queue.take(SETTINGS.score_queue_url)
        assert "deferred" in score_record(record(message), limited.deps)

    # A schedule event the clock contradicts (AWS's own sample event), refused by the handler.
    refused = plan_handler(stuck.deps)({"time": "1970-01-01T00:00:00Z"}, LambdaContext("PlanFunction"))
    assert refused["ok"] is False and "more than 14 days old" in refused["error"]

    # A scheduled repository whose week its export does not cover (the schedule replayed in 1970): a failed run;
    # and a PlanQueue message that can never succeed (AWS's sample body), acknowledged.
    from datetime import UTC, datetime

    from prhub.flow.plan import continue_listing

    old = memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                   "repos": [sample_settings()["config"]]})),
                       clock=lambda: datetime(1970, 1, 5, tzinfo=UTC))
    [failed] = plan({"time": "1970-01-05T00:00:00Z"}, old.deps)
    assert failed["failed"] is True
    hello = {"Records": [{"messageId": "m1", "body": "Hello from SQS!"}]}
    assert continue_listing(hello, old.deps) == {"batchItemFailures": []}

    # A run's report kept from replacing a newer run's of the same range.
    superseded_prs = superseded_report()

    docs = emitted(capsys.readouterr().out)
    names = [name for doc in docs for name in doc["names"]]
    # Every catalogued name is emitted, and nothing else; each in the stack's namespace.
    assert set(names) == set(catalogue["Names"]) | set(catalogue["Detail"])
    assert {doc["namespace"] for doc in docs} == {catalogue["Namespace"]}
    for doc in docs:
        [name] = doc["names"]  # one metric per line, each with its own dimensions
        if name in catalogue["Names"]:
            # Exactly what the alarms and the dashboard ask for: the one dimension `service`.
            assert doc["dimensions"] == {"service": catalogue["Service"]}, doc
        else:
            assert doc["dimensions"]["service"] == catalogue["Service"] and len(doc["dimensions"]) > 1, doc

    def total(name: str) -> float:
        values = [d["values"][name] for d in docs if name in d["values"]]
        return sum(sum(v) if isinstance(v, list) else v for v in values)

    # The counts say what happened.
    assert total("RunsPlanned") == 5 and total("RunsReported") == 3 and total("SweepFailures") == 1
    assert total("PlansFailed") == 1 and total("MessagesDropped") == 2  # PlanQueue's sample body; the score message
    assert total("ReportsSuperseded") == 1
    assert total("PrsScored") == len(messages) - 1 + 2 * superseded_prs
    assert total("PrsUnscored") == 1 and total("PrsDeferred") == 1
    assert total("ModelFallbacks") == 1 and total("ModelCalls") >= len(messages)  # the PRs' and the narrative's
    assert total("RateLimitWaits") == 1 and total("GitHubRequests") >= 2
    assert total("Deliveries") == 1 and total("NotifyDelivered") == 1 and total("NotifyPermanentFailure") == 1
    assert total("ScheduleEventsRefused") == 1 and total("DigestFailures") == 1
    seconds = [d for d in docs if "ReportSeconds" in d["names"]]
    assert len(seconds) == 3  # the sweep's report, and both of the two runs' (the superseded one's built too)
    assert {d["units"]["ReportSeconds"] for d in seconds} == {"Seconds"} and total("ReportSeconds") > 0


def test_the_namespace_is_what_deps_read_from_the_environment_not_the_environment_itself(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Prhub")
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    metrics.count("RunsPlanned")
    assert '"_aws"' not in capsys.readouterr().out  # only prhub.flow.deps reads the environment
    names = ("RUNS_TABLE", "RESULTS_TABLE", "CACHE_TABLE", "IDEMPOTENCY_TABLE", "SCORE_QUEUE_URL",
             "REPORT_QUEUE_URL", "SITE_BUCKET", "PAGES_QUEUE_URL")
    Deps.from_env({**dict.fromkeys(names, "x"), "POWERTOOLS_METRICS_NAMESPACE": "PrhubTest"})
    metrics.count("RunsPlanned")
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    assert [doc["_aws"]["CloudWatchMetrics"][0]["Namespace"] for doc in emitted] == ["PrhubTest"]
