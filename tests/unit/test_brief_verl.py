"""The brief on the export's real weeks (issue 45): each defect a maintainer found, held on the PRs it was found on.

The weeks are read from ../shared/data at run time (never copied into the project) and skipped without it.
"""
from __future__ import annotations

import re
from typing import Any

import pytest
from prhub.engine import headline, narrative
from prhub.site.render.markdown import render_markdown

from bench import brief as bench_brief
from bench import zh_share, zh_text

VERL = "verl-project/verl"
ROWS = zh_share.export_rows(VERL)
pytestmark = pytest.mark.skipif(ROWS is None, reason="../shared/data/verl-project-verl is not here")
WEEKS = {"05-04": ("2026-05-04", "2026-05-10"), "08-10": ("2026-08-10", "2026-08-16"),
         "06-15": ("2026-06-15", "2026-06-21")}
RANGES = {**WEEKS, "2026": ("2026-01-01", "2026-12-31")}
_built: dict[tuple[str, str], dict[str, Any]] = {}


def week(name: str, lang: str = "zh") -> dict[str, Any]:
    """The engine's report of a verl week (Asia/Shanghai), or its year, built once per module (the year's two tests
    share one build: it scores and analyses 1,500 PRs)."""
    if (name, lang) not in _built:
        since, until = RANGES[name]
        _built[(name, lang)] = zh_share.build(ROWS, since, until, VERL, "Asia/Shanghai", lang)
    return _built[(name, lang)]


def highlighted(report: dict[str, Any]) -> set[int]:
    return {n for item in report["highlights"] for n in item["prs"]} | {
        int(n) for item in report["highlights"] for n in re.findall(r"#(\d+)", item["text"])}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name, breaking", [("05-04", 6300), ("08-10", 6804)])
def test_breaking_prs_and_the_top_three_are_always_in_the_highlights(name: str, breaking: int, lang: str) -> None:
    # #6300 (breaking, importance 9.4, rank 2) and #6804 (breaking, 8.8, rank 2) were only in the summary, the
    # risks and the table
    report = week(name, lang)
    assert next(p for p in report["prs"] if p["number"] == breaking)["breaking"]
    top = [p["number"] for p in sorted(report["prs"], key=lambda p: (-p["importance"], p["number"]))[:3]]
    assert breaking in highlighted(report)
    assert set(top) <= highlighted(report)
    assert {p["number"] for p in report["prs"] if p["breaking"]} <= highlighted(report)


def test_a_busy_week_highlights_as_many_subjects_as_the_panel_does() -> None:
    # the panel (docs/brief-panel.md, written before tuning) keeps six themes in 05-04; five items had left out the
    # fully async one, #6056 (online policy distillation), for the key changes below
    report = week("05-04")
    assert len(report["highlights"]) == narrative.HIGHLIGHTS == 6
    assert 6056 in highlighted(report)


@pytest.mark.parametrize("name", sorted(WEEKS))
def test_the_zh_brief_quotes_no_english_sentence_or_title(name: str) -> None:
    # 「修复 trtllm rollout Docker 镜像和 few 脚本」, 「新功能：“use VeOmni's native return_log_probs path to compute…」
    report = week(name)
    texts = [report["summary"], *(h["text"] for h in report["highlights"]), *report["suggestions"]]
    texts += [t for k in report["key_changes"] for t in (k["theme"], k["text"])]
    texts += [t for p in report["prs"] if p["key"] for t in (p["headline"], *p["points"])]
    english = [t for t in texts if headline.english_prose(t)]
    assert english == []
    brief = bench_brief.brief(render_markdown(report))
    assert bench_brief.english_quotes(bench_brief.visible_text(brief)) == []
    assert bench_brief.english_runs(bench_brief.visible_text(brief, tables=False)) == []


