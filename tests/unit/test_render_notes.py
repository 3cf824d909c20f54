"""Narrative notes (trends, risk observations, relations), risk-kind labels and the new-contributor label in
every rendering."""
from __future__ import annotations

import copy
import re

import pytest
from prhub.site.render.labels import risk_label
from prhub.site.render.view import view

from tests.golden.cases import load
from tests.unit.render_support import pdf_text, render_all_strict


def section(md: str, heading: str) -> str:
    """The Markdown between `## heading` (or the appendix's `### heading`) and the next heading of its level."""
    aside = r"(?: ?[（(][^\n]*)?"  # "## Risks at a glance (every PR … is in the appendix, …)"
    match = (re.search(rf"^## {re.escape(heading)}{aside}\n(.*?)(?=^## |\Z)", md, re.MULTILINE | re.DOTALL) or
             re.search(rf"^### {re.escape(heading)}\n(.*?)(?=^##?# |\Z)", md, re.MULTILINE | re.DOTALL))
    assert match, f"no section {heading}"
    return match.group(1)


def with_notes(case: str = "en-small") -> dict:
    report = copy.deepcopy(load(case))
    report["trend_notes"] = [{"text": "trainer doubled against its 4-week average", "prs": [4107]}]
    report["risk_notes"] = [{"text": "#4107 turns on checkpointing for all critics", "prs": [4107]}]
    report["relation_notes"] = [{"text": "#4112 pins the image #4107 is tested on", "prs": [4107, 4112]}]
    report["risks"] = [{"kind": "missing_tests", "prs": [4112], "detail": "no test",
                        "items": [{"pr": 4112, "detail": "no test"}]}]
    return report


def test_notes_show_in_their_sections_in_markdown_html_and_pdf(tmp_path):
    files = render_all_strict(with_notes())
    md = files["report.md"].decode()
    assert "trainer doubled against its 4-week average" in section(md, "Module and theme trends")
    brief = section(md, "Risks at a glance")
    assert "turns on checkpointing for all critics" in brief
    assert "**Missing tests**" in brief  # a kind no observation covers keeps its line
    related = section(md, "Related PRs")
    assert "pins the image" in related and "[\\#4112](<https://github.com/example-org/trainer/pull/4112>)" in related
    html = files["index.html"].decode()
    for sid, text in [("trends", "doubled against"), ("risks-brief", "turns on checkpointing"),
                      ("related", "pins the image")]:
        body = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.DOTALL)
        assert body and text in body.group(1), sid
    pdf = re.sub(r"\s+", " ", pdf_text(files["report.pdf"], tmp_path))
    for text in ("doubled against its 4-week", "turns on checkpointing", "pins the image"):
        assert text in pdf


def test_a_pr_the_note_already_cites_is_not_listed_again():
    related = {s.id: s.data for s in view(with_notes()).appendix}["related"]
    notes = related["relation_notes"]
    assert [r["label"] for r in notes[0]["prs"]] == []  # both #4107 and #4112 are in the text


def test_empty_notes_leave_no_trace():
    report = with_notes()
    report["trend_notes"] = report["risk_notes"] = report["relation_notes"] = []
    report["risks"] = []
    md = render_all_strict(report)["report.md"].decode()
    assert "Risks at a glance" not in md and "Related PRs" not in md


@pytest.mark.parametrize("kind", ["prompt_injection", "security", "performance", "compatibility", "other"])
def test_model_risk_kinds_have_labels_in_both_languages(kind):
    assert risk_label(kind, "zh") != kind and re.search(r"[\u4e00-\u9fff]", risk_label(kind, "zh"))
    assert risk_label(kind, "en") != kind and risk_label(kind, "en")[0].isupper()


def test_an_unknown_risk_kind_renders_as_itself_escaped():
    report = copy.deepcopy(load("en-small"))
    report["risks"] = [{"kind": "<img src=x onerror=alert(1)>_odd", "prs": [4107], "detail": "d", "items": []}]
    files = render_all_strict(report)
    assert "&lt;img src=x onerror=alert(1)&gt;_odd" in files["index.html"].decode()
    assert "<img" not in files["index.html"].decode().split("<main", 1)[1]
    assert "\\<img src=x onerror=alert\\(1\\)\\>\\_odd" in files["report.md"].decode()


@pytest.mark.parametrize(("window", "zh", "en"), [(4, "此前 4 周未出现过的贡献者", "Not seen in the 4 weeks before"),
                                                 (0, "新贡献者", "New contributors")])
def test_new_contributors_are_labelled_by_how_far_the_history_reaches(window, zh, en, tmp_path):
    for language, label in (("zh", zh + "："), ("en", en + ": ")):
        report = copy.deepcopy(load("zh-week"))
        report["language"] = language
        report["stats"]["new_contributors_window"] = window
        files = render_all_strict(report)
        assert f"\n{label}gina\n" in files["report.md"].decode()  # named after the appendix, beside the byline
        assert f"<p>{label}gina</p>" in files["index.html"].decode()
        assert f"{label}gina" in pdf_text(files["report.pdf"], tmp_path)


def test_the_key_pr_table_shows_at_most_three_key_points():
    report = copy.deepcopy(load("en-small"))
    key = next(p for p in report["prs"] if p["key"])
    key["key_points"] = [f"point {i}" for i in range(1, 6)]
    md = render_all_strict(report)["report.md"].decode()
    row = next(line for line in md.splitlines() if "point 1" in line)
    assert "point 3" in row and "point 4" not in row


def test_a_risk_kind_no_note_covers_names_two_prs_at_a_glance_and_counts_the_rest():
    # with a model's narrative (five risk notes at most) or none, a kind's line listed up to 30 PRs by number
    report = copy.deepcopy(load("zh-week"))
    prs = [p["number"] for p in report["prs"]][:5]
    report["risks"] = [{"kind": "missing_tests", "prs": prs, "detail": "x",
                        "items": [{"pr": n, "detail": "x"} for n in prs]}]
    report["risk_notes"] = []
    md = render_all_strict(report)["report.md"].decode()
    line = next(line for line in section(md, "风险速览").splitlines() if line.startswith("- "))
    assert len(re.findall(r"\\#\d+", line)) == 2 and "…另 3 个" in line, line
    appendix = md[md.index("## 附录"):]
    assert all(f"\\#{n}" in appendix for n in prs)
