"""PR pages (prhub.site.pulls, prhub.site.render.pull), site paths by language, teasers in one language, the
dashboard."""
from __future__ import annotations

import copy
import json

from prhub.site import dashboard, pulls
from prhub.site import paths as sitepaths
from prhub.site.publish import in_language, index_card, render_repo_index
from prhub.site.render import charts
from prhub.site.render.pull import pull_view, render_pull_html, render_pull_markdown
from prhub.site.render.view import scorer_text

from tests.golden.cases import load
from tests.unit.render_support import parse_html

SLUG = "2026-05-04-to-2026-05-10"


def test_folders_put_the_home_language_at_the_root_and_others_beside_it():
    assert sitepaths.report_dir("o/r", SLUG, "zh", "zh") == f"o/r/reports/{SLUG}/"
    assert sitepaths.report_dir("o/r", SLUG, "en", "zh") == f"o/r/reports/{SLUG}/en/"
    assert sitepaths.pull_dir("o/r", 7, "en", "en") == "o/r/pull/7/"
    assert sitepaths.relative(f"o/r/reports/{SLUG}/en/", "o/r/pull/7/en/") == "../../../pull/7/en/"
    assert sitepaths.relative("o/r/pull/7/", "o/r/pull/7/en/") == "en/"
    assert sitepaths.alternates({"zh": "o/r/pull/7/", "en": "o/r/pull/7/en/"}, "en") == [
        {"lang": "zh", "name": "中文", "href": "../"}]


def test_file_neighbours_split_by_merge_time_nearest_first():
    files = {1: ["a.py"], 2: ["a.py", "b.py"], 3: ["b.py"], 4: ["c.py"], 5: ["a.py"]}
    merged = {1: "2026-01-01", 2: "2026-01-05", 3: "2026-01-09", 4: "2026-01-02", 5: "2026-01-07"}
    assert pulls.file_neighbours(2, files, merged) == {"earlier": [1], "later": [5, 3]}
    assert pulls.file_neighbours(4, files, merged) == {"earlier": [], "later": []}


def test_files_are_grouped_by_module_map_then_by_a_module_named_in_the_path():
    groups = pulls.group_files([{"path": "verl/workers/rollout/a.py", "additions": 30, "deletions": 5},
                                {"path": "docs/x.md", "additions": 1, "deletions": 0},
                                {"path": "verl/trainer/ppo.py", "additions": 2, "deletions": 2}],
                               ["rollout"], {"verl/trainer/": "trainer"})
    assert [(g["module"], g["additions"], g["deletions"]) for g in groups] == [
        ("rollout", 30, 5), ("trainer", 2, 2), ("docs", 1, 0)]


def test_a_pr_page_holds_its_cluster_revert_chain_and_links_its_neighbours():
    report = load("zh-week")
    revert = report["reverts"][0]["pr"]
    page = pulls.pull_page(report, SLUG, revert, neighbours={"earlier": [4101], "later": [77]},
                           urls={77: "https://github.com/example-org/trainer/pull/77"})
    assert page["reverts"] == report["reverts"][:1]
    assert page["mentions"] == [{"slug": SLUG, "title": report["title"], "language": "zh"}]
    assert set(page["links"]) >= {"4101", "77"}
    html = render_pull_html(page, "zh")
    hrefs = parse_html(html).hrefs()
    assert "../4101/" in hrefs and "../77/" in hrefs and f"../../reports/{SLUG}/" in hrefs
    assert "<script" not in html
    md = render_pull_markdown(page)
    assert "(<https://github.com/example-org/trainer/pull/77>)" in md  # Markdown travels: GitHub links


