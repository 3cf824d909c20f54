"""Late is not lost: a PR waiting on a rate limit keeps its run alive; a result that arrives after the report was
published makes a new revision of it (same URL, once per revision); the score worker hands a PR back rather than
start a model call that would run past the function's timeout.

The first test runs on moto through the handlers (the issue's "done when"); the others on the in-memory adapters
(tests/fakes/memory.py), which keep the store's conditional writes, so interleavings can be staged exactly.
"""
from __future__ import annotations

import dataclasses
import json
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from prhub.cloud import aws
from prhub.core.config import RepoConfig, WatchList
from prhub.core.errors import RetryLater
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period, format_timestamp
from prhub.engine.scoring import HeuristicScorer
from prhub.flow.deps import Deps
from prhub.flow.messages import ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import WAIT_LIMIT, report_message
from prhub.flow.score import MAX_HANDBACKS, score_record

from prhub_local.runner import LambdaContext, run_store, sqs_event
from prhub_local.sample import sample_settings
from prhub_local.template import Stack
from tests.fakes.memory import SETTINGS, MemoryStack, Message, memory_stack
from tests.functional.flow_support import delete, deliver, handler, invoke, objects, receive_all, run_item
from tests.unit.render_support import pdf_text

SAMPLE = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
SAMPLE_PRS = 32
PREFIX = "acme/rocket/reports/2026-06-01-to-2026-06-07/"
SCORE, REPORT = SETTINGS.score_queue_url, SETTINGS.report_queue_url


class RateLimited:
    """A source whose GitHub budget is spent: every PR's details are refused for `wait` seconds."""

    def __init__(self, wait: float) -> None:
        self.wait = wait

    def list_merged(self, repo: str, period: Any) -> list[PullRef]:
        return []

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        raise RetryLater("GitHub rate limit: retry later", retry_after=self.wait)


def s3_text(stack: Stack, key: str) -> bytes:
    return aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"], Key=key)["Body"].read()  # type: ignore[no-any-return]


