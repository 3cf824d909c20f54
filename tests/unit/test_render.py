"""The renderings: section order, empty sections left out, numbers and links from the report, wrapping."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prhub.core.text import clean, num, safe_url
from prhub.site.render.html import render_html
from prhub.site.render.markdown import md, render_markdown
from prhub.site.render.pdfdoc import NO_LINE_START, Run, wrap
from prhub.site.render.view import view

from tests.golden.cases import load
from tests.unit.render_support import markdown_to_html, parse_html, pdf_text, render_all_strict

# The brief, then one appendix heading with the rest below it (issue 45).
ZH_ORDER = ["本周亮点", "风险速览（每类的全部 PR 见附录「风险详情」）", "执行摘要", "关键变更", "关键 PR", "后续建议",
            "未评分 PR", "说明", "附录"]
ZH_APPENDIX = ["模块与主题趋势", "风险详情", "相关 PR", "全部合并 PR"]


@pytest.fixture(scope="module")
def rendered():
    """render_all per golden case, once per module (the PDF takes about a second)."""
    cache: dict[str, dict[str, bytes]] = {}
    return lambda case: cache.setdefault(case, render_all_strict(load(case)))


def test_markdown_sections_come_in_reading_order():
    text = render_markdown(load("zh-week"))
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[: len(ZH_ORDER)] == ZH_ORDER
    appendix = text.split("\n## 附录\n", 1)[1]
    assert re.findall(r"^### (.+)$", appendix, re.MULTILINE) == ZH_APPENDIX
    assert "#### 模块" in appendix  # a section's own subheadings one level below it
    assert text.startswith("# example-org/trainer 2026 年第 19 周周报（05-04 至 05-10）\n")


def test_empty_sections_are_left_out_not_printed_empty():
    report = load("en-small")
    text = render_markdown(report)
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings == ["Highlights", "Executive summary", "Key PRs", "Appendix"]
    assert re.findall(r"^### (.+)$", text, re.MULTILINE) == ["Module and theme trends", "All merged PRs"]
    page = render_html(report)
    assert 'id="risks"' not in page and 'id="suggestions"' not in page and 'id="highlights"' in page


@pytest.mark.parametrize("case", ["zh-week", "en-small"])
def test_every_pr_number_links_to_its_url_from_the_data(case):
    """Markdown links to GitHub (it travels without the site); the web page to the PR's own page beside it."""
    report = load(case)
    text = render_markdown(report)
    page = render_html(report)
    for pr in report["prs"] + report["unscored"]:
        if pr.get("key") is False and not any(pr["number"] in h["prs"] for h in report["highlights"]):
            continue
        assert f"[\\#{pr['number']}](<{pr['url']}>)" in text
        scored = pr in report["prs"]
        assert (f'href="../../pull/{pr["number"]}/"' if scored else f'href="{pr["url"]}"') in page


def test_a_report_in_another_language_links_to_the_pr_pages_in_that_language_and_its_navigation_goes_one_up():
    report = load("en-small")
    page = render_html(report, home="zh")
    number = report["prs"][0]["number"]
    assert f'href="../../../pull/{number}/en/"' in page
    assert 'href="../../../../../"' in page and 'href="../../../en/feed.xml"' in page


def test_a_pr_number_without_a_url_in_the_data_is_plain_text():
    text = render_markdown(load("zh-week"))
    assert "回滚了 \\#4090" in text  # #4090 is not in this week's PRs: no URL to link to


@pytest.mark.parametrize("case", ["zh-week", "en-small"])
def test_markdown_html_and_pdf_print_the_numbers_of_report_json(case, tmp_path, rendered):
    report = load(case)
    files = rendered(case)
    assert json.loads(files["report.json"]) == report
    s = report["stats"]
    expected = [num(s["pr_count"]), num(s["avg_importance"]), num(s["avg_insight"]),
                f"+{s['additions']} / -{s['deletions']}"]
    expected += [num(p["importance"]) for p in report["prs"] if p["key"]]
    html_text = " ".join(parse_html(files["index.html"].decode()).text)
    md_text = files["report.md"].decode()
    pdf = pdf_text(files["report.pdf"], tmp_path)
    for value in expected:
        assert value in md_text and value in html_text and value in pdf, value


