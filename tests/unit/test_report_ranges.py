"""Range-aware reports and revert chains: titles, comparisons and caps by period kind; reverts, re-lands, re-fixes.

Long ranges are tested on the analysis directly with PRs built as scored (no scoring pass), so the suite stays
fast; the revert chain of verl's 2026-05-04..10 is tested on the real export, the chain read from its rows at
run time (skipped without it).
"""
from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.models import ScoredPR
from prhub.core.period import Period
from prhub.engine import narrative
from prhub.engine.scoring import score_pull
from prhub.report import compose
from prhub.site.render.markdown import render_markdown
from prhub.site.render.view import KEY_PR_ROWS, NEWCOMERS_SHOWN, view

from tests.unit.engine_support import history_entry, make_pr

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
ZH = RepoConfig(repo="acme/trainer", tz="Asia/Shanghai", language="zh")
EN = ZH.with_overrides(language="en")
SCORER = {"kind": "heuristic", "model": None, "prompt_version": "t"}


def scored(number: int, title: str, merged_at: str, *, author: str = "alice", modules: list[str] | None = None,
           kind: str = "fix", importance: float = 6.0, files: list[str] | None = None, refs: list[int] | None = None,
           reverts: int | None = None, reverts_also: list[int] | None = None) -> ScoredPR:
    return ScoredPR(number=number, title=title, url=f"https://github.com/acme/trainer/pull/{number}", author=author,
                    merged_at=merged_at, modules=modules or ["rollout"], type=kind, breaking=False,
                    importance=importance, insight=3.0, key=importance >= 5, summary="", key_points=[], risks=[],
                    additions=10, deletions=2, changed_files=len(files or []), scored_by="heuristic",
                    reasons=["修复类改动", "修复报错（crash）"], files=files or ["pkg/rollout/core.py"],
                    refs=refs or [], reverts=reverts, reverts_also=reverts_also or [])


def full_report(prs: list[ScoredPR], period: Period, config: RepoConfig, history: list[dict]) -> dict:
    return compose.report(prs, [], period, config, History.of(history, period), "2026-12-31T00:00:00Z", SCORER)


# -- reverts, re-lands and re-fixes --

def test_a_later_pr_naming_the_revert_re_fixes_the_change():
    week = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")
    prs = [scored(26, "[reward] fix: normalise the reward scale", "2026-05-05T11:00:00Z", modules=["reward"],
                  files=["pkg/reward/model.py"]),
           scored(58, 'Revert "[reward] fix: normalise the reward scale"', "2026-05-06T15:00:00Z", kind="revert",
                  modules=["reward"], files=["pkg/reward/model.py"], reverts=26, refs=[26], importance=2.0),
           scored(65, "[reward, cfg] fix: read the scale from the config", "2026-05-08T09:00:00Z",
                  modules=["reward", "cfg"], files=["pkg/reward/model.py", "pkg/config/reward.yaml"], refs=[58])]
    report = full_report(prs, week, ZH, [])
    assert report["reverts"] == [{"pr": 58, "reverts": 26, "relanded_by": 65,
                                  "title": "[reward] fix: normalise the reward scale", "relanded_how": "refix"}]
    assert next(p for p in report["prs"] if p["number"] == 26)["reverted_by"] == 58
    assert "reverted_by" not in next(p for p in report["prs"] if p["number"] == 65)
    assert "随后 #65 重新修复了这一问题" in report["relation_notes"][0]["text"]
    assert not any("跟进被回滚" in s for s in report["suggestions"])  # nothing is still open
    assert "1 条回滚记录（其中 1 条已重新合入或修复）" in report["summary"]
    # the reverted PR is marked wherever it shows: its row in the key-PR table, and no highlight is led by it
    row = next(r for s in view(report).sections if s.id == "key-prs" for r in s.data if r["number"] == 26)
    assert row["key_points"][0] == "已被 #58 回滚"
    assert not any(h["text"].startswith(("#26", "reward 方向：#26")) for h in report["highlights"])


