"""Real weeks of verl-project/verl (../shared/data) through every rendering: numbers agree, text comes back."""
from __future__ import annotations

import json
import re

import pytest
from prhub.core.text import num

from bench.render_week import DATA, build_week
from tests.unit.render_support import parse_html, pdf_text, render_all_strict

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} is absent (real data lives outside the repo)")


@pytest.fixture(scope="module")
def week():
    report = build_week()
    return report, render_all_strict(report)


def test_a_real_week_prints_the_same_numbers_everywhere(week, tmp_path):
    report, files = week
    assert json.loads(files["report.json"]) == report
    md = files["report.md"].decode()
    html_text = re.sub(r"\s+", " ", " ".join(parse_html(files["index.html"].decode()).text))
    pdf = pdf_text(files["report.pdf"], tmp_path)
    s = report["stats"]
    for value in (num(s["pr_count"]), num(s["key_pr_count"]), num(s["avg_importance"]), num(s["avg_insight"]),
                  f"+{s['additions']} / -{s['deletions']}"):
        assert value in md and value in html_text and value in pdf, value
    for pr in report["prs"]:
        if pr["key"]:
            assert f"[\\#{pr['number']}](<{pr['url']}>)" in md
            assert f"#{pr['number']}" in pdf


def test_a_real_week_pdf_gives_its_chinese_back(week, tmp_path):
    report, files = week
    text = re.sub(r"\s+", "", pdf_text(files["report.pdf"], tmp_path))
    assert re.sub(r"\s+", "", report["title"]) in text
    for heading in ("本周亮点", "执行摘要", "关键PR"):
        assert heading in text
    assert len(files["report.pdf"]) < 400_000  # subset font: a week stays small