def test_derived_numbers_come_from_one_helper_for_every_rendering():
    assert num(5.5) == "5.5" and num(7.0) == "7.0" and num(3) == "3" and num(6.25) == "6.25"
    v = view(load("zh-week"))
    trends = {s.id: s.data for s in [*v.sections, *v.appendix]}["trends"]
    module = trends["modules"][1]
    assert (module["pr_count"], module["baseline"], module["delta"], module["trend"]) == ("2", "1.0", "+1.0", "上升")


@pytest.mark.parametrize("url, expected", [
    ("https://github.com/a/b/pull/1", "https://github.com/a/b/pull/1"),
    ("HTTP://example.com/x", "HTTP://example.com/x"),
    ("javascript:alert(1)", None),
    (" JaVaScRiPt:alert(1)", None),
    ("java\u200bscript:alert(1)", None),
    ("data:text/html,<b>", None),
    ("//evil.example/x", None),
    ("https:///nohost", None),
    ("ftp://example.com/f", None),
    (None, None),
    ('https://x.example/a" onclick="b', "https://x.example/a%22%20onclick=%22b"),
    ("https://x.example/a)(b<c>", "https://x.example/a%29%28b%3Cc%3E"),
])
def test_only_http_urls_become_links_and_they_cannot_break_out(url, expected):
    assert safe_url(url) == expected


def test_clean_removes_controls_bidi_overrides_and_zero_width_characters():
    assert clean("a\x00b\u202ec\u200bd\ufeff\r\n e\x1b[1m") == "abcd e[1m"


@pytest.mark.parametrize("text", [
    "[x](https://evil.example)", "![i](https://evil.example/i.png)", "<https://evil.example>",
    "see https://evil.example/page", "www.evil.example", "a@evil.example", "<b onclick=x>hi</b>",
    "[x]: https://evil.example", "&#x3C;script&#x3E;", "javascript:alert(1)",
])
def test_md_escape_leaves_no_link_image_or_tag(text):
    html = markdown_to_html(f"- {md(text)}\n\n| {md(text)} |\n|---|\n| {md(text)} |\n")
    tags = parse_html(html)
    assert not [t for t, _ in tags.tags if t in ("a", "img", "b", "script")], html
    assert clean(text) in "".join(tags.text)  # shown literally, entities included


@pytest.mark.parametrize("start", ["1. item", "- item", "+ item", "# title", "> quote", "=== x"])
def test_md_escape_keeps_paragraphs_paragraphs(start):
    html = markdown_to_html(md(start) + "\n")
    assert html.startswith("<p>") and clean(start) in parse_html(html).text[0]


def _chars(text: str) -> float:
    return float(len(text))


def test_wrap_breaks_chinese_per_character_and_never_starts_a_line_with_closing_punctuation():
    text = "一二三四五，六七八九十。一二三四五六七八九，十一二三四五六七八九十？"
    lines = ["".join(r.text for r in line) for line in wrap([Run(text)], 5, _chars)]
    assert "".join(lines) == text
    assert all(len(line) <= 5 for line in lines)
    assert not any(line[0] in NO_LINE_START for line in lines)
    assert lines[:2] == ["一二三四", "五，六七八"]  # "五" moved down with the comma


def test_wrap_keeps_latin_words_whole_and_cuts_words_longer_than_a_line():
    lines = ["".join(r.text for r in line) for line in wrap([Run("alpha beta " + "x" * 23)], 10, _chars)]
    assert lines == ["alpha beta", "xxxxxxxxxx", "xxxxxxxxxx", "xxx"]


def test_wrap_keeps_links_on_their_runs():
    lines = wrap([Run("see "), Run("#12", "https://x.example/12")], 6, _chars)
    assert [(r.text, r.link) for line in lines for r in line] == [("see", None), ("#12", "https://x.example/12")]


