"""Each function's role allows the AWS calls its code makes, and nothing it does not make.

A local pipeline run and a few handler tests run again in a subprocess with tests.aws_calls recording every
call made under a handler, as (function, IAM action, resource). Then, against the roles in the expanded
template (tests.unit.test_template):

- every recorded call is allowed;
- every allowed (action, resource) was recorded, or is in UNRECORDED with the reason the tests cannot
  show it (Lambda itself uses the role, or the path is not driven through a handler).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.aws_calls import RECORD_ENV, ROOT
from tests.unit.test_template import FUNCTIONS, can, grants

pytestmark = pytest.mark.slow

# Tests that between them make every call a handler makes: one local pipeline run set up as deployed (GitHub
# and the model through the secrets; every function through its queues), and the handler tests of the paths
# that run does not take. The other handler tests and the pipeline tests make the same calls again, only slower
# (a whole file's calls: `PRHUB_RECORD_AWS_CALLS=calls.json pytest -p tests.aws_calls -n 0 FILE`); a test
# added for a new call belongs here.
# The whole of test_logs_no_secrets runs here (its checks of the logs on the same run): the suite then leaves it
# out of its own session when this file is collected too (tests/conftest.py), so that run is made once.
RECORDED_TESTS = [
    "tests/functional/test_logs_no_secrets.py",
    "tests/functional/test_plan_handler.py::test_an_export_in_the_export_bucket_is_read_by_plan_and_score",
    "tests/functional/test_plan_handler.py::test_empty_range_goes_straight_to_the_report",
    "tests/functional/test_report_handler.py::test_sweep_finishes_a_stuck_run_and_a_late_worker_asks_for_a_revision_once",
    "tests/functional/test_delivery_handler.py::test_a_failing_channel_is_a_batch_item_failure_of_its_own",
]

Grant = tuple[str, str, str]  # function, action, logical resource
ESM = "Lambda's event source mapping polls the queue with the function's role"
UNRECORDED: dict[Grant, str] = {
    ("PlanFunction", "dynamodb:BatchWriteItem", "JudgementsTable"):
        "an event's judgements (prhub run --judgements): test_judgements_flow drives it through flow.plan",
    **{("ScoreFunction", action, "JudgementsTable"):
       "key_labels / minor_labels kept or forgotten: test_judgements_flow drives it through flow.score_record"
       for action in ("dynamodb:BatchWriteItem", "dynamodb:DeleteItem")},
    ("PlanFunction", "sqs:SendMessage", "PlanDLQ"): "Lambda sends a failed asynchronous invocation there",
    ("ReportFunction", "sqs:SendMessage", "SweepDLQ"): "Lambda sends a failed sweep invocation there",
    **{("ScoreFunction", action, "ScoreQueue"): ESM
       for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")},
    **{("PlanFunction", action, "PlanQueue"): ESM
       for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")},
    **{("ReportFunction", action, "ReportQueue"): ESM
       for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")},
    ("PlanFunction", "dynamodb:GetItem", "CacheTable"):
        "REST's ETags (the recorded runs list through GraphQL) and a continued listing's kept parts "
        "(test_plan_handler drives the continuation through flow.plan)",
    **{("PlanFunction", action, table): "a range planned again stores its cached PRs' results (the recorded runs "
       "plan each range once); test_plan_cached drives it through flow.plan"
       for action, table in (("dynamodb:PutItem", "ResultsTable"), ("dynamodb:GetItem", "RunsTable"))},
    ("PlanFunction", "sqs:SendMessage", "PlanQueue"):
        "a listing's continuation: test_plan_handler drives it through flow.plan with pages of 5 PRs (the "
        "handler's source lists 100 a page)",
    ("ScoreFunction", "sqs:SendMessage", "ScoreQueue"):
        "a rate-limited PR sent again: test_score_handler drives it through flow.score_record, not the handler",
    ("ScoreFunction", "sqs:ChangeMessageVisibility", "ScoreQueue"):
        "held back only when that send fails (tests/unit)",
    **{("PagesFunction", action, "PagesQueue"): ESM
       for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")},
    **{("DeliveryFunction", action, "DeliveryQueue"): ESM
       for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")},
    ("DeliveryFunction", "sqs:SendMessage", "DeliveryQueue"):
        "a channel's long throttling wait: test_delivery_handler drives it through flow.deliver, not the handler",
    ("DeliveryFunction", "secretsmanager:GetSecretValue", "GitHubTokenSecretName"):
        "a github channel posting with the stack's token: tests/functional/test_github_post.py drives it through "
        "flow.deliver on moto's Secrets Manager, not through the handler",
    ("DeliveryFunction", "ses:SendEmail", "NotifyEmailIdentity"):
        "e-mail is sent through prhub.notify.email on moto's SES (test_notify_channels), not through the handler",
    ("PagesFunction", "sqs:SendMessage", "PagesQueue"):
        "only an invocation near its deadline hands its remaining pages on (test_pull_pages, not the handler)",
    ("PagesFunction", "cloudfront:CreateInvalidation", "SiteDistribution"):
        "there is no distribution locally (DISTRIBUTION_ID is empty), so nothing is invalidated",
    ("ReportFunction", "sqs:SendMessage", "ReportQueue"):
        "the next revision, asked for by a publisher only when results arrive while it publishes: "
        "tests/functional/test_late_results.py stages that on the in-memory adapters",
    ("ReportFunction", "cloudfront:CreateInvalidation", "SiteDistribution"):
        "there is no distribution locally (DISTRIBUTION_ID is empty), so nothing is invalidated",
    ("ReportFunction", "s3:GetObject", "ExportBucket"):
        "a jsonl:s3:// run's export, read for the dashboard's weeks no run listed: the recorded runs read a "
        "local export or GitHub (test_plan_handler reads one from the bucket, through the plan only)",
    ("ReportFunction", "dynamodb:GetItem", "IdempotencyTable"):
        "Powertools idempotency reads the record when a failed condition does not return it",
    ("ReportFunction", "dynamodb:DeleteItem", "IdempotencyTable"):
        "Powertools idempotency deletes its record when the report raises (tests/e2e/test_faults.py)",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> set[Grant]:
    """Two recording processes side by side, the pipeline run in one and the handler tests in the other: most of
    each one's time is waiting (queues' visibility, the fakes' Retry-After), so one after the other the waits add
    up (about 150 s alone on two cores); their calls are the union of the two files."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AWS_ENDPOINT"))}
    groups = [RECORDED_TESTS[:1], RECORDED_TESTS[1:]]
    targets = [tmp_path_factory.mktemp("aws-calls") / "calls.json" for _ in groups]
    procs = [subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "tests.aws_calls", "-q", "-n", "0", "-p", "no:cacheprovider", *tests],
        cwd=ROOT, env=env | {RECORD_ENV: str(target)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for tests, target in zip(groups, targets, strict=True)]
    outputs = [proc.communicate(timeout=1800) for proc in procs]
    calls = []
    for proc, (out, err), target in zip(procs, outputs, targets, strict=True):
        assert proc.returncode == 0, out[-4000:] + err[-2000:]
        # every test asked for ran (the logs checks among them: the suite leaves them to this run)
        summary = out.strip().splitlines()[-1]
        assert "passed" in summary and not any(w in summary for w in ("skipped", "deselected", "xfail")), summary
        calls += json.loads(target.read_text())["calls"]
    return {(c["function"], c["action"], c["resource"]) for c in calls}


