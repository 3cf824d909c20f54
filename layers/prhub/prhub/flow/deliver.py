"""The delivery service (DeliveryFunction): one message per (report, channel), sent once, outside the report.

    request_deliveries(config, report_key, run_id, queue, queue_url)  the report service, after publishing:
                                                                      one DeliveryQueue message per channel
    deliver_one(message, deps, last_try)                              one such message (parsed by the handler:
                                                                      prhub.flow.messages.DeliveryMessage) -> the
                                                                      channel told once

A slow or broken channel never delays or fails a report: the report only enqueues. Each message is one
channel, so one channel failing does not stop the others. Exactly once per (report, channel) across SQS
redeliveries, report retries and re-runs of the same range: the ledger's conditional claim
(prhub.notify.ledger). A re-run whose message differs is sent again only to channels with `"updates": true`.

Outcomes: delivered (recorded, counted); permanent (recorded as given up, not retried: a revoked hook stays
revoked); throttled or transient after the in-process retries: recorded as deferred and raised, so SQS tries
again after its visibility timeout, and on the last receive recorded as given up and left to DeliveryDLQ
(alarmed); a wait longer than a Lambda should sleep: a delayed copy of the message (as the score service does);
maybe delivered (no answer came): recorded so, and sent again only where a copy is dropped (the generic webhook)
or the channel opted in (`resend_on_timeout`, once); otherwise never, so a channel gets a report at most once.
"""
from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.core.channels import Channel, Target, channel_ref, is_literal, resolve
from prhub.core.config import RepoConfig
from prhub.core.errors import InputError, PrhubError
from prhub.core.period import format_timestamp
from prhub.flow.delivery_deps import DeliveryDeps, MessageQueue
from prhub.flow.messages import DeliveryMessage
from prhub.notify import github_post
from prhub.notify.delivery import Outcome, deliver, deliver_post, idempotent
from prhub.notify.ledger import MAX_RESENDS, Claim
from prhub.notify.message import Links, Message, build_message, digest_message
from prhub.report.digest import ROOT as DIGEST_ROOT

if TYPE_CHECKING:

    from prhub.site.publish import Bucket

logger = Logger(service="prhub", child=True)

SQS_MAX_DELAY = 900  # seconds: SQS's DelaySeconds ceiling
UPDATED = {"zh": "【更新】", "en": "Updated: "}


class DeliveryFailed(PrhubError):
    """A channel could not be told now; SQS delivers the message again (then DeliveryDLQ)."""


