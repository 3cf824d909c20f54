"""Where merged PRs come from, behind one interface.

Listing is cheap and done once by the plan step; details are loaded per PR by
the score worker. `open_source(spec)` turns a run's source spec into a Source:

    jsonl:PATH          the export format, PATH local or s3://bucket/key
    github              GitHub's GraphQL API (prhub.sources.graphql), the REST API (prhub.sources.github)
                        where GraphQL cannot serve: no token, or a server without it; the caller hands in
                        the factory (`github=`), so this module imports neither
"""
from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from prhub.core.errors import InputError, SourceError
from prhub.core.history import History, Tagger, comparison_span, history_entry
from prhub.core.models import PullRef, PullRequest, RecordError
from prhub.core.period import Period, format_timestamp, zone

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListPage:
    """One page of a listing: its PRs, and where to go on (None once the listing is complete).

    `resume` is plain JSON, so a planner running out of time can put it on a queue and let the next
    invocation carry on with `list_pages(repo, period, resume)` (flow/plan.py).
    """

    refs: list[PullRef]
    resume: dict[str, Any] | None


class Source(Protocol):
    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        """Every PR merged into `repo` within `period`, each once, sorted by merge time then number."""
        ...

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        """The same listing a page at a time, from the start or from a page's `resume`."""
        ...

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        """The PR's details (files, body, reviews); raises SourceError or RetryLater."""
        ...

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        """The paths a PR touches (a renamed file's old name too), as cheaply as the source can say:
        what a slice (prhub.sources.scope) filters on."""
        ...

    def listed_head(self, repo: str, number: int) -> str:
        """The head commit the listing gave for PR `number` (part of its score cache key), without a request;
        "" where the source would have to ask (its score worker then loads the PR and looks the cache up)."""
        ...

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        """Lines the report should carry about what the source could not read, in `lang`; raises InputError
        when the source cannot serve `repo` over `period` at all."""
        ...

    def warnings(self, repo: str, period: Period) -> list[str]:
        """What the operator must hear at once (stderr, the plan's answer), in English: every line the source
        skipped or cut, a range it only partly covers."""
        ...

    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The repository's record before `period`: the comparison periods' PRs and the authors' first merges."""
        ...

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The PRs merged within `span` as history entries (in `earlier`, modules by `tag` from what the listing
        carries) and the source's `reach`; no first merges. What the dashboard's weeks no run listed read."""
        ...

    def read_file(self, repo: str, path: str) -> str | None:
        """The text of the file at `path` in the repository as the source sees it (GitHub: its default branch;
        an export: the file at `path` beside it); None when there is no such file."""
        ...


# What can be wrong with an export line, in the report's language. Never the line's value: a malformed line
# may hold anything (a secret pasted by mistake), and notes are published.
PROBLEMS = {
    "json": ("not valid JSON", "不是有效的 JSON"),
    "nested": ("nested too deeply to read", "嵌套过深，无法读取"),
    "object": ("not a JSON object", "不是 JSON 对象"),
    "missing": ("missing field {field}", "缺少字段 {field}"),
    "shape": ("field {field} has the wrong shape", "字段 {field} 的格式不对"),
    "unmerged": ("merged is false: the PR was closed without merging", "merged 为 false：该 PR 未合并就已关闭"),
    "duplicate": ("duplicate of PR #{number}, ignored", "与 PR #{number} 重复，已忽略"),
    "url": ("html_url is not this PR's GitHub page", "html_url 不是该 PR 在 GitHub 上的页面"),
    "capped": ("PR #{number}: {field} cut to GitHub's limit", "PR #{number}：{field} 超出 GitHub 的上限，已截断"),
    "truncated": ("the last line is cut off mid-record (was the export interrupted?)",
                  "最后一行在记录中途被截断（导出是否中断？）"),
    "no_files": ("PR #{number}: files is null, its changed files are unknown (sizes and tests are judged without them)",
                 "PR #{number}：files 为 null，改动的文件未知（规模和测试按缺少文件判断）"),
    "surrogate": ("PR #{number}: text that is not valid UTF-8 (a lone surrogate) replaced by U+FFFD",
                  "PR #{number}：文本含无效的 UTF-8（孤立的代理字符），已替换为 U+FFFD"),
}
_SURROGATE = re.compile("[\ud800-\udfff]")  # what json.loads makes of an escaped half of a pair ("\\ud83d")
MAX_NOTES = 20  # a report names the first lines with problems and counts the rest
MAX_WARNINGS = 1000  # the plan's answer names each one up to this (it must stay a small answer)
PULL_URL = re.compile(r"^https://([^/\s]+)/([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)/pull/(\d+)/?$")


@dataclass(frozen=True)
class LineProblem:
    line: int
    kind: str  # a key of PROBLEMS
    field: str = ""
    number: int = 0
    skipped: bool = True  # False: the PR was kept (a field was capped)

    def describe(self, lang: str = "en") -> str:
        return PROBLEMS[self.kind][1 if lang == "zh" else 0].format(field=self.field, number=self.number)


def _lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """The non-blank lines with their numbers; line 1 without the byte-order mark an editor or PowerShell's
    `Out-File` puts first (json.loads refuses it, which dropped that PR)."""
    for lineno, line in enumerate(lines, 1):
        if lineno == 1:
            line = line.removeprefix("\ufeff")
        if line.strip():
            yield lineno, line


def valid_utf8(value: Any) -> tuple[Any, bool]:
    """`value` (text, a list, a dict, a dataclass such as PullRequest) with every lone surrogate replaced by
    U+FFFD, and whether there was one. A JSON escape may name half of a pair ("\\ud83d"), which Python keeps
    as a str that cannot be encoded: it would stop the run where the PR is stored (prhub.cloud.dynamo.pack)."""
    if isinstance(value, str):
        fixed = _SURROGATE.sub("\ufffd", value)
        return fixed, fixed != value
    if isinstance(value, list | tuple):
        items = [valid_utf8(v) for v in value]
        if not any(changed for _, changed in items):
            return value, False
        return type(value)(v for v, _ in items), True
    if isinstance(value, dict):
        pairs = [(valid_utf8(k), valid_utf8(v)) for k, v in value.items()]
        if not any(kc or vc for (_, kc), (_, vc) in pairs):
            return value, False
        return {k: v for (k, _), (v, _) in pairs}, True
    if is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in fields(value):
            new, changed = valid_utf8(getattr(value, f.name))
            if changed:
                changes[f.name] = new
        return (replace(value, **changes), True) if changes else (value, False)
    return value, False


class JsonlSource:
    """PRs from an export file. Lines it cannot read are skipped and remembered in `problems`.

    Each record's `html_url` names its repository (on `host`): `list_merged` serves only the requested
    repository's PRs, and refuses a repository the export does not hold or a range outside what it covers."""

    def __init__(self, lines: Iterable[str], origin: str = "export", host: str = "github.com",
                 beside: Callable[[str], str | None] | None = None) -> None:
        self.origin = origin
        self.host = host.lower()
        self.beside = beside  # reads a file beside the export (read_file); None: an export with no folder
        self.problems: list[LineProblem] = []
        self._by_number: dict[int, tuple[str, PullRequest]] = {}  # number -> (repo from html_url or "", PR)
        self._repos: dict[str, dict[int, PullRequest]] = {}  # lower-case repo -> its PRs, made on first use
        for lineno, pr in self._parse(lines):
            if pr.number in self._by_number:
                self.problems.append(LineProblem(lineno, "duplicate", number=pr.number))
                continue
            repo = self._repo_of(pr)
            if repo is None:
                self.problems.append(LineProblem(lineno, "url"))
                continue
            self.problems.extend(LineProblem(lineno, "capped", field=name, number=pr.number, skipped=False)
                                 for name in pr.capped)
            self._by_number[pr.number] = (repo, pr)

    @property
    def skipped(self) -> list[str]:
        """`origin:line: problem` for every line skipped."""
        return [f"{self.origin}:{p.line}: {p.describe()}" for p in self.problems if p.skipped]

    def _parse(self, lines: Iterable[str]) -> Iterator[tuple[int, PullRequest]]:
        last, tail, ended = 0, "", False  # ended: a line so far ended in a newline (a file's lines do)
        for lineno, line in _lines(lines):
            ended = ended or tail.endswith("\n")
            last, tail = lineno, line
            try:
                row: Any = json.loads(line)
            except json.JSONDecodeError:
                self.problems.append(LineProblem(lineno, "json"))
                continue
            except RecursionError:  # "[[[[..." lines
                self.problems.append(LineProblem(lineno, "nested"))
                continue
            if not isinstance(row, dict):
                self.problems.append(LineProblem(lineno, "object"))
                continue
            row, fixed = valid_utf8(row)
            try:
                pr = PullRequest.from_export(row)
            except RecordError as exc:
                self.problems.append(LineProblem(lineno, exc.kind, field=exc.field))
                continue
            if fixed:
                self.problems.append(LineProblem(lineno, "surrogate", number=pr.number, skipped=False))
            if "files" in row and row["files"] is None:
                self.problems.append(LineProblem(lineno, "no_files", number=pr.number, skipped=False))
            yield lineno, pr
        # An export cut off while it was written ends in a partial record, without the newline the others end
        # in: say so, not only "not valid JSON".
        if self.problems and self.problems[-1] == LineProblem(last, "json") and ended and not tail.endswith("\n"):
            self.problems[-1] = LineProblem(last, "truncated")

    def _repo_of(self, pr: PullRequest) -> str | None:
        """The repository the PR's page names, "" when the record has no url, None when it is not a PR page
        on this host (a link that would lead a reader off-site)."""
        if not pr.url:
            return ""
        match = PULL_URL.match(pr.url)
        if not match or match.group(1).lower() != self.host or int(match.group(3)) != pr.number:
            return None
        return match.group(2)

    @classmethod
    def from_path(cls, path: str, s3_client: Any = None, host: str = "github.com") -> JsonlSource:
        """The export at a local path, or at s3://bucket/key read with `s3_client` (a boto3 S3 client)."""
        if path.startswith("s3://"):
            if s3_client is None:
                raise SourceError(f"cannot read {path}: no S3 client was given")
            from prhub.cloud.aws import read_s3_url

            try:
                body = read_s3_url(s3_client, path)
            except Exception as exc:  # botocore raises many shapes; the message is what matters
                raise SourceError(f"cannot read {path}: {exc}") from exc
            return cls(body.decode("utf-8", errors="replace").splitlines(keepends=True), path, host,
                       lambda name: _s3_text(s3_client, f"{path.rsplit('/', 1)[0]}/{name}"))
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return cls(handle, path, host, lambda name: _local_text(os.path.join(os.path.dirname(path), name)))
        except OSError as exc:
            raise SourceError(f"cannot read export file {path}: {exc.strerror}") from exc

    def read_file(self, repo: str, path: str) -> str | None:
        """The file at `path` beside the export (a CHANGELOG.md kept next to pulls.jsonl, as the repository keeps
        it at its root); None when there is none. The export must hold the repository."""
        self._of_repo(repo)
        return self.beside(path) if self.beside is not None else None

    def _of_repo(self, repo: str) -> dict[int, PullRequest]:
        """The repository's PRs by number (a record without url gets its page's url); InputError when the
        export holds none (the wrong file, or nothing readable)."""
        wanted = repo.lower()
        if wanted in self._repos:
            return self._repos[wanted]
        prs = {number: replace(pr, url=f"https://{self.host}/{repo}/pull/{number}") if not owner else pr
               for number, (owner, pr) in self._by_number.items() if owner.lower() in ("", wanted)}
        if prs:
            self._repos[wanted] = prs
            return prs
        if self._by_number:
            others = Counter(owner for owner, _ in self._by_number.values())
            named = ", ".join(name for name, _ in others.most_common(3))
            raise InputError(f"{self.origin} holds no PR of {repo}: its PRs are of {named}")
        skipped = [p for p in self.problems if p.skipped]
        if skipped:
            raise InputError(f"{self.origin} holds no readable PR: {len(skipped)} line(s) skipped, the first "
                             f"(line {skipped[0].line}) {skipped[0].describe()}")
        raise InputError(f"{self.origin} holds no PR (the file is empty)")

    def coverage(self, repo: str) -> tuple[datetime, datetime]:
        """First and last merge time of the repository's PRs in the export."""
        moments = [pr.merged_at for pr in self._of_repo(repo).values()]
        return min(moments), max(moments)

    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        refs = [pr.ref for pr in self._of_repo(repo).values() if period.contains(pr.merged_at)]
        return sorted(refs, key=lambda r: (r.merged_at, r.number))

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        """An export is read whole: its listing is one page."""
        yield ListPage(self.list_merged(repo, period), None)

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        pr = self._of_repo(repo).get(ref.number)
        if pr is None:
            raise SourceError(f"PR #{ref.number} of {repo} is not in {self.origin}")
        return pr

    def listed_head(self, repo: str, number: int) -> str:
        pr = self._of_repo(repo).get(number)
        return pr.head_sha if pr is not None else ""

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        return [name for f in self.get(repo, ref).files for name in (f.filename, f.previous_filename) if name]

    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        """The export holds the repository's whole record: the comparison periods' PRs (modules by `tag`) and
        every author's first merge. Its reach is its first merge (an export may start after the repository)."""
        found = self.record(repo, comparison_span(period), tag)
        wanted = {a.lower() for a in authors}
        first: dict[str, datetime] = {}
        for pr in self._of_repo(repo).values():
            login = pr.author.lower()
            if login in wanted and pr.merged_at < min(period.start_utc, first.get(login, period.start_utc)):
                first[login] = pr.merged_at
        return History(found.earlier, {login: format_timestamp(moment) for login, moment in sorted(first.items())},
                       found.reach)

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        """The export's PRs merged within `span`, with their files for `tag`; its reach is its first merge."""
        start, end = span.start_utc, span.end_utc
        within = sorted((pr for pr in self._of_repo(repo).values() if start <= pr.merged_at < end),
                        key=lambda pr: (pr.merged_at, pr.number))
        reach, _ = self.coverage(repo)
        return History([history_entry(pr, tag(pr)) for pr in within], {}, format_timestamp(reach))

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        """What the report should say about this export: a range only partly covered and the lines it skipped
        or cut (file, line and kind of problem, capped at MAX_NOTES). A range the export does not reach at
        all, or a repository it does not hold, is bad input (InputError). The file is named without its folder:
        the report is published, the operator's paths are not the readers' business."""
        return self._remarks(repo, period, lang, MAX_NOTES, re.split(r"[/\\]", self.origin)[-1])

    def warnings(self, repo: str, period: Period) -> list[str]:
        """The notes in English, naming each line with a problem (up to MAX_WARNINGS), after their count."""
        out = self._remarks(repo, period, "en", MAX_WARNINGS, self.origin)
        skipped = sum(p.skipped for p in self.problems)
        return [f"{self.origin}: {skipped} line(s) skipped", *out] if skipped else out

    def _within(self, repo: str, number: int, period: Period) -> bool:
        """Whether PR `number` of `repo` was merged within `period` (a problem without a number: True)."""
        pr = self._of_repo(repo).get(number) if number else None
        return not number or pr is not None and period.contains(pr.merged_at)

    def _remarks(self, repo: str, period: Period, lang: str, limit: int, origin: str) -> list[str]:
        zh = lang == "zh"
        out = []
        first, last = self.coverage(repo)
        if period.end_utc <= first or period.start_utc > last:
            raise InputError(f"{self.origin} covers merges from {first:%Y-%m-%d} to {last:%Y-%m-%d} (UTC); "
                             f"{period.since} to {period.until} lies outside it")
        # By day in the report's zone: a range is covered when it starts and ends on days the export reaches.
        tz = zone(period.tz)
        if period.since < first.astimezone(tz).date() or period.until > last.astimezone(tz).date():
            out.append(f"导出文件 {origin} 只覆盖 {first:%Y-%m-%d} 至 {last:%Y-%m-%d} 合并的 PR，"
                       f"本报告范围超出部分没有数据" if zh else
                       f"the export {origin} covers merges from {first:%Y-%m-%d} to {last:%Y-%m-%d} only; "
                       f"the rest of the range has no data")
        # Duplicates come in runs (an export appended twice): one line with their count, not one each.
        duplicates = [p for p in self.problems if p.kind == "duplicate"]
        if len(duplicates) > 1:
            shown = ", ".join(str(p.line) for p in duplicates[:5]) + ("…" if len(duplicates) > 5 else "")
            out.append(f"导出文件 {origin} 有 {len(duplicates)} 行与前面的 PR 重复，已忽略（第 {shown} 行）"
                       if zh else f"export lines skipped: {origin}: {len(duplicates)} duplicates of earlier "
                       f"PRs, ignored (lines {shown})")
        # A PR kept with a field cut concerns only the report it is in (diffusers' weeks had named a line merged
        # months later); a line skipped may have held one of the range's PRs, so it is always said.
        problems = [p for p in self.problems if (p.kind != "duplicate" or len(duplicates) == 1)
                    and (p.skipped or self._within(repo, p.number, period))]
        for p in problems[:limit]:
            what = p.describe(lang)
            if p.skipped:
                out.append(f"导出文件第 {p.line} 行已跳过（{origin}:{p.line}）：{what}" if zh else
                           f"export line skipped: {origin}:{p.line}: {what}")
            else:
                out.append(f"导出文件第 {p.line} 行（{origin}:{p.line}）：{what}" if zh else
                           f"export line {origin}:{p.line}: {what}")
        if len(problems) > limit:
            more = len(problems) - limit
            out.append(f"另有 {more} 行导出数据有问题" if zh else f"export lines with problems: {more} more")
        return out


