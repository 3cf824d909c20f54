"""A run interrupted at the report stage leaves a state the next run finishes from cleanly.

The interruption comes in while ReportFunction writes the report's PDF (a KeyboardInterrupt out of fpdf2's
writer, as Ctrl-C lands wherever the run is); the next run on the same --state must publish the week and its PR
pages with no failed invocation on the way: once in five tries it printed a ReportFunction traceback
(`output() KeyError: 28`), two PDFs written at once sharing one font descriptor
(tests/unit/test_pdf_concurrency.py holds that cause down deterministically).
"""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from fpdf.output import OutputProducer

from prhub_local.runner import PipelineError, run_pipeline

pytestmark = pytest.mark.slow
SAMPLE_WEEK = "acme/rocket/reports/2026-06-01-to-2026-06-07/"
ORIGINAL_ADD = OutputProducer._add_pdf_obj


def test_a_run_interrupted_while_the_report_is_written_leaves_a_clean_state(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, said = tmp_path / "state", []
    interrupted = []

    def ctrl_c_in_the_reports_pdf(self: Any, obj: Any, label: Any = None) -> int:
        if type(obj).__name__ == "PDFFontDescriptor" and not interrupted:
            interrupted.append(obj)
            raise KeyboardInterrupt
        return ORIGINAL_ADD(self, obj, label)

    def interrupt_the_report(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name != "ReportFunction":
            return handler(event, context)
        with mock.patch.object(OutputProducer, "_add_pdf_obj", ctrl_c_in_the_reports_pdf):
            return handler(event, context)

    # GIVEN a run stopped by an interruption while ReportFunction writes the report
    with pytest.raises(PipelineError, match="ReportFunction"):
        run_pipeline(state=state, out=tmp_path / "first", prefix="i" + uuid.uuid4().hex[:10],
                     invoke=interrupt_the_report, progress=said.append, timeout=300)
    assert interrupted and (state / "CURRENT").is_file()
    capsys.readouterr()
    # WHEN the next run starts from its state
    lines: list[str] = []
    result = run_pipeline(state=state, out=tmp_path / "site",
                          prefix="i" + uuid.uuid4().hex[:10], progress=lines.append, timeout=300)
    err = capsys.readouterr().err
    # THEN it publishes the week and every PR page, with no failed invocation or traceback on the way
    assert result.report_key == SAMPLE_WEEK and result.report["stats"]["pr_count"] == 32
    assert result.paths["report.pdf"].read_bytes().startswith(b"%PDF")
    assert not [line for line in lines if "failed" in line or "Traceback" in line]
    assert "Traceback" not in err and "KeyError" not in err
    pulls = sorted(p.parent.name for p in (tmp_path / "site" / "acme/rocket/pull").glob("*/index.html"))
    assert len(pulls) == 32
