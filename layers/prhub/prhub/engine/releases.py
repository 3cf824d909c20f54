"""The releases a period's PRs cut: a PR that prepares or makes a version ("chore: prepare Tokio v1.51.0", "Prepare
for 58.1.0 release", "[release] bump to v0.2.2", "Python Polars 1.37.0"), named by what it releases. A maintainer's
brief says which versions went out; the PR itself scores low (a version bump and a changelog), so no other section
names it."""
from __future__ import annotations

import re

from prhub.engine import translate

VERSION = r"v?\d+\.\d+(?:\.\d+)*(?:-?(?:rc|alpha|beta|post)\.?\d*)?(?![\w.])"  # not "0.17.1.dev0", a dev version
NAME = r"[A-Za-z][\w.-]*"
RELEASED = (
    re.compile(rf"^prepare\s+(?:for\s+|to\s+)?(?:the\s+)?(?:release\s+)?((?:{NAME}\s+){{0,2}}{VERSION})"
               rf"(?:\s+release)?(?:[\s:,]|$)", re.I),
    re.compile(rf"^release\s+((?:{NAME}\s+){{0,2}}{VERSION})(?:\s|$)", re.I),
    re.compile(rf"^({VERSION})\s+release$", re.I),
)
# "bump to v0.2.2" under a release tag (slime's "[release] …"); without one it opens a cycle (cargo's "chore: bump to
# 0.93.0" after a branch-off)
BUMPED = re.compile(rf"^bump\s+to\s+({VERSION})$", re.I)
# A title that is only what it ships ("Python Polars 1.37.0", "Ruff 0.8.6"), when it names the repository: not a
# dependency's version ("vLLM 0.18.0"), nor a sentence ("announce verl-vla v0.1.0")
SHIPPED = re.compile(rf"^((?:[A-Z][\w.-]*\s+){{1,2}}{VERSION})$")


def released(title: str, repo: str) -> str:
    """What the PR titled `title` in `repo` (owner/name) releases ("Tokio v1.51.0", "58.1.0"), else ""."""
    text = translate.strip(title)
    for pattern in RELEASED:
        if found := pattern.match(text):
            return found.group(1)
    if (found := BUMPED.match(text)) and re.search(r"\brelease\b", title, re.I):
        return found.group(1)
    name = repo.rsplit("/", 1)[-1].lower()
    if (found := SHIPPED.match(text)) and name in found.group(1).lower():
        return found.group(1)
    return ""
