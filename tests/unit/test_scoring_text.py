"""Descriptions: template stripping, sections, summary, key points, references, language."""
from __future__ import annotations

from prhub.engine import synopsis, textparse

from tests.unit.engine_support import VERL_TEMPLATE


def test_an_unfilled_template_strips_to_nothing():
    assert textparse.strip_template(VERL_TEMPLATE) == ""
    assert textparse.strip_template("<!-- describe -->\r\n\r\n### Test\r\n\r\nN/A\r\n") == ""


def test_answers_inside_the_old_templates_quotes_are_kept():
    body = "### What does this PR do?\n\n> Adds a search agent recipe (70x less data).\n\n### API\n\n> N/A\n"
    assert textparse.strip_template(body) == "### What does this PR do?\n\nAdds a search agent recipe (70x less data)."


def test_task_lists_go_but_other_lists_and_code_stay():
    body = ("### Changes\n\n- [x] Read the guide\n  wrapped line of the item\n- keep this item\n\n"
            "```python\nprint('kept')\n```\n\n## Checklist\n\n- [x] Pure rename\n- tests pass\n")
    cleaned = textparse.strip_template(body)
    assert "Read the guide" not in cleaned and "wrapped line" not in cleaned
    assert "- keep this item" in cleaned and "print('kept')" in cleaned
    assert "Pure rename" not in cleaned and "tests pass" not in cleaned  # the whole checklist section goes


def test_summary_prefers_the_what_section_and_shortens_at_a_sentence():
    text = "Intro line that is long enough.\n\n### What does this PR do?\n\n" + "First sentence here. " * 30
    summary = synopsis.summarize(text, "fallback", limit=60)
    assert summary.startswith("First sentence here.") and summary.endswith(".") and len(summary) <= 60
    assert synopsis.summarize("", "Fallback title") == "Fallback title"
    assert synopsis.summarize("Fixes #12", "Fallback") == "Fallback"


def test_key_points_are_top_level_items_with_markup_removed():
    text = "1. Add **fast** path\n   continued here\n2. Drop [old](http://x) flag\n   - nested detail\n"
    assert synopsis.key_points(text) == ["Add fast path continued here", "Drop old flag"]


def test_references_and_language():
    assert textparse.references("see #12, (#7278) and https://github.com/o/r/pull/99; color #fff", own=12) \
        == [99, 7278]
    assert textparse.language("修复了 rollout 卡住的问题，原因是没有释放") == "zh"
    assert textparse.language("Fix the rollout hang") == "en"


def test_hostile_descriptions_are_handled_in_linear_time():
    # Each of these made a pattern scan to the end of the text from every position (minutes, not milliseconds).
    for body in ("[" * 200_000, "[a](" * 50_000, "#" + "a " * 100_000 + "x", "- " + "[" * 200_000):
        cleaned = textparse.strip_template(body)
        assert isinstance(synopsis.summarize(cleaned, "fallback"), str)
        assert len(synopsis.key_points(cleaned)) <= 5


def test_key_points_skip_test_evidence_lists():
    text = "### Changes\n\n- clone only views\n\n### Test\n\n- test_clone_skipped passes\n"
    assert synopsis.key_points(text) == ["Clone only views"]


def test_key_points_are_cleaned_sentences_never_credits_images_links_or_pointers():
    # The fragments the issue quotes from a real week, each inside a change list.
    text = ("### Changes\n\n- #7288 and #7287 are carried as-is, credit to @jackychris.\n"
            "- Prepare your function tool definition python file…<br>Add config:\n"
            "- &lt;img width=\"2804\" alt=\"image\" src=\"https://x/y.png\" /&gt;\n"
            "- Green line: trtllm https://wandb.ai/team/run/abc\n"
            "- Please see issue https://github.com/o/r/issues/1\n"
            "- verl/trainer/config/{a,b}.yaml\n"
            "- Fix issue 6026. Add branch for cases where param_offload=True.\n"
            "- Speeds up weight sync 3x. Thanks to @bob for the review.\n"
            "- shard the [delta](https://x/doc) weights per rank\n")
    assert synopsis.key_points(text, limit=10) == ["Add branch for cases where param_offload=True.",
                                                    "Speeds up weight sync 3x.", "Shard the delta weights per rank"]


def test_a_summary_skips_pointer_sentences_and_a_trailing_opener():
    text = "Fix issue 6026. The optimizer offload now keeps its state. The scripts are shown below:"
    assert synopsis.summarize(text, "fallback") == "The optimizer offload now keeps its state."
    assert synopsis.summarize("Please see issue https://github.com/o/r/issues/1", "Fallback") == "Fallback"


def test_chinese_sentences_of_a_summary_follow_each_other_without_a_space():
    # make run's sample #1210 read "…本地时间 02:30 不存在。 现在按 UTC 计算…": two Chinese sentences joined as English
    body = ("夏令时切换的那一小时内，调度器会跳过任务：本地时间 02:30 不存在。"
            "现在按 UTC 计算下一次触发时间，再转换回本地时间。")
    assert synopsis.summarize(body, "x") == body
    assert synopsis._fit(["It adds a cache.", "Misses are logged."], 300) == "It adds a cache. Misses are logged."
