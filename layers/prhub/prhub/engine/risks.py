"""Per-PR risks, each with a detail a reviewer can act on.

Kinds (report.json `risks[].kind`):
  breaking          API/behaviour break, tagged or inferred (detail = why)
  revert            the PR reverts an earlier one
  dependency_pin    a dependency file users install changes (not an example's, the docs', a benchmark's or the
                    tests', nor a dev dependency) and the diff, title or description names the versions it sets
                    (with the registry check, also an exact version that does not exist)
  todo_left         TODO/FIXME/XXX markers added (from diff text)
  large_change      more changed lines than config.large_change_lines
  missing_tests     source code changed, no test file changed (not a docs PR, a release or a typo's fix)
  title_convention  the title's module tag disagrees with the paths, or a breaking change lacks [BREAKING]
  doc_mismatch      a breaking change, or new CLI options / config keys, with no documentation file changed
  unresolved_review, unreviewed, follow_up   what the reviews said: the period's (prhub.engine.reviews), added by
                    the analysis
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from prhub.core.config import RepoConfig
from prhub.core.models import FileChange, PullRequest, Risk
from prhub.engine import textparse, translate
from prhub.engine.changes import (
    NOT_INSTALLED,
    Pin,
    adds_inline_tests,
    file_kind,
    is_generated,
    is_lock,
    options_added,
    pins_in,
    todos_added,
    versions_named,
)
from prhub.engine.wording import joined, say

KINDS = ("breaking", "revert", "dependency_pin", "todo_left", "title_convention", "doc_mismatch", "large_change",
         "missing_tests", "unresolved_review", "unreviewed", "follow_up")

# The registries pins are checked against, by Pin.ecosystem, with the name a reader knows them by.
REGISTRY_NAMES = {"pypi": "PyPI", "npm": "npm"}


class VersionRegistry(Protocol):
    """Package version look-ups for the dependency_pin risk (prhub.sources.registry.Registry is one)."""

    def exists(self, ecosystem: str, name: str, version: str) -> bool | None:
        """Whether `name` `version` is published on `ecosystem` (pypi | npm); None when the registry cannot say."""
        ...


# Module tags whose files are recognisable by path in any repository.
TAG_PATHS: dict[str, tuple[str, ...]] = {
    "doc": ("docs/", "doc/", ".md", ".rst", "readme"), "docs": ("docs/", "doc/", ".md", ".rst", "readme"),
    "ci": (".github/", "ci/", ".pre-commit", "tests/", "docker", ".buildkite/", ".gitlab-ci"),
    "test": ("tests/", "test"), "tests": ("tests/", "test"),
    "docker": ("docker", "requirements", "setup.py", "pyproject.toml"),
    "example": ("examples/", "example/", "scripts/"), "examples": ("examples/", "example/", "scripts/"),
    "recipe": ("recipe",),
}


def missing_tests(files: Sequence[FileChange], config: RepoConfig) -> Risk | None:
    source = [f for f in files if file_kind(f.filename, config.test_paths) == "source"]
    tests = [f for f in files if file_kind(f.filename, config.test_paths) == "test"]
    if not source or tests or any(adds_inline_tests(f) for f in source):
        return None
    lines = sum(f.changes for f in source)
    one = len(source) == 1
    biggest = max(source, key=lambda f: (f.changes, f.filename)).filename  # what a reviewer would test first
    return Risk("missing_tests", say(config.language, "missing_tests_one" if one else "missing_tests", n=len(source),
                                     lines=lines, file=biggest))


# "Fix typos", "Fix: typo in autoencoder_dc.py", "chore: fix typo in read_version JSDoc" (the prefix cut first)
TYPO = re.compile(r"^(?:fix(?:e[sd]|ing)?:?\s+)?(?:a\s+|some\s+|minor\s+|several\s+|more\s+)?typos?\b", re.I)
# ... and nothing more: "Fix a Typo in X and Add async of Y" (verl #3369) adds a feature, "Typo fix -- Rename f
# to g" renames an API
MORE_THAN_TYPOS = re.compile(r"\b(?:(?:and|&)\s+(?:add|implement|support|introduce|refactor|enable|remove|update|"
                             r"improve|change)|renam\w*)\b", re.I)
DEV_DEPS = re.compile(r"^\W*\w+\((?:deps-dev|dev-deps|dev-dependencies)\)", re.IGNORECASE)  # dependabot's scope


def dependency_pin(pr: PullRequest, config: RepoConfig, registry: VersionRegistry | None) -> Risk | None:
    """The versions a change to dependency files users install sets, read from the diff, then the title, then the
    description (not an example's, the docs', a benchmark's or the tests' files, nor dev dependencies).

    A dependency file changed without a version anyone can read is no risk line of its own: there is nothing to
    check or act on. With `check_registry`, exact PyPI/npm versions are looked up and a missing one is named.
    """
    deps = [f for f in pr.files if file_kind(f.filename, config.test_paths) == "deps" and not is_lock(f.filename)
            and f.status != "removed" and not NOT_INSTALLED.search(f.filename)]
    if not deps or DEV_DEPS.search(pr.title):  # a dev dependency reaches no user either ("chore(deps-dev): …")
        return None
    named = _pins_named(pr, deps)
    if not named:
        return None
    missing = _missing_versions(named, config, registry) if config.check_registry and registry is not None else []
    shown = ", ".join([str(p) for p in named][:6]) + (" …" if len(named) > 6 else "")
    detail = say(config.language, "pins", shown=shown)
    if missing:
        detail = joined(config.language, missing) + (f"（{detail}）" if config.language == "zh" else f" ({detail})")
    return Risk("dependency_pin", detail)


def _pins_named(pr: PullRequest, deps: list[FileChange]) -> list[Pin]:
    """One pin per package, those with a version if any: the diff's reading of a package wins over the prose's,
    a version over a bare name."""
    pins: dict[str, Pin] = {}
    found = [p for f in deps if f.patch is not None for p in pins_in(f)]
    found += versions_named(pr.title, "title")
    found += versions_named(textparse.plain(textparse.strip_template(pr.body))[:4000], "description")
    for pin in found:
        known = pins.get(pin.name.lower())
        if known is None or (not known.spec and pin.spec):
            pins[pin.name.lower()] = pin
    return [p for p in pins.values() if p.spec] or list(pins.values())


def _missing_versions(pins: list[Pin], config: RepoConfig, registry: VersionRegistry) -> list[str]:
    """The exact PyPI/npm versions the registry says were never published, in the report's language."""
    missing: list[str] = []
    for pin in pins:
        version = pin.exact_version
        if not version or pin.ecosystem not in REGISTRY_NAMES:
            continue
        if registry.exists(pin.ecosystem, pin.name, version) is False:  # None: the registry could not say
            missing.append(say(config.language, "pin_missing", pin=pin, where=REGISTRY_NAMES[pin.ecosystem]))
    return missing


