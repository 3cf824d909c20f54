"""A range planned again: the PRs whose result the score cache holds for their listed head are stored by the plan
(prhub.flow.score.store_cached), and only the rest are queued; in-memory adapters (tests/fakes/memory.py)."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from prhub.cloud.secrets import SecretError
from prhub.core.config import WatchList
from prhub.flow.messages import ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record
from prhub.model.scorers import ModelSettings, Scorers

from prhub_local.runner import LambdaContext
from prhub_local.sample import sample_settings
from tests.fakes.memory import MemoryStack, Message, memory_stack
from tests.fakes.openai_server import FakeOpenAI, rule_based
from tests.functional.test_flow_in_memory import PREFIX, REPORT, SAMPLE, SAMPLE_PRS, SCORE, record
from tests.unit.test_template import load_template


def stack_with(**repo: Any) -> MemoryStack:
    entry = {**sample_settings()["config"], **repo}
    return memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"}, "repos": [entry]})))


def scored_week(stack: MemoryStack) -> tuple[str, dict[str, Any]]:
    """The sample week planned, scored by its workers and reported: the cache then holds every PR's result."""
    [run] = plan(SAMPLE, stack.deps)
    for message in stack.queue.take(SCORE):
        score_record(record(message), stack.deps)
    [ask] = stack.queue.take(REPORT)
    report_message(ReportMessage.of(ask.body), stack.deps.invoked(LambdaContext("ReportFunction")))
    return str(run["run_id"]), json.loads(stack.bucket.get(PREFIX + "report.json") or b"{}")


def test_a_week_planned_again_is_stored_by_the_plan_and_reported_alike() -> None:
    # GIVEN the sample week scored and reported once
    stack = stack_with()
    first_id, first = scored_week(stack)
    assert {r.cached for r in stack.store.results(first_id)} == {False}
    # WHEN the same week is planned again
    [again] = plan(SAMPLE, stack.deps)
    run_id = str(again["run_id"])
    # THEN the plan stored every PR from the cache, queued none of them, and asked for the report once
    assert stack.queue.take(SCORE) == []
    results = stack.store.results(run_id)
    assert len(results) == SAMPLE_PRS and all(r.cached and r.status == "scored" for r in results)
    progress = stack.store.progress(run_id)
    assert progress is not None and progress.complete and (progress.done, progress.failed) == (SAMPLE_PRS, 0)
    [ask] = stack.queue.take(REPORT)
    assert ask.body == {"run_id": run_id}
    # AND each stored result is its worker's: the head it was scored at, the same scores
    heads = {r.number: r.scored.head_sha for r in stack.store.results(first_id) if r.scored}
    assert {r.number: r.scored.head_sha for r in results if r.scored} == heads and all(heads.values())
    # AND the report made from them says what the first one said
    report_message(ReportMessage.of(ask.body), stack.deps.invoked(LambdaContext("ReportFunction")))
    second = json.loads(stack.bucket.get(PREFIX + "report.json") or b"{}")
    assert second["stats"] == first["stats"]
    assert [(p["number"], p["importance"], p["key"]) for p in second["prs"]] == \
        [(p["number"], p["importance"], p["key"]) for p in first["prs"]]


def test_a_message_for_a_pr_the_plan_stored_changes_nothing() -> None:
    # GIVEN a week planned again, every PR stored by the plan
    stack = stack_with()
    first_id, _ = scored_week(stack)
    [again] = plan(SAMPLE, stack.deps)
    run_id = str(again["run_id"])
    stack.queue.take(REPORT)
    # WHEN a worker gets a message for one of them anyway (a plan's message sent before it failed, say)
    ref = next(r for r in stack.store.runs[run_id].listing)
    outcome = score_record(record(Message({"run_id": run_id, "number": ref.number, "ref": ref.to_dict()}, 0.0, 1)),
                           stack.deps)
    # THEN it is a duplicate: counted once, and no second report is asked for
    assert outcome["stored"] is False
    progress = stack.store.progress(run_id)
    assert progress is not None and progress.done == SAMPLE_PRS
    assert stack.queue.take(REPORT) == []


