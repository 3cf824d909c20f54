"""`prhub run` on the sample: its progress on stderr, --quiet, a re-run that queues no PR page again, and a deadline
that follows the work (issue 25; issue 24 item 7)."""
from __future__ import annotations

import json
import time
import traceback
import uuid
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud.store import Store

from prhub_local import cli
from prhub_local.runner import LOOK_EVERY, PipelineError, run_pipeline


def prefix() -> str:
    return "p" + uuid.uuid4().hex[:10]


@pytest.mark.slow
def test_quiet_then_a_rerun_with_progress_that_queues_no_pr_page_again(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    state, out = tmp_path / "state", tmp_path / "site"
    # GIVEN the sample run with --quiet (on its own embedded AWS, saving --state): the paths on stdout, no
    # progress on stderr (stderr is not a terminal here)
    assert cli.main(["run", "--state", str(state), "--out", str(out), "--quiet", "--lang", "en"]) == 0
    quiet = capsys.readouterr()
    assert quiet.out.count("report.pdf") == 1
    assert not [line for line in quiet.err.splitlines() if line.startswith(("scoring", "listing", "listed",
                                                                            "building", "report written"))]
    # WHEN the same week runs again on that state, with progress, through the runner (its hook counts the pages)
    pages: list[int] = []

    def counting(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name == "PagesFunction":
            pages.extend(n for r in event["Records"] for n in json.loads(r["body"])["numbers"])
        return handler(event, context)

    lines: list[str] = []
    looks: list[float] = []  # when the run's driver (the main thread) read the runs' counters
    real_progress = Store.progress

    def progress(self: Store, run_id: str) -> Any:
        # the driver's own reads: a function the main thread runs (the plan storing cached results, the sweep)
        # reads the counters too, at its own time
        if any(f.name == "_wait" and f.filename.endswith("runner.py") for f in traceback.extract_stack(limit=6)):
            looks.append(time.monotonic())
        return real_progress(self, run_id)

    monkeypatch.setattr(Store, "progress", progress)
    run_pipeline(prefix=prefix(), state=state, out=out, lang="en", invoke=counting,
                 progress=lines.append)
    # AND the driver looked at the run often enough to follow it, never twice within LOOK_EVERY
    assert len(looks) >= 2
    assert min(b - a for a, b in zip(looks, looks[1:], strict=False)) >= LOOK_EVERY * 0.95
    # THEN it said what it did stage by stage, and queued none of the 32 pages the first run built
    assert any(line.startswith("listing acme/rocket's PRs") for line in lines)
    assert any(line.startswith("scoring: 32/32 PRs") for line in lines)
    assert any(line.startswith("rendering and publishing the report") for line in lines)
    assert pages == []
    assert len(list((out / "acme/rocket/pull").glob("*/en/report.pdf"))) == 32


@pytest.mark.slow
def test_a_run_that_stops_moving_gives_up_and_still_copies_what_it_published(aws_endpoint: str,
                                                                            tmp_path: Path) -> None:
    # GIVEN a run whose score workers hang (each invocation takes far longer than the allowed stall)
    def hanging(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name == "ScoreFunction":
            time.sleep(6)
        return handler(event, context)

    out = tmp_path / "site"
    started = time.monotonic()
    with pytest.raises(PipelineError, match="nothing finished for 2 s"):
        run_pipeline(endpoint_url=aws_endpoint, prefix=prefix(), state=None, out=out, invoke=hanging,
                     progress=lambda _: None, stall=2, workers=1)
    # THEN it gave up on the stall, not after a fixed quarter of an hour, and the site folder is there
    assert time.monotonic() - started < 60
    assert out.is_dir()