def todo_left(files: Sequence[FileChange], language: str = "en") -> Risk | None:
    found = todos_added(files)
    if not found:
        return None
    first_file, first_line = found[0]
    # "TODO or FIXME", not "TODO/FIXME", which a brief that names files by their names would cut as a path
    return Risk("todo_left", say(language, "todo_one" if len(found) == 1 else "todo", n=len(found), file=first_file,
                                 line=first_line))


def large_change(pr: PullRequest, config: RepoConfig) -> Risk | None:
    """A change too large to review well, by the lines a reviewer must read: tests, docs, lock files and generated
    files, and a change that only deletes, are no such burden (okhttp #9118 rewrote 1,351 lines of test asserts,
    hono #5108 deleted unused benchmarks; each had stood as its week's top risk). The risk says the whole size."""
    size = pr.additions + pr.deletions
    if size < config.large_change_lines or pr.files and pr.additions == 0:
        return None
    read = sum(f.additions + f.deletions for f in pr.files
               if not is_lock(f.filename) and not is_generated(f.filename)
               and file_kind(f.filename, config.test_paths) not in ("test", "docs"))
    if pr.files and read < config.large_change_lines:
        return None
    return Risk("large_change", say(config.language, "large_one" if pr.changed_files == 1 else "large", size=size,
                                    additions=pr.additions, deletions=pr.deletions, n=pr.changed_files,
                                    threshold=config.large_change_lines))


