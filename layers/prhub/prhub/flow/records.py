"""SQS records that can never succeed: a body that is not JSON, not an object, or not the message its queue
carries (AWS's sample "Hello from SQS!"). Every SQS-fed function acknowledges them instead of retrying them into
its dead-letter queue, and logs and counts them (MessagesDropped, which MessagesDroppedAlarm watches: the DLQ
alarms never see them). ScoreFunction's, a score message naming a run gone or a scorer that cannot work as
configured among them, are the same count, logged with the run and PR they name.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.core.errors import InputError

logger = Logger(service="prhub", child=True)


def message(body: str | None, required: Iterable[str] = (), one_of: Iterable[str] = ()) -> dict[str, Any]:
    """The body as a JSON object with every key of `required` and at least one of `one_of`; InputError for any
    other body."""
    try:
        data = json.loads(body or "")
    except ValueError:
        raise InputError(f"the message body is not JSON: {str(body)[:80]!r}") from None
    if not isinstance(data, dict):
        raise InputError(f"the message body is not a JSON object but {type(data).__name__}")
    missing = [key for key in required if key not in data]
    if missing:
        raise InputError(f"the message lacks {', '.join(missing)}")
    keys = list(one_of)
    if keys and not any(key in data for key in keys):
        raise InputError(f"the message has none of {', '.join(keys)}")
    return data


def dropped(function: str, message_id: str, reason: str, **context: Any) -> dict[str, Any]:
    """Acknowledge a record that can never succeed: logged with its id, the reason and `context` (what it names),
    and counted."""
    logger.error("message dropped: it can never succeed",
                 extra={"function": function, "message_id": message_id, "reason": reason[:500], **context})
    metrics.count("MessagesDropped")
    return {"message_id": message_id, "dropped": reason[:500]}
