"""The organisation digest (report.json schema prhub.digest/1): every watched repository's report of one period.

    digest = build(name, period, language, generated_at, reports, site_url)   # reports: repo -> report.json | None

Data in, data out: the flow (prhub.flow.digest) loads the reports and publishes what this returns; the channels'
message for it is prhub.notify.message.digest_message. Every number
is counted here from the reports' own report.json, so the digest's Markdown, HTML, PDF and messages agree with
each other and with the repositories' reports:

    schema, title, name, language, period{since, until, tz}, generated_at, complete,
    stats{repo_count, reported, pr_count, key_pr_count, breaking_count, risk_count, avg_importance},
    repos[]{repo, title, path, language, pr_count, key_pr_count, breaking_count, risk_count, avg_importance, summary},
    missing[] (watched repositories without a report for the period),
    top_prs[]{repo, number, title, url, page, importance, insight, type, modules[], breaking, summary,
              headline, points[] (what its report's brief says of it; absent from reports before the brief)},
    themes[]{kind: module|type, name, repos[], pr_count}, breaking[]{repo, number, title, url, page, detail},
    summary,
    reviewers[]{login, pr_count, changes_requested, repos[]} (only when a report has review data: its `reviews`)
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from prhub.core.period import Period
from prhub.core.text import clean, num, safe_url
from prhub.engine.lexicon import UNPLACED

SCHEMA = "prhub.digest/1"
ROOT = "_digest/"  # GitHub logins cannot start with "_": the folder never meets an owner
TOP_PRS = 10
THEMES = 8
SUMMARY_CHARS = 300
NAMES = {"zh": "组织汇总", "en": "Organisation digest"}


def folder(period: Period) -> str:
    """The digest's folder on the site: _digest/<since>-to-<until>/."""
    return f"{ROOT}{period.slug}/"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _prs(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p for p in report.get("prs") or [] if isinstance(p, dict) and isinstance(p.get("number"), int)]


def risk_count(report: Mapping[str, Any]) -> int:
    """Flagged PRs over every risk kind, as the report's channels count them (prhub.notify.message)."""
    return sum(len(r.get("prs") or []) for r in report.get("risks") or [] if isinstance(r, dict))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _breaking_detail(pr: Mapping[str, Any]) -> str:
    for risk in pr.get("risks") or []:
        if isinstance(risk, dict) and risk.get("kind") == "breaking" and clean(risk.get("detail")):
            return clean(risk["detail"])
    return clean(pr.get("breaking_reason")) or clean(pr.get("summary"))


def _repo_card(repo: str, path: str, report: Mapping[str, Any], prs: list[dict[str, Any]]) -> dict[str, Any]:
    """A repository's row: its report's title, counts and the first paragraph of its summary."""
    stats = report.get("stats") or {}
    first = clean(str(report.get("summary") or "").split("\n\n")[0])
    return {"repo": repo, "title": clean(report.get("title")) or repo, "path": path,
            "language": clean(report.get("language")),
            "pr_count": _int(stats.get("pr_count")) or len(prs),
            "key_pr_count": _int(stats.get("key_pr_count")),
            "breaking_count": sum(1 for p in prs if p.get("breaking")),
            "risk_count": risk_count(report), "avg_importance": stats.get("avg_importance", 0.0),
            "summary": _shorten(first, SUMMARY_CHARS)}


def _theme() -> dict[str, Any]:
    return {"repos": set(), "pr_count": 0, "name": ""}


