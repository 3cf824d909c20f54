"""A pages message builds the periods' PR facts once while their pulls.json documents stay the same
(prhub.flow.pages._facts_of): Bucket.get_json hands an unchanged document back as the same object."""
from __future__ import annotations

from prhub.flow import pages


def _doc(*numbers: int, path: str = "a.py") -> dict:
    return {"prs": {str(n): {"files": [path], "merged_at": f"2026-05-0{n % 9 + 1}T00:00:00Z", "head": f"h{n}"}
                    for n in numbers}}


def test_the_same_documents_give_the_facts_built_before_and_a_new_document_builds_them_again() -> None:
    week, year = _doc(1, 2), _doc(1, 2, 3)
    first = pages._facts_of({"w": week, "y": year})
    # the same documents, read again by the next message: not built again
    assert pages._facts_of({"y": year, "w": week}) is first
    assert first.listing(1) == {"w", "y"} and first.heads[3] == "h3"
    # a period published since (its pulls.json a new document): built anew, with it
    later = pages._facts_of({"w": week, "y": year, "m": _doc(3, 4, path="b.py")})
    assert later is not first and later.listing(3) == {"y", "m"} and later.heads[4] == "h4"
    # a rewritten document with the same content is a new object: built anew, never a stale answer
    assert pages._facts_of({"w": _doc(1, 2), "y": year}) is not first
