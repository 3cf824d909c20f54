"""A site folder whose repository folder is a link out of it: the run never says "report written" for a report the
copy refused to write there, and fails (exit 1) naming the link (a leftover of issue 46)."""
from __future__ import annotations

from pathlib import Path

import pytest

from prhub_local import cli

pytestmark = pytest.mark.slow


def test_a_report_kept_out_by_a_link_is_not_said_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN a site folder whose acme/ is a link to a folder elsewhere
    outside, site = tmp_path / "outside", tmp_path / "site"
    outside.mkdir()
    site.mkdir()
    (site / "acme").symlink_to(outside, target_is_directory=True)
    # WHEN the sample's week is run into it
    code = cli.main(["run", "--out", str(site), "--state", str(tmp_path / "state"), "--quiet"])
    said = capsys.readouterr()
    # THEN nothing was written through the link, the run fails and says why, never "report written"
    assert list(outside.iterdir()) == []
    assert code == 1 and "report written" not in said.out + said.err
    assert f"{site / 'acme'} is a link that leads out of it" in said.err
    # AND the rest of the site is there (its home page)
    assert (site / "index.html").is_file()
