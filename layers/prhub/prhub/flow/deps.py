"""Everything a flow service touches, built once per process from the environment and handed in.

`Deps.from_env` (and prhub.flow.delivery_deps.DeliveryDeps.from_env, the delivery service's) is the one place
that reads the environment: table and queue names, GitHub's and the model's endpoints and credentials, the
metrics' namespace (handed to prhub.cloud.metrics). Every edge is an adapter with a small interface (the store's
ports in prhub.flow.ports, MessageQueue, prhub.cloud.cache.Cache, prhub.site.publish.Bucket and Cdn, the watch
list, sources, scorers), so tests hand in in-memory stand-ins (tests/fakes/memory.py) and the services never know.
boto3 clients are made on first use (prhub.cloud.aws.LazyClient), never here.

A Deps also holds what a warm Lambda keeps between invocations: the parsed
sources, run metadata, model clients and the providers' caches. Handlers build
one per process and give each invocation its context with `invoked`.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from prhub.cloud import aws, metrics
from prhub.cloud.cache import Cache, DynamoCache
from prhub.cloud.queue import Queue
from prhub.cloud.secrets import Secrets
from prhub.cloud.watchlist import WatchListParameter
from prhub.core.config import Settings, WatchList
from prhub.flow.delivery_deps import METRICS_NAMESPACE_ENV, MessageQueue, SiteBucket
from prhub.model.scorers import DEFAULT_CONCURRENCY, ModelSettings, Scorers
from prhub.sources.source import Deadline, Source, SourceCache, check_location, open_source

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

    from prhub.cloud.runs import Run
    from prhub.engine.risks import VersionRegistry
    from prhub.flow.ports import RunStore
    from prhub.site.publish import Bucket, Cdn

DEADLINE_RESERVE = 10.0  # seconds an invocation keeps for storing its result and answering SQS


def utc_now() -> datetime:
    return datetime.now(UTC)



def _local_export(spec: str) -> bool:
    return spec.startswith("jsonl:") and not spec.startswith("jsonl:s3://")


def model_settings(env: Mapping[str, str]) -> ModelSettings:
    """The deployment's model settings (prhub.model.scorers), by the openai package's names where it has them; an
    unreadable PRHUB_LLM_CONCURRENCY is the default."""
    try:
        concurrency = max(1, int(env.get("PRHUB_LLM_CONCURRENCY") or DEFAULT_CONCURRENCY))
    except ValueError:
        concurrency = DEFAULT_CONCURRENCY
    return ModelSettings(api_key=env.get("OPENAI_API_KEY") or "", api_key_secret=env.get("LLM_API_KEY_SECRET") or "",
                         base_url=env.get("OPENAI_BASE_URL") or "", model=env.get("PRHUB_LLM_MODEL") or "",
                         prices=env.get("PRHUB_LLM_PRICES") or "", prices_as_of=env.get("PRHUB_LLM_PRICES_AS_OF") or "",
                         concurrency=concurrency)


# An export file on this machine, parsed once per process (and again when the file changes): in Lambda a process
# is one environment anyway; the local runner's workers, threads of one process, then share the parse (about
# 1.4 s for verl's 2,883 PRs) instead of each paying it under the GIL before its first PR.
LOCAL_EXPORTS = SourceCache(open_source)


@dataclass
class Deps:
    """The adapters and per-process caches of the flow."""

    settings: Settings
    store: RunStore
    queue: MessageQueue
    cache: Cache
    bucket: Bucket
    cdn: Cdn
    watchlist: Callable[[], WatchList]
    sources: Callable[[str], Source]
    scorers: Scorers
    idempotency: Callable[[], BasePersistenceLayer]  # the report's Powertools persistence, made per report
    clock: Callable[[], datetime] = field(default=lambda: utc_now())  # looked up per call, so a test can set it
    lambda_context: Any = None  # this invocation's: lets Powertools idempotency and sources see the time left
    runs: dict[str, Run] = field(default_factory=dict)  # run metadata by id: a batch holds many PRs of one run
    # How a PagesQueue message's pages are rendered (prhub.flow.pages.PageJob in, each page's files out, in order
    # and lazily); None: in turn, in this process, as a Lambda does. The local runner hands in its process pool's.
    render_pages: Callable[[list[Any]], Iterator[dict[str, bytes]]] | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, site_bucket: SiteBucket = aws.S3Bucket) -> Deps:
        """The stack's adapters, from the environment template.yaml sets (or the local runner does)."""
        from prhub.cloud.store import Store  # the run store: not DeliveryFunction's, which never loads it

        env = dict(os.environ if env is None else env)
        settings = Settings.from_env(env)
        metrics.configure(env.get(METRICS_NAMESPACE_ENV))
        dynamodb: Any = aws.LazyClient("dynamodb")  # Any: Powertools wants its stubs' client type
        s3 = aws.LazyClient("s3")
        secrets = Secrets(aws.LazyClient("secretsmanager"))
        cache = DynamoCache(dynamodb, settings.cache_table)

        def github() -> Source:
            from prhub.sources.graphql import GraphQLSource
            from prhub.sources.http import CacheEtags

            # GraphQL lists a page of PRs with their files in one request; it hands over to REST where it cannot.
            return GraphQLSource.from_env(env, secrets, etag_cache=CacheEtags(cache))

        def registry() -> VersionRegistry:
            from prhub.sources.registry import Registry  # a requests session, made when a repository checks pins

            return Registry()

        def idempotency() -> BasePersistenceLayer:
            # Only the report and digest publish under idempotency: the other handlers' cold starts never load it.
            from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

            return DynamoDBPersistenceLayer(table_name=settings.idempotency_table, boto3_client=dynamodb)

        def source(spec: str) -> Source:
            # Where an export may be read from: the stack's bucket only, local paths only where a setting says so.
            check_location(spec, settings.export_bucket, settings.local_exports)
            return LOCAL_EXPORTS(spec) if _local_export(spec) else open_source(spec, s3, github)

        return cls(settings, Store(dynamodb, settings), Queue(aws.LazyClient("sqs")), cache,
                   site_bucket(s3, settings.site_bucket),
                   aws.CloudFrontCdn(aws.LazyClient("cloudfront"), settings.distribution_id),
                   WatchListParameter(settings.config_parameter, aws.LazyClient("ssm")),
                   SourceCache(source), Scorers(model_settings(env), secrets, registry=registry), idempotency)

    def invoked(self, context: Any) -> Deps:
        """The same adapters and caches, for one invocation with its Lambda context."""
        return replace(self, lambda_context=context)

    def now(self) -> int:
        return int(self.clock().timestamp())

    def deadline(self, reserve: float = 0.0) -> Deadline | None:
        """Seconds this invocation has left, minus DEADLINE_RESERVE and `reserve` (what the caller keeps for its
        own work after); None outside Lambda. What a TimedSource's calls are given (prhub.sources.source)."""
        context = self.lambda_context
        if context is None:
            return None
        return lambda: context.get_remaining_time_in_millis() / 1000 - DEADLINE_RESERVE - reserve
