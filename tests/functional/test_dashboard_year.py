"""The dashboard's 52 weeks from one run: the report step lists, once, the weeks of the year no stored record covers
(verl's export as the run's source, in-memory stack).

Each run is made as the flow makes it: the listing and the history from the source as PlanFunction takes them,
engine scores, then the report service's publishing steps (report.json, pages.publish_facts with the run's history
and config, the indexes). PR pages are not rendered: they do not touch the record.
"""
from __future__ import annotations

import json
from collections import Counter
from datetime import date, timedelta
from typing import Any

import pytest
from prhub.core.config import RepoConfig, WatchList
from prhub.core.errors import SourceError
from prhub.core.period import Period, zone
from prhub.engine.scoring import modules_for, score_pull
from prhub.flow import pages
from prhub.model import narrator
from prhub.report import compose
from prhub.site import dashboard
from prhub.site import publish as site
from prhub.sources import scope
from prhub.sources.source import JsonlSource

from bench.render_week import DATA
from tests.fakes.memory import MemoryStack, memory_stack

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is absent (real data lives outside the repo)")

REPO, TZ, SPEC = "verl-project/verl", "Asia/Shanghai", f"jsonl:{DATA}"
WEEK, NEXT = ("2026-05-04", "2026-05-10"), ("2026-05-11", "2026-05-17")
SCORER: Any = {"kind": "heuristic", "model": None, "prompt_version": "test"}


class Recorded:
    """The export as the run's source, remembering each span its `record` is asked for; refusing them while
    `failing` (as GitHub does with a 502 that outlasts its retries)."""

    def __init__(self, source: JsonlSource) -> None:
        self.source = source
        self.spans: list[tuple[str, str]] = []
        self.failing = False

    def record(self, repo: str, span: Period, tag: Any) -> Any:
        self.spans.append((span.since.isoformat(), span.until.isoformat()))
        if self.failing:
            raise SourceError("GitHub answered 502 for repos/verl-project/verl search (after 4 tries)")
        return self.source.record(repo, span, tag)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.source, name)


@pytest.fixture(scope="module")
def export() -> JsonlSource:
    return JsonlSource.from_path(str(DATA))


@pytest.fixture
def source(export: JsonlSource) -> Recorded:
    return Recorded(export)


@pytest.fixture
def stack(source: Recorded) -> MemoryStack:
    watchlist = WatchList.parse(json.dumps({"repos": [{"repo": REPO, "language": "zh", "source": SPEC}]}))
    return memory_stack(watchlist, sources=lambda spec: source)  # type: ignore[arg-type, return-value]


class Run:
    """One run of verl over `days`, as the flow makes it; `publish` is the report service's part (repeated by a
    revision, or a run in another language, of the same period)."""

    def __init__(self, stack: MemoryStack, source: Recorded, days: tuple[str, str]) -> None:
        self.stack, self.config = stack, RepoConfig(REPO, tz=TZ, source=SPEC, scorer="heuristic")
        config, period = self.config, Period.parse(*days, TZ)
        refs = source.list_merged(REPO, period)
        self.history = scope.history(source, config, period, {r.author for r in refs},  # type: ignore[arg-type]
                                     lambda pr: modules_for(pr, config))
        self.scored = [score_pull(source.get(REPO, r), config) for r in refs]
        self.report = compose.report(self.scored, [], period, config, self.history, "2026-05-18T00:00:00Z",
                                     SCORER, narrator=lambda draft: narrator.model_narrative(draft, config))
        self.slug = period.slug
        self.publish()

    def publish(self) -> None:
        bucket = self.stack.bucket
        site.publish_report(bucket, self.report, {"report.json": json.dumps(self.report).encode()}, "zh")
        pages.publish_facts(self.report, self.scored, self.stack.deps, self.history, self.config)
        site.rebuild_indexes(bucket, REPO, "", "zh")
        pages.queue_pages(self.report, "zh", self.scored, self.stack.deps)

    @property
    def record(self) -> dict[str, Any]:
        return site.pull_records(self.stack.bucket, REPO)[self.slug]


