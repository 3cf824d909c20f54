"""An SQS event's records handled one by one through Powertools' batch utility, loaded with the first batch.

    answer = sqs_batch(event, context, record_handler)    Lambda's partial batch response (batchItemFailures)

Powertools' batch module imports asyncio and every event data class it knows (Kinesis, DynamoDB streams, API
Gateway, ...): about 40 ms, a third of what a handler's import costs past boto3's. A handler that imports this
module instead pays it with its first batch, off the cold start bench.coldstart holds to 1.5x `import boto3`.
Each call has its own BatchProcessor (it holds the batch's records and failures while it runs), so invocations
side by side in one process (the local runner's pollers) never share one.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord


def sqs_batch(event: dict[str, Any], context: Any, record_handler: Callable[[SQSRecord], Any], *,
              raise_on_entire_batch_failure: bool = True) -> dict[str, Any]:
    """`record_handler(record=...)` run on each record of the SQS `event`; the records that raised are listed for
    SQS to deliver again (and, with `raise_on_entire_batch_failure`, a batch whose every record failed raises)."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=raise_on_entire_batch_failure)
    return dict(process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                         context=context))
