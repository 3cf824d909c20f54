"""The CLI says what it does: README's usage line names every `prhub run` option, and `--help` gives defaults
(issue 46, item 12)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from prhub_local import cli

README = Path(__file__).resolve().parents[2] / "README.md"


def subcommand(name: str) -> object:
    parser = cli.build_parser()
    [commands] = [a for a in parser._actions if a.dest == "command"]  # noqa: SLF001 - argparse keeps them there
    return commands.choices[name]  # type: ignore[union-attr]


def test_the_readmes_usage_line_names_every_run_option() -> None:
    usage = re.search(r"`prhub run \[.*?`", README.read_text(encoding="utf-8"), re.S)
    assert usage is not None
    options = {o for a in subcommand("run")._actions for o in a.option_strings  # type: ignore[attr-defined]
               if o.startswith("--") and o != "--help"}
    assert options and sorted(o for o in options if o not in usage.group(0)) == []


def test_serve_help_gives_its_default_host_and_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 127.0.0.1)" in text and "(default: 8000)" in text
