"""ScoreFunction on moto: partial batch failures, duplicate deliveries, concurrent workers, the last receive."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from prhub.cloud import aws
from prhub.cloud.dynamo import unpack
from prhub.cloud.store import RunBudget
from prhub.core.config import RepoConfig
from prhub.core.errors import RetryLater
from prhub.core.models import FileChange, PullRef, PullRequest, ScoredPR
from prhub.core.period import Period
from prhub.engine.scoring import HeuristicScorer
from prhub.flow.deps import Deps
from prhub.flow.score import score_record
from prhub.model import answers, client
from prhub.model.endpoint import Endpoint
from prhub.model.scorer import LlmScorer
from prhub.sources.source import call_deadline

from prhub_local.runner import LambdaContext, sqs_event
from prhub_local.template import Stack
from tests.conftest import load_event
from tests.fakes.memory import MemoryStore
from tests.fakes.openai_server import FakeOpenAI
from tests.functional.flow_support import (
    depth,
    handler,
    invoke,
    items,
    receive,
    receive_all,
    run_item,
)

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
SAMPLE_PRS = 32


def plan_sample(stack: Stack) -> str:
    answer = invoke(handler(stack, "PlanFunction"), SAMPLE)
    assert answer["ok"], answer
    return str(answer["runs"][0]["run_id"])


def record_like(run_id: str, number: int, ref_number: int | None = None, receives: int = 1,
                body: str | None = None, message_id: str = "extra") -> dict[str, Any]:
    """A record shaped like events/score-sqs.json (what Lambda hands the function)."""
    record = copy.deepcopy(load_event("score-sqs.json")["Records"][0])
    ref = {"number": ref_number or number, "title": "t", "author": "a", "merged_at": "2026-06-02T00:00:00Z",
           "url": "https://example.invalid"}
    record["body"] = body if body is not None else json.dumps({"run_id": run_id, "number": number, "ref": ref})
    record["messageId"] = message_id
    record["attributes"]["ApproximateReceiveCount"] = str(receives)
    return record



def at_once(work: list[tuple[Any, list[list[dict[str, Any]]]]], arn: str) -> list[Any]:
    """Each (handler, batches) on a thread of its own, all started together; the batch item failures."""
    start = threading.Barrier(len(work))
    failures: list[Any] = []

    def worker(fn: Any, batches: list[list[dict[str, Any]]]) -> None:
        start.wait()
        for batch in batches:
            failures.extend(invoke(fn, sqs_event(batch, arn))["batchItemFailures"])

    threads = [threading.Thread(target=worker, args=w) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures

def test_one_bad_record_does_not_fail_its_batch_mates(stack: Stack) -> None:
    run_id = plan_sample(stack)
    messages = receive_all(stack, "ScoreQueue", 10)[:10]
    event = sqs_event(messages, stack.queue_arns["ScoreQueue"])
    event["Records"].insert(3, record_like(run_id, 0, body="{not json", message_id="malformed"))
    event["Records"].append(record_like(run_id, 1205, ref_number=999_999, message_id="missing-pr"))
    answer = invoke(handler(stack, "ScoreFunction"), event)
    # The malformed one can never succeed: acknowledged. The missing PR may still appear: retried by SQS
    assert [f["itemIdentifier"] for f in answer["batchItemFailures"]] == ["missing-pr"]
    run = run_item(stack, run_id)
    assert (run["done"], run["failed"]) == (10, 0)  # the first failure of a record counts against nothing
    stored = {r["number"] for r in items(stack, "ResultsTable")}
    assert stored == {json.loads(m["Body"])["number"] for m in messages}


def test_a_batch_whose_records_all_fail_lists_them_all(stack: Stack) -> None:
    run_id = plan_sample(stack)
    event = {"Records": [record_like(run_id, n, ref_number=900_000 + n, message_id=f"m{n}") for n in (1201, 1202)]}
    answer = invoke(handler(stack, "ScoreFunction"), event)
    assert sorted(f["itemIdentifier"] for f in answer["batchItemFailures"]) == ["m1201", "m1202"]


def test_last_receive_records_the_failure_and_still_fails_the_record(stack: Stack) -> None:
    run_id = plan_sample(stack)
    event = {"Records": [record_like(run_id, 1205, ref_number=999_999, receives=3, message_id="last")]}
    answer = invoke(handler(stack, "ScoreFunction"), event)
    assert [f["itemIdentifier"] for f in answer["batchItemFailures"]] == ["last"]  # so SQS moves it to the DLQ
    run = run_item(stack, run_id)
    assert (run["done"], run["failed"]) == (0, 1)
    [result] = items(stack, "ResultsTable")
    assert result["number"] == 1205 and result["status"] == "failed"
    assert "999999" in result["reason"]
    # Delivered again on its last receive (a duplicate): counted once.
    invoke(handler(stack, "ScoreFunction"), event)
    assert run_item(stack, run_id)["failed"] == 1


def test_every_message_delivered_twice_counts_once_and_requests_one_report(stack: Stack) -> None:
    run_id = plan_sample(stack)
    messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    assert len(messages) == SAMPLE_PRS
    score = handler(stack, "ScoreFunction")
    for start in range(0, SAMPLE_PRS, 10):
        batch = sqs_event(messages[start:start + 10], stack.queue_arns["ScoreQueue"])
        assert invoke(score, batch)["batchItemFailures"] == []
        assert invoke(score, batch)["batchItemFailures"] == []  # the duplicate changes nothing and fails nothing
    run = run_item(stack, run_id)
    assert (run["done"], run["failed"]) == (SAMPLE_PRS, 0)
    assert len(items(stack, "ResultsTable")) == SAMPLE_PRS
    assert "report_requested" in run
    assert depth(stack, "ReportQueue") == 1


def test_concurrent_workers_complete_the_run_and_exactly_one_report_is_requested(stack: Stack) -> None:
    run_id = plan_sample(stack)
    messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    batches = [messages[i::4] for i in range(4)]  # 8 each
    arn = stack.queue_arns["ScoreQueue"]
    # Each worker is its own execution environment (own module copy); each also redelivers a neighbour's batch.
    work = [(handler(stack, "ScoreFunction"), [batches[i], batches[(i + 1) % 4]]) for i in range(4)]
    assert at_once(work, arn) == []
    run = run_item(stack, run_id)
    assert (run["done"], run["failed"]) == (SAMPLE_PRS, 0)
    assert depth(stack, "ReportQueue") == 1
    [message] = receive_all(stack, "ReportQueue", 1)
    assert json.loads(message["Body"]) == {"run_id": run_id}


def test_two_workers_batches_are_with_the_model_at_the_same_time(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the sample planned for the model, which answers each call in 1.5 s, 3 calls at once per invocation
    # (long enough for the two to overlap when one invocation starts late on a loaded machine)
    with FakeOpenAI(latency=1.5) as fake:
        for key, value in (("OPENAI_BASE_URL", fake.base_url), ("OPENAI_API_KEY", "sk-test"),
                           ("PRHUB_LLM_MODEL", "fake-model"), ("PRHUB_LLM_CONCURRENCY", "3")):
            monkeypatch.setenv(key, value)
        answer = invoke(handler(stack, "PlanFunction"), {**SAMPLE, "scorer": "llm"})
        assert answer["ok"], answer
        messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
        arn = stack.queue_arns["ScoreQueue"]
        # WHEN two execution environments (threads of one process, as the local runner's) each score a batch of 3
        failures = at_once([(handler(stack, "ScoreFunction"), [messages[i * 3:(i + 1) * 3]]) for i in range(2)], arn)
        spans = [(received, answered) for received, answered, _ in fake.spans]
    # THEN neither waited for the other's calls: more than one invocation's calls were in flight at once
    assert failures == [] and len(spans) == 6
    in_flight = max(sum(1 for a, b in spans if a <= moment < b) for moment, _ in spans)
    assert in_flight > 3


def test_a_batch_reads_its_runs_progress_once(stack: Stack) -> None:
    # GIVEN a batch of 10 PRs of one run
    run_id = plan_sample(stack)
    messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)[:10]
    reads: list[dict[str, Any]] = []

    def note(params: dict[str, Any], **_: Any) -> None:
        if "ProjectionExpression" in params:  # Store.progress: the counters only
            reads.append(params)

    # (the invocation's thread's client, which the batch's threads share)
    aws.client("dynamodb").meta.events.register("provide-client-params.dynamodb.GetItem", note)
    # WHEN one invocation scores it
    answer = invoke(handler(stack, "ScoreFunction"), sqs_event(messages, stack.queue_arns["ScoreQueue"]))
    # THEN all 10 are stored and counted, and the run's completion was read once, not once per PR
    assert answer["batchItemFailures"] == []
    assert run_item(stack, run_id)["done"] == 10
    assert len(reads) == 1


def test_a_rate_limit_on_the_last_receive_is_no_failure_and_the_pr_comes_back_later(stack: Stack) -> None:
    # GIVEN a PR whose message is on its last receive, and GitHub's rate limit in the way
    run_id = plan_sample(stack)
    assert {m["MessageId"] for m in receive_all(stack, "ScoreQueue", SAMPLE_PRS)}  # the plan's messages, in flight
    limited = {"n": 0}

    class RateLimited:
        def list_merged(self, repo: str, period: Any) -> list[PullRef]:
            return []

        def get(self, repo: str, ref: PullRef) -> PullRequest:
            limited["n"] += 1
            raise RetryLater("rate limited", retry_after=2)

    deps = dataclasses.replace(Deps.from_env(), sources=lambda spec: RateLimited())
    last = deps.settings.max_receive_count
    record = SQSRecord(record_like(run_id, 1299, receives=last, message_id="limited"))
    # WHEN it is scored: the record succeeds (SQS deletes it) instead of failing towards the DLQ
    answer = score_record(record, deps)
    # THEN nothing counts as failed, and a fresh copy waits out the limit before anyone can receive it
    assert limited["n"] == 1 and answer["deferred"] >= 3
    run = run_item(stack, run_id)
    assert (run["failed"], run["done"]) == (0, 0) and items(stack, "ResultsTable") == []
    assert depth(stack, "ScoreQueue") == SAMPLE_PRS + 1
    time.sleep(1.5)  # past the queue's 1 s visibility timeout, inside the retry_after
    assert [m for m in receive(stack, "ScoreQueue", wait=0) if json.loads(m["Body"])["number"] == 1299] == []
    again = [m for m in receive_all(stack, "ScoreQueue", SAMPLE_PRS + 1, timeout=4)
             if json.loads(m["Body"])["number"] == 1299]
    assert len(again) == 1 and again[0]["Attributes"]["ApproximateReceiveCount"] == "1"
    assert json.loads(again[0]["Body"]) == json.loads(record.body)


def test_a_3000_file_pr_is_stored_compactly(stack: Stack) -> None:
    run_id = plan_sample(stack)
    files = [FileChange(f"src/very/deeply/nested/package/module_{i:05d}/implementation_file_{i}.py", "modified", 3, 1)
             for i in range(3000)]
    big = PullRequest(number=1230, title="[dashboard] feat: live job graph", body="x" * 20_000, author="dmitri-p",
                      merged_at=datetime(2026, 6, 7, 13, tzinfo=UTC), url="https://example.invalid/1230",
                      head_sha="f" * 40, additions=9000, deletions=3000, changed_files=3000, files=files)

    class BigSource:
        def list_merged(self, repo: str, period: Any) -> list[PullRef]:
            return []

        def get(self, repo: str, ref: PullRef) -> PullRequest:
            return big

    deps = dataclasses.replace(Deps.from_env(), sources=lambda spec: BigSource())
    record = SQSRecord(record_like(run_id, 1230))
    assert score_record(record, deps)["stored"] is True
    [result] = items(stack, "ResultsTable")
    assert len(result["data"]) < 400_000 / 4  # comfortably inside DynamoDB's item limit
    stored = unpack(result["data"])
    assert len(stored["files"]) == 3000 and stored["file_lines"] == [[3, 1]] * 3000  # line counts for the PR page


def test_a_record_for_an_unknown_run_fails_without_creating_a_ghost_run(stack: Stack) -> None:
    event = {"Records": [record_like("acme/rocket/2026-06-01_2026-06-07/expired", 1201, message_id="ghost")]}
    answer = invoke(handler(stack, "ScoreFunction"), event)
    assert answer["batchItemFailures"] == []  # acknowledged: no run will ever take it
    assert items(stack, "RunsTable") == []


def test_a_scorer_that_cannot_work_fails_its_prs_at_once(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a run that asks for the model with no API key anywhere
    for name in ("OPENAI_API_KEY", "LLM_API_KEY_SECRET"):
        monkeypatch.delenv(name, raising=False)
    answer = invoke(handler(stack, "PlanFunction"), {**SAMPLE, "scorer": "llm"})
    run_id = answer["runs"][0]["run_id"]
    messages = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    score = handler(stack, "ScoreFunction")
    # WHEN each message is delivered once
    for start in range(0, SAMPLE_PRS, 10):
        batch = messages[start:start + 10]
        assert invoke(score, sqs_event(batch, stack.queue_arns["ScoreQueue"]))["batchItemFailures"] == []
    # THEN nothing is retried: the run is complete, every PR failed with the reason, the report requested
    run = run_item(stack, run_id)
    assert (run["done"], run["failed"]) == (0, SAMPLE_PRS)
    assert all("API key" in r["reason"] for r in items(stack, "ResultsTable"))
    assert depth(stack, "ReportQueue") == 1


def test_each_invocation_gives_the_cached_source_its_own_deadline(stack: Stack) -> None:
    run_id = plan_sample(stack)

    class Timed:
        """Stands in for GitHubSource: a cached source that consults its call's deadline before waiting."""

        def __init__(self) -> None:
            self.seen: list[float] = []

        def list_merged(self, repo: str, period: Any) -> list[PullRef]:
            return []

        def get(self, repo: str, ref: PullRef) -> PullRequest:
            deadline = call_deadline()
            assert deadline is not None, "no deadline: a rate-limit wait could outlast the function"
            self.seen.append(deadline())
            raise ConnectionError("the test stops here")

    source = Timed()  # one per process, as Deps.sources keeps it: never given an attribute by an invocation
    warm = dataclasses.replace(Deps.from_env(), sources=lambda spec: source)
    for number, timeout_ms in ((1201, 60_000), (1202, 20_000)):
        context = LambdaContext("ScoreFunction", timeout_ms=timeout_ms)
        with contextlib.suppress(ConnectionError):
            score_record(SQSRecord(record_like(run_id, number)), warm.invoked(context))
    # The function's time left minus Deps.deadline's 10 s reserve, per invocation.
    assert 45 < source.seen[0] <= 50 and 5 < source.seen[1] <= 10
    assert vars(source) == {"seen": source.seen} and call_deadline() is None  # nothing left behind


