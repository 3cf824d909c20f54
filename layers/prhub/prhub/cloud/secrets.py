"""Secrets by name: Secrets Manager through Powertools parameters (cached), or the usual env var locally.

The deployed stack sets GITHUB_TOKEN_SECRET / LLM_API_KEY_SECRET to secret
*names*; the values are fetched at run time and cached for a few minutes, so a
warm Lambda does not call Secrets Manager per PR and a rotated secret is picked
up without a deploy. The ecosystem's own variables GITHUB_TOKEN and OPENAI_API_KEY,
when set (the CLI, tests, GitHub Actions; never in Lambda), are used as they are.

Values never appear in errors or logs: messages name the secret, not its content.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from prhub.cloud import aws, redaction
from prhub.core.errors import PrhubError

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

DEFAULT_MAX_AGE = 300  # seconds a fetched secret is reused before Secrets Manager is asked again

# (env var naming the secret in the stack, conventional env var holding the value locally)
GITHUB = ("GITHUB_TOKEN_SECRET", "GITHUB_TOKEN")
LLM = ("LLM_API_KEY_SECRET", "OPENAI_API_KEY")

# Keys looked for when a secret is stored as a JSON object (the console's key/value form).
_JSON_KEYS = ("token", "api_key", "apiKey", "key", "value", "secret")


class SecretError(PrhubError):
    """A named secret could not be read; the message names the secret, never a value. `missing`: Secrets Manager
    says no secret has that name (not a denial or an outage), which stays so until someone creates it."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


class Secrets:
    """Secrets Manager by name, through one Powertools SecretsProvider made on first use over `client`
    (a boto3 client, prhub.cloud.aws.LazyClient in the stack): its cache outlives invocations of a warm Lambda."""

    def __init__(self, client: Any, max_age: int = DEFAULT_MAX_AGE) -> None:
        self.client = client
        self.max_age = max_age
        self._provider: SecretsProvider | None = None
        self._lock = threading.Lock()

    @property
    def provider(self) -> SecretsProvider:
        with self._lock:
            if self._provider is None:
                # On first use: the score worker of an export run reads no secret, and its cold start skips this.
                from aws_lambda_powertools.utilities.parameters import SecretsProvider

                self._provider = SecretsProvider(boto3_client=self.client)
            return self._provider

    def read(self, name: str) -> str:
        return read_secret(name, self.provider, self.max_age)


def read_secret(name: str, provider: SecretsProvider, max_age: int = DEFAULT_MAX_AGE) -> str:
    """The secret `name`'s value as text, read through `provider` (its cache, its client); a JSON object secret
    gives its token-like field."""
    # Powertools' parameters load with the first secret read (Secrets.provider): a worker that reads none never pays.
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError

    redaction.install()  # botocore logs GetSecretValue's body at DEBUG (prhub.cloud.redaction blanks it)
    try:
        raw = provider.get(name, max_age=max_age)
    except GetParameterError as exc:
        # The cause is the AWS error (not found, access denied): safe to show, it holds no value.
        reason = _reason(exc)
        raise SecretError(f"secret {name!r} could not be read: {reason}",
                          missing=reason == "ResourceNotFoundException") from exc
    value = _extract(raw)
    if not value:
        raise SecretError(f"secret {name!r} is empty or has no token field ({', '.join(_JSON_KEYS)})")
    redaction.known(value)
    return value


def credential(
    kind: tuple[str, str],
    secret_name: str | None = None,
    *,
    env: Mapping[str, str],
    secrets: Secrets | None = None,
    provider: SecretsProvider | None = None,
    max_age: int = DEFAULT_MAX_AGE,
) -> str | None:
    """A credential: the secret `secret_name` if given; else the plain env var (GITHUB_TOKEN /
    OPENAI_API_KEY) if set; else the secret the stack names (GITHUB_TOKEN_SECRET / LLM_API_KEY_SECRET).

    The plain variable beats a configured name so a local run on the stack's environment (which
    names secrets) uses the caller's own token, as the model's key does (prhub.model.scorers); Lambda never
    sets it. `kind` is GITHUB or LLM. Returns None when nothing is set (anonymous GitHub, heuristic scoring); a named
    secret that cannot be read is an error, not None, so a broken deployment does not silently degrade.
    """
    name_var, value_var = kind
    if secrets is None and provider is None:
        # Nothing handed in (the CLI's GitHub source): a reader of its own for this call, its cache gone with it.
        secrets = Secrets(aws.LazyClient("secretsmanager"), max_age)

    def read(name: str) -> str:
        if secrets is not None:
            return secrets.read(name)
        assert provider is not None  # one of the two, by the test above
        return read_secret(name, provider, max_age)

    if secret_name:
        return read(secret_name)
    if env.get(value_var):
        redaction.known(env[value_var])
        return env[value_var]
    name = env.get(name_var, "")
    return read(name) if name else None


def github_token(secret_name: str | None = None, **kwargs: Any) -> str | None:
    """The GitHub token: GITHUB_TOKEN_SECRET names it in the stack; GITHUB_TOKEN locally."""
    return credential(GITHUB, secret_name, **kwargs)


def llm_api_key(secret_name: str | None = None, **kwargs: Any) -> str | None:
    """The LLM API key: LLM_API_KEY_SECRET names it in the stack; OPENAI_API_KEY locally."""
    return credential(LLM, secret_name, **kwargs)


def _extract(raw: object) -> str:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return ""
    text = raw.strip()
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(doc, dict):
            for key in _JSON_KEYS:
                if isinstance(doc.get(key), str):
                    return doc[key].strip()
            strings = [v for v in doc.values() if isinstance(v, str)]
            return strings[0].strip() if len(strings) == 1 else ""
    return text


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    code = getattr(cause, "response", {}).get("Error", {}).get("Code") if cause is not None else None
    return code or type(cause or exc).__name__
