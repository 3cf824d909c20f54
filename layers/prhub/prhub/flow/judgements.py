"""Every judgement of one repository, from every source the watch list names (issue 27).

    gather(config, source, store, settings, read) -> list[Judgement]   one per PR, the strongest source's: what a
                                                       report marks (prs[].judged) and the engine learns from
    resolve(judgements) -> list[Judgement]             one per PR: a later source in PRECEDENCE wins
    read_lines(lines, repo, source, origin)            a JSONL file of {"pr": N, "verdict": "key"|"minor"}
    dedupe(judgements) -> (list[Judgement], int)       one per PR and source, the last line's, and how many were
                                                       left out (a file grows by appending corrections)
    unknown_prs(judgements, config, source, known)     the PRs the repository has no record of (a warning each run)
    keep_labels(config, pr, store)                     the score worker: a PR's key_labels / minor_labels kept
    correct(repo, verdicts, store, now, at)            `prhub judge`: corrections kept, the published reports
                                                       listing those PRs made again (a new revision each)
    unchanged(repo, verdicts, store)                   the PRs whose kept correction says the same already

Sources, weakest first (PRECEDENCE): the PR's labels (`key_labels`, `minor_labels`), the CHANGELOG's sections
(`changelog`, read by the plan once a run from the default branch, or beside a jsonl: export), the watch
list's `judgements` (a list, or "jsonl:PATH" read where exports are read), a run's `--judgements` file, and
`prhub judge`'s corrections. Rules over many PRs give way to a verdict on one PR, and a person's latest word,
the correction, beats everything. What cannot be read again is kept in the stack's JudgementsTable (files,
labels the score workers saw, corrections), so later weeks' reports see earlier weeks' judgements.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.cloud.publications import planned_at
from prhub.cloud.runs import EPOCH, Run
from prhub.core.config import RepoConfig, Settings, refuse_unknown
from prhub.core.errors import InputError, SourceError, SourceUnavailable
from prhub.core.judgements import Judgement, Verdict, judgement
from prhub.core.models import PullRef, PullRequest
from prhub.engine.changelog import read_changelog
from prhub.flow.messages import ReportMessage
from prhub.sources.source import check_location

if TYPE_CHECKING:
    from prhub.flow.deps import Deps
    from prhub.flow.ports import KeptJudgements
    from prhub.sources.source import Source

logger = Logger(service="prhub", child=True)

PRECEDENCE = ("label", "changelog", "watchlist", "file", "correction")  # weakest first
KEPT = ("file", "label", "correction")  # what the table keeps: the flow cannot read it again
MAX_LINE = 10_000  # characters of one judgement line: a longer one is not a judgement


def resolve(judgements: Iterable[Judgement]) -> list[Judgement]:
    """One judgement per PR, by PR number: the later source in PRECEDENCE wins; within one source, the later
    one (corrections by their time)."""
    best: dict[int, Judgement] = {}
    for j in sorted(judgements, key=lambda j: (PRECEDENCE.index(j.source), j.at)):
        best[j.pr] = j
    return [best[n] for n in sorted(best)]


def read_lines(lines: Iterable[str], repo: str, source: str, origin: str) -> list[Judgement]:
    """The judgements of a JSONL file, one {"pr": N, "verdict": "key"|"minor"} a line (a "repo" naming `repo`
    may be given); InputError naming the first bad line (`origin`:line), never its text."""
    out = []
    for lineno, line in enumerate(lines, 1):
        text = line.removeprefix("\ufeff") if lineno == 1 else line
        if not text.strip():
            continue
        try:
            row: Any = json.loads(text) if len(text) <= MAX_LINE else None
        except (ValueError, RecursionError):
            row = None
        if not isinstance(row, dict):
            raise InputError(f'{origin}:{lineno}: not a judgement (a JSON object {{"pr": N, "verdict": "key"}})')
        refuse_unknown(f"{origin}:{lineno} judgement", row, ("pr", "verdict", "repo"))
        if str(row.get("repo", repo)).lower() != repo.lower():
            raise InputError(f"{origin}:{lineno}: a judgement of {str(row['repo'])[:100]!r}, not of {repo}")
        try:
            out.append(judgement(repo, row.get("pr"), row.get("verdict"), source))
        except InputError as exc:
            raise InputError(f"{origin}:{lineno}: {exc}") from None
    return out


def watched(config: RepoConfig, settings: Settings) -> list[Judgement]:
    """The watch list's judgements of the repository: its list, or its "jsonl:PATH" file, read where an export
    may be (prhub.sources.source.check_location: the export bucket in the stack, a local path in the CLI)."""
    if not isinstance(config.judgements, str):
        return list(config.judgements)
    check_location(config.judgements, settings.export_bucket, settings.local_exports)
    path = config.judgements.removeprefix("jsonl:")
    return read_lines(_read_text(path).splitlines(), config.repo, "watchlist", path)


def _read_text(path: str) -> str:
    """A judgements file at a local path or s3://bucket/key (checked by the caller like an export's)."""
    if path.startswith("s3://"):
        from prhub.cloud.aws import LazyClient, read_s3_url

        try:
            return read_s3_url(LazyClient("s3"), path).decode("utf-8", errors="replace")
        except Exception as exc:  # botocore raises many shapes; the message is what matters
            raise InputError(f"cannot read judgements file {path}: {exc}") from exc
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(f"cannot read judgements file {path}: {exc.strerror}") from exc


def from_changelog(config: RepoConfig, source: Callable[[], Source]) -> list[Judgement]:
    """The CHANGELOG's judgements, read through the repository's source (opened only when a changelog is
    configured): [] without one, or when it cannot be read now (said in the log: a report never fails for it)."""
    if config.changelog is None:
        return []
    try:
        text = source().read_file(config.repo, config.changelog.path)
    except Exception as exc:  # SourceError, RetryLater, a bucket it cannot read: the report goes on without it
        logger.warning("the changelog could not be read", extra={"repo": config.repo, "path": config.changelog.path,
                                                                 "error": f"{type(exc).__name__}: {exc}"[:500]})
        return []
    if text is None:
        logger.warning("the configured changelog is not there", extra={"repo": config.repo,
                                                                      "path": config.changelog.path})
        return []
    return read_changelog(text, config.changelog.sections, config.repo, config.changelog.grades)


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
        read = [*from_changelog(config, source), *watched(config, settings)]
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
