"""What a PR's changed files say: file kinds, patch lines, version pins, TODOs and API breaks.

Works with and without diff text: GitHub gives `patch` per file (exports may
not), so every rule has a file-name fallback where one makes sense.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from prhub.core.models import FileChange
from prhub.engine.wording import say

CODE_EXTENSIONS = (".py", ".pyx", ".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp", ".rs", ".go", ".java", ".kt",
                   ".js", ".jsx", ".ts", ".tsx", ".scala", ".rb", ".sh", ".jinja", ".j2")
DOC_EXTENSIONS = (".md", ".rst", ".txt", ".ipynb", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf")
LOCK_FILES = ("uv.lock", "poetry.lock", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock",
              "pipfile.lock", "go.sum")
DEPENDENCY_FILE = re.compile(
    r"(^|/)(requirements[^/]*\.(txt|in)|pyproject\.toml|setup\.py|setup\.cfg|Dockerfile[^/]*|[^/]*\.dockerfile|"
    r"package\.json|environment[^/]*\.ya?ml|constraints[^/]*\.txt)$", re.IGNORECASE)
# The repository's own tooling: CI, and a root dev/ folder (arrow-rs' dev/release/ scripts, verl's dev/ installers).
CI_PREFIXES = (".github/", ".gitlab-ci", ".circleci/", ".buildkite/", "ci/", ".pre-commit-config", ".readthedocs",
               "dev/")
# A benchmark suite measures the code and ships to no user: read as a test (arrow-rs' parquet/benches/).
BENCHMARKS = re.compile(r"(?:^|/)(?:benches|benchmarks?)/", re.IGNORECASE)
# Folders whose dependency files no user installs: an example's, a playground's, the docs site's, a benchmark's, the
# tests' (svelte's playgrounds/sandbox/package.json, diffusers' examples/research_projects/*/requirements.txt).
NOT_INSTALLED = re.compile(r"(?:^|/)(?:[\w-]*examples?|docs?|playgrounds?|sandbox|demos?|benches|benchmarks?|"
                           r"experiments?|tests?|fixtures|tutorials|notebooks)/", re.IGNORECASE)
EXAMPLE_PREFIXES = ("examples/", "example/", "recipe/", "recipes/", "scripts/", "tutorials/", "notebooks/")
RECIPE_PREFIXES = ("recipe/", "recipes/")
DOC_PREFIXES = ("docs/", "doc/")
CONFIG_EXTENSIONS = (".yaml", ".yml", ".toml", ".json", ".ini", ".cfg")
# The repository's own tools' settings (compiler, linters, formatters, test runners, its docs site's builder), not a
# config its users load: hono #4797 removing a tsconfig.json was read as a breaking change, and pydantic-ai #7416
# removing its MkDocs pipeline (mkdocs.yml) was a breaking highlight.
TOOL_CONFIG = re.compile(r"(?:^|/)(?:tsconfig[^/]*\.json|jsconfig\.json|\.?eslintrc[^/]*|eslint\.config\.[^/]+|"
                         r"\.?prettierrc[^/]*|prettier\.config\.[^/]+|jest\.config\.[^/]+|vitest\.config\.[^/]+|"
                         r"babel\.config\.[^/]+|tox\.ini|mypy\.ini|\.flake8|ruff\.toml|rustfmt\.toml|clippy\.toml|"
                         r"\.editorconfig|codecov\.ya?ml|\.coveragerc|mkdocs\.ya?ml|docusaurus\.config\.[^/]+|"
                         r"book\.toml)$", re.IGNORECASE)


def is_test(path: str, test_paths: Sequence[str]) -> bool:
    """Whether `path` is a test file under the repository's test conventions (config.test_paths): a folder
    ("tests/"; "-tests/" ends a folder's name: runtime-tests/, and "*Test/" Kotlin's commonTest/), a name's part
    (".test." in url.test.ts), a name's end ("_test.go") or start ("test_"), a whole name ("tests.rs", and
    property_tests.rs)."""
    base = path.rsplit("/", 1)[-1]
    for pattern in test_paths:
        if pattern.endswith("/") and pattern.startswith(("-", "_", "*")):
            if any(folder.endswith(pattern[:-1].lstrip("*")) for folder in path.split("/")[:-1]):
                return True
        elif pattern.endswith("/"):
            if path.startswith(pattern) or f"/{pattern}" in path:
                return True
        elif len(pattern) > 2 and pattern.startswith(".") and pattern.endswith("."):
            if pattern in base:
                return True
        elif "." in pattern and pattern[0].isalpha():  # a whole name or its end after "_": tests.rs,
            if base == pattern or base.endswith("_" + pattern):  # property_tests.rs (not contests.py)
                return True
        elif "." in pattern or pattern.startswith("_"):
            if base.endswith(pattern):
                return True
        elif base.startswith(pattern):
            return True
    return False


def is_lock(path: str) -> bool:
    base = path.rsplit("/", 1)[-1].lower()
    return base in LOCK_FILES or base.endswith(".lock")


@lru_cache(maxsize=65536)  # the analysis asks per file per PR, a year's clusters some 20,000 times
def is_generated(path: str) -> bool:
    """Files a tool writes (lock files, `_generated_*` configs): their churn says nothing about the week's work."""
    base = path.rsplit("/", 1)[-1].lower()
    return is_lock(path) or base.startswith(("_generated", "generated_")) or ".generated." in base \
        or "/generated/" in f"/{path.lower()}"


