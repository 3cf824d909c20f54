"""Themes on the real verl export (issue 45): PRs group by subject, not by one shared file, one title word or a
passing mention, and a theme is named by the part of the repository its files are in.

The data is read from <repo>/../shared/data/verl-project-verl/pulls.jsonl at run time; absent, the tests skip.
Weeks are Monday–Sunday in Asia/Shanghai, as verl reports them.
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine.analysis import analyse_period
from prhub.engine.scoring import score_pull

from bench.calibrate import load

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
CONFIG = RepoConfig(repo="verl-project/verl", tz="Asia/Shanghai", language="en")
SCORER = {"kind": "heuristic", "model": None, "prompt_version": "engine-test"}

pytestmark = pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is not here")


@pytest.fixture(scope="module")
def clusters_of():
    prs = load(DATA)
    history = [p.ref.to_dict() for p in prs]
    cache: dict[tuple[str, str], list[dict]] = {}

    def clusters(since: str, until: str) -> list[dict]:
        if (since, until) not in cache:
            period = Period(date.fromisoformat(since), date.fromisoformat(until), CONFIG.tz)
            scored = [score_pull(p, CONFIG) for p in prs if period.start_utc <= p.merged_at < period.end_utc]
            report = analyse_period(scored, [], period, CONFIG, History.of(history, period), "2026-12-01T00:00:00Z",
                                    SCORER)
            cache[(since, until)] = report["clusters"]
        return cache[(since, until)]

    return clusters


def together(clusters: list[dict], *numbers: int) -> bool:
    return any(set(numbers) <= set(c["prs"]) for c in clusters)


def test_a_doc_note_naming_a_fix_in_passing_is_not_its_theme(clusters_of):
    # #7346 documents a Megatron commit MTP needs; it names #7300 (a REINFORCE++ fix) only as the source of an
    # unrelated pre-commit failure on main.
    assert not together(clusters_of("2026-08-10", "2026-08-16"), 7300, 7346)


def test_one_shared_file_and_a_common_word_do_not_make_a_theme(clusters_of):
    # #6724 renames a checkpoint-engine argument, which touches one line of the separate async trainer #6790 adds.
    assert not together(clusters_of("2026-06-15", "2026-06-21"), 6724, 6790)


def test_a_long_range_does_not_chain_unrelated_rollout_work(clusters_of):
    # vLLM SPMD's retirement (#4411) and SGLang prefill-decode disaggregation (#6117) meet only through a chain:
    # a fix naming #4411, a class it mentions, the vLLM PD work naming #6117. From #4411's week to the Sunday
    # before 2026-07-27 (a week held out of tuning) the two were one "theme".
    assert not together(clusters_of("2025-12-01", "2026-07-26"), 4411, 6117)


def test_a_theme_is_named_by_where_its_files_are_not_by_a_title_tag(clusters_of):
    # Memory snapshots, tagged [tool], change verl/utils/memory_utils.py and verl/utils/profiler/profile.py.
    theme = next(c for c in clusters_of("2026-05-04", "2026-05-10") if together([c], 6216, 6248))
    assert theme["title"].startswith("utils: ")


def test_real_groups_stay_together(clusters_of):
    week = clusters_of("2026-05-04", "2026-05-10")
    assert together(week, 6226, 6258, 6265)  # a fix, its revert and the re-fix
    assert together(week, 6189, 6300)  # function tools, then tools initialised in the agent loop worker


CARGO = DATA.parents[1] / "rust-lang-cargo" / "pulls.jsonl"


@pytest.mark.skipif(not CARGO.exists(), reason=f"{CARGO} is not here")
def test_a_weeks_groups_do_not_change_with_the_report_language():
    # cargo 2025-12-01: #16322 joined #16309 and #16331 in en only, by a flag its summary named (a zh summary is the
    # translated title); whether `--target` is their subject is the grouping's question, the same in both
    from bench.zh_share import build, export_rows

    rows = export_rows("rust-lang/cargo")
    groups = {lang: [c["prs"] for c in build(rows, "2025-12-01", "2025-12-07", "rust-lang/cargo", "UTC",
                                             lang)["clusters"]] for lang in ("zh", "en")}
    assert groups["zh"] == groups["en"] and groups["zh"]
