"""No function a reader cannot hold: cyclomatic complexity (radon's measure) at most 25 in the layer, the
handlers and the local harness, with no exemption. A 25-40 line function is normal here; a branchy 100-line one is
not."""
from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[2]
TREES = ("layers/prhub/prhub", "functions", "prhub_local")
LIMIT = 25



def complexities() -> dict[str, int]:
    out: dict[str, int] = {}
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for block in cc_visit(path.read_text(encoding="utf-8")):
                for item in [block, *getattr(block, "methods", []), *getattr(block, "closures", [])]:
                    name = f"{item.classname}.{item.name}" if getattr(item, "classname", None) else item.name
                    out[f"{rel}:{name}"] = max(out.get(f"{rel}:{name}", 0), item.complexity)
    return out


def test_no_function_is_above_the_limit() -> None:
    found = complexities()
    over = {name: value for name, value in found.items() if value > LIMIT}
    assert over == {}, "split these by meaning: " + ", ".join(f"{n} ({v})" for n, v in sorted(over.items()))