def test_pdf_has_bookmarks_a_subset_cjk_font_and_page_numbers(tmp_path, rendered):
    import shutil
    import subprocess

    pdf = rendered("zh-week")["report.pdf"]
    assert b"/Outlines" in pdf
    text = pdf_text(pdf, tmp_path)
    assert "本周亮点" in text and "执行摘要" in text
    assert re.search(r"第\s*1\s*页\s*/\s*4", text) and re.search(r"第\s*4\s*页\s*/\s*4", text)
    if shutil.which("pdffonts"):
        (tmp_path / "r.pdf").write_bytes(pdf)
        fonts = subprocess.run(["pdffonts", str(tmp_path / "r.pdf")], capture_output=True, text=True).stdout
        row = next(line for line in fonts.splitlines() if "NotoSansCJK" in line)
        assert re.match(r"^[A-Z]{6}\+", row) and " yes yes " in row  # subset prefix, embedded, subset


def test_pdf_of_an_english_report_has_no_chinese_labels(tmp_path, rendered):
    text = pdf_text(rendered("en-small")["report.pdf"], tmp_path)
    assert "Key PRs" in text and "关键" not in text


def test_missing_font_is_a_clear_error(monkeypatch, tmp_path):
    from prhub.core.errors import PrhubError
    from prhub.site.render.pdffont import font_location

    with pytest.raises(PrhubError, match="PRHUB_CJK_FONT"):
        font_location(str(tmp_path / "none.otf"))


def test_font_location_reads_a_face_of_the_configured_font():
    from prhub.site.render.pdffont import DEBIAN_FONT, font_location

    path = DEBIAN_FONT.partition("#")[0]
    if not Path(path).is_file():
        pytest.skip("fonts-noto-cjk is not installed")
    assert font_location(f"{path}#2") == (path, 2)


def test_settings_carry_the_configured_font_from_the_environment():
    from prhub.core.config import Settings

    names = ("RUNS_TABLE", "RESULTS_TABLE", "CACHE_TABLE", "IDEMPOTENCY_TABLE", "SCORE_QUEUE_URL",
             "REPORT_QUEUE_URL", "SITE_BUCKET", "PAGES_QUEUE_URL")
    env = {name: "x" for name in names}
    assert Settings.from_env(env).cjk_font == ""
    assert Settings.from_env({**env, "PRHUB_CJK_FONT": " /fonts/a.ttc#2 "}).cjk_font == "/fonts/a.ttc#2"


def test_the_font_cut_keeps_every_label_character():
    from cut_font import common_codepoints, ideograph_codepoints
    from prhub.site.render.labels import labels

    kept = common_codepoints()
    words = {ch for lang in ("zh", "en") for kind in ("week", "pull") for w in labels(lang, kind).values()
             for ch in w if not ch.isspace()}
    assert words and {ch for ch in words if ord(ch) not in kept} == set()
    assert ord("修") in kept and ord("龘") not in kept  # GB 2312 in, a rare character out
    larger = ideograph_codepoints()
    assert kept < larger and {ord(c) for c in "龘楽鐘ぁヶ"} <= larger and ord("한") not in larger