def test_a_pr_page_escapes_untrusted_text():
    report = copy.deepcopy(load("zh-week"))
    number = report["prs"][0]["number"]
    report["prs"][0]["title"] = '<img src=x onerror="alert(1)">'
    report["prs"][0]["key_points"] = ["[x](javascript:alert(1))"]
    page = pulls.pull_page(report, SLUG, number, files=[{"path": "<script>.py"}])
    html = render_pull_html(page, "zh")
    assert "<img" not in html and "<script>" not in html.split("</style>", 1)[1]
    assert "javascript:" not in "".join(parse_html(html).hrefs())
    assert "\\[x\\]\\(javascript\\:alert\\(1\\)\\)" in render_pull_markdown(page)


def test_a_model_note_and_the_breaking_reason_are_shown():
    report = load("zh-week")
    pr = next(p for p in report["prs"] if p["breaking"])
    v = pull_view(pulls.pull_page(report, SLUG, pr["number"], note="模型未给出风险"))
    facts = dict(v.facts)
    assert facts["破坏性"] == pr["breaking_reason"] and facts["模型未给出 / 被替换的部分"] == "模型未给出风险"


def test_a_pr_pages_size_names_its_files_in_the_reports_language():
    # slime #1943's page read "代码变更 | +5 / -536 · 2": the 2 had no unit
    for case, label in (("zh-week", "代码变更"), ("en-small", "Lines changed")):
        report = load(case)
        for pr in report["prs"][:3]:
            facts = dict(pull_view(pulls.pull_page(report, SLUG, pr["number"])).facts)
            n = pr["changed_files"]
            files = ("1 个文件" if n == 1 else f"{n} 个文件") if case.startswith("zh") else \
                ("1 file" if n == 1 else f"{n} files")
            assert facts[label].endswith(f" · {files}"), facts[label]


def test_a_pr_pages_type_and_the_reports_type_list_are_in_the_reports_language():
    # slime #1943's zh page read "类型 | refactor", and the zh appendix listed "fix：41"
    from prhub.site.render.view import view

    def types(report):
        return [t["name"] for s in view(report).appendix if s.id == "trends" for t in s.data["types"]]

    report = load("zh-week")
    words = {"feat": "新功能", "fix": "修复", "refactor": "重构", "docs": "文档", "chore": "杂项", "test": "测试",
             "revert": "回滚"}
    for pr in report["prs"][:4]:
        assert dict(pull_view(pulls.pull_page(report, SLUG, pr["number"])).facts)["类型"] == words[pr["type"]]
    assert types(report) and all(n in words.values() for n in types(report)), types(report)
    assert set(types({**report, "language": "en"})) == {en for en, zh in words.items() if zh in types(report)}


def test_teasers_are_in_the_reports_language_or_left_out():
    assert in_language("rollout 模块本周改动最多，共 5 个 PR", "zh")
    assert not in_language("[破坏性变更] #6804 …（重要度 9）：This PR extends ContinuousTokenBuilder to …", "zh")
    assert not in_language("rollout 改动最多", "en") and in_language("Rollout changed most", "en")
    report = copy.deepcopy(load("zh-week"))
    mixed = "[破坏性变更] #6804（重要度 9）：This PR extends ContinuousTokenBuilder"
    report["highlights"] = [{"text": mixed, "prs": []}, {"text": "rollout 模块配置统一，旧配置被移除", "prs": []}]
    assert index_card(report, SLUG)["highlight"] == "rollout 模块配置统一，旧配置被移除"


def _week(report, since, until, numbers, breaking=()):
    out = copy.deepcopy(report)
    out["period"] = {**out["period"], "since": since, "until": until}
    base = out["prs"][0]
    out["prs"] = [{**base, "number": n, "merged_at": f"{since}T04:00:00Z", "breaking": n in breaking,
                   "author": f"a{n % 3}", "modules": ["rollout"]} for n in numbers]
    out["reverts"] = []
    return out