def test_a_title_the_translator_cannot_carry_is_said_in_chinese_with_what_the_engine_knows() -> None:
    report = week("05-04")
    by_number = {p["number"]: p for p in report["prs"]}
    assert "few" not in by_number[6230]["headline"]  # "trtllm rollout docker image and a few scripts"
    assert by_number[6230]["headline"].startswith("修复：")
    # "fix seq_len pad len, and adapt to new mtp_loss api (for megatron dev brance)": its type and the names it touches
    assert by_number[6206]["headline"] == "修复：涉及 seq_len、mtp_loss"
    # a title the translator carries is said in Chinese, its names kept: "use VeOmni's native return_log_probs path
    # to compute log_probs"
    assert by_number[6184]["headline"] == "改用 VeOmni 的原生 return_log_probs 路径，以计算 log_probs"
    assert "“" not in "".join(k["theme"] for k in report["key_changes"])


@pytest.mark.parametrize("name", sorted(WEEKS))
def test_the_brief_of_a_week_fits_in_six_thousand_visible_characters(name: str) -> None:
    md = render_markdown(week(name))
    assert bench_brief.has_appendix(md)
    assert bench_brief.visible_chars(bench_brief.brief(md)) <= 6000
    assert bench_brief.visible_chars(md) > bench_brief.visible_chars(bench_brief.brief(md))  # the rest is there


@pytest.mark.parametrize("name", sorted(WEEKS))
def test_no_clause_stands_beside_three_prs(name: str) -> None:
    # 「属于破坏性变更」 and 「与它同组的修复」 stood beside 3+ PRs, 6 to 10 such clauses a week
    assert zh_text.repeated(week(name)) == {}


def test_a_key_change_says_something_of_its_lead() -> None:
    # 「围绕 #5631 的 3 个 PR 里，#6262 将 trtllm 升级到 1.3.0rc14 并固定 mbridge 版本，只改依赖，另有 #6230。」
    report = week("05-04")
    for change in report["key_changes"]:
        assert not change["text"].startswith("围绕 #")
    texts = [h["text"] for h in report["highlights"]]
    assert any("#5631 为 trtllm rollout 启用异步 RL" in t for t in texts)
    assert "与它同组的" not in "".join(texts)  # no verbless "与它同组的 #6189 更简单的…"


def test_the_brief_names_each_breaking_prs_migration_by_what_it_removes() -> None:
    text = next(h["text"] for h in week("05-04")["highlights"] if "#6300" in h["text"])
    assert "迁移：#6300 删除公共模块 mcp_base_tool.py" in text  # the file by its name: the appendix has its path
    # and what its users do about it, as the en report's "migrate before upgrading" (it had ended at the file name)
    # it removes five: two named, the rest counted (it had named two as if they were all)
    assert "mcp_search_tool.py 等 5 个，升级前需修改受影响的用法。" in text, text


def test_the_key_pr_table_is_in_chinese_with_at_most_two_points() -> None:
    md = render_markdown(week("05-04"))
    table = bench_brief.section(md, "关键 PR（按重要度前 10 个，共 19 个；每个 PR 见附录「全部合并 PR」）")
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert len(rows) == 10
    assert all(row.count("<br>") <= 1 for row in rows)
    assert "refactor: remove curriculum sampler" not in table and "移除课程采样器" in table
    assert narrative.must_name(week("05-04"))[:2] == [6302, 6300]


def test_a_year_caps_its_highlights_and_still_names_every_breaking_pr() -> None:
    report = week("2026")
    breaking = {p["number"] for p in report["prs"] if p["breaking"]}
    assert len(breaking) > narrative.HIGHLIGHTS_MAX  # dozens: one item a PR would be the whole brief
    assert len(report["highlights"]) == narrative.HIGHLIGHTS_MAX
    assert breaking <= highlighted(report)
    assert report["highlights"][-1]["text"].startswith("另有 ")
    md = render_markdown(report)
    assert bench_brief.visible_chars(bench_brief.brief(md)) <= 6000


