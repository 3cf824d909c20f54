"""Where each page of the site lives, and how one page links to another.

A repository's configured language (`home`) sits at the root of a report or PR
folder; every other language in a subfolder named by its code:

    <owner>/<repo>/index.html                         dashboard and reports list (home language)
    <owner>/<repo>/dashboard.json                     the dashboard's lists in full (the page caps them)
    <owner>/<repo>/<lang>/index.html, feed.xml        the same in another language
    <owner>/<repo>/reports/<since>-to-<until>/[<lang>/]index.html | report.md | report.pdf | report.json
    <owner>/<repo>/pull/<N>/[<lang>/]index.html | report.md | report.pdf | report.json

A monorepo's slice (a watch-list entry with "name" and "paths") is laid out like a repository, in its own folder:

    <owner>/<repo>/slices/<name>/index.html, feed.xml, reports/..., pull/<N>/...

Its `base` ("<owner>/<repo>/slices/<name>") stands where a repository's "<owner>/<repo>" does in every function
here: GitHub logins and repository names never hold "/", so a slice never meets a repository's folder.

Folders end with "/"; links between pages are relative, so a site copied anywhere still works.
"""
from __future__ import annotations

import posixpath
from typing import Any

from prhub.core.period import Period

LANGUAGES = ("zh", "en")
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}


SLICES = "slices"


def folder(repo: str, slice: str = "") -> str:
    """The base folder of a repository's pages ("owner/repo"), or of its slice named `slice`, without "/"."""
    return f"{repo}/{SLICES}/{slice}" if slice else repo


def slice_name(doc: Any) -> str:
    """The name of the slice a report or PR page (report.json, a PR page's report.json, as dicts) is of, or ""."""
    part = doc.get("slice")
    return str(part.get("name") or "") if isinstance(part, dict) else ""


def base(doc: Any) -> str:
    """The base folder a report or PR page belongs to: its repository's or its slice's."""
    return folder(str(doc["repo"]), slice_name(doc))


def repo_of(folder: str) -> str:
    """The repository ("owner/repo") a base folder belongs to."""
    return "/".join(folder.split("/")[:2])


def display(folder: str) -> str:
    """How pages and feeds name a base folder: "owner/repo", or "owner/repo (name)" for a slice (as
    prhub.core.config.RepoConfig.display_name does)."""
    parts = folder.split("/")
    return f"{parts[0]}/{parts[1]} ({parts[3]})" if len(parts) == 4 and parts[2] == SLICES else folder


def lang_dir(lang: str, home: str) -> str:
    """"" for the home language, "<lang>/" for any other."""
    return "" if lang == home else f"{lang}/"


def repo_dir(repo: str, lang: str, home: str) -> str:
    """The dashboard's folder of `repo` (a repository's or a slice's base) in `lang`."""
    return f"{repo}/{lang_dir(lang, home)}"


def report_dir(repo: str, slug: str, lang: str, home: str) -> str:
    return f"{repo}/reports/{slug}/{lang_dir(lang, home)}"


def report_folder(report: Any, home: str) -> str:
    """The folder of a report (a report.json as a dict): by its period's slug and its language."""
    period = report["period"]
    slug = Period.parse(period["since"], period["until"], period["tz"]).slug
    return report_dir(base(report), slug, report["language"], home)


def pull_dir(repo: str, number: int, lang: str, home: str) -> str:
    return f"{repo}/pull/{number}/{lang_dir(lang, home)}"


def relative(here: str, there: str) -> str:
    """The link from the page in folder `here` to the folder `there` (both bucket folders ending in "/").

    Counted on the folders' parts, as posixpath.relpath would (which it falls back to for a "." or ".." part):
    relpath makes both absolute, a getcwd each, 0.7 s of a year's 1,649 pages listed again."""
    mine, theirs = [p for p in here.split("/") if p], [p for p in there.split("/") if p]
    if {".", ".."} & {*mine, *theirs} or here.startswith("/") or there.startswith("/"):
        rel = posixpath.relpath(there.rstrip("/") or ".", here.rstrip("/") or ".")
        return "./" if rel == "." else rel + "/"
    shared = 0
    for a, b in zip(mine, theirs, strict=False):
        if a != b:
            break
        shared += 1
    parts = [".."] * (len(mine) - shared) + theirs[shared:]
    return "/".join(parts) + "/" if parts else "./"


def alternates(here_of: dict[str, str], lang: str) -> list[dict[str, str]]:
    """Links to the same page in its other languages: `here_of` maps language -> that version's folder."""
    here = here_of[lang]
    return [{"lang": other, "name": LANGUAGE_NAMES.get(other, other), "href": relative(here, folder)}
            for other, folder in sorted(here_of.items()) if other != lang]


def nav(here: str, repo: str, lang: str, home: str) -> dict[str, str]:
    """Relative links from the page in folder `here` to the site root, its repository's (or slice's) page and feed;
    `repo` is the page's base."""
    repo_href = relative(here, repo_dir(repo, lang, home))
    return {"root_href": relative(here, ""), "repo_href": repo_href, "feed_href": repo_href + "feed.xml"}