def file_kind(path: str, test_paths: Sequence[str]) -> str:
    """test | ci (and the repository's other tooling) | deps | docs | example | source | config | other."""
    return _file_kind(path, tuple(test_paths))


@lru_cache(maxsize=65536)  # every rule asks again for the same paths; a week's files repeat across PRs
def _file_kind(path: str, test_paths: tuple[str, ...]) -> str:
    lower = path.lower()
    if is_test(path, test_paths) or BENCHMARKS.search(path) and lower.endswith(CODE_EXTENSIONS):
        return "test"
    if lower.startswith(CI_PREFIXES) or lower.startswith(".") or "/." in lower.rsplit("/", 1)[0] or \
            TOOL_CONFIG.search(path):
        # a dotfile or dot folder at the root is the repository's tooling (.gemini/, .gitignore), and so is a dot
        # folder anywhere (an editor's benchmarks/deno/.vscode/settings.json is no config its users load)
        return "ci"
    if DEPENDENCY_FILE.search(path) or is_lock(path):
        return "deps"
    if lower.startswith(DOC_PREFIXES) or lower.endswith(DOC_EXTENSIONS):
        return "docs"
    if lower.startswith("docker/"):
        return "deps"
    if lower.startswith(RECIPE_PREFIXES) and lower.endswith(".py"):
        return "source"  # a recipe's Python is an algorithm's implementation, not a launch script
    if lower.startswith(EXAMPLE_PREFIXES):
        return "example"
    if lower.endswith(CODE_EXTENSIONS):
        return "source"
    if lower.endswith(CONFIG_EXTENSIONS):
        return "config"
    return "other"


# A test written inside a source file, as Rust (#[test], #[tokio::test], #[cfg(test)]), Go, Python and JavaScript
# write them beside the code: tests a diff adds there are tests, though no test file changed.
INLINE_TEST = re.compile(r"^\s*(?:#\[(?:[\w:]+::)?test\b|#\[cfg\(test\)\]|func Test\w*\(\w+ \*testing\.T\)|"
                         r"(?:async\s+)?def test_\w*\(|(?:it|test|describe)\(\s*['\"`])")


def adds_inline_tests(change: FileChange) -> bool:
    """Whether a file's diff adds a test inside it (Rust's #[test] in src/, Go's func TestX, ...)."""
    return any(INLINE_TEST.match(line) for line in patch_lines(change.patch)[0])