def test_only_the_prs_the_cache_lacks_are_queued_and_the_last_worker_asks_for_the_report() -> None:
    # GIVEN the week scored once, then three PRs' results gone from the cache (expired)
    stack = stack_with()
    scored_week(stack)
    gone = sorted(k for k in stack.cache.items if k.startswith("acme/rocket#"))[:3]  # repo#number#head#kind#...
    for key in gone:
        del stack.cache.items[key]
    lost = {int(key.split("#")[1]) for key in gone}
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    run_id = str(again["run_id"])
    # THEN the plan stored the others and queued those three alone, with no report asked for yet
    messages = stack.queue.take(SCORE)
    assert {m.body["number"] for m in messages} == lost
    assert len(stack.store.results(run_id)) == SAMPLE_PRS - 3 and stack.queue.take(REPORT) == []
    # AND their workers complete the run: one report asked for, each PR counted once
    for message in messages:
        assert score_record(record(message), stack.deps)["stored"]
    progress = stack.store.progress(run_id)
    assert progress is not None and (progress.done, progress.failed) == (SAMPLE_PRS, 0)
    assert [m.body for m in stack.queue.take(REPORT)] == [{"run_id": run_id}]


def test_labels_that_judge_a_pr_leave_every_pr_to_its_worker() -> None:
    # GIVEN a repository whose labels make judgements (only a worker, which loads the PR, sees them)
    stack = stack_with(key_labels=["breaking"])
    scored_week(stack)
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    # THEN every PR is queued and the plan stored none
    assert len(stack.queue.take(SCORE)) == SAMPLE_PRS
    assert stack.store.results(str(again["run_id"])) == []


@pytest.mark.parametrize("fault", ["cache", "store"])
def test_a_cache_or_store_that_fails_leaves_every_pr_to_the_queue(fault: str) -> None:
    # GIVEN the week scored once, then a cache read or a results write that fails
    stack = stack_with()
    scored_week(stack)

    def broken(*_: Any) -> Any:
        raise ConnectionError("the table cannot be reached")

    deps = replace(stack.deps, cache=replace_method(stack.cache, "first_of_each", broken)) if fault == "cache" \
        else replace(stack.deps, store=replace_method(stack.store, "put_results", broken))
    # WHEN the week is planned again
    [again] = plan(SAMPLE, deps)
    # THEN the run is planned all the same, every PR queued for its worker, nothing stored by the plan
    assert again["expected"] == SAMPLE_PRS
    assert len(stack.queue.take(SCORE)) == SAMPLE_PRS
    assert stack.store.results(str(again["run_id"])) == []


def test_a_pr_whose_listing_gave_no_head_is_left_to_its_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the week scored once, and a source whose listing gives no head for one PR
    stack = stack_with()
    first_id, _ = scored_week(stack)
    number = stack.store.runs[first_id].listing[0].number
    source = stack.deps.sources(sample_settings()["config"]["source"])
    listed = source.listed_head
    monkeypatch.setattr(source, "listed_head", lambda repo, n: "" if n == number else listed(repo, n))
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    # THEN that PR alone is queued
    assert [m.body["number"] for m in stack.queue.take(SCORE)] == [number]
    assert len(stack.store.results(str(again["run_id"]))) == SAMPLE_PRS - 1


def replace_method(target: Any, name: str, method: Any) -> Any:
    """`target` with `name` answered by `method` (the rest its own)."""

    class Faulty:
        def __getattr__(self, attr: str) -> Any:
            return method if attr == name else getattr(target, attr)

    return Faulty()


def test_a_scorer_only_the_model_keys_secret_names_leaves_every_pr_to_its_worker() -> None:
    # GIVEN a repository scored by the model when its key, a named secret, can be read (the workers may read it;
    # the plan is not granted it, so it cannot tell which scorer's cache keys are the workers')
    stack = stack_with(llm={"api_key_secret": "prhub/llm-key"})
    scored_week(stack)  # no Secrets Manager here: the workers' auto scorer is the engine
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    # THEN the plan stored nothing and read no secret: every PR is its worker's
    assert len(stack.queue.take(SCORE)) == SAMPLE_PRS
    assert stack.store.results(str(again["run_id"])) == []
    assert stack.deps.scorers.needs_secret(stack.deps.watchlist().get("acme/rocket"))