@dataclass
class _Gathered:
    """What the digest collects over the repositories' reports, in the order it reads them."""
    repos: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    top: list[dict[str, Any]] = field(default_factory=list)  # every key PR; the digest keeps the first TOP_PRS
    breaking: list[dict[str, Any]] = field(default_factory=list)
    modules: dict[str, dict[str, Any]] = field(default_factory=lambda: defaultdict(_theme))  # by lower-case name
    types: dict[str, dict[str, Any]] = field(default_factory=lambda: defaultdict(_theme))
    reviewers: dict[str, dict[str, Any]] = field(default_factory=dict)  # by lower-case login

    def add(self, repo: str, path: str, report: Mapping[str, Any]) -> None:
        prs = _prs(report)
        self.repos.append(_repo_card(repo, path, report, prs))
        for pr in prs:
            self.add_pr(repo, pr)
        for module in report.get("modules") or []:  # a module this period touched, and a place (not "misc", "root")
            if isinstance(module, dict) and clean(module.get("name")) and _int(module.get("pr_count")) > 0 \
                    and clean(module["name"]).lower() not in UNPLACED:
                m = self.modules[clean(module["name"]).lower()]
                m["name"] = m["name"] or clean(module["name"])
                m["pr_count"] += _int(module.get("pr_count"))
                m["repos"].add(repo)
        self.add_reviewers(repo, (report.get("reviews") or {}).get("reviewers") or [])

    def add_reviewers(self, repo: str, counts: list[Any]) -> None:
        """A repository's reviewers (its report's reviews.reviewers), summed by login across repositories."""
        for c in counts:
            if isinstance(c, dict) and clean(c.get("login")):
                r = self.reviewers.setdefault(clean(c["login"]).lower(), {"login": clean(c["login"]), "pr_count": 0,
                                                                          "changes_requested": 0, "repos": set()})
                r["pr_count"] += _int(c.get("pr_count"))
                r["changes_requested"] += _int(c.get("changes_requested"))
                r["repos"].add(repo)

    def reviewer_list(self) -> list[dict[str, Any]]:
        return sorted(({**r, "repos": sorted(r["repos"], key=str.lower)} for r in self.reviewers.values()),
                      key=lambda r: (-r["pr_count"], r["login"].lower()))

    def add_pr(self, repo: str, pr: Mapping[str, Any]) -> None:
        entry = {"repo": repo, "number": pr["number"], "title": clean(pr.get("title")),
                 "url": safe_url(pr.get("url")), "page": f"{repo}/pull/{pr['number']}/"}
        if pr.get("key"):
            self.top.append({**entry, "importance": pr.get("importance", 0), "insight": pr.get("insight", 0),
                             "type": clean(pr.get("type")), "modules": [clean(m) for m in pr.get("modules") or []],
                             "breaking": bool(pr.get("breaking")), "summary": clean(pr.get("summary")),
                             **({"headline": clean(pr["headline"])} if pr.get("headline") else {}),
                             **({"points": [clean(x) for x in pr["points"]]} if pr.get("points") else {})})
        if pr.get("breaking"):
            self.breaking.append({**entry, "detail": _breaking_detail(pr)})
        if clean(pr.get("type")):
            t = self.types[clean(pr["type"]).lower()]
            t["name"], t["pr_count"] = clean(pr["type"]), t["pr_count"] + 1
            t["repos"].add(repo)

    def themes(self) -> list[dict[str, Any]]:
        """Modules, then PR types, that two repositories or more share: at most THEMES of each, widest first."""
        themes = [{"kind": kind, "name": t["name"], "repos": sorted(t["repos"], key=str.lower),
                   "pr_count": t["pr_count"]}
                  for kind, found in (("module", self.modules), ("type", self.types)) for t in found.values()
                  if len(t["repos"]) >= 2]
        themes.sort(key=lambda t: (t["kind"] != "module", -len(t["repos"]), -t["pr_count"], t["name"].lower()))
        return ([t for t in themes if t["kind"] == "module"][:THEMES]
                + [t for t in themes if t["kind"] == "type"][:THEMES])

    def top_prs(self) -> list[dict[str, Any]]:
        return sorted(self.top, key=lambda p: (-float(p["importance"] or 0), -float(p["insight"] or 0),
                                               p["repo"].lower(), p["number"]))[:TOP_PRS]

    def stats(self, repo_count: int) -> dict[str, Any]:
        repos = self.repos
        stats: dict[str, Any] = {
            "repo_count": repo_count, "reported": len(repos), "pr_count": sum(r["pr_count"] for r in repos),
            "key_pr_count": sum(r["key_pr_count"] for r in repos),
            "breaking_count": sum(r["breaking_count"] for r in repos),
            "risk_count": sum(r["risk_count"] for r in repos)}
        # The mean over every PR of the period, so a busy repository weighs as much as its PRs.
        weighted = sum(float(r["avg_importance"] or 0) * r["pr_count"] for r in repos)
        stats["avg_importance"] = round(weighted / stats["pr_count"], 1) if stats["pr_count"] else 0.0
        return stats


def build(name: str, period: Period, language: str, generated_at: str,
          reports: Mapping[str, tuple[str, Mapping[str, Any]] | None]) -> dict[str, Any]:
    """The digest of `reports` (repo -> (its report's site folder, report.json), or None when it has none)."""
    from prhub.report.compose import title as period_title

    name = clean(name) or NAMES.get(language, NAMES["en"])
    got = _Gathered()
    for repo in sorted(reports, key=str.lower):
        found = reports[repo]
        if found is None:
            got.missing.append(repo)
        else:
            got.add(repo, *found)
    digest = {"schema": SCHEMA, "title": period_title(name, period, language), "name": name, "language": language,
              "period": {"since": period.since.isoformat(), "until": period.until.isoformat(), "tz": period.tz},
              "generated_at": generated_at, "complete": not got.missing, "stats": got.stats(len(reports)),
              "repos": got.repos, "missing": got.missing, "top_prs": got.top_prs(), "themes": got.themes(),
              "breaking": sorted(got.breaking, key=lambda b: (b["repo"].lower(), b["number"]))}
    digest["summary"] = summary(digest)
    if got.reviewers:  # only with review data: digests of reports without it stay as they were
        digest["reviewers"] = got.reviewer_list()
    return digest


def summary(digest: Mapping[str, Any]) -> str:
    """One sentence of the digest's counts, in its language."""
    s = digest["stats"]
    values = {k: num(v) for k, v in s.items()}
    if digest["language"] == "zh":
        text = (f"{values['reported']}/{values['repo_count']} 个仓库的报告：合并 {values['pr_count']} 个 PR，"
                f"关键 PR {values['key_pr_count']} 个，破坏性变更 {values['breaking_count']} 个，"
                f"风险标记 {values['risk_count']} 个。")
        return text + (f"截止时仍无报告：{'、'.join(digest['missing'])}。" if digest["missing"] else "")
    text = (f"Reports of {values['reported']} of {values['repo_count']} repositories: {values['pr_count']} PRs "
            f"merged, {values['key_pr_count']} key PRs, {values['breaking_count']} breaking changes, "
            f"{values['risk_count']} risk flags.")
    return text + (f" No report by the deadline: {', '.join(digest['missing'])}." if digest["missing"] else "")