def test_the_dashboard_counts_each_pr_once_in_its_week_and_shows_weeks_without_a_report_as_no_data():
    base = load("zh-week")
    reports = [(SLUG, "", _week(base, "2026-05-04", "2026-05-10", [1, 2, 3], breaking=[2])),
               ("2026-04-20-to-2026-04-26", "", _week(base, "2026-04-20", "2026-04-26", [4])),
               (SLUG, "en/", {**_week(base, "2026-05-04", "2026-05-10", [1, 2, 3]), "language": "en"})]
    board = dashboard.build(reports, "zh")
    assert board is not None
    twelve = board["windows"][0]
    rows = {r["week"]: r for r in twelve["rows"]}
    assert rows["2026-05-04"]["merged"] == 3 and rows["2026-05-04"]["breaking"] == 1
    assert rows["2026-04-20"]["merged"] == 1 and not rows["2026-04-27"]["covered"]
    assert twelve["have"] == twelve["reported"] == 2
    assert "12 周中已知 2 周" in twelve["note"] and "有已发布报告的 2 周" in twelve["note"]
    assert twelve["module_rows"] == [{"name": "rollout", "count": 4, "share": "100.0 %"}]
    assert board["most_active"][0]["count"] == 2
    assert dashboard.build([], "zh") is None


def test_the_dashboard_charts_the_weeks_the_runs_sources_listed_not_only_the_reported_ones():
    # GIVEN one reported week and its pulls.json: the comparison weeks before it, as the run's source listed them
    base = load("zh-week")
    week = _week(base, "2026-05-04", "2026-05-10", [10, 11], breaking=[11])
    earlier = [{"number": 5, "merged_at": "2026-04-14T03:00:00Z", "author": "old", "modules": ["trainer"],
                **dashboard.title_flags("[BREAKING][trainer] feat: drop the v1 config")},
               {"number": 6, "merged_at": "2026-04-15T03:00:00Z", "author": "old", "modules": ["trainer"],
                **dashboard.title_flags('Revert "[trainer] feat: drop the v1 config"')},
               {"number": 7, "merged_at": "2026-04-22T03:00:00Z", "author": "new", "modules": []}]
    records = {SLUG: {"prs": {}, "earlier": earlier,
                      "covers": {"since": "2026-04-06", "until": "2026-05-10", "tz": "Asia/Shanghai"}}}
    # WHEN the dashboard is built from both
    board = dashboard.build([(SLUG, "", week)], "zh", records)
    assert board is not None
    twelve = board["windows"][0]
    rows = {r["week"]: r for r in twelve["rows"]}
    # THEN the listed weeks are known, counted from the history, breaking and reverts judged by their titles
    assert (rows["2026-04-13"]["merged"], rows["2026-04-13"]["breaking"], rows["2026-04-13"]["reverts"]) == (2, 1, 1)
    assert rows["2026-04-20"]["merged"] == 1 and rows["2026-04-27"]["covered"] and rows["2026-04-27"]["merged"] == 0
    assert rows["2026-04-06"]["covered"] and not rows["2026-03-30"]["covered"]  # the record starts on 04-06
    # a week known in part draws nothing: its PRs are a part of the week, not the week
    partial = dashboard.build([(SLUG, "", week)], "zh", {SLUG: {**records[SLUG], "covers": {
        **records[SLUG]["covers"], "since": "2026-04-15"}}})
    assert partial is not None
    merged_part = next(c for c in partial["windows"][0]["charts"] if c.key == "merged-12")
    assert merged_part.series[0][2][-4:] == [0, 1, 0, 2] and merged_part.known[-4:] == [False, True, True, True]
    assert twelve["have"] == 5 and twelve["reported"] == 1
    # key PRs and importance only for the reported week, said so in the row
    assert rows["2026-04-13"]["key"] == "–" and rows["2026-05-04"]["key"] != "–"
    assert {m["name"] for m in twelve["module_rows"]} == {"rollout", "trainer"}
    merged = next(c for c in twelve["charts"] if c.key == "merged-12")
    assert merged.known is not None and merged.known.count(True) == 5
    svg = charts.columns_svg(merged)
    assert svg.count('class="nodata"') == 7 and 'id="nodata-merged-12"' in svg
    key = next(c for c in twelve["charts"] if c.key == "key-12")
    assert key.known is not None and key.known.count(True) == 1
    assert board["most_active"][0] == {"name": "old", "count": 2}


