"""A repository's ranking learned once per run, in the plan (issue 27): the plan alone holds the source, the
period's listing and the judgements together; the weights go with the run item, and the score workers apply them
to each PR they score (prhub.engine.learning.apply), so the importance the report reads is already adjusted.

    learned(source, config, period, refs, judgements) -> dict | None   Learned.to_dict(), None without judgements
    note(run) -> list[str]                                              the report's line on its ranking

The judged PRs are read from the run's source (an export reads them at once; GitHub one request each), the latest
LEARNED_PRS of them: a CHANGELOG judges thousands (cargo's, 3,262), which on GitHub would be thousands of requests
every plan, and the held-out check and the weights lean on the latest weeks anyway. The weights are fitted without
the judgements of the period's own PRs (`refs`): none is evidence for its own score.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.errors import SourceError
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.engine import learning
from prhub.sources.source import Source

LEARNED_PRS = 600  # judged PRs read a plan, the latest by number: a year of a busy repository's judged PRs

def learned(source: Source, config: RepoConfig, period: Period, refs: Sequence[PullRef],
            judgements: Sequence[Judgement]) -> dict[str, Any] | None:
    """What the repository's judgements teach the engine for this run, or None when there are none."""
    if not judgements:
        return None
    prs: list[PullRequest] = []
    for number in sorted({j.pr for j in judgements})[-LEARNED_PRS:]:
        try:  # a judgement names only its PR: the source finds it by number
            prs.append(source.get(config.repo, PullRef(number, "", "", period.start_utc, "")))
        except SourceError:
            continue  # a PR the source does not hold (outside an export) teaches nothing
    return learning.learn(learning.examples(prs, judgements, config), scoring=[r.number for r in refs]).to_dict()


def note(taught: dict[str, Any] | None, lang: str) -> list[str]:
    """The line every rendering of the report carries on its ranking (none without judgements)."""
    return [learning.note(lang, learning.Learned.from_dict(taught))] if taught else []