def test_a_rate_limited_pr_keeps_its_run_alive_and_scored_after_the_sweep_makes_a_revision(
        stack: Stack, tmp_path: Any) -> None:
    # GIVEN a planned week whose PRs are all scored but one, which GitHub's spent budget sends back for a minute
    run_id = invoke(handler(stack, "PlanFunction"), SAMPLE)["runs"][0]["run_id"]
    late, *rest = receive_all(stack, "ScoreQueue", SAMPLE_PRS)
    late_number = json.loads(late["Body"])["number"]
    score = handler(stack, "ScoreFunction")
    for start in range(0, len(rest), 10):
        assert deliver(score, stack, "ScoreQueue", rest[start:start + 10]) == set()
    [as_lambda_sees_it] = sqs_event([late], stack.queue_arns["ScoreQueue"])["Records"]
    limited = dataclasses.replace(Deps.from_env(), sources=lambda spec: RateLimited(60))
    before = int(datetime.now(UTC).timestamp())
    assert score_record(SQSRecord(as_lambda_sees_it), limited)["deferred"] == 61
    delete(stack, "ScoreQueue", [late])  # the record succeeded; its fresh copy waits in the queue
    assert before + 60 <= run_item(stack, run_id)["waiting_until"] <= before + 63

    # WHEN the sweep runs while the PR waits: the run is waiting, not dead, and nothing is published
    report = handler(stack, "ReportFunction")
    assert invoke(report, {"sweep": True, "older_than_minutes": 0}) == {"swept": [], "failed": [],
                                                                         "waiting": [run_id]}
    assert not any(k.startswith(PREFIX) for k in objects(stack))
    # WHEN the wait is long over and the PR's copy still has not come back (a backlog), the sweep reports the run
    later = Deps.from_env()
    later.clock = lambda: datetime.now(UTC) + timedelta(minutes=32)  # past the wait and the sweep age
    swept = report_message(ReportMessage(sweep=True, older_than_minutes=30),
                           later.invoked(LambdaContext("ReportFunction")))
    assert swept["swept"] == [run_id]
    first = json.loads(s3_text(stack, PREFIX + "report.json"))
    assert [u["number"] for u in first["unscored"]] == [late_number] and "revision" not in first
    first_at = run_item(stack, run_id)["reported_at"]

    # WHEN the limit has reset and the PR's copy is scored after the sweep
    copy = {**as_lambda_sees_it, "messageId": "the-deferred-copy"}
    assert score_record(SQSRecord(copy), Deps.from_env())["stored"] is True
    # THEN it asks for the report's second revision, once, and the revision is published at the same URL
    [ask] = receive_all(stack, "ReportQueue", 1)
    assert json.loads(ask["Body"]) == {"run_id": run_id, "revision": 2}
    assert deliver(report, stack, "ReportQueue", [ask]) == set()
    second = json.loads(s3_text(stack, PREFIX + "report.json"))
    assert second["revision"] == 2
    assert second["changes"] == {"since": first_at, "scored": [late_number], "failed": []}
    assert second["stats"]["pr_count"] == SAMPLE_PRS and second["unscored"] == []
    assert late_number in [p["number"] for p in second["prs"]]
    [note] = [n for n in second["notes"] if n.startswith("revision 2")]
    assert f"#{late_number}" in note and first_at in note
    # AND the note shows in every format, and the repository's page and feed show the revision
    said = "revision 2: made again with the results of 1 PR"
    assert said in s3_text(stack, PREFIX + "report.md").decode().replace("\\", "")  # Markdown escapes ( and )
    assert said in re.sub(r"<[^>]+>", "", s3_text(stack, PREFIX + "index.html").decode())
    assert said in " ".join(pdf_text(s3_text(stack, PREFIX + "report.pdf"), tmp_path).split())
    assert "revision 2" in s3_text(stack, "acme/rocket/index.html").decode()
    feed = s3_text(stack, "acme/rocket/feed.xml").decode()
    assert f"<updated>{second['generated_at']}</updated>" in feed and "revision 2" in feed
    assert run_item(stack, run_id)["revision"] == 2
    # AND the revision's message delivered again publishes nothing more
    published = {k: v["ETag"] for k, v in objects(stack).items()}
    assert invoke(report, sqs_event([ask], stack.queue_arns["ReportQueue"]))["batchItemFailures"] == []
    assert {k: v["ETag"] for k, v in objects(stack).items()} == published


def test_the_stores_revision_claims_have_one_winner_in_order_on_dynamodb(stack: Stack) -> None:
    store = run_store(stack)
    now = int(datetime.now(UTC).timestamp())
    period = Period.parse("2026-06-01", "2026-06-07", "UTC")
    assert store.create_run("r", RepoConfig(repo="acme/rocket"), period, "jsonl:x", [], now, "2026-06-08T00:00:00Z")
    assert not store.claim_revision("r", 2, now)  # nothing published yet
    assert store.claim_report("r", now) and store.mark_reported("r", PREFIX, "t1", now, 1, 30, [7, 9])
    assert store.get_run("r").published_pending == [7, 9]  # type: ignore[union-attr]
    # Sixteen workers with a late result each try for revision 2: one wins; revision 3 waits for 2's publication.
    with ThreadPoolExecutor(8) as pool:
        claims = list(pool.map(lambda _: run_store(stack).claim_revision("r", 2, now), range(16)))
    assert claims.count(True) == 1 and not store.claim_revision("r", 3, now)
    progress = store.progress("r")
    assert progress is not None and (progress.revision, progress.revision_requested) == (1, 2)
    assert [r.run_id for r in store.open_runs()] == ["r"]  # a claimed revision not yet published: the sweep's
    assert store.mark_reported("r", PREFIX, "t2", now, 2, 31, [9])
    assert not store.mark_reported("r", PREFIX, "t2", now, 2, 31, [9])  # the same revision twice: refused
    assert list(store.open_runs()) == [] and store.claim_revision("r", 3, now)
    # A wait only ever moves later.
    store.defer("r", now + 60)
    store.defer("r", now + 5)
    assert store.get_run("r").waiting_until == now + 60  # type: ignore[union-attr]