def test_the_cut_draws_the_fonts_glyphs_with_truetype_outlines(tmp_path):
    """The cut's CFF outlines become TrueType ones (half the subsetting per PDF): same glyphs, same advances,
    bounds within cu2qu's tolerance, and a PDF written with it keeps its text."""
    from cut_font import MAX_ERROR, to_truetype
    from fontTools import subset
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont
    from prhub.core.errors import PrhubError
    from prhub.site.render.labels import labels
    from prhub.site.render.pdf import render_sections
    from prhub.site.render.pdffont import font_location

    try:
        path, face = font_location()
    except PrhubError as exc:
        pytest.skip(str(exc))
    sample = "修复 rollout 的缓存：风险、测试 − ✓ Ag#12"
    words = labels("zh", "pull")
    font = TTFont(path, fontNumber=face, lazy=True)
    cutter = subset.Subsetter(subset.Options(notdef_outline=True, name_IDs=["*"], desubroutinize=True))
    cutter.populate(text=sample + "".join(words.values()))
    cutter.subset(font)
    if "CFF " not in font:
        pytest.skip(f"{path} has TrueType outlines already")
    cmap = font.getBestCmap()
    before = {ch: (font["hmtx"][cmap[ord(ch)]], _bounds(font, cmap[ord(ch)], BoundsPen)) for ch in "修缓A−✓"}
    to_truetype(font)
    font.save(str(tmp_path / "cut.ttf"))
    ttf = TTFont(str(tmp_path / "cut.ttf"))
    assert "glyf" in ttf and "CFF " not in ttf and ttf.sfntVersion == "\x00\x01\x00\x00"
    for ch, (advance, box) in before.items():
        glyph = ttf.getBestCmap()[ord(ch)]
        assert ttf["hmtx"][glyph] == advance
        assert all(abs(a - b) <= MAX_ERROR + 1 for a, b in zip(_bounds(ttf, glyph, BoundsPen), box, strict=True)), ch
    pdf = render_sections(sample, words, {}, ["作者 alice"], [], font=str(tmp_path / "cut.ttf"))
    assert "修复 rollout 的缓存：风险、测试" in pdf_text(pdf, tmp_path)


def _bounds(font, glyph, pen_type):
    pen = pen_type(font.getGlyphSet())
    font.getGlyphSet()[glyph].draw(pen)
    return pen.bounds


def test_a_pdf_uses_the_cut_font_only_when_it_has_every_character(tmp_path):
    from prhub.site.render.labels import labels
    from prhub.site.render.pdf import render_sections
    from prhub.site.render.pdffont import COMMON_FONTS, codepoints, font_for, font_location

    cut = next((str(c) for c in COMMON_FONTS if c.is_file()), None)
    if cut is None:
        pytest.skip(f"no font cut at {COMMON_FONTS[-1]}: `make setup` (or make test) writes it")
    words = labels("zh", "pull")
    frequent = str(Path(cut).with_name("NotoSansSC-Frequent.ttf"))
    assert font_for(set(codepoints(["修复 rollout 的缓存", words]))) == (frequent, 0)
    assert font_for(set(codepoints(["修复 rollout 的缓存 阈值", words]))) == (frequent, 0)  # the engine's own word
    assert font_for(set(codepoints(["修复 rollout 的缓存 亟", words]))) == (cut, 0)  # GB 2312's level 2
    ideographs = str(Path(cut).with_name("NotoSansSC-Ideographs.ttf"))
    assert font_for(set(codepoints(["龘 楽 鐘 修复", words]))) == (ideographs, 0)  # traditional and Japanese forms
    assert font_for(set(codepoints(["한 修复", words]))) == font_location()  # Hangul: only the whole font has it
    assert font_for(set(codepoints(["😀 修复", words]))) == (frequent, 0)  # no font draws it
    latin = str(Path(cut).with_name("NotoSansSC-Latin.ttf"))
    assert font_for(set(codepoints(["Fix the rollout cache → 2× faster", labels("en", "pull")]))) == (latin, 0)
    assert font_for(set(codepoints(["Fix the rollout cache 修复", labels("en", "pull")]))) == (frequent, 0)
    english = render_sections("Fix the rollout cache #12", labels("en", "pull"), {}, ["by alice"], [])
    assert "Fix the rollout cache #12" in pdf_text(english, tmp_path)
    rare = render_sections("한 龘 修复 rollout #12", words, {}, ["作者 alice"], [])
    common = render_sections("修复 rollout #12", words, {}, ["作者 alice"], [])
    assert "한 龘 修复 rollout #12" in pdf_text(rare, tmp_path)
    assert "修复 rollout #12" in pdf_text(common, tmp_path)
    assert len(common) < len(rare)
