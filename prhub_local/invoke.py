"""`prhub invoke`: one function's handler on the embedded AWS with a sample event, as `sam local invoke`
would run it without Docker.

The stack is provisioned from template.yaml and `--state` restored and saved as
for `prhub run`, so an invocation sees (and leaves) what earlier runs left. A
score or report event names a run; when the state holds no such run, the open
run of the same repository and period stands in, or PlanFunction plans one
first, and the event's records are pointed at it (the runner says which).
"""
from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from prhub.cloud.store import parse_run_id
from prhub.core.errors import InputError
from prhub.core.period import format_timestamp, parse_timestamp
from prhub.flow.plan import is_scheduled

from prhub_local import FUNCTIONS
from prhub_local.embedded import client
from prhub_local.progress import lines
from prhub_local.runner import (
    LambdaContext,
    Progress,
    Runner,
    direct_invoke,
    function_env,
    load_handler,
    provisioned,
    run_store,
)
from prhub_local.sample import local_watchlist
from prhub_local.state import download_bucket
from prhub_local.template import Stack, default_root, load_template


@dataclass
class Invocation:
    function: str
    event: Any  # as handed to the handler (run ids pointed at the state's runs)
    answer: Any  # the handler's return value, or Lambda's {"errorType", "errorMessage"} when it raised
    error: Exception | None = None

    @property
    def refused(self) -> bool:
        """PlanFunction answered that the event is bad input (nothing was written); an answer listing runs planned
        some repositories and says which it could not."""
        answer = self.answer or {}
        return self.function == "PlanFunction" and self.error is None and not answer.get("ok") and "runs" not in answer

    @property
    def failures(self) -> list[str]:
        """What did not get done: the handler's exception, a refused plan, failed SQS records or swept runs."""
        answer = self.answer if isinstance(self.answer, dict) else {}
        if self.error is not None:
            return [f"{type(self.error).__name__}: {self.error}"]
        if self.refused:
            return [str(answer.get("error", "plan refused the event"))]
        records = [str(f.get("itemIdentifier")) for f in answer.get("batchItemFailures", [])]
        # The runs a sweep could not report; a scheduled plan's repositories recorded as failed or retried later.
        missed = [r for key in ("failed", "retrying") if isinstance(answer.get(key), list) for r in answer[key]]
        return records + [str(r) for r in missed]


def given_sources(watchlist_text: str, source: str | None) -> dict[str, str]:
    """`--source` for each watched repository that names no source of its own (the sample events' verl-project/verl
    in template.yaml's default): what the command line says, never a file that happens to be on this machine.
    Without it they are read as the watch list says (GitHub by default)."""
    if source is None:
        return {}
    doc = json.loads(watchlist_text)
    named = [entry if isinstance(entry, str) else entry.get("repo") for entry in doc.get("repos", [])
             if isinstance(entry, str) or "source" not in entry]
    return {str(repo): source for repo in named if repo}


def check_source(spec: str) -> None:
    """`--source` is github or jsonl:PATH of an export file here: refused at once otherwise."""
    if spec == "github" or spec.startswith("jsonl:s3://"):
        return
    if not spec.startswith("jsonl:"):
        raise InputError(f"unknown --source {spec[:200]!r}: use github or jsonl:PATH")
    if not Path(spec.removeprefix("jsonl:")).is_file():
        raise InputError(f"no export file at {spec.removeprefix('jsonl:')} (--source jsonl:PATH names a file of one "
                         "PR a line)")