def test_a_fallback_is_cached_apart_reused_as_it_is_and_replaced_only_on_request(
        stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = plan_sample(stack)

    class FlakyModel:
        """A model scorer whose first answer is the engine's fallback (the model was down), then the model's."""

        kind, model, prompt_version = "llm", "fake-model", "v-test"

        def __init__(self) -> None:
            self.calls = 0

        def score(self, pr: PullRequest, config: Any, budget: Any) -> Any:
            self.calls += 1
            scored = HeuristicScorer(language="en").score(pr, config, budget)
            return dataclasses.replace(scored, scored_by="heuristic" if self.calls == 1 else "llm")

    scorer = FlakyModel()
    deps = Deps.from_env()
    monkeypatch.setattr(deps.scorers, "scorer", lambda config, period=(): scorer)

    def deliver(i: int) -> dict[str, Any]:
        return score_record(SQSRecord(record_like(run_id, 1201, message_id=f"d{i}")), deps)

    # The outage's fallback is kept under a key of its own: a re-run reuses it without asking the model ...
    outcomes = [deliver(0), deliver(1)]
    assert scorer.calls == 1 and [o["cached"] for o in outcomes] == [False, True]
    # ... until a run asks for the model again (retry_model): then the model's answer replaces it, and is reused.
    run = deps.runs[run_id]
    deps.runs[run_id] = dataclasses.replace(run, config=dataclasses.replace(
        run.config, llm=dataclasses.replace(run.config.llm, retry_model=True)))
    outcomes = [deliver(2), deliver(3)]
    assert scorer.calls == 2 and [o["cached"] for o in outcomes] == [False, True]


def reserve_and_settle(budget_of: Any, run_id: str, limit: int, read_used: Any, workers: int) -> None:
    """Workers, each with its own RunBudget on the run, ask for reservations of 300..1,100 tokens at once until
    one is refused; then each settles its calls for less or more than they held."""
    # start, all reserved (checked here), settle, all settled (checked here), flush
    steps = [threading.Barrier(workers + 1) for _ in range(5)]
    granted: list[list[int]] = [[] for _ in range(workers)]
    real: list[list[int]] = [[] for _ in range(workers)]

    def worker(i: int) -> None:
        budget = budget_of(run_id, limit)
        steps[0].wait()
        for n in range(100):
            size = 300 + (i * 97 + n * 131) % 800
            if not budget.reserve(size):
                break
            granted[i].append(size)
        steps[1].wait()
        steps[2].wait()
        for k, size in enumerate(granted[i]):  # an estimate is high, or low
            real[i].append(size - 250 if k % 3 else size + 40)
            budget.settle(size, real[i][-1])
        steps[3].wait()
        steps[4].wait()
        budget.flush()  # what the flow does when no result is stored with the settlement

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    steps[0].wait()
    steps[1].wait()
    held = sum(map(sum, granted))
    # THEN the workers' reservations together never pass the limit, and they use it: what is left is less than
    # the largest request (a refusal was for want of room, not a fault)
    assert held <= limit and limit - held < 1100 and read_used() == held
    assert not budget_of(run_id, limit).reserve(limit - held + 1)
    # WHEN each call settles for what it really cost, concurrently
    steps[2].wait()
    # THEN a call that cost more is counted at once; the rest of a reservation is held until it is handed back
    # (with the PR's result, or flushed): the counter never holds less than was spent
    steps[3].wait()
    overruns = sum(max(0, r - g) for gs, rs in zip(granted, real, strict=True) for g, r in zip(gs, rs, strict=True))
    assert overruns > 0 and read_used() == held + overruns
    steps[4].wait()
    for t in threads:
        t.join()
    # THEN the run's counter is the sum of what the calls really spent
    assert read_used() == sum(map(sum, real))


def test_workers_reserving_together_never_overspend_the_runs_token_budget(stack: Stack) -> None:
    # GIVEN a run on DynamoDB (moto), and a token budget of 4,000 (each call to moto takes about 30 ms)
    store = Deps.from_env().store
    run_id = "acme/rocket/2026-06-01_2026-06-07/budget"
    store.create_run(run_id, RepoConfig(repo="acme/rocket"), Period.parse("2026-06-01", "2026-06-07", "UTC"),
                     "github", [], 0, "")
    reserve_and_settle(lambda rid, limit: RunBudget(store, rid, limit), run_id, 4_000,
                       lambda: int(run_item(stack, run_id)["tokens_used"]), workers=4)


def test_the_memory_store_reserves_as_dynamodb_does() -> None:
    # The flow tests' stand-in keeps the same guarantee.
    store = MemoryStore()
    config = RepoConfig(repo="acme/rocket")
    store.create_run("r", config, Period.parse("2026-06-01", "2026-06-07", "UTC"), "github", [], 0, "")
    reserve_and_settle(lambda rid, limit: RunBudget(store, rid, limit), "r", 8_000,
                       lambda: store.runs["r"].tokens_used, workers=8)


def test_reserving_for_an_unknown_run_is_refused_and_makes_no_ghost_run(stack: Stack) -> None:
    budget = RunBudget(Deps.from_env().store, "acme/rocket/2026-06-01_2026-06-07/gone", 10_000)
    assert budget.reserve(100) is False
    budget.settle(0, 50)  # a call that was in flight when the run expired
    budget.flush()
    assert items(stack, "RunsTable") == []


def test_a_pr_s_settlement_is_written_with_its_result_and_a_duplicate_leaves_it_to_flush(stack: Stack) -> None:
    store = Deps.from_env().store
    run_id = "acme/rocket/2026-06-01_2026-06-07/settle"
    store.create_run(run_id, RepoConfig(repo="acme/rocket"), Period.parse("2026-06-01", "2026-06-07", "UTC"),
                     "github", [], 0, "")
    pr = PullRequest(number=7, title="fix: typo", body="", author="a", merged_at=datetime(2026, 6, 2, tzinfo=UTC),
                     url="https://example.invalid/7", head_sha="a" * 40, additions=1, deletions=1, changed_files=1,
                     files=[FileChange("README.md", "modified", 1, 1)])
    scored = HeuristicScorer().score(pr, RepoConfig(repo="acme/rocket"), RunBudget(store, run_id, 0))

    def used() -> tuple[int, int]:
        item = run_item(stack, run_id)
        return int(item.get("tokens_used", 0)), int(item.get("done", 0))

    # GIVEN a call that reserved 1,000 tokens and cost 700
    budget = RunBudget(store, run_id, 10_000)
    assert budget.reserve(1_000)
    budget.settle(1_000, 700)
    assert used() == (1_000, 0)  # THEN nothing is written yet: the counter holds the reservation
    # WHEN the PR's result is stored with the settlement: one transaction counts both
    assert store.put_result(run_id, scored, 1, tokens=budget.unsettled)
    budget.take()
    assert used() == (700, 1)
    # WHEN a call costs more than it reserved: the overrun is counted at once, for the next reservation to see
    over = RunBudget(store, run_id, 10_000)
    assert over.reserve(300)
    over.settle(300, 450)
    assert used() == (1_150, 1) and over.unsettled == 0
    over.flush()
    assert used() == (1_150, 1)
    # WHEN a duplicate delivery's result comes with its own settlement: nothing is stored, counted or spent...
    again = RunBudget(store, run_id, 10_000)
    assert again.reserve(500)
    again.settle(500, 450)
    assert not store.put_result(run_id, scored, 2, tokens=again.unsettled)
    assert used() == (1_650, 1)
    again.flush()  # ... until the settlement is written on its own
    assert used() == (1_600, 1)
    again.flush()  # once
    assert used() == (1_600, 1)


def test_the_cache_reads_a_pr_s_keys_at_once_the_first_that_has_a_live_value_wins(stack: Stack) -> None:
    from prhub.cloud.cache import DynamoCache

    now = [1_000.0]
    cache = DynamoCache(aws.client("dynamodb"), Deps.from_env().settings.cache_table, clock=lambda: now[0])
    assert cache.first(["model", "standin"]) is None
    cache.put("standin", {"by": "engine"})
    assert cache.first(["model", "standin"]) == {"by": "engine"}
    now[0] -= 10  # the model's entry is written earlier, so it expires first
    cache.put("model", {"by": "llm"})
    now[0] += 10
    assert cache.first(["model", "standin"]) == {"by": "llm"}
    assert cache.first(["standin", "model", "standin"]) == {"by": "engine"}
    now[0] += 90 * 86_400 - 5  # the model's entry has expired, the stand-in has not
    assert cache.first(["model", "standin"]) == {"by": "engine"}
    # an unreadable entry gives way to the next, as an absent one does
    aws.client("dynamodb").put_item(TableName=cache.table, Item={
        "key": {"S": "model"}, "data": {"B": b"not gzip"}, "expires_at": {"N": str(int(now[0]) + 3600)}})
    assert cache.first(["model", "standin"]) == {"by": "engine"}


def money_run(stack: Stack, monkeypatch: pytest.MonkeyPatch, fake: FakeOpenAI, model: str,
              usd: float) -> tuple[str, Deps]:
    """A planned run whose PRs the model scores (the fake at `model`, priced $1 / $4 per million tokens in and
    out when it is fake-model) under a money budget of `usd`."""
    monkeypatch.setenv("PRHUB_LLM_PRICES", json.dumps({"fake-model": [1.0, 4.0]}))
    run_id = plan_sample(stack)
    deps = Deps.from_env()
    chat = client.ChatModel(Endpoint(base_url=fake.base_url, model=model, api_key="sk-test", timeout=5,
                                     max_retries=0))
    monkeypatch.setattr(deps.scorers, "scorer", lambda config, period=(): LlmScorer(chat, "en", period=period))
    run = deps.store.get_run(run_id)
    assert run is not None
    deps.runs[run_id] = dataclasses.replace(run, config=dataclasses.replace(
        run.config, llm=dataclasses.replace(run.config.llm, max_cost_per_run_usd=usd)))
    return run_id, deps


def stored_prs(stack: Stack) -> dict[int, ScoredPR]:
    return {int(i["number"]): ScoredPR.from_dict(unpack(i["data"])) for i in items(stack, "ResultsTable")}


def test_a_money_budget_stops_the_model_and_the_engine_scores_the_rest(stack: Stack,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a run allowed $0.0084 of a model priced at most $4 per million tokens: 2,100 tokens, room for one
    # PR's call (its prompt, about 900 tokens, and the longest answer, 1,000, are reserved first) though the token
    # budget allows 400,000
    with FakeOpenAI() as fake:
        run_id, deps = money_run(stack, monkeypatch, fake, "fake-model", 0.0084)
        for number in (1201, 1202):
            assert score_record(SQSRecord(record_like(run_id, number, message_id=f"m{number}")), deps)["stored"]
    prs = stored_prs(stack)
    # THEN the model scored the first; the money budget stopped it for the second, which the engine scored
    assert len(fake.calls) == 1 and prs[1201].scored_by == "llm"
    assert prs[1202].scored_by == "heuristic" and (prs[1202].tokens_in, prs[1202].tokens_out) == (0, 0)
    assert prs[1202].reasons[-1] == (
        answers.FALLBACK + "budget exhausted: the run's money budget is spent (llm.max_cost_per_run_usd $0.0084: "
        "2,100 tokens at fake-model's $4 per million, prices of configured)")
    # and the run's counter holds what the model really charged, within the ceiling
    used = int(run_item(stack, run_id)["tokens_used"])
    assert used == prs[1201].tokens_in + prs[1201].tokens_out == fake.tokens_in + fake.tokens_out <= 2100


def test_a_money_budget_for_a_model_without_a_price_never_calls_it(stack: Stack,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as fake:
        run_id, deps = money_run(stack, monkeypatch, fake, "unpriced-model", 5.0)
        score_record(SQSRecord(record_like(run_id, 1201)), deps)
    [pr] = stored_prs(stack).values()
    assert fake.calls == [] and pr.scored_by == "heuristic"
    assert "budget exhausted: llm.max_cost_per_run_usd is set but model unpriced-model has no price" in pr.reasons[-1]
    assert "PRHUB_LLM_PRICES" in pr.reasons[-1]


@contextlib.contextmanager
def dynamodb_calls() -> Any:
    """The DynamoDB operations this thread's client makes inside the block, by name, in order."""
    calls: list[str] = []
    events = aws.client("dynamodb").meta.events

    def seen(model: Any, **_: Any) -> None:
        calls.append(model.name)

    events.register("before-call.dynamodb", seen)
    try:
        yield calls
    finally:
        events.unregister("before-call.dynamodb", seen)


def test_a_batch_reads_the_cache_once_and_stores_its_results_in_one_transaction(stack: Stack) -> None:
    run_id = plan_sample(stack)
    messages = receive_all(stack, "ScoreQueue", 10)[:10]
    event = sqs_event(messages, stack.queue_arns["ScoreQueue"])
    with dynamodb_calls() as calls:
        answer = invoke(handler(stack, "ScoreFunction"), event)
    assert answer["batchItemFailures"] == []
    # the run and, at the end, its progress: once per batch, as the cache read and the results' write
    assert (calls.count("BatchGetItem"), calls.count("GetItem"), calls.count("TransactWriteItems")) == (1, 2, 1)
    assert run_item(stack, run_id)["done"] == 10
    # Delivered again (a duplicate batch): the cache answers all ten, the one transaction stores none of them
    with dynamodb_calls() as calls:
        answer = invoke(handler(stack, "ScoreFunction"), event)
    assert answer["batchItemFailures"] == [] and calls.count("TransactWriteItems") == 1
    assert run_item(stack, run_id)["done"] == 10
    assert len(items(stack, "ResultsTable")) == 10 and {r["cached"] for r in items(stack, "ResultsTable")} == {False}


def test_put_results_leaves_out_duplicates_counts_the_rest_once_and_settles_only_theirs(stack: Stack) -> None:
    run_id = plan_sample(stack)
    store = Deps.from_env().store

    def scored(number: int) -> ScoredPR:
        return ScoredPR(number, "t", "u", "a", "2026-06-02T00:00:00Z", ["m"], "fix", False, 1.0, 1.0, False, "s",
                        [], [], 1, 1, 1, "heuristic")

    assert store.put_result(run_id, scored(1202), 1)  # an earlier delivery stored #1202
    batch = [(run_id, scored(1201), False, -10), (run_id, scored(1202), True, -20), (run_id, scored(1203), True, -30),
             (run_id, scored(1201), False, -40)]  # #1201 twice in one batch
    with dynamodb_calls() as calls:
        assert store.put_results(batch, 2) == [True, False, True, False]
    # the first transaction is refused for #1202 alone; the second stores the other two
    assert calls == ["TransactWriteItems", "TransactWriteItems"]
    run = run_item(stack, run_id)
    assert (run["done"], run.get("tokens_used", 0)) == (3, -40)  # the duplicates' settlements are not written
    cached = {r["number"]: r["cached"] for r in items(stack, "ResultsTable")}
    assert cached == {1201: False, 1202: False, 1203: True}
    # An unknown run: nothing stored, no ghost run item
    assert store.put_results([("no-such-run", scored(1), False, 0), ("no-such-run", scored(2), False, 0)], 3) \
        == [False, False]
    assert {r["run_id"] for r in items(stack, "RunsTable")} == {run_id}
    # More results than one transaction takes (100 actions): one transaction per 99, all counted
    many = [(run_id, scored(n), False, 0) for n in range(2000, 2150)]
    with dynamodb_calls() as calls:
        assert store.put_results(many, 4) == [True] * 150
    assert calls == ["TransactWriteItems", "TransactWriteItems"] and run_item(stack, run_id)["done"] == 153


def test_the_cache_reads_many_prs_keys_in_one_call_per_hundred(stack: Stack) -> None:
    from prhub.cloud.cache import DynamoCache

    cache = DynamoCache(aws.client("dynamodb"), Deps.from_env().settings.cache_table)
    for n in range(0, 150, 3):
        cache.put(f"model-{n}", {"n": n})
    cache.put("standin-1", {"n": "engine 1"})
    key_lists = [[f"model-{n}", f"standin-{n}"] for n in range(120)]  # 240 keys
    with dynamodb_calls() as calls:
        found = cache.first_of_each(key_lists)
    assert calls == ["BatchGetItem"] * 3
    assert found[0] == {"n": 0} and found[1] == {"n": "engine 1"} and found[2] is None and found[3] == {"n": 3}
    assert sum(v is not None for v in found) == 41
    assert cache.first_of_each([[], ["model-3"]]) == [None, {"n": 3}]
