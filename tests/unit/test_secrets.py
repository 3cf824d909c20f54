"""Secrets by name (Secrets Manager on moto) with the local env-var fallback, and the SSM watch list."""
from __future__ import annotations

import logging
from collections.abc import Iterator

import boto3
import pytest
from aws_lambda_powertools.utilities.parameters import SecretsProvider, SSMProvider
from moto import mock_aws
from prhub.cloud import aws, secrets, watchlist
from prhub.core import config
from prhub.core.errors import InputError

TOKEN = "ghp_" + "FAKEfakeFAKEfakeFAKEfakeFAKEfake0001"  # split: a fake, not a leaked token


@pytest.fixture
def moto_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        aws.reset()
        yield
        aws.reset()


@pytest.fixture
def sm(moto_env: None) -> object:
    return boto3.client("secretsmanager")


def provider() -> SecretsProvider:
    """read_secret takes its provider (and with it its client): one over moto's Secrets Manager."""
    return SecretsProvider(boto3_client=boto3.client("secretsmanager"))


def test_named_secret_is_read_from_secrets_manager(sm: object) -> None:
    sm.create_secret(Name="prhub/github-token", SecretString=TOKEN)  # type: ignore[attr-defined]
    env = {"GITHUB_TOKEN_SECRET": "prhub/github-token"}
    assert secrets.github_token(env=env) == TOKEN


def test_plain_env_var_wins_over_a_configured_name(moto_env: None) -> None:
    """A local run on the stack's environment (secret names set, no such secret) uses the caller's token."""
    env = {"GITHUB_TOKEN_SECRET": "prhub/github-token", "GITHUB_TOKEN": "gh-local",
           "LLM_API_KEY_SECRET": "prhub/llm-api-key", "OPENAI_API_KEY": "sk-local"}
    assert secrets.github_token(env=env) == "gh-local"
    assert secrets.llm_api_key(env=env) == "sk-local"


def test_without_a_secret_name_the_conventional_env_vars_are_used() -> None:
    env = {"GITHUB_TOKEN": "gh-local", "OPENAI_API_KEY": "sk-local"}
    assert secrets.github_token(env=env) == "gh-local"
    assert secrets.llm_api_key(env=env) == "sk-local"
    assert secrets.github_token(env={}) is None
    assert secrets.llm_api_key(env={"GITHUB_TOKEN": "x"}) is None


def test_explicit_name_overrides_the_environment(sm: object) -> None:
    sm.create_secret(Name="team/openai", SecretString="sk-from-secret")  # type: ignore[attr-defined]
    assert secrets.llm_api_key("team/openai", env={"LLM_API_KEY_SECRET": "other"}) == "sk-from-secret"


def test_secret_is_cached_until_max_age(sm: object) -> None:
    """A warm Lambda asks Secrets Manager once per max_age, and picks up a rotation after it."""
    sm.create_secret(Name="prhub/llm-api-key", SecretString="sk-one")  # type: ignore[attr-defined]
    provider = SecretsProvider(boto3_client=boto3.client("secretsmanager"))
    env = {"LLM_API_KEY_SECRET": "prhub/llm-api-key"}
    assert secrets.llm_api_key(env=env, provider=provider) == "sk-one"
    sm.put_secret_value(SecretId="prhub/llm-api-key", SecretString="sk-two")  # type: ignore[attr-defined]
    assert secrets.llm_api_key(env=env, provider=provider) == "sk-one"
    uncached = SecretsProvider(boto3_client=boto3.client("secretsmanager"))
    assert secrets.llm_api_key(env=env, provider=uncached, max_age=0) == "sk-two"
    sm.put_secret_value(SecretId="prhub/llm-api-key", SecretString="sk-three")  # type: ignore[attr-defined]
    assert secrets.llm_api_key(env=env, provider=uncached, max_age=0) == "sk-three"


def test_a_processs_provider_is_shared_so_its_cache_survives_calls(sm: object) -> None:
    """Deps makes one Secrets per process: its provider (and cache) serves every invocation."""
    sm.create_secret(Name="s", SecretString="v1")  # type: ignore[attr-defined]
    reader = secrets.Secrets(aws.LazyClient("secretsmanager"))
    assert reader.read("s") == "v1"
    sm.put_secret_value(SecretId="s", SecretString="v2")  # type: ignore[attr-defined]
    assert reader.read("s") == "v1"
    assert reader.provider is reader.provider
    assert secrets.Secrets(aws.LazyClient("secretsmanager")).read("s") == "v2"  # a new process


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ('{"token": "ghp_json"}', "ghp_json"),
        ('{"api_key": "sk-json", "org": "o"}', "sk-json"),
        ('{"GITHUB": "only-one"}', "only-one"),
        ("  padded-token \n", "padded-token"),
        ("{not json", "{not json"),
    ],
)
def test_secret_shapes(sm: object, stored: str, expected: str) -> None:
    sm.create_secret(Name="shape", SecretString=stored)  # type: ignore[attr-defined]
    assert secrets.read_secret("shape", provider()) == expected