def read_event(path: str | Path) -> Any:
    """The event in the file `path`, or `path` itself when it is a JSON object or array written on the command line
    (`--event '{"sweep": true}'`, as docs/reliability.md and the issues give them): no file name starts so."""
    text = str(path)
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise InputError(f"--event {text[:200]} is not JSON: {exc}") from exc
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read --event {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InputError(f"--event {path} is not JSON: {exc}") from exc


def invoke_function(function: str, event: Any, *, state: str | Path | None = ".prhub/state",
                    endpoint_url: str | None = None, prefix: str = "prhub", root: Path | None = None,
                    progress: Progress | None = None, source: str | None = None, config_text: str | None = None,
                    out: str | Path | None = None) -> Invocation:
    """Run `function`'s handler once with `event` on the embedded AWS (or `endpoint_url`); returns its answer,
    or the exception it raised, as Lambda reports it.

    The watch list is `config_text` (else template.yaml's default with the bundled sample); `source` is read for
    its repositories that name no source. Each report the invocation published is said, and with `out` the
    site is copied there, as `prhub run` does."""
    if function not in FUNCTIONS:
        raise InputError(f"unknown function {function!r}: use one of {', '.join(FUNCTIONS)}")
    root = root or default_root()
    say = progress or (lambda msg: print(msg, file=sys.stderr, flush=True))
    template = load_template(root / "template.yaml")
    if source is not None:
        check_source(source)
    sources = given_sources(local_watchlist(template, config_text), source)
    watchlist_text = local_watchlist(template, config_text, sources)
    done: list[Invocation] = []
    # A refused plan event wrote nothing (the flow's guarantee): the state is left as it was, or absent.
    with provisioned(template, prefix, watchlist_text, endpoint_url, state, say,
                     keep=lambda: not (done and done[0].refused)) as stack, function_env(stack):
        for repo, spec in sources.items():
            say(f"{repo} is read from {spec} (--source)")
        bucket = stack.buckets["SiteBucket"]
        before = published_reports(bucket)  # what the steps below publish (a report run first too) is said
        if function in ("PagesFunction", "DeliveryFunction"):
            event = _with_published_reports(root, stack, event, say)
        elif function != "PlanFunction":
            event = _with_known_runs(root, template, stack, event, say)
        handler = load_handler(root, template, function)
        try:
            with _replayed_at(function, event, say):
                done.append(Invocation(function, event, handler(event, LambdaContext(function))))
        except Exception as exc:  # the invocation's error, not the harness's: reported, the state still saved
            done.append(Invocation(function, event, {"errorType": type(exc).__name__, "errorMessage": str(exc)}, exc))
        written = sorted(key for key, tag in published_reports(bucket).items() if before.get(key) != tag)
        if out is not None and not done[0].refused:
            Path(out).mkdir(parents=True, exist_ok=True)
            download_bucket(client("s3"), bucket, Path(out))
        for key in written:
            say(f"report written: {Path(out) / key if out is not None else f's3://{bucket}/{key}'}")
    return done[0]


def published_reports(bucket: str) -> dict[str, str]:
    """Each report folder of the site bucket (a period's, not a PR page's), by its report.json's ETag: what an
    invocation changed is what it published."""
    found: dict[str, str] = {}
    for page in client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            folder, _, name = item["Key"].rpartition("/")
            if name == "report.json" and "/reports/" in folder:  # a period's report, not a PR page's data
                found[folder + "/"] = str(item.get("ETag"))
    return found


@contextlib.contextmanager
def _replayed_at(function: str, event: Any, say: Progress) -> Iterator[None]:
    """A recorded schedule event is replayed at the time it says it fired: the plan checks an event's time
    against the clock (a stale one is refused), and a sample recorded months ago is still worth replaying."""
    moment = None
    if function == "PlanFunction" and is_scheduled(event) and isinstance(event.get("time"), str):
        try:
            moment = parse_timestamp(event["time"])
        except ValueError:
            moment = None  # the handler refuses it with its own message
    if moment is None:
        yield
        return
    say(f"replaying the schedule event at its own time, {format_timestamp(moment)}")
    with mock.patch("prhub.flow.deps.utc_now", return_value=moment):
        yield


SLUG = re.compile(r"^(\d{4}-\d{2}-\d{2})-to-(\d{4}-\d{2}-\d{2})$")


def _bodies(event: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(record, its JSON body) of each well-formed SQS record; a malformed one is the handler's to refuse."""
    records = event.get("Records") if isinstance(event, dict) else None
    out = []
    for record in records if isinstance(records, list) else []:
        try:
            body = json.loads(record["body"])
        except (TypeError, KeyError, ValueError):
            continue
        if isinstance(body, dict):
            out.append((record, body))
    return out


def _report_of(body: dict[str, Any]) -> tuple[str, str, str] | None:
    """(repo, since, until) of the report a pages or delivery message names, by its report key or slug."""
    key = body.get("report_key")
    if isinstance(key, str) and "/reports/" in key:
        repo, _, rest = key.partition("/reports/")
        slug = rest.split("/")[0]
    elif isinstance(body.get("repo"), str) and isinstance(body.get("slug"), str):
        repo, slug = body["repo"], body["slug"]
    else:
        return None
    match = SLUG.match(slug)
    return (repo, match.group(1), match.group(2)) if match and "/slices/" not in repo else None


def _with_published_reports(root: Path, stack: Stack, event: Any, say: Progress) -> Any:
    """A pages or delivery event names a published report: when the state has none, its period is run through
    the whole flow first (plan, score, report, pages), as `prhub run` would, and the event's run ids pointed at
    that run."""
    bucket, s3 = stack.buckets["SiteBucket"], client("s3")
    ran: dict[tuple[str, str, str], str] = {}
    for _, body in _bodies(event):
        named = _report_of(body)
        if named is None or named in ran:
            continue
        repo, since, until = named
        key = f"{repo}/reports/{since}-to-{until}/"
        if s3.list_objects_v2(Bucket=bucket, Prefix=key + "report.json").get("KeyCount", 0):
            continue
        say(f"report {key} is not in the state: running {repo} {since}..{until} through the flow first "
            "(`prhub run` does the same)")
        [planned] = Runner(root, stack, direct_invoke, lines(say), workers=4).run(
            [{"repo": repo, "since": since, "until": until}])
        ran[named] = planned["run_id"]
    if not ran:
        return event
    event = json.loads(json.dumps(event))
    for record, body in _bodies(event):
        named = _report_of(body)
        if named in ran and isinstance(body.get("run_id"), str):
            body["run_id"] = ran[named]
            record["body"] = json.dumps(body, ensure_ascii=False)
    return event


def _run_ids(event: Any) -> list[str]:
    records = event.get("Records") if isinstance(event, dict) else None
    ids = []
    for record in records if isinstance(records, list) else []:
        try:
            run_id = json.loads(record["body"]).get("run_id")
        except (TypeError, KeyError, ValueError, AttributeError):
            continue  # a malformed record is the handler's to refuse
        if isinstance(run_id, str) and run_id not in ids:
            ids.append(run_id)
    return ids


def _with_known_runs(root: Path, template: dict[str, Any], stack: Stack, event: Any, say: Progress) -> Any:
    """The event with each run id the state does not hold replaced by one it does (planned if need be)."""
    store = run_store(stack)
    replaced = {}
    for run_id in _run_ids(event):
        if store.get_run(run_id) is not None:
            continue
        name = parse_run_id(run_id)
        if name is None:
            raise InputError(f"run {run_id} is not in the state, and its id names no repository and period to plan")
        period_prefix = name.period_prefix
        open_runs = sorted((r for r in store.open_runs() if r.run_id.startswith(period_prefix)),
                           key=lambda r: r.created_at)
        if open_runs:
            replaced[run_id] = open_runs[-1].run_id
            say(f"run {run_id} is not in the state: using {replaced[run_id]}, the open run of that period")
            continue
        plan = load_handler(root, template, "PlanFunction")
        answer = plan({"repo": name.repo, "since": name.since, "until": name.until,
                       **({"slice": name.slice} if name.slice else {})}, LambdaContext("PlanFunction"))
        if not answer.get("ok"):
            raise InputError(f"run {run_id} is not in the state and could not be planned: {answer.get('error')}")
        [planned] = answer["runs"]
        replaced[run_id] = planned["run_id"]
        # A long listing goes on through PlanQueue: it has listed some PRs so far, none queued yet.
        queued = (f"{planned['listed']} PRs listed so far, the listing goes on through PlanQueue"
                  if planned.get("continued") else f"{planned['expected']} PRs queued for ScoreFunction")
        say(f"run {run_id} is not in the state: planned {planned['run_id']} first ({queued}; "
            "`prhub run` drives the whole flow)")
    if not replaced:
        return event
    event = json.loads(json.dumps(event))
    for record in event["Records"]:
        try:
            body = json.loads(record["body"])
        except (TypeError, KeyError, ValueError):
            continue
        if isinstance(body, dict) and body.get("run_id") in replaced:
            body["run_id"] = replaced[body["run_id"]]
            record["body"] = json.dumps(body, ensure_ascii=False)
    return event