# -- on the in-memory adapters ---------------------------------------------------------------------------------

def sample_stack(clock: Any = None) -> MemoryStack:
    return memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                                    "repos": [sample_settings()["config"]]})), clock=clock)


def record(message: Message) -> SQSRecord:
    return SQSRecord({"messageId": message.id, "receiptHandle": message.id, "body": json.dumps(message.body),
                      "attributes": {"ApproximateReceiveCount": str(message.receives or 1)}, "messageAttributes": {},
                      "eventSource": "aws:sqs"})


def planned(stack: MemoryStack) -> tuple[str, list[Message]]:
    [run] = plan(SAMPLE, stack.deps)
    return str(run["run_id"]), stack.queue.take(SCORE)


def published_without(stack: MemoryStack, run_id: str, messages: list[Message], missing: int) -> list[Message]:
    """Every PR scored but the last `missing`, and revision 1 recorded as published without them (as a sweep
    would); returns the missing PRs' messages."""
    for m in messages[:-missing]:
        score_record(record(m), stack.deps)
    held = messages[-missing:]
    now = stack.deps.now()
    assert stack.store.claim_report(run_id, now)
    assert stack.store.mark_reported(run_id, PREFIX, format_timestamp(stack.deps.clock()), now, 1,
                                     SAMPLE_PRS - missing, [m.body["number"] for m in held])
    return held


def report_json(stack: MemoryStack) -> dict[str, Any]:
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    return json.loads(body)  # type: ignore[no-any-return]


def test_a_result_stored_while_a_revision_is_made_gets_the_next_revision() -> None:
    # GIVEN a published run missing two PRs, A and B
    stack = sample_stack()
    run_id, messages = planned(stack)
    a, b = published_without(stack, run_id, messages, 2)
    # WHEN A is scored: revision 2 is asked for
    score_record(record(a), stack.deps)
    [ask] = stack.queue.take(REPORT)
    assert ask.body == {"run_id": run_id, "revision": 2}
    # AND B's worker stores its result while revision 2 is being made, just after the publisher read the results
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    read = stack.store.results
    seen_b: list[dict[str, Any]] = []

    def results_then_b(rid: str) -> Any:
        out = read(rid)
        if not seen_b:
            seen_b.append(score_record(record(b), stack.deps))
        return out

    stack.store.results = results_then_b  # type: ignore[method-assign]
    assert report_message(ReportMessage.of(ask.body), reporter)["revision"] == 2
    stack.store.results = read  # type: ignore[method-assign]
    # THEN revision 2 holds A (B came too late for it), and B's worker, seeing 2 pending, asked for nothing:
    # the publisher asked for revision 3 after marking 2
    assert seen_b[0]["stored"] is True
    second = report_json(stack)
    assert second["revision"] == 2 and second["changes"]["scored"] == [a.body["number"]]
    assert [u["number"] for u in second["unscored"]] == [b.body["number"]]
    [ask3] = stack.queue.take(REPORT)
    assert ask3.body == {"run_id": run_id, "revision": 3}
    report_message(ReportMessage.of(ask3.body), reporter)
    third = report_json(stack)
    assert third["revision"] == 3 and third["changes"]["scored"] == [b.body["number"]]
    assert third["unscored"] == [] and third["stats"]["pr_count"] == SAMPLE_PRS
    # AND each revision was published once, however often it is asked for
    for body, revision in ((ask.body, 2), (ask3.body, 3), ({"run_id": run_id}, 3)):
        assert report_message(ReportMessage.of(body), reporter)["revision"] == revision
    assert stack.bucket.puts.count(PREFIX + "report.json") == 2
    assert stack.queue.take(REPORT) == []


