"""DeliveryFunction on moto with fake chat platforms: each (report, channel) told once, failures kept apart.

GIVEN the sample repository subscribed to three channels (URLs and signing secrets in Secrets Manager by
name, as in the stack), WHEN its report is published, THEN the report service enqueues one delivery per
channel and DeliveryFunction tells each channel once: across duplicate SQS deliveries, a second copy of the
function and a re-run of the same range. A channel answering 500 is retried, then given up, and the others
are told; throttling answers are waited out as the platform asks, or handed back to the queue when the wait
is longer than a Lambda should sleep.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.flow.deliver import DeliveryFailed, channel_id, deliver_one, delivery_id
from prhub.flow.delivery_deps import DeliveryDeps
from prhub.flow.messages import DeliveryMessage

from prhub_local.runner import sqs_event
from prhub_local.sample import sample_settings
from prhub_local.template import Stack
from tests.fakes.chat_servers import FakeChat, Fault, Hook, VirtualClock
from tests.functional.flow_support import delete, deliver, depth, handler, invoke, receive_all
from tests.functional.test_report_handler import PREFIX, plan_and_score

CHANNELS = ("slack", "feishu", "webhook")


Clock = VirtualClock


@pytest.fixture
def clock() -> Clock:
    return Clock()  # from now: the deliveries' ledger keeps real timestamps


@pytest.fixture
def chat(clock: Clock) -> Iterator[FakeChat]:
    with FakeChat(clock=clock.time) as fake:
        yield fake


@pytest.fixture
def hooks(chat: FakeChat) -> dict[str, Hook]:
    return {"slack": chat.hook("slack"), "feishu": chat.hook("feishu", secret="feishu-sign-key"),
            "webhook": chat.hook("webhook", secret="webhook-sign-key")}


@pytest.fixture
def watchlist(aws_in_process: None, prefix: str, hooks: dict[str, Hook]) -> dict[str, Any]:
    """The sample repository subscribed to every hook, by secret name under the stack's prefix."""
    secrets = aws.client("secretsmanager")
    notify = []
    for name, hook in hooks.items():
        channel: dict[str, Any] = {"channel": name, "url_secret": f"prhub/notify/{prefix}/{name}"}
        secrets.create_secret(Name=channel["url_secret"], SecretString=hook.url)
        if hook.secret:
            channel["secret_name"] = f"prhub/notify/{prefix}/{name}-sign"
            secrets.create_secret(Name=channel["secret_name"], SecretString=hook.secret)
        notify.append(channel)
    return {"defaults": {"language": "en"}, "repos": [{**sample_settings()["config"], "notify": notify}]}


def publish(stack: Stack) -> tuple[str, list[dict[str, Any]]]:
    """Plan, score and report the sample; returns the run id and the delivery messages it enqueued."""
    run_id, _ = plan_and_score(stack)
    assert deliver(handler(stack, "ReportFunction"), stack, "ReportQueue",
                   receive_all(stack, "ReportQueue", 1)) == set()
    return run_id, receive_all(stack, "DeliveryQueue", len(CHANNELS))


def report_bytes(stack: Stack) -> bytes:
    s3 = aws.client("s3")
    return s3.get_object(Bucket=stack.buckets["SiteBucket"], Key=PREFIX + "report.json")["Body"].read()  # type: ignore[no-any-return]


def ledger(stack: Stack) -> dict[str, dict[str, Any]]:
    from prhub.notify.ledger import Ledger

    entries = Ledger(aws.client("dynamodb"), stack.tables["DeliveriesTable"]).log(PREFIX)
    return {e["label"].split(":")[0]: e for e in entries}


def service(clock: Clock) -> DeliveryDeps:
    """The function's own dependencies from the stack's environment, on the virtual clock."""
    return replace(DeliveryDeps.from_env(), clock=clock.time, sleep=clock.sleep)


def jobs(messages: list[dict[str, Any]]) -> dict[str, DeliveryMessage]:
    parsed = [DeliveryMessage.parse(m["Body"]) for m in messages]
    return {j.channel.channel: j for j in parsed}


