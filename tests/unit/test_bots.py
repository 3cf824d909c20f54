"""Bots and excluded authors: bots counted on their own line, never as authors or newcomers; excluded authors'
PRs never planned."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from prhub.core.config import RepoConfig, WatchList
from prhub.core.errors import InputError
from prhub.core.history import History
from prhub.engine.analysis import analyse_period
from prhub.engine.scoring import score_pull
from prhub.flow import plan
from prhub.site.render import render_all

from prhub_local.sample import sample_settings
from tests.fakes.memory import memory_stack
from tests.unit.engine_support import CONFIG, change, history_entry, make_pr
from tests.unit.render_support import pdf_text
from tests.unit.test_analysis import SCORER, WEEK


def week(config: RepoConfig) -> Any:
    prs = [
        make_pr("[trainer] feat: add entropy bonus", [change("pkg/trainer/loss.py", 40, 2)], number=1,
                author="alice", merged_at="2026-06-15T02:00:00Z"),
        make_pr("build(deps): bump torch from 2.5 to 2.6", [change("requirements.txt", 1, 1)], number=2,
                author="dependabot[bot]", merged_at="2026-06-16T02:00:00Z"),
        make_pr("chore(deps): update ray to 2.40", [change("requirements.txt", 1, 1)], number=3,
                author="renovate-bot", merged_at="2026-06-17T02:00:00Z"),
        make_pr("[doc] docs: typo in README", [change("README.md", 1, 1)], number=4, author="Frank",
                merged_at="2026-06-18T02:00:00Z"),
    ]
    scored = [score_pull(p, config) for p in prs]
    history = [history_entry(90, "[x] fix: y", "2026-06-01T00:00:00Z", "alice")]
    history += [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    return analyse_period(scored, [], WEEK, config, History.of(history, WEEK), "2026-06-22T01:00:00Z", SCORER)


def test_bots_are_counted_apart_and_never_as_authors_or_newcomers() -> None:
    stats = week(CONFIG)["stats"]
    assert stats["pr_count"] == 4  # their PRs are still in the report
    assert stats["authors"] == 2  # alice and Frank
    assert stats["new_contributors"] == ["Frank"]  # not the bots, though they are new too
    assert stats["bots"] == {"prs": 2, "logins": ["dependabot[bot]", "renovate-bot"]}


def test_the_bot_list_is_configurable_and_the_suffix_always_counts() -> None:
    config = replace(CONFIG, bots=("frank",))
    stats = week(config)["stats"]
    assert stats["bots"] == {"prs": 2, "logins": ["dependabot[bot]", "Frank"]}  # renovate-bot is a person now
    assert stats["authors"] == 2 and stats["new_contributors"] == ["renovate-bot"]
    with pytest.raises(InputError, match="bots must be a list"):
        RepoConfig.from_dict({"repo": "o/r", "bots": "renovate"})


def test_every_rendering_shows_the_bots_line(tmp_path: Any) -> None:
    report = week(CONFIG)
    report = {**report, "title": "t", "summary": "s", "suggestions": [], "highlights": [], "trend_notes": [],
              "risk_notes": [], "relation_notes": []}  # the narrative's sections: a report always has them
    files = render_all(report)  # type: ignore[arg-type]
    md, html = files["report.md"].decode(), files["index.html"].decode()
    line = "2 PRs (dependabot[bot], renovate-bot), not counted as authors"
    assert f"<p>Bots: {line}</p>" in html
    assert r"| Bots | 2 PRs \(dependabot\[bot\], renovate-bot\), not counted as authors |" in md  # escaped
    assert "Bots: 2 PRs (dependabot[bot], renovate-bot), not counted as" in " ".join(
        pdf_text(files["report.pdf"], tmp_path).split())


def test_excluded_authors_are_never_planned_and_the_run_says_so() -> None:
    sample = sample_settings()
    entry = {**sample["config"], "language": "en", "exclude_authors": ["Renovate-Acme"]}
    stack = memory_stack(WatchList.parse(json.dumps({"repos": [entry]})))
    [planned] = plan.plan({"repo": "acme/rocket", "since": sample["since"], "until": sample["until"]}, stack.deps)
    run = stack.store.get_run(planned["run_id"])
    assert run is not None and planned["expected"] == 30  # the sample's 32 PRs but #1207 and #1221
    assert not {1207, 1221} & set(run.refs)
    assert "2 PRs left out by configuration (authors: Renovate-Acme)." in run.notes


def test_review_bots_are_not_among_the_reviewers() -> None:
    pr = make_pr("[trainer] fix: y", [change("pkg/trainer/y.py")], number=5, author="alice",
                 reviews=[("copilot-pull-request-reviewer[bot]", "COMMENTED"), ("bob", "APPROVED"),
                          ("coderabbitai", "COMMENTED")])
    config = replace(CONFIG, bots=("coderabbitai",))
    report = analyse_period([score_pull(pr, config)], [], WEEK, config, History.of([], WEEK), "2026-06-22T01:00:00Z",
                            SCORER)
    assert report["stats"]["reviewers"] == [{"login": "bob", "reviews": 1}]


def test_the_dashboard_leaves_bots_out_of_its_contributors() -> None:
    from prhub.site import dashboard

    report = week(CONFIG)
    board = dashboard.build([("2026-06-15-to-2026-06-21", "", report)], "en")  # type: ignore[list-item]
    assert board is not None
    assert sorted(a["name"] for a in board["most_active"]) == ["Frank", "alice"]  # not dependabot[bot], renovate-bot
    assert [n["name"] for n in board["newcomers"]] == ["Frank"]


def test_an_english_count_of_prs_says_pr_or_prs():
    from prhub.core.text import prs_counted

    # tokio's en week of 07-20 read "Bots | 1 PR(s) (dependabot[bot]), not counted as authors"
    assert prs_counted("1 PR(s) (dependabot[bot]), not counted as authors") == "1 PR (dependabot[bot]), not counted " \
        "as authors"
    assert prs_counted("made again with the results of 12 PR(s) that arrived") == \
        "made again with the results of 12 PRs that arrived"
    assert prs_counted("#11 PR(s)") == "#11 PR(s)"  # no count: a PR number is not one
