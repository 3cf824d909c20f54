"""DeliveryFunction: an SQS batch of {run_id, report_key, language, channel}; each channel told once."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger
from prhub.cloud import tracing
from prhub.cloud.batch import sqs_batch
from prhub.core.errors import InputError
from prhub.flow.deliver import deliver_one
from prhub.flow.delivery_deps import DeliveryDeps
from prhub.flow.messages import DeliveryMessage
from prhub.flow.records import dropped

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

logger = Logger()
_deps: DeliveryDeps | None = None  # built on the first invocation, kept while the environment is warm


@tracing.handler  # Powertools Tracer, made on the first invocation (prhub.cloud.tracing: not at import)
@logger.inject_lambda_context
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _deps
    _deps = _deps or DeliveryDeps.from_env()
    deps = _deps

    def record_handler(record: SQSRecord) -> dict[str, Any]:  # Powertools passes it as `record=`
        try:
            message = DeliveryMessage.parse(record.body, deps.literal)  # the one parse of the body
        except InputError as exc:  # it can never succeed: acknowledged, counted, logged (not DeliveryDLQ)
            return dropped("DeliveryFunction", record.message_id, str(exc))
        receives = int(record.attributes.approximate_receive_count or 1)
        return deliver_one(message, deps, last_try=receives >= deps.settings.max_receive_count)

    # One record per channel: a failed channel is listed in batchItemFailures, the others are done.
    return sqs_batch(event, context, record_handler, raise_on_entire_batch_failure=False)
