"""The releases a period's PRs cut: a PR that prepares or makes a version ("chore: prepare Tokio v1.51.0", "Prepare
for 58.1.0 release", "[release] bump to v0.2.2", "Python Polars 1.37.0"), named by what it releases. A maintainer's
brief says which versions went out; the PR itself scores low (a version bump and a changelog), so no other section
names it."""
from __future__ import annotations

import re

from prhub.engine import translate
from prhub.engine.lexicon import verb

VERSION = r"`?v?\d+\.\d+(?:\.\d+)*(?:[-.]?(?:rc|alpha|beta|post)\.?\d*)?`?(?![\w.])"  # not 0.17.1.dev0, a dev version
NAME = r"(?!(?:notes|for|the|to|release)\b)[A-Za-z][\w.-]*"  # "Prepare release notes for 1.2.0" names no release
# What may follow a version a title prepares: "release", the end, or its changelog ("Prepare for 57.1.0 release:
# Changelog and Version"), not other work ("Prepare for 1.0: remove deprecated APIs").
PREPARED_END = r"(?:\s+release)?(?:\s*$|\s*[:,]\s*(?:changelog|version|release)\b)"
RELEASED = (
    re.compile(rf"^prepare\s+(?:for\s+|to\s+)?(?:the\s+)?(?:release\s+)?((?:{NAME}\s+){{0,2}}{VERSION}){PREPARED_END}",
               re.I),
    re.compile(rf"^release\s+((?:{NAME}\s+){{0,2}}{VERSION})(?:\s*$|\s*[:,(]|\s+and\b)", re.I),
    re.compile(rf"^({VERSION})\s+release$", re.I),
)
# A title whose type word says release ("Release: v1.9", "chore(release): 1.2.0"): the version is all it says; a
# release's scope names the package (langgraph's "release(cli): 0.4.30")
TYPED = re.compile(rf"^(?:\[[^\]]*\]\s*)*(?:release(?:\((?P<scope>[\w./@-]+)\))?|chore\(release\))\s*[:：]\s*"
                   rf"(?P<what>(?:{NAME}\s+){{0,2}}{VERSION})\s*$", re.I)
# "bump to v0.2.2" under a release tag (slime's "[release] …"); without one it opens a cycle (cargo's "chore: bump to
# 0.93.0" after a branch-off)
BUMPED = re.compile(rf"^bump\s+to\s+({VERSION})$", re.I)
# "Bump 0.15.20", "Bump version to 0.15.19": the version alone, not "to" it (ruff's release PRs)
BUMPED_ALONE = re.compile(rf"^bump\s+(?:version\s+to\s+)?({VERSION})$", re.I)
# A title that is only what it ships ("Python Polars 1.37.0", "Ruff 0.8.6"), when it names the repository: not a
# dependency's version ("vLLM 0.18.0"), a verb's object ("Upgrade Ruff 0.9.1") nor a sentence ("announce verl-vla
# v0.1.0")
SHIPPED = re.compile(rf"^((?:[A-Z][\w.-]*\s+){{1,2}}{VERSION})$")


# A changesets release PR ("Version Packages", opened by changesets/action) names what it publishes in its
# description only: "# Releases" then "## svelte@5.56.10" per package.
CHANGESET = re.compile(rf"^##\s+`?(@?[\w.-]+(?:/[\w.-]+)?)@({VERSION})`?\s*$", re.M)
SHOWN = 3  # packages a changesets release names before it counts the rest


def released(title: str, repo: str, body: str = "") -> str:
    """What the PR titled `title` in `repo` (owner/name) releases ("Tokio v1.51.0", "58.1.0"; with its `body`, a
    changesets release's packages: "svelte 5.56.10"), else ""."""
    if said := _released(title, repo).replace("`", ""):
        return said
    if "# Releases" not in body:
        return ""
    packages = [f"{name} {version}" for name, version in CHANGESET.findall(body)]
    return ", ".join(packages[:SHOWN]) + (f" (+{len(packages) - SHOWN})" if len(packages) > SHOWN else "")


def _released(title: str, repo: str) -> str:
    if found := TYPED.match(translate.SUFFIX.sub("", title).strip()):
        scope, what = found.group("scope"), found.group("what")
        return f"{scope} {what}" if scope and scope.lower() not in what.lower() else what
    text = translate.strip(title)
    for pattern in RELEASED:
        if found := pattern.match(text):
            return found.group(1)
    if (found := BUMPED.match(text)) and re.search(r"\brelease\b", title, re.I) or (found := BUMPED_ALONE.match(text)):
        return found.group(1)
    name = repo.rsplit("/", 1)[-1]
    if (found := SHIPPED.match(text)) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", found.group(1), re.I) \
            and not verb(text.split()[:1]):
        return found.group(1)
    return ""
