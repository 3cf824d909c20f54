"""The weeks before through GitHub's GraphQL history (issue 26): the comparison periods' PRs come with their opening
and first reviews, so a week's review timing is compared with the weeks before, at 1 point a history page; their
review text is not read there (promises are followed across weeks where the history's source has it: an export)."""
from __future__ import annotations

from prhub.core.period import format_timestamp
from prhub.flow.plan import _history

from tests.fakes import FakeGitHub
from tests.functional.test_github_graphql import source_for
from tests.functional.test_reviews_across_weeks import WEEK2, week_one, week_two
from tests.unit.engine_support import CONFIG


def test_graphql_history_entries_carry_opening_and_first_review() -> None:
    earlier, now = week_one(), week_two()
    with FakeGitHub([*earlier, *now], CONFIG.repo) as gh:
        source = source_for(gh)
        history = _history(source, CONFIG, WEEK2, {p.author for p in now})
        points = gh.points_spent
    entries = {int(e["number"]): e for e in history.earlier}
    assert sorted(entries) == [1, 2, 3]
    for pr in earlier:
        first = min(r.submitted_at for r in pr.reviews if r.reviewer != pr.author)
        assert entries[pr.number]["created_at"] == format_timestamp(pr.created_at)
        assert entries[pr.number]["first_review_at"] == format_timestamp(first)
        assert "promises" not in entries[pr.number]  # no review text in GraphQL's history listing
    # One query: the four comparison weeks' slices (1 + 100 labels + 100 files + 100 reviews requests each) and the
    # first merges (1 each): (4 x 301 + 3) / 100 = 12 points, the reviews' 4 of them.
    assert points <= 12 and gh.counts["graphql"] == 1
