"""Judgements as input (issue 27): one checked shape, whatever the source."""
from __future__ import annotations

import pytest
from prhub.core.errors import InputError
from prhub.core.judgements import Judgement, judgement


def test_a_judgement_round_trips() -> None:
    j = judgement("o/r", 12, "minor", "correction", "2026-05-04T10:00:00Z")
    assert Judgement.from_dict(j.to_dict()) == j
    assert "grade" not in j.to_dict()  # an ungraded judgement is stored as it was before grades
    graded = judgement("o/r", 12, "key", "changelog", grade=3)
    assert Judgement.from_dict(graded.to_dict()) == graded and graded.to_dict()["grade"] == 3


@pytest.mark.parametrize("grade", [-1, 10, 2.5, "2", True])
def test_a_bad_grade_is_refused(grade: object) -> None:
    with pytest.raises(InputError, match="'grade' must be a whole number 0-9"):
        judgement("o/r", 12, "key", "changelog", grade=grade)
    with pytest.raises(InputError, match="'grade' must be a whole number 0-9"):
        Judgement.from_dict({"repo": "o/r", "pr": 12, "verdict": "key", "source": "changelog", "grade": grade})


@pytest.mark.parametrize(("pr", "verdict", "source", "says"), [
    ("12", "key", "file", "'pr' must be a PR number"), (True, "key", "file", "'pr' must be a PR number"),
    (0, "key", "file", "'pr' must be a PR number"), (12, "important", "file", "'verdict' must be key or minor"),
    (12, "key", "email", "unknown source"),
])
def test_bad_judgements_are_refused_with_what_is_wrong(pr: object, verdict: object, source: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        judgement("o/r", pr, verdict, source)
