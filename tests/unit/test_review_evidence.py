"""The engine's sentences on review findings cite the review comment they stand on (issue 26): report.json's
evidence names the field (`review`), quotes the comment's point and links the comment, like any other fact."""
from __future__ import annotations

from prhub.model.factguard import check_narrative

from tests.unit.test_reviews import URL, analysed, reviewed_week


def notes_of(report: dict, label: str) -> list[dict]:
    return [n for n in report["risk_notes"] if n["text"].lower().startswith(label)]


def test_an_unresolved_threads_risk_note_cites_the_comment() -> None:
    report = analysed(reviewed_week())
    (note,) = notes_of(report, "review threads unresolved")
    review = [e for e in note["evidence"] if e["field"] == "review"]
    assert review == [{"pr": 1, "field": "review", "fact": "Padding is not masked in the off-policy metric.",
                       "url": f"{URL}/1#discussion_r7"}]
    # The comment is the PR's own: its entry's review facts hold the quoted point and the link
    entry = next(p for p in report["prs"] if p["number"] == 1)
    assert any(t["text"] == review[0]["fact"] and t["url"] == review[0]["url"] for t in entry["review"]["threads"])
    assert check_narrative(report) == []


def test_a_follow_up_risk_note_cites_the_promise() -> None:
    report = analysed(reviewed_week())
    (note,) = notes_of(report, "follow-ups promised")
    (review,) = [e for e in note["evidence"] if e["field"] == "review"]
    promise = next(f for f in report["reviews"]["follow_ups"] if f["done_by"] is None)
    assert review == {"pr": promise["pr"], "field": "review", "fact": promise["text"], "url": promise["url"]}
    assert review["url"].startswith(f"{URL}/{promise['pr']}#")
    assert check_narrative(report) == []


def test_the_summary_cites_each_open_threads_comment() -> None:
    report = analysed(reviewed_week())
    cited = [e for e in report["summary_evidence"] if e["field"] == "review"]
    assert cited == [{"pr": t["pr"], "field": "review", "fact": t["text"], "url": t["url"]}
                     for t in report["reviews"]["unresolved"]]


def test_a_forged_review_citation_is_caught() -> None:
    report = analysed(reviewed_week())
    (note,) = notes_of(report, "review threads unresolved")
    forged = {**note, "evidence": [{"pr": 1, "field": "review", "fact": "the reviewer approved the masking"}]}
    errors = check_narrative({**report, "risk_notes": [forged]})
    assert any("does not say it" in e for e in errors)
