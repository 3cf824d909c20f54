"""The layer's modules import each other without cycles: a package can be read, tested and moved from the
bottom up, and no import works only because of the order modules happen to be loaded in.

Every `prhub.*` import counts, at module level and inside functions alike: a function-local import that
closes a cycle is the cycle hidden, not removed.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "prhub" / "prhub"

Graph = Mapping[str, Mapping[str, int]]  # module -> {imported module: line of the first such import}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _base(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a `from ... import` names, relative imports resolved against the importer."""
    if not node.level:
        return node.module or ""
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def imports(path: Path, importer: str, known: Iterable[str]) -> dict[str, int]:
    """The prhub modules `path` imports anywhere in it (module level, functions, TYPE_CHECKING blocks):
    `from prhub.x import y` is module prhub.x.y when there is one, else prhub.x."""
    known = set(known)
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _base(node, importer, path.name == "__init__.py")
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in targets:
            if target.split(".")[0] == "prhub" and target != importer:
                found.setdefault(target, node.lineno)
    return found


def graph() -> dict[str, dict[str, int]]:
    found = modules()
    return {name: imports(path, name, found) for name, path in found.items()}


def cycles(edges: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def describe(component: list[str], edges: Graph) -> str:
    """A component as the imports that tie it: `a -> b (line n)` for each edge inside it."""
    members = set(component)
    ties = [f"  {a} -> {b} (line {line})" for a in component for b, line in sorted(edges[a].items()) if b in members]
    return " <-> ".join(component) + "\n" + "\n".join(ties)


def test_the_detector_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    # GIVEN three modules where c closes a cycle with an import inside a function, and d only imports a
    pkg = tmp_path / "prhub"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from prhub import b\n")
    (pkg / "b.py").write_text("from prhub.c import thing\n")
    (pkg / "c.py").write_text("def f():\n    from prhub.a import x\n    return x\nthing = 1\n")
    (pkg / "d.py").write_text("import prhub.a\nfrom . import b\n")
    known = {"prhub", "prhub.a", "prhub.b", "prhub.c", "prhub.d"}
    edges = {name: imports(pkg / f"{name.split('.')[-1]}.py", name, known) for name in known - {"prhub"}}
    # THEN a, b and c are one component, named module by module; d is in none
    assert edges["prhub.d"] == {"prhub.a": 1, "prhub.b": 2}
    assert cycles(edges) == [["prhub.a", "prhub.b", "prhub.c"]]
    assert "prhub.c -> prhub.a (line 2)" in describe(["prhub.a", "prhub.b", "prhub.c"], edges)
    assert cycles({"x": {"y": 1}, "y": {}}) == []


def test_the_layer_has_no_import_cycle() -> None:
    edges = graph()
    assert len(edges) > 50 and sum(map(len, edges.values())) > 100  # the whole layer was read
    found = cycles(edges)
    assert not found, "import cycles in the layer:\n" + "\n".join(describe(c, edges) for c in found)