def test_json_secret_without_a_token_field_is_an_error_that_does_not_echo_it(sm: object) -> None:
    sm.create_secret(Name="ambiguous", SecretString='{"a": "sekrit-1", "b": "sekrit-2"}')  # type: ignore[attr-defined]
    with pytest.raises(secrets.SecretError) as err:
        secrets.read_secret("ambiguous", provider())
    assert "sekrit" not in str(err.value)
    assert "ambiguous" in str(err.value)


def test_missing_secret_is_a_clear_error_naming_it(moto_env: None) -> None:
    with pytest.raises(secrets.SecretError, match=r"'prhub/github-token' could not be read: ResourceNotFound") as err:
        secrets.github_token(env={"GITHUB_TOKEN_SECRET": "prhub/github-token"})
    # AND it says the secret does not exist (the plan then knows the workers' auto scorer is the engine)
    assert err.value.missing


def test_a_secret_that_exists_but_cannot_be_used_is_not_missing(sm: object) -> None:
    sm.create_secret(Name="ambiguous", SecretString='{"a": "sekrit-1", "b": "sekrit-2"}')  # type: ignore[attr-defined]
    with pytest.raises(secrets.SecretError) as err:
        secrets.read_secret("ambiguous", provider())
    assert not err.value.missing


def test_binary_secret(sm: object) -> None:
    sm.create_secret(Name="bin", SecretBinary=b"binary-token")  # type: ignore[attr-defined]
    assert secrets.read_secret("bin", provider()) == "binary-token"


# ------------------------------------------------------------------ watch list from SSM

WATCHLIST = '{"defaults": {"tz": "Asia/Shanghai", "language": "en"}, "repos": [{"repo": "acme/rocket"}, "acme/fuel"]}'


def test_load_watchlist_reads_and_parses_the_parameter(moto_env: None) -> None:
    boto3.client("ssm").put_parameter(Name="prhub-watchlist", Value=WATCHLIST, Type="String")
    wl = watchlist.WatchListParameter("prhub-watchlist", aws.LazyClient("ssm"))()
    assert [r.repo for r in wl.repos] == ["acme/rocket", "acme/fuel"]
    assert {r.tz for r in wl.repos} == {"Asia/Shanghai"}
    assert wl.get("other/repo").language == "en"


def test_load_watchlist_is_cached_for_a_few_minutes(moto_env: None) -> None:
    ssm = boto3.client("ssm")
    ssm.put_parameter(Name="wl", Value=WATCHLIST, Type="String")
    cached = watchlist.WatchListParameter("wl", provider=SSMProvider(boto3_client=ssm))
    assert len(cached().repos) == 2
    ssm.put_parameter(Name="wl", Value='{"repos": ["acme/only"]}', Type="String", Overwrite=True)
    assert len(cached().repos) == 2  # cached
    assert watchlist.WATCHLIST_MAX_AGE >= 60
    fresh = watchlist.WatchListParameter("wl", ssm)
    assert [r.repo for r in fresh().repos] == ["acme/only"]


def test_load_watchlist_errors_are_input_errors(moto_env: None) -> None:
    ssm = boto3.client("ssm")
    with pytest.raises(InputError, match="could not be read"):
        watchlist.WatchListParameter("missing-parameter", ssm)()
    with pytest.raises(InputError, match="no watch list parameter"):
        watchlist.WatchListParameter("", ssm)()
    ssm.put_parameter(Name="broken", Value="{not json", Type="String")
    with pytest.raises(InputError, match="not valid JSON"):
        watchlist.WatchListParameter("broken", ssm)()


def test_template_default_watchlist_parses() -> None:
    """The WatchedRepositories default in template.yaml is what a fresh stack reads."""
    from tests.unit.test_template import load_template

    default = load_template()["Parameters"]["WatchedRepositories"]["Default"]
    wl = config.WatchList.parse(default)
    assert wl.repos and all("/" in r.repo for r in wl.repos)


def test_botocore_debug_wire_log_never_shows_a_secret_value(sm: object) -> None:
    """With every logger at DEBUG (e.g. Lambda's log level set to DEBUG) botocore prints raw response bodies."""
    sm.create_secret(Name="wire", SecretString=TOKEN)  # type: ignore[attr-defined]
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    wire = logging.getLogger("botocore.parsers")
    keep, level = Keep(logging.DEBUG), wire.level
    wire.addHandler(keep)
    wire.setLevel(logging.DEBUG)
    try:
        assert secrets.read_secret("wire", provider()) == TOKEN
        boto3.client("secretsmanager").get_secret_value(SecretId="wire")  # any later call in the process too
    finally:
        wire.removeHandler(keep)
        wire.setLevel(level)
    assert any("redacted by prhub.cloud.redaction" in m for m in seen), "the body was logged and blanked"
    assert not any(TOKEN in m for m in seen)