def channel_id(channel: Channel) -> str:
    """A stable name for one subscription: the same settings name the same channel in every run."""
    text = json.dumps(channel.to_dict(), sort_keys=True, ensure_ascii=False)
    return f"{channel.channel}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def delivery_id(report_key: str, cid: str, n: int) -> str:
    """The id of the n-th message of this channel for this report (a UUID, as receivers expect): the same on
    every retry and redelivery, so a receiver can drop duplicates too (X-Prhub-Delivery)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"prhub:{report_key}#{cid}#{n}"))


def request_deliveries(config: RepoConfig, report_key: str, run_id: str, queue: MessageQueue,
                       queue_url: str) -> int:
    """One DeliveryQueue message per channel of `config` for the report at `report_key`; returns how many."""
    return request_channels(config.notify, config.language, report_key, run_id, queue, queue_url)


def request_channels(channels: tuple[Channel, ...], language: str, report_key: str, run_id: str,
                     queue: MessageQueue, queue_url: str) -> int:
    """One DeliveryQueue message per channel for the report (or digest) at `report_key`; returns how many."""
    if not channels:
        return 0
    if not queue_url:
        logger.warning("channels configured but no delivery queue (DELIVERY_QUEUE_URL)", extra={"run_id": run_id})
        return 0
    # A channel whose URL or secret is written in the watch list (the local runner's) goes by reference.
    messages = [DeliveryMessage(run_id, report_key, language, c, channel_ref(c) if is_literal(c) else None)
                for c in channels]
    return queue.send_batch(queue_url, [m.body() for m in messages])


def deliver_one(job: DeliveryMessage, deps: DeliveryDeps, last_try: bool = False) -> dict[str, Any]:
    """Deliver the message's report to its channel, once (`last_try`: SQS will not hand it over again). Raising
    makes it a batch item failure."""
    cid = channel_id(job.channel)
    answer: dict[str, Any] = {"report_key": job.report_key, "channel": cid, "label": job.channel.label}
    if job.channel.channel == "github":
        return post_one(job, deps, cid, answer, last_try)
    message = load_message(deps.bucket, deps.settings.site_url, job)
    digest = message_digest(message)
    now = int(deps.clock())
    claim = deps.ledger.claim(job.report_key, cid, run_id=job.run_id, label=job.channel.label, digest=digest,
                              updates=job.channel.updates, now=now, idempotent=idempotent(job.channel.channel),
                              resend_on_timeout=job.channel.resend_on_timeout)
    if claim.busy:
        # Another worker is sending it (SQS may hand one message to two): come back when its lease has ended.
        raise DeliveryFailed(f"{job.channel.label}: {claim.reason}")
    if not claim.send:
        logger.info("delivery skipped", extra={**answer, "reason": claim.reason})
        return {**answer, "sent": False, "reason": claim.reason}
    if claim.kind == "update":
        message = replace(message, title=UPDATED.get(message.lang, UPDATED["en"]) + message.title)
    try:
        check_secret_names(job.channel, deps.secret_prefix)
        target = resolve(job.channel, deps.read_secret, allow_literal=deps.allow_literal)
    except Exception as exc:  # a missing secret or a literal URL in the stack: nothing to retry here
        _finish(deps, claim, job, "gave_up", digest, 0, f"{type(exc).__name__}: {exc}")
        logger.error("channel cannot be resolved", extra={**answer, "error": str(exc)})
        return {**answer, "sent": False, "outcome": "permanent", "detail": str(exc)}
    outcome = deliver(target, message, http=deps.http, clock=deps.clock, sleep=deps.sleep, email=deps.email,
                      sender=deps.sender, delivery_id=delivery_id(job.report_key, cid, claim.sends + 1))
    return _settle(outcome, claim, job, digest, deps, answer, last_try)


def post_one(job: DeliveryMessage, deps: DeliveryDeps, cid: str, answer: dict[str, Any],
             last_try: bool) -> dict[str, Any]:
    """A github channel: the report posted as an issue or discussion, created once, edited by each revision whose
    post differs (the ledger keeps which post it is), never posted twice."""
    report, markdown, where = load_report(deps.bucket, deps.settings.site_url, job)
    if job.channel.skip_empty and not _merged(report):
        logger.info("delivery skipped", extra={**answer, "reason": "no merged PR (skip_empty)"})
        return {**answer, "sent": False, "reason": "no merged PR (skip_empty)"}
    repo = job.channel.repo or str(report.get("repo") or "")
    post = github_post.build_post(job.channel, report, markdown, where, repo)
    digest = hashlib.sha256(post.fingerprint().encode()).hexdigest()
    claim = deps.ledger.claim(job.report_key, cid, run_id=job.run_id, label=job.channel.label, digest=digest,
                              updates=True, now=int(deps.clock()), idempotent=True)
    if claim.busy:
        raise DeliveryFailed(f"{job.channel.label}: {claim.reason}")
    if not claim.send:
        logger.info("delivery skipped", extra={**answer, "reason": claim.reason})
        return {**answer, "sent": False, "reason": claim.reason}
    try:
        check_secret_names(job.channel, deps.secret_prefix)
        token = deps.read_secret(job.channel.token_secret).strip() if job.channel.token_secret \
            else deps.github_token()
        if not token:
            raise InputError("no GitHub token to post with (GITHUB_TOKEN, the stack's GITHUB_TOKEN_SECRET, or the "
                             "channel's token_secret)")
    except Exception as exc:  # a missing secret: nothing to retry here
        _finish(deps, claim, job, "gave_up", digest, 0, f"{type(exc).__name__}: {exc}")
        logger.error("channel cannot be resolved", extra={**answer, "error": str(exc)})
        return {**answer, "sent": False, "outcome": "permanent", "detail": str(exc)}
    target = Target(channel="github", label=job.channel.label, url=deps.github_api_url, secret=token)
    outcome = deliver_post(target, post, http=deps.http, clock=deps.clock, sleep=deps.sleep, known=claim.post)
    return _settle(outcome, claim, job, digest, deps, answer, last_try)


def _merged(report: dict[str, Any]) -> int:
    stats = report.get("stats") or {}
    count = stats.get("pr_count")
    return int(count) if isinstance(count, int) else len(report.get("prs") or [])


def _settle(outcome: Outcome, claim: Claim, job: DeliveryMessage, digest: str, deps: DeliveryDeps,
            answer: dict[str, Any], last_try: bool) -> dict[str, Any]:
    result = {**answer, "outcome": outcome.kind, "attempts": outcome.attempts, "kind": claim.kind}
    if outcome.post:
        result["post"] = dict(outcome.post)
    if outcome.delivered:
        _finish(deps, claim, job, "delivered", digest, outcome.attempts, outcome.detail,
                dict(outcome.post) if outcome.post else None)
        metrics.count("Deliveries")
        return {**result, "sent": True}
    if outcome.kind == "permanent":
        _finish(deps, claim, job, "gave_up", digest, outcome.attempts, outcome.detail)
        return {**result, "sent": False, "detail": outcome.detail}
    if outcome.kind == "maybe":
        return _maybe(outcome, claim, job, digest, deps, result, last_try)
    if outcome.deferred and outcome.retry_after is not None and not last_try:
        # The platform asked for a longer wait than a Lambda should sleep: a delayed copy, this one done.
        _finish(deps, claim, job, "deferred", digest, outcome.attempts, outcome.detail)
        delay = min(int(outcome.retry_after) + 1, SQS_MAX_DELAY)
        deps.queue.send(deps.settings.delivery_queue_url, job.body(), delay=delay)
        return {**result, "sent": False, "deferred": delay}
    if last_try:
        _finish(deps, claim, job, "gave_up", digest, outcome.attempts, outcome.detail)
    else:
        _finish(deps, claim, job, "deferred", digest, outcome.attempts, outcome.detail)
    raise DeliveryFailed(f"{job.channel.label}: {outcome.kind} after {outcome.attempts} attempt(s): {outcome.detail}")


def _maybe(outcome: Outcome, claim: Claim, job: DeliveryMessage, digest: str, deps: DeliveryDeps,
           result: dict[str, Any], last_try: bool) -> dict[str, Any]:
    """A send whose answer never came: recorded as maybe delivered. A platform that drops copies (the generic
    webhook) is handed back to the queue to be sent again under the same delivery id; any other only when its
    channel opted in (resend_on_timeout), for its one resend (the ledger counts it before it is sent): by default
    a channel of a platform that cannot drop a copy is never sent a report twice."""
    _finish(deps, claim, job, "maybe", digest, outcome.attempts, outcome.detail)
    resend = idempotent(job.channel.channel) or (job.channel.resend_on_timeout and claim.resends < MAX_RESENDS)
    if last_try or not resend:
        why = ("" if idempotent(job.channel.channel) or job.channel.resend_on_timeout
               else "; its platform cannot drop a copy and the channel does not set resend_on_timeout")
        logger.warning("delivery maybe delivered, not sent again" + why, extra={**result, "detail": outcome.detail})
        return {**result, "sent": False, "maybe": True, "detail": outcome.detail + why}
    raise DeliveryFailed(f"{job.channel.label}: maybe delivered ({outcome.detail}); the queue brings it back to "
                         "be sent again")


def _finish(deps: DeliveryDeps, claim: Claim, job: DeliveryMessage, status: Any, digest: str, attempts: int,
            detail: str, post: dict[str, Any] | None = None) -> None:
    now = deps.clock()
    deps.ledger.finish(claim, status=status, run_id=job.run_id, digest=digest, attempts=attempts, detail=detail,
                       at=format_timestamp(datetime.fromtimestamp(now, UTC)), now=int(now), post=post)


def check_secret_names(channel: Channel, prefix: str) -> None:
    """Secret names outside the stack's prefix would be refused by IAM with an opaque AccessDenied: say why."""
    for name in (channel.url_secret, channel.secret_name, channel.token_secret):
        if prefix and name and not name.startswith(prefix):
            raise InputError(f"{channel.channel}: secret {name!r} is outside {prefix!r} (the stack's "
                             "NotifySecretPrefix), which is all DeliveryFunction may read")


