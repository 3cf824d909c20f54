"""SQS adapter: batched sends with retry of partial failures, visibility changes."""
from __future__ import annotations

import json
import math
import time
from typing import Any

from prhub.core.errors import PrhubError

BATCH = 10  # SQS's limit for send_message_batch
MAX_VISIBILITY = 43_200  # twelve hours, SQS's ceiling
MAX_DELAY = 900  # fifteen minutes, SQS's ceiling for DelaySeconds


class QueueError(PrhubError):
    """SQS kept refusing some messages."""


class Queue:
    def __init__(self, sqs: Any, attempts: int = 5, pause: float = 0.2) -> None:
        self.sqs = sqs
        self.attempts = attempts
        self.pause = pause

    def send(self, queue_url: str, body: dict[str, Any], delay: float = 0) -> None:
        """Send one message; with `delay`, it can be received only that many seconds later (rounded up,
        capped at SQS's 900)."""
        extra = {"DelaySeconds": min(MAX_DELAY, math.ceil(delay))} if delay > 0 else {}
        self.sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(body), **extra)

    def send_batch(self, queue_url: str, bodies: list[dict[str, Any]]) -> int:
        """Send in tens; entries SQS reports as Failed are sent again (a few times, with a pause)."""
        sent = 0
        for start in range(0, len(bodies), BATCH):
            entries = [{"Id": str(i), "MessageBody": json.dumps(b)} for i, b in enumerate(bodies[start:start + BATCH])]
            for attempt in range(self.attempts):
                answer = self.sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
                sent += len(answer.get("Successful", []))
                failed = {f["Id"] for f in answer.get("Failed", [])}
                if not failed:
                    break
                entries = [e for e in entries if e["Id"] in failed]
                time.sleep(self.pause * (attempt + 1))
            else:
                raise QueueError(f"SQS refused {len(entries)} message(s) after {self.attempts} attempts")
        return sent

    def hold(self, queue_url: str, receipt_handle: str, seconds: float) -> None:
        """Keep a received message invisible for `seconds` (rounded up, capped at SQS's maximum)."""
        timeout = min(MAX_VISIBILITY, max(0, int(seconds) + (0 if float(seconds).is_integer() else 1)))
        self.sqs.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=receipt_handle,
                                           VisibilityTimeout=timeout)
