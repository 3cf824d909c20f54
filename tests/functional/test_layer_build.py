"""The layer's build recipe, run as `sam build` runs it: the whole layer, CJK font included, or no layer.

SAM's makefile builder (template.yaml: BuildMethod makefile; aws-lambda-builders' CustomMakeAction)
copies layers/prhub to a scratch folder and runs `make --makefile layers/prhub/Makefile build-PrhubLayer`
there with ARTIFACTS_DIR in the environment. These tests do exactly that (the SAM CLI is not installed
here) and read what would be deployed. The recipe installs from
PyPI; pip's cache makes reruns take about 20 s.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import cfn_yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.golden.cases import load
from tests.unit.render_support import pdf_text, render_pdf_strict

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "prhub"
ELF_MACHINE = {"arm64": 183, "x86_64": 62}  # e_machine: EM_AARCH64, EM_X86_64


def sam_build_layer(source: Path, scratch: Path, artifacts: Path) -> subprocess.CompletedProcess[str]:
    """Copy the layer's folder to `scratch` and run its build target there, as SAM's makefile builder does."""
    shutil.copytree(source, scratch, ignore=shutil.ignore_patterns("__pycache__"))
    return subprocess.run(["make", "--makefile", str(source / "Makefile"), "build-PrhubLayer"], cwd=scratch,
                          env=os.environ | {"ARTIFACTS_DIR": str(artifacts)}, capture_output=True, text=True,
                          timeout=600)


def layer_architecture() -> str:
    layer = json.loads(json.dumps(cfn_yaml.load(str(ROOT / "template.yaml"))))["Resources"]["PrhubLayer"]
    [arch] = layer["Properties"]["CompatibleArchitectures"]
    return str(arch)


def installed_distributions(site: Path) -> dict[str, str]:
    """canonical name -> version of every distribution pip installed into `site`."""
    found = {}
    for metadata in site.glob("*.dist-info/METADATA"):
        headers = dict(re.findall(r"^(Name|Version): (.+)$", metadata.read_text(encoding="utf-8"), re.MULTILINE))
        found[canonicalize_name(headers["Name"])] = headers["Version"]
    return found


def elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", path
    return int(struct.unpack("<H", header[18:20])[0])


def check_package(site: Path) -> None:
    source = LAYER / "prhub"
    expected = {p.relative_to(source) for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    shipped = {p.relative_to(site / "prhub") for p in (site / "prhub").rglob("*") if p.is_file()}
    assert {Path("site/templates/report.html.j2"), Path("model/prompts/pr_system.zh.j2"),
            Path("site/render/pdf.py")} <= expected
    assert shipped - expected == {Path("fonts/NotoSansSC-Regular.otf"), Path("fonts/NotoSansSC-Common.ttf"),
                                  Path("fonts/NotoSansSC-Latin.ttf"), Path("fonts/NotoSansSC-Frequent.ttf"),
                                  Path("fonts/NotoSansSC-Ideographs.ttf"),
                                  Path("fonts/OFL.txt")}
    assert expected <= shipped
    assert all((site / "prhub" / rel).read_bytes() == (source / rel).read_bytes() for rel in expected)


def check_dependencies(site: Path) -> None:
    installed = installed_distributions(site)
    for line in (LAYER / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            version = installed.get(canonicalize_name(requirement.name))
            assert version is not None, f"{requirement.name} is not in the layer"
            assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
    assert "pylopdf-fonts-zh-cn" not in installed  # only its font is copied, not the package
    assert not (site / "bin").exists() and not (site / "share").exists()
    # Compiled modules for Lambda's interpreter and the template's architecture, not the build machine's.
    extensions = [p for p in site.rglob("*.so") if p.is_file()]
    assert any(p.parent.name == "pydantic_core" for p in extensions)
    assert {p.name for p in extensions if re.search(r"\.cpython-3(?!12-)\d+", p.name)} == set()
    machine = ELF_MACHINE[layer_architecture()]
    assert {p.name for p in extensions if elf_machine(p) != machine} == set()


def check_font(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import prhub
    from fontTools.ttLib import TTFont
    from prhub.site.render.pdffont import COMMON_FONTS, PACKAGED_FONT

    font = site / "prhub" / "fonts" / "NotoSansSC-Regular.otf"
    # Where the layer's own render/pdffont.py looks, i.e. /opt/python/prhub/fonts/ on Lambda.
    assert font.relative_to(site / "prhub") == PACKAGED_FONT.relative_to(Path(prhub.__file__).resolve().parent)
    with TTFont(font, lazy=True) as ttfont:
        assert ttfont["name"].getDebugName(1) == "Noto Sans SC"
        cmap = ttfont.getBestCmap()
    assert all(ord(c) in cmap for c in "这是本周合并的拉取请求：风险、测试与后续建议")
    assert "SIL OPEN FONT LICENSE Version 1.1" in (font.parent / "OFL.txt").read_text()

    cut = font.with_name("NotoSansSC-Common.ttf")  # the cut beside it (cut_font.py), as render/pdffont.py finds it
    assert cut.relative_to(site / "prhub") == COMMON_FONTS[0].relative_to(Path(prhub.__file__).resolve().parent)
    with TTFont(cut, lazy=True) as ttfont:
        kept = set(ttfont.getBestCmap())
    assert all(ord(c) in kept for c in "这是本周合并的拉取请求：风险、测试与后续建议") and len(kept) < len(cmap) / 2

    pdf = render_pdf_strict(load("zh-week"), str(font))  # strict: a glyph the font lacks is an error
    text = pdf_text(pdf, tmp_path)
    assert "本周亮点" in text and "执行摘要" in text and "风险详情" in text
    if shutil.which("pdffonts"):
        (tmp_path / "report.pdf").write_bytes(pdf)
        fonts = subprocess.run(["pdffonts", str(tmp_path / "report.pdf")], capture_output=True, text=True,
                               check=True).stdout
        [row] = [line for line in fonts.splitlines() if "+NotoSansSC " in line]
        assert re.match(r"^[A-Z]{6}\+NotoSansSC ", row) and " yes yes " in row  # embedded as a subset


@pytest.mark.slow
def test_the_layer_recipe_builds_the_package_its_dependencies_and_the_cjk_font(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    artifacts = tmp_path / "artifacts"
    result = sam_build_layer(LAYER, tmp_path / "scratch", artifacts)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert sorted(p.name for p in artifacts.iterdir()) == ["python"]  # Lambda puts /opt/python on sys.path
    site = artifacts / "python"
    check_package(site)
    check_dependencies(site)
    check_font(site, tmp_path, monkeypatch)


def test_a_build_that_cannot_get_the_font_fails_before_anything_else(tmp_path: Path) -> None:
    # A wheel whose bytes are not the reviewed ones is what any failure to get the font looks like to make.
    tampered = tmp_path / "source"
    shutil.copytree(LAYER, tampered, ignore=shutil.ignore_patterns("__pycache__"))
    lock = tampered / "font-requirements.txt"
    text = lock.read_text()
    pinned = re.search(r"--hash=sha256:([0-9a-f]{64})", text)
    assert pinned is not None
    lock.write_text(text.replace(pinned.group(1), "0" * 64))

    artifacts = tmp_path / "artifacts"
    result = sam_build_layer(tampered, tmp_path / "scratch", artifacts)
    assert result.returncode != 0
    assert "could not install the PDF's CJK font" in result.stderr and "docs/pdf-fonts.md" in result.stderr
    assert not (artifacts / "python" / "prhub" / "fonts").exists()
    assert not (artifacts / "python" / "boto3").exists()  # stopped before the dependencies


def test_the_recipe_refuses_to_run_without_artifacts_dir() -> None:
    env: dict[str, Any] = {k: v for k, v in os.environ.items() if k != "ARTIFACTS_DIR"}
    result = subprocess.run(["make", "-C", str(LAYER), "build-PrhubLayer"], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0 and "ARTIFACTS_DIR is not set" in result.stderr
