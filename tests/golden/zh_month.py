"""The zh-month golden input: the engine's report of a small month with a revert that a later PR re-fixes.

Written by the engine (scoring, analysis, narrative), so it changes when they do; rewrite it on purpose with
`python -m tests.golden.zh_month`, then the renderings with PRHUB_UPDATE_GOLDEN=1, and read the diff.
"""
from __future__ import annotations

import json
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.report import compose

from tests.golden.cases import GOLDEN
from tests.unit.engine_support import change, history_entry, make_pr

BODY = "### What does this PR do?\n\n{0}\n\n### Test\n\nAdded unit tests; ran the e2e GRPO job for 200 steps."


def build() -> dict[str, Any]:
    config = RepoConfig(repo="example-org/trainer", tz="Asia/Shanghai", language="zh", scorer="heuristic")
    prs = [
        make_pr("[rollout] feat: support async weight sync over NCCL",
                [change("pkg/rollout/sync.py", 420, 10, "added"), change("pkg/rollout/engine.py", 60, 5),
                 change("tests/test_sync.py", 120, 0, "added")],
                BODY.format("Weights were copied through the CPU; this sends them over NCCL. Sync time 54 s to 6 s."),
                number=5101, author="alice", merged_at="2026-07-02T03:00:00Z"),
        make_pr("[rollout] fix: async weight sync hangs when a worker restarts (#5101)",
                [change("pkg/rollout/sync.py", 12, 3)],
                BODY.format("The sync waited forever on a restarted worker; it now times out and retries."),
                number=5108, author="newbie", merged_at="2026-07-06T03:00:00Z"),
        make_pr("[trainer] fix: scale the loss by the token count",
                [change("pkg/trainer/loss.py", 8, 2), change("tests/test_loss.py", 20, 0)],
                BODY.format("The loss was averaged per sequence, so long answers weighed less."),
                number=5112, author="bob", merged_at="2026-07-08T03:00:00Z"),
        make_pr('Revert "[trainer] fix: scale the loss by the token count"', [change("pkg/trainer/loss.py", 2, 8)],
                "Reverts example-org/trainer#5112\n\nBreaks the critic loss.", number=5115, author="carol",
                merged_at="2026-07-09T03:00:00Z"),
        make_pr("[trainer] fix: token-level loss scaling for actor and critic",
                [change("pkg/trainer/loss.py", 14, 3), change("tests/test_loss.py", 30, 0)],
                BODY.format("Re-does the scaling reverted in #5115, for both losses."),
                number=5120, author="bob", merged_at="2026-07-14T03:00:00Z"),
        make_pr("[doc] docs: explain async weight sync", [change("docs/sync.md", 40, 0, "added")], number=5124,
                author="dave", merged_at="2026-07-20T03:00:00Z"),
        make_pr("[ci] chore: bump vllm to 0.18", [change("requirements.txt", 1, 1)], number=5130, author="erin",
                merged_at="2026-07-28T03:00:00Z"),
    ]
    history = [history_entry(4000 + 10 * m + k, f"[{'rollout' if k else 'trainer'}] fix: old {m}{k}",
                             f"2026-{m:02d}-1{k}T03:00:00Z", author="bob") for m in (3, 4, 5, 6) for k in (0, 1)]
    history += [history_entry(p.number, p.title, p.merged_at.strftime("%Y-%m-%dT%H:%M:%SZ"), p.author) for p in prs]
    period = Period.parse("2026-07-01", "2026-07-31", "Asia/Shanghai")
    scorer = {"kind": "heuristic", "model": None, "prompt_version": "golden"}
    return dict(compose.report([score_pull(p, config) for p in prs], [], period, config, History.of(history, period),
                               "2026-08-01T00:00:00Z", scorer))


if __name__ == "__main__":
    (GOLDEN / "zh-month" / "report.json").write_text(json.dumps(build(), ensure_ascii=False, indent=2) + "\n",
                                                     encoding="utf-8")
