"""Which run's report a folder holds is a Query of the runs table's ReportKeyIndex, not a scan (issue 24).

The first test drives ReportFunction on moto with every botocore client recorded (tests.aws_calls patches the
session's client factory, so the clients each thread and Deps make are hooked too): its publication queries the
index and scans nothing. The second is the store on moto, on a runs table made before the index (as an endpoint
kept from an older template has it): the local stack adds the index, the items written before it are indexed
(a backfill, as DynamoDB does when an index is added), and the older run's report is still found and kept.
"""
from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.store import REPORT_KEY_INDEX, Store
from prhub.core.config import RepoConfig, Settings
from prhub.core.models import PullRef
from prhub.core.period import Period

from prhub_local.template import create_stack
from tests.aws_calls import Recorder
from tests.functional.flow_support import deliver, handler, receive_all
from tests.functional.test_report_handler import PREFIX, plan_and_score

INDEX = f"RunsTable/index/{REPORT_KEY_INDEX}"


def test_a_publication_queries_the_report_key_index_and_scans_nothing(stack: Any, template: dict[str, Any],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    plan_and_score(stack)
    [message] = receive_all(stack, "ReportQueue", 1)
    recorder = Recorder(template)
    recorder.install(monkeypatch)
    aws.reset()  # clients made from here on are hooked

    assert deliver(handler(stack, "ReportFunction"), stack, "ReportQueue", [message]) == set()

    calls = {(action, resource, operation): n for (function, action, resource, operation), n
             in recorder.counts.items() if function == "ReportFunction" and action.startswith("dynamodb:")}
    assert calls[("dynamodb:Query", INDEX, "Query")] == 1
    assert [c for c in calls if c[2] == "Scan"] == []
    assert ("dynamodb:UpdateItem", "RunsTable", "UpdateItem") in calls  # recorded at all: marked reported


def test_runs_reported_before_the_index_existed_are_found_through_it(aws_in_process: None, template: dict[str, Any],
                                                                     prefix: str) -> None:
    # GIVEN a runs table made by the template before ReportKeyIndex, and two runs of one range reported there
    older = copy.deepcopy(template)
    older["Resources"]["RunsTable"]["Properties"].pop("GlobalSecondaryIndexes")
    older["Resources"]["RunsTable"]["Properties"]["AttributeDefinitions"] = [
        {"AttributeName": "run_id", "AttributeType": "S"}]
    before = create_stack(older, prefix, "{}")
    db = aws.client("dynamodb")
    assert db.describe_table(TableName=before.tables["RunsTable"])["Table"].get("GlobalSecondaryIndexes", []) == []
    store = Store(db, Settings.from_env(before.function_env()))
    config, period = RepoConfig("acme/rocket"), Period.parse("2026-06-01", "2026-06-07", "UTC")
    refs = [PullRef(n, "", "", period.start_utc, "") for n in range(1, 33)]
    for run_id, planned in (("complete", "2026-06-08T01:00:00Z"), ("orphan", "2026-06-08T00:40:00Z")):
        assert store.create_run(run_id, config, period, "jsonl:x", refs, 0, planned)
    assert store.mark_reported("complete", PREFIX, "2026-06-08T01:10:00Z", 0, 1, 32)

    # WHEN the stack is made again from today's template on the same endpoint (the local runner's start)
    after = create_stack(template, prefix, "{}")

    # THEN the table has the index, and the complete run's report, written before it, is found through it
    [index] = db.describe_table(TableName=after.tables["RunsTable"])["Table"]["GlobalSecondaryIndexes"]
    assert index["IndexName"] == REPORT_KEY_INDEX
    operations: Counter[str] = Counter()
    db.meta.events.register("before-call.dynamodb", lambda model, **_: operations.update([model.name]))
    orphan = store.get_run("orphan")
    assert orphan is not None
    assert store.superseding(PREFIX, orphan, 10) == "complete"
    complete = store.get_run("complete")
    assert complete is not None
    assert store.superseding(PREFIX, complete, 32) is None, "a run's own report gives way to its revision"
    assert store.superseding(PREFIX + "zh/", orphan, 10) is None, "another folder holds nothing"
    assert operations["Query"] == 3 and operations["Scan"] == 0
    # An orphan marked superseded is no holder: a newer run's report replaces the complete one, not it
    assert store.mark_reported("orphan", PREFIX, "2026-06-09T00:00:00Z", 0, 1, 10, superseded_by="complete")
    assert store.create_run("newest", config, period, "jsonl:x", refs, 0, "2026-06-09T01:00:00Z")
    newest = store.get_run("newest")
    assert newest is not None and store.superseding(PREFIX, newest, 32) is None
