"""The Lambda layer ships no local harness: no moto, no prhub_local, no CLI, no bundled sample."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "prhub"


def test_the_layer_never_imports_moto_or_the_local_harness() -> None:
    offending = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
                 for path in sorted((LAYER / "prhub").rglob("*.py"))
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.match(r"\s*(import|from)\s+(moto|prhub_local)\b", line)]
    assert offending == []


def test_the_layer_requirements_name_no_local_only_package() -> None:
    names = {re.split(r"[<>=\[ ;]", line.strip(), maxsplit=1)[0].lower()
             for line in (LAYER / "requirements.txt").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")}
    assert names.isdisjoint({"moto", "pyyaml", "flask", "werkzeug"}), names


def test_the_harness_files_live_outside_the_layer() -> None:
    assert not (LAYER / "prhub" / "local.py").exists() and not (LAYER / "prhub" / "cli.py").exists()
    assert not (LAYER / "prhub" / "sample").exists()
    assert (ROOT / "prhub_local" / "sample" / "sample.json").is_file()