def test_a_revision_whose_message_was_lost_is_published_by_the_sweep() -> None:
    stack = sample_stack()
    run_id, messages = planned(stack)
    [late] = published_without(stack, run_id, messages, 1)
    score_record(record(late), stack.deps)
    [lost] = stack.queue.take(REPORT)  # received, never processed (the report failed into ReportDLQ)
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter)["swept"] == [run_id]
    assert report_json(stack)["revision"] == 2 and stack.store.runs[run_id].revision == 2
    # The message redriven later publishes nothing more, and the sweep has nothing left to do.
    assert report_message(ReportMessage.of(lost.body), reporter)["revision"] == 2
    assert stack.bucket.puts.count(PREFIX + "report.json") == 1
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter)["swept"] == []


def test_a_run_waiting_past_the_wait_limit_is_reported_naming_the_waiting_pr() -> None:
    # GIVEN a run planned WAIT_LIMIT ago, its last PR handed back again and again by a limit that never resets
    stack = sample_stack()
    run_id, messages = planned(stack)
    *good, stuck = messages
    for m in good:
        score_record(record(m), stack.deps)
    limited = dataclasses.replace(stack.deps, sources=lambda spec: RateLimited(3600))
    assert score_record(record(stuck), limited)["deferred"] == 3601
    reporter = stack.deps.invoked(LambdaContext("ReportFunction"))
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter)["waiting"] == [run_id]
    stack.store.runs[run_id].created_at = format_timestamp(datetime.now(UTC) - timedelta(seconds=WAIT_LIMIT + 1))
    # WHEN the sweep runs: the report comes out without it
    assert report_message(ReportMessage(sweep=True, older_than_minutes=0), reporter)["swept"] == [run_id]
    [unscored] = report_json(stack)["unscored"]
    assert unscored["number"] == stuck.body["number"] and "handed back for later" in unscored["reason"]


class Model:
    """A model scorer that counts its calls (each answers with the engine's judgement, marked as the model's)."""

    kind, model, prompt_version = "llm", "fake-model", "v-test"

    def __init__(self) -> None:
        self.calls = 0

    def score(self, pr: PullRequest, config: Any, budget: Any) -> Any:
        self.calls += 1
        return dataclasses.replace(HeuristicScorer(language="en").score(pr, config, budget), scored_by="llm")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> tuple[MemoryStack, Model]:
    stack = sample_stack()
    scorer = Model()
    monkeypatch.setattr(stack.deps.scorers, "scorer", lambda config, period=(): scorer)
    return stack, scorer


def test_too_little_time_for_a_model_call_hands_the_pr_back(model: tuple[MemoryStack, Model]) -> None:
    stack, scorer = model
    run_id, [first, second, *_] = planned(stack)
    timeout = stack.store.runs[run_id].config.llm.timeout
    # GIVEN an invocation with less time left than one model call may take (60 s, Deps' 10 s reserve besides)
    short = stack.deps.invoked(LambdaContext("ScoreFunction", timeout_ms=int((timeout + 5) * 1000)))
    # WHEN a PR is scored: no model call starts; the PR goes back to the queue, counted, and its run waits for it
    answer = score_record(record(first), short)
    assert scorer.calls == 0 and answer["deferred"] == 1 and stack.store.results(run_id) == []
    [back] = stack.queue.messages[SCORE]
    assert back.body == {**first.body, "handed_back": 1}
    assert stack.store.runs[run_id].waiting_until >= stack.deps.now()
    # WHEN a fresh invocation with time to spare gets it: the model scores it
    roomy = stack.deps.invoked(LambdaContext("ScoreFunction", timeout_ms=int((timeout + 30) * 1000)))
    assert score_record(record(back), roomy)["stored"] is True and scorer.calls == 1
    # WHEN a PR was handed back MAX_HANDBACKS times (a function timeout set below the model's): the engine scores it
    second.body["handed_back"] = MAX_HANDBACKS
    assert score_record(record(second), short)["stored"] is True and scorer.calls == 1
    [result] = [r for r in stack.store.results(run_id) if r.number == second.body["number"]]
    assert result.scored is not None and result.scored.scored_by == "heuristic"
    assert any(r.startswith("scored by the engine: no time for a model call") for r in result.scored.reasons)


