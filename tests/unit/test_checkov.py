"""checkov finds nothing in template.yaml that is not suppressed there with its reason (issue 24).

checkov is not in the dev extras: it pins boto3 1.35, packaging < 24 and networkx < 2.7 against the project's
newer ones, and brings about 100 packages (290 MB). Install it in a throwaway venv and point CHECKOV at it:
`python -m venv /tmp/ck && /tmp/ck/bin/pip install checkov`, then
`CHECKOV=/tmp/ck/bin/checkov pytest tests/unit/test_checkov.py`
(or have `checkov` on PATH); without it the test is skipped, as the sam CLI's is. `--skip-download`: checkov asks
Prisma Cloud for its guidelines otherwise, and tests use no network.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.unit.test_template import TEMPLATE

CHECKOV = os.environ.get("CHECKOV") or shutil.which("checkov")


@pytest.mark.skipif(not CHECKOV, reason="checkov is not installed (optional: see this module's docstring)")
def test_checkov_finds_nothing_unsuppressed_and_every_suppression_says_why() -> None:
    assert CHECKOV is not None
    result = subprocess.run([CHECKOV, "-f", str(TEMPLATE), "--framework", "cloudformation", "-o", "json",
                             "--skip-download"],
                            capture_output=True, text=True, timeout=300)
    report = json.loads(result.stdout)
    failed = [f"{c['check_id']} {c['resource']}" for c in report["results"]["failed_checks"]]
    assert failed == [] and result.returncode == 0
    skipped = report["results"]["skipped_checks"]
    assert skipped, "the suppressions are read (Metadata: checkov: skip:)"
    assert [s["check_id"] for s in skipped if len(s.get("check_result", {}).get("suppress_comment", "")) < 40] == []
