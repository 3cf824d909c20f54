"""The export format's optional conversation fields (DESIGN.md): read, written back, and absent when unknown."""
from __future__ import annotations

from prhub.core.models import NO_AUTHOR, PullRequest

ROW = {
    "number": 7, "title": "fix: x", "body": "", "merged_at": "2026-05-04T10:00:00Z", "user": {"login": "amy"},
    "created_at": "2026-05-01T09:00:00Z",
    "reviews": [{"author": "bob", "state": "APPROVED", "body": "lgtm", "submitted_at": "2026-05-02T09:00:00Z"},
                {"reviewer": "cat", "state": "COMMENTED"}],
    "review_threads": [{"path": "a.py", "line": 3, "is_resolved": False, "is_outdated": True,
                        "comments": [{"author": "bob", "body": "mask the padding", "created_at": "2026-05-02T08:00:00Z",
                                      "url": "https://github.com/o/r/pull/7#discussion_r1"}]},
                       {"path": "b.py", "comments": [{"author": None, "body": "?"}]}],
    "comments": [{"author": "dan", "body": "will fix in a follow-up PR", "created_at": "2026-05-03T08:00:00Z"}],
}


def test_the_conversation_is_read_and_written_back_unchanged() -> None:
    pr = PullRequest.from_export(ROW)
    assert pr.created_at is not None and pr.created_at.day == 1
    assert [(r.reviewer, r.state, r.body) for r in pr.reviews] == [("bob", "APPROVED", "lgtm"),
                                                                   ("cat", "COMMENTED", "")]
    first, second = pr.review_threads
    assert (first.path, first.line, first.is_resolved, first.is_outdated) == ("a.py", 3, False, True)
    assert first.comments[0].url.endswith("discussion_r1")
    assert second.is_resolved is None and second.comments[0].author == NO_AUTHOR  # unknown, as REST gives it
    assert pr.comments[0].body == "will fix in a follow-up PR"
    again = PullRequest.from_export(pr.to_export())
    assert again.reviews == pr.reviews and again.review_threads == pr.review_threads
    assert again.comments == pr.comments and again.created_at == pr.created_at


def test_an_export_without_the_conversation_writes_none_of_its_fields() -> None:
    row = PullRequest.from_export({k: v for k, v in ROW.items()
                                   if k not in ("created_at", "reviews", "review_threads", "comments")}).to_export()
    assert not {"created_at", "reviews", "review_threads", "comments"} & set(row)
