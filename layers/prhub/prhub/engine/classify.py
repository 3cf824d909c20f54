"""Which part of a repository a PR works on, from its changed paths and the repository's own layout.

A path's module is its first folder below the containers repositories keep their code in (`src/`, `crates/`,
`packages/`, `lib/`) and below the package named like the repository (`src/cargo/`, `trl/`, `verl/`), so
`src/cargo/ops/cargo_add/mod.rs` is `ops`, `trl/trainer/grpo_trainer.py` is `trainer` and `crates/cargo-util/...`
is `cargo-util`. Library code counts before tests and docs: a PR is of the module most of its source is in.
A repository maps its own layout with `module_map` (path prefix -> module), which wins.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

CONTAINERS = {"src", "lib", "libs", "crates", "packages", "pkg", "python", "source", "sources", "components"}
# Folders that hold one folder per subsystem: Go's cmd/<command>/ and internal/<package>/, a CLI's commands/<name>/,
# plugins/<name>/ (gh's pkg/cmd/repo/, pkg/cmd/pr/: "cmd" was the module of nearly every PR). A file right in one is
# the folder's own.
NESTED_CONTAINERS = {"cmd", "internal", "commands", "plugins", "extensions", "modules"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]", "", name.lower())


@lru_cache(maxsize=64)
def _package_names(repo_name: str) -> frozenset[str]:
    """The package is named like the repository, or like a word of its name (src/lightning/pytorch/ in
    pytorch-lightning: its modules are trainer, callbacks…, not "lightning" for everything)."""
    return frozenset({_norm(repo_name)} | {_norm(w) for w in re.split(r"[-_.]", repo_name) if len(w) >= 4})


# A JVM project's source roots: src/main/java/, and Kotlin's source sets (src/commonMain/kotlin/, src/jvmMain/...).
LANGUAGE_ROOTS = {"java", "kotlin", "scala", "groovy", "resources"}
REVERSE_DOMAINS = {"com", "org", "io", "net", "dev", "me"}


def _source_set(folders: list[str]) -> bool:
    """Whether folders[0] is a JVM source set or language root ("main", "commonJvmAndroid" before "kotlin/",
    "kotlin" itself), which holds the packages: okhttp's every PR read "commonJvmAndroid 模块"."""
    name = folders[0]
    return name.lower() in LANGUAGE_ROOTS or name == "main" or (
        re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)+", name) is not None and folders[1].lower() in LANGUAGE_ROOTS)


def _distribution(folders: list[str], named: frozenset[str]) -> bool:
    """Whether folders[0] holds the package named like the repository, directly or under src/: a distribution's
    folder in a monorepo (pydantic-ai's pydantic_ai_slim/pydantic_ai/, polars' py-polars/src/polars/), which had
    made one module of every PR under it."""
    below = folders[1:3] if len(folders) > 2 and folders[1].lower() in CONTAINERS else folders[1:2]
    return len(folders) > 1 and _norm(below[-1]) in named and _norm(folders[0]) not in named


def layout_module(path: str, repo_name: str) -> str:
    """The module of one path under the repository's layout ('root' for a file at the top)."""
    parts = path.split("/")
    folders = parts[:-1]
    named = _package_names(repo_name)
    if _distribution(folders, named):
        folders = folders[1:]
    while folders and (folders[0].lower() in CONTAINERS or _norm(folders[0]).rstrip("0123456789") in named
                       or len(folders) > 1 and (folders[0].lower() in NESTED_CONTAINERS or _source_set(folders))):
        if folders[0].lower() in LANGUAGE_ROOTS and len(folders) > 3 and folders[1] in REVERSE_DOMAINS:
            folders = folders[2:]  # java/com/acme/...: the package's organisation is no subsystem
        folders = folders[1:]
    if folders:
        if folders[0] in (".github", ".gitlab", ".circleci", ".buildkite"):
            return "ci"  # the workflows a [ci] tag names; "github" read as a module of the code
        return folders[0].lstrip(".") or "root"
    if len(parts) > 1:  # a file right in the package (`trl/core.py`): the package is the module
        return parts[-2].lstrip(".") or "root"
    return "root"


def modules_by_layout(paths: Sequence[str], kinds: Sequence[str], repo_name: str) -> list[str]:
    """The PR's module: the one most of its library source is in, else the one most of its files are in."""
    source = [p for p, k in zip(paths, kinds, strict=True) if k == "source"]
    counts = Counter(layout_module(p, repo_name) for p in source or paths)
    if not counts:
        return []
    return [min(counts, key=lambda name: (-counts[name], name))]


def source_first(tags: Sequence[str], paths: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """A title's module tags, those its source files bear first (in the title's order otherwise): verl #7374
    "[ci, trainer] feat: remove mindspeedllm backend engine support" removes trainer and engine code and only
    trims two workflows, so its first module, the one prose names it by, is trainer."""
    source = [p for p, k in zip(paths, kinds, strict=True) if k == "source"]
    return sorted(tags, key=lambda tag: not any(bears(tag, p) for p in source))


@lru_cache(maxsize=65536)
def bears(tag: str, path: str) -> bool:
    """Whether a component of `path` is the module `tag` names."""
    return any(abbreviates(tag, part) for part in re.split(r"[/.]", path))


def abbreviates(tag: str, part: str) -> bool:
    """Whether a module tag names a path component: the same word, one inside the other, or an abbreviation
    (its letters in order from the same first letter: ckpt for checkpoint_engine, cfg for config)."""
    named = part.lower().startswith((f"{tag.lower()}_", f"{tag.lower()}-"))  # ruff's crates/ty_python_semantic for [ty]
    tag, part = re.sub(r"[\W_]", "", tag.lower()), re.sub(r"[\W_]", "", part.lower())
    if not tag or not part:
        return False
    if len(tag) <= 2:  # "ci", "ep", "rl": inside a word or as its letters they would name nearly any path ("critic");
        return tag == part or named  # a part named for it, before "_" or "-", is its (ty_ide)
    if tag in part or (len(part) >= 3 and part in tag):
        return True
    letters = iter(part)
    return tag[0] == part[0] and all(ch in letters for ch in tag)