def patch_lines(patch: str | None) -> tuple[list[str], list[str]]:
    """(added, removed) lines of a unified diff hunk text, without the +/- marker."""
    added: list[str] = []
    removed: list[str] = []
    for line in (patch or "").split("\n"):
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
    return added, removed


# --- version pins -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pin:
    file: str  # where it was read: a dependency file, or "title" / "description"
    ecosystem: str  # pypi | npm | docker | text (named in prose, e.g. "bump trtllm to 1.3.0rc14": no look-up)
    name: str
    spec: str  # e.g. "==0.8.4", ">=2.1", "^1.2.0", ":1.3.0rc15", " 0.17→0.18", "@641a5a0", "" (pinned, no version)

    @property
    def exact_version(self) -> str | None:
        """The one version the pin names exactly, when it does (what a registry can confirm)."""
        if self.ecosystem == "pypi" and self.spec.startswith("==") and "*" not in self.spec:
            return self.spec[2:].strip()
        if self.ecosystem == "npm" and re.fullmatch(r"[~^=]?\d+\.\d+\.\d+[\w.+-]*", self.spec):
            return self.spec.lstrip("~^=")
        return None

    def __str__(self) -> str:
        return f"{self.name}{self.spec}"


PY_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:==|>=|<=|~=|!=|<|>)\s*[\w.*+!-]+"
                    r"(?:\s*,\s*(?:==|>=|<=|~=|!=|<|>)\s*[\w.*+!-]+)*)")
QUOTED_REQ = re.compile(r"[\"']([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:==|>=|<=|~=|!=|<|>)[^\"';]+)[\"']")
PIP_INSTALL_REQ = re.compile(r"(?<![\w/.-])([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?((?:==|>=|<=|~=)[\w.*+!-]+)")
DOCKER_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*([\w./-]+):([\w.-]+)", re.IGNORECASE)
NPM_DEP = re.compile(r"^\s*\"(@?[\w./-]+)\"\s*:\s*\"([~^=<>]*\s*\d[\w.+-]*)\"")


# Versions named in a title or description: "vllm 0.17->0.18", "bump trtllm to 1.3.0rc14", "pin mbridge to commit
# 641a5a0", "transformers==5.3.0". Names are the words between the verb and the version, without filler.
VERSION = r"v?(\d+(?:\.[0-9A-Za-z]+)*(?:[-+][0-9A-Za-z.]+)?)"
ARROW = re.compile(rf"\b([A-Za-z][\w.-]*[A-Za-z0-9])\s+(?:from\s+)?{VERSION}\s*(?:->|→|=>|to)\s*{VERSION}", re.I)
MOVE_TO = re.compile(rf"\b(?:bump|upgrad|updat|pin|mov|switch)\w*\s+((?:[\w.-]+\s+){{1,4}}?)"
                     rf"(?:to|at|==|@)\s*(?:commit\s+|version\s+)?([<>~=]=?)?\s*"
                     rf"(?:{VERSION}(?![\w.])|([0-9a-f]{{7,40}})\b)", re.I)
UPGRADED_TO = re.compile(rf"\b([A-Za-z][\w.-]*[A-Za-z0-9])\s+(?:upgrade|bump|update|pin)(?:s|d|ed)?\s+to\s+{VERSION}",
                         re.I)
NAMED_VERSION = re.compile(rf"\b(?:bump|upgrad|updat|pin)\w*\s+((?:[\w.-]+\s+){{1,3}}?){VERSION}(?![\w.])", re.I)
BUILD_VARIABLE = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+")
PIN_NAME = re.compile(r"\bpin(?:s|ned|ning)?\s+([A-Za-z][\w.-]*[A-Za-z0-9])\b", re.I)
FILLER = {"the", "a", "an", "its", "our", "of", "and", "stable", "image", "images", "base", "docker", "dockerfile",
          "container", "version", "versions", "aarch64", "arm64", "x86", "amd64", "ci", "npu", "gpu", "nightly",
          "dependency", "dependencies", "deps", "package", "packages", "default", "latest", "main", "all", "env",
          "pypi", "npm", "requirements", "from", "to", "with", "in", "for"}