def test_pdfs_share_one_parse_of_the_font_and_each_embeds_only_its_own_glyphs(tmp_path):
    from prhub.core.errors import PrhubError
    from prhub.site.render.labels import labels
    from prhub.site.render.pdf import render_sections
    from prhub.site.render.pdffont import _parsed_font, font_location

    try:
        font_location()
    except PrhubError as exc:
        pytest.skip(str(exc))

    def pdf(title: str) -> bytes:  # without the creation date, the one thing that differs between two renders
        body = render_sections(title, labels("zh"), {}, ["仓库 o/r"], [])
        return re.sub(rb"/CreationDate \([^)]*\)|/ID \[[^\]]*\]|<xmp:CreateDate>[^<]*</xmp:CreateDate>", b"", body)

    first = pdf("甲乙丙 alpha")
    hits, misses = _parsed_font.cache_info().hits, _parsed_font.cache_info().misses
    other = pdf("丁戊己 omega")
    again = pdf("甲乙丙 alpha")
    assert _parsed_font.cache_info().hits == hits + 2 and _parsed_font.cache_info().misses == misses
    assert again == first  # the other document's glyphs did not leak into this one's subset
    text = pdf_text(other, tmp_path)
    assert "丁戊己 omega" in text and "甲" not in text


def test_risk_detail_shows_per_pr_items_when_given_else_the_detail():
    report = load("zh-week")
    with_items = render_markdown(report)
    assert "- [\\#4120](<https://github.com/example-org/trainer/pull/4120>)：sglang worker 的改动没有测试" in with_items
    report["risks"][1].pop("items")
    without = render_markdown(report)
    assert "critic 前向逻辑变化没有对应测试。 ([\\#4107]" in without


def test_pr_numbers_in_narrative_text_link_only_when_the_data_has_the_pr():
    report = load("zh-week")
    report["summary"] = "见 #4107 与 #9999，以及 &#4101; 和 x#4110"
    text = render_markdown(report)
    assert "见 [\\#4107](<https://github.com/example-org/trainer/pull/4107>) 与 \\#9999" in text
    assert "\\&\\#4101;" in text and "x\\#4110" in text
    summary = render_html(report).split('id="summary"', 1)[1].split("</section>", 1)[0]
    hrefs = parse_html(summary).hrefs()
    assert hrefs == ["../../pull/4107/"]  # the PR's page on the site
    assert "&amp;#4101;" in summary


def test_an_empty_week_renders_a_short_report_everywhere(tmp_path):
    report = load("en-small")
    report.update(prs=[], modules=[], highlights=[], summary="No PRs were merged.", trends={"weeks": []},
                  stats={**report["stats"], "pr_count": 0, "key_pr_count": 0, "avg_importance": 0.0,
                         "avg_insight": 0.0, "additions": 0, "deletions": 0, "authors": 0})
    files = render_all_strict(report)
    md = files["report.md"].decode()
    assert re.findall(r"^## (.+)$", md, re.MULTILINE) == ["Executive summary"]
    assert "| Avg importance | — |" in md and "0.0" not in md  # no PR, no average (issue 46)
    assert "<svg" not in files["index.html"].decode()
    assert "No PRs were merged." in pdf_text(files["report.pdf"], tmp_path)


def test_every_section_kind_has_a_layout_in_each_rendering():
    from prhub.site.render.html import environment as html_env
    from prhub.site.render.markdown import environment as md_env
    from prhub.site.render.pdf import LAYOUTS
    from prhub.site.render.pull import PULL_KINDS
    from prhub.site.render.view import APPENDIX, BRIEF

    kinds = {kind for _, _, kind, _ in [*BRIEF, *APPENDIX]} | PULL_KINDS
    assert kinds == set(LAYOUTS)
    for env, name in ((md_env(), "sections.md.j2"), (html_env(), "sections.html.j2")):
        module = env.get_template(name).make_module({"words": {}, "links": {}})
        assert all(callable(getattr(module, kind, None)) for kind in kinds), name


