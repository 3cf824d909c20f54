"""The engine against the judged panels (bench/panel.py) and over the whole verl export.

The data is read from <repo>/../shared/data/<repository>/pulls.jsonl at run time; absent, the tests skip.
verl's panel is checked on the whole panel, on its nine held-out weeks pooled, and on the three judged before
engine-10 and measured once on it unchanged (docs/calibration.md); cargo's and trl's, judged and committed before
the engine was tuned for them, on their held-out weeks.
"""
from __future__ import annotations

import statistics
from collections import Counter
from datetime import timedelta
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from prhub.core.config import RepoConfig
from prhub.core.period import Period
from prhub.engine.changes import file_kind
from prhub.engine.scoring import score_pull

from bench.calibrate import banned_points, load, panel_figures, repo_config, size_only
from bench.panel import PANEL, REPOS

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
DATA = SHARED / "verl-project-verl" / "pulls.jsonl"

pytestmark = pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is not here")


@pytest.fixture(scope="module")
def prs():
    return load(DATA)


@pytest.fixture(scope="module")
def scored(prs):
    config = RepoConfig(repo="verl-project/verl", tz="Asia/Shanghai", language="zh")
    return {p.number: score_pull(p, config) for p in prs}


def test_the_panel_was_judged_on_real_prs_with_reasons(prs):
    numbers = {p.number for p in prs}
    assert len(PANEL) >= 8 and any(w.held_out for w in PANEL) and not all(w.held_out for w in PANEL)
    for week in PANEL:
        assert week.key and set(week.key) <= numbers
        assert all(grade in (1, 2, 3) and reason.strip() for grade, reason in week.key.values())


def test_the_engine_ranks_the_panel_better_than_size_alone(prs, scored):
    engine = panel_figures(list(PANEL), prs, lambda p: scored[p.number].importance)
    size = panel_figures(list(PANEL), prs, size_only)
    assert engine.recall > size.recall and engine.spearman > size.spearman
    # Held out: the first round's three weeks and the three judged before each of engine-9 and engine-10
    # (docs/calibration.md), pooled; and the engine-10 round alone, the weeks no round of tuning has seen.
    held = [w for w in PANEL if w.held_out]
    assert len(held) >= 9 and sum(w.judged == "engine-10" for w in held) >= 3
    for weeks in (held, [w for w in held if w.judged == "engine-10"]):
        on_held = panel_figures(weeks, prs, lambda p: scored[p.number].importance)
        size_held = panel_figures(weeks, prs, size_only)
        assert on_held.recall > size_held.recall and on_held.spearman > size_held.spearman, (on_held, size_held)


def test_a_weeks_milestones_reach_the_top_of_the_scale_and_trivia_stay_low(prs, scored):
    # The first round's weeks: on the weeks held out for engine-9, ReMax (#234, a new algorithm the title names by a
    # name no rule knows, 66 library lines) scores 6.3; recorded in docs/calibration.md, not tuned on.
    tops = []
    for week in (w for w in PANEL if not w.judged):
        milestones = [n for n, (grade, _) in week.key.items() if grade == 3]
        tops.append(max(scored[n].importance for n in week.key))
        for number in milestones:
            assert scored[number].importance >= 6.5, (week.monday, number, scored[number].reasons)
    assert statistics.median(tops) >= 8.0
    low = {"docs", "ci", "test"}
    only_low = [scored[p.number] for p in prs
                if p.files and {file_kind(f.filename, RepoConfig("o/r").test_paths) for f in p.files} <= low]
    assert len(only_low) > 100 and max(s.importance for s in only_low) <= 3.0


def test_every_importance_and_insight_says_why(scored):
    for entry in scored.values():
        assert len(entry.reasons) >= 2 and entry.reasons[-1].startswith("洞察 ")


def test_no_key_point_of_the_export_is_template_credit_link_or_image(scored):
    banned, total, examples = banned_points(list(scored.values()))
    assert total > 1500
    assert banned == 0, examples


