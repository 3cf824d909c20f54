"""`prhub judge`: a maintainer's corrections of a repository's verdicts, kept in the stack's JudgementsTable.

On the embedded AWS (or `--endpoint-url`), with `--state` restored and saved as for `prhub run`: the corrections
are checked (a PR no stored run lists is bad input: nothing is written, not even a new state directory), kept,
and every published report listing a corrected PR is made again as its next revision, here, through the
report, pages and delivery functions (prhub.flow.judgements.correct).
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prhub.core.config import check_repo
from prhub.core.errors import InputError
from prhub.core.judgements import Verdict
from prhub.core.period import format_timestamp
from prhub.flow.deps import Deps
from prhub.flow.judgements import correct, unchanged

from prhub_local.embedded import client
from prhub_local.progress import Display
from prhub_local.runner import Runner, direct_invoke, function_env, provisioned
from prhub_local.sample import local_watchlist
from prhub_local.state import download_bucket
from prhub_local.template import default_root, load_template


def verdicts(key: Sequence[int], minor: Sequence[int]) -> dict[int, Verdict]:
    """The corrections asked for, by PR; InputError for none, a number that is no PR, or one given both ways."""
    both = sorted(set(key) & set(minor))
    if both:
        raise InputError(f"PR {', '.join(f'#{n}' for n in both)} is given as both --key and --minor")
    wrong = [n for n in (*key, *minor) if n <= 0]
    if wrong:
        raise InputError(f"{wrong[0]} is not a PR number")
    if not key and not minor:
        raise InputError("give the PRs to correct: --key N... and/or --minor N...")
    return {**{n: "minor" for n in minor}, **{n: "key" for n in key}}


def judge(repo: str, key: Sequence[int], minor: Sequence[int], *, state: str | Path | None = ".prhub/state",
          endpoint_url: str | None = None, config_text: str | None = None, out: str | Path = "site",
          root: Path | None = None, now: datetime | None = None, prefix: str = "prhub") -> list[dict[str, Any]]:
    """Keep the corrections and publish the revisions they make; returns those revisions (run, revision, folder)."""
    asked = verdicts(key, minor)
    check_repo(repo)
    root = root or default_root()
    display = Display.for_stream(sys.stderr, False)
    template = load_template(root / "template.yaml")
    watchlist_text = local_watchlist(template, config_text)
    refused: list[InputError] = []
    made: list[dict[str, Any]] = []
    with display.ticking(), provisioned(template, prefix, watchlist_text, endpoint_url, state, display.say,
                                        keep=lambda: not refused) as stack, function_env(stack):
        deps = Deps.from_env()
        same = unchanged(repo, asked, deps.store)  # what the kept corrections say already, before this one
        try:
            made = correct(repo, asked, deps, format_timestamp(now or datetime.now(UTC)))
        except InputError as exc:  # checked before anything was kept: the state stays as it was
            refused.append(exc)
            raise
        if same:
            display.say(f"nothing changed for {', '.join(f'#{n}' for n in same)}: the maintainers' correction "
                        "already says so (no new revision for it)")
        for revision in made:
            display.say(f"revision {revision['revision']} of {revision['report_key']} asked for (run "
                        f"{revision['run_id']})")
        Runner(root, stack, direct_invoke, display, 1).drain([r["run_id"] for r in made])
        Path(out).mkdir(parents=True, exist_ok=True)
        download_bucket(client("s3"), stack.buckets["SiteBucket"], Path(out))
    return made
