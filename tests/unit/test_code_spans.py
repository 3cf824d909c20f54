"""Code in titles and prose ("`Source::is_yanked`", snake_case, files) is shown as code in every rendering, and
an author's backticks can never break out of it (issue 45: technical names set as code, as a hand-written brief
sets them)."""
from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt
from prhub.core.text import code_name, pieces
from prhub.site.render.html import html_text
from prhub.site.render.markdown import md_text


def _code(text: str) -> list[str]:
    return [p.text for p in pieces(text, {}) if p.code]


def test_names_that_read_as_code_are_code_and_product_names_stay_words():
    assert _code("删除公共模块 __init__.py、sampler.py") == ["__init__.py", "sampler.py"]
    assert _code("涉及request_id的修改，改用RewardModelConfig。") == ["request_id", "RewardModelConfig"]
    assert _code("丢弃 `Source::is_yanked` 和 torch.compile()") == ["Source::is_yanked", "torch.compile()"]
    assert _code("DeepSeek-V4 SGLang vLLM VeOmni Qwen3.5-122b-a10b multi-output e.g. v0.17 CI/CD") == []
    assert _code("见 https://example.com/a_b") == []  # a URL is not a name
    assert not code_name("__") and code_name("verl/trainer/ppo_trainer.yaml")


def test_pr_references_outside_code_are_still_linked():
    got = [(p.text, p.url, p.code) for p in pieces("#12 修复 `#13` 与 foo_bar", {12: "u12", 13: "u13"})]
    assert got == [("#12", "u12", False), (" 修复 ", None, False), ("#13", None, True), (" 与 ", None, False),
                   ("foo_bar", None, True)]


@pytest.mark.parametrize("hostile", [
    "`</code><script>alert(1)</script>`", "`a|b` 与 `<img src=x onerror=alert(1)>`", "``` `x` ```",
    "`[link](https://evil.example)`", "`a\\` b `c`"])
def test_an_authors_backticks_never_make_markup_or_split_a_table_cell(hostile):
    md = MarkdownIt("commonmark", {"html": False}).enable(["table"])
    row = f"| 1 | {md_text(hostile)} | 2 |"
    rendered = md.render(f"| a | b | c |\n|---|---|---|\n{row}\n")
    assert not re.search(r"<(?!/?(?:table|thead|tbody|tr|th|td|code)\b)", rendered)
    assert rendered.count("<td") == 3  # the row keeps its three cells
    html = str(html_text(hostile, {}))
    assert not re.search(r"<(?!/?code>)", html)


def test_a_code_span_renders_as_code_in_markdown_and_html():
    assert md_text("丢弃 `Source::is_yanked`") == "丢弃 `Source::is_yanked`"
    assert md_text("a *b* c_d") == "a \\*b\\* `c_d`"
    assert str(html_text("改用 RewardModelConfig <b>", {})) == "改用 <code>RewardModelConfig</code> &lt;b&gt;"
