"""Which scorer a run gets: the engine, or the model at an OpenAI-compatible endpoint.

Endpoint, key and model come from the run's config.llm, else the deployment's ModelSettings
(prhub.flow.deps reads them from the environment, with the openai package's names):
config.llm.base_url else OPENAI_BASE_URL; OPENAI_API_KEY else the Secrets Manager secret
named by config.llm.api_key_secret or LLM_API_KEY_SECRET; config.llm.model else
PRHUB_LLM_MODEL else DEFAULT_MODEL.

Light on purpose: importing it loads neither the engine's rules (prhub.engine.scoring,
on the first PR scored) nor the model's code (prhub.model.client and .scorer, openai,
Jinja2: only when a run asks for the model), so the plan function and a cold score
worker do not pay for them. Those modules never import this one.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from aws_lambda_powertools import Logger

from prhub.cloud.secrets import SecretError
from prhub.core.config import RepoConfig
from prhub.core.errors import InputError
from prhub.model.endpoint import Endpoint
from prhub.model.pricing import Prices, token_limit

if TYPE_CHECKING:
    from prhub.engine.risks import VersionRegistry
    from prhub.engine.scoring import HeuristicScorer, Scorer
    from prhub.model.client import ChatModel

logger = Logger(service="prhub", child=True)

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_CONCURRENCY = 10  # a whole ScoreQueue batch at once; the provider's rate limit shrinks it (ChatModel)
SECRET_RETRY = 60.0  # seconds before an unreadable key secret is tried again


class SecretReader(Protocol):
    def read(self, name: str) -> str:
        """The secret's value; raises SecretError (naming the secret, never a value)."""
        ...


@dataclass(frozen=True)
class ModelSettings:
    """The deployment's model settings, each a default a repository's config.llm may override; read from the
    environment by prhub.flow.deps (the names below). `repr` leaves the key out, so it never reaches a log."""

    api_key: str = field(default="", repr=False)  # OPENAI_API_KEY: wins over any secret
    api_key_secret: str = ""  # LLM_API_KEY_SECRET: the Secrets Manager secret holding the key
    base_url: str = ""  # OPENAI_BASE_URL
    model: str = ""  # PRHUB_LLM_MODEL
    prices: str = ""  # PRHUB_LLM_PRICES, JSON read only when a run has a money budget (prhub.model.pricing)
    prices_as_of: str = ""  # PRHUB_LLM_PRICES_AS_OF
    concurrency: int = DEFAULT_CONCURRENCY  # PRHUB_LLM_CONCURRENCY


