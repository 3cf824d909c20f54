"""One PR's page (pull/<N>/report.json, schema prhub.pull/1): the PR as its report scored it, and its relations.

Contract:

    pull_page(report, number, files=(), note="", mentions=(), neighbours=None, head="") -> PullPage
    file_lines(facts) -> list[FileLine]                             a PR's files, from its pulls.json entry
    file_neighbours(number, files_by_pr, merged_at) -> Neighbours   earlier and later PRs on the same files
    mentioned_in(number, reports) -> list[Mention]                  the period reports that list the PR
    own_report(here, mentions, merged_on) -> Mention                the report a PR page belongs to: its week's

Everything on the page comes from published data: the PR's entry in the report that
scored it, that report's cluster and revert chain holding it, the files the
scorer recorded (grouped by module, with their line counts when known) and, from
the other published reports, where else it is mentioned and which PRs touched
the same files before and after it. The renderers (prhub.site.render.pull) read it and add nothing.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any, NotRequired, TypedDict

from prhub.core.errors import PrhubError
from prhub.core.period import parse_timestamp, zone
from prhub.core.report import Cluster, PrEntry, Report, Revert, Scorer, Slice

SCHEMA = "prhub.pull/1"
MAX_NEIGHBOURS = 10  # per direction: the nearest in time, so the list stays a list


class FileLine(TypedDict):
    path: str
    additions: NotRequired[int]
    deletions: NotRequired[int]


class FileGroup(TypedDict):
    module: str
    files: list[FileLine]
    additions: int
    deletions: int


class Mention(TypedDict):
    slug: str  # <since>-to-<until>
    title: str
    language: str


class Neighbours(TypedDict):
    earlier: list[int]  # PRs merged before this one that changed one of its files, nearest first
    later: list[int]


class PullPage(TypedDict):
    schema: str
    repo: str
    slice: NotRequired[Slice]  # the slice of the report that scored it: the page lives in its folder
    language: str
    report: Mention  # the report it belongs to: the shortest published period holding its merge day (own_report)
    scorer: Scorer  # the scoring report's scorer (kind, model, prompt version)
    pr: PrEntry  # as the report the page was rendered from scored it
    note: str  # what the model's answer left out or why it was replaced ("" when nothing)
    files: list[FileGroup]
    cluster: Cluster | None
    reverts: list[Revert]  # the revert chains it is part of
    neighbours: Neighbours
    mentions: list[Mention]  # every published report listing it, the scoring one included
    links: dict[str, str]  # PR number (as text, JSON keys) -> GitHub URL of the PRs named on the page (they have pages)
    head: NotRequired[str]  # the PR head (commit) the page was built for: a page is rebuilt only when it moves
    tz: NotRequired[str]  # the scoring report's time zone: the page says when it merged there, not in UTC


def _module_of(path: str, modules: Sequence[str], module_map: Mapping[str, str]) -> str:
    """The module a file belongs to: the longest module_map prefix, else one of the PR's modules named by a folder
    of its path, else its top folder."""
    best = max((p for p in module_map if path.startswith(p)), key=len, default="")
    if best:
        return module_map[best]
    folders = path.split("/")[:-1]
    for module in modules:
        if module in folders:
            return module
    return folders[0] if folders else "(root)"


def group_files(files: Iterable[FileLine], modules: Sequence[str], module_map: Mapping[str, str]) -> list[FileGroup]:
    """Files by module, largest module first, each module's files by lines changed (then path)."""
    groups: dict[str, list[FileLine]] = {}
    for f in files:
        groups.setdefault(_module_of(f["path"], modules, module_map), []).append(f)

    def lines(f: FileLine) -> int:
        return f.get("additions", 0) + f.get("deletions", 0)

    out: list[FileGroup] = [
        {"module": module, "files": sorted(items, key=lambda f: (-lines(f), f["path"])),
         "additions": sum(f.get("additions", 0) for f in items), "deletions": sum(f.get("deletions", 0) for f in items)}
        for module, items in groups.items()
    ]
    return sorted(out, key=lambda g: (-(g["additions"] + g["deletions"]), -len(g["files"]), g["module"]))


def file_lines(facts: Mapping[str, Any]) -> list[FileLine]:
    """A PR's files from its pulls.json entry ({files: [path], lines: [[additions, deletions]]}), with their line
    counts when the entry has one pair per path (results stored before line counts were kept have none)."""
    paths = [str(p) for p in facts.get("files") or []]
    lines = facts.get("lines") or []
    if len(lines) != len(paths):
        return [{"path": p} for p in paths]
    return [{"path": p, "additions": int(a), "deletions": int(d)} for p, (a, d) in zip(paths, lines, strict=True)]


