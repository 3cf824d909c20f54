"""bench.brief's measures (issue 45): what a reader sees of the brief, how Chinese it is, English left in it, and
what its highlights name."""
from __future__ import annotations

import re

import pytest

from bench import brief
from bench.zh_share import export_path, export_rows

# A hand-written Chinese brief of verl 2026-05-04..10 (technical names left in English), the calibration point of
# the Chinese share: the issue puts such a brief at 53–57 % Chinese.
HAND_WRITTEN = """# verl 第 19 周简报（05-04 至 05-10）

## 本周亮点

- **工具系统重做**：新增基于函数的工具注册，普通 Python 函数加上 `@function_tool` 即可成为工具（#6189）；工具改由 \
AgentLoopWorker 统一初始化，同时移除已弃用的 MCP 工具支持（#6300）；curriculum 采样器、动态数据集和内置工具示例\
连同配置项一并删除，属于破坏性变更（#6302）。
- **TensorRT-LLM rollout 支持异步 RL**：trtllm rollout 跑通端到端异步训练，收敛与 vLLM 对齐（#5631）；镜像升级到 \
1.3.0rc14，CI 精简（#6230、#6262、#6275）。
- **SGLang 预填充与解码分离**：新增 1P:ND 的 PD 分离式 rollout，单步耗时降低 3–7%（#6117）；修复多节点 profiling 崩溃\
（#6217）。
- **全异步训练支持在线策略蒸馏**：多教师、视觉学生模型均可用（#6056），教师跳过分词器初始化（#6296）。
- **奖励循环**：异步打分可拿到多轮轨迹的全部输出（#6228）；奖励模型配置的 world size、字段名和 _target_ 问题\
在一次回滚后重新修好（#6265、#6226、#6258）。

## 风险速览

- 破坏性变更 2 个：#6302 删除采样器、动态数据集和工具示例；#6300 移除 MCP 工具。
- 回滚 1 个：#6258 回滚了 #6226，随后由 #6265 重新修复。
"""


def test_the_brief_is_what_stands_above_the_appendix_heading():
    text = "# T\n\n## 本周亮点\n\n- a\n\n## 附录\n\n### 模块\n\nrest\n"
    assert brief.brief(text) == "# T\n\n## 本周亮点\n\n- a\n\n"
    assert brief.brief(text.replace("## 附录", "## Appendix")) == "# T\n\n## 本周亮点\n\n- a\n\n"
    # a heading that only starts with the word, or a deeper one, is not the appendix
    assert brief.brief("# T\n\n## 附录说明\n\n### Appendix\n\nx\n") == "# T\n\n## 附录说明\n\n### Appendix\n\nx\n"
    assert not brief.has_appendix("# T\n")


def test_visible_chars_count_link_text_and_drop_urls_syntax_and_pipes():
    snippet = ("# 标题 Title\n\n| 键 | 值 |\n|---|---|\n| a | [链接](<https://example.com/x>) |\n\n"
               "- \\#12 `code` **粗体** https\\://example.com/y &amp;\n")
    # 标题Title (7) + 键 值 a 链接 (5) + #12 code 粗体 & (3 + 4 + 2 + 1); no URL, pipe, star, backslash or dash
    assert brief.visible_chars(snippet) == 22
    text = brief.visible_text(snippet)
    assert "example.com" not in text and "|" not in text and "*" not in text and "\\" not in text
    # raw HTML is shown as the text it is, not hidden as a tag, but for the key-PR table's own line break
    # between two points, which GitHub renders as one; an escaped one is an author's text
    assert brief.visible_chars("<b>x</b>") == 8
    assert brief.visible_chars("| 键 |\n|---|\n| 附带测试<br>未改测试 |\n") == 9
    assert brief.visible_chars("| 键 |\n|---|\n| a\\<br\\>b |\n") == 7


def test_chinese_share_counts_cjk_against_letters_and_digits_with_code_and_urls_cut():
    # CJK 修复 的 (3); letters vLLM bug (7); digits 12 (2); the code span and the URL are not counted
    assert brief.chinese_share("修复 vLLM 的 bug（#12）`some_code` https://x.y/abc") == pytest.approx(3 / 12)
    # tables count: 中文 (2) against ab (2)
    assert brief.chinese_share("| 中文 | ab |\n|---|---|\n| | |\n") == pytest.approx(0.5)
    assert brief.chinese_share("") == 0.0
    # the calibration point: a hand-written brief reads inside the 53–57 %
    assert 0.53 <= brief.chinese_share(HAND_WRITTEN) <= 0.57
    # letters alone (the old prose share) would put the same brief far above it
    text = brief.visible_text(HAND_WRITTEN, code=False)
    cjk, latin = len(brief.CJK.findall(text)), len(brief.LATIN.findall(text))
    assert cjk / (cjk + latin) > 0.65


def test_english_quotes_need_three_english_words_in_a_row():
    text = ('修复：“fix the bug now”；“修复 bug”；"a b"；新功能："use X for Y"；“v1.8 发布 now”\n'
            "### tool：“Memory snapshot collection, add…\n下一段")
    assert brief.english_quotes(text) == ["fix the bug now", "use X for Y", "Memory snapshot collection, add…"]
    # a clipped quote does not swallow the next line's quotation
    assert brief.english_quotes("“a b c…\n“修复”") == ["a b c…"]


