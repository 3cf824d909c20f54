"""Where merged PRs come from, behind one interface.

Listing is cheap and done once by the plan step; details are loaded per PR by
the score worker. `open_source(spec)` turns a run's source spec into a Source:

    jsonl:PATH          the export format, PATH local or s3://bucket/key
    github              GitHub's GraphQL API (prhub.github_graphql), the REST API (prhub.github)
                        where GraphQL cannot serve: no token, or a server without it
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
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
        if path.startswith("s3://"):
            bucket, _, key = path[5:].partition("/")
            if s3_client is None:
                from prhub.aws import client

                s3_client = client("s3")
            try:
                body = s3_client.get_object(Bucket=bucket, Key=key)["Body"].read()
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


def open_source(spec: str, **github_options: Any) -> Source:
    """Build the Source a run's spec names."""
    if spec.startswith("jsonl:"):
        return JsonlSource.from_path(spec[len("jsonl:"):])
    if spec == "github":
        from prhub.github_graphql import GraphQLSource

        return GraphQLSource(**github_options)
    raise InputError(f"unknown source {spec!r}: use github or jsonl:PATH")
