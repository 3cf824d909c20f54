"""Where each page of the site lives, and how one page links to another.

A repository's configured language (`home`) sits at the root of a report or PR
folder; every other language in a subfolder named by its code:

    <owner>/<repo>/index.html                         dashboard and reports list (home language)
    <owner>/<repo>/<lang>/index.html, feed.xml        the same in another language
    <owner>/<repo>/reports/<since>-to-<until>/[<lang>/]index.html | report.md | report.pdf | report.json
    <owner>/<repo>/pull/<N>/[<lang>/]index.html | report.md | report.pdf | report.json

Folders end with "/"; links between pages are relative, so a site copied anywhere still works.
"""
from __future__ import annotations

import posixpath
from typing import Any

from prhub.period import Period

LANGUAGES = ("zh", "en")
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}


def lang_dir(lang: str, home: str) -> str:
    """"" for the home language, "<lang>/" for any other."""
    return "" if lang == home else f"{lang}/"


def repo_dir(repo: str, lang: str, home: str) -> str:
    return f"{repo}/{lang_dir(lang, home)}"


def report_dir(repo: str, slug: str, lang: str, home: str) -> str:
    return f"{repo}/reports/{slug}/{lang_dir(lang, home)}"


def report_folder(report: Any, home: str) -> str:
    """The folder of a report (a report.json as a dict): by its period's slug and its language."""
    period = report["period"]
    slug = Period.parse(period["since"], period["until"], period["tz"]).slug
    return report_dir(report["repo"], slug, report["language"], home)


def pull_dir(repo: str, number: int, lang: str, home: str) -> str:
    return f"{repo}/pull/{number}/{lang_dir(lang, home)}"


def relative(here: str, there: str) -> str:
    """The link from the page in folder `here` to the folder `there` (both bucket folders ending in "/")."""
    rel = posixpath.relpath(there.rstrip("/") or ".", here.rstrip("/") or ".")
    return "./" if rel == "." else rel + "/"


def alternates(here_of: dict[str, str], lang: str) -> list[dict[str, str]]:
    """Links to the same page in its other languages: `here_of` maps language -> that version's folder."""
    here = here_of[lang]
    return [{"lang": other, "name": LANGUAGE_NAMES.get(other, other), "href": relative(here, folder)}
            for other, folder in sorted(here_of.items()) if other != lang]


def nav(here: str, repo: str, lang: str, home: str) -> dict[str, str]:
    """Relative links from the page in folder `here` to the site root, its repository's page and feed."""
    repo_href = relative(here, repo_dir(repo, lang, home))
    return {"root_href": relative(here, ""), "repo_href": repo_href, "feed_href": repo_href + "feed.xml"}
