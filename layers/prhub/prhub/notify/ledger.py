"""The delivery ledger (DeliveriesTable): one item per (report, channel), the idempotency record and the log.

    claim(report_key, channel_id, ...)  -> Claim: send now ("first" or "update"), or skip and why
    finish(claim, outcome, now)         -> the verdict recorded (delivered / gave_up / deferred)
    log(report_key)                     -> every channel's item for that report: the report's delivery log

The key is the report's site prefix (`owner/repo/reports/<since>-to-<until>/`), not the run, so a redelivered
message, a retried report and a re-run of the same range all meet the same item. A claim is a conditional
write: of two workers holding the same message only one wins; a claim that dies with its worker (a Lambda
timeout) is taken over when its lease ends. The log lives here, not in report.json, so recording a delivery
never changes the content that decides whether an update is due.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from botocore.exceptions import ClientError

from prhub.cloud.dynamo import from_item, to_item

# Longer than DeliveryFunction's timeout (120 s), so a live claim is never taken over; shorter than
# DeliveryQueue's visibility timeout (720 s), so the redelivery after a crashed worker finds it expired.
LEASE_SECONDS = 300
Status = Literal["sending", "delivered", "gave_up", "deferred"]


@dataclass(frozen=True)
class Claim:
    """The answer to "may this worker send?": `send` with `kind` first|update, else `reason` for skipping."""

    report_key: str
    channel_id: str
    send: bool
    kind: str = "first"  # first | update
    reason: str = ""
    sends: int = 0  # messages this channel already got for this report
    busy: bool = False  # refused because another worker holds a live claim: try again later


class Ledger:
    """DeliveriesTable over a boto3 DynamoDB client (prhub.cloud.aws.LazyClient in the stack)."""

    def __init__(self, dynamodb: Any, table: str) -> None:
        self.ddb = dynamodb
        self.table = table

    def _key(self, report_key: str, channel_id: str) -> dict[str, Any]:
        return to_item({"report": report_key, "channel": channel_id})

    def get(self, report_key: str, channel_id: str) -> dict[str, Any] | None:
        item = self.ddb.get_item(TableName=self.table, Key=self._key(report_key, channel_id),
                                 ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def claim(self, report_key: str, channel_id: str, *, run_id: str, label: str, digest: str, updates: bool,
              now: int) -> Claim:
        """Take the right to send, once. Allowed when the channel never got this report; when an earlier
        attempt was given up by another run (the operator fixed the channel and re-ran) or deferred; when a
        claim's lease ran out; and, with `updates`, when the delivered content differs from `digest`."""
        names = {"#s": "status", "#r": "run_id", "#l": "lease_until"}
        values: dict[str, Any] = {":sending": "sending", ":gave_up": "gave_up", ":deferred": "deferred",
                                  ":run": run_id, ":now": now, ":digest": digest}
        condition = ("attribute_not_exists(#s) OR #s = :deferred OR (#s = :gave_up AND #r <> :run) "
                     "OR (#s = :sending AND #l < :now)")
        if updates:
            condition += " OR (#s = :delivered AND #d <> :digest)"
            names["#d"] = "digest"
            values[":delivered"] = "delivered"
        before = self.get(report_key, channel_id)
        try:
            self.ddb.update_item(
                TableName=self.table, Key=self._key(report_key, channel_id),
                UpdateExpression="SET #s = :sending, #r = :run, #l = :lease, label = :label, claimed_at = :now, "
                                 "pending_digest = :digest",
                ConditionExpression=condition, ExpressionAttributeNames=names,
                ExpressionAttributeValues=to_item({**values, ":lease": now + LEASE_SECONDS, ":label": label}))
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            current = self.get(report_key, channel_id) or {}
            return Claim(report_key, channel_id, False, reason=_why_not(current, digest, updates),
                         sends=int(current.get("sends", 0)), busy=current.get("status") == "sending")
        sends = int((before or {}).get("sends", 0))
        kind = "update" if before and before.get("delivered_digest") else "first"
        return Claim(report_key, channel_id, True, kind=kind, sends=sends)

    def finish(self, claim: Claim, *, status: Status, run_id: str, digest: str, attempts: int, detail: str,
               at: str, now: int) -> None:
        """Record the outcome of a claimed send (the log line of this channel for this report)."""
        sets = ["#s = :status", "attempts = :attempts", "detail = :detail", "updated_at = :at", "#l = :zero",
                "last_run = :run"]
        values: dict[str, Any] = {":status": status, ":attempts": attempts, ":detail": detail[:500], ":at": at,
                                  ":zero": 0, ":run": run_id}
        if status == "delivered":
            sets += ["#d = :digest", "delivered_digest = :digest", "delivered_at = :at",
                     "sends = if_not_exists(sends, :zero) + :one"]
            values |= {":digest": digest, ":one": 1}
        self.ddb.update_item(
            TableName=self.table, Key=self._key(claim.report_key, claim.channel_id),
            UpdateExpression="SET " + ", ".join(sets),
            ExpressionAttributeNames={"#s": "status", "#l": "lease_until",
                                      **({"#d": "digest"} if status == "delivered" else {})},
            ExpressionAttributeValues=to_item(values))

    def log(self, report_key: str) -> list[dict[str, Any]]:
        """The report's delivery log: one entry per channel, with its status, attempts, sends and times."""
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"TableName": self.table, "KeyConditionExpression": "report = :r",
                                  "ExpressionAttributeValues": to_item({":r": report_key}), "ConsistentRead": True}
        while True:
            page = self.ddb.query(**kwargs)
            items += [from_item(i) for i in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _why_not(item: dict[str, Any], digest: str, updates: bool) -> str:
    status = item.get("status")
    if status == "delivered":
        if item.get("digest") == digest:
            return "already delivered"
        return "already delivered; the content changed but this channel takes no updates"
    if status == "sending":
        return "another worker is sending it"
    if status == "gave_up":
        return "given up earlier in this run"
    return f"status {status}"