def year(stack: MemoryStack) -> dict[str, Any]:
    board = dashboard.build(site.published(stack.bucket, REPO), "zh", site.pull_records(stack.bucket, REPO))
    assert board is not None
    return board["windows"][1]


def merged_per_week(export: JsonlSource, mondays: list[str]) -> list[int]:
    """verl's PRs merged in each week, as the export counts them (merge days in the repository's zone)."""
    first, last = date.fromisoformat(mondays[0]), date.fromisoformat(mondays[-1]) + timedelta(days=6)
    weeks = Counter(ref.merged_at.astimezone(zone(TZ)).date().isocalendar()[:2]
                    for ref in export.list_merged(REPO, Period(first, last, TZ)))
    return [weeks[date.fromisoformat(m).isocalendar()[:2]] for m in mondays]


def test_one_run_knows_every_week_of_the_year_and_the_next_lists_nothing_already_covered(
        stack: MemoryStack, source: Recorded, export: JsonlSource) -> None:
    # GIVEN a state without any run, WHEN verl's week of 05-04 is reported
    first = Run(stack, source, WEEK)
    # THEN the report step listed the 47 weeks before the run's own five, once
    assert source.spans == [("2025-05-12", "2026-04-05")]
    year_covers = {"since": "2025-05-12", "until": "2026-05-10", "tz": TZ}
    assert first.record["covers"] == year_covers
    # AND the 52-week charts hatch no week: each counts what the export holds
    window = year(stack)
    assert window["have"] == 52 and all(r["covered"] for r in window["rows"])
    merged = next(c for c in window["charts"] if c.key == "merged-52")
    assert merged.known == [True] * 52
    assert [r["merged"] for r in window["rows"]] == merged_per_week(export, [r["week"] for r in window["rows"]])
    assert sum(r["merged"] for r in window["rows"]) > 1000  # a busy year, more than one search could list
    breaking = next(c for c in window["charts"] if c.key == "breaking-52")
    assert breaking.known == [True] * 52 and sum(breaking.series[0][2]) > 0  # "[BREAKING]" titles of the year
    assert len(window["module_rows"]) == dashboard.TOP_MODULES
    page = stack.bucket.get(f"{REPO}/index.html")
    assert page is not None and "52 周中已知 52 周" in page.decode()

    # WHEN the week is published again (a revision; a run in another language writes the same pulls.json), and the
    # next week is reported
    first.publish()
    second = Run(stack, source, NEXT)
    # THEN neither lists anything: every day of their windows is recorded, and the week keeps the year it listed
    assert source.spans == [("2025-05-12", "2026-04-05")]
    assert first.record["covers"] == year_covers and len(first.record["earlier"]) > 1000
    assert second.record["covers"] == {"since": "2026-04-13", "until": "2026-05-17", "tz": TZ}
    window = year(stack)
    assert window["have"] == 52 and window["rows"][-1]["week"] == "2026-05-11"
    assert window["rows"][-1]["merged"] == merged_per_week(export, ["2026-05-11"])[0]


def test_a_source_that_fails_the_listing_leaves_the_report_and_the_years_weeks_as_no_data(
        stack: MemoryStack, source: Recorded, caplog: pytest.LogCaptureFixture) -> None:
    # GIVEN a source that refuses the year's listing
    source.failing = True
    # WHEN the week is reported
    week = Run(stack, source, WEEK)
    # THEN the report is out, with the run's own five weeks; the others stay "no data", and the operator is told
    assert stack.bucket.get(f"{REPO}/reports/2026-05-04-to-2026-05-10/report.json") is not None
    assert week.record["covers"] == {"since": "2026-04-06", "until": "2026-05-10", "tz": TZ}
    assert year(stack)["have"] == 5
    assert [r.levelname for r in caplog.records if r.message == "the dashboard's weeks could not be listed"] == [
        "WARNING"]
    # AND the period's next publication (a revision, another language), the source back, lists them
    source.failing = False
    week.publish()
    assert week.record["covers"]["since"] == "2025-05-12"
    assert source.spans == [("2025-05-12", "2026-04-05")] * 2 and year(stack)["have"] == 52