def test_every_recorded_call_is_allowed_by_the_functions_role(recorded: set[Grant]) -> None:
    denied = sorted(f"{f}: {a} on {r}" for f, a, r in recorded if r not in can(f, a))
    assert denied == []
    # Not vacuous: each function did its real work through AWS while recorded.
    assert {f for f, _, _ in recorded} == set(FUNCTIONS)
    assert ("ReportFunction", "s3:PutObject", "SiteBucket") in recorded
    assert ("ScoreFunction", "dynamodb:PutItem", "ResultsTable") in recorded  # inside a transaction
    assert ("PlanFunction", "secretsmanager:GetSecretValue", "GitHubTokenSecretName") in recorded
    # the model's key, read by the plan to tell the workers' scorer (Scorers.told; issue 46, item 11)
    assert ("PlanFunction", "secretsmanager:GetSecretValue", "LlmApiKeySecretName") in recorded


def test_every_grant_is_used_by_a_recorded_call_or_explained(recorded: set[Grant]) -> None:
    allowed = {(f, a, r) for f in FUNCTIONS for a, on in grants(f).items() for r in on}
    assert allowed - recorded - set(UNRECORDED) == set(), "granted, never called, not explained"
    # An explanation for a call that is recorded after all (or no longer granted) is stale.
    assert set(UNRECORDED) & recorded == set()
    assert set(UNRECORDED) <= allowed


