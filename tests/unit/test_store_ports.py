"""The run store's ports (prhub.flow.ports): each concern's DynamoDB part and in-memory fake implement exactly its
port, with the port's signatures, and the composed Store and MemoryStore are every port at once. A method added to
one side only, or a parameter renamed in one, fails here instead of in a flow test far away."""
from __future__ import annotations

import inspect
from datetime import UTC, datetime

import pytest
from prhub.cloud.budget import DynamoBudget
from prhub.cloud.judgements import DynamoJudgements
from prhub.cloud.publications import DynamoPublications
from prhub.cloud.results import DynamoResults
from prhub.cloud.runs import DynamoRuns
from prhub.cloud.store import Store
from prhub.core.config import RepoConfig
from prhub.core.judgements import judgement
from prhub.core.models import PullRequest
from prhub.flow import ports
from prhub.flow.judgements import gather, keep_labels, unchanged
from prhub.flow.ports import RunStore
from prhub.sources.source import Source

from tests.fakes.memory import (
    SETTINGS,
    MemoryBudget,
    MemoryJudgements,
    MemoryPublications,
    MemoryResults,
    MemoryRuns,
    MemoryStore,
)

PARTS = [(ports.Runs, DynamoRuns, MemoryRuns), (ports.Results, DynamoResults, MemoryResults),
         (ports.TokenBudget, DynamoBudget, MemoryBudget), (ports.Publications, DynamoPublications, MemoryPublications),
         (ports.KeptJudgements, DynamoJudgements, MemoryJudgements)]


def methods(cls: type) -> dict[str, inspect.Signature]:
    """The public methods a class defines or inherits (a Protocol's own machinery aside), by name."""
    return {name: inspect.signature(member) for name, member in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")}


@pytest.mark.parametrize("port, dynamo, memory", PARTS, ids=lambda x: getattr(x, "__name__", ""))
def test_each_part_and_its_fake_implement_exactly_their_port(port: type, dynamo: type, memory: type) -> None:
    wanted = methods(port)
    assert wanted, port
    for part in (dynamo, memory):
        found = {name: sig for name, sig in methods(part).items() if name != "run_key"}
        assert found == wanted, part.__name__


def test_the_ports_split_the_store_without_overlap_and_the_store_is_all_of_them() -> None:
    names = [set(methods(port)) for port, _, _ in PARTS]
    assert sum(len(n) for n in names) == len(set().union(*names))
    assert set(methods(RunStore)) == set().union(*names)
    for whole in (Store, MemoryStore):
        assert set(methods(whole)) - {"run_key"} == set(methods(RunStore)), whole.__name__


def pull(labels: list[str]) -> PullRequest:
    return PullRequest(7, "t", "", "a", datetime(2026, 6, 1, tzinfo=UTC), "", labels=labels)


def never() -> Source:
    raise AssertionError("the judgements were read: no source is asked")


def test_a_service_that_needs_only_judgements_runs_on_that_fake_alone() -> None:
    kept = MemoryJudgements()
    config = RepoConfig("acme/rocket", key_labels=["headline"])
    keep_labels(config, pull(["Headline"]), kept)
    assert [(j.pr, j.verdict, j.source) for j in kept.judgements("acme/rocket")] == [(7, "key", "label")]
    assert [j.pr for j in gather(config, never, kept, SETTINGS, read=[])] == [7]
    kept.put_judgements([judgement("acme/rocket", 7, "minor", "correction", "2026-06-01T00:00:00Z")])
    assert unchanged("acme/rocket", {7: "minor", 8: "key"}, kept) == [7]
    keep_labels(config, pull([]), kept)  # the label taken off: its judgement forgotten, the correction kept
    assert [j.source for j in kept.judgements("acme/rocket")] == ["correction"]