def test_file_lines_pair_each_path_with_its_counts_or_leave_them_out():
    facts = {"files": ["a.py", "b/c.py"], "lines": [[3, 1], [0, 7]]}
    assert pulls.file_lines(facts) == [{"path": "a.py", "additions": 3, "deletions": 1},
                                       {"path": "b/c.py", "additions": 0, "deletions": 7}]
    # a result stored before line counts were kept: its paths alone, never "+0 / -0"
    assert pulls.file_lines({"files": ["a.py"]}) == [{"path": "a.py"}]
    assert pulls.file_lines({"files": ["a.py", "b.py"], "lines": [[1, 1]]}) == [{"path": "a.py"}, {"path": "b.py"}]


def test_the_record_covers_the_comparison_weeks_from_the_first_merge_the_source_sees():
    from prhub.core.history import History
    from prhub.flow.pages import record

    report = _week(load("zh-week"), "2026-05-04", "2026-05-10", [1])
    entry = {"number": 9, "title": "[BREAKING] feat: x", "author": "a", "merged_at": "2026-04-20T01:00:00Z",
             "url": "u", "modules": ["m"]}
    whole = record(report, History([entry], {}, ""))
    assert whole["covers"]["since"] == "2026-04-06" and whole["covers"]["until"] == "2026-05-10"
    assert whole["earlier"] == [{"number": 9, "merged_at": "2026-04-20T01:00:00Z", "author": "a", "modules": ["m"],
                                 "breaking": True, "revert": False}]
    # the source reaches back only to 04-15 (in the report's zone): the days before are not known
    assert record(report, History([entry], {}, "2026-04-14T17:00:00Z"))["covers"]["since"] == "2026-04-15"
    assert record(report, None) == {"earlier": [], "covers": {"since": "2026-05-04", "until": "2026-05-10",
                                                              "tz": report["period"]["tz"]},
                                    "languages": [report["language"]]}


def test_a_title_declares_breaking_or_a_revert():
    assert dashboard.title_flags("[BREAKING][fsdp] feat: new sharding") == {"breaking": True, "revert": False}
    assert dashboard.title_flags("feat(api)!: drop v1") == {"breaking": True, "revert": False}
    assert dashboard.title_flags('Revert "[fsdp] fix: x"') == {"breaking": False, "revert": True}
    assert dashboard.title_flags("[fsdp] fix: breaking the loop early") == {"breaking": False, "revert": False}


def test_dashboard_columns_escape_their_labels_and_fit_a_viewbox():
    chart = charts.Columns("x", "<b>t</b>", ["<i>", "b"], [("n", "#000", [1, 2])])
    svg = charts.columns_svg(chart)
    assert "<b>" not in svg and "&lt;b&gt;" in svg and 'viewBox="0 0 400 170"' in svg