def test_a_revert_of_a_change_and_its_follow_ups_undoes_them_all_and_a_re_fix_it_undid_is_not_back():
    # ruff #26339 "This reverts #26163 and its follow-up changes in #26230, …, #26275": the brief said 2 of 3 reverts
    # were re-landed or fixed, as #26275 had re-fixed what #26274 reverted of #26230, and named #26339 to follow up
    week = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")
    files = ["crates/ty/src/cycle.rs"]
    prs = [scored(10, "[ty] feat: recursive TypeOf cycle recovery", "2026-05-04T02:00:00Z", files=files),
           scored(20, "[ty] fix: multi-arm TypeOf cycle recovery", "2026-05-05T02:00:00Z", files=files),
           scored(30, "[ty] Revert multi-arm TypeOf cycle recovery", "2026-05-06T02:00:00Z", kind="revert",
                  files=files, reverts=20, importance=2.0),
           scored(40, "[ty] fix: keep stable arms in cycle recovery", "2026-05-07T02:00:00Z", files=files, refs=[30]),
           scored(50, "[ty] Revert recursive TypeOf cycle recovery", "2026-05-08T02:00:00Z", kind="revert",
                  files=files, reverts=10, reverts_also=[20, 40], importance=2.0)]
    report = full_report(prs, week, EN, [])
    assert sorted((c["pr"], c["reverts"], c["relanded_by"]) for c in report["reverts"]) == [
        (30, 20, None), (50, 10, None), (50, 20, None), (50, 40, None)]
    assert {p["number"]: p.get("reverted_by") for p in report["prs"]} == {10: 50, 20: 50, 30: None, 40: 50, 50: None}
    assert "2 reverts need attention" in report["summary"] and "re-landed" not in report["summary"]
    assert "Follow up the reverted changes not re-landed yet (#20, #10, #40)." in report["suggestions"]
    zh = full_report(prs, week, ZH, [])
    assert "2 条回滚记录" in zh["summary"] and "已重新合入或修复" not in zh["summary"]


def test_a_revert_names_the_follow_ups_its_description_lists_with_its_target():
    body = ("## Summary\n\nThis reverts #26163 and its follow-up changes in #26230, #26246, #26274,\n"
            "#26275, and #26316.\n")
    pr = score_pull(make_pr("[ty] Revert recursive `TypeOf` cycle recovery", body=body, number=26339), EN)
    assert (pr.reverts, pr.reverts_also) == (26163, [26230, 26246, 26274, 26275, 26316])
    because = score_pull(make_pr("Revert #12", body="Reverts #12 because it broke #13.", number=14), EN)
    assert (because.reverts, because.reverts_also) == (12, [])


def test_the_same_files_in_the_same_module_re_fix_a_revert_and_an_unrelated_pr_does_not():
    week = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")
    revert = scored(58, 'Revert "[reward] fix: reward scale"', "2026-05-06T15:00:00Z", kind="revert",
                    modules=["reward"], files=["pkg/reward/model.py"], reverts=26, importance=2.0)
    elsewhere = scored(60, "[trainer] fix: log the loss", "2026-05-08T01:00:00Z", modules=["trainer"],
                       files=["pkg/reward/model.py", "pkg/trainer/log.py"])  # same file, another module
    again = scored(65, "[reward] fix: size the replicas", "2026-05-09T01:00:00Z", modules=["reward"],
                   files=["pkg/reward/model.py", "tests/test_reward.py"])
    history = [history_entry(26, "[reward] fix: reward scale", "2026-04-30T02:00:00Z")]
    chain = full_report([revert, elsewhere, again], week, EN, history)["reverts"][0]
    assert (chain["relanded_by"], chain["relanded_how"]) == (65, "refix")
    open_chain = full_report([revert, elsewhere], week, EN, history)
    assert open_chain["reverts"][0]["relanded_by"] is None and "relanded_how" not in open_chain["reverts"][0]
    # the change to follow up is the reverted one, not the revert (ruff's had named #26339, not #26163)
    assert "Follow up the reverted changes not re-landed yet (#26)." in open_chain["suggestions"]


def export_chain(rows: list[dict], since: str, until: str) -> tuple[int, int, int, str]:
    """(revert, reverted, re-fix, reverted title) read from the export's own text, not by the code under test:
    the range's one `Revert "..."` PR, the PR its body says it reverts ("Reverts owner/repo#N"), and the later PR
    of the range that cites the revert."""
    inside = [r for r in rows if since <= r["merged_at"] < until]
    [revert] = [r for r in inside if r["title"].startswith('Revert "')]
    reverted = int(re.search(r"Reverts [\w.-]+/[\w.-]+#(\d+)", revert["body"]).group(1))
    [refix] = [r for r in inside if r["number"] != revert["number"] and r["merged_at"] > revert["merged_at"]
               and f"#{revert['number']}" in f"{r['title']} {r['body']}"]
    title = next(r["title"] for r in rows if r["number"] == reverted)
    return revert["number"], reverted, refix["number"], title


@pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is not here")
def test_verl_2026_05_04_revert_chain_and_its_chinese():
    # the chain as the export's own rows tell it (read at run time, never copied into the project)
    raw = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    revert, reverted, refix, reverted_title = export_chain(raw, "2026-05-03T16:00:00Z", "2026-05-10T16:00:00Z")
    from prhub.core.models import PullRequest

    from bench import zh_share
    report = zh_share.build([PullRequest.from_export(r) for r in raw], "2026-05-04", "2026-05-10")
    assert {"pr": revert, "reverts": reverted, "relanded_by": refix, "relanded_how": "refix",
            "title": reverted_title} in report["reverts"]
    assert next(p for p in report["prs"] if p["number"] == reverted)["reverted_by"] == revert
    assert any(f"#{revert} 回滚了 #{reverted}" in n["text"] and f"#{refix} 重新修复" in n["text"]
               for n in report["relation_notes"])
    assert not any("尚未重新合入" in n["text"] for n in report["relation_notes"])
    assert not any("跟进被回滚" in s for s in report["suggestions"])
    assert (f"被 [\\#{revert}](<https://github.com/verl-project/verl/pull/{revert}>) 回滚"
            in render_markdown(report))
    themes = [k["text"] for k in [*report["highlights"], *report["key_changes"]]]
    assert any(f"其中 #{reverted} 被 #{revert} 回滚，随后由 #{refix} 重新修复。" in t for t in themes)
    assert zh_share.share(zh_share.prose(report)) >= zh_share.TARGET
    # highlights are themes, not the top five by rank: no two are led from the same cluster
    leads = [h["prs"][0] for h in report["highlights"]]
    clusters = [next((i for i, c in enumerate(report["clusters"]) if n in c["prs"]), -n) for n in leads]
    assert len(set(clusters)) == len(clusters)


# -- range-aware: titles, comparisons, caps --

def month_prs() -> tuple[list[ScoredPR], list[dict]]:
    """July: 12 rollout PRs; March–June: 2 rollout PRs a month (a month's baseline, not a week's)."""
    prs = [scored(700 + i, f"[rollout] fix: case {i}", f"2026-07-{i + 1:02d}T03:00:00Z", author=f"dev{i % 3}",
                  files=[f"pkg/rollout/m{i}.py"]) for i in range(12)]
    history = [history_entry(600 + 10 * m + k, f"[rollout] fix: old {m}{k}", f"2026-{m:02d}-1{k}T03:00:00Z",
                             author="dev0") for m in (3, 4, 5, 6) for k in (1, 2)]
    return prs, history


def test_a_month_is_a_monthly_report_compared_with_the_four_months_before():
    prs, history = month_prs()
    month = Period.parse("2026-07-01", "2026-07-31", "Asia/Shanghai")
    report = full_report(prs, month, ZH, history)
    assert report["title"] == "acme/trainer 2026 年 7 月月报"
    assert compose.title("acme/trainer", month, "en") == "acme/trainer monthly report, July 2026"
    assert [(w["since"], w["until"]) for w in report["trends"]["weeks"]] == [
        ("2026-03-01", "2026-03-31"), ("2026-04-01", "2026-04-30"), ("2026-05-01", "2026-05-31"),
        ("2026-06-01", "2026-06-30"), ("2026-07-01", "2026-07-31")]
    rollout = next(m for m in report["modules"] if m["name"] == "rollout")
    assert (rollout["pr_count"], rollout["baseline"], rollout["trend"]) == (12, 2.0, "rising")
    assert report["trend_notes"][0]["text"] == "rollout 模块：本月 12 个 PR，前 4 个月平均每月 2 个（上升）"
    assert report["summary"].startswith("本月合并 12 个 PR")
    assert "周报" not in report["title"] and "本周" not in repr(report)
    page = render_markdown(report)
    assert "## 本月亮点" in page and "本周亮点" not in page and "前 4 个月均值" in page
    en = narrative.engine_narrative(full_report(prs, month, EN, history))
    assert en["trend_notes"][0]["text"] == "rollout: 12 PRs this month vs 2/month over the previous 4 months (rising)"


