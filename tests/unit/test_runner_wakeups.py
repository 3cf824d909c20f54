"""An idle poller of the local runner wakes when a send to its own queue is done, not at every invocation's end
(prhub_local.runner.Runner.watch_sends): a year's idle pollers otherwise made hundreds of empty receives."""
from __future__ import annotations

import os
import threading
import time

import boto3
import pytest

from prhub_local.embedded import EmbeddedAws, aws_env
from prhub_local.progress import lines
from prhub_local.runner import Runner


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch):
    for key, value in aws_env(None, True).items():
        monkeypatch.setenv(key, value)
    with EmbeddedAws(in_process=True):
        yield boto3.client("sqs", region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


def _runner() -> Runner:
    return Runner(root=None, stack=None, invoke=None, display=lines(lambda _l: None), workers=1)  # type: ignore[arg-type]


def test_a_send_wakes_the_pollers_of_its_queue_once_it_is_done_and_no_others(sqs) -> None:
    # GIVEN two queues and a runner watching a client's sends
    mine, other = (sqs.create_queue(QueueName=n)["QueueUrl"] for n in ("mine", "other"))
    runner = _runner()
    runner.watch_sends(sqs)
    runner.watch_sends(sqs)  # a second watch of the same client counts nothing twice
    seen_mine, seen_other = runner.sent_to(mine), runner.sent_to(other)
    woke: list[tuple[str, float, int]] = []

    def idle(url: str, seen: int) -> None:
        started = time.monotonic()
        runner.wait_for_send(url, seen, timeout=5)
        # what woke it is there to receive
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", [])
        woke.append((url, time.monotonic() - started, len(got)))

    waiter = threading.Thread(target=idle, args=(mine, seen_mine))
    waiter.start()
    # WHEN a message goes to the other queue, then one to its own, in batches and alone
    sqs.send_message_batch(QueueUrl=other, Entries=[{"Id": "1", "MessageBody": "x"}])
    time.sleep(0.3)
    assert woke == []  # THEN the other queue's send did not wake it
    sqs.send_message(QueueUrl=mine, MessageBody="y")
    waiter.join(timeout=5)
    # THEN it woke at once, with the message there to take, and each send was counted once
    [(url, waited, received)] = woke
    assert url == mine and waited < 2 and received == 1
    assert runner.sent_to(mine) == seen_mine + 1 and runner.sent_to(other) == seen_other + 1


def test_an_idle_poller_still_polls_after_its_timeout_and_at_once_when_the_run_stops(sqs) -> None:
    runner = _runner()
    url = sqs.create_queue(QueueName="quiet")["QueueUrl"]
    started = time.monotonic()
    runner.wait_for_send(url, runner.sent_to(url), timeout=0.2)  # a delayed message comes due on its own
    assert 0.15 < time.monotonic() - started < 2
    runner.stop()
    started = time.monotonic()
    runner.wait_for_send(url, runner.sent_to(url), timeout=5)
    assert time.monotonic() - started < 1
