"""The engine is pure: it imports the standard library, prhub.core and itself, never an adapter (sources, cloud,
model, site, flow, notify, report) — those reach it through Protocols (engine.risks.VersionRegistry,
engine.analysis.PriorRecord)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "layers" / "prhub" / "prhub" / "engine"
# The default registry client HeuristicScorer makes on first use, inside score(): its callers hand in none.
DEFERRED = {("scoring.py", "prhub.sources.registry")}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module, at module level) of every import in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, id(node) in top))
    return found


def test_the_engine_imports_no_adapter() -> None:
    offending = []
    for path in sorted(ENGINE.glob("*.py")):
        for module, top_level in _imports(path):
            root = module.split(".")[0]
            if root in sys.stdlib_module_names or module.startswith(("prhub.core", "prhub.engine")):
                continue
            if module == "prhub" or (not top_level and (path.name, module) in DEFERRED):
                continue
            offending.append(f"{path.name}: {module}")
    assert offending == []


def test_the_deferred_import_is_still_there_and_inside_a_function() -> None:
    # Keeps DEFERRED honest: an exception nothing needs any more should go.
    for name, module in DEFERRED:
        assert (module, False) in _imports(ENGINE / name)