def test_each_channel_gets_one_message_across_duplicates_and_a_rerun(stack: Stack, hooks: dict[str, Hook]) -> None:
    run_id, messages = publish(stack)
    assert len(messages) == len(CHANNELS)
    assert {json.loads(m["Body"])["channel"]["channel"] for m in messages} == set(CHANNELS)
    assert all(json.loads(m["Body"])["report_key"] == PREFIX for m in messages)

    published = report_bytes(stack)
    fn = handler(stack, "DeliveryFunction")
    event = sqs_event(messages, stack.queue_arns["DeliveryQueue"])
    # SQS delivers at least once: the same batch twice, and once more to another execution environment.
    first = invoke(fn, event)
    assert first["batchItemFailures"] == []
    assert invoke(fn, event)["batchItemFailures"] == []
    assert invoke(handler(stack, "DeliveryFunction"), event)["batchItemFailures"] == []
    delete(stack, "DeliveryQueue", messages)
    # The log is kept apart from the report: recording deliveries leaves report.json as it was.
    assert report_bytes(stack) == published
    assert {name: len(h.accepted) for name, h in hooks.items()} == {name: 1 for name in CHANNELS}
    # Each platform got its own format, signed where it signs (the fakes check signatures themselves).
    assert "blocks" in hooks["slack"].accepted[0].json
    assert hooks["feishu"].accepted[0].json["msg_type"] == "interactive"
    assert hooks["webhook"].accepted[0].headers["X-Prhub-Delivery"] == delivery_id(
        PREFIX, channel_id(jobs(messages)["webhook"].channel), 1)

    # A re-run of the same range: a new run, the same report, no second message anywhere.
    rerun_id, again = publish(stack)
    assert rerun_id != run_id and len(again) == len(CHANNELS)
    assert deliver(fn, stack, "DeliveryQueue", again) == set()
    assert {name: len(h.accepted) for name, h in hooks.items()} == {name: 1 for name in CHANNELS}

    log = ledger(stack)
    assert set(log) == set(CHANNELS)
    for entry in log.values():
        assert (entry["status"], entry["sends"], entry["attempts"]) == ("delivered", 1, 1)
        assert entry["run_id"] == run_id  # the run that sent it; the re-run's claim was refused


