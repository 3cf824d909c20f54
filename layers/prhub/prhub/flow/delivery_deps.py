"""What the delivery service (prhub.flow.deliver) touches, built once per process from the environment and handed
in: the delivery ledger, the site bucket it reads reports from, SQS, secrets, HTTP and SES. Apart from
prhub.flow.deps so DeliveryFunction never loads what the other handlers need (the run store, sources, scorers):
its cold start is held to 1.5x `import boto3` (bench.coldstart) like theirs. The adapter interfaces both share
(MessageQueue, the site bucket's factory) live here, the lighter of the two.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from prhub.cloud import aws, metrics
from prhub.cloud.queue import Queue
from prhub.cloud.secrets import Secrets, github_token
from prhub.cloud.watchlist import WatchListParameter
from prhub.core.channels import Channel, channel_ref, is_literal
from prhub.core.config import Settings, WatchList
from prhub.core.errors import InputError
from prhub.notify.ledger import Ledger

if TYPE_CHECKING:
    from prhub.notify.delivery import Http
    from prhub.notify.email import EmailClient
    from prhub.site.publish import Bucket

METRICS_NAMESPACE_ENV = "POWERTOOLS_METRICS_NAMESPACE"  # template.yaml's Globals: no namespace, no metrics
LITERAL_ENV = "PRHUB_NOTIFY_ALLOW_LITERAL"  # set by the local runner only: literal url/secret accepted
# The site bucket's adapter is made from an S3 client and the bucket's name: `prhub run`, whose AWS is moto in its
# own process, hands its handlers Deps made with one that skips the API round trip (prhub_local.embedded).
SiteBucket = Callable[[Any, str], "Bucket"]


class MessageQueue(Protocol):
    """SQS (prhub.cloud.queue.Queue)."""

    def send(self, queue_url: str, body: dict[str, Any], delay: float = 0) -> None: ...

    def send_batch(self, queue_url: str, bodies: list[dict[str, Any]]) -> int: ...

    def hold(self, queue_url: str, receipt_handle: str, seconds: float) -> None: ...


def literal_channels(watchlist: Callable[[], WatchList]) -> Callable[[str], Channel | None]:
    """The lookup of a literal channel by its reference (prhub.cloud.store.channel_ref) in the watch list."""
    def find(ref: str) -> Channel | None:
        return next((c for c in watchlist().channels() if is_literal(c) and channel_ref(c) == ref), None)
    return find


@dataclass
class DeliveryDeps:
    """What the delivery service (prhub.flow.deliver) touches, built once per process (`from_env`) or handed in
    by a test."""

    settings: Settings
    ledger: Ledger
    bucket: Bucket
    queue: MessageQueue
    read_secret: Callable[[str], str]
    http: Http
    email: EmailClient | None = None
    sender: str = ""
    allow_literal: bool = False
    secret_prefix: str = ""  # NotifySecretPrefix: the only secrets the function's role may read
    # Finds a literal channel by its reference in the watch list (the local runner's; None in the stack)
    literal: Callable[[str], Channel | None] | None = None
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    github_api_url: str = "https://api.github.com"  # GITHUB_API_URL: where a github channel posts
    # the stack's GitHub token (GITHUB_TOKEN_SECRET, or GITHUB_TOKEN locally): a github channel's default
    github_token: Callable[[], str | None] = lambda: None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, site_bucket: SiteBucket = aws.S3Bucket) -> DeliveryDeps:
        # The delivery function's own clients, loaded when it builds them: the other handlers never send a message
        # (SES's client comes with prhub.notify, which loads the renderers).
        import requests

        from prhub.notify.email import SesEmail

        env = dict(os.environ if env is None else env)
        settings = Settings.from_env(env)
        if not settings.deliveries_table:
            raise InputError("environment variable DELIVERIES_TABLE is not set (template.yaml sets it)")
        metrics.configure(env.get(METRICS_NAMESPACE_ENV))
        secrets = Secrets(aws.LazyClient("secretsmanager"))
        return cls(settings, Ledger(aws.LazyClient("dynamodb"), settings.deliveries_table),
                   site_bucket(aws.LazyClient("s3"), settings.site_bucket), Queue(aws.LazyClient("sqs")),
                   secrets.read, requests.Session(), SesEmail(aws.LazyClient("ses")), env.get("NOTIFY_SENDER", ""),
                   env.get(LITERAL_ENV) == "1", env.get("NOTIFY_SECRET_PREFIX", ""),
                   literal=(literal_channels(WatchListParameter(settings.config_parameter, aws.LazyClient("ssm")))
                            if env.get(LITERAL_ENV) == "1" else None),
                   github_api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
                   github_token=lambda: github_token(env=env, secrets=secrets))
