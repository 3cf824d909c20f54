"""The report's path, counted: the calls from ReportFunction's handler to the renderers, and its climbs.

    python scripts/report_path.py                      this checkout's report path, summed up
    python scripts/report_path.py --ref main           the same walk over a commit (git show), for a before/after
    python scripts/report_path.py --list               every stop, in walk order
    python scripts/report_path.py --handler functions/score/app.py    another handler's path

A static walk (ast, nothing imported or run): depth first from the handler, each call in the order it runs (its
arguments first; a function passed as an argument, like Powertools' record handler, counts as called there). A call
resolves when it names a function, a nested function, a class's method (`Class.method`, `self.method`) or a
module's function (`module.function`) of the handler or of the layer's `prhub` package; a call on a value
(`deps.store.get_run`) does not (which object it is needs a type checker). Every function reached is one stop,
counted once. The walk follows calls through the wiring (the handler and prhub.flow); a function of another
folder is a stop it does not enter (its folder's code takes data and gives data back, or is an adapter behind a
port), and the renderers (prhub.site.render) are where the report's path ends. The process's setup (Deps.from_env:
the adapters a cold start builds, the same for every handler) is counted apart from the message's path.

A climb is a step of the walk from a stop to one in a higher layer: back from a lower folder to the wiring, as
a reader who went down to a helper has to. The layers are the ladder of tests/unit/test_layering.py's
MAY_IMPORT (a folder sits one rung above the highest folder it may import; the handlers above the flow): core 0,
cloud and engine 1, report, sources and model 2, site 3, notify 4, flow 5, functions 6.
"""
from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYER = "layers/prhub"
FOLLOWED = ("functions", "flow")  # the wiring: the handlers and prhub.flow
RENDERERS = "prhub.site.render"
# The process's setup: the adapters built from the environment on a cold start, the same for every handler and
# kept while the environment is warm. Walked and counted apart from the path a message takes.
SETUP = ("prhub.flow.deps.Deps.from_env", "prhub.flow.deps.DeliveryDeps.from_env")


class Tree:
    """The checkout's files: the work tree, or a commit's (`ref`) through git."""

    def __init__(self, ref: str | None) -> None:
        self.ref = ref

    def read(self, path: str) -> str | None:
        if self.ref is None:
            file = ROOT / path
            return file.read_text(encoding="utf-8") if file.is_file() else None
        done = subprocess.run(["git", "-C", str(ROOT), "show", f"{self.ref}:{path}"], capture_output=True,
                              text=True)
        return done.stdout if done.returncode == 0 else None


