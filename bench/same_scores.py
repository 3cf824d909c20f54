"""Whether a change of the engine keeps every judgement: score every PR of the verl, cargo and trl exports (the
panel's repositories, ../shared/data) in en and zh, on the tree to compare, and compare two such dumps field by
field (importance, insight, reasons, type, key, summary, and the learner's features).

    python -m bench.same_scores dump /tmp/before.json      # on the tree before the change
    python -m bench.same_scores dump /tmp/after.json       # after it
    python -m bench.same_scores compare /tmp/before.json /tmp/after.json   # exit 1 when anything differs

Not a golden: the dumps stay outside the repository (they are what the engine says today, not what it must say).
Issue 49 (one home per rule) was checked with it.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from prhub.engine import learning
from prhub.engine.scoring import facts, score_pull

from bench.calibrate import SHARED, load, repo_config, with_conventions
from bench.panel import REPOS

FIELDS = ("importance", "insight", "reasons", "type", "key", "summary", "features")


def dump() -> dict[str, dict[str, Any]]:
    """`repo#number#lang` -> what the engine said of that PR, for every PR of every export present."""
    out: dict[str, dict[str, Any]] = {}
    for repo, (_panel, folder, tz) in REPOS.items():
        path = SHARED / folder / "pulls.jsonl"
        if not path.exists():
            continue
        prs = load(path)
        base = with_conventions(repo_config(repo, tz), prs)
        for lang in ("en", "zh"):
            config = replace(base, language=lang)
            for pr in prs:
                scored = score_pull(pr, config)
                out[f"{repo}#{pr.number}#{lang}"] = {
                    "importance": scored.importance, "insight": scored.insight, "reasons": scored.reasons,
                    "type": scored.type, "key": scored.key, "summary": scored.summary,
                    "features": list(learning.features(facts(pr, config)))}
    return out


def compare(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Per field, the PRs whose value differs (a PR in one dump only differs in every field)."""
    keys = sorted(before.keys() | after.keys())
    return {name: [k for k in keys if (before.get(k) or {}).get(name) != (after.get(k) or {}).get(name)]
            for name in FIELDS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("dump").add_argument("out", type=Path)
    both = sub.add_parser("compare")
    both.add_argument("before", type=Path)
    both.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        scored = dump()
        args.out.write_text(json.dumps(scored, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        print(f"{len(scored)} PR scorings written to {args.out}")
        return
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (args.before, args.after))
    differ = compare(before, after)
    for name in FIELDS:
        print(f"{name}: {len(before) - len(differ[name])} of {len(before)} identical {differ[name][:5] or ''}")
    print(f"reasons compared: {sum(len(v['reasons']) for v in before.values())}; "
          f"features compared: {sum(len(v['features'][1]) for v in before.values())}")
    sys.exit(1 if any(differ.values()) else 0)


if __name__ == "__main__":
    main()
