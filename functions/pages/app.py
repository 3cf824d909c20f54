"""PagesFunction: an SQS message {repo, slug, lang, home, numbers} (PagesMessage) -> those PRs' pages rendered and
published."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger
from prhub.cloud import tracing
from prhub.cloud.batch import sqs_batch
from prhub.core.errors import InputError
from prhub.flow.deps import Deps
from prhub.flow.messages import PagesMessage
from prhub.flow.pages import pages_message
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

    def record_handler(record: SQSRecord) -> dict[str, Any]:
        try:
            message = PagesMessage.parse(record.body)  # the one parse of the body
        except InputError as exc:  # it can never succeed: acknowledged, counted, logged (not PagesDLQ)
            return dropped("PagesFunction", record.message_id, str(exc))
        return pages_message(message, deps)

    # A failed batch is listed in batchItemFailures, so SQS retries it and then moves it to PagesDLQ.
    return sqs_batch(event, context, record_handler, raise_on_entire_batch_failure=False)
