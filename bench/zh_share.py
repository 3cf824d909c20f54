"""How Chinese the zh report's prose is: CJK ideographs / (CJK ideographs + Latin letters), URLs removed.

Prose is what the engine writes in sentences: summary, highlights, key changes, trend, risk and relation
notes, suggestions. Tables (the key-PR table, clusters, modules) and PR titles are left out: a PR title
quoted in a sentence (whole, or its words after the tags and type prefix) is the author's English, so it is cut
from the sentence before counting; a title the engine translated is its own prose and counts. The reports
are built as the ReportFunction builds them without a model (engine scores, compose.report with
narrator.model_narrative), from the verl export in ../shared/data, with every earlier PR as history.
Target (issue 12): at least 50 % for every range.

    python -m bench.zh_share
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

EXPORTS = Path(__file__).resolve().parents[2] / "shared" / "data"
DATA = EXPORTS / "verl-project-verl" / "pulls.jsonl"
TZ = "Asia/Shanghai"
RANGES = [("2026-05-04", "2026-05-10"), ("2026-06-15", "2026-06-21"), ("2026-08-03", "2026-08-09"),
          ("2026-07-01", "2026-07-31")]
TARGET = 0.50
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
URL = re.compile(r"https?://\S+")


def prose(report: dict[str, Any]) -> list[str]:
    """The engine's sentences of the report, PR titles cut out of them."""
    texts = [report.get("summary") or ""]
    for section in ("highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes"):
        texts += [item.get("text", "") for item in report.get(section) or []]
    texts += list(report.get("suggestions") or [])
    from prhub.engine import translate
    from prhub.engine.scoring import PR_SUFFIX, parse_title

    quoted = {p["title"] for p in report.get("prs", [])}  # a title, and its words after the tags, quoted as written
    quoted |= {PR_SUFFIX.sub("", parse_title(t)[0] or t) for t in quoted} | {translate.strip(t) for t in quoted}
    titles = sorted((t for t in quoted if len(t) > 8), key=len, reverse=True)
    out = []
    for text in texts:
        for title in titles:
            if title in text:
                text = text.replace(title, " ")
        out.append(URL.sub(" ", text))
    return out


def share(texts: list[str]) -> float:
    """CJK ideographs / (CJK ideographs + A–Z, a–z) over `texts`."""
    cjk = sum(len(CJK.findall(t)) for t in texts)
    latin = sum(len(LATIN.findall(t)) for t in texts)
    return cjk / (cjk + latin) if cjk + latin else 0.0


def export_path(repo: str) -> Path:
    """Where `repo`'s export lies (../shared/data/<owner>-<name>/pulls.jsonl)."""
    return EXPORTS / repo.replace("/", "-") / "pulls.jsonl"


@cache
def export_rows(repo: str) -> tuple[Any, ...] | None:
    """Every PR of `repo`'s export as PullRequest, read once per process; None when the export is missing."""
    from prhub.core.models import PullRequest

    path = export_path(repo)
    if not path.is_file():
        return None
    return tuple(PullRequest.from_export(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines())


def build(rows: Any, since: str, until: str, repo: str = "verl-project/verl", tz: str = TZ,
          lang: str = "zh") -> dict[str, Any]:
    """The report (in `lang`, zh unless told) of `repo`'s PRs merged from `since` to `until` in `tz`, as
    ReportFunction builds it without a model, with every earlier PR as history."""
    from dataclasses import replace

    from prhub.core.config import RepoConfig
    from prhub.core.history import History, history_entry
    from prhub.core.period import Period
    from prhub.engine import conventions
    from prhub.engine.scoring import modules_for, score_pull
    from prhub.model import narrator
    from prhub.report import compose

    config = RepoConfig(repo, tz=tz, scorer="heuristic", language=lang)
    period = Period.parse(since, until, tz)
    # tagged as a run's plan tags its source's record (modules_for): entries without modules fall back to title
    # tags, and every conventional-scope module read as new beside a history all in misc
    history = [history_entry(pr, modules_for(pr, config)) for pr in rows if pr.merged_at < period.end_utc]
    # The repository's conventions, learned from the titles a run's plan reads (prhub.flow.plan): the comparison
    # periods' and the period's own.
    now = [pr for pr in rows if period.contains(pr.merged_at)]
    titles = [*(str(e["title"]) for e in History.of(history, period).earlier), *(pr.title for pr in now)]
    config = replace(config, conventions=conventions.learn(config.conventions, titles))
    scored = [score_pull(pr, config) for pr in now]
    scorer = {"kind": "heuristic", "model": None, "prompt_version": "bench"}
    return dict(compose.report(scored, [], period, config, History.of(history, period), f"{until}T23:59:59Z", scorer,
                               narrator=lambda draft: narrator.model_narrative(draft, config)))


def run() -> dict[str, Any]:
    rows = export_rows("verl-project/verl")
    if rows is None:
        return {"rows": [["zh share", "skipped", f"{DATA} is missing"]], "skipped": True}
    figures: dict[str, Any] = {}
    table = []
    for since, until in RANGES:
        report = build(rows, since, until)
        value = share(prose(report))
        figures[f"{since}..{until}"] = {"share": round(value, 3), "prs": len(report["prs"])}
        table.append([f"zh share {since}..{until} ({len(report['prs'])} PRs)", f"{value:.1%}",
                      "ok" if value >= TARGET else f"below {TARGET:.0%}"])
    return {"rows": table, "figures": figures, "ok": all(f["share"] >= TARGET for f in figures.values())}


if __name__ == "__main__":
    result = run()
    for row in result["rows"]:
        print("  ".join(str(c) for c in row))
