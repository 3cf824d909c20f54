"""Every judgement of one repository, from every source the watch list names (issue 27).

    gather(config, source, store, settings, read) -> list[Judgement]   one per PR, the strongest source's: what a
                                                       report marks (prs[].judged) and the engine learns from
    dedupe(judgements) -> (list[Judgement], int)       one per PR and source, the last line's, and how many were
                                                       left out (a file grows by appending corrections)
    unknown_prs(judgements, config, source, known)     the PRs the repository has no record of (a warning each run)
    keep_labels(config, pr, store)                     the score worker: a PR's key_labels / minor_labels kept
    correct(repo, verdicts, store, now, at)            `prhub judge`: corrections kept, the published reports
                                                       listing those PRs made again (a new revision each)
    unchanged(repo, verdicts, store)                   the PRs whose kept correction says the same already

Sources, weakest first (prhub.core.judgements.PRECEDENCE, applied by its resolve): the PR's labels (`key_labels`,
`minor_labels`), the CHANGELOG's sections (`changelog`, read by the plan once a run from the default branch, or
beside a jsonl: export), the watch list's `judgements` (a list, or "jsonl:PATH" read where exports are read), a
run's `--judgements` file, and `prhub judge`'s corrections. The CHANGELOG and the watch list are read where they
are written by prhub.sources.judgements; this module decides what is kept and what a run gathers. What cannot be
read again is kept in the stack's JudgementsTable (files, labels the score workers saw, corrections), so later
weeks' reports see earlier weeks' judgements.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from prhub.cloud.publications import planned_at
from prhub.cloud.runs import EPOCH, Run
from prhub.core.config import RepoConfig, Settings
from prhub.core.errors import InputError, SourceError, SourceUnavailable
from prhub.core.judgements import Judgement, Verdict, judgement, resolve
from prhub.core.models import PullRef, PullRequest
from prhub.flow.messages import ReportMessage
from prhub.sources.judgements import written

if TYPE_CHECKING:
    from prhub.flow.deps import Deps
    from prhub.flow.ports import KeptJudgements
    from prhub.sources.source import Source

KEPT = ("file", "label", "correction")  # what the table keeps: the flow cannot read it again


def from_labels(config: RepoConfig, number: int, labels: Iterable[str]) -> Judgement | None:
    """The PR's verdict by its labels: key when one of them is a key label, minor when one is a minor label."""
    names = {name.lower() for name in labels}
    verdict: Verdict | None = ("key" if names & {x.lower() for x in config.key_labels} else
                               "minor" if names & {x.lower() for x in config.minor_labels} else None)
    return judgement(config.repo, number, verdict, "label") if verdict else None


def keep_labels(config: RepoConfig, pr: PullRequest, store: KeptJudgements) -> None:
    """Keep what the PR's labels say of it (the labels are seen only where the PR is loaded: the score worker),
    or forget a label judgement its labels no longer carry. Nothing when no label means anything."""
    if not (config.key_labels or config.minor_labels):
        return
    found = from_labels(config, pr.number, pr.labels)
    if found is not None:
        store.put_judgements([found])
    else:
        store.forget_judgement(config.repo, pr.number, "label")


def gather(config: RepoConfig, source: Callable[[], Source], store: KeptJudgements, settings: Settings,
           read: Iterable[Judgement] | None = None) -> list[Judgement]:
    """Every judgement of the repository, one per PR (resolve): the labels, files and corrections the table
    keeps, with `read`, the CHANGELOG's and the watch list's as the plan read them, or (None: a run planned before
    the plan kept them) read now, the CHANGELOG through `source()`."""
    kept = [j for j in store.judgements(config.repo) if j.source in KEPT]
    if read is None:
        read = written(config, source, settings)
    return resolve([*kept, *read])


def dedupe(judgements: Iterable[Judgement]) -> tuple[list[Judgement], int]:
    """One judgement per source and PR, the last one given (a judgement file grows by appending corrections), in
    the order first given; and how many earlier ones were left out."""
    last: dict[tuple[str, int], Judgement] = {}
    count = 0
    for j in judgements:
        key = (j.source, j.pr)
        if key in last:
            count += 1
            del last[key]  # re-inserted below: the order follows the line that counts
        last[key] = j
    return list(last.values()), count


