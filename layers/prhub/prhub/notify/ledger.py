"""The delivery ledger (DeliveriesTable): one item per (report, channel), the idempotency record and the log.

    claim(report_key, channel_id, ...)  -> Claim: send now ("first" or "update"), or skip and why
    finish(claim, outcome, now)         -> the verdict recorded (delivered / gave_up / deferred / maybe)
    log(report_key)                     -> every channel's item for that report: the report's delivery log
    writes.observe(fn)                  -> fn(table, item) after every write (the local state's journal)

The key is the report's site prefix (`owner/repo/reports/<since>-to-<until>/`), not the run, so a redelivered
message, a retried report and a re-run of the same range all meet the same item. A claim is a conditional
write: of two workers holding the same message only one wins; a claim that dies with its worker (a Lambda
timeout) is taken over when its lease ends. The log lives here, not in report.json, so recording a delivery
never changes the content that decides whether an update is due.

Maybe delivered: a send whose answer never came (status `maybe`, or `sending` past its lease: a worker killed
mid-send) may have been posted. It is sent again only through a claim that counts it (`resends`, checked and
incremented in the same conditional write, before the send): a platform with an idempotency key any number of
times (its receiver drops the copies); a platform without one (every chat platform's incoming webhook, SES) never,
unless its channel opted in (`resend_on_timeout`), and then at most MAX_RESENDS times.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from botocore.exceptions import ClientError

from prhub.cloud.dynamo import Writes, from_item, to_item

# Longer than DeliveryFunction's timeout (120 s), so a live claim is never taken over; shorter than
# DeliveryQueue's visibility timeout (720 s), so the redelivery after a crashed worker finds it expired.
LEASE_SECONDS = 300
MAX_RESENDS = 1  # resends of a maybe-delivered message to a channel without an idempotency key that opted in
Status = Literal["sending", "delivered", "gave_up", "deferred", "maybe"]
# Told of every ledger write, before the send it allows: the local state journals the ledger so, and a run killed
# after a send does not send it again.
writes = Writes()


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
    resends: int = 0  # sends of a maybe-delivered message counted so far (this one included)
    post: dict[str, Any] | None = None  # github: the issue or discussion an earlier send made (edited, not remade)


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
              now: int, idempotent: bool = False, resend_on_timeout: bool = False) -> Claim:
        """Take the right to send, once. Allowed when the channel never got this report; when an earlier
        attempt was given up by another run (the operator fixed the channel and re-ran) or deferred; with
        `updates`, when the delivered content differs from `digest`; and for a send that maybe arrived (`maybe`,
        or a claim whose lease ran out), as a counted resend: always where the platform is `idempotent`; where
        it is not, only with `resend_on_timeout` and while MAX_RESENDS lasts."""
        before = self.get(report_key, channel_id)
        if before is not None and _maybe(before, now):
            limit = None if idempotent else (MAX_RESENDS if resend_on_timeout else 0)
            return self._resend(before, report_key, channel_id, run_id=run_id, label=label, digest=digest,
                                now=now, limit=limit)
        names = {"#s": "status", "#r": "run_id", "#l": "lease_until"}
        values: dict[str, Any] = {":sending": "sending", ":gave_up": "gave_up", ":deferred": "deferred",
                                  ":run": run_id, ":now": now, ":digest": digest}
        condition = "attribute_not_exists(#s) OR #s = :deferred OR (#s = :gave_up AND #r <> :run)"
        if updates:
            condition += " OR (#s = :delivered AND #d <> :digest)"
            names["#d"] = "digest"
            values[":delivered"] = "delivered"
        return self._take(before, report_key, channel_id, condition, names, values, label=label, digest=digest,
                          now=now, updates=updates)

    def _resend(self, before: dict[str, Any], report_key: str, channel_id: str, *, run_id: str, label: str,
                digest: str, now: int, limit: int | None) -> Claim:
        """The claim of a send that maybe arrived: counted in the write that takes it, refused once `limit`
        resends are spent (None: no limit, the receiver drops copies)."""
        resends = int(before.get("resends", 0))
        if limit is not None and resends >= limit:
            return Claim(report_key, channel_id, False, reason=spent(before, limit),
                         sends=int(before.get("sends", 0)), resends=resends)
        names = {"#s": "status", "#r": "run_id", "#l": "lease_until"}
        values: dict[str, Any] = {":was": before.get("status"), ":run": run_id, ":now": now, ":digest": digest,
                                  ":resends": resends}
        # The state read, unchanged since: of two workers taking the same resend only one wins.
        condition = ("#s = :was AND (resends = :resends OR (attribute_not_exists(resends) AND :resends = :zero)) "
                     "AND (#s <> :sending OR #l < :now)")
        values |= {":zero": 0}
        return self._take(before, report_key, channel_id, condition, names, values, label=label, digest=digest,
                          now=now, updates=False, resend=True)

    def _take(self, before: dict[str, Any] | None, report_key: str, channel_id: str, condition: str,
              names: dict[str, str], values: dict[str, Any], *, label: str, digest: str, now: int, updates: bool,
              resend: bool = False) -> Claim:
        update = ("SET #s = :sending, #r = :run, #l = :lease, label = :label, claimed_at = :now, "
                  "pending_digest = :digest")
        if resend:
            update += ", resends = if_not_exists(resends, :zero) + :one"
            values |= {":one": 1}
        try:
            written = self.ddb.update_item(
                TableName=self.table, Key=self._key(report_key, channel_id), UpdateExpression=update,
                ConditionExpression=condition, ExpressionAttributeNames=names, ReturnValues="ALL_NEW",
                ExpressionAttributeValues=to_item({**values, ":sending": "sending", ":lease": now + LEASE_SECONDS,
                                                   ":label": label}))
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            current = self.get(report_key, channel_id) or {}
            return Claim(report_key, channel_id, False, reason=_why_not(current, digest, updates),
                         sends=int(current.get("sends", 0)), busy=current.get("status") == "sending",
                         resends=int(current.get("resends", 0)))
        writes.written(self.table, written.get("Attributes"))
        sends = int((before or {}).get("sends", 0))
        kind = "update" if before and before.get("delivered_digest") else "first"
        post = (before or {}).get("post")
        return Claim(report_key, channel_id, True, kind=kind, sends=sends,
                     resends=int((before or {}).get("resends", 0)) + int(resend),
                     post=dict(post) if isinstance(post, dict) else None)

    def finish(self, claim: Claim, *, status: Status, run_id: str, digest: str, attempts: int, detail: str,
               at: str, now: int, post: dict[str, Any] | None = None) -> None:
        """Record the outcome of a claimed send (the log line of this channel for this report); `post` names the
        GitHub post it made or edited, found here by the next revision."""
        sets = ["#s = :status", "attempts = :attempts", "detail = :detail", "updated_at = :at", "#l = :zero",
                "last_run = :run"]
        values: dict[str, Any] = {":status": status, ":attempts": attempts, ":detail": detail[:500], ":at": at,
                                  ":zero": 0, ":run": run_id}
        if status == "delivered":
            sets += ["#d = :digest", "delivered_digest = :digest", "delivered_at = :at",
                     "sends = if_not_exists(sends, :zero) + :one"]
            values |= {":digest": digest, ":one": 1}
        if post:
            sets.append("post = :post")
            values[":post"] = {k: v for k, v in post.items() if v is not None and v != ""}
        written = self.ddb.update_item(
            TableName=self.table, Key=self._key(claim.report_key, claim.channel_id),
            UpdateExpression="SET " + ", ".join(sets), ReturnValues="ALL_NEW",
            ExpressionAttributeNames={"#s": "status", "#l": "lease_until",
                                      **({"#d": "digest"} if status == "delivered" else {})},
            ExpressionAttributeValues=to_item(values))
        writes.written(self.table, written.get("Attributes"))

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


def _maybe(item: dict[str, Any], now: int) -> bool:
    """Whether the item's last send may have arrived without an answer: `maybe`, or a claim past its lease."""
    status = item.get("status")
    return status == "maybe" or (status == "sending" and int(item.get("lease_until", 0)) < now)


def spent(item: dict[str, Any], limit: int | None = MAX_RESENDS) -> str:
    """Why a maybe-delivered message is not sent again."""
    if limit == 0:
        return ("maybe delivered (the platform's answer never came); the platform cannot drop a copy and the "
                "channel does not set resend_on_timeout: not sent again")
    return (f"maybe delivered (the platform's answer never came) and resent {int(item.get('resends', 0))} "
            "time(s): not sent again")


def _why_not(item: dict[str, Any], digest: str, updates: bool) -> str:
    status = item.get("status")
    if status == "maybe":
        return spent(item)
    if status == "delivered":
        if item.get("digest") == digest:
            return "already delivered"
        return "already delivered; the content changed but this channel takes no updates"
    if status == "sending":
        return "another worker is sending it"
    if status == "gave_up":
        return "given up earlier in this run"
    return f"status {status}"