def test_a_years_risks_at_a_glance_name_each_kind_once_by_its_most_important_prs() -> None:
    # issue 46: the year printed each risk list twice (bullets, then chips) and picked examples by number
    report = week("2026")
    importance = {p["number"]: p["importance"] for p in report["prs"]}
    glance = bench_brief.section(render_markdown(report), "风险速览")
    lines = [line for line in glance.splitlines() if line.startswith("- ")]
    assert len(lines) == len(report["risks"])  # one line a kind, no second list of the same PRs
    for note, risk in zip(report["risk_notes"], report["risks"], strict=True):
        # a kind's example is its most important PR; the breaking ones are all in the highlights, named by rank
        example = int(re.search(r"#(\d+)", note["text"]).group(1)) if risk["kind"] != "breaking" else note["prs"][0]
        assert importance[example] == max(importance[n] for n in risk["prs"])
        shown = note["prs"][:6]
        assert [importance[n] for n in shown] == sorted((importance[n] for n in shown), reverse=True)


def test_a_key_change_is_headed_by_the_subsystem_its_paths_name() -> None:
    # #6248 and #6216 (memory snapshots, verl/utils/) carry a `[tool]` tag: the highlights and the key changes
    # both head them by the cluster's subsystem, not by the tag
    change = next(k for k in week("05-04")["key_changes"] if 6248 in k["prs"])
    assert change["theme"] == "工具函数"  # the subsystem alone: the paragraph below tells its lead


def test_a_risk_at_a_glance_closes_the_brackets_it_opens() -> None:
    # #6302's reason "标题标注了 [BREAKING]（删除公共模块 __init__.py；删除公共模块 sampler.py）" was cut at its "；",
    # leaving 「（删除公共模块 __init__.py（#6300）」 in the risks at a glance
    for note in week("05-04")["risk_notes"]:
        assert note["text"].count("（") == note["text"].count("）"), note["text"]
        assert note["text"].count("(") == note["text"].count(")"), note["text"]


def test_a_single_pr_item_says_its_migration_without_its_number_again() -> None:
    # 「#6302 移除 …。迁移：#6302 删除公共模块 …」 named the PR twice in one item
    item = next(h for h in week("05-04")["highlights"] if h["prs"] == [6302])
    assert item["text"].count("#6302") == 1 and "迁移：删除公共模块" in item["text"]


def test_a_key_pr_row_says_what_the_change_came_with_rather_than_its_line_counts() -> None:
    # #5631 (trtllm async RL) changed source, tests and docs: "附带测试和文档" says what a reviewer checks first;
    # a breaking PR's point says what it removes, not that its title is tagged
    prs = {p["number"]: p for p in week("05-04")["prs"]}
    assert prs[5631]["points"] == ["附带测试和文档"]
    assert prs[6302]["points"][0] == "破坏性变更：删除公共模块 dataset/__init__.py、sampler.py 等 11 个"
    assert prs[6265]["points"] == ["未改测试"]  # a risk still comes first, as short as "附带测试" in a column of them


def test_a_brief_reason_names_two_files_and_counts_the_rest() -> None:
    # the appendix's risk details list every file; the brief's line names two
    many = "；".join(f"删除公共模块 verl/tools/t{i}.py" for i in range(5))
    assert headline.briefly(many, True) == "删除公共模块 t0.py、t1.py 等 5 个"
    assert headline.briefly("removes public module a/x.py; removes public module a/y.py", False) == \
        "removes public modules x.py, y.py"  # in the plural (diffusers #12152's had read "removes public module")
    assert headline.briefly("removes public module a.py; removes public module b.py; removes public module c.py",
                            False) == "removes public modules a.py, b.py and 1 more"