def duplicates_warning(count: int, origin: str) -> str:
    """What the person who asked is told of judgements a later one of the same PR replaced ("" for none)."""
    if not count:
        return ""
    lines = "line" if count == 1 else "lines"
    return f"{origin}: {count} {lines} replaced by a later line on the same PR (the last line of each PR counts)"


def unknown_prs(judgements: Iterable[Judgement], config: RepoConfig, source: Source, known: set[int]) -> list[int]:
    """Every judged PR the repository has no record of: neither in `known` (the run's listing and history) nor
    one the source can load. A source that cannot answer now raises SourceUnavailable."""
    unknown = []
    for number in sorted({j.pr for j in judgements} - known):
        try:
            source.get(config.repo, PullRef(number, "", "", EPOCH, f"https://github.com/{config.repo}/pull/{number}"))
        except SourceUnavailable:
            raise
        except SourceError:
            unknown.append(number)
    return unknown


def unknown_warning(repo: str, unknown: list[int]) -> str:
    """What the person who asked is told of judged PRs the repository has no record of (left out, not a failure:
    a typo in one line must not lose the week's report)."""
    if not unknown:
        return ""
    shown = ", ".join(f"#{n}" for n in unknown[:20]) + (f" and {len(unknown) - 20} more" if len(unknown) > 20 else "")
    return f"judgements name PRs {repo} has no record of, left out: {shown}"


def _published(runs: Iterable[Run]) -> list[Run]:
    """The run whose report each published folder shows: the latest planned one there (an older run's revision
    would only be recorded as superseded, prhub.cloud.store.Store.superseding)."""
    shown: dict[str, Run] = {}
    for run in runs:
        if run.status != "reported" or run.revision < 1 or not run.report_key or run.superseded_by:
            continue
        if run.report_key not in shown or planned_at(run, 0) > planned_at(shown[run.report_key], 0):
            shown[run.report_key] = run
    return list(shown.values())


def unchanged(repo: str, verdicts: Mapping[int, Verdict], store: KeptJudgements) -> list[int]:
    """The PRs of `verdicts` whose kept correction already says the same."""
    kept = {j.pr: j.verdict for j in resolve(j for j in store.judgements(repo) if j.source == "correction")}
    return sorted(pr for pr, verdict in verdicts.items() if kept.get(pr) == verdict)


def correct(repo: str, verdicts: Mapping[int, Verdict], deps: Deps, at: str) -> list[dict[str, Any]]:
    """Keep `prhub judge`'s corrections of the repository's PRs (`verdicts`), each checked first: a PR no stored
    run lists is bad input (InputError, nothing kept). A correction the kept one already says is left out: it
    changes nothing (unchanged). Then every published report listing a PR whose verdict changed is made again, as
    its next revision (claimed on the run, then queued to ReportFunction); returns those revisions."""
    made = [judgement(repo, pr, verdict, "correction", at) for pr, verdict in sorted(verdicts.items())]
    runs = list(deps.store.runs_of(repo))
    listed = {n for run in runs for n in run.refs}
    unknown = sorted({j.pr for j in made} - listed)
    if unknown:
        raise InputError(f"no stored run of {repo} lists {', '.join(f'#{n}' for n in unknown)}: a correction "
                         "names a PR of a report this stack made")
    same = set(unchanged(repo, verdicts, deps.store))
    made = [j for j in made if j.pr not in same]  # the same word again changes nothing: no new revision
    if not made:
        return []
    deps.store.put_judgements(made)
    asked = []
    for run in _published(runs):
        if not set(run.refs) & {j.pr for j in made}:
            continue
        revision = run.revision + 1
        if deps.store.claim_revision(run.run_id, revision, deps.now()):
            deps.queue.send(deps.settings.report_queue_url, ReportMessage(run.run_id, revision).body())
            asked.append({"run_id": run.run_id, "revision": revision, "report_key": run.report_key})
    return asked