def test_a_pr_page_shows_what_its_model_calls_cost_alike_in_every_format():
    # GIVEN a model-scored week whose first PR spent 868 + 61 tokens this run, priced in report.json
    report = copy.deepcopy(load("en-small"))
    paid, other = report["prs"][0], report["prs"][1]
    paid.update(tokens_in=868, tokens_out=61, cost_usd=0.000136)
    report["scorer"]["cost"] = {"usd": 0.0013, "prices_as_of": "2025-06-01", "usd_per_million_in": 0.15,
                                "usd_per_million_out": 0.6}
    page = pulls.pull_page(report, SLUG, paid["number"])
    # THEN report.json carries the PR's figures, and Markdown, HTML and the PDF print the same line (the PDF's
    # byline is the view's facts, as Markdown's and HTML's are; not rendered here: a PDF takes seconds)
    data = json.loads(json.dumps(page))
    assert (data["pr"]["tokens_in"], data["pr"]["tokens_out"], data["pr"]["cost_usd"]) == (868, 61, 0.000136)
    line = "868 in / 61 out tokens · ≈ $0.000136 (prices 2025-06-01)"
    assert dict(pull_view(page, web=False).facts)["Model usage"] == line
    html, md = render_pull_html(page, "en"), render_pull_markdown(page)
    assert line in html
    assert "| Model usage | 868 in / 61 out tokens · ≈ $0.000136 \\(prices 2025-06-01\\) |" in md
    # and the scorer line does not pass the run's totals off as the PR's
    assert "5120" not in html + md and "$0.0013" not in html + md
    # a PR that spent no model tokens has no such line
    assert "Model usage" not in dict(pull_view(pulls.pull_page(report, SLUG, other["number"])).facts)
    # a Chinese page says it in Chinese, as does the report's scorer line
    report["language"] = "zh"
    zh = dict(pull_view(pulls.pull_page(report, SLUG, paid["number"]), web=False).facts)
    assert zh["模型用量"] == "输入 868 / 输出 61 tokens · ≈ $0.000136 (价格表 2025-06-01)"
    report["scorer"].update(tokens_in=5120, tokens_out=640)
    assert scorer_text(report).endswith("· tokens 输入 5120 / 输出 640 · ≈ $0.001300 (价格表 2025-06-01)")
def test_the_days_a_run_lists_are_the_years_uncovered_days_beside_its_own():
    from datetime import date

    own = {"since": "2026-04-06", "until": "2026-05-10"}
    # a first run: the 52 weeks before its own record, from the window's Monday to the day before its own
    assert dashboard.unlisted([], own) == (date(2025, 5, 12), date(2026, 4, 5))
    # the source sees nothing before 2025-11-03: those days are never asked for
    assert dashboard.unlisted([], own, date(2025, 11, 3)) == (date(2025, 11, 3), date(2026, 4, 5))
    assert dashboard.unlisted([], own, date(2026, 4, 6)) is None
    # the next week's run: the first run's record covers the whole window, nothing to list
    year = {"covers": {"since": "2025-05-12", "until": "2026-05-10", "tz": "Asia/Shanghai"}}
    assert dashboard.unlisted([year], {"since": "2026-04-13", "until": "2026-05-17"}) is None
    # a run after weeks without one: only the gap, up to its own record
    assert dashboard.unlisted([year], {"since": "2026-06-08", "until": "2026-07-12"}) == (
        date(2026, 5, 11), date(2026, 6, 7))
    # an older week run after a newer one whose record is short: one span through its own, to the gap after it
    short = {"covers": {"since": "2026-06-08", "until": "2026-07-12"}}
    assert dashboard.unlisted([short], {"since": "2026-04-06", "until": "2026-05-10"}) == (
        date(2025, 7, 14), date(2026, 6, 7))
    assert dashboard.unlisted([], {"since": "x", "until": "y"}) is None


def test_records_of_one_period_merge_each_pr_once_and_their_days_when_they_meet():
    from prhub.flow.pages import merged

    def entry(number, merged_at, author="a"):
        return {"number": number, "merged_at": merged_at, "author": author, "modules": [], "breaking": False,
                "revert": False}

    own = {"earlier": [entry(2, "2026-04-20T00:00:00Z", "new")],
           "covers": {"since": "2026-04-06", "until": "2026-05-10", "tz": "UTC"}}
    listed = {"earlier": [entry(1, "2025-06-01T00:00:00Z"), entry(2, "2026-04-20T00:00:00Z", "old")],
              "covers": {"since": "2025-05-12", "until": "2026-04-05", "tz": "UTC"}}
    both = merged(own, listed)
    assert both["covers"] == {"since": "2025-05-12", "until": "2026-05-10", "tz": "UTC"}
    assert [(e["number"], e["author"]) for e in both["earlier"]] == [(1, "a"), (2, "new")]
    # spans a day apart do not meet: the day between is not claimed
    apart = merged(own, {**listed, "covers": {**listed["covers"], "until": "2026-04-04"}})
    assert apart["covers"] == own["covers"]
    assert merged(own, None) is own
    # the languages a period is published in: kept across runs, the first first; unknown while a record written
    # before they were kept says nothing (an en run after an old zh one had made the zh pages link an en week)
    zh, en = {**own, "languages": ["zh"]}, {**own, "languages": ["en"]}
    assert merged(en, zh)["languages"] == ["zh", "en"] and merged(zh, zh)["languages"] == ["zh"]
    assert "languages" not in merged(en, own)