def tag_mismatch(tags: Sequence[str], files: Sequence[FileChange], config: RepoConfig) -> str:
    """Why the title's module tags disagree with the touched paths, or '' when they agree or cannot be judged."""
    paths = [f.filename.lower() for f in files]
    if not tags or not paths:
        return ""
    mapped = {m.lower() for p, m in config.module_map.items() for path in paths if path.startswith(p.lower())}
    known_in_map = {m.lower() for m in config.module_map.values()}
    for tag in tags:
        if tag in mapped or any(tag in path for path in paths):
            return ""
        hints = TAG_PATHS.get(tag)
        if hints is None and tag not in known_in_map:
            return ""  # a tag we cannot locate by path (e.g. "algo") may well be right: no judgement
        if hints and any(h in path for h in hints for path in paths):
            return ""
    return say(config.language, "tag_mismatch", tags=", ".join(tags),
               paths=("、" if config.language == "zh" else ", ").join(sorted({p.split("/")[0] for p in paths})[:4]))


def doc_mismatch(files: Sequence[FileChange], config: RepoConfig, breaking: bool, breaking_reason: str) -> Risk | None:
    """What users must learn about (a break, new options) when no documentation changed with it."""
    if any(file_kind(f.filename, config.test_paths) == "docs" for f in files):
        return None
    if breaking:
        return Risk("doc_mismatch", say(config.language, "doc_breaking", why=breaking_reason))
    added = options_added(files, config.test_paths)
    if added:
        shown = ", ".join(added[:4]) + (" …" if len(added) > 4 else "")
        return Risk("doc_mismatch", say(config.language, "doc_added", shown=shown))
    return None


def assess(pr: PullRequest, config: RepoConfig, *, tags: Sequence[str], breaking: bool, breaking_reason: str,
           tagged_breaking: bool, revert_of: str, registry: VersionRegistry | None = None,
           kind: str = "", released: bool = False) -> list[Risk]:
    """Every risk of one PR, in KINDS order. `kind`: its type; a docs PR's source edits are its doc comments (hono's
    "docs(language): add JSDoc @example"), which want no test, as a release's (`released`: the version string,
    svelte #18640) and a typo's fix do not."""
    found: list[Risk] = []
    if breaking:
        found.append(Risk("breaking", breaking_reason))
    if revert_of:
        found.append(Risk("revert", say(config.language, "reverts", what=revert_of)))
    for risk in (dependency_pin(pr, config, registry), todo_left(pr.files, config.language)):
        if risk:
            found.append(risk)
    convention = tag_mismatch(tags, pr.files, config)
    # The mark is asked for only where the repository uses one: its titles mark breaks (or the history is too short
    # to tell), or its PR template asks for [BREAKING]; trl never writes it, and telling its authors is no help.
    asked = config.conventions.breaking_marker is not False or "[BREAKING]" in (pr.body or "")
    if breaking and not tagged_breaking and asked:
        convention = joined(config.language, [c for c in (convention, say(config.language, "untagged_breaking")) if c])
    if convention:
        found.append(Risk("title_convention", convention))
    # what wants no test: a revert, a docs PR, a release (its source edit is the version string), a typo's fix
    untested = revert_of or kind == "docs" or released or TYPO.match(translate.strip(pr.title)) and \
        not MORE_THAN_TYPOS.search(pr.title)
    for risk in (None if revert_of else doc_mismatch(pr.files, config, breaking, breaking_reason),
                 large_change(pr, config), None if untested else missing_tests(pr.files, config)):
        if risk:
            found.append(risk)
    return found