def test_english_runs_are_six_words_or_more():
    assert brief.english_runs("修复 add a new flag to the cli 并且 one two three four five") == [
        "add a new flag to the cli"]
    assert brief.english_runs("fix seq_len pad len, and adapt to mtp_loss") == [
        "fix seq_len pad len, and adapt to mtp_loss"]
    assert brief.english_runs("SDFT/SDPO: live teacher logprobs from vLLM") == [
        "SDFT/SDPO: live teacher logprobs from vLLM"]
    assert brief.english_runs("one two three. four five six") == []


def test_a_theme_over_nested_subjects_counts_as_its_subjects():
    part = "\n- 实验特性\n  - [\\#1](<u>) a\n  - [\\#2](<u>) b\n- x：[\\#3](<u>) c\n  - 续 #4\n"
    assert [brief.refs(i) for i in brief.items(part)] == [{1}, {2}, {3, 4}]  # a head citing a PR stays one item


def test_highlight_items_and_their_refs():
    report_md = ("# T\n\n## 本周亮点\n\n- 工具：[\\#6302](<https://x/6302>) 移除，同组 [\\#6189](<https://x/6189>)\n"
                 "  续行 #6300\n- [\\#5631](<https://x/5631>) 异步\n\n## 风险速览\n\n- #9999\n")
    part = brief.section(report_md, "本周亮点")
    assert [brief.refs(i) for i in brief.items(part)] == [{6302, 6189, 6300}, {5631}]
    themed = "## 本周亮点\n\n### 工具\n\n- #1\n- #2\n\n### 奖励\n\n#3\n\n## 附录\n"
    assert [brief.refs(i) for i in brief.items(brief.section(themed, "本周亮点"))] == [{1, 2}, {3}]
    assert brief.section(report_md, "本月亮点") == ""


def test_highlight_misses_name_breaking_and_top_prs_left_out():
    report = {"prs": [{"number": 1, "importance": 9.0, "breaking": True}, {"number": 2, "importance": 8.0},
                      {"number": 3, "importance": 7.0}, {"number": 4, "importance": 6.0, "breaking": True},
                      {"number": 5, "importance": 1.0}]}
    assert brief.highlight_misses(report, {2, 3}) == {"breaking": [1, 4], "top": [1]}
    assert brief.highlight_misses(report, {1, 2, 3, 4}) == {"breaking": [], "top": []}
    # the top three are chosen by importance, not by their order in the report
    shuffled = {"prs": list(reversed(report["prs"]))}
    assert brief.highlight_misses(shuffled, set()) == {"breaking": [4, 1], "top": [1, 2, 3]}


def test_panel_hits_and_pairwise_grouping():
    themes = [{"prs": [1, 2, 3]}, {"prs": [4, 5]}, {"prs": [6]}]
    hits = brief.panel_hits(themes, [{1, 2}, {3, 4}, {7}])
    assert hits["pr_hits"] == [4, 6] and hits["lead_hits"] == [2, 3] and hits["missed"] == [5, 6]
    # among the PRs both name (1-4): the report pairs (1,2) and (3,4), the panel (1,2) (1,3) (2,3)
    assert hits["pair_precision"] == pytest.approx(1 / 2) and hits["pair_recall"] == pytest.approx(1 / 3)
    none = brief.panel_hits(themes, [])
    assert none["pr_hits"] == [0, 6] and none["pair_precision"] is None and none["pair_recall"] is None


def test_the_panel_file_is_complete_and_marks_the_held_out_weeks():
    import json

    panel = json.loads(brief.PANEL.read_text(encoding="utf-8"))
    assert panel["written"] == "2026-12-06"
    held = {(w["repo"], w["since"]) for w in panel["weeks"] if w["held_out"]}
    assert held == {("verl-project/verl", "2026-07-27"), ("huggingface/trl", "2026-07-06")}
    for week in panel["weeks"]:
        assert 3 <= len(week["themes"]) <= 6
        numbers = [n for t in week["themes"] for n in t["prs"]]
        assert len(numbers) == len(set(numbers))  # a PR sits in one theme
        assert all(t["why"] and t["name"] for t in week["themes"])


@pytest.mark.skipif(not export_path("verl-project/verl").exists(), reason="the verl export is not here")
def test_the_highlights_read_from_report_md_are_the_report_s_highlights():
    from prhub.site.render.markdown import render_markdown

    from bench.zh_share import build

    report = build(export_rows("verl-project/verl"), "2026-05-04", "2026-05-10", lang="en")
    figures = brief.measure(report)
    wanted = [set(h["prs"]) | {int(n) for n in re.findall(r"#(\d+)", h["text"])} for h in report["highlights"]]
    assert [set(g) for g in figures["highlight_groups"]] == wanted
    assert figures["brief_chars"] == brief.visible_chars(brief.brief(render_markdown(report))) > 1000
    assert "zh_share" not in figures