def layers(tree: Tree) -> dict[str, int]:
    """Each folder's rung: one above the highest folder it may import (core is 0), read from the layering test."""
    source = tree.read("tests/unit/test_layering.py")
    assert source is not None, "tests/unit/test_layering.py not found"
    may: dict[str, set[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MAY_IMPORT"
                                                for t in node.targets):
            may = {k: set(v) for k, v in ast.literal_eval(node.value).items()}
    assert may, "MAY_IMPORT not found in tests/unit/test_layering.py"

    @cache
    def rung(name: str) -> int:
        return 1 + max((rung(below) for below in may[name]), default=-1)

    ranks = {name: rung(name) for name in may}
    ranks["functions"] = max(ranks.values()) + 1
    return ranks


@dataclass
class Module:
    name: str  # dotted: prhub.flow.publish, functions.report.app
    path: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted target (module or module.name)
    defs: dict[str, ast.AST] = field(default_factory=dict)  # top-level functions and classes


class Walker:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.rank = layers(tree)
        self.modules: dict[str, Module | None] = {}

    def path_of(self, name: str) -> list[str]:
        base = f"{LAYER}/{name.replace('.', '/')}" if name.startswith("prhub") else name.replace(".", "/")
        return [base + ".py", base + "/__init__.py"]

    def module(self, name: str) -> Module | None:
        if name not in self.modules:
            self.modules[name] = None
            for path in self.path_of(name):
                source = self.tree.read(path)
                if source is not None:
                    parsed = ast.parse(source)
                    module = Module(name, path, parsed)
                    module.imports = imports_of(parsed.body)
                    module.defs = {n.name: n for n in parsed.body
                                   if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
                    self.modules[name] = module
                    break
        return self.modules[name]

    def target(self, dotted: str) -> tuple[Module, ast.AST] | None:
        """The function or class a dotted name names (prhub.flow.publish.publish_run), through re-exports."""
        module_name, _, attr = dotted.rpartition(".")
        module = self.module(module_name) if module_name else None
        if module is None:
            return None
        if attr in module.defs:
            return module, module.defs[attr]
        if attr in module.imports and module.imports[attr] != dotted:
            return self.target(module.imports[attr])
        return None

    def is_module(self, dotted: str) -> bool:
        return self.module(dotted) is not None


def imports_of(body: list[ast.stmt]) -> dict[str, str]:
    """Local name -> dotted name of each `prhub` import in `body` (a function's own imports too, at any depth)."""
    found: dict[str, str] = {}
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("prhub"):
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("prhub"):  # `import prhub.x as y` binds y; `import prhub.x`, prhub
                    found[alias.asname or "prhub"] = alias.name if alias.asname else "prhub"
    return found


@dataclass(frozen=True)
class Stop:
    module: str
    qualname: str
    path: str
    layer: str

    @property
    def name(self) -> str:
        return f"{self.module}.{self.qualname}"


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if parts[0] == "prhub" and len(parts) > 1 else parts[0]


class Frame:
    """A function being walked: its module, its qualified name, the nested functions in scope, its class."""

    def __init__(self, module: Module, qualname: str, node: ast.AST, scope: dict[str, ast.AST],
                 cls: ast.ClassDef | None) -> None:
        self.module, self.qualname, self.node, self.scope, self.cls = module, qualname, node, scope, cls
        body = getattr(node, "body", [])
        self.imports = {**module.imports, **imports_of(body)}


def own_calls(node: ast.AST) -> list[ast.expr]:
    """The calls in a function's body in the order they run (a call's arguments before it), not those of the
    functions nested in it (theirs when they are called) nor its decorators'. A name passed as an argument counts
    as a call where it is passed (a callback: Powertools' record_handler, a pool's map)."""
    calls: list[ast.expr] = []

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return
        if isinstance(n, ast.Call):
            visit(n.func)
            for arg in [*n.args, *(k.value for k in n.keywords)]:
                visit(arg)
                if isinstance(arg, ast.Name):
                    calls.append(arg)
            calls.append(n)
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    for stmt in getattr(node, "body", []):
        visit(stmt)
    return calls


def nested(node: ast.AST) -> dict[str, ast.AST]:
    return {n.name: n for stmt in getattr(node, "body", []) for n in ast.walk(stmt)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n is not node}


def method(cls: ast.ClassDef, name: str) -> ast.AST | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name),
                None)


