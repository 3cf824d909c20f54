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

from prhub_local.runner import (
    LambdaContext,
    Progress,
    function_env,
    load_handler,
    provisioned,
    run_store,
)
from prhub_local.sample import local_watchlist
from prhub_local.template import Stack, default_root, load_template

FUNCTIONS = ("PlanFunction", "ScoreFunction", "ReportFunction", "PagesFunction")


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


def local_sources(root: Path) -> dict[str, str]:
    """Exports this machine can read in place of GitHub for the sample events' repository (verl-project/verl):
    the project's shared export beside the checkout, when present (the tests read it too)."""
    verl = root.parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
    return {"verl-project/verl": f"jsonl:{verl}"} if verl.is_file() else {}


def read_event(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read --event {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InputError(f"--event {path} is not JSON: {exc}") from exc


def invoke_function(function: str, event: Any, *, state: str | Path | None = ".prhub/state",
                    endpoint_url: str | None = None, prefix: str = "prhub", root: Path | None = None,
                    progress: Progress | None = None) -> Invocation:
    """Run `function`'s handler once with `event` on the embedded AWS (or `endpoint_url`); returns its answer,
    or the exception it raised, as Lambda reports it."""
    if function not in FUNCTIONS:
        raise InputError(f"unknown function {function!r}: use one of {', '.join(FUNCTIONS)}")
    root = root or default_root()
    say = progress or (lambda msg: print(msg, file=sys.stderr, flush=True))
    template = load_template(root / "template.yaml")
    sources = local_sources(root)
    watchlist_text = local_watchlist(template, None, sources)
    done: list[Invocation] = []
    # A refused plan event wrote nothing (the flow's guarantee): the state is left as it was, or absent.
    with provisioned(template, prefix, watchlist_text, endpoint_url, state, say,
                     keep=lambda: not (done and done[0].refused)) as stack, function_env(stack):
        if function == "PlanFunction":
            for repo, spec in sources.items():
                say(f"{repo} is read from {spec} (the local stand-in for GitHub)")
        else:
            event = _with_known_runs(root, template, stack, event, say)
        handler = load_handler(root, template, function)
        try:
            with _replayed_at(function, event, say):
                done.append(Invocation(function, event, handler(event, LambdaContext(function))))
        except Exception as exc:  # the invocation's error, not the harness's: reported, the state still saved
            done.append(Invocation(function, event, {"errorType": type(exc).__name__, "errorMessage": str(exc)}, exc))
    return done[0]


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
