"""Judgements as input (issue 27): one checked shape, whatever the source."""
from __future__ import annotations

import pytest
from prhub.core.errors import InputError
from prhub.core.judgements import Judgement, judgement


def test_a_judgement_round_trips() -> None:
    j = judgement("o/r", 12, "minor", "correction", "2026-05-04T10:00:00Z")
    assert Judgement.from_dict(j.to_dict()) == j


@pytest.mark.parametrize(("pr", "verdict", "source", "says"), [
    ("12", "key", "file", "'pr' must be a PR number"), (True, "key", "file", "'pr' must be a PR number"),
    (0, "key", "file", "'pr' must be a PR number"), (12, "important", "file", "'verdict' must be key or minor"),
    (12, "key", "email", "unknown source"),
])
def test_bad_judgements_are_refused_with_what_is_wrong(pr: object, verdict: object, source: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        judgement("o/r", pr, verdict, source)
