"""Golden files: tests/golden/<case>/report.json renders to the checked-in report.md and index.html.

The input fixes the clock (generated_at) and everything else. To change the
expected output on purpose: PRHUB_UPDATE_GOLDEN=1 pytest tests/unit/test_render_golden.py
"""
from __future__ import annotations

import os

import pytest
from prhub.site.render.html import render_html
from prhub.site.render.markdown import render_markdown

from tests.golden.cases import CASES, GOLDEN, load

RENDERERS = {"report.md": render_markdown, "index.html": render_html}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_rendering_matches_golden_file(case, name):
    actual = RENDERERS[name](load(case))
    path = GOLDEN / case / name
    if os.environ.get("PRHUB_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.is_file(), f"{path} is missing: run with PRHUB_UPDATE_GOLDEN=1 to create it"
    assert actual == path.read_text(encoding="utf-8"), f"{case}/{name} changed: review, then PRHUB_UPDATE_GOLDEN=1"


def test_golden_cases_exist():
    assert {"zh-week", "en-small"} <= set(CASES)


def test_the_zh_month_input_is_what_the_engine_writes_now():
    # Its report.json is the engine's output, not a hand-made input: a change to scoring, analysis or narrative
    # must rewrite it on purpose (python -m tests.golden.zh_month), or this fails.
    import json

    from tests.golden.zh_month import build

    stored = json.loads((GOLDEN / "zh-month" / "report.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(build(), ensure_ascii=False)) == stored
