"""The layer's folders depend on each other in one direction (each folder's __init__ says what it may import).

Domain folders (core, engine, report, site) take data and return data: they import no adapter folder, no flow and
no client library that reaches the network. Adapter folders (sources, cloud, model, notify) may use the domain and
each other, never the flow. Only flow/ wires them together. Every `prhub` import counts, a function's too.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

LAYER = Path(__file__).resolve().parents[2] / "layers" / "prhub"
PACKAGE = LAYER / "prhub"

DOMAIN = ("core", "engine", "report", "site")
# What each folder may import of prhub, besides itself. The domain is a ladder: core < engine < report < site.
MAY_IMPORT = {
    "core": set(),
    "engine": {"core"},
    "report": {"core", "engine"},
    "site": {"core", "engine", "report"},
    "sources": {"core", "engine", "cloud"},
    "cloud": {"core"},
    "model": {"core", "engine", "cloud"},
    "notify": {"core", "report", "site", "cloud"},
    "flow": {"core", "engine", "report", "site", "sources", "cloud", "model", "notify"},
}
NETWORK_LIBRARIES = {"boto3", "botocore", "requests", "urllib3", "openai", "aws_lambda_powertools"}


def folder(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, at any depth."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if len(p.relative_to(PACKAGE).parts) > 1)


def test_every_module_lives_in_a_folder_that_says_what_it_is() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(MAY_IMPORT)
    for name in folders:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text(encoding="utf-8")))
        assert doc and ("import" in doc), f"{name}/__init__.py must say what the folder is and what it may import"


def test_each_folder_imports_only_the_folders_below_it() -> None:
    wrong = []
    for path in modules():
        own = folder(path)
        for line, module in imports(path):
            parts = module.split(".")
            if parts[0] != "prhub" or len(parts) < 2 or parts[1] == own:
                continue
            if parts[1] not in MAY_IMPORT[own]:
                wrong.append(f"{path.relative_to(LAYER)}:{line}: {own} imports {module}")
    assert wrong == []


def test_domain_code_reaches_no_network_library() -> None:
    wrong = [f"{path.relative_to(LAYER)}:{line}: {module}"
             for path in modules() if folder(path) in DOMAIN
             for line, module in imports(path) if module.split(".")[0] in NETWORK_LIBRARIES]
    assert wrong == []


# Pure-Python text readers the engine may use (prhub.engine.textparse reads descriptions as Markdown and splits
# their sentences): no I/O, no compiled code, in the layer's requirements.
ENGINE_LIBRARIES = {"markdown_it", "pysbd"}


def test_the_engine_needs_nothing_but_the_standard_library_and_its_text_readers() -> None:
    # The engine's judgement runs wherever Python does: adapters reach it through Protocols
    # (engine.risks.VersionRegistry, engine.analysis.PriorRecord), never as imports.
    wrong = [f"{path.relative_to(LAYER)}:{line}: {module}"
             for path in modules() if folder(path) == "engine"
             for line, module in imports(path)
             if module.split(".")[0] not in sys.stdlib_module_names | ENGINE_LIBRARIES
             and module.split(".")[0] != "prhub"]
    assert wrong == []
    assert {"markdown-it-py", "pysbd"} <= {line.split(">")[0].split("=")[0].strip() for line in
                                           (LAYER / "requirements.txt").read_text().splitlines()}


def test_the_rules_catch_a_domain_module_that_imports_an_adapter(tmp_path: Path) -> None:
    # The check above reads files; this proves it would see a violation written the ways code imports.
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from prhub.cloud.store import Store\n    import boto3\n", encoding="utf-8")
    found = [m for _, m in imports(bad)]
    assert found == ["prhub.cloud.store", "boto3"]
    assert "cloud" not in MAY_IMPORT["engine"] and "boto3" in NETWORK_LIBRARIES
