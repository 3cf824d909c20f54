"""Errors that carry a message meant for the person who caused them."""
from __future__ import annotations


class PrhubError(Exception):
    """Base class: the message is shown to the user as is."""


class InputError(PrhubError):
    """The request itself is wrong (bad repo name, dates, event shape). Nothing was written."""


class EventRefused(InputError):
    """A schedule event the clock contradicts (stale, in the future, naming a week not yet over)."""


class SourceError(PrhubError):
    """The PR source cannot answer (repository not found, bad token, corrupt file)."""


class SourceUnavailable(SourceError):
    """The source cannot answer now (GitHub's 5xx, timeouts, network faults after the client's retries): asking
    again later may succeed, unlike a SourceError's bad token or missing repository."""


class RetryLater(PrhubError):
    """A dependency asked us to come back later (e.g. GitHub's primary rate limit).

    `retry_after` is in seconds; the score worker hands its message back with a
    visibility timeout reaching past it instead of burning an SQS receive.
    """

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class HandBack(RetryLater):
    """The PR's model call cannot be made now (the model's rate limit outlasted our retries, too little of the
    invocation is left): its message goes back to the queue, counted, so that after a few hand-backs the engine
    scores it instead of the PR circling for ever.

    `spent` is what the PR's calls cost before the hand-back (tokens in, out: an answer whose repair was then rate
    limited): the run paid them, so they travel with the message to the PR's result."""

    def __init__(self, message: str, retry_after: float, spent: tuple[int, int] = (0, 0)) -> None:
        super().__init__(message, retry_after)
        self.spent = spent