def test_the_zh_lines_are_chinese_and_not_one_template(scored):
    lines = [s.summary for s in scored.values()]
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in line) for line in lines) >= 0.95 * len(lines)
    shapes = Counter(line.split(" ", 1)[0][:2] + ("：" in line) * "：" + line[-3:] for line in lines)
    assert shapes.most_common(1)[0][1] <= 0.1 * len(lines)
    assert len(set(lines)) >= 0.97 * len(lines)


@cache  # once per process: the module's fixture and a test of its own score cargo's whole export
def repo_export(repo: str):
    panel, folder, tz = REPOS[repo]
    path = SHARED / folder / "pulls.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not here")
    prs = load(path)
    config = repo_config(repo, tz)
    return panel, tz, prs, {p.number: score_pull(p, config) for p in prs}


@pytest.fixture(scope="module", params=["rust-lang/cargo", "huggingface/trl"])
def other_repo(request):
    return (request.param, *repo_export(request.param))


def test_each_repositorys_panel_was_judged_with_weeks_held_out(other_repo):
    repo, panel, _tz, prs, _scored = other_repo
    numbers = {p.number for p in prs}
    held = [w for w in panel if w.held_out]
    assert len(panel) >= 5 and len(held) >= 2 and len(held) < len(panel)
    for week in panel:
        assert week.repo == repo and week.key and set(week.key) <= numbers
        assert all(grade in (1, 2, 3) and reason.strip() for grade, reason in week.key.values())


def test_the_engine_beats_size_alone_on_each_repositorys_held_out_weeks(other_repo):
    repo, panel, tz, prs, scored = other_repo
    held = [w for w in panel if w.held_out]
    engine = panel_figures(held, prs, lambda p: scored[p.number].importance, tz)
    size = panel_figures(held, prs, size_only, tz)
    assert engine.recall > size.recall and engine.spearman > size.spearman, (repo, engine, size)


def test_modules_come_from_the_repositorys_own_titles_and_layout(other_repo):
    # Not verl's module list: cargo's scopes and packages, trl's tags and folders; few PRs fall to a catch-all.
    repo, _panel, _tz, _prs, scored = other_repo
    modules = Counter(m for s in scored.values() for m in s.modules)
    assert len(modules) >= 15
    assert (modules["misc"] + modules["root"]) <= 0.15 * len(scored)
    assert modules[repo.split("/")[1]] <= 0.2 * len(scored)  # the package named like the repository is looked into
    types = Counter(s.type for s in scored.values())
    assert types["chore"] <= 0.3 * len(scored), types  # bare titles are judged by what they change


def test_a_repositorys_main_work_is_not_capped_as_housekeeping():
    # cargo's lints are its product: no new lint is capped by the word "lint".
    _panel, _tz, prs, scored = repo_export("rust-lang/cargo")
    lints = [scored[p.number] for p in prs if p.title.lower().startswith(("feat(lint", "feat(lints"))]
    assert len(lints) >= 5
    assert all(not any(r.startswith("housekeeping") for r in s.reasons) for s in lints)
    assert sum(s.key for s in lints) >= 0.8 * len(lints)


def test_a_breaking_subsystem_removal_is_key_and_in_its_weeks_top_third(prs, scored):
    # Issue 23: verl #6074 "[BREAKING] [env] refactor: deprecate verl/interactions" (-2,009 lines) got 4.5.
    removal = next(p for p in prs if p.number == 6074)
    local = removal.merged_at.astimezone(ZoneInfo("Asia/Shanghai")).date()
    monday = local - timedelta(days=local.weekday())
    period = Period(monday, monday + timedelta(days=6), "Asia/Shanghai")
    week = [q for q in prs if period.start_utc <= q.merged_at < period.end_utc]
    ranked = sorted(week, key=lambda q: -scored[q.number].importance)
    assert scored[6074].key and ranked.index(removal) < len(ranked) / 3, scored[6074].reasons
