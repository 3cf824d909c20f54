"""Configuration: the stack's settings (environment) and each watched repository's settings.

The deployed stack keeps the repositories in one JSON document (an SSM
parameter named by PRHUB_CONFIG_PARAMETER), read at run time, so the operator
changes what is watched without a deploy:

    {"defaults": {"tz": "Asia/Shanghai", "language": "zh"},
     "repos": [{"repo": "verl-project/verl", "module_map": {"verl/workers/rollout/": "rollout"}}]}

Every key of RepoConfig may appear in `defaults` or per repository.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from prhub.errors import InputError
from prhub.notify.channels import Channel, parse_channels
from prhub.period import zone

REPO_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
LANGUAGES = ("zh", "en")
# Accounts that are bots though their login has no "[bot]" suffix (GitHub Apps have it: dependabot[bot]).
DEFAULT_BOTS = ("dependabot", "renovate", "renovate-bot", "pre-commit-ci", "github-actions", "mergify", "codecov")


def check_repo(repo: Any) -> str:
    if not isinstance(repo, str) or not REPO_PATTERN.fullmatch(repo) or repo.endswith((".", "/")):
        # :.100 keeps a huge input out of the message (and the logs)
        raise InputError(f"repo must look like owner/name, got {repo!r:.100}")
    return repo


@dataclass(frozen=True)
class LlmConfig:
    base_url: str | None = None  # None: the openai package's OPENAI_BASE_URL / default
    model: str | None = None  # None: env PRHUB_LLM_MODEL, else prhub.scorers.DEFAULT_MODEL
    api_key_secret: str | None = None  # Secrets Manager name; locally OPENAI_API_KEY
    temperature: float = 0.2
    max_tokens_per_pr: int = 6000  # prompt budget for one PR (diff hunks are cut to fit)
    max_tokens_per_run: int = 400_000  # past it the engine scores the rest
    timeout: float = 60.0  # seconds per model call
    max_retries: int = 3  # retries of 429 (honouring Retry-After), 5xx and timeouts
    retry_model: bool = False  # ask the model again for PRs the engine scored in its place in an earlier run


@dataclass(frozen=True)
class RepoConfig:
    repo: str
    tz: str = "UTC"
    language: str = "zh"
    source: str = "github"  # github | jsonl:PATH (local path or s3://bucket/key)
    scorer: str = "auto"  # auto | heuristic | llm
    key_threshold: float = 4.0  # engine scale: about half of a typical verl week (docs/calibration.md)
    module_map: dict[str, str] = field(default_factory=dict)  # path prefix -> module
    test_paths: tuple[str, ...] = ("tests/", "test/", "test_", "_test.py", "conftest.py")
    large_change_lines: int = 1000
    check_registry: bool = False  # look pinned versions up on PyPI / npm
    llm: LlmConfig = field(default_factory=LlmConfig)
    notify: tuple[Channel, ...] = ()  # channels told when a report is published (prhub.notify.channels)
    bots: tuple[str, ...] = DEFAULT_BOTS  # logins counted apart (with any login ending in "[bot]")
    exclude_authors: tuple[str, ...] = ()  # logins whose PRs are left out of the report entirely

    def __post_init__(self) -> None:
        check_repo(self.repo)
        zone(self.tz)
        if self.language not in LANGUAGES:
            raise InputError(f"language must be one of {LANGUAGES}, got {self.language!r:.100}")
        if self.scorer not in ("auto", "heuristic", "llm"):
            raise InputError(f"scorer must be auto, heuristic or llm, got {self.scorer!r:.100}")

    def is_bot(self, login: str) -> bool:
        """A bot account: GitHub's "[bot]" suffix, or a login in `bots` (case-insensitive, with or without it)."""
        name = login.lower()
        return name.endswith("[bot]") or name.removesuffix("[bot]") in {b.lower() for b in self.bots}

    def excludes(self, login: str) -> bool:
        return login.lower() in {a.lower() for a in self.exclude_authors}

    @property
    def owner(self) -> str:
        return self.repo.split("/")[0]

    @property
    def name(self) -> str:
        return self.repo.split("/")[1]

    def with_overrides(self, **changes: Any) -> RepoConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["test_paths"] = list(self.test_paths)
        data["llm"] = {f.name: getattr(self.llm, f.name) for f in fields(self.llm)}
        data["notify"] = [c.to_dict() for c in self.notify]
        data["bots"], data["exclude_authors"] = list(self.bots), list(self.exclude_authors)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RepoConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown repository settings: {', '.join(sorted(unknown))}")
        values = dict(data)
        if "llm" in values:
            llm_known = {f.name for f in fields(LlmConfig)}
            bad = set(values["llm"]) - llm_known
            if bad:
                raise InputError(f"unknown llm settings: {', '.join(sorted(bad))}")
            values["llm"] = LlmConfig(**values["llm"])
        if "test_paths" in values:
            values["test_paths"] = tuple(values["test_paths"])
        for key in ("bots", "exclude_authors"):
            if key in values:
                logins = values[key]
                if not isinstance(logins, list | tuple) or not all(isinstance(v, str) and v for v in logins):
                    raise InputError(f"{key} must be a list of GitHub logins")
                values[key] = tuple(logins)
        if "notify" in values:
            values["notify"] = parse_channels(values["notify"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise InputError(f"bad repository settings: {exc}") from exc


@dataclass(frozen=True)
class WatchList:
    """All configured repositories."""

    repos: tuple[RepoConfig, ...]
    defaults: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> WatchList:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"repository configuration is not valid JSON: {exc}") from exc
        if not isinstance(doc, dict) or not isinstance(doc.get("repos", []), list):
            raise InputError('repository configuration must be {"defaults": {...}, "repos": [...]}')
        defaults = doc.get("defaults") or {}
        repos = tuple(
            RepoConfig.from_dict({**defaults, **(r if isinstance(r, dict) else {"repo": r})})
            for r in doc.get("repos", [])
        )
        return cls(repos, defaults)

    def get(self, repo: str) -> RepoConfig:
        """The repository's settings; an unlisted repo gets the defaults (custom ranges on demand)."""
        for cfg in self.repos:
            if cfg.repo.lower() == repo.lower():
                return cfg
        return RepoConfig.from_dict({**self.defaults, "repo": check_repo(repo)})


@dataclass(frozen=True)
class Settings:
    """Names of the stack's resources, set by template.yaml (or the local runner) as environment."""

    runs_table: str
    results_table: str
    cache_table: str
    idempotency_table: str
    score_queue_url: str
    report_queue_url: str
    site_bucket: str
    pages_queue_url: str = ""  # PagesQueue: the PR pages of a published report
    distribution_id: str = ""
    site_url: str = ""
    config_parameter: str = ""
    max_receive_count: int = 3
    delivery_queue_url: str = ""  # DeliveryQueue: one message per (report, channel)
    deliveries_table: str = ""  # DeliveriesTable: the delivery ledger and log (prhub.notify.ledger)
    export_bucket: str = ""  # ExportBucket: the one bucket a jsonl:s3:// source may name ("" = none)
    local_exports: bool = False  # a jsonl: source may name a path on this machine (the CLI; never the stack)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        try:
            return cls(
                runs_table=env["RUNS_TABLE"],
                results_table=env["RESULTS_TABLE"],
                cache_table=env["CACHE_TABLE"],
                idempotency_table=env["IDEMPOTENCY_TABLE"],
                score_queue_url=env["SCORE_QUEUE_URL"],
                report_queue_url=env["REPORT_QUEUE_URL"],
                site_bucket=env["SITE_BUCKET"],
                pages_queue_url=env["PAGES_QUEUE_URL"],
                distribution_id=env.get("DISTRIBUTION_ID", ""),
                site_url=env.get("SITE_URL", ""),
                config_parameter=env.get("PRHUB_CONFIG_PARAMETER", ""),
                max_receive_count=int(env.get("MAX_RECEIVE_COUNT", "3")),
                delivery_queue_url=env.get("DELIVERY_QUEUE_URL", ""),
                deliveries_table=env.get("DELIVERIES_TABLE", ""),
                export_bucket=env.get("EXPORT_BUCKET", ""),
                local_exports=env.get("LOCAL_EXPORTS", "false").lower() == "true",
            )
        except KeyError as exc:
            raise InputError(f"environment variable {exc.args[0]} is not set (template.yaml sets it)") from exc


WATCHLIST_MAX_AGE = 300  # seconds: an edited watch list reaches warm Lambdas within minutes


class WatchListParameter:
    """The watch list stored in an SSM parameter (PRHUB_CONFIG_PARAMETER), read through Powertools parameters.

    Made once per process: the provider's cache outlives invocations of a warm Lambda. `ssm` is a boto3
    SSM client (prhub.aws.LazyClient in the stack), or `provider` an SSMProvider.
    """

    def __init__(self, name: str, ssm: Any = None, provider: Any = None) -> None:
        self.name = name
        self._ssm = ssm
        self._provider = provider

    def __call__(self) -> WatchList:
        from aws_lambda_powertools.utilities.parameters import SSMProvider
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

        if not self.name:
            raise InputError("no watch list parameter is configured (PRHUB_CONFIG_PARAMETER)")
        if self._provider is None:
            self._provider = SSMProvider(boto3_client=self._ssm)
        try:
            text = self._provider.get(self.name, max_age=WATCHLIST_MAX_AGE)
        except GetParameterError as exc:
            raise InputError(f"watch list parameter {self.name!r} could not be read: {exc}") from exc
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return WatchList.parse(str(text))
