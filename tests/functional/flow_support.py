"""Helpers for the handler tests: real SQS deliveries on moto, shaped as Lambda's SQS event."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prhub.cloud import aws
from prhub.cloud.dynamo import from_item

from prhub_local.runner import LambdaContext, load_handler, sqs_event
from prhub_local.template import Stack, default_root

Handler = Callable[[Any, Any], Any]


def handler(stack: Stack, logical: str) -> Handler:
    """A fresh copy of the function's module, as a new Lambda execution environment would load it."""
    return load_handler(default_root(), stack.template, logical)


def invoke(fn: Handler, event: Any, name: str = "fn") -> Any:
    return fn(event, LambdaContext(name))


def receive(stack: Stack, queue: str, wait: int = 1, limit: int = 10) -> list[dict[str, Any]]:
    sqs = aws.client("sqs")
    return sqs.receive_message(QueueUrl=stack.queues[queue], MaxNumberOfMessages=limit, WaitTimeSeconds=wait,
                               AttributeNames=["All"]).get("Messages", [])


def receive_all(stack: Stack, queue: str, expected: int, timeout: float = 10) -> list[dict[str, Any]]:
    """Receive until `expected` messages are in hand (they stay in flight for the visibility timeout)."""
    got: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(got) < expected and time.monotonic() < deadline:
        for m in receive(stack, queue, wait=0 if got else 1):
            got[m["MessageId"]] = m
    return list(got.values())


def delete(stack: Stack, queue: str, messages: list[dict[str, Any]]) -> None:
    sqs = aws.client("sqs")
    for m in messages:
        sqs.delete_message(QueueUrl=stack.queues[queue], ReceiptHandle=m["ReceiptHandle"])


def deliver(fn: Handler, stack: Stack, queue: str, messages: list[dict[str, Any]], name: str = "fn") -> set[str]:
    """Invoke with the messages as Lambda would; delete the ones not failed; return the failed ids."""
    answer = invoke(fn, sqs_event(messages, stack.queue_arns[queue]), name)
    failed = {f["itemIdentifier"] for f in answer["batchItemFailures"]}
    delete(stack, queue, [m for m in messages if m["MessageId"] not in failed])
    return failed


def depth(stack: Stack, queue: str) -> int:
    """Messages in the queue, visible, in flight or delayed."""
    attrs = aws.client("sqs").get_queue_attributes(QueueUrl=stack.queues[queue], AttributeNames=[
        "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed"])["Attributes"]
    return sum(int(v) for v in attrs.values())


def items(stack: Stack, table: str) -> list[dict[str, Any]]:
    db = aws.client("dynamodb")
    out: list[dict[str, Any]] = []
    for page in db.get_paginator("scan").paginate(TableName=stack.tables[table]):
        out.extend(from_item(i) for i in page.get("Items", []))
    return out


def run_item(stack: Stack, run_id: str) -> dict[str, Any]:
    item = aws.client("dynamodb").get_item(TableName=stack.tables["RunsTable"], Key={"run_id": {"S": run_id}},
                                             ConsistentRead=True)["Item"]
    return from_item(item)


def objects(stack: Stack) -> dict[str, dict[str, Any]]:
    s3 = aws.client("s3")
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=stack.buckets["SiteBucket"]):
        for obj in page.get("Contents", []):
            out[obj["Key"]] = obj
    return out
