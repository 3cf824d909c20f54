"""Report dicts for the renderer and site tests: the golden cases and a hostile variant."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "report.json").is_file())

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '" onmouseover="alert(1)" x="',
    "javascript:alert(1)",
    "[click me](javascript:alert(1))",
    "![pixel](https://evil.example/track.png)",
    "[phish](https://evil.example/login) and <https://evil.example/auto>",
    "bare https://evil.example/bare and www.evil.example and mail me at root@evil.example",
    "# not a heading | not | a table |\n- not a list\n> not a quote",
    "**bold** _em_ `code` ~~strike~~ {{ 7*7 }} {% raw %}",
    "&lt;script&gt; &#106;avascript:alert(1) </style><style>body{display:none}</style> <!-- ]]>",
    "A" * 300,
    "超长中文" * 80,
    "\u202egnp.exe\u202c right-to-left override and zero\u200bwidth\u200d joiner\ufeff",
    "emoji 🚀🔥👨‍👩‍👧 مرحبا שלום",
    "nul\x00 bell\x07 escape\x1b[31m red\r\nnext line\ttab",
]


def load(case: str) -> dict[str, Any]:
    return json.loads((GOLDEN / case / "report.json").read_text(encoding="utf-8"))


def hostile_report() -> dict[str, Any]:
    """The Chinese golden week with every untrusted string replaced by hostile text and bad URLs mixed in."""
    report = copy.deepcopy(load("zh-week"))
    pick = iter(HOSTILE * 20)
    bad_urls = ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", 'https://ok.example/p/1" onclick="x',
                "  JaVaScRiPt:alert(1)", "//evil.example/proto-relative", "https://ok.example/pull/(1)<x>"]
    for i, pr in enumerate(report["prs"]):
        pr["title"] = next(pick)
        pr["author"] = next(pick)
        pr["summary"] = next(pick)
        pr["key_points"] = [next(pick), next(pick)]
        pr["modules"] = [next(pick)[:40], "rollout"]
        if i < len(bad_urls):
            pr["url"] = bad_urls[i]
    report["repo"] = "example-org/trainer"
    report["stats"]["new_contributors"] = [next(pick)]
    report["stats"]["reviewers"] = [{"login": next(pick), "reviews": 2}]
    for section, key in [("highlights", "text"), ("key_changes", "text"), ("key_changes", "theme"),
                         ("clusters", "title"), ("clusters", "reason"), ("risks", "detail"), ("hot_files", "path"),
                         ("modules", "name"), ("unscored", "title"), ("unscored", "reason")]:
        for item in report[section]:
            item[key] = next(pick)
    for risk in report["risks"]:
        for item in risk["items"]:
            item["detail"] = next(pick)
    report["unscored"][0]["url"] = "javascript:alert(document.cookie)"
    report["summary"] = "\n\n".join(HOSTILE[:6])
    report["suggestions"] = HOSTILE[6:10]
    report["notes"] = HOSTILE[10:]
    return report