def test_a_channel_answering_500_is_retried_then_given_up_and_the_others_are_told(
        stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    _, messages = publish(stack)
    hooks["slack"].always = Fault(500, "internal error")
    deps, work = service(clock), jobs(messages)
    for name in ("feishu", "webhook"):
        assert deliver_one(work[name], deps)["sent"] is True
    # In-process retries with backoff, then SQS's own retry (the message comes back), then the DLQ.
    with pytest.raises(DeliveryFailed, match="transient after 4 attempt"):
        deliver_one(work["slack"], deps)
    assert clock.sleeps == [1.0, 2.0, 4.0]
    assert ledger(stack)["slack"]["status"] == "deferred"
    with pytest.raises(DeliveryFailed):
        deliver_one(work["slack"], deps, last_try=True)
    assert len(hooks["slack"].received) == 8 and hooks["slack"].accepted == []
    log = ledger(stack)
    assert (log["slack"]["status"], log["slack"]["attempts"]) == ("gave_up", 4)
    assert "HTTP 500" in log["slack"]["detail"]
    assert {n: log[n]["status"] for n in ("feishu", "webhook")} == {"feishu": "delivered", "webhook": "delivered"}
    assert len(hooks["feishu"].accepted) == len(hooks["webhook"].accepted) == 1
    # A redelivery of the given-up message in the same run sends nothing more.
    assert deliver_one(work["slack"], deps)["sent"] is False
    assert len(hooks["slack"].received) == 8


def test_a_failing_channel_is_a_batch_item_failure_of_its_own(stack: Stack, hooks: dict[str, Hook]) -> None:
    _, messages = publish(stack)
    hooks["webhook"].always = Fault(404, "no such hook")  # permanent: given up at once, nothing to retry
    hooks["feishu"].faults.append(Fault(200, {"code": 19021, "msg": "sign match fail"}))
    answer = invoke(handler(stack, "DeliveryFunction"), sqs_event(messages, stack.queue_arns["DeliveryQueue"]))
    assert answer["batchItemFailures"] == []  # permanent failures are recorded, not retried
    log = ledger(stack)
    assert log["slack"]["status"] == "delivered" and len(hooks["slack"].accepted) == 1
    assert log["webhook"]["status"] == log["feishu"]["status"] == "gave_up"
    assert "19021" in log["feishu"]["detail"] and "HTTP 404" in log["webhook"]["detail"]


def test_throttling_is_honoured_in_process_or_handed_back_to_the_queue(
        stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    _, messages = publish(stack)
    deps, work = service(clock), jobs(messages)
    hooks["slack"].faults.append(Fault(429, "rate_limited", {"Retry-After": "7"}))
    assert deliver_one(work["slack"], deps)["sent"] is True
    assert clock.sleeps == [7.0] and len(hooks["slack"].received) == 2 and len(hooks["slack"].accepted) == 1

    # Longer than a Lambda should sleep: a delayed copy of the message, this one done.
    hooks["webhook"].faults.append(Fault(429, "slow down", {"Retry-After": "300"}))
    answer = deliver_one(work["webhook"], deps)
    assert answer["deferred"] == 301 and hooks["webhook"].accepted == []
    assert ledger(stack)["webhook"]["status"] == "deferred"
    assert depth(stack, "DeliveryQueue") == len(CHANNELS) + 1  # the originals are in flight, plus the copy
    assert deliver_one(work["webhook"], deps)["sent"] is True  # the copy, when it comes
    assert len(hooks["webhook"].accepted) == 1 and clock.sleeps == [7.0]


def test_a_changed_report_is_sent_as_an_update_only_where_configured(
        stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    _, messages = publish(stack)
    deps, work = service(clock), jobs(messages)
    for job in work.values():
        assert deliver_one(job, deps)["sent"] is True
    # The range is re-run and its content changed (a late result, a revision).
    s3, bucket = aws.client("s3"), stack.buckets["SiteBucket"]
    report = json.loads(s3.get_object(Bucket=bucket, Key=PREFIX + "report.json")["Body"].read())
    report["summary"] = "A revised summary after a late result."
    s3.put_object(Bucket=bucket, Key=PREFIX + "report.json", Body=json.dumps(report).encode())
    slack = work["slack"]
    updating = replace(slack, run_id="rerun", channel=replace(slack.channel, updates=True))
    assert channel_id(updating.channel) != channel_id(slack.channel)  # another subscription: a first message
    rerun = {name: replace(job, run_id="rerun") for name, job in work.items()}
    assert deliver_one(rerun["webhook"], deps)["reason"].endswith("takes no updates")
    assert deliver_one(rerun["webhook"], deps)["sent"] is False
    # The same subscription, now taking updates: delivered once more, marked as an update.
    updates = {**rerun["slack"].body(), "channel": {**rerun["slack"].body()["channel"], "updates": True}}
    first = DeliveryMessage.parse(json.dumps({**updates, "report_key": PREFIX}))
    assert deliver_one(first, deps)["sent"] is True  # its first message (a new subscription)
    s3.put_object(Bucket=bucket, Key=PREFIX + "report.json",
                  Body=json.dumps({**report, "summary": "Revised again."}).encode())
    second = deliver_one(replace(first, run_id="third"), deps)
    assert (second["sent"], second["kind"]) == (True, "update")
    texts = [json.dumps(r.json) for r in hooks["slack"].accepted]
    assert len(texts) == 3 and "Updated: " in texts[-1] and "Updated: " not in texts[0]
    assert len(hooks["webhook"].accepted) == 1


def test_a_literal_url_is_refused_in_the_stack(stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    _, messages = publish(stack)
    job = jobs(messages)["slack"]
    literal = DeliveryMessage.parse(json.dumps({**job.body(), "channel": {"channel": "slack",
                                                                           "url": hooks["slack"].url}}))
    answer = deliver_one(literal, service(clock))
    assert answer["sent"] is False and "local runner only" in answer["detail"]
    assert hooks["slack"].received == []


def test_a_secret_outside_the_stacks_prefix_is_refused_with_the_reason(
        stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    _, messages = publish(stack)
    aws.client("secretsmanager").create_secret(Name=f"elsewhere/{stack.prefix}", SecretString=hooks["slack"].url)
    job = jobs(messages)["slack"]
    outside = DeliveryMessage.parse(json.dumps({**job.body(), "channel": {"channel": "slack",
                                                                "url_secret": f"elsewhere/{stack.prefix}"}}))
    answer = deliver_one(outside, service(clock))
    assert answer["sent"] is False and "outside 'prhub/notify/'" in answer["detail"]
    assert hooks["slack"].received == []


def test_the_sample_event_is_one_delivery_message() -> None:
    from tests.conftest import load_event

    [record] = load_event("deliver-sqs.json")["Records"]
    job = DeliveryMessage.parse(record["body"])
    assert job.report_key == PREFIX and job.channel.url_secret == "prhub/notify/slack-eng"
    assert json.loads(record["body"]) == {"run_id": job.run_id, "report_key": job.report_key,
                                          "language": job.language, "channel": job.channel.to_dict()}


def test_a_claim_held_by_a_live_worker_is_retried_later_and_taken_over_when_its_lease_ends(
        stack: Stack, hooks: dict[str, Hook], clock: Clock) -> None:
    from prhub.notify.ledger import LEASE_SECONDS, Ledger

    _, messages = publish(stack)
    deps, work = service(clock), jobs(messages)
    # Workers claimed them and died before recording anything (a Lambda timeout): maybe sent, maybe not.
    digest = "d" * 64
    for job in work.values():
        claimed = Ledger(aws.client("dynamodb"), stack.tables["DeliveriesTable"]).claim(
            PREFIX, channel_id(job.channel), run_id=job.run_id, label=job.channel.label, digest=digest,
            updates=False, now=int(clock.now))
        assert claimed.send
    with pytest.raises(DeliveryFailed, match="another worker is sending it"):
        deliver_one(work["webhook"], deps)  # not dropped: SQS brings it back
    assert hooks["webhook"].received == []
    clock.now += LEASE_SECONDS + 1
    # THEN the webhook, whose receiver drops copies, is sent it under the dead worker's delivery id
    assert deliver_one(work["webhook"], deps)["sent"] is True and len(hooks["webhook"].accepted) == 1
    assert hooks["webhook"].accepted[0].headers["X-Prhub-Delivery"] == delivery_id(
        PREFIX, channel_id(work["webhook"].channel), 1)
    # AND Slack, which cannot drop a copy, is not: the dead worker may have posted it
    answer = deliver_one(work["slack"], deps)
    assert answer["sent"] is False and "resend_on_timeout" in answer["reason"] and hooks["slack"].received == []


def slow_platforms(monkeypatch: pytest.MonkeyPatch, hooks: dict[str, Hook], times: int | None) -> None:
    """Every hook takes 0.8 s to answer what it has taken, against a client that waits 0.3 s (10 s, scaled)."""
    from prhub.notify import delivery

    monkeypatch.setattr(delivery, "TIMEOUT", 0.3, raising=False)
    monkeypatch.setattr(delivery, "READ_TIMEOUT", 0.3, raising=False)
    for hook in hooks.values():
        hook.slow, hook.slow_times = 0.8, times


def test_a_platform_slower_than_the_client_is_not_sent_the_report_again_and_again(
        stack: Stack, hooks: dict[str, Hook], clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN platforms that take every message but always answer after the client stopped waiting
    _, messages = publish(stack)
    slow_platforms(monkeypatch, hooks, times=None)
    deps, work = service(clock), jobs(messages)
    # WHEN SQS hands each message over until its last receive
    for job in work.values():
        for receive in range(1, 4):
            try:
                deliver_one(job, deps, last_try=receive == 3)
            except DeliveryFailed:
                continue
    # THEN a chat platform, which has no idempotency key, got it once: never resent without resend_on_timeout
    assert {n: len(hooks[n].accepted) for n in ("slack", "feishu")} == {"slack": 1, "feishu": 1}
    log = ledger(stack)
    assert {n: (log[n]["status"], log[n].get("resends", 0)) for n in ("slack", "feishu")} == {
        "slack": ("maybe", 0), "feishu": ("maybe", 0)}
    # AND the generic webhook was retried, but always as one delivery its receiver drops duplicates of
    ids = {r.headers["X-Prhub-Delivery"] for r in hooks["webhook"].received}
    assert len(hooks["webhook"].received) > 1 and ids == {delivery_id(PREFIX, channel_id(work["webhook"].channel), 1)}


def test_a_channel_that_opts_in_is_resent_at_most_once_after_timeouts(
        stack: Stack, hooks: dict[str, Hook], clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN Slack and Feishu channels with resend_on_timeout, on platforms that always answer too late
    _, messages = publish(stack)
    slow_platforms(monkeypatch, hooks, times=None)
    deps, work = service(clock), jobs(messages)
    for name in ("slack", "feishu"):
        job = work[name]
        opted = replace(job, channel=replace(job.channel, resend_on_timeout=True))
        # WHEN SQS hands the message over until its last receive
        for receive in range(1, 4):
            try:
                deliver_one(opted, deps, last_try=receive == 3)
            except DeliveryFailed:
                continue
    # THEN each got it twice at most: once, and the one resend the ledger counted before sending it
    assert {n: len(hooks[n].accepted) for n in ("slack", "feishu")} == {"slack": 2, "feishu": 2}
    log = ledger(stack)
    assert {n: (log[n]["status"], log[n]["resends"]) for n in ("slack", "feishu")} == {
        "slack": ("maybe", 1), "feishu": ("maybe", 1)}


def test_a_timed_out_send_is_resent_once_after_the_ledger_check(
        stack: Stack, hooks: dict[str, Hook], clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a platform slow only for the first message, to a channel that opted in to one resend
    _, messages = publish(stack)
    slow_platforms(monkeypatch, hooks, times=1)
    deps, job = service(clock), jobs(messages)["slack"]
    job = replace(job, channel=replace(job.channel, resend_on_timeout=True))
    # WHEN the send times out: maybe delivered, recorded so, handed back to the queue, not resent at once
    with pytest.raises(DeliveryFailed, match="maybe delivered"):
        deliver_one(job, deps)
    assert len(hooks["slack"].received) == 1 and ledger(stack)["slack"]["status"] == "maybe"
    # THEN the redelivery resends it once, recorded before it is sent; later copies of the message send nothing
    assert deliver_one(job, deps)["sent"] is True
    assert deliver_one(job, deps)["sent"] is False
    assert len(hooks["slack"].received) == 2
    entry = ledger(stack)["slack"]
    assert (entry["status"], entry["resends"], entry["sends"]) == ("delivered", 1, 1)


def test_a_timed_out_send_without_the_opt_in_is_not_resent(
        stack: Stack, hooks: dict[str, Hook], clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a platform slow only for the first message, to a channel that did not opt in
    _, messages = publish(stack)
    slow_platforms(monkeypatch, hooks, times=1)
    deps, job = service(clock), jobs(messages)["feishu"]
    # WHEN the send times out: maybe delivered, said so, and not handed back to the queue
    answer = deliver_one(job, deps)
    assert answer["maybe"] is True and "resend_on_timeout" in answer["detail"]
    # THEN no redelivery of the message sends it again
    assert deliver_one(job, deps)["sent"] is False
    assert len(hooks["feishu"].received) == 1 and ledger(stack)["feishu"]["status"] == "maybe"