def _package(words: str) -> str:
    """The package a phrase names ("stable trtllm image" -> "trtllm"), or '' when only filler is left."""
    names = [w for w in re.split(r"\s+", words.strip()) if w and w.lower() not in FILLER and re.search(r"[A-Za-z]", w)]
    return names[0].strip(".,;:`'\"") if names else ""


def versions_named(text: str, where: str) -> list[Pin]:
    """Versions a title or description names, in the order of the text, one per package."""
    text = text.replace("`", "")
    found: dict[str, Pin] = {}

    def keep(pin: Pin) -> None:
        known = found.get(pin.name.lower())
        if BUILD_VARIABLE.fullmatch(pin.name):
            return  # `FA_TAG`, `VLLM_TAG`: a Dockerfile's build argument, not a package
        if pin.name and (known is None or (not known.spec and pin.spec)):
            found[pin.name.lower()] = pin

    for match in ARROW.finditer(text):
        if match.group(1).lower() not in FILLER and match.group(1).lower() not in ("from", "to"):
            keep(Pin(where, "text", match.group(1), f" {match.group(2)}→{match.group(3)}"))
    for match in PIP_INSTALL_REQ.finditer(text):
        keep(Pin(where, "pypi", match.group(1), match.group(2).rstrip(".")))
    for match in MOVE_TO.finditer(text):
        name = _package(match.group(1))
        if name:
            op = match.group(2) or ""
            keep(Pin(where, "text", name, f"{op or ' '}{match.group(3)}" if match.group(3) else f"@{match.group(4)}"))
    for match in UPGRADED_TO.finditer(text):
        if match.group(1).lower() not in FILLER:
            keep(Pin(where, "text", match.group(1), f" {match.group(2)}"))
    for match in NAMED_VERSION.finditer(text):
        if name := _package(match.group(1)):
            keep(Pin(where, "text", name, f" {match.group(2)}"))
    for match in PIN_NAME.finditer(text):
        if match.group(1).lower() not in FILLER:
            keep(Pin(where, "text", match.group(1), ""))
    return list(found.values())


def pins_in(change: FileChange) -> list[Pin]:
    """Version pins on the added lines of a dependency file's patch."""
    added, _removed = patch_lines(change.patch)
    name = change.filename.rsplit("/", 1)[-1].lower()
    pins: list[Pin] = []
    for line in added:
        text = line.split("#", 1)[0] if not name.startswith("dockerfile") else line
        if name == "package.json":
            match = NPM_DEP.match(text)
            if match and match.group(1) not in ("version", "node", "npm"):
                pins.append(Pin(change.filename, "npm", match.group(1), match.group(2).replace(" ", "")))
        elif name.startswith("dockerfile") or name.endswith(".dockerfile") or "/docker/" in f"/{change.filename}":
            match = DOCKER_FROM.match(text)
            if match:
                pins.append(Pin(change.filename, "docker", match.group(1), ":" + match.group(2)))
            pins += [Pin(change.filename, "pypi", m.group(1), m.group(2)) for m in PIP_INSTALL_REQ.finditer(text)]
        elif name.endswith((".txt", ".in")):
            match = PY_REQ.match(text)
            if match:
                pins.append(Pin(change.filename, "pypi", match.group(1), match.group(2).replace(" ", "")))
        else:
            pins += [Pin(change.filename, "pypi", m.group(1), m.group(2).replace(" ", ""))
                     for m in QUOTED_REQ.finditer(text)]
    return pins


# --- TODO markers -----------------------------------------------------------------------------------------

TODO = re.compile(r"\b(TODO|FIXME|XXX)\b")


def todos_added(files: Sequence[FileChange]) -> list[tuple[str, str]]:
    """(file, marker line) for TODO/FIXME/XXX on added lines."""
    found: list[tuple[str, str]] = []
    for change in files:
        added, removed = patch_lines(change.patch)
        before = {ln.strip() for ln in removed}
        for line in added:
            if TODO.search(line) and line.strip() not in before:  # a moved TODO is not a new one
                found.append((change.filename, " ".join(line.split())[:120]))
    return found