def test_tokens_spent_before_a_hand_back_reach_the_prs_result(model: tuple[MemoryStack, Model],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub.model.client import ModelBusy

    stack, scorer = model
    run_id, [first, second, *_] = planned(stack)
    answered = scorer.score

    def busy_once(pr: PullRequest, config: Any, budget: Any) -> Any:
        if pr.number == first.body["number"] and scorer.calls == 0:
            scorer.calls += 1  # an answer (120 in, 30 out), then its repair rate limited past the retries
            raise ModelBusy("model rate limited (RateLimitError 429: slow down)", retry_after=5, spent=(120, 30))
        scored = answered(pr, config, budget)
        scored.tokens_in, scored.tokens_out = 50, 10  # the later call's own cost
        return scored

    monkeypatch.setattr(scorer, "score", busy_once)
    # WHEN the PR is handed back after a paid call: its message carries what was spent
    assert score_record(record(first), stack.deps)["deferred"] == 6
    [back] = stack.queue.messages.pop(SCORE)
    assert back.body == {**first.body, "handed_back": 1, "spent": [120, 30]}
    # WHEN the model scores it later: the PR's tokens are both calls', as the run's counter has them
    assert score_record(record(back), stack.deps)["stored"] is True
    [result] = stack.store.results(run_id)
    assert result.scored is not None and result.scored.scored_by == "llm"
    assert (result.scored.tokens_in, result.scored.tokens_out) == (50 + 120, 10 + 30)
    # a PR handed back MAX_HANDBACKS times with tokens spent: the engine's result carries them too
    second.body.update(handed_back=MAX_HANDBACKS, spent=[7, 3])
    monkeypatch.setattr(scorer, "score", lambda pr, config, budget: (_ for _ in ()).throw(
        ModelBusy("model rate limited", retry_after=5)))
    assert score_record(record(second), stack.deps)["stored"] is True
    [engine] = [r for r in stack.store.results(run_id) if r.number == second.body["number"]]
    assert engine.scored is not None and engine.scored.scored_by == "heuristic"
    assert (engine.scored.tokens_in, engine.scored.tokens_out) == (7, 3)


def test_a_lasting_rate_limit_hands_the_pr_back_then_the_engine_scores_it(model: tuple[MemoryStack, Model],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub.model.client import ModelBusy

    stack, scorer = model
    run_id, [first, *_] = planned(stack)

    def busy(pr: PullRequest, config: Any, budget: Any) -> Any:
        scorer.calls += 1
        raise ModelBusy("model rate limited (RateLimitError 429: slow down)", retry_after=20)

    monkeypatch.setattr(scorer, "score", busy)
    # WHEN the model is still rate limited past a call's retries: the PR goes back to the queue for the wait it
    # asked, its hand-backs counted, and its run waits for it; nothing is stored, the engine does not stand in
    message = first
    for n in range(1, MAX_HANDBACKS + 1):
        answer = score_record(record(message), stack.deps)
        assert answer["deferred"] == 21 and stack.store.results(run_id) == []
        [message] = stack.queue.messages.pop(SCORE)  # sent again, visible after the wait
        assert message.body == {**first.body, "handed_back": n} and message.visible_at - stack.queue.clock() > 20
        assert stack.store.runs[run_id].waiting_until >= stack.deps.now() + 20
    # WHEN it was handed back MAX_HANDBACKS times: the engine scores it, saying why
    assert score_record(record(message), stack.deps)["stored"] is True and scorer.calls == MAX_HANDBACKS + 1
    [result] = stack.store.results(run_id)
    assert result.scored is not None and result.scored.scored_by == "heuristic"
    assert any(r.startswith("scored by the engine: model rate limited (RateLimitError 429: slow down) (handed "
                            f"back {MAX_HANDBACKS} times)") for r in result.scored.reasons)