def test_a_page_links_a_period_in_a_language_it_is_published_in():
    from prhub.flow.pages import _Facts

    facts = _Facts.of({"w": {1: {}}, "old": {1: {}}}, {"w": ["zh"], "old": []})
    assert facts.shown_in("w", "en") == "zh" and facts.shown_in("w", "zh") == "zh"
    assert facts.shown_in("old", "en") == "en"  # a record that does not say: the page's own language, as before


def test_a_pr_page_links_to_the_week_it_was_merged_in_and_lists_the_other_reports():
    # GIVEN a PR of a published week that a year report, published after it, lists too (issue 25: after a week and
    # a year run, the page's "返回周报" and byline pointed to the year)
    report = copy.deepcopy(load("zh-week"))
    year = "2025-08-23-to-2026-08-22"
    report["period"] = {**report["period"], "since": "2025-08-23", "until": "2026-08-22"}
    report["title"] = "年报"
    number = report["prs"][0]["number"]
    report["prs"][0]["merged_at"] = "2026-05-06T04:00:00Z"
    mentions = [{"slug": s, "title": s.replace("-to-", " – "), "language": "zh"}
                for s in ("2026-04-27-to-2026-05-03", SLUG, year)]
    # WHEN its page is rendered from the year report (the last run)
    page = pulls.pull_page(report, year, number, mentions=mentions)
    # THEN it belongs to the week of its merge, and names the year among the other reports that list it
    assert page["report"]["slug"] == SLUG
    hrefs = parse_html(render_pull_html(page, "zh")).hrefs()
    assert f"../../reports/{SLUG}/" in hrefs and f"../../reports/{year}/" in hrefs
    assert "../../reports/2026-04-27-to-2026-05-03/" in hrefs
    md = render_pull_markdown(page)
    assert md.count(SLUG.replace("-to-", " – ")) == 1  # the own week once, in the byline; not again as "also in"
    # a PR no week lists belongs to the report that scored it
    alone = pulls.pull_page(report, year, number, mentions=mentions[2:])
    assert alone["report"] == {"slug": year, "title": "年报", "language": "zh"}


def test_the_quarters_hot_files_count_each_pr_once_within_its_13_weeks():
    # GIVEN a year report and the weeks inside it, every one listing the same file (issue 25: the dashboard added up
    # every report overlapping the quarter, so one file showed 127 PRs where the last 13 weeks had 26)
    base = load("zh-week")
    week = _week(base, "2026-05-04", "2026-05-10", [1, 2])
    old = _week(base, "2025-11-03", "2025-11-09", [3])  # half a year before: outside the quarter
    year = _week(base, "2025-05-11", "2026-05-10", [])
    year["prs"] = [*copy.deepcopy(old["prs"]), *copy.deepcopy(week["prs"])]
    for doc, numbers in ((week, [1, 2]), (old, [3]), (year, [1, 2, 3])):
        doc["hot_files"] = [{"path": "verl/a.py", "pr_count": len(numbers), "prs": numbers}]
    records = {SLUG: {"prs": {"1": {"files": ["verl/a.py", "verl/b.py"]}, "2": {"files": ["verl/a.py"]}},
                      "covers": {"since": "2026-05-04", "until": "2026-05-10", "tz": "Asia/Shanghai"}}}
    reports = [(SLUG, "", week), ("2025-11-03-to-2025-11-09", "", old), ("2025-05-11-to-2026-05-10", "", year)]
    board = dashboard.build(reports, "zh", records)
    assert board is not None
    # THEN each PR counts once, and only the PRs merged in the last 13 weeks
    assert board["hot_files"] == [{"path": "verl/a.py", "pr_count": 2, "prs": [1, 2]},
                                  {"path": "verl/b.py", "pr_count": 1, "prs": [1]}]
    html = render_repo_index("o/r", [], "zh", board)
    assert "近 13 周热点文件" in html


