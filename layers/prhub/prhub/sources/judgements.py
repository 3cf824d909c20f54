"""Judgements where they are written (issue 27): a repository's CHANGELOG, read through its source, and the watch
list's judgements, a list or a "jsonl:PATH" file read where an export may be.

    written(config, source, settings) -> list[Judgement]   the CHANGELOG's, then the watch list's, read now
    from_changelog(config, source)                         the CHANGELOG's sections ([] when it cannot be read)
    watched(config, settings)                              the watch list's list, or its jsonl: file
    read_lines(lines, repo, source, origin)                a JSONL file of {"pr": N, "verdict": "key"|"minor"}

Which judgement of a PR wins, and what the stack keeps of them, is prhub.flow.judgements' and the core's
(prhub.core.judgements.resolve): this module reads and checks, nothing else.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from prhub.core.config import RepoConfig, Settings, refuse_unknown
from prhub.core.errors import InputError
from prhub.core.judgements import Judgement, judgement
from prhub.engine.changelog import read_changelog
from prhub.sources.source import check_location

if TYPE_CHECKING:
    from prhub.sources.source import Source

logger = Logger(service="prhub", child=True)

MAX_LINE = 10_000  # characters of one judgement line: a longer one is not a judgement


def written(config: RepoConfig, source: Callable[[], Source], settings: Settings) -> list[Judgement]:
    """The CHANGELOG's judgements (through `source()`, opened only when a changelog is configured), then the watch
    list's: what the plan reads once a run, and a report reads again for a run planned before the plan kept them."""
    return [*from_changelog(config, source), *watched(config, settings)]


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