class Walk:
    def __init__(self, walker: Walker, follow_all: bool = False) -> None:
        self.walker = walker
        self.follow_all = follow_all
        self.stops: list[Stop] = []
        self.seen: set[str] = set()
        self.setup = range(0)  # the setup's stops (indexes into stops)

    def resolve(self, call: ast.expr, frame: Frame) -> tuple[Module, str, ast.AST, ast.ClassDef | None] | None:
        """The callee of `call` in `frame`: (module, qualified name, def, its class). A name passed as an argument
        is one when it names a function."""
        if isinstance(call, ast.Name):
            found = self.resolve(ast.Call(func=call, args=[], keywords=[]), frame)
            return found if found is not None and isinstance(found[2], ast.FunctionDef | ast.AsyncFunctionDef) \
                and not isinstance(found[3], ast.ClassDef) else None
        assert isinstance(call, ast.Call)
        func, w = call.func, self.walker
        if isinstance(func, ast.Name):
            if func.id in frame.scope:
                return frame.module, f"{frame.qualname}.{func.id}", frame.scope[func.id], frame.cls
            if func.id in frame.module.defs:
                return self.callable(frame.module, func.id, frame.module.defs[func.id])
            if func.id in frame.imports:
                found = w.target(frame.imports[func.id])
                if found:
                    return self.callable(found[0], getattr(found[1], "name", func.id), found[1])
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = func.value.id
            if owner in ("self", "cls") and frame.cls is not None:
                found_method = method(frame.cls, func.attr)
                return (frame.module, f"{frame.cls.name}.{func.attr}", found_method, frame.cls) \
                    if found_method else None
            dotted = frame.imports.get(owner)
            if dotted is None and owner in frame.module.defs:
                dotted = f"{frame.module.name}.{owner}"
            if dotted is None:
                return None
            if w.is_module(dotted):
                found = w.target(f"{dotted}.{func.attr}")
                return self.callable(found[0], getattr(found[1], "name", func.attr), found[1]) if found else None
            found = w.target(dotted)
            if found and isinstance(found[1], ast.ClassDef):
                found_method = method(found[1], func.attr)
                if found_method is not None:
                    return found[0], f"{found[1].name}.{func.attr}", found_method, found[1]
        return None

    @staticmethod
    def callable(module: Module, name: str, node: ast.AST) -> tuple[Module, str, ast.AST, ast.ClassDef | None] | None:
        """A class called is its __init__ (a dataclass's generated one is no stop)."""
        if isinstance(node, ast.ClassDef):
            init = method(node, "__init__") or method(node, "__post_init__")
            return (module, f"{node.name}.{init.name}", init, node) if init is not None else None  # type: ignore
        return module, name, node, None

    def enter(self, module: Module, qualname: str, node: ast.AST, cls: ast.ClassDef | None,
              scope: dict[str, ast.AST]) -> None:
        stop = Stop(module.name, qualname, module.path, layer_of(module.name))
        if stop.name in self.seen:
            return
        self.seen.add(stop.name)
        self.stops.append(stop)
        if module.name.startswith(RENDERERS) or not (self.follow_all or stop.layer in FOLLOWED):
            return
        start = len(self.stops) - 1
        frame = Frame(module, qualname, node, {**scope, **nested(node)}, cls)
        for call in own_calls(node):
            found = self.resolve(call, frame)
            if found is not None:
                callee_module, name, callee, callee_cls = found
                inner = frame.scope if callee_module is module and name.startswith(qualname + ".") else {}
                self.enter(callee_module, name, callee, callee_cls, inner)
        if stop.name in SETUP and not self.setup:
            self.setup = range(start, len(self.stops))

    def path(self, setup: bool) -> list[Stop]:
        """The stops in walk order, with or without the process's setup."""
        return self.stops if setup else [s for i, s in enumerate(self.stops) if i not in self.setup]

    def climbs(self, stops: list[Stop]) -> int:
        rank = self.walker.rank
        return sum(1 for a, b in zip(stops, stops[1:], strict=False) if rank[b.layer] > rank[a.layer])


def renderers_at(stops: list[Stop]) -> int | None:
    """The renderers' stop (counted from 1): the first function of prhub.site.render the walk reaches."""
    return next((i for i, s in enumerate(stops, 1) if s.module.startswith(RENDERERS)), None)


def walk(handler: str, ref: str | None, follow_all: bool = False) -> Walk:
    walker = Walker(Tree(ref))
    name = handler.removesuffix(".py").replace("/", ".")
    module = walker.module(name)
    if module is None:
        raise SystemExit(f"{handler} not found" + (f" at {ref}" if ref else ""))
    entry = module.defs.get("handler")
    assert entry is not None, f"{handler} has no handler()"
    done = Walk(walker, follow_all)
    done.enter(module, "handler", entry, None, {})
    return done


def summary(done: Walk, setup: bool) -> str:
    stops = done.path(setup)
    at = renderers_at(stops)
    files = len({s.path for s in stops})
    first = (f"the renderers at stop {at} ({len({s.path for s in stops[:at]})} files), "
             f"after {done.climbs(stops[:at])} climbs" if at else "no renderer reached")
    return f"{len(stops)} stops in {files} files, {done.climbs(stops)} climbs back to a higher layer; {first}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--handler", default="functions/report/app.py")
    parser.add_argument("--ref", help="a commit to read instead of the work tree (e.g. main)")
    parser.add_argument("--list", action="store_true", help="print every stop in walk order")
    parser.add_argument("--all", action="store_true", help="follow calls into every folder, not the wiring only")
    args = parser.parse_args(argv)
    done = walk(args.handler, args.ref, args.all)
    if args.list:
        rank = done.walker.rank
        at = renderers_at(done.stops)
        for i, stop in enumerate(done.stops, 1):
            previous = done.stops[i - 2] if i > 1 else None
            climb = "^" if previous is not None and rank[stop.layer] > rank[previous.layer] else " "
            mark = "  <- renderers" if i == at else "  (setup)" if i - 1 in done.setup else ""
            print(f"{i:4} {climb} {stop.layer:9} {stop.name}{mark}")
    where = args.ref or "work tree"
    print(f"{args.handler} ({where})")
    print(f"  the message's path: {summary(done, setup=False)}")
    print(f"  with the process's setup ({len(done.setup)} stops in Deps.from_env): {summary(done, setup=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