def test_the_recorder_turns_calls_into_actions_on_resources() -> None:
    from tests.aws_calls import logical_names, needs

    transact = {"TransactItems": [{"Put": {"TableName": "t-ResultsTable"}}, {"Update": {"TableName": "t-RunsTable"}},
                                  {"ConditionCheck": {"TableName": "t-RunsTable"}}]}
    assert needs("dynamodb", "TransactWriteItems", transact) == [
        ("dynamodb:PutItem", "t-ResultsTable"), ("dynamodb:UpdateItem", "t-RunsTable"),
        ("dynamodb:ConditionCheckItem", "t-RunsTable")]
    assert needs("sqs", "SendMessageBatch", {"QueueUrl": "http://q/1/t-ScoreQueue"}) == [
        ("sqs:SendMessage", "http://q/1/t-ScoreQueue")]
    assert needs("s3", "ListObjectsV2", {"Bucket": "b"}) == [("s3:ListBucket", "b")]
    assert needs("dynamodb", "BatchWriteItem", {"RequestItems": {"h": []}}) == [("dynamodb:BatchWriteItem", "h")]
    names = logical_names({"RUNS_TABLE": "t-RunsTable", "SCORE_QUEUE_URL": "http://q/1/t-ScoreQueue"},
                          {"RUNS_TABLE": {"Ref": "RunsTable"}, "SCORE_QUEUE_URL": {"Ref": "ScoreQueue"},
                           "LOG_LEVEL": {"Ref": "LogLevel"}})
    assert names == {"t-RunsTable": "RunsTable", "http://q/1/t-ScoreQueue": "ScoreQueue"}


def test_the_recorder_attributes_a_call_to_the_handler_on_the_stack(tmp_path: Path) -> None:
    """A call made under functions/score/app.py counts for ScoreFunction; one made by a test counts for none."""
    import boto3
    from botocore.stub import Stubber

    from tests.aws_calls import Recorder
    from tests.unit.test_template import load_template

    recorder = Recorder(load_template())
    with pytest.MonkeyPatch.context() as mp:
        recorder.install(mp)
        mp.setenv("RUNS_TABLE", "t-RunsTable")
        client = boto3.session.Session(region_name="us-east-1").client(
            "dynamodb", aws_access_key_id="x", aws_secret_access_key="x")
        stub = Stubber(client)
        stub.add_response("get_item", {})
        stub.add_response("get_item", {})
        stub.activate()
        code = compile("client.get_item(TableName='t-RunsTable', Key={'run_id': {'S': 'r'}})",
                       str(ROOT / "functions" / "score" / "app.py"), "exec")
        exec(code, {"client": client})  # as if the handler module made the call
        client.get_item(TableName="t-RunsTable", Key={"run_id": {"S": "r"}})  # the test's own call
    assert dict(recorder.counts) == {("ScoreFunction", "dynamodb:GetItem", "RunsTable", "GetItem"): 1}
    assert recorder.unattributed == 1
    recorder.dump(tmp_path / "calls.json")
    assert json.loads((tmp_path / "calls.json").read_text())["calls"][0]["resource"] == "RunsTable"
