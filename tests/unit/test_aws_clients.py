"""prhub.cloud.aws's clients: one per thread and service, made from one session per process that reset() forgets."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from prhub.cloud import aws


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key, value in {"AWS_ACCESS_KEY_ID": "one", "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "us-east-1",
                       "AWS_ENDPOINT_URL": "http://127.0.0.1:1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    aws.reset()
    yield
    aws.reset()


def in_thread(make: Any) -> Any:
    made: list[Any] = []
    worker = threading.Thread(target=lambda: made.append(make()))
    worker.start()
    worker.join()
    return made[0]


def test_each_thread_has_its_own_client_and_a_thread_keeps_its_own() -> None:
    mine = aws.client("sqs")
    theirs = in_thread(lambda: aws.client("sqs"))
    assert aws.client("sqs") is mine
    # a client's hooks are its thread's (the local runner registers some on its threads' SQS clients)
    assert theirs is not mine and theirs.meta.events is not mine.meta.events


def test_clients_made_at_once_on_many_threads_all_work() -> None:
    barrier = threading.Barrier(8)
    made: list[Any] = []

    def make() -> None:
        barrier.wait()
        made.append(aws.client("dynamodb"))

    workers = [threading.Thread(target=make) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len({id(c) for c in made}) == 8
    assert {c.meta.endpoint_url for c in made} == {"http://127.0.0.1:1"}


def test_reset_follows_a_changed_endpoint_and_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    before = aws.client("s3")
    assert before._request_signer._credentials.access_key == "one"
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:2")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "two")
    # the session resolved its credentials once: only reset() makes the next client see the new ones
    assert in_thread(lambda: aws.client("s3"))._request_signer._credentials.access_key == "one"
    aws.reset()
    after = aws.client("s3")
    assert after is not before and after.meta.endpoint_url == "http://127.0.0.1:2"
    assert after._request_signer._credentials.access_key == "two"
