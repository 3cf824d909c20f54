"""`prhub judge` on a state the sample's week was published in: the same correction again changes nothing (issue 46,
item 5): no new revision, and the command says nothing changed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from prhub_local import cli
from prhub_local.runner import run_pipeline

pytestmark = pytest.mark.slow
SAMPLE_KEY = "acme/rocket/reports/2026-06-01-to-2026-06-07/"


def test_the_same_correction_again_makes_no_revision_and_says_so(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    state, out = tmp_path / "state", tmp_path / "site"
    run_pipeline(state=state, out=out, progress=lambda _line: None, timeout=300)
    judge = ["judge", "--repo", "acme/rocket", "--minor", "1210", "--state", str(state), "--out", str(out)]
    capsys.readouterr()
    # GIVEN PR 1210 corrected once: revision 2
    assert cli.main(judge) == 0
    said = capsys.readouterr()
    assert "revision 2 of" in said.err and SAMPLE_KEY.rstrip("/") in said.out
    assert json.loads((out / SAMPLE_KEY / "report.json").read_text())["revision"] == 2
    # WHEN the same correction is given twice more
    for _ in range(2):
        assert cli.main(judge) == 0
        said = capsys.readouterr()
        # THEN nothing is revised, and the command says why
        assert "nothing changed for #1210" in said.err and "asked for" not in said.err and said.out == ""
    report = json.loads((out / SAMPLE_KEY / "report.json").read_text())
    assert report["revision"] == 2 and report["changes"]["judged"] == [1210]
