"""The week's analysis: from scored PRs to the report model (report.json without the narrative).

Placeholder: the analysis-engine issue fills modules trends, hot files, clusters,
reverts and risks. Contract:

    build_report(prs, unscored, period, config, history, generated_at, scorer) -> dict

`history` is every PR known before this run (dicts with number, title, author,
merged_at and, when scored, modules); `unscored` lists {number, title, url, reason}.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from prhub.config import RepoConfig
from prhub.models import ScoredPR
from prhub.period import Period

SCHEMA = "prhub.report/1"


def build_report(prs: list[ScoredPR], unscored: list[dict[str, Any]], period: Period, config: RepoConfig,
                 history: list[dict[str, Any]], generated_at: str, scorer: dict[str, Any]) -> dict[str, Any]:
    prs = sorted(prs, key=lambda p: (-p.importance, p.number))
    n = len(prs)
    modules = Counter(m for p in prs for m in p.modules)
    return {
        "schema": SCHEMA,
        "repo": config.repo,
        "period": period.to_dict(),
        "generated_at": generated_at,
        "language": config.language,
        "scorer": scorer,
        "stats": {
            "pr_count": n,
            "key_pr_count": sum(p.key for p in prs),
            "avg_importance": round(sum(p.importance for p in prs) / n, 1) if n else 0.0,
            "avg_insight": round(sum(p.insight for p in prs) / n, 1) if n else 0.0,
            "additions": sum(p.additions for p in prs),
            "deletions": sum(p.deletions for p in prs),
            "authors": len({p.author for p in prs}),
            "new_contributors": [],
        },
        "prs": [p.report_entry() for p in prs],
        "modules": [{"name": m, "pr_count": c, "prs": sorted(p.number for p in prs if m in p.modules)}
                    for m, c in sorted(modules.items(), key=lambda kv: (-kv[1], kv[0]))],
        "hot_files": [],
        "clusters": [],
        "reverts": [],
        "risks": [],
        "highlights": [],
        "key_changes": [],
        "trends": {"weeks": []},
        "summary": "",
        "suggestions": [],
        "unscored": unscored,
        "notes": [],
    }
