"""Size of the built prhub layer (and each function's code) against Lambda's limits.

Builds the layer as `sam build` does for python3.12 on x86_64: the wheels of
layers/prhub/requirements.txt for that platform (`pip install --target`, no .pyc)
plus the `prhub` package with everything it carries (templates, prompts, fonts;
the local harness, prhub_local, stays out), under `python/`. The pip install is
cached under .prhub/bench-cache (keyed by the requirements' hash) so reruns are fast. Lambda allows 250 MB
unzipped for a function with all its layers, and 50 MB zipped for a direct upload.

    python -m bench.layer_size
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".prhub" / "bench-cache"
UNZIPPED_LIMIT = 250 * 1024 * 1024
ZIPPED_LIMIT = 50 * 1024 * 1024
PIP_PLATFORM = ["--platform", "manylinux2014_x86_64", "--implementation", "cp", "--python-version", "3.12",
                "--only-binary=:all:"]


def install_requirements(requirements: Path) -> Path:
    """The layer's dependencies installed for Lambda's platform (cached by content hash)."""
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()[:16]
    target = CACHE / f"layer-{digest}"
    if (target / ".complete").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    # pip's warnings about the venv's own packages do not concern the layer: keep them off the table.
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check",
                    "--target", str(target), *PIP_PLATFORM, "-r", str(requirements)], check=True,
                   capture_output=True, text=True)
    (target / ".complete").touch()
    return target


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def zipped_size(root: Path, arcroot: str) -> int:
    """Size of a deflated zip of `root`, entries under `arcroot/` (as the deployment package holds them)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "layer.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for path in sorted(root.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and path.name != ".complete":
                    zf.write(path, f"{arcroot}/{path.relative_to(root)}")
        return archive.stat().st_size


def build_layer() -> Path:
    """A directory laid out as the built layer's python/ folder."""
    deps = install_requirements(ROOT / "layers" / "prhub" / "requirements.txt")
    build = CACHE / "layer-build"
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(deps, build, ignore=shutil.ignore_patterns(".complete"))
    shutil.copytree(ROOT / "layers" / "prhub" / "prhub", build / "prhub", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return build


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
        return {"error": f"pip install failed ({exc.returncode}): {exc.stderr[-500:]}",
                "rows": [["layer prhub", "n/a", "pip could not install the requirements for python3.12"]]}
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