def file_neighbours(number: int, files_by_pr: Mapping[int, Iterable[str]], merged_at: Mapping[int, str]) -> Neighbours:
    """PRs that changed one of `number`'s files, split by merge time around it, nearest first."""
    mine = set(files_by_pr.get(number, ()))
    me = (merged_at.get(number, ""), number)
    # Each PR's sort key made once, and no set of its paths (a year's PRs on a busy file are hundreds each).
    sharing = sorted((merged_at.get(n, ""), n) for n, paths in files_by_pr.items()
                     if n != number and not mine.isdisjoint(paths))
    earlier = [key[1] for key in reversed(sharing) if key < me]
    later = [key[1] for key in sharing if key > me]
    return {"earlier": earlier[:MAX_NEIGHBOURS], "later": later[:MAX_NEIGHBOURS]}


def mentioned_in(number: int, reports: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Mention]:
    """The reports (slug, report.json) whose PR list, revert chains or clusters name `number`, oldest first."""
    out: list[Mention] = []
    for slug, report in reports:
        numbers = {p.get("number") for p in report.get("prs", [])}
        numbers |= {n for r in report.get("reverts", []) for n in (r.get("pr"), r.get("reverts"), r.get("relanded_by"))}
        if number in numbers:
            out.append({"slug": slug, "title": str(report.get("title") or slug),
                        "language": str(report.get("language") or "")})
    return sorted(out, key=lambda m: m["slug"])


def _span(slug: str) -> tuple[date, date] | None:
    """The days (since, until) of a period's slug "<since>-to-<until>", None when it is not one."""
    since, sep, until = slug.partition("-to-")
    try:
        return (date.fromisoformat(since), date.fromisoformat(until)) if sep else None
    except ValueError:
        return None


def own_report(here: Mention, mentions: Sequence[Mention], merged_on: date | None) -> Mention:
    """The report a PR page belongs to (its "back to the report" and byline): of the published reports listing it,
    the shortest period holding its merge day, so a PR of a week stays the week's after a month or a year lists it
    too; `here` (the report the page is rendered from) when none holds that day or the day is unknown."""
    if merged_on is None:
        return here
    holding = [(span[1] - span[0], m["slug"], m) for m in [here, *mentions]
               if (span := _span(m["slug"])) and span[0] <= merged_on <= span[1]]
    if not holding:
        return here
    best = min(holding, key=lambda t: (t[0], t[1]))[2]
    return here if best["slug"] == here["slug"] else best


def merge_day(merged_at: str, tz: str) -> date | None:
    try:
        return parse_timestamp(merged_at).astimezone(zone(tz)).date()
    except (TypeError, ValueError, PrhubError):
        return None


def pull_page(report: Report, slug: str, number: int, files: Iterable[FileLine] = (), note: str = "",
              mentions: Sequence[Mention] = (), neighbours: Neighbours | None = None,
              module_map: Mapping[str, str] | None = None, urls: Mapping[int, str] | None = None,
              head: str = "") -> PullPage:
    """The page of PR `number` as `report` (published at reports/<slug>/) scored it; KeyError when it does not list it.

    `urls`: GitHub URLs of PRs of other periods (the neighbours), beside those `report` lists."""
    by_number = {p["number"]: p for p in report["prs"]}
    pr = by_number[number]
    cluster = next((c for c in report.get("clusters", []) if number in c["prs"]), None)
    reverts = [r for r in report.get("reverts", []) if number in (r["pr"], r["reverts"], r["relanded_by"])]
    near = neighbours or {"earlier": [], "later": []}
    here: Mention = {"slug": slug, "title": report["title"], "language": report["language"]}
    period = report.get("period") or {}
    own = own_report(here, mentions, merge_day(str(pr.get("merged_at") or ""), str(period.get("tz") or "UTC")))
    named = {n for r in reverts for n in (r["pr"], r["reverts"], r["relanded_by"]) if n is not None}
    named |= set(cluster["prs"] if cluster else []) | set(near["earlier"]) | set(near["later"])
    known = {**(urls or {}), **{n: p["url"] for n, p in by_number.items()}}
    links = {str(n): known[n] for n in sorted(named) if known.get(n)}
    narrowed: dict[str, Any] = {"slice": report["slice"]} if "slice" in report else {}
    return {
        "schema": SCHEMA, "repo": report["repo"], **narrowed,  # type: ignore[typeddict-item]
        "language": report["language"], "report": own,
        "scorer": report["scorer"], "pr": pr, "note": note,
        "files": group_files(files, pr["modules"], module_map or {}),
        "cluster": cluster, "reverts": reverts, "neighbours": near,
        "mentions": list(mentions) or [here], "links": links, **({"head": head} if head else {}),  # type: ignore[typeddict-item]
        **({"tz": str(period["tz"])} if period.get("tz") else {}),
    }
