"""ReportFunction: SQS {run_id} (ReportMessage) -> one published report; {"sweep": true, "older_than_minutes": N}
finishes stuck runs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger
from prhub.cloud import tracing
from prhub.cloud.batch import sqs_batch
from prhub.core.errors import InputError
from prhub.flow.deps import Deps
from prhub.flow.messages import ReportMessage
from prhub.flow.publish import report_message
from prhub.flow.records import dropped

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

logger = Logger()
_deps: Deps | None = None  # built on the first invocation, kept while the environment is warm


@tracing.handler  # Powertools Tracer, made on the first invocation (prhub.cloud.tracing: not at import)
@logger.inject_lambda_context
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _deps
    _deps = _deps or Deps.from_env()
    deps = _deps.invoked(context)
    if isinstance(event, dict) and "Records" not in event:
        # The sweep schedule invokes the function directly: a bad event raises (a person's invoke sees why).
        return report_message(ReportMessage.of(event), deps)

    def record_handler(record: SQSRecord) -> dict[str, Any]:
        try:
            message = ReportMessage.parse(record.body)  # the one parse of the body
        except InputError as exc:  # it can never succeed: acknowledged, counted, logged (not ReportDLQ)
            return dropped("ReportFunction", record.message_id, str(exc))
        return report_message(message, deps)

    # A failed report raises (the batch is one message), so SQS retries it and then moves it to ReportDLQ
    # even where the event source mapping does not ask for ReportBatchItemFailures.
    return sqs_batch(event, context, record_handler)
