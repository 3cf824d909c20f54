"""The local harness (prhub_local) hands the layer its adapters (Deps, warm handlers); it never replaces a module
global of the layer (issue 49): no `module.NAME = ...` and no `setattr(module, ...)` on a module imported from
prhub. Found statically: every assignment to an attribute of a name bound by `import prhub...` or
`from prhub... import module`."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layer_modules(tree: ast.AST) -> set[str]:
    """The names a file binds to modules of the layer (`from prhub.flow import deps`, `import prhub.x as y`)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "prhub":
            for alias in node.names:
                if _is_package(node.module) and importlib.util.find_spec(f"{node.module}.{alias.name}"):
                    names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "prhub":
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _is_package(module: str | None) -> bool:
    spec = importlib.util.find_spec(module) if module else None
    return spec is not None and spec.submodule_search_locations is not None


def swaps(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = layer_modules(tree)
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id in modules:
                    found.append(f"{path.name}:{node.lineno} {part.value.id}.{part.attr} =")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in modules:
            found.append(f"{path.name}:{node.lineno} setattr({node.args[0].id}, ...)")
    return sorted(found, key=lambda s: int(s.split(":")[1].split()[0]))


def test_the_local_harness_replaces_no_module_global_of_the_layer() -> None:
    found = [s for path in sorted((ROOT / "prhub_local").glob("*.py")) for s in swaps(path)]
    assert found == []


def test_the_check_finds_a_swap(tmp_path: Path) -> None:
    # the two ways the harness swapped one before (deps.SITE_BUCKET, pages.render_pages)
    code = ("from prhub.flow import deps, pages\nimport prhub.flow.deps as d\n"
            "deps.SITE_BUCKET = object\nsetattr(pages, 'render_pages', None)\nd.X += 1\n")
    (tmp_path / "harness.py").write_text(code, encoding="utf-8")
    assert swaps(tmp_path / "harness.py") == ["harness.py:3 deps.SITE_BUCKET =", "harness.py:4 setattr(pages, ...)",
                                              "harness.py:5 d.X ="]
