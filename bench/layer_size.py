"""Size of the built prhub layer (and each function's code) against Lambda's limits.

Builds the layer exactly as `sam build` does: layers/prhub/Makefile's build-PrhubLayer
target (python3.12 arm64 wheels, the `prhub` package with its templates and prompts (the
local harness, prhub_local, stays out), and the PDF's CJK font) into .prhub/bench-cache/layer-build, then measures its
python/ folder. Lambda allows 250 MB unzipped for a function with all its layers, and
50 MB zipped for a direct upload.

    python -m bench.layer_size
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".prhub" / "bench-cache"
UNZIPPED_LIMIT = 250 * 1024 * 1024
ZIPPED_LIMIT = 50 * 1024 * 1024
LAYER = ROOT / "layers" / "prhub"


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def zipped_size(root: Path, arcroot: str) -> int:
    """Size of a deflated zip of `root`, entries under `arcroot/` (as the deployment package holds them)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "layer.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for path in sorted(root.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    zf.write(path, f"{arcroot}/{path.relative_to(root)}")
        return archive.stat().st_size


def build_layer() -> Path:
    """The built layer's python/ folder, made by the layer's own build target as SAM runs it."""
    artifacts = CACHE / "layer-build"
    shutil.rmtree(artifacts, ignore_errors=True)
    subprocess.run(["make", "-C", str(LAYER), "build-PrhubLayer", f"ARTIFACTS_DIR={artifacts}"], check=True,
                   capture_output=True, text=True)
    return artifacts / "python"


def largest_packages(root: Path, count: int = 6) -> list[dict[str, Any]]:
    sizes = {}
    for entry in root.iterdir():
        if entry.name.endswith((".dist-info", ".data")) or entry.name == "bin":
            continue
        sizes[entry.name] = tree_size(entry) if entry.is_dir() else entry.stat().st_size
    ranked = sorted(sizes.items(), key=lambda kv: -kv[1])[:count]
    return [{"package": name, "mb": round(size / 2**20, 1)} for name, size in ranked]


def run() -> dict[str, Any]:
    try:
        layer = build_layer()
    except subprocess.CalledProcessError as exc:
        return {"error": f"make build-PrhubLayer failed ({exc.returncode}): {exc.stderr[-500:]}",
                "rows": [["layer prhub", "n/a", "layers/prhub/Makefile could not build the layer"]]}
    unzipped = tree_size(layer)
    zipped = zipped_size(layer, "python")
    prhub_own = tree_size(layer / "prhub")
    fonts = [str(p.relative_to(layer)) for p in layer.rglob("*") if p.suffix.lower() in (".ttf", ".otf", ".ttc")]
    functions = {}
    for fn in sorted((ROOT / "functions").iterdir()):
        if fn.is_dir():
            functions[fn.name] = {"unzipped": tree_size(fn), "zipped": zipped_size(fn, ".")}
    total = unzipped + max((f["unzipped"] for f in functions.values()), default=0)
    result: dict[str, Any] = {
        "layer_unzipped_bytes": unzipped, "layer_zipped_bytes": zipped, "prhub_package_bytes": prhub_own,
        "fonts": fonts, "largest": largest_packages(layer), "functions": functions,
        "function_plus_layer_unzipped_bytes": total,
        "unzipped_share_of_limit": round(total / UNZIPPED_LIMIT, 3),
        "zipped_share_of_limit": round(zipped / ZIPPED_LIMIT, 3),
        "ok": total < UNZIPPED_LIMIT and zipped < ZIPPED_LIMIT,
    }
    big = ", ".join(f"{p['package']} {p['mb']}" for p in result["largest"][:4])
    result["rows"] = [
        ["layer prhub, unzipped (limit 250 MB)", f"{unzipped / 2**20:.1f} MB",
         f"{result['unzipped_share_of_limit']:.0%} of limit with the largest function; largest MB: {big}"],
        ["layer prhub, zipped (limit 50 MB)", f"{zipped / 2**20:.1f} MB",
         f"{result['zipped_share_of_limit']:.0%} of limit; prhub package {prhub_own / 2**10:.0f} KB; "
         f"fonts: {', '.join(fonts) or 'none bundled'}"],
    ]
    return result


def main() -> None:
    for name, value, note in run()["rows"]:
        print(f"{name:<40} {value:>10}  {note}")


if __name__ == "__main__":
    os.environ.setdefault("PIP_NO_INPUT", "1")
    main()
