"""A run's results composed into its report (prhub.report.results): pure, reading the run and its results through
Protocols, so a plain record stands in for the store's."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.judgements import judgement
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.report.results import Composition, compose, corrected_since, pending, told

from tests.unit.engine_support import CONFIG, make_pr

REPO = "acme/rocket"
PERIOD = Period.parse("2026-06-01", "2026-06-07", "UTC")


def ref(n: int) -> PullRef:
    return PullRef(n, f"fix: change {n}", "dev", datetime(2026, 6, 2, tzinfo=UTC), f"https://github.com/{REPO}/pull/{n}")


@dataclass
class RunRecord:
    listing: list[PullRef]
    period: Period = PERIOD
    config: RepoConfig = field(default_factory=lambda: RepoConfig(REPO, language="en"))
    history: History = field(default_factory=lambda: History.of([], PERIOD))
    notes: list[str] = field(default_factory=list)
    waiting_until: int = 0
    reported_at: str | None = None
    published_pending: list[int] = field(default_factory=list)
    learned: dict[str, Any] | None = None


@dataclass
class Result:
    number: int
    status: str
    scored: ScoredPR | None
    reason: str = ""
    cached: bool = False


def make_scored(number: int) -> ScoredPR:
    return score_pull(make_pr(f"fix: change {number}", number=number, merged_at="2026-06-02T04:00:00Z"), CONFIG)


def marked(pr: ScoredPR) -> ScoredPR:
    return replace(pr, reasons=[*pr.reasons, "told as cached"])


def how(revision: int = 1, **kwargs: Any) -> Composition:
    return Composition(revision, "2026-06-08T00:00:00Z", 0, None, "v1", None, kwargs.get("judgements", []),
                       lambda draft: {}, marked)  # type: ignore[arg-type, return-value]


def test_told_marks_only_the_results_the_cache_gave_and_leaves_out_failures() -> None:
    one, two = make_scored(1), make_scored(2)
    results = [Result(1, "scored", one), Result(2, "scored", two, cached=True), Result(3, "failed", None, "boom")]
    assert told(results, marked) == [one, marked(two)]


def test_pending_is_every_listed_pr_with_neither_a_result_nor_a_failure() -> None:
    run = RunRecord([ref(4), ref(1), ref(3), ref(2)])
    results = [Result(1, "scored", make_scored(1)), Result(3, "failed", None, "boom")]
    assert pending(run, results) == [2, 4]


def test_a_revision_names_the_prs_corrected_after_the_last_publication_only() -> None:
    run = RunRecord([ref(1), ref(2)], reported_at="2026-06-08T00:00:00Z")
    said = [judgement(REPO, 1, "key", "correction", "2026-06-09T00:00:00Z"),
            judgement(REPO, 2, "key", "correction", "2026-06-07T00:00:00Z"),  # before the publication
            judgement(REPO, 9, "key", "correction", "2026-06-09T00:00:00Z"),  # not the run's
            judgement(REPO, 2, "minor", "watchlist")]
    assert corrected_since(run, said) == [1]
    assert corrected_since(replace(run, reported_at=None), said) == []


def test_a_correction_in_the_publications_own_second_is_named() -> None:
    # timestamps are to the second: `prhub judge` right after the run that published (tests/e2e/test_judge_again.py
    # failed in one CI run when both fell in one second: the revision said nothing was judged)
    run = RunRecord([ref(1)], reported_at="2026-06-08T00:00:00Z")
    assert corrected_since(run, [judgement(REPO, 1, "minor", "correction", "2026-06-08T00:00:00Z")]) == [1]


def test_compose_reads_nothing_but_its_arguments() -> None:
    run = RunRecord([ref(1), ref(2)], learned={"weights": {}})
    results = [Result(1, "scored", make_scored(1))]
    first, again = compose(run, results, how()), compose(run, results, how())
    assert first == again
    assert [u["number"] for u in first["unscored"]] == [2] and first["learning"] == {"weights": {}}
    assert first["generated_at"] == "2026-06-08T00:00:00Z" and "revision" not in first
