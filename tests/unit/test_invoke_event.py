"""`prhub invoke --event` takes a file or the JSON itself, as the docs' and issues' commands write it (issue 24:
`--event '{"sweep": true, "older_than_minutes": 0}'` answered "No such file or directory", exit 2)."""
from __future__ import annotations

from pathlib import Path

import pytest
from prhub.core.errors import InputError

from prhub_local.invoke import read_event

SWEEP = '{"sweep": true, "older_than_minutes": 0}'


def test_an_event_written_on_the_command_line_is_read_as_json() -> None:
    assert read_event(SWEEP) == {"sweep": True, "older_than_minutes": 0}
    assert read_event(' [{"a": 1}]') == [{"a": 1}]


def test_an_event_file_is_read_as_before(tmp_path: Path) -> None:
    path = tmp_path / "sweep.json"
    path.write_text(SWEEP, encoding="utf-8")
    assert read_event(path) == read_event(str(path)) == {"sweep": True, "older_than_minutes": 0}


def test_bad_inline_json_and_a_missing_file_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not JSON"):
        read_event('{"sweep": true,')
    with pytest.raises(InputError, match="cannot read --event"):
        read_event(tmp_path / "missing.json")