# --- inferred API breaks ----------------------------------------------------------------------------------

# How Chinese names a removed Python definition ("def" reads as code in a sentence).
DEF_WORDS = {"zh": {"def": "函数", "class": "类"}}
PY_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z]\w*)")
CLI_OPTION = re.compile(r"(?:add_argument|option)\(\s*[\"'](--[\w-]+)[\"']")
YAML_KEY = re.compile(r"^(\s*)([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*(?:#.*)?$")
# A class-level annotated default (dataclass / pydantic field): where Python code keeps its defaults.
FIELD_DEFAULT = re.compile(r"^( {4})([a-z_]\w*)\s*:\s*[^=#]+?=\s*(.+?)\s*(?:#.*)?$")


def _module_name(path: str) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


# An experiment's or a benchmark suite's files: nothing a user imports or loads (peft's
# method_comparison/experiments/<method>/adapter_config.json, hono's benchmarks/).
UNSHIPPED = re.compile(r"(?:^|/)(?:experiments?|benchmarks?|benches)/", re.IGNORECASE)


def _public_module(path: str, kind: str) -> bool:
    base = path.rsplit("/", 1)[-1]
    return kind == "source" and path.endswith(".py") and (base == "__init__.py" or not base.startswith("_")) \
        and not UNSHIPPED.search(path)


def _key_values(lines: list[str], pattern: re.Pattern[str]) -> dict[str, str]:
    """key -> value of config-like lines; a key seen twice keeps its first value (nested keys repeat)."""
    values: dict[str, str] = {}
    for line in lines:
        if len(line) > 300:  # generated or minified content; also keeps the lazy patterns linear
            continue
        match = pattern.match(line)
        if match and not line.lstrip().startswith(("#", "-")):
            values.setdefault(match.group(2), match.group(3).strip())
    return values


def breaking_reasons(files: Sequence[FileChange], test_paths: Sequence[str], language: str = "en") -> list[str]:
    """Why the change would break users even if untagged, one phrase per finding (most telling first), in `language`."""
    reasons: list[str] = []
    all_removed_lines = [ln for f in files for ln in patch_lines(f.patch)[1]]
    new_files = {f.filename for f in files if f.status == "added"}
    for change in files:
        kind = file_kind(change.filename, test_paths)
        if not _into_package(change, new_files):
            reasons += _files_gone(change, kind, all_removed_lines, test_paths, language)
        if change.patch is None or change.status == "removed":
            continue
        added, removed = patch_lines(change.patch)
        reasons += _options_gone(change.filename, added, removed, language)
        if kind == "source" and change.filename.endswith(".py"):
            reasons += _defs_gone(change.filename, added, removed, language)
        if kind in ("config", "source"):
            reasons += _keys_changed(change.filename, kind, added, removed, language)
    return reasons


def _into_package(change: FileChange, added: set[str]) -> bool:
    """A Python module moved into a package of its own name (`io/delta.py` to `io/delta/functions.py` beside a new
    `io/delta/__init__.py`, or to that `__init__.py` itself, which GitHub may list as the file removed and the
    package added: trl #5124's cli.py): `import io.delta` still works (polars #26190 had led its week as a breaking
    change)."""
    if change.status == "removed" and change.filename.endswith(".py"):  # GitHub's other shape of the same move
        return f"{change.filename[:-3]}/__init__.py" in added
    old = change.previous_filename or ""
    if change.status != "renamed" or not old.endswith(".py"):
        return False
    package = old[:-3]
    return change.filename == f"{package}/__init__.py" or \
        change.filename.startswith(f"{package}/") and f"{package}/__init__.py" in added


