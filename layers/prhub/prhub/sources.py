"""Where merged PRs come from, behind one interface.

Listing is cheap and done once by the plan step; details are loaded per PR by
the score worker. `open_source(spec)` turns a run's source spec into a Source:

    jsonl:PATH          the export format, PATH local or s3://bucket/key
    github              the GitHub REST API (prhub.github)
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from prhub.errors import InputError, SourceError
from prhub.models import PullRef, PullRequest
from prhub.period import Period


class Source(Protocol):
    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        """Every PR merged into `repo` within `period`, each once, sorted by merge time then number."""
        ...

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        """The PR's details (files, body, reviews); raises SourceError or RetryLater."""
        ...


class JsonlSource:
    """PRs from an export file. Corrupt lines are skipped and remembered in `skipped`."""

    def __init__(self, lines: Iterable[str], origin: str = "export") -> None:
        self.origin = origin
        self.skipped: list[str] = []
        self._by_number: dict[int, PullRequest] = {}
        for lineno, pr in self._parse(lines):
            if pr.number in self._by_number:
                self.skipped.append(f"{origin}:{lineno}: duplicate of PR #{pr.number}, ignored")
                continue
            self._by_number[pr.number] = pr

    def _parse(self, lines: Iterable[str]) -> Iterator[tuple[int, PullRequest]]:
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row: Any = json.loads(line)
                if not isinstance(row, dict):
                    raise SourceError("not a JSON object")
                yield lineno, PullRequest.from_export(row)
            except (json.JSONDecodeError, RecursionError, SourceError) as exc:  # RecursionError: "[[[[..." lines
                self.skipped.append(f"{self.origin}:{lineno}: {exc}")

    @classmethod
    def from_path(cls, path: str, s3_client: Any = None) -> JsonlSource:
        """The export at a local path, or at s3://bucket/key read with `s3_client` (a boto3 S3 client)."""
        if path.startswith("s3://"):
            if s3_client is None:
                raise SourceError(f"cannot read {path}: no S3 client was given")
            from prhub.aws import read_s3_url

            try:
                body = read_s3_url(s3_client, path)
            except Exception as exc:  # botocore raises many shapes; the message is what matters
                raise SourceError(f"cannot read {path}: {exc}") from exc
            return cls(body.decode("utf-8", errors="replace").splitlines(), path)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return cls(handle, path)
        except OSError as exc:
            raise SourceError(f"cannot read export file {path}: {exc.strerror}") from exc

    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        refs = [pr.ref for pr in self._by_number.values() if period.contains(pr.merged_at)]
        return sorted(refs, key=lambda r: (r.merged_at, r.number))

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        try:
            return self._by_number[ref.number]
        except KeyError:
            raise SourceError(f"PR #{ref.number} is not in {self.origin}") from None


def open_source(spec: str, s3_client: Any = None, github: Callable[[], Source] | None = None) -> Source:
    """Build the Source a run's spec names: an export (`s3_client` reads s3:// ones) or GitHub (`github` makes
    it; by default an anonymous GitHubSource on api.github.com)."""
    if spec.startswith("jsonl:"):
        return JsonlSource.from_path(spec[len("jsonl:"):], s3_client)
    if spec == "github":
        if github is not None:
            return github()
        from prhub.github import GitHubSource

        return GitHubSource()
    raise InputError(f"unknown source {spec!r}: use github or jsonl:PATH")


class SourceCache:
    """One Source per spec and process: an export file is parsed once, not per message, and GitHub's client
    (its ETags, sessions and rate-limit state) is reused. A rewritten export (a new mtime) is parsed again."""

    MAX_SOURCES = 16  # a long-lived process whose specs keep changing must not grow without bound

    def __init__(self, open_spec: Callable[[str], Source]) -> None:
        self.open_spec = open_spec
        self._sources: dict[tuple[str, str], Source] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(spec: str) -> tuple[str, str]:
        if not spec.startswith("jsonl:"):
            return (spec, "")
        try:
            return (spec, str(os.stat(spec[len("jsonl:"):]).st_mtime_ns))
        except OSError:
            return (spec, "missing")  # open_source raises the readable error

    def __call__(self, spec: str) -> Source:
        key = self.key(spec)
        with self._lock:
            if key not in self._sources:
                if len(self._sources) >= self.MAX_SOURCES:
                    self._sources.clear()
                self._sources[key] = self.open_spec(spec)
            return self._sources[key]

    def cached(self) -> list[tuple[str, str]]:
        """What the kept sources were made from."""
        return list(self._sources)