class StackSecrets:
    """Secrets Manager as the deployed stack's functions read it: the model key's secret holds `key`, or (None)
    does not exist."""

    def __init__(self, key: str | None) -> None:
        self.key = key
        self.reads: list[str] = []

    def read(self, name: str) -> str:
        self.reads.append(name)
        if self.key is None:
            raise SecretError(f"secret {name!r} could not be read: ResourceNotFoundException", missing=True)
        return self.key


def deployed(stack: MemoryStack, secrets: StackSecrets, **settings: Any) -> MemoryStack:
    """`stack` with the model settings template.yaml gives every function: the key's secret named
    (LLM_API_KEY_SECRET, its LlmApiKeySecretName), no OPENAI_API_KEY."""
    secret = load_template()["Parameters"]["LlmApiKeySecretName"]["Default"]
    scorers = Scorers(ModelSettings(api_key_secret=secret, **settings), secrets)
    return replace(stack, deps=replace(stack.deps, scorers=scorers))


def test_the_stacks_named_key_secret_that_does_not_exist_lets_the_plan_store_the_engines_results() -> None:
    # GIVEN a stack as deployed without a model: the template names the key's secret, nobody created it, so the
    # workers' auto scorer is the engine; the week scored once
    secrets = StackSecrets(None)
    stack = deployed(stack_with(), secrets)
    scored_week(stack)
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    # THEN the plan read the secret, found none, and stored every PR from the engine's cache (issue 46, item 11)
    assert secrets.reads and stack.queue.take(SCORE) == []
    results = stack.store.results(str(again["run_id"]))
    assert len(results) == SAMPLE_PRS and all(r.cached and r.scored and r.scored.scored_by == "heuristic"
                                              for r in results)


def test_the_stacks_readable_key_secret_lets_the_plan_store_the_models_results() -> None:
    # GIVEN a stack as deployed with a model: the key in the named secret, the model at its endpoint; the week
    # scored by the model once
    with FakeOpenAI(rule_based) as model:
        stack = deployed(stack_with(), StackSecrets("sk-deployed"), base_url=model.base_url, model="fake-model")
        first_id, _ = scored_week(stack)
        asked = model.answered
        by = {r.number: r.scored.scored_by for r in stack.store.results(first_id) if r.scored}
        assert "llm" in by.values()
        # WHEN the week is planned again
        [again] = plan(SAMPLE, stack.deps)
        # THEN the plan stored every PR from the model's cache, queued none, and the model was not asked again
        assert stack.queue.take(SCORE) == []
        results = stack.store.results(str(again["run_id"]))
        # (the model's results, and the engine's where it stood in for the model, as the workers would read them)
        assert len(results) == SAMPLE_PRS and {r.number: r.scored.scored_by for r in results if r.scored} == by
        assert model.answered == asked


def test_a_key_secret_that_cannot_be_read_now_leaves_every_pr_to_its_worker() -> None:
    # GIVEN the week scored once, then the key's secret denied or unreachable when the plan reads it (the
    # workers may read it later and score with the model: the engine's results would be the wrong scorer's)
    secrets = StackSecrets(None)
    stack = deployed(stack_with(), secrets)
    scored_week(stack)

    def outage(name: str) -> str:
        raise SecretError(f"secret {name!r} could not be read: ThrottlingException")

    secrets.read = outage  # type: ignore[method-assign]
    stack = deployed(stack, secrets)  # a plan invocation of its own: no failure remembered
    # WHEN the week is planned again
    [again] = plan(SAMPLE, stack.deps)
    # THEN every PR is its worker's
    assert len(stack.queue.take(SCORE)) == SAMPLE_PRS
    assert stack.store.results(str(again["run_id"])) == []
