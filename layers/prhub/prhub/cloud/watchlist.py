"""The watch list stored in an SSM parameter (PRHUB_CONFIG_PARAMETER), read through Powertools parameters: the
adapter behind Deps.watchlist; what the text means is prhub.core.config.WatchList's."""
from __future__ import annotations

from typing import Any

from prhub.cloud import redaction
from prhub.core.config import WatchList
from prhub.core.errors import InputError

WATCHLIST_MAX_AGE = 300  # seconds: an edited watch list reaches warm Lambdas within minutes


class WatchListParameter:
    """The watch list stored in an SSM parameter (PRHUB_CONFIG_PARAMETER), read through Powertools parameters.

    Made once per process: the provider's cache outlives invocations of a warm Lambda. `ssm` is a boto3
    SSM client (prhub.cloud.aws.LazyClient in the stack), or `provider` an SSMProvider.
    """

    def __init__(self, name: str, ssm: Any = None, provider: Any = None) -> None:
        self.name = name
        self._ssm = ssm
        self._provider = provider

    def __call__(self) -> WatchList:
        # Powertools parameters load with the first read: the score worker, which never reads it, skips them.
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
        watchlist = WatchList.parse(str(text))
        redaction.known_channels(watchlist.channels())  # a literal URL or secret is the logs' to hide from now on
        return watchlist