def _local_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror}") from exc


def _s3_text(s3_client: Any, url: str) -> str | None:
    from botocore.exceptions import ClientError

    from prhub.cloud.aws import read_s3_url

    try:
        return read_s3_url(s3_client, url).decode("utf-8", errors="replace")
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise SourceError(f"cannot read {url}: {exc}") from exc


def check_location(spec: str, bucket: str, local: bool) -> str:
    """`spec` when it may be read here: `github`, a `jsonl:s3://` URL in `bucket`, or a `jsonl:` path on this
    machine where `local` allows it (the CLI and the local runner; never the stack, where a path would read the
    function's own files). Raises InputError saying what is allowed."""
    if not spec.startswith("jsonl:"):
        return spec
    path = spec[len("jsonl:"):]
    allowed = (f"a jsonl: source must be an s3:// URL in the export bucket (jsonl:s3://{bucket}/KEY)" if bucket
               else "no jsonl: source is allowed: no export bucket is configured (the stack's ExportBucket)")
    if path.startswith("s3://"):
        if bucket and path[len("s3://"):].split("/", 1)[0] == bucket:
            return spec
        raise InputError(f"source {spec[:200]!r} is not in the export bucket: {allowed}")
    if local:
        return spec
    raise InputError(f"source {spec[:200]!r} names a local path, which is not read here: {allowed}")


