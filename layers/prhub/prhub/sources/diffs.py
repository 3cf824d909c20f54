"""A pull request's whole diff (`Accept: application/vnd.github.diff`), split into per-file hunks.

GitHub's GraphQL API has no diff text, so the GraphQL source fetches a PR's diff in one
REST request and cuts it here into what the REST `/files` rows carry per file: the hunk
text (`patch`, from the first `@@` on, as REST gives it), the old path of a rename, and
whether git called the file binary.

Paths: git writes `a/<old>` and `b/<new>`, C-quoted (`"a/t\\303\\251st"`) when they hold
unusual bytes; `/dev/null` stands for the missing side of an added or deleted file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_GIT_HEADER = re.compile(r"^diff --git (.+)$")
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class FileDiff:
    path: str
    previous_path: str | None = None  # set for renames and copies
    binary: bool = False
    patch: str | None = None  # hunks only; None when git printed none (binary, mode or rename-only changes)


def unquote(path: str) -> str:
    """git's C-style quoted path (`"a/x\\ty"`, octal bytes as UTF-8) -> the path; an unquoted path as is."""
    if not (len(path) >= 2 and path.startswith('"') and path.endswith('"')):
        return path
    body, raw, i = path[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1:i + 4]):
                raw.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            raw.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        raw.extend(char.encode())
        i += 1
    return raw.decode("utf-8", errors="replace")


def _strip_side(path: str, side: str) -> str | None:
    path = unquote(path.rstrip("\t\n"))  # git ends a name holding spaces with a tab on ---/+++ lines
    if path == "/dev/null":
        return None
    return path[2:] if path.startswith(side + "/") else path


def _header_paths(rest: str) -> tuple[str, str]:
    """The two paths of `diff --git a/X b/Y`. Unquoted paths with spaces are ambiguous; git then writes
    the same path twice (no rename), so the split that makes both halves equal is the one."""
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return _strip_side(rest[:end + 1], "a") or "", _strip_side(rest[end + 2:], "b") or ""
    if rest.endswith('"'):
        start = rest.rindex(' "')
        return _strip_side(rest[:start], "a") or "", _strip_side(rest[start + 1:], "b") or ""
    middle = len(rest) // 2
    if rest[middle] == " " and rest[2:middle] == rest[middle + 3:]:
        return rest[2:middle], rest[middle + 3:]
    old, _, new = rest.partition(" b/")
    return old[2:] if old.startswith("a/") else old, new


def split_diff(text: str) -> list[FileDiff]:
    """Every file of a `git diff` text, in order."""
    files: list[FileDiff] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        header = _GIT_HEADER.match(lines[i])
        if not header:
            i += 1
            continue
        old, new = _header_paths(header.group(1))
        renamed_from: str | None = None
        binary = False
        i += 1
        while i < len(lines) and not lines[i].startswith("@@") and not _GIT_HEADER.match(lines[i]):
            line = lines[i]
            if line.startswith(("rename from ", "copy from ")):
                renamed_from = unquote(line.split(" ", 2)[2])
            elif line.startswith(("rename to ", "copy to ")):
                new = unquote(line.split(" ", 2)[2])
            elif line.startswith("--- "):
                old = _strip_side(line[4:], "a") or old
            elif line.startswith("+++ "):
                new = _strip_side(line[4:], "b") or new
            elif line.startswith("Binary files ") or line == "GIT binary patch":
                binary = True
            i += 1
        start = i
        while i < len(lines) and not _GIT_HEADER.match(lines[i]):
            i += 1
        hunk = lines[start:i]
        while hunk and hunk[-1] == "":  # the newline ending the diff (or this file) is not part of the hunk
            hunk.pop()
        files.append(FileDiff(new or old, renamed_from if renamed_from and renamed_from != new else None,
                              binary, "\n".join(hunk) if hunk else None))
    return files


def hunks_complete(patch: str | None) -> bool:
    """Whether every hunk holds the lines its `@@ -a,b +c,d @@` header promises: a diff cut off in
    transit (whose Content-Length matched what arrived) ends short."""
    old = new = 0
    for line in (patch or "").split("\n"):
        header = _HUNK.match(line)
        if header:
            if old or new:
                return False
            old, new = int(header.group(1) or 1), int(header.group(2) or 1)
        elif line.startswith("\\"):  # "\ No newline at end of file"
            continue
        elif line.startswith("-"):
            old -= 1
        elif line.startswith("+"):
            new -= 1
        elif old or new:
            old, new = old - 1, new - 1
    return old == 0 and new == 0