def _in_language(bucket: Bucket, job: DeliveryMessage) -> tuple[str | None, Any]:
    """The report.json for the channel's language, and its language folder: the report's subfolder in that
    language when it exists (None: the report's own folder); the body None when there is no report."""
    lang = job.channel.lang
    lang_dir = lang if lang and lang != job.language else None
    body = bucket.get(f"{job.report_key}{lang_dir}/report.json") if lang_dir else None
    if body is None:
        lang_dir = None
        body = bucket.get(f"{job.report_key}report.json")
    return lang_dir, body


def load_message(bucket: Bucket, site_url: str, job: DeliveryMessage) -> Message:
    """The message for the channel's language: the report's subfolder in that language when it exists."""
    lang_dir, body = _in_language(bucket, job)
    if body is None:
        raise InputError(f"no report.json under {job.report_key}")
    report = json.loads(body)
    if job.report_key.startswith(DIGEST_ROOT):  # the organisation digest (prhub.report.digest): its own message
        return digest_message(report, site_url or "")
    base, _, rest = job.report_key.partition("/reports/")
    since, _, until = rest.strip("/").partition("-to-")
    links = Links.for_report(site_url or "", base, since, until,
                             [p["number"] for p in report.get("prs", []) if isinstance(p, dict)
                              and isinstance(p.get("number"), int)], lang_dir)
    return build_message(report, links)


def load_report(bucket: Bucket, site_url: str, job: DeliveryMessage) -> tuple[dict[str, Any], str, github_post.Where]:
    """report.json and report.md in the channel's language (the report's subfolder in it when it exists, as
    load_message picks), and where the report is."""
    lang_dir, body = _in_language(bucket, job)
    folder = f"{job.report_key}{lang_dir + '/' if lang_dir else ''}"
    markdown = bucket.get(f"{folder}report.md")
    if body is None or markdown is None:
        raise InputError(f"no report.json and report.md under {folder}")
    report = json.loads(body)
    base, _, rest = job.report_key.partition("/reports/")
    if job.report_key.startswith(DIGEST_ROOT):
        base, rest = DIGEST_ROOT.rstrip("/"), job.report_key.removeprefix(DIGEST_ROOT)
    since, _, until = rest.strip("/").partition("-to-")
    language = str(report.get("language") or lang_dir or job.language)
    where = github_post.Where(base=base, since=since, until=until, lang=language, site_url=site_url or "",
                              lang_dir=lang_dir)
    return report, markdown.decode("utf-8") if isinstance(markdown, bytes) else str(markdown), where


def message_digest(message: Message) -> str:
    """What the reader would get, hashed: a re-run with the same content has the same digest (generated_at and
    other run details are not in the message)."""
    text = json.dumps(asdict(message), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