def test_a_theme_heading_several_highlights_is_said_once_with_its_subjects_under_it(tmp_path):
    # trl 2026-06-08 read "实验特性：" at the head of four of its five highlights
    report = load("zh-week")
    texts = [("rollout 模块：[破坏性变更] #4101 统一异步配置。", [4101], "rollout 模块"),
             ("critic 模块：#4107 支持梯度检查点。", [4107], "critic 模块"),
             ("[破坏性变更] rollout 模块：#4110 修正损失缩放。", [4110], "rollout 模块")]
    report["highlights"] = [{"text": t, "prs": p, "theme": th} for t, p, th in texts]
    md_text = render_markdown(report)
    part = md_text.split("## 本周亮点", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in part.splitlines() if ln.strip()]
    assert lines[0] == "- rollout 模块"  # at its first item's place, said once
    assert lines[1].startswith("  - \\[破坏性变更\\] [\\#4101]")
    assert lines[2].startswith("  - \\[破坏性变更\\] [\\#4110]")
    assert lines[3].startswith("- critic 模块：[\\#4107]")  # a theme of one item keeps its line
    assert part.count("rollout 模块") == 1
    html = render_all_strict(report)
    page = html["index.html"].decode()
    assert re.search(r"<li>rollout 模块<ul><li>\[破坏性变更\] <a [^>]*>#4101</a>", page)
    text = pdf_text(html["report.pdf"], tmp_path)
    assert "rollout 模块" in text and text.count("rollout 模块") == 1 and "– [破坏性变更] #4110" in text
    # a model's highlights carry no theme: one item each, as written
    report["highlights"] = [{"text": t, "prs": p} for t, p, _ in texts]
    assert render_markdown(report).count("rollout 模块") == 2


def test_prs_after_a_text_that_names_prs_are_said_to_be_more_not_its_sources(tmp_path):
    # vite 2026-08-17: "例如 #23217：改动 2020 行，涉及 49 个文件（#23319）" read as if #23319 were the figures' source
    report = load("zh-week")
    report["highlights"] = [{"text": "超大改动：2 个 PR，例如 #4101：改动 2020 行。", "prs": [4101, 4107]},
                            {"text": "序列打包下的损失缩放得到修正。", "prs": [4110]}]
    part = render_markdown(report).split("## 本周亮点", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"改动 2020 行。（另见 \[\\#4107\]", part)
    assert re.search(r"得到修正。（\[\\#4110\]", part)  # a text naming no PR: the list is what it is about
    page = render_all_strict(report)
    assert re.search(r"改动 2020 行。（另见 <a [^>]*>#4107</a>", page["index.html"].decode())
    text = pdf_text(page["report.pdf"], tmp_path)
    assert "（另见 #4107）" in text and "得到修正。（#4110）" in text
    # a key change's paragraph likewise
    report["key_changes"] = [{"theme": "rollout 模块", "text": "#4101 统一异步配置。", "prs": [4101, 4120]}]
    part = render_markdown(report).split("### rollout 模块", 1)[1]
    assert re.search(r"统一异步配置。（另见 \[\\#4120\]", part)
    page = render_all_strict(report)
    assert re.search(r"统一异步配置。（另见 <a [^>]*>#4120</a>", page["index.html"].decode())
    assert "统一异步配置。（另见 #4120）" in pdf_text(page["report.pdf"], tmp_path)


def test_a_line_opens_with_a_capital_only_when_its_first_word_is_a_plain_word():
    from prhub.core.text import capitalised
    assert capitalised("add the entropy bonus") == "Add the entropy bonus"
    # verl #7051 "`gen_batch_size` falls back to `train_batch_size`" read "Gen_batch_size falls back…"
    assert capitalised("gen_batch_size falls back") == "gen_batch_size falls back"
    assert capitalised("vLLM: sync weights") == "vLLM: sync weights" and capitalised("x86 build") == "x86 build"
    assert capitalised("fix: y") == "Fix: y" and capitalised("") == ""