def test_a_single_pr_item_marked_breaking_by_its_author_alone_says_so_without_its_number_again() -> None:
    # #6804 (08-10) says only that it breaks: 「…。迁移：作者标注为破坏性变更，升级前请按 #6804 的说明修改用法。」
    item = next(h for h in week("08-10")["highlights"] if h["prs"] == [6804])
    assert item["text"].count("#6804") == 1 and "升级前请按其说明修改用法" in item["text"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_follow_up_points_at_the_risks_above_instead_of_naming_their_prs_again(lang: str) -> None:
    # verl 05-04: breaking #6300/#6302, pins #6222/#6230/#6262 and titles #6260/#6300 were each named twice, in
    # risks at a glance and again in the follow-ups just below
    report = week("05-04", lang)
    told = {n for note in report["risk_notes"] for n in [*note["prs"][:3], *map(int, re.findall(r"#(\d+)",
                                                                                               note["text"]))]}
    asks = [s for s in report["suggestions"] if re.search(r"破坏性变更|依赖版本|标题标签|breaking|dependency|title",
                                                           s)]
    assert len(asks) == 3, report["suggestions"]
    assert all(not re.search(r"#\d+", s) for s in asks), asks
    assert ("上文的 2 个破坏性变更" if lang == "zh" else "breaking changes above (2 PRs)") in asks[0]
    # the untested key PRs too: risks at a glance counts them and names them first, the follow-up points up
    untested = next(s for s in report["suggestions"] if "测试" in s or "tests" in s)
    missing = next(r["prs"] for r in report["risks"] if r["kind"] == "missing_tests")
    key = [p["number"] for p in report["prs"] if p["key"] and p["number"] in missing]
    assert not re.search(r"#\d+", untested) and f"{len(key)}" in untested, untested
    glance = next(n for n in report["risk_notes"] if re.match(r"改了源码但没有改测试|source changes", n["text"]))
    assert (f"其中关键 PR {len(key)} 个" if lang == "zh" else f"({len(key)} key)") in glance["text"]
    assert set(glance["prs"][:len(key)]) == set(key)  # the key ones are named first
    assert told  # risks at a glance still names the PRs


@pytest.mark.parametrize("name", ["05-04", "08-10", "06-15"])
def test_an_english_line_is_a_whole_sentence_or_the_title_never_a_sentence_cut_short(name: str) -> None:
    # verl 05-04 read "#5631 (note that this MR only enables e2e async RL functionalities for trtllm rollout and
    # tested convergence, it hasn't…)": an English line is the PR's title, whole, as a changelog says it
    report = week(name, "en")
    prose = [item["text"] for item in report["highlights"]] + [k["text"] for k in report["key_changes"]]
    assert not [t for t in prose if re.search(r"\w…", t)], prose
    if name == "05-04":
        assert "rollout: enable Async RL for trtllm rollout (#5631)." in report["highlights"][2]["text"]


def test_a_zh_list_of_prs_takes_the_enumeration_comma() -> None:
    # "（#6251, #6231, #6206, …另 10 个）" in a Chinese sentence: a Chinese list is joined with 、
    zh, en = render_markdown(week("05-04")), render_markdown(week("05-04", "en"))
    assert not re.search(r"\), \[\\#", zh) and re.search(r"\)、\[\\#", zh)
    assert re.search(r"\), \[\\#", en) and "、" not in en


def test_a_cut_title_never_ends_inside_a_name() -> None:
    # verl 05-04's table read "将 request_id 写入 reward_extra_infos_to_dump，而非 `reward_extra_`…": a cut at "_"
    # split a name, which then showed as code of its own
    for p in week("05-04")["prs"]:
        text = str(p.get("headline") or "")
        assert not re.search(r"[A-Za-z0-9][_./:]…", text), text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_breaking_risk_at_a_glance_points_at_the_highlights_that_tell_its_migration(lang: str) -> None:
    # verl 08-10 read "破坏性变更：2 个 PR，例如 #6804：标题标注了 [BREAKING]（#7374）", just below highlights
    # that tell both PRs and their migrations
    report = week("08-10", lang)
    note = next(n for n in report["risk_notes"] if n["prs"][0] in (6804, 7374))
    assert note["text"] == ("破坏性变更：2 个 PR，都在上文亮点中" if lang == "zh" else
                            "breaking changes: 2 PRs, all in the highlights above")
    assert set(note["prs"]) == {6804, 7374} <= highlighted(report)


def test_a_series_of_titles_keeps_what_each_one_says_after_its_colon() -> None:
    # trl 06-08's table read "让 KTO 与 DPO 对齐" three times (#5939, #5982, #6029: "Align KTO with DPO: Support VLM",
    # "…: Improve error message for VLM truncation", …): the part after the colon was cut as a second clause
    rows = zh_share.export_rows("huggingface/trl")
    if rows is None:
        pytest.skip("../shared/data/huggingface-trl is not here")
    report = zh_share.build(rows, "2026-06-08", "2026-06-14", "huggingface/trl", "UTC", "zh")
    said = {p["number"]: p["headline"] for p in report["prs"] if p["number"] in (5939, 5982, 6029)}
    assert said[5939] == "让 KTO 与 DPO 对齐：支持 VLM"
    assert len(set(said.values())) == 3, said
    breaking = next(n for n in report["risk_notes"] if n["prs"] == [5987])
    assert breaking["text"] == "破坏性变更：#5987，见上文亮点"  # one PR: not "1 个 PR，都在…"


def test_the_summary_puts_no_space_between_chinese_words() -> None:
    # "最值得先读的是 工具的 #6302，以及 工具的 #6300": a space belongs only between Chinese and Latin; and one
    # subsystem is named once ("工具的 #6302，以及工具的 #6300" said 工具 twice)
    assert "最值得先读的是工具的 #6302 和 #6300（见上文亮点）" in week("05-04")["summary"]


def test_the_summary_names_the_prs_to_read_first_by_the_highlights_subsystem() -> None:
    # July's summary read "最值得先读的是检查点的 #6974，以及 megatron 模块的 #7181" while the highlights just above
    # filed #7181 (module megatron, a checkpoint feature) under 检查点
    report = zh_share.build(ROWS, "2026-07-01", "2026-07-31", VERL, "Asia/Shanghai", "zh")
    item = next(h for h in report["highlights"] if 7181 in h["prs"])
    assert item["theme"] == "检查点"
    assert "最值得先读的是检查点的 #6974 和 #7181" in report["summary"]


def test_a_headline_that_knows_only_the_diff_says_so_once():
    # a chore whose title stays English fell back to "改动：改动 1 个文件，多为删除"
    said = headline.headline("[ci] chore: kindly ask the bots to stop pinging us", "", "chore", [], 1, 0, 40)
    assert said == "改动 1 个文件，多为删除"
    fix = headline.headline("fix: kindly ask the bots to stop pinging us", "", "fix", [], 2, 30, 1)
    assert fix == "修复：改动 2 个文件，多为新增"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_highlight_names_the_theme_it_opens_with_so_a_theme_of_several_is_said_once(lang: str) -> None:
    report = week("05-04", lang)
    themed = [h for h in report["highlights"] if h.get("theme")]
    assert themed and all(re.match(rf"(\[[^]]+\] )?{re.escape(h['theme'])}[：:]", h["text"]) for h in themed)
    shared = {h["theme"] for h in themed if sum(o.get("theme") == h["theme"] for o in themed) > 1}
    part = bench_brief.section(render_markdown(report), "本周亮点" if lang == "zh" else "Highlights")
    for theme in shared:
        assert part.count(f"- {theme}\n") == 1, part
    nested = re.findall(r"^  - (.+)$", part, re.M)
    assert nested  # and each opens as a line does: "Remove curriculum sampler…", not "remove curriculum…"
    assert all(re.match(r"(\\\[[^]]+\\\] )?([A-Z\[`#]|\\#)", line) for line in nested), nested


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_risk_at_a_glance_names_its_other_prs_only_when_they_are_few(lang: str) -> None:
    # verl 05-04 read "改了源码但没有改测试：14 个 PR（其中关键 PR 11 个），例如 #6265：…（#6300、#6302、#6117、…另 10
    # 个）": three bare numbers and a count the line had given; the appendix's risk details list all 14 with what
    # each changed, and the heading says so. Two others ("vllm 0.17→0.18（#6230、#6262）") still fit.
    markdown = render_markdown(week("05-04", lang))
    start = markdown.index("## 风险速览" if lang == "zh" else "## Risks at a glance")
    top = markdown[start:markdown.index("\n## ", start)]
    lines = [line for line in top.splitlines() if line.startswith("- ")]
    untested = next(line for line in lines if "没有改测试" in line or "without test changes" in line)
    assert len(re.findall(r"\\#\d+", untested)) == 1 and "另" not in untested and "more" not in untested
    pins = next(line for line in lines if "vllm 0.17" in line)
    assert {int(n) for n in re.findall(r"\\#(\d+)", pins)} == {6222, 6230, 6262}
    heading = top.splitlines()[0]
    assert ("附录「风险详情」" if lang == "zh" else '"Risks in detail"') in heading
    missing = next(r for r in week("05-04", lang)["risks"] if r["kind"] == "missing_tests")
    appendix = markdown[markdown.index("## 附录" if lang == "zh" else "## Appendix"):]
    assert all(f"\\#{n}" in appendix for n in missing["prs"])  # what the brief leaves out, the appendix lists


@pytest.mark.parametrize("lang, said", [
    ("zh", "迁移：用到 `trainer` 的地方改用 `actor_wg`。"),
    ("en", "Migration: use `actor_wg` where `trainer` was used."),
])
def test_a_renamed_names_migration_is_its_new_name(lang: str, said: str) -> None:
    # #6724 "rename misleading `trainer` arg to `actor_wg`" (breaking) read "迁移：作者标注为破坏性变更，升级前请按其
    # 说明修改用法": the title says what its users change
    item = next(h for h in week("06-15", lang)["highlights"] if "#6724" in h["text"])
    assert item["text"].endswith(said)


def test_a_changed_defaults_migration_is_to_set_the_old_value() -> None:
    # "迁移：#6951 标题写明修改了默认行为" said again what the title had just said; what its users do is keep the
    # old value where they rely on it. Diff findings and the author's bare marker keep their own sentences.
    zh, en = headline.migration_step("标题写明修改了默认行为", "x", True), headline.migration_step(
        "changes a default, as its title says", "x", False)
    assert (zh, en) == (("依赖旧默认值之处需显式设置原值", True),
                        ("set the old default explicitly where you rely on it", True))
    assert headline.migration_step("删除公共模块 a.py；标题写明修改了默认行为", "x", True) == (
        "删除公共模块 a.py；依赖旧默认值之处需显式设置原值", False)  # beside a finding, the step replaces the phrase
    step = headline.migration_step  # what the diff found is what it changes, not a step
    assert step("标题标注了 [BREAKING]（删除公共模块 a.py）", "x", True) == ("删除公共模块 a.py", False)
    assert step("标题标注了 [BREAKING]", "rename foo to bar", True) == ("", False)  # not code: no guess
    # a value is no name: "change `lr_scheduler` default to `cosine`", "change `mode` to `async`"
    assert step("tagged [BREAKING] in the title", "change `lr_scheduler` default to `cosine`", False) == ("", False)
    assert step("tagged [BREAKING] in the title", "change `mode` to `async`", False) == ("", False)
    # "feat!:" declares it, and says no more than [BREAKING] does: the rename is still read from the title
    assert step("declared breaking in the title", "feat!: rename `old_name` to `new_name`", False) == (
        "use `new_name` where `old_name` was used", True)


def test_a_modules_other_prs_after_its_theme_are_headed_as_the_rest() -> None:
    # verl 05-18 (en) had "### trainer" (a theme led by #6354) and then "### trainer: Add set_expandable_segments
    # support for npu", the first line of the paragraph below it: the module's other PRs say so instead
    report = zh_share.build(ROWS, "2026-05-18", "2026-05-24", VERL, "Asia/Shanghai", "en")
    headings = [k["theme"] for k in report["key_changes"]]
    assert headings[:2] == ["trainer", "trainer: other changes"]
    assert report["key_changes"][1]["text"].startswith("4 PRs touched it (3 key); besides those above:")


def test_a_moved_module_is_named_by_as_many_folders_as_tell_its_two_places_apart():
    # trl 06-22 read "迁移：将公共模块 distillation.py 移到 distillation.py": by its name alone a move said nothing
    said = headline.by_name("将公共模块 trl/trainer/gold.py 移到 trl/experimental/gold.py；删除公共模块 trl/a/b.py")
    assert said == "将公共模块 trainer/gold.py 移到 experimental/gold.py；删除公共模块 b.py"
    assert headline.by_name("moves public module rocket/core/queue.py to rocket/core/enqueue.py") == (
        "moves public module queue.py to enqueue.py")


def test_a_long_risk_at_a_glance_cuts_its_aside_and_keeps_what_it_says_after_it():
    # verl 06-22 read "文档与代码不符：…例如 #6779：破坏性变更（将公共模块 … 移到 …；将公共模块 …），但没…": the
    # cut took the words that say what the risk is
    from prhub.engine import observations

    aside = "；".join(f"将公共模块 pkg/module_{i}.py 移到 pkg/new/module_{i}.py" for i in range(4))
    said = observations._within(f"破坏性变更（{aside}），但没有改文档", 120)
    assert said.endswith("…），但没有改文档") and len(said) <= 125
    assert observations._within("短的（说明），但没有改文档", 120) == "短的（说明），但没有改文档"


@pytest.mark.parametrize("lang, line, point", [
    ("zh", "据描述实测提速 2.81×", "据描述实测提速 2.81×"),
    # the en brief had dropped the figure: "…in NCCL checkpoint engine (#7291)", its table's point "With tests"
    ("en", "broadcast in NCCL checkpoint engine, measured 2.81× faster", "Measured: 2.81× faster"),
])
def test_a_figure_the_description_measured_is_said_in_either_language(lang: str, line: str, point: str) -> None:
    report = week("08-10", lang)
    item = next(h for h in report["highlights"] if 7291 in h["prs"])
    assert line in item["text"]
    entry = next(p for p in report["prs"] if p["number"] == 7291)
    assert point in entry["points"] and entry["measured"] == point
    assert point in bench_brief.brief(render_markdown(report))  # the key-PR table's row


def test_a_result_stored_before_the_measured_figure_was_kept_gives_its_zh_summarys() -> None:
    assert headline.measured("", "修复广播，据描述实测提速 2.81×。") == "据描述实测提速 2.81×"
    assert headline.measured("Measured: 2.81× faster", "Fix broadcast.") == "Measured: 2.81× faster"
    assert headline.measured("", "Fix broadcast.") == ""


def test_a_headline_that_knows_only_the_diff_says_its_place_once() -> None:
    # verl 08-10's key-PR table said of #7340 only "修复：改动 3 个文件，多为新增"; it names its module now, and the
    # megatron paragraph it stands in does not say the module again
    report = week("08-10")
    pr = next(p for p in report["prs"] if p["number"] == 7340)
    # and the source file it changes most (svelte's "修复：改动 9 个文件" had named none)
    assert pr["headline"] == "修复：megatron 模块，主要改动 `router_replay_utils.py`（共 3 个文件），多为新增"
    paragraph = next(k for k in report["key_changes"] if "#7340" in k["text"])
    assert paragraph["theme"].startswith("megatron 模块") and \
        "#7340 修复：主要改动 `router_replay_utils.py`（共 3 个文件），多为新增" in paragraph["text"]


def test_a_generic_file_name_is_said_with_its_folder():
    # svelte has dozens of index.js: "改动了 `index.js`" named nothing
    files = ["packages/svelte/src/compiler/phases/2-analyze/index.js", "packages/svelte/tests/a/_config.js",
             "packages/svelte/src/compiler/utils.js"]
    assert headline.main_file(files, [[20, 1], [40, 0], [2, 2]], ["source", "test", "source"]) == "2-analyze/index.js"
    assert headline.main_file(files[1:2], [[40, 0]], ["test"]) == ""
    assert headline.by_name("改动了 packages/svelte/src/compiler/phases/2-analyze/index.js（21 行）") == \
        "改动了 2-analyze/index.js（21 行）"  # the risk line's file too
    assert headline.headline("perf: make async blocker analysis linear", "", "perf", ["compiler"], 1, 5, 5,
                             main="analysis.js") == "性能：compiler 模块，改动 `analysis.js`，增删相当"