class Scorers:
    """The scorer for each run, from the deployment's settings given once (Deps) and the run's config.

    Per process it keeps one ChatModel per endpoint (its HTTP pool and learnt quirks are reused across
    messages) and remembers a key secret that could not be read for SECRET_RETRY seconds, so a broken
    secret is not fetched again for every PR.
    """

    def __init__(self, settings: ModelSettings, secrets: SecretReader | None,
                 clock: Callable[[], float] = time.monotonic,
                 registry: Callable[[], VersionRegistry] | None = None) -> None:
        self.settings = settings
        self.secrets = secrets
        self.clock = clock
        self._registry_factory = registry  # the package registries' client, made when a repository first checks
        self._registry: VersionRegistry | None = None
        self._chats: dict[Endpoint, ChatModel] = {}
        self._failures: dict[str, tuple[float, SecretError]] = {}  # secret name -> (when, why)
        self._lock = threading.Lock()

    def api_key(self, config: RepoConfig) -> str | None:
        """OPENAI_API_KEY, else the secret named by config.llm.api_key_secret or LLM_API_KEY_SECRET, else None.

        The plain variable wins so a local run with a key works on a stack environment that names a secret;
        an unreadable secret raises SecretError (remembered for SECRET_RETRY seconds)."""
        if self.settings.api_key:
            return self.settings.api_key
        name = self.key_secret(config)
        if not name:
            return None
        failed = self._failures.get(name)
        if failed and self.clock() - failed[0] < SECRET_RETRY:
            raise SecretError(str(failed[1]), missing=failed[1].missing)
        if self.secrets is None:
            raise SecretError(f"secret {name!r} could not be read: no Secrets Manager client")
        try:
            return self.secrets.read(name)
        except SecretError as exc:
            self._failures[name] = (self.clock(), exc)
            logger.warning("LLM API key secret unreadable", extra={"error": str(exc)})  # once per SECRET_RETRY
            raise

    def key_secret(self, config: RepoConfig) -> str | None:
        """The secret api_key reads the key from: None when OPENAI_API_KEY is set or no secret is named."""
        return None if self.settings.api_key else (config.llm.api_key_secret or self.settings.api_key_secret or None)

    def needs_secret(self, config: RepoConfig) -> bool:
        """Whether telling which scorer `config` gets means reading the LLM key's secret."""
        return config.scorer != "heuristic" and self.key_secret(config) is not None

    def told(self, config: RepoConfig) -> tuple[str | None, str] | None:
        """describe(config) as the score workers will find it, for the plan (granted the stack's key secret, as
        they are); None when it hinges on a key secret that cannot be read now but might be when they read it
        (denied, an outage): the engine guessed then would be the wrong scorer's results for a run the workers
        score with the model. A secret that does not exist tells: they will score with the engine too."""
        if self.needs_secret(config):
            try:
                self.api_key(config)
            except SecretError as exc:
                if not exc.missing:
                    return None
        return self.describe(config)

    def endpoint(self, config: RepoConfig) -> Endpoint | None:
        """The model endpoint the configuration names, or None when no API key is configured."""
        key = self.api_key(config)
        if not key:
            return None
        return Endpoint(base_url=config.llm.base_url or self.settings.base_url or None,
                        model=self.model_name(config), api_key=key,
                        temperature=config.llm.temperature, timeout=config.llm.timeout,
                        max_retries=config.llm.max_retries)

    def model_name(self, config: RepoConfig) -> str:
        """The model `config` asks for, whether or not a key is at hand (no secret is read)."""
        return config.llm.model or self.settings.model or DEFAULT_MODEL

    def token_budget(self, config: RepoConfig, model: str | None) -> tuple[int, str]:
        """The run's token limit at `model`'s price and what the engine's stand-ins say once it is reached
        (prhub.model.pricing.token_limit). The price table is read only for a money budget, so a malformed
        PRHUB_LLM_PRICES never stops a run that has none; one that has cannot be kept: the limit is 0."""
        try:
            prices = self.prices() if model and config.llm.max_cost_per_run_usd is not None else Prices()
        except ValueError as exc:
            return 0, f"llm.max_cost_per_run_usd cannot be kept: {exc}"
        return token_limit(config.llm, prices, model)

    def budget_warning(self, config: RepoConfig) -> str | None:
        """Why a run's money budget cannot be kept (a model with no price, an unreadable price table), said when
        the run is planned; the score workers then leave the model alone and say so on every PR."""
        if config.scorer == "heuristic" or config.llm.max_cost_per_run_usd is None:
            return None
        limit, why = self.token_budget(config, self.model_name(config))
        return f"the model will not be called, the engine scores every PR: {why}" if limit == 0 else None

    def choose(self, config: RepoConfig) -> Endpoint | None:
        """The model's endpoint when config.scorer is llm (a key is required) or auto with a readable key;
        None for the engine. Builds no client."""
        if config.scorer == "heuristic":
            return None
        try:
            endpoint = self.endpoint(config)
        except SecretError as exc:  # a named secret that cannot be read: loud for llm, the engine for auto
            if config.scorer == "llm":
                raise InputError(f"scorer llm needs an API key: {exc}") from exc
            return None
        if endpoint is None and config.scorer == "llm":
            raise InputError("scorer llm needs an API key: set OPENAI_API_KEY, or name a secret in "
                             "llm.api_key_secret / LLM_API_KEY_SECRET")
        return endpoint

    def chat(self, endpoint: Endpoint) -> ChatModel:
        """One client per endpoint and process."""
        from prhub.model.client import ChatModel  # openai and the client, loaded by the first run with a model

        with self._lock:
            if endpoint not in self._chats:
                self._chats[endpoint] = ChatModel(endpoint)
            return self._chats[endpoint]

    def engine(self, config: RepoConfig) -> HeuristicScorer:
        """The engine for `config`, with the registry client when the repository checks its pins."""
        from prhub.engine.scoring import HeuristicScorer  # the engine's rules, loaded by the first PR scored

        registry = None
        if config.check_registry and self._registry_factory is not None:
            with self._lock:
                self._registry = self._registry or self._registry_factory()
            registry = self._registry
        return HeuristicScorer(registry, language=config.language)

    def scorer(self, config: RepoConfig, period: Collection[int] = ()) -> Scorer:
        """The model (see choose) or the engine; `period` is the run's PR numbers (those the model may cite)."""
        endpoint = self.choose(config)
        if endpoint is None:
            return self.engine(config)
        from prhub.model.scorer import LlmScorer  # the model's scorer, loaded by the first run with a model

        return LlmScorer(self.chat(endpoint), config.language, engine=self.engine(config), period=period)

    def prices(self) -> Prices:
        """The model price table: the defaults with PRHUB_LLM_PRICES over them (prhub.model.pricing)."""
        return Prices.parse(self.settings.prices, self.settings.prices_as_of)

    def concurrency(self, config: RepoConfig) -> int:
        """Model calls one invocation makes at once for `config`: PRHUB_LLM_CONCURRENCY (default
        DEFAULT_CONCURRENCY, the ScoreQueue's batch size) when the model scores, 1 for the engine."""
        try:
            if self.choose(config) is None:
                return 1
        except InputError:
            return 1
        return self.settings.concurrency

    def narrator(self, config: RepoConfig) -> ChatModel | None:
        """The narrative's model for `config`, or None for the engine's text (heuristic, no key, unreadable key)."""
        if config.scorer == "heuristic":
            return None
        try:
            endpoint = self.endpoint(config)
        except SecretError:  # already logged; the scorer choice decided on the engine for this run
            return None
        return self.chat(endpoint) if endpoint else None

    def describe(self, config: RepoConfig) -> tuple[str | None, str]:
        """(model, prompt version) of the scorer `config` gets, without building it (no client, no prompt)."""
        from prhub.engine.scoring import HeuristicScorer

        endpoint = self.choose(config)
        if endpoint is None:
            return None, HeuristicScorer(language=config.language).prompt_version
        from prhub.model.scorer import pr_prompt_version

        return endpoint.model, pr_prompt_version(config.language)


def make_scorer(config: RepoConfig, settings: ModelSettings, secrets: SecretReader | None) -> Scorer:
    """The scorer `config` gets with these settings and this secrets reader, outside a flow's Deps (the local
    runner's early check, tests); the flow asks its Deps' Scorers instead."""
    return Scorers(settings, secrets).scorer(config)