def open_source(spec: str, s3_client: Any = None, github: Callable[[], Source] | None = None) -> Source:
    """Build the Source a run's spec names: an export (`s3_client` reads s3:// ones) or GitHub, which `github`
    makes (the flow's is prhub.flow.deps': this module knows the Source protocol, not GitHub's clients)."""
    if spec.startswith("jsonl:"):
        return JsonlSource.from_path(spec[len("jsonl:"):], s3_client)
    if spec == "github":
        if github is None:
            raise SourceError("source github cannot be read here: no GitHub source was configured")
        return github()
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


# -- the caller's deadline: an argument of a per-invocation wrapper, never an attribute set on a shared source ----

Deadline = Callable[[], float]  # the seconds the caller has left (Lambda's remaining time, less a reserve)
_CALL_DEADLINE: ContextVar[Deadline | None] = ContextVar("prhub_source_deadline", default=None)


def call_deadline() -> Deadline | None:
    """The deadline of the TimedSource call running in this thread (None outside one): a source that waits
    (GitHub's rate limits, prhub.sources.github) waits no longer than it leaves, and hands the work back instead."""
    return _CALL_DEADLINE.get()


class TimedSource:
    """`source` for one invocation: each call goes to the shared source (cached per process, never changed)
    with `deadline` as the call's own while it runs, so concurrent invocations each keep their time left.
    A deadline of None leaves the source's own limits."""

    def __init__(self, source: Source, deadline: Deadline | None) -> None:
        self.source = source
        self.deadline = deadline

    @contextmanager
    def _timed(self) -> Iterator[None]:
        token = _CALL_DEADLINE.set(self.deadline)
        try:
            yield
        finally:
            _CALL_DEADLINE.reset(token)

    def list_merged(self, repo: str, period: Period) -> list[PullRef]:
        with self._timed():
            return [_valid(repo, r) for r in self.source.list_merged(repo, period)]

    def list_pages(self, repo: str, period: Period, resume: dict[str, Any] | None = None) -> Iterator[ListPage]:
        # Timed page by page: between pages the caller's own code runs, outside the deadline.
        pages = iter(self.source.list_pages(repo, period, resume))
        while True:
            with self._timed():
                page = next(pages, None)
            if page is None:
                return
            yield replace(page, refs=[_valid(repo, r) for r in page.refs])

    def get(self, repo: str, ref: PullRef) -> PullRequest:
        with self._timed():
            return _valid(repo, self.source.get(repo, ref))

    def touched(self, repo: str, ref: PullRef) -> list[str]:
        with self._timed():
            return self.source.touched(repo, ref)

    def listed_head(self, repo: str, number: int) -> str:
        return self.source.listed_head(repo, number)  # no request: nothing to time

    def notes(self, repo: str, period: Period, lang: str = "en") -> list[str]:
        with self._timed():
            return self.source.notes(repo, period, lang)

    def warnings(self, repo: str, period: Period) -> list[str]:
        with self._timed():
            return self.source.warnings(repo, period)

    def history(self, repo: str, period: Period, authors: Iterable[str], tag: Tagger) -> History:
        with self._timed():
            return self.source.history(repo, period, authors, tag)

    def record(self, repo: str, span: Period, tag: Tagger) -> History:
        with self._timed():
            return self.source.record(repo, span, tag)

    def read_file(self, repo: str, path: str) -> str | None:
        with self._timed():
            return self.source.read_file(repo, path)


_Item = TypeVar("_Item", PullRef, PullRequest)


def _valid(repo: str, item: _Item) -> _Item:
    """What the flow reads from any source (GitHub's text too, not only an export's) as valid UTF-8, warned
    naming the PR: text that cannot be encoded stops the run where it is stored."""
    fixed, changed = valid_utf8(item)
    if changed:
        log.warning("PR #%d of %s: text that is not valid UTF-8 (a lone surrogate) replaced by U+FFFD",
                    item.number, repo)
    return fixed  # type: ignore[no-any-return]
