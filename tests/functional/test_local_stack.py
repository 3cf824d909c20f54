"""prhub_local.template.create_stack: the queue ARNs a stack records (and its redrive policies name) are the ones SQS
gives, on the embedded AWS in process and on a served endpoint."""
from __future__ import annotations

from prhub.cloud import aws

from prhub_local.template import Stack


def answered_arns(stack: Stack) -> dict[str, str]:
    sqs = aws.client("sqs")
    return {logical: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            for logical, url in stack.queues.items()}


def test_the_queue_arns_are_the_ones_sqs_gives_in_process(stack: Stack) -> None:
    assert len(stack.queue_arns) >= 10 and stack.queue_arns == answered_arns(stack)


def test_the_queue_arns_are_the_ones_sqs_gives_on_a_served_endpoint(served_stack: Stack) -> None:
    assert len(served_stack.queue_arns) >= 10 and served_stack.queue_arns == answered_arns(served_stack)
