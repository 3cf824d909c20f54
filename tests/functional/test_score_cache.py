"""The score cache under the flow (issue 46, items 1, 3 and 8), on in-memory adapters (tests/fakes/memory.py): a
result is reused only under the settings it was scored with and for the PR as it is now, and a damaged entry
costs its PR a new score, never its batch-mates' results or a place in the report."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import WatchList
from prhub.core.models import ScoredPR
from prhub.flow.messages import ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_batch

from prhub_local.runner import LambdaContext
from prhub_local.sample import sample_settings
from tests.fakes.memory import MemoryStack, Message, memory_stack
from tests.functional.test_flow_in_memory import PREFIX, REPORT, SAMPLE, SAMPLE_PRS, SCORE, record

SLICE_PREFIX = "acme/rocket/slices/core/reports/2026-06-01-to-2026-06-07/"
EDITED = {"key_threshold": 9.5, "large_change_lines": 10}  # few key PRs, many large changes
SLICE = {"name": "core", "paths": ["rocket/**"]}


def watchlist(*repos: dict[str, Any]) -> WatchList:
    sample = sample_settings()["config"]
    return WatchList.parse(json.dumps({"defaults": {"language": "en"},
                                       "repos": [{**sample, **repo} for repo in repos]}))


def scored(stack: MemoryStack, messages: list[Message], batch: int = 10) -> None:
    """The messages scored as SQS hands them over: batches of `batch`; none may fail."""
    for start in range(0, len(messages), batch):
        answer = score_batch({"Records": [record(m).raw_event for m in messages[start:start + batch]]}, stack.deps)
        assert answer == {"batchItemFailures": []}


def reported(stack: MemoryStack) -> None:
    for ask in stack.queue.take(REPORT):
        report_message(ReportMessage.of(ask.body), stack.deps.invoked(LambdaContext("ReportFunction")))


def report(stack: MemoryStack, prefix: str = PREFIX) -> dict[str, Any]:
    return json.loads(stack.bucket.get(prefix + "report.json") or b"{}")


def week(stack: MemoryStack, **event: Any) -> dict[str, Any]:
    """The sample week (of a slice, with `slice`) planned, scored and reported."""
    plan({**SAMPLE, **event}, stack.deps)
    scored(stack, stack.queue.take(SCORE))
    reported(stack)
    return report(stack, SLICE_PREFIX if event.get("slice") else PREFIX)


def counts(doc: dict[str, Any]) -> tuple[int, int, int]:
    """(PRs, key PRs, large-change risks) of a report."""
    large = sum(1 for p in doc["prs"] for r in p["risks"] if r["kind"] == "large_change")
    return doc["stats"]["pr_count"], doc["stats"]["key_pr_count"], large


def test_settings_edited_between_runs_score_the_week_as_a_fresh_state_does() -> None:
    # GIVEN the week scored and cached under the repository's settings
    stack = memory_stack(watchlist({}))
    before = counts(week(stack))
    # WHEN the watch list's threshold and large-change size are edited, and the week is run again
    edited = watchlist(EDITED)
    stack.deps = replace(stack.deps, watchlist=lambda: edited)
    again = counts(week(stack))
    # THEN it reports what a fresh state with those settings reports, not the cached results of the others
    fresh = counts(week(memory_stack(edited)))
    assert again == fresh != before
    assert fresh[1] < before[1] and fresh[2] > before[2]


@pytest.mark.parametrize("first", ["repository", "slice"])
def test_a_slice_and_its_repository_in_one_run_each_get_their_own_settings(first: str) -> None:
    # GIVEN a repository and a slice of it with settings of its own, planned together
    stack = memory_stack(watchlist({}, {**SLICE, **EDITED}))
    plan(SAMPLE, stack.deps)
    plan({**SAMPLE, "slice": "core"}, stack.deps)
    messages = stack.queue.take(SCORE)
    slice_run = {m.body["run_id"] for m in messages if "/slices/" in m.body["run_id"]}
    # WHEN their workers score them, one report's PRs before the other's (the cache is filled by the first)
    messages.sort(key=lambda m: (m.body["run_id"] in slice_run) == (first == "repository"), reverse=True)
    scored(stack, messages)
    reported(stack)
    # THEN each report is what it is alone: the slice's settings for the slice, the repository's for it
    alone_repo = counts(week(memory_stack(watchlist({}))))
    alone_slice = counts(week(memory_stack(watchlist({**SLICE, **EDITED})), slice="core"))
    assert counts(report(stack)) == alone_repo
    assert counts(report(stack, SLICE_PREFIX)) == alone_slice
    assert alone_slice[1] < alone_repo[1]


def test_a_damaged_cache_entry_is_scored_again_and_its_batch_mates_are_stored() -> None:
    # GIVEN the week scored once; then one PR's entry cut to its number, another's holding a PR of no such week,
    # and three more gone (expired), so that the five go to the workers in one batch
    stack = memory_stack(watchlist({}))
    first = week(stack)
    keys = sorted(k for k in stack.cache.items if k.startswith("acme/rocket#"))
    cut, misplaced, *gone = keys[:5]
    stack.cache.items[cut] = json.dumps({"number": int(cut.split("#")[1])})
    stack.cache.items[misplaced] = json.dumps({**json.loads(stack.cache.items[misplaced]), "number": 999999})
    for key in gone:
        del stack.cache.items[key]
    # WHEN the week is run again
    [again] = plan(SAMPLE, stack.deps)
    messages = stack.queue.take(SCORE)
    # THEN the plan stored the intact ones and left the damaged ones to their workers
    assert {m.body["number"] for m in messages} == {int(k.split("#")[1]) for k in keys[:5]}
    # AND their batch is stored whole: no record fails, no PR is lost, none is another's
    scored(stack, messages, batch=len(messages))
    progress = stack.store.progress(str(again["run_id"]))
    assert progress is not None and (progress.done, progress.failed) == (SAMPLE_PRS, 0)
    reported(stack)
    second = report(stack)
    assert sorted(p["number"] for p in second["prs"]) == sorted(p["number"] for p in first["prs"])
    assert counts(second) == counts(first)
    # AND the damaged entries were overwritten with the PRs' own results
    for key in (cut, misplaced):
        assert ScoredPR.checked(json.loads(stack.cache.items[key])).number == int(key.split("#")[1])


def test_a_pr_without_a_head_edited_between_runs_is_scored_again(tmp_path: Path) -> None:
    # GIVEN an export whose PRs carry neither head nor merge commit, its week scored once
    export = Path(sample_settings()["config"]["source"].removeprefix("jsonl:"))
    rows = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.pop("merge_commit_sha", None)
        row.pop("head", None)
    path = tmp_path / "rocket.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    stack = memory_stack(watchlist({"source": f"jsonl:{path}"}))
    first = week(stack)
    number = first["prs"][0]["number"]
    # WHEN one PR's title and size are edited in the export, and the week is run again on the same cache
    row = next(r for r in rows if r["number"] == number)
    row["title"], row["additions"] = "[worker] feat: a retitled change", 4321
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    again = memory_stack(watchlist({"source": f"jsonl:{path}"}))
    again.cache.items.update(stack.cache.items)
    second = week(again)
    # THEN that PR is scored again as it is now; the others come from the cache
    pr = next(p for p in second["prs"] if p["number"] == number)
    assert (pr["title"], pr["additions"]) == ("[worker] feat: a retitled change", 4321)
    cached = {r.number: r.cached for r in again.store.results(next(iter(again.store.runs)))}
    assert cached.pop(number) is False and set(cached.values()) == {True}