def test_key_pr_counts_and_average_importance_have_their_own_charts():
    # GIVEN weeks whose key-PR counts (0-2) are far below their importance (~7): on one axis the bars were flat
    base = load("zh-week")
    board = dashboard.build([(SLUG, "", _week(base, "2026-05-04", "2026-05-10", [1, 2, 3]))], "zh")
    assert board is not None
    by_key = {c.key: c for c in board["windows"][0]["charts"]}
    key, imp = by_key["key-12"], by_key["importance-12"]
    assert [name for name, _, _ in key.series] == ["关键 PR"] and [n for n, _, _ in imp.series] == ["平均重要度"]
    assert imp.peak == max(imp.series[0][2]) and key.peak == max(max(key.series[0][2]), 1.0)


def test_the_dashboards_newcomers_are_capped_with_a_link_to_the_full_list():
    # GIVEN a year with 380 new contributors (six screens on a phone)
    base = load("zh-week")
    week = _week(base, "2026-05-04", "2026-05-10", list(range(1, 381)))
    for i, pr in enumerate(week["prs"]):
        pr["author"] = f"user{i:03d}"
    week["stats"] = {**week["stats"], "new_contributors": [p["author"] for p in week["prs"]]}
    board = dashboard.build([(SLUG, "", week)], "zh")
    assert board is not None and len(board["newcomers"]) == 380  # the full list stays in the data
    html = render_repo_index("o/r", [], "zh", board)
    items = "".join(parse_html(html).text)
    assert items.count("· 2026-05-") == dashboard.NAMES_SHOWN
    assert f"等另 {380 - dashboard.NAMES_SHOWN} 位" in items and "dashboard.json" in parse_html(html).hrefs()
    full = json.loads(dashboard.full_lists(board))
    assert len(full["newcomers"]) == 380 and full["schema"] == "prhub.dashboard/1"


def test_relative_links_are_what_posixpath_relpath_gives_for_every_pair_of_site_folders() -> None:
    import itertools
    import posixpath

    folders = ["", "o/", "o/r/", "o/r/pull/7/", "o/r/pull/7/en/", "o/r/pull/70/", f"o/r/reports/{SLUG}/",
               f"o/r/reports/{SLUG}/en/", "o/r2/pull/7/", "x/", "o/r/slices/rollout/pull/7/", "./o/", "o/../p/"]
    for here, there in itertools.product(folders, repeat=2):
        rel = posixpath.relpath(there.rstrip("/") or ".", here.rstrip("/") or ".")
        assert sitepaths.relative(here, there) == ("./" if rel == "." else rel + "/"), (here, there)


def test_a_pr_page_says_when_it_merged_in_the_reports_time_zone():
    # issue 46: the pages of an Asia/Shanghai report showed merge times in UTC
    report = copy.deepcopy(load("zh-week"))
    pr = report["prs"][0]
    pr["merged_at"] = "2026-05-06T18:30:00Z"  # the next morning in Shanghai
    page = pulls.pull_page(report, SLUG, pr["number"])
    assert page["tz"] == report["period"]["tz"] == "Asia/Shanghai"
    for text in (render_pull_markdown(page), render_pull_html(page, "zh")):  # as the zh report's header names it
        assert "2026-05-07 02:30（北京时间）" in text and "2026-05-06T18:30:00Z" not in text
    english = {**page, "language": "en"}
    assert "2026-05-07 02:30 (Asia/Shanghai)" in render_pull_html(english, "en")
    del page["tz"]  # a page stored before it carried its zone: as stored
    assert "2026-05-06T18:30:00Z" in render_pull_markdown(page)