def test_a_year_caps_the_key_pr_table_and_summarises_contributors():
    year = Period.parse("2025-01-01", "2025-12-31", "Asia/Shanghai")
    start = date(2025, 1, 1)
    prs = [scored(1000 + i, f"[trainer] feat: piece {i}", f"{start + timedelta(days=i % 360)}T03:00:00Z",
                  author=f"newcomer{i}", modules=[f"mod{i % 7}"], kind="feat", importance=5 + (i % 40) / 10,
                  files=[f"pkg/m{i}.py"]) for i in range(300)]
    history = [history_entry(10, "[trainer] feat: the first", "2024-06-01T03:00:00Z", author="founder")]
    report = full_report(prs, year, ZH, history)
    assert report["title"] == "acme/trainer 2025 年年报"
    assert compose.title("acme/trainer", year, "en") == "acme/trainer annual report, 2025"
    assert report["trends"]["weeks"][0] == {"since": "2021-01-01", "until": "2021-12-31", "pr_count": 0}
    # the judgement stays as judged: 300 key PRs, 300 newcomers; only the page shows fewer
    assert report["stats"]["key_pr_count"] == 300 and sum(p["key"] for p in report["prs"]) == 300
    assert len(report["stats"]["new_contributors"]) == 300
    shown = view(report)
    table = next(s for s in shown.sections if s.id == "key-prs")
    assert len(table.data) == KEY_PR_ROWS
    # Markdown and PDF list the first PR_INDEX_ROWS of the 300 in the appendix: the heading sends the reader to
    # where every PR is (it had said the appendix held them all)
    assert table.heading == "关键 PR（按重要度前 10 个，共 300 个；每个 PR 见网页版附录「全部合并 PR」或 report.json）"
    assert "… 另有 200 项，完整列表见 report.json" in render_markdown(report)
    assert [r["number"] for r in table.data] == [p["number"] for p in report["prs"][:KEY_PR_ROWS]]
    assert shown.stats.new_contributors[-1] == f"等另 {300 - NEWCOMERS_SHOWN} 位"
    assert len(shown.stats.new_contributors) == NEWCOMERS_SHOWN + 1
    assert "本年合并 300 个 PR" in report["summary"] and "## 本年亮点" in render_markdown(report)


def test_any_other_range_is_a_report_for_its_dates():
    prs, history = month_prs()
    days = Period.parse("2026-07-01", "2026-07-10", "Asia/Shanghai")
    report = full_report([p for p in prs if p.merged_at < "2026-07-11"], days, ZH, history)
    assert report["title"] == "acme/trainer 报告（2026 年 7 月 1 日至 7 月 10 日）"
    assert compose.title("acme/trainer", days, "en") == "acme/trainer report, 2026-07-01 to 2026-07-10"
    assert report["trends"]["weeks"][-2] == {"since": "2026-06-21", "until": "2026-06-30", "pr_count": 0}
    assert report["summary"].startswith("本期合并 10 个 PR")
    assert all("前 4 个同样长度的时段平均每段" in n["text"] for n in report["trend_notes"])


def test_every_number_in_the_zh_month_narrative_is_in_its_data():
    from tests.golden.zh_month import build
    report = build()
    sections = {k: report[k] for k in ("summary", "highlights", "key_changes", "trend_notes", "risk_notes",
                                       "relation_notes", "suggestions")}
    data = {k: v for k, v in report.items() if k not in sections}
    facts = set(re.findall(r"\d+(?:\.\d+)?", repr(data)))

    def counts(value: object) -> None:  # a count quoted in prose is the length of a list in the data
        if isinstance(value, dict):
            for v in value.values():
                counts(v)
        elif isinstance(value, list):
            facts.add(str(len(value)))
            for v in value:
                counts(v)
    counts(data)
    for number in re.findall(r"\d+(?:\.\d+)?", repr(sections)):
        assert number in facts, number
    assert report["title"] == "example-org/trainer 2026 年 7 月月报"


def test_the_zh_header_names_chinas_time_zone_by_its_city():
    prs, history = month_prs()
    days = Period.parse("2026-07-01", "2026-07-10", "Asia/Shanghai")
    zh = full_report([p for p in prs if p.merged_at < "2026-07-11"], days, ZH, history)
    assert view(zh).tz == "北京时间"
    assert "| 周期 | 2026 年 7 月 1 日至 7 月 10 日（北京时间） |" in render_markdown(zh)
    assert view({**zh, "language": "en"}).tz == "Asia/Shanghai"  # en keeps the IANA name
    assert view({**zh, "period": {**zh["period"], "tz": "Europe/Berlin"}}).tz == "Europe/Berlin"
