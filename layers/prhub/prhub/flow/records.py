"""SQS records that can never succeed: a body that is not JSON, not an object, or not the message its queue
carries (AWS's sample "Hello from SQS!"), as the queue's typed message finds when its handler parses the body
(prhub.flow.messages, prhub.flow.score.ScoreMessage). Every SQS-fed function acknowledges them instead of
retrying them into its dead-letter queue, and logs and counts them (MessagesDropped, which MessagesDroppedAlarm
watches: the DLQ alarms never see them). ScoreFunction's, a score message naming a run gone or a scorer that cannot
work as configured among them, are the same count, logged with the run and PR they name.
"""
from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics

logger = Logger(service="prhub", child=True)


def dropped(function: str, message_id: str, reason: str, **context: Any) -> dict[str, Any]:
    """Acknowledge a record that can never succeed: logged with its id, the reason and `context` (what it names),
    and counted."""
    logger.error("message dropped: it can never succeed",
                 extra={"function": function, "message_id": message_id, "reason": reason[:500], **context})
    metrics.count("MessagesDropped")
    return {"message_id": message_id, "dropped": reason[:500]}