def _files_gone(change: FileChange, kind: str, all_removed_lines: list[str], test_paths: Sequence[str],
                language: str) -> list[str]:
    """A public module deleted (naming a line that imported it, when the diff has one) or moved; a config file
    deleted."""
    if change.status == "removed" and _public_module(change.filename, kind):
        module = _module_name(change.filename)
        importers = [ln.strip() for ln in all_removed_lines
                     if re.search(rf"\b(from|import)\s+{re.escape(module)}\b", ln)]
        if importers:
            return [say(language, "deletes_imported", file=change.filename, line=importers[0][:80])]
        return [say(language, "removes_module", file=change.filename)]
    if (change.status == "renamed" and change.previous_filename
            and _public_module(change.previous_filename, file_kind(change.previous_filename, test_paths))):
        return [say(language, "moves_module", old=change.previous_filename, new=change.filename)]
    if change.status == "removed" and kind == "config" and not UNSHIPPED.search(change.filename):
        return [say(language, "removes_config_file", file=change.filename)]
    return []


def _options_gone(filename: str, added: list[str], removed: list[str], language: str) -> list[str]:
    """CLI options the removed lines declared and the added ones no longer do."""
    old_options = {m for ln in removed for m in CLI_OPTION.findall(ln)}
    gone_options = sorted(old_options - set(CLI_OPTION.findall("\n".join(added))))
    if gone_options:
        return [say(language, "removes_cli_option", options=", ".join(gone_options), file=filename)]
    return []


def _defs_gone(filename: str, added: list[str], removed: list[str], language: str) -> list[str]:
    """Top-level or method definitions (indent <= 4) renamed one for one, else the first one removed."""
    old_defs = {m.group(3): m.group(2) for ln in removed if (m := PY_DEF.match(ln)) and len(m.group(1)) <= 4}
    new_defs = {m.group(3): m.group(2) for ln in added if (m := PY_DEF.match(ln)) and len(m.group(1)) <= 4}
    gone = sorted(set(old_defs) - set(new_defs))
    fresh = sorted(set(new_defs) - set(old_defs))
    if gone and fresh and len(gone) == len(fresh):
        pairs = ", ".join(f"{a} → {b}" for a, b in zip(gone, fresh, strict=True))
        return [say(language, "renames_api", file=filename, pairs=pairs)]
    if gone:
        what = old_defs[gone[0]]
        what = DEF_WORDS.get(language, {}).get(what, what)
        return [say(language, "removes_def", kind=what, name=gone[0], file=filename)]
    return []


def _keys_changed(filename: str, kind: str, added: list[str], removed: list[str], language: str) -> list[str]:
    """Config keys dropped (config files), then a changed default (config keys, dataclass field defaults)."""
    reasons: list[str] = []
    pattern = YAML_KEY if kind == "config" else FIELD_DEFAULT
    old, new = _key_values(removed, pattern), _key_values(added, pattern)
    if kind == "config":
        dropped = sorted(set(old) - set(new))
        if dropped:
            reasons.append(say(language, "removes_config_key", keys=", ".join(dropped[:3]), file=filename))
    changed = sorted(k for k in set(old) & set(new) if old[k] != new[k] and old[k] and new[k])
    if changed:
        key = changed[0]
        reasons.append(say(language, "changes_default_of", name=key, file=filename, old=old[key], new=new[key]))
    return reasons


def options_added(files: Sequence[FileChange], test_paths: Sequence[str]) -> list[str]:
    """New user-facing knobs on added lines: CLI options and config keys (from diff text), e.g. '--fast-path'."""
    found: list[str] = []
    for change in files:
        if change.patch is None:
            continue
        kind = file_kind(change.filename, test_paths)
        added, removed = patch_lines(change.patch)
        if kind in ("source", "example"):
            old = {m for ln in removed for m in CLI_OPTION.findall(ln)}
            found += [m for ln in added for m in CLI_OPTION.findall(ln) if m not in old]
        elif kind == "config":
            old_keys = _key_values(removed, YAML_KEY)
            found += [k for k in _key_values(added, YAML_KEY) if k not in old_keys]
    return list(dict.fromkeys(found))
