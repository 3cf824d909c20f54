"""template.yaml: lint-clean, and every resource, property and permission the design relies on.

IAM is checked on the *expanded* template (the SAM transform run offline with
aws-sam-translator), so what is asserted is the roles CloudFormation would create,
including whatever SAM adds on its own.
"""
from __future__ import annotations

import ast
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import boto3
import pytest
from cfnlint.api import lint
from cfnlint.config import ManualArgs
from cfnlint.decode import cfn_yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
SAMCONFIG = ROOT / "samconfig.toml"
FUNCTIONS = ("PlanFunction", "ScoreFunction", "ReportFunction", "PagesFunction", "DeliveryFunction")


@cache
def _load() -> dict[str, Any]:
    # cfn-lint's own decoder: short tags (!Ref, !GetAtt, !Sub) come back in their long JSON forms.
    return json.loads(json.dumps(cfn_yaml.load(str(TEMPLATE))))


def load_template() -> dict[str, Any]:
    """template.yaml as plain dicts (a fresh copy each call)."""
    return copy.deepcopy(_load())


@cache
def _expanded() -> dict[str, Any]:
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    template = load_template()
    for resource in template["Resources"].values():
        props = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):  # as after `sam package`
            if key in props:
                props[key] = "s3://bucket/key"
    translator = Translator(None, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    return translator.translate(template, parameter_values={}, get_managed_policy_map=lambda: {})


def expanded() -> dict[str, Any]:
    return copy.deepcopy(_expanded())


def resources(kind: str | None = None) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in load_template()["Resources"].items() if kind is None or v["Type"] == kind}


def props(logical_id: str) -> dict[str, Any]:
    return load_template()["Resources"][logical_id]["Properties"]


def function_setting(function: str, key: str) -> Any:
    own = props(function)
    return own[key] if key in own else load_template()["Globals"]["Function"][key]


def refs(value: Any) -> set[str]:
    """Logical ids and parameters a CloudFormation value refers to (Ref, GetAtt, ${X} / ${X.Attr} in Sub)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                found.add(inner)
            elif key == "Fn::GetAtt":
                found.add(inner[0] if isinstance(inner, list) else inner.split(".")[0])
            elif key == "Fn::Sub":
                text, variables = (inner, {}) if isinstance(inner, str) else (inner[0], inner[1])
                if index := re.fullmatch(r"\$\{(\w+)\.Arn\}/index/(\w+)", text):  # a table's index, by name
                    found.add(f"{index[1]}/index/{index[2]}")
                    continue
                for name in re.findall(r"\$\{([^}!]+)\}", text):
                    name = name.split(".")[0]
                    if name in variables:
                        found |= refs(variables[name])
                    elif not name.startswith("AWS::"):
                        found.add(name)
            else:
                found |= refs(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= refs(inner)
    return found


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def role_statements(role: dict[str, Any]) -> list[dict[str, Any]]:
    """The role's statements where every condition holds (a policy under Fn::If counts: its widest grant)."""
    policies = [p["Fn::If"][1] if "Fn::If" in p else p for p in role["Properties"].get("Policies", [])]
    return [s for p in policies for s in as_list(p["PolicyDocument"]["Statement"])]


def function_role(function: str) -> dict[str, Any]:
    out = expanded()["Resources"]
    role_ref = out[function]["Properties"]["Role"]
    return out[role_ref["Fn::GetAtt"][0]]


def grants(function: str) -> dict[str, set[str]]:
    """action -> the logical ids / parameters its Allow statements name, for the function's role."""
    result: dict[str, set[str]] = {}
    for statement in role_statements(function_role(function)):
        if statement["Effect"] != "Allow":
            continue
        for action in as_list(statement["Action"]):
            result.setdefault(action, set()).update(refs(statement["Resource"]))
    return result


def can(function: str, action: str) -> set[str]:
    """What `function` may do `action` on (wildcard actions such as sqs:SendMessage* count)."""
    targets: set[str] = set()
    for granted, on in grants(function).items():
        if re.fullmatch(re.escape(granted).replace(r"\*", ".*"), action):
            targets |= on
    return targets


# ------------------------------------------------------------------ lint


def test_cfn_lint_is_clean_in_several_regions() -> None:
    matches = lint(TEMPLATE.read_text(), config=ManualArgs(regions=["us-east-1", "eu-west-1", "ap-northeast-1"]))
    assert [str(m) for m in matches] == []


def test_cfn_lint_catches_a_typo_so_the_clean_result_means_something() -> None:
    broken = TEMPLATE.read_text().replace("VisibilityTimeout: 1800", "VisibilityTimeOut: 1800", 1)
    assert broken != TEMPLATE.read_text()
    assert any("VisibilityTimeOut" in str(m) for m in lint(broken, regions=["us-east-1"]))


SAM = shutil.which("sam") or shutil.which("sam", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(SAM is None, reason="aws-sam-cli is not installed (optional: pip install aws-sam-cli)")
def test_sam_validate_lint() -> None:
    result = subprocess.run(
        [str(SAM), "validate", "--lint", "--region", "us-east-1", "--template-file", str(TEMPLATE)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=os.environ | {"SAM_CLI_TELEMETRY": "0"},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_sam_transform_expands_offline() -> None:
    out = expanded()["Resources"]
    assert {out[f]["Type"] for f in FUNCTIONS} == {"AWS::Lambda::Function"}


# ------------------------------------------------------------------ functions and layer


def test_globals() -> None:
    glob = load_template()["Globals"]["Function"]
    assert glob["Runtime"] == "python3.12"
    assert glob["Architectures"] in (["arm64"], ["x86_64"])
    assert glob["Tracing"] == "Active"
    assert glob["Layers"] == [{"Ref": "PrhubLayer"}]


def make_variable(makefile: Path, name: str) -> str:
    """A variable's value as make itself expands it."""
    result = subprocess.run(["make", "-s", "-f", str(makefile), "--eval", f"print-var: ; @echo $({name})", "print-var"],
                            capture_output=True, text=True, check=True, timeout=30)
    return result.stdout.strip()


def test_sam_builds_the_layer_with_its_own_makefile_for_the_functions_runtime_and_architecture() -> None:
    layer = resources()["PrhubLayer"]
    assert layer["Type"] == "AWS::Serverless::LayerVersion"
    assert layer["Properties"]["ContentUri"] == "layers/prhub"
    # `sam build` runs ContentUri's Makefile, target build-<LogicalId>: the whole layer, CJK font included
    # (tests/functional/test_layer_build.py runs that target). SAM's python3.12 builder would skip the font.
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    makefile = ROOT / "layers/prhub/Makefile"
    assert re.search(r"^build-PrhubLayer:", makefile.read_text(), re.MULTILINE)
    runtime = load_template()["Globals"]["Function"]["Runtime"]
    assert layer["Properties"]["CompatibleRuntimes"] == [runtime]
    assert make_variable(makefile, "LAMBDA_PYTHON") == runtime.removeprefix("python")
    arch = load_template()["Globals"]["Function"]["Architectures"]
    assert [layer["Metadata"]["BuildArchitecture"]] == arch
    assert layer["Properties"]["CompatibleArchitectures"] == arch
    # The wheels the Makefile fetches are for that architecture, else an arm64 function cannot import them.
    machine = {"arm64": "aarch64", "x86_64": "x86_64"}[arch[0]]
    platforms = make_variable(makefile, "PLATFORMS").split()
    assert platforms and all(p.endswith(f"_{machine}") for p in platforms)
    assert f"manylinux_2_34_{machine}" in platforms  # Lambda's python3.12 has glibc 2.34 (Amazon Linux 2023)
    assert (ROOT / "layers/prhub/requirements.txt").is_file()
    assert (ROOT / "layers/prhub/font-requirements.txt").is_file()
    assert (ROOT / "layers/prhub/prhub/__init__.py").is_file()
    assert not (ROOT / "layers/prhub/python").exists()  # the build writes python/ into ARTIFACTS_DIR


def test_make_build_is_only_sam_build_so_both_build_the_same() -> None:
    dry_run = subprocess.run(["make", "-n", "--no-print-directory", "build"], cwd=ROOT, capture_output=True,
                             text=True, check=True, timeout=30)  # no directory lines, even under a parent make
    assert dry_run.stdout.splitlines() == ["sam build"]


@pytest.mark.parametrize(("function", "folder"), [("PlanFunction", "plan"), ("ScoreFunction", "score"),
                                                  ("ReportFunction", "report"), ("DeliveryFunction", "deliver")])
def test_function_code_location(function: str, folder: str) -> None:
    assert resources()[function]["Type"] == "AWS::Serverless::Function"
    assert props(function)["CodeUri"] == f"functions/{folder}"
    assert props(function)["Handler"] == "app.handler"
    app = ROOT / "functions" / folder / "app.py"
    if app.exists():  # the module Lambda loads defines what Handler names
        tree = ast.parse(app.read_text())
        assert "handler" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


SITE_URL = {"Fn::If": ["HasSiteDomain", {"Fn::Sub": "https://${SiteDomainName}"},
                        {"Fn::Sub": "https://${SiteDistribution.DomainName}"}]}


def test_globals_environment() -> None:
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    expected = {
        "RUNS_TABLE": {"Ref": "RunsTable"}, "RESULTS_TABLE": {"Ref": "ResultsTable"},
        "CACHE_TABLE": {"Ref": "CacheTable"},
        "IDEMPOTENCY_TABLE": {"Ref": "IdempotencyTable"}, "SCORE_QUEUE_URL": {"Ref": "ScoreQueue"},
        "REPORT_QUEUE_URL": {"Ref": "ReportQueue"}, "PAGES_QUEUE_URL": {"Ref": "PagesQueue"},
        "PLAN_QUEUE_URL": {"Ref": "PlanQueue"}, "SITE_BUCKET": {"Ref": "SiteBucket"},
        "DISTRIBUTION_ID": {"Ref": "SiteDistribution"}, "PRHUB_CONFIG_PARAMETER": {"Ref": "ConfigParameter"},
        "GITHUB_TOKEN_SECRET": {"Ref": "GitHubTokenSecretName"}, "LLM_API_KEY_SECRET": {"Ref": "LlmApiKeySecretName"},
        "POWERTOOLS_SERVICE_NAME": "prhub", "POWERTOOLS_METRICS_NAMESPACE": "Prhub",
    }
    for key, value in expected.items():
        assert env[key] == value, key
    assert env["SITE_URL"] == SITE_URL
    assert "LOG_LEVEL" in env
    # The workers decide "this was the last try" from this value: it must be the queues' redrive count.
    assert int(env["MAX_RECEIVE_COUNT"]) == props("ScoreQueue")["RedrivePolicy"]["maxReceiveCount"]


def test_settings_read_every_variable_the_template_sets() -> None:
    from prhub.core.config import Settings

    env = {k: "x" for k in load_template()["Globals"]["Function"]["Environment"]["Variables"]}
    env["MAX_RECEIVE_COUNT"] = "3"
    settings = Settings.from_env(env)
    assert settings.runs_table == "x" and settings.config_parameter == "x" and settings.max_receive_count == 3


def test_the_price_table_is_a_parameter_and_a_local_run_keeps_the_shells(stack: Any) -> None:
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["PRHUB_LLM_PRICES"] == {"Ref": "LlmPrices"} and env["PRHUB_LLM_PRICES_AS_OF"] == {"Ref": "LlmPricesAsOf"}
    assert load_template()["Parameters"]["LlmPrices"]["Default"] == ""
    # The local stack resolves parameters to their defaults; the empty price table is left out, so the
    # PRHUB_LLM_PRICES set in the shell is the table a local run uses.
    assert stack.env["PRHUB_LLM_PRICES"] == "" and stack.env["NOTIFY_SENDER"] == ""
    local = stack.function_env()
    assert "PRHUB_LLM_PRICES" not in local and "PRHUB_LLM_PRICES_AS_OF" not in local and "NOTIFY_SENDER" in local
    # CloudFront's address has no local stand-in: the shell's SITE_URL (a GitHub Action's Pages URL) is the site's
    assert stack.env["SITE_URL"] == "" and "SITE_URL" not in local


def test_each_function_has_a_log_group_with_retention() -> None:
    groups = resources("AWS::Logs::LogGroup").values()
    named = {next(iter(refs(g["Properties"]["LogGroupName"]))) for g in groups}
    assert named == set(FUNCTIONS)
    assert all("RetentionInDays" in g["Properties"] for g in groups)


# ------------------------------------------------------------------ schedules


_CRON_NAMES = {
    "month": {m: i for i, m in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], 1)},
    "dow": {d: i for i, d in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"], 1)},
}


def _cron_field(text: str, low: int, high: int, names: dict[str, int] | None = None) -> set[int] | None:
    """The values an AWS cron field allows (None for '?'); supports * ? , - / and names."""
    if text == "?":
        return None
    values: set[int] = set()
    for part in text.split(","):
        base, _, step = part.partition("/")
        if base == "*":
            start, end = low, high
        else:
            lo, _, hi = base.partition("-")
            start = int(names[lo.upper()]) if names and lo.upper() in names else int(lo)
            end = (int(names[hi.upper()]) if names and hi.upper() in names else int(hi)) if hi else (
                high if step else start)
        if not low <= start <= end <= high:
            raise ValueError(f"cron field {text!r} out of range {low}-{high}")
        values.update(range(start, end + 1, int(step) if step else 1))
    return values


def cron_matches(expression: str) -> Any:
    """A predicate over local datetimes for an EventBridge `cron(min hour dom month dow year)` expression."""
    match = re.fullmatch(r"cron\((.+)\)", expression)
    assert match, expression
    fields = match.group(1).split()
    assert len(fields) == 6, "EventBridge cron has six fields"
    minute, hour = _cron_field(fields[0], 0, 59), _cron_field(fields[1], 0, 23)
    dom, month = _cron_field(fields[2], 1, 31), _cron_field(fields[3], 1, 12, _CRON_NAMES["month"])
    dow = _cron_field(fields[4], 1, 7, _CRON_NAMES["dow"])
    years = _cron_field(fields[5], 1970, 2199)
    assert (dom is None) != (dow is None), "exactly one of day-of-month and day-of-week must be '?'"

    def fires(t: datetime) -> bool:
        aws_dow = (t.isoweekday() % 7) + 1  # SUN=1 .. SAT=7
        return bool(
            minute and t.minute in minute and hour and t.hour in hour and month and t.month in month
            and years and t.year in years
            and (dom is None or t.day in dom) and (dow is None or aws_dow in dow)
        )

    return fires


def test_cron_helper_rejects_and_accepts_what_eventbridge_would() -> None:
    assert cron_matches("cron(0 1 ? * 2 *)")(datetime(2026, 6, 15, 1, 0))  # 2 = Monday
    assert not cron_matches("cron(0 1 ? * SUN *)")(datetime(2026, 6, 15, 1, 0))
    with pytest.raises(AssertionError):
        cron_matches("cron(0 1 * * MON *)")
    with pytest.raises(ValueError):
        cron_matches("cron(0 25 ? * MON *)")


def test_weekly_schedule_fires_once_a_week_on_monday_0100_in_the_parameter_timezone() -> None:
    event = props("PlanFunction")["Events"]["Weekly"]
    assert event["Type"] == "ScheduleV2"
    schedule = event["Properties"]
    assert schedule["ScheduleExpressionTimezone"] == {"Ref": "ScheduleTimezone"}
    ZoneInfo(load_template()["Parameters"]["ScheduleTimezone"]["Default"])  # a real zone
    fires = cron_matches(schedule["ScheduleExpression"])
    start = datetime(2026, 6, 15)  # a Monday
    hits = [start + timedelta(minutes=m) for m in range(14 * 24 * 60) if fires(start + timedelta(minutes=m))]
    assert hits == [datetime(2026, 6, 15, 1, 0), datetime(2026, 6, 22, 1, 0)]
    # No repo: every configured repository. Scheduler fills in its context attribute, the scheduled time.
    assert json.loads(schedule["Input"]) == {"time": "<aws.scheduler.scheduled-time>"}
    assert "StackName" in json.dumps(schedule["Name"])  # unique per account when two stacks coexist


def test_plan_turns_the_weekly_input_into_last_weeks_run_for_every_watched_repo() -> None:
    from prhub.core.config import WatchList
    from prhub.flow import plan

    template = load_template()
    text = template["Resources"]["PlanFunction"]["Properties"]["Events"]["Weekly"]["Properties"]["Input"]
    event = json.loads(text.replace("<aws.scheduler.scheduled-time>", "2026-06-21T17:00:00Z"))  # Mon 01:00 +08
    watchlist = WatchList.parse(template["Parameters"]["WatchedRepositories"]["Default"])
    later = datetime(2026, 6, 23, tzinfo=ZoneInfo("UTC"))  # a late retry still plans the scheduled week
    requests = plan.parse_plan_event(event, lambda: watchlist, later)
    assert [r.config.repo for r in requests] == [c.repo for c in watchlist.repos]
    assert {(str(r.period.since), str(r.period.until)) for r in requests} == {("2026-06-15", "2026-06-21")}


def test_a_scheduled_plan_that_keeps_failing_is_kept() -> None:
    config = props("PlanFunction")["EventInvokeConfig"]
    on_failure = config["DestinationConfig"]["OnFailure"]
    assert on_failure == {"Type": "SQS", "Destination": {"Fn::GetAtt": ["PlanDLQ", "Arn"]}}
    assert 0 <= config["MaximumRetryAttempts"] <= 2
    assert props("PlanDLQ")["SqsManagedSseEnabled"] is True
    assert refs(load_template()["Outputs"]["PlanDLQUrl"]["Value"]) == {"PlanDLQ"}


def test_sweep_schedule_finishes_stuck_runs() -> None:
    event = props("ReportFunction")["Events"]["Sweep"]
    assert event["Type"] == "ScheduleV2"
    schedule = event["Properties"]
    match = re.fullmatch(r"rate\((\d+) minutes?\)", schedule["ScheduleExpression"])
    assert match and int(match.group(1)) == 15
    assert json.loads(schedule["Input"]) == {"sweep": True, "older_than_minutes": 30}
    assert "StackName" in json.dumps(schedule["Name"])


# ------------------------------------------------------------------ queues


def _mapping(queue: str) -> dict[str, Any]:
    found = [m["Properties"] for m in resources("AWS::Lambda::EventSourceMapping").values()
             if refs(m["Properties"]["EventSourceArn"]) == {queue}]
    assert len(found) == 1, f"exactly one trigger on {queue}"
    return found[0]


def test_score_queue_trigger() -> None:
    mapping = _mapping("ScoreQueue")
    assert mapping["FunctionName"] == {"Ref": "ScoreFunction"}
    assert mapping["BatchSize"] == 10
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    limit = mapping["ScalingConfig"]["MaximumConcurrency"]
    if isinstance(limit, dict):
        param = load_template()["Parameters"][limit["Ref"]]
        assert 2 <= param["Default"] <= 20 and param["MaxValue"] <= 1000
    else:
        assert 2 <= limit <= 20


def test_report_queue_trigger() -> None:
    mapping = _mapping("ReportQueue")
    assert mapping["FunctionName"] == {"Ref": "ReportFunction"}
    assert mapping["BatchSize"] == 1
    assert function_setting("ReportFunction", "MemorySize") == 1024


def test_plan_queue_trigger() -> None:
    """A listing's continuation: one per invocation, which it takes most of."""
    mapping = _mapping("PlanQueue")
    assert mapping["FunctionName"] == {"Ref": "PlanFunction"} and mapping["BatchSize"] == 1


@pytest.mark.parametrize("queue", ["ScoreQueue", "ReportQueue", "PlanQueue"])
def test_partial_batch_answers_are_honoured(queue: str) -> None:
    """A handler that answers failures as batchItemFailures (Powertools' process_partial_response) needs
    ReportBatchItemFailures on its trigger, else Lambda takes the answer for success and deletes the messages."""
    mapping = _mapping(queue)
    function = mapping["FunctionName"]["Ref"]
    app = ROOT / props(function)["CodeUri"] / "app.py"
    if not app.exists():
        pytest.skip(f"{app} is not written yet")
    if "process_partial_response" in app.read_text() or "batchItemFailures" in app.read_text():
        assert mapping.get("FunctionResponseTypes") == ["ReportBatchItemFailures"], function


def test_no_function_uses_a_sam_sqs_event() -> None:
    """A SAM SQS event would attach AWSLambdaSQSQueueExecutionRole (receive/delete on every queue)."""
    for function in FUNCTIONS:
        assert all(e["Type"] != "SQS" for e in props(function).get("Events", {}).values()), function


@pytest.mark.parametrize(("queue", "dlq", "function"), [("ScoreQueue", "ScoreDLQ", "ScoreFunction"),
                                                        ("PlanQueue", "PlanDLQ", "PlanFunction"),
                                                        ("ReportQueue", "ReportDLQ", "ReportFunction"),
                                                        ("DeliveryQueue", "DeliveryDLQ", "DeliveryFunction")])
def test_queue_redrive_and_visibility(queue: str, dlq: str, function: str) -> None:
    q = props(queue)
    assert q["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": [dlq, "Arn"]}, "maxReceiveCount": 3}
    # AWS's guidance for Lambda triggers: visibility at least six times the function timeout.
    assert q["VisibilityTimeout"] >= 6 * function_setting(function, "Timeout")
    assert q["SqsManagedSseEnabled"] is True and props(dlq)["SqsManagedSseEnabled"] is True
    assert props(dlq)["MessageRetentionPeriod"] >= q.get("MessageRetentionPeriod", 345600)


def test_a_delivery_claim_outlives_its_worker_and_ends_before_the_message_comes_back() -> None:
    from prhub.notify.ledger import LEASE_SECONDS

    assert function_setting("DeliveryFunction", "Timeout") < LEASE_SECONDS < props("DeliveryQueue")["VisibilityTimeout"]
    mapping = props("DeliveryQueueMapping")
    assert mapping["FunctionName"] == {"Ref": "DeliveryFunction"}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]  # one channel fails alone


DLQS = ("ScoreDLQ", "ReportDLQ", "PagesDLQ", "PlanDLQ", "SweepDLQ", "DeliveryDLQ")
TOPIC = {"Fn::If": ["HasAlarmEmail", [{"Ref": "AlarmTopic"}], {"Ref": "AWS::NoValue"}]}


def _alarms_on(dimension: dict[str, Any]) -> list[dict[str, Any]]:
    return [a["Properties"] for a in resources("AWS::CloudWatch::Alarm").values()
            if dimension in a["Properties"].get("Dimensions", [])]


def test_every_queue_that_keeps_failures_is_a_dead_letter_queue_with_an_alarm() -> None:
    queues = set(resources("AWS::SQS::Queue"))
    assert queues - {"ScoreQueue", "ReportQueue", "PagesQueue", "DeliveryQueue", "PlanQueue"} == set(DLQS)


@pytest.mark.parametrize("dlq", DLQS)
def test_every_dead_letter_queue_raises_an_alarm(dlq: str) -> None:
    alarms = _alarms_on({"Name": "QueueName", "Value": {"Fn::GetAtt": [dlq, "QueueName"]}})
    assert len(alarms) == 1, dlq
    alarm = alarms[0]
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS", "ApproximateNumberOfMessagesVisible")
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold" and alarm["Threshold"] == 0  # one message is enough
    assert alarm["AlarmActions"] == TOPIC


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_error_raises_an_alarm(function: str) -> None:
    [alarm] = _alarms_on({"Name": "FunctionName", "Value": {"Ref": function}})
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == ("AWS/Lambda", "Errors", "Sum")
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold" and alarm["Threshold"] == 0
    assert alarm["Period"] * alarm["EvaluationPeriods"] <= 900 and alarm["TreatMissingData"] == "notBreaching"


def test_every_alarm_tells_the_topic() -> None:
    alarms = resources("AWS::CloudWatch::Alarm")
    assert len(alarms) == 17
    for name, alarm in alarms.items():
        assert alarm["Properties"]["AlarmActions"] == TOPIC, name
        assert alarm["Properties"]["AlarmDescription"], name


def test_a_failed_sweep_is_kept_and_alarmed_on() -> None:
    config = props("ReportFunction")["EventInvokeConfig"]
    assert config["DestinationConfig"]["OnFailure"] == {"Type": "SQS",
                                                        "Destination": {"Fn::GetAtt": ["SweepDLQ", "Arn"]}}
    assert config["MaximumRetryAttempts"] == 0  # the next sweep is 15 minutes away
    schedule = props("ReportFunction")["Events"]["Sweep"]["Properties"]
    assert schedule["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["SweepDLQ", "Arn"]}}
    assert schedule["RetryPolicy"]["MaximumEventAgeInSeconds"] <= 900
    assert props("PlanFunction")["Events"]["Weekly"]["Properties"]["DeadLetterConfig"] == {
        "Arn": {"Fn::GetAtt": ["PlanDLQ", "Arn"]}}
    # The sweep's own report of runs it could not finish (a custom metric).
    [alarm] = [a["Properties"] for a in resources("AWS::CloudWatch::Alarm").values()
               if a["Properties"].get("MetricName") == "SweepFailures"]
    assert (alarm["Namespace"], alarm["Dimensions"]) == (METRICS_NAMESPACE, [SERVICE_DIMENSION])
    assert alarm["Threshold"] == 0 and alarm["ComparisonOperator"] == "GreaterThanThreshold"
    assert refs(load_template()["Outputs"]["SweepDLQUrl"]["Value"]) == {"SweepDLQ"}


def test_runs_planned_but_not_reported_by_the_end_of_the_day_raise_an_alarm() -> None:
    alarm = props("ReportsMissingAlarm")
    queries = {q["Id"]: q for q in alarm["Metrics"]}
    [watched] = [q for q in queries.values() if q.get("ReturnData")]
    assert re.fullmatch(r"FILL\((\w+), 0\) - FILL\((\w+), 0\)", watched["Expression"])
    planned, reported = re.findall(r"FILL\((\w+)", watched["Expression"])
    for query, name in ((queries[planned], "RunsPlanned"), (queries[reported], "RunsReported")):
        stat = query["MetricStat"]
        assert stat["Metric"] == {"Namespace": METRICS_NAMESPACE, "MetricName": name, "Dimensions": [SERVICE_DIMENSION]}
        assert (stat["Stat"], stat["Period"]) == ("Sum", 86400) and query["ReturnData"] is False
    # Days as the schedule counts them: midnight to midnight in its zone, each judged once it is over.
    assert alarm["EvaluationWindow"] == {"WallClockWindow": {"Timezone": {"Ref": "ScheduleTimezone"}}}
    assert alarm["EvaluationPeriods"] == 1 and alarm["Threshold"] == 0
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold" and alarm["TreatMissingData"] == "notBreaching"


# ------------------------------------------------------------------ metrics and the dashboard

METRICS_NAMESPACE = {"Fn::FindInMap": ["Metrics", "Emf", "Namespace"]}
SERVICE_DIMENSION = {"Name": "service", "Value": {"Fn::FindInMap": ["Metrics", "Emf", "Service"]}}
OPERATOR_METRICS = ["RunsPlanned", "RunsReported", "PrsScored", "PrsDeferred", "PrsUnscored", "GitHubRequests",
                    "RateLimitWaits", "ModelCalls", "ModelFallbacks", "ReportSeconds", "Deliveries", "SweepFailures",
                    "ScheduleEventsRefused", "DigestFailures", "PlansFailed", "MessagesDropped", "ReportsSuperseded"]
# Each counts something that went wrong and that no DLQ alarm sees: each has an alarm of its own.
# ReportsSuperseded is none: a stale revision kept from replacing a better report is the guarantee holding.
FAILURE_METRICS = ["SweepFailures", "ScheduleEventsRefused", "DigestFailures", "PlansFailed", "MessagesDropped"]


def metric_catalogue() -> dict[str, Any]:
    return load_template()["Mappings"]["Metrics"]["Emf"]


def test_the_metric_catalogue_is_what_powertools_emits_with_the_functions_environment() -> None:
    catalogue = metric_catalogue()
    assert catalogue["Names"] == OPERATOR_METRICS
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert (env["POWERTOOLS_METRICS_NAMESPACE"], env["POWERTOOLS_SERVICE_NAME"]) == (
        catalogue["Namespace"], catalogue["Service"])
    from aws_lambda_powertools import Metrics
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = Metrics(namespace=env["POWERTOOLS_METRICS_NAMESPACE"], service=env["POWERTOOLS_SERVICE_NAME"])
    for name in catalogue["Names"]:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
    emf = metrics.serialize_metric_set()
    [directive] = emf["_aws"]["CloudWatchMetrics"]
    # What the alarms and the dashboard must ask for: this namespace, this one dimension and its value.
    assert directive["Namespace"] == catalogue["Namespace"]
    assert directive["Dimensions"] == [["service"]] and emf["service"] == catalogue["Service"]
    assert [m["Name"] for m in directive["Metrics"]] == catalogue["Names"]


def dashboard() -> dict[str, Any]:
    """The dashboard body as CloudFormation would render it, with placeholders for attributes."""
    text, variables = props("Dashboard")["DashboardBody"]["Fn::Sub"]
    assert variables == {"Namespace": METRICS_NAMESPACE, "Service": SERVICE_DIMENSION["Value"]}
    catalogue = metric_catalogue()
    values = {"Namespace": catalogue["Namespace"], "Service": catalogue["Service"]}
    resolved = re.sub(r"\$\{([^}]+)\}", lambda m: values.get(m.group(1), "<" + m.group(1) + ">"), text)
    return json.loads(resolved)


def test_the_dashboard_shows_every_operator_metric_every_function_every_dlq_and_every_alarm() -> None:
    body = dashboard()
    catalogue = metric_catalogue()
    shown: set[tuple[str, str]] = set()
    for widget in body["widgets"]:
        assert {"x", "y", "width", "height"} <= set(widget) and widget["x"] + widget["width"] <= 24
        for line in widget["properties"].get("metrics", []):
            namespace, name, *dimensions = [part for part in line if not isinstance(part, dict)]
            shown.add((namespace, name))
            if namespace == catalogue["Namespace"]:
                assert name in catalogue["Names"] and dimensions == ["service", catalogue["Service"]], line
            if namespace == "AWS/Lambda":
                assert dimensions[0] == "FunctionName" and dimensions[1].strip("<>") in FUNCTIONS
            if namespace == "AWS/SQS":
                assert dimensions[1].strip("<>").removesuffix(".QueueName") in DLQS
    assert {n for ns, n in shown if ns == catalogue["Namespace"]} == set(catalogue["Names"])
    lines = [line[0] for w in body["widgets"] for line in w["properties"].get("metrics", [])]
    assert lines.count("AWS/Lambda") == len(FUNCTIONS) and lines.count("AWS/SQS") == len(DLQS)
    [alarm_widget] = [w for w in body["widgets"] if w["type"] == "alarm"]
    assert {a.strip("<>").removesuffix(".Arn") for a in alarm_widget["properties"]["alarms"]} == set(
        resources("AWS::CloudWatch::Alarm"))
    assert "DashboardUrl" in load_template()["Outputs"]


@pytest.mark.parametrize("metric", FAILURE_METRICS)
def test_every_failure_count_raises_an_alarm(metric: str) -> None:
    [alarm] = [a["Properties"] for a in resources("AWS::CloudWatch::Alarm").values()
               if a["Properties"].get("MetricName") == metric]
    assert alarm["Namespace"] == METRICS_NAMESPACE and alarm["Dimensions"] == [SERVICE_DIMENSION]
    assert alarm["Statistic"] == "Sum" and alarm["Threshold"] == 0
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold" and alarm["TreatMissingData"] == "notBreaching"
    assert alarm["AlarmActions"] == TOPIC


def test_the_alarm_topic_is_encrypted_with_a_key_cloudwatch_may_use() -> None:
    # CloudWatch cannot publish to a topic under the AWS-managed alias/aws/sns (its key policy cannot name
    # cloudwatch.amazonaws.com): the stack's own key, rotated, whose policy lets CloudWatch encrypt for SNS.
    topic = resources()["AlarmTopic"]
    key_ref = topic["Properties"]["KmsMasterKeyId"]
    [key_name] = refs(key_ref)
    key = resources()[key_name]
    assert key["Type"] == "AWS::KMS::Key" and key["Condition"] == topic["Condition"] == "HasAlarmEmail"
    assert key["Properties"]["EnableKeyRotation"] is True
    statements = key["Properties"]["KeyPolicy"]["Statement"]
    [cloudwatch] = [s for s in statements if s.get("Principal", {}).get("Service") == "cloudwatch.amazonaws.com"]
    assert set(as_list(cloudwatch["Action"])) == {"kms:Decrypt", "kms:GenerateDataKey*"}
    assert cloudwatch["Effect"] == "Allow" and cloudwatch["Resource"] == "*"  # a key policy's own key
    [account] = [s for s in statements if "AWS" in s.get("Principal", {})]
    assert "AWS::AccountId" in json.dumps(account["Principal"])  # the account keeps the key manageable


def test_the_weekly_schedule_and_plans_retries_have_their_limits_and_dead_letter_queue() -> None:
    weekly = props("PlanFunction")["Events"]["Weekly"]["Properties"]
    # Scheduler retries an invocation it could not make for up to a day, then PlanDLQ
    assert weekly["RetryPolicy"]["MaximumRetryAttempts"] >= 2
    assert 3600 <= weekly["RetryPolicy"]["MaximumEventAgeInSeconds"] <= 86400
    assert weekly["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["PlanDLQ", "Arn"]}}
    # Lambda retries a failed asynchronous plan within hours, then PlanDLQ (plan.MAX_EVENT_AGE allows its redrive)
    config = props("PlanFunction")["EventInvokeConfig"]
    assert 3600 <= config["MaximumEventAgeInSeconds"] <= 21600
    # A repository retried alone goes through PlanQueue: its redrive ends in PlanDLQ too
    assert props("PlanQueue")["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["PlanDLQ", "Arn"]}
    from prhub.flow import plan

    visibility = props("PlanQueue")["VisibilityTimeout"]
    assert plan.RETRY_DELAY <= plan.MAX_DELAY <= 900 and visibility >= 6 * props("PlanFunction")["Timeout"]


def test_every_custom_metric_an_alarm_reads_is_in_the_catalogue() -> None:
    names = set(metric_catalogue()["Names"])
    for name, alarm in resources("AWS::CloudWatch::Alarm").items():
        stats = [alarm["Properties"]] + [q["MetricStat"]["Metric"] for q in alarm["Properties"].get("Metrics", [])
                                         if "MetricStat" in q]
        for stat in stats:
            if stat.get("Namespace") == METRICS_NAMESPACE:
                assert stat["MetricName"] in names and stat["Dimensions"] == [SERVICE_DIMENSION], name


DEPLOY_DOC = ROOT / "docs" / "deploy.md"


def test_deploy_doc_explains_every_alarm_and_lists_every_metric() -> None:
    text = DEPLOY_DOC.read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+Alarm)` \| (.+) \|$", text, re.M)}
    assert set(rows) == set(resources("AWS::CloudWatch::Alarm"))
    assert all(len(row.split(" | ")) == 2 for row in rows.values()), "each alarm says what it means and what to do"
    listed = re.findall(r"^\| `(\w+)` \| (?:Count|Seconds) \|", text, re.M)
    assert listed == metric_catalogue()["Names"]
    assert f"`{metric_catalogue()['Namespace']}`" in text and f"`service={metric_catalogue()['Service']}`" in text


NUMBERS = {w: n for n, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                        "ten", "eleven", "twelve"])}


def test_deploy_doc_counts_and_names_what_the_template_has() -> None:
    # The overview counts what the template declares and names each function and table.
    text = DEPLOY_DOC.read_text(encoding="utf-8")
    overview = text.split("\n\n")[1].replace("\n", " ")
    functions = [f.removesuffix("Function").lower() for f in resources("AWS::Serverless::Function")]
    tables = [t.removesuffix("Table").lower() for t in resources("AWS::DynamoDB::Table")]
    queues = resources("AWS::SQS::Queue")
    match = re.search(r"(\w+) functions \(([^)]+)\), (\w+) SQS queues \((\w+) work queues and (\w+) dead-letter "
                      r"queues\), (\w+) DynamoDB tables \(([^)]+)\).*?(\w+) schedules", overview)
    assert match, overview
    assert NUMBERS[match.group(1)] == len(functions) and sorted(match.group(2).split(", ")) == sorted(functions)
    assert NUMBERS[match.group(3)] == len(queues)
    assert NUMBERS[match.group(5)] == len(DLQS) and NUMBERS[match.group(4)] == len(queues) - len(DLQS)
    assert NUMBERS[match.group(6)] == len(tables) and sorted(match.group(7).split(", ")) == sorted(tables)
    schedules = [e for f in resources("AWS::Serverless::Function").values()
                 for e in f["Properties"].get("Events", {}).values() if e["Type"] == "ScheduleV2"]
    assert NUMBERS[match.group(8)] == len(schedules)
    # Elsewhere: "the N queues" counts them all, and "the X table" is one the template has (or the price table).
    for word in re.findall(r"\bthe (\w+) queues\b", text):
        if word in NUMBERS:
            assert NUMBERS[word] == len(queues), word
    for word in re.findall(r"\bthe (\w+) table\b", text):
        assert word in tables or word == "price", f"deploy.md names a {word} table the template does not have"
    # The IAM table has a row per function.
    rows = re.findall(r"^  \| (\w+) \| .+ \|$", text, re.M)
    assert sorted(r.lower() for r in rows if r not in ("Function",)) == sorted(functions)


# ------------------------------------------------------------------ access logging (optional)


def render(**decided: bool) -> dict[str, Any]:
    """template.yaml with the named conditions decided, as CloudFormation would see it: their Fn::If resolved,
    their resources and outputs kept or dropped, AWS::NoValue removed."""
    template = load_template()
    novalue = {"Ref": "AWS::NoValue"}

    def resolve(value: Any, argument: bool = False) -> Any:
        if isinstance(value, dict):
            if list(value) == ["Fn::If"] and value["Fn::If"][0] in decided:
                name, yes, no = value["Fn::If"]
                return resolve(yes if decided[name] else no)
            out = {k: resolve(v, argument=k.startswith("Fn::")) for k, v in value.items()}
            return {k: v for k, v in out.items() if v != novalue}
        if isinstance(value, list):  # an intrinsic's arguments keep their AWS::NoValue (an undecided Fn::If)
            return [v for v in (resolve(v) for v in value) if argument or v != novalue]
        return value

    for section in ("Resources", "Outputs"):
        for name, entry in list(template.get(section, {}).items()):
            condition = entry.get("Condition")
            if condition in decided:
                if decided[condition]:
                    del entry["Condition"]
                else:
                    del template[section][name]
    for name in decided:
        del template["Conditions"][name]
    return resolve(template)  # type: ignore[no-any-return]


def test_access_logging_is_a_parameter_off_by_default() -> None:
    param = load_template()["Parameters"]["AccessLogging"]
    assert (param["Default"], param["AllowedValues"]) == ("Disabled", ["Enabled", "Disabled"])
    assert load_template()["Conditions"]["HasAccessLogs"] == {"Fn::Equals": [{"Ref": "AccessLogging"}, "Enabled"]}


@pytest.mark.parametrize("enabled", [False, True], ids=["off", "on"])
def test_both_access_logging_settings_render_lint_clean_templates(enabled: bool) -> None:
    rendered = render(HasAccessLogs=enabled)
    assert "HasAccessLogs" not in json.dumps(rendered)
    matches = lint(json.dumps(rendered), config=ManualArgs(regions=["us-east-1", "eu-west-1"]))
    assert [str(m) for m in matches] == []
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator

    for resource in rendered["Resources"].values():
        for key in ("CodeUri", "ContentUri"):
            if key in resource.get("Properties", {}):
                resource["Properties"][key] = "s3://bucket/key"
    out = Translator(None, Parser(), boto_session=boto3.session.Session(region_name="us-east-1")).translate(
        rendered, parameter_values={}, get_managed_policy_map=lambda: {})["Resources"]
    site = out["SiteBucket"]["Properties"]
    distribution = out["SiteDistribution"]["Properties"]["DistributionConfig"]
    if not enabled:
        assert "AccessLogBucket" not in out and "AccessLogBucketPolicy" not in out
        assert "LoggingConfiguration" not in site and "Logging" not in distribution
        return
    assert site["LoggingConfiguration"] == {"DestinationBucketName": {"Ref": "AccessLogBucket"}, "LogFilePrefix": "s3/"}
    assert distribution["Logging"] == {"Bucket": {"Fn::GetAtt": ["AccessLogBucket", "DomainName"]},
                                       "Prefix": "cloudfront/", "IncludeCookies": False}
    logs = out["AccessLogBucket"]["Properties"]
    # CloudFront's standard logging writes through an ACL: the bucket must not be BucketOwnerEnforced.
    assert logs["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerPreferred"}]
    assert all(logs["PublicAccessBlockConfiguration"].values())
    rule = logs["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    assert rule["SSEAlgorithm"] == "AES256"  # CloudFront cannot write standard logs to an SSE-KMS bucket
    assert logs["LifecycleConfiguration"]["Rules"][0]["ExpirationInDays"] == {"Ref": "LogRetentionDays"}
    assert out["AccessLogBucket"]["DeletionPolicy"] == "Retain"
    statements = out["AccessLogBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    [allow] = [s for s in statements if s["Effect"] == "Allow"]
    assert allow["Principal"] == {"Service": "logging.s3.amazonaws.com"} and allow["Action"] == "s3:PutObject"
    assert allow["Resource"] == {"Fn::Sub": "${AccessLogBucket.Arn}/s3/*"}
    assert allow["Condition"]["ArnLike"]["aws:SourceArn"] == {"Fn::GetAtt": ["SiteBucket", "Arn"]}
    assert [s["Condition"]["Bool"] for s in statements if s["Effect"] == "Deny"] == [{"aws:SecureTransport": "false"}]


def test_alarm_mail_is_optional() -> None:
    template = load_template()
    assert template["Parameters"]["AlarmEmail"]["Default"] == ""
    assert resources()["AlarmTopic"]["Condition"] == "HasAlarmEmail"
    assert template["Conditions"]["HasAlarmEmail"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmEmail"}, ""]}]}


def test_every_queue_refuses_plain_http() -> None:
    queues = set(resources("AWS::SQS::Queue"))
    covered: set[str] = set()
    for policy in resources("AWS::SQS::QueuePolicy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if statement["Effect"] == "Deny" and statement["Condition"]["Bool"]["aws:SecureTransport"] == "false":
                assert statement["Principal"] == "*" and statement["Action"] in ("sqs:*", ["sqs:*"])
                covered |= refs(statement["Resource"]) & refs(policy["Properties"]["Queues"])
    assert covered == queues


# ------------------------------------------------------------------ tables


@pytest.mark.parametrize(
    ("table", "keys", "ttl", "pitr"),
    [
        ("RunsTable", [("run_id", "S", "HASH")], "expires_at", True),
        ("ResultsTable", [("run_id", "S", "HASH"), ("number", "N", "RANGE")], "expires_at", True),
        ("CacheTable", [("key", "S", "HASH")], "expires_at", False),
        ("IdempotencyTable", [("id", "S", "HASH")], "expiration", False),
        ("JudgementsTable", [("repo", "S", "HASH"), ("key", "S", "RANGE")], None, True),  # kept: no TTL
    ],
)
def test_table(table: str, keys: list[tuple[str, str, str]], ttl: str | None, pitr: bool) -> None:
    t = props(table)
    types = {a["AttributeName"]: a["AttributeType"] for a in t["AttributeDefinitions"]}
    assert [(k["AttributeName"], types[k["AttributeName"]], k["KeyType"]) for k in t["KeySchema"]] == keys
    assert t["BillingMode"] == "PAY_PER_REQUEST"
    assert t["SSESpecification"]["SSEEnabled"] is True
    if ttl:
        assert t["TimeToLiveSpecification"] == {"AttributeName": ttl, "Enabled": True}
    else:
        assert "TimeToLiveSpecification" not in t
    assert t.get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled", False) is pitr


def test_what_maintainers_said_outlives_the_stack() -> None:
    # Judgements (issue 27) cannot be read again: kept through a replacement, a redeploy and the stack's delete.
    table = load_template()["Resources"]["JudgementsTable"]
    assert table["DeletionPolicy"] == "Retain" and table["UpdateReplacePolicy"] == "Retain"


# ------------------------------------------------------------------ bucket and CloudFront


def test_bucket_is_private_and_encrypted() -> None:
    bucket = props("SiteBucket")
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True, "BlockPublicPolicy": True, "IgnorePublicAcls": True, "RestrictPublicBuckets": True}
    rule = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    assert rule["SSEAlgorithm"] in ("AES256", "aws:kms")
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert "WebsiteConfiguration" not in bucket and "AccessControl" not in bucket


def test_bucket_policy_is_tls_only_and_admits_only_this_distribution() -> None:
    policy = props("SiteBucketPolicy")
    assert policy["Bucket"] == {"Ref": "SiteBucket"}
    statements = policy["PolicyDocument"]["Statement"]
    denies = [s for s in statements if s["Effect"] == "Deny"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    tls = [s for s in denies if s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") in ("false", False)]
    assert len(tls) == 1 and tls[0]["Principal"] == "*" and tls[0]["Action"] in ("s3:*", ["s3:*"])
    assert {json.dumps(r) for r in tls[0]["Resource"]} == {
        json.dumps({"Fn::GetAtt": ["SiteBucket", "Arn"]}), json.dumps({"Fn::Sub": "${SiteBucket.Arn}/*"})}
    assert len(allows) == 1, "the only reader is CloudFront"
    allow = allows[0]
    assert allow["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert as_list(allow["Action"]) == ["s3:GetObject"]
    source = allow["Condition"]["StringEquals"]["AWS:SourceArn"]
    assert refs(source) == {"SiteDistribution"} and ":distribution/" in source["Fn::Sub"]


def test_distribution_reaches_the_bucket_only_through_oac() -> None:
    oac = props("SiteOAC")["OriginAccessControlConfig"]
    assert (oac["OriginAccessControlOriginType"], oac["SigningBehavior"], oac["SigningProtocol"]) == (
        "s3", "always", "sigv4")
    config = props("SiteDistribution")["DistributionConfig"]
    [origin] = config["Origins"]
    assert refs(origin["DomainName"]) == {"SiteBucket"} and "RegionalDomainName" in json.dumps(origin["DomainName"])
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": ["SiteOAC", "Id"]}
    assert origin["S3OriginConfig"].get("OriginAccessIdentity", "") == ""
    assert config["DefaultRootObject"] == "index.html"


def test_custom_domain_is_optional_and_tls12_only() -> None:
    template = load_template()
    params = template["Parameters"]
    assert params["SiteDomainName"]["Default"] == params["SiteCertificateArn"]["Default"] == ""
    condition = json.dumps(template["Conditions"]["HasSiteDomain"])
    assert "SiteDomainName" in condition and "SiteCertificateArn" in condition
    rule = template["Rules"]["DomainNeedsCertificate"]  # a domain without a certificate fails before any change
    assert refs(rule["RuleCondition"]) == {"SiteDomainName"}
    assert refs(rule["Assertions"][0]["Assert"]) == {"SiteCertificateArn"}
    config = props("SiteDistribution")["DistributionConfig"]
    assert config["Aliases"] == {"Fn::If": ["HasSiteDomain", [{"Ref": "SiteDomainName"}], {"Ref": "AWS::NoValue"}]}
    name, custom, default = config["ViewerCertificate"]["Fn::If"]
    assert name == "HasSiteDomain"
    assert custom == {"AcmCertificateArn": {"Ref": "SiteCertificateArn"}, "SslSupportMethod": "sni-only",
                      "MinimumProtocolVersion": "TLSv1.2_2021"}
    assert default == {"CloudFrontDefaultCertificate": True}


def test_distribution_is_https_only_with_security_headers() -> None:
    config = props("SiteDistribution")["DistributionConfig"]
    behaviors = [config["DefaultCacheBehavior"], *config.get("CacheBehaviors", [])]
    for behavior in behaviors:
        assert behavior["ViewerProtocolPolicy"] in ("redirect-to-https", "https-only")
        assert behavior["ResponseHeadersPolicyId"] == {"Ref": "SiteHeadersPolicy"}
        assert set(behavior.get("AllowedMethods", ["GET", "HEAD"])) <= {"GET", "HEAD", "OPTIONS"}
    assert config["HttpVersion"] == "http2and3"
    assert config["DefaultCacheBehavior"]["CachePolicyId"] == "658327ea-f89d-4fab-a63d-7e88639e58f6"
    [assoc] = config["DefaultCacheBehavior"]["FunctionAssociations"]
    assert assoc == {"EventType": "viewer-request", "FunctionARN": {"Fn::GetAtt": ["SiteIndexFunction", "FunctionARN"]}}

    headers = props("SiteHeadersPolicy")["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    csp = {d.split()[0]: d.split()[1:] for d in (p.strip() for p in headers["ContentSecurityPolicy"][
        "ContentSecurityPolicy"].split(";")) if d}
    assert csp["default-src"] == ["'self'"]
    assert csp["img-src"] == ["'self'", "data:"]
    assert csp["style-src"] == ["'self'", "'unsafe-inline'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert "script-src" not in csp or "'unsafe-inline'" not in csp["script-src"]
    assert headers["ContentSecurityPolicy"]["Override"] is True
    hsts = headers["StrictTransportSecurity"]
    assert hsts["AccessControlMaxAgeSec"] >= 31536000 and hsts["Override"] is True
    assert headers["ContentTypeOptions"]["Override"] is True
    assert headers["FrameOptions"]["FrameOption"] == "DENY"
    assert headers["ReferrerPolicy"]["ReferrerPolicy"] in ("no-referrer", "strict-origin-when-cross-origin",
                                                           "same-origin", "strict-origin")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_cloudfront_function_maps_directories_to_index_html(tmp_path: Path) -> None:
    function = props("SiteIndexFunction")
    assert function["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    assert function["AutoPublish"] is True
    cases = {
        "/": "/index.html",
        "/a/": "/a/index.html",
        "/a": "/a/index.html",
        "/verl-project/verl": "/verl-project/verl/index.html",
        "/o/r/reports/2026-06-15-to-2026-06-21/": "/o/r/reports/2026-06-15-to-2026-06-21/index.html",
        "/o/r/reports/2026-06-15-to-2026-06-21/report.pdf": "/o/r/reports/2026-06-15-to-2026-06-21/report.pdf",
        "/o/r/feed.xml": "/o/r/feed.xml",
        "/index.html": "/index.html",
        "/v1.2/notes": "/v1.2/notes/index.html",  # a dot in a folder name is not an extension
    }
    script = tmp_path / "run.js"
    script.write_text(
        function["FunctionCode"]
        + "\nconst uris = JSON.parse(process.argv[2]);\n"
        + "const out = uris.map(u => handler({request: {method: 'GET', uri: u, headers: {}, querystring: {}}}));\n"
        + "console.log(JSON.stringify(out));\n"
    )
    result = subprocess.run(["node", str(script), json.dumps(list(cases))], capture_output=True, text=True,
                            timeout=30, check=True)
    requests = json.loads(result.stdout)
    assert [r["uri"] for r in requests] == list(cases.values())
    assert all(r["method"] == "GET" for r in requests)  # the request is passed on, not answered
    # `prhub serve` applies the same rule locally: the two must not drift apart.
    from prhub.site.publish import rewrite

    assert [rewrite(u) for u in cases] == [r["uri"] for r in requests]


# ------------------------------------------------------------------ configuration and secrets


def test_watch_list_parameter() -> None:
    param = props("ConfigParameter")
    assert resources()["ConfigParameter"]["Type"] == "AWS::SSM::Parameter"
    assert param["Type"] == "String"
    assert param["Value"] == {"Ref": "WatchedRepositories"}
    json.loads(load_template()["Parameters"]["WatchedRepositories"]["Default"])


def test_secrets_are_named_not_stored() -> None:
    template = load_template()
    params = template["Parameters"]
    assert params["GitHubTokenSecretName"]["Default"] == "prhub/github-token"
    assert params["LlmApiKeySecretName"]["Default"] == "prhub/llm-api-key"
    # The channels' prefix ends in "/": "prhub/notify/*" cannot match prhub/github-token or prhub/notify-old.
    assert params["NotifySecretPrefix"]["Default"] == "prhub/notify/"
    pattern = re.compile(params["NotifySecretPrefix"]["AllowedPattern"])
    assert pattern.fullmatch("prhub/notify/") and not pattern.fullmatch("prhub") and not pattern.fullmatch("")
    assert not resources("AWS::SecretsManager::Secret"), "the stack never holds secret values"
    text = TEMPLATE.read_text()
    assert "resolve:secretsmanager" not in text and "resolve:ssm-secure" not in text  # would inline the value
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    for function in FUNCTIONS:
        env = env | props(function).get("Environment", {}).get("Variables", {})
    assert not {"GITHUB_TOKEN", "OPENAI_API_KEY"} & set(env), "values are read by name at run time"


SECRET_PATTERNS = [
    r"ghp_[A-Za-z0-9]{20,}", r"github_pat_[A-Za-z0-9_]{20,}", r"gh[ousr]_[A-Za-z0-9]{20,}",
    r"sk-[A-Za-z0-9_-]{20,}", r"AKIA[0-9A-Z]{16}", r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    # key = value with a long value that is not an ENV_VAR_NAME (those are how the stack names things)
    r"(?i:password|secret_access_key|api_key|token)\s*[:=]\s*['\"]?(?![A-Z0-9_]+\b)[A-Za-z0-9/+_-]{16,}",
]


def secret_looking(text: str) -> list[str]:
    return [m.group(0) for p in SECRET_PATTERNS for m in re.finditer(p, text)]


def test_the_secret_scanner_finds_what_it_should() -> None:
    fake = "ghp_" + "a1B2" * 9 + "\nkey: sk-" + "z" * 40 + "\napi_key = 'abcdefabcdefabcdef12'\nAKIA" + "A" * 16
    assert len(secret_looking(fake)) >= 4
    assert secret_looking("The GitHub token: GITHUB_TOKEN_SECRET names it") == []  # a name, not a value


def _shipped_files() -> list[Path]:
    """Tracked text files outside tests/ (whose fakes carry made-up tokens on purpose)."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    paths = [ROOT / name for name in listed.split("\n") if name and not name.startswith("tests/")]
    return [p for p in paths if p.is_file() and p.suffix not in (".pdf", ".png", ".otf", ".ttf", ".ttc")]


@pytest.mark.parametrize("path", [TEMPLATE, SAMCONFIG])
def test_no_secret_looking_literal(path: Path) -> None:
    assert secret_looking(path.read_text()) == []


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_secret_looking_literal_in_any_shipped_file() -> None:
    found = {}
    for path in _shipped_files():
        try:
            hits = secret_looking(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
        if hits:
            found[str(path.relative_to(ROOT))] = [h[:12] + "…" for h in hits]
    assert found == {}


def test_samconfig_environments() -> None:
    config = tomllib.loads(SAMCONFIG.read_text())
    declared = set(load_template()["Parameters"])
    for env in ("default", "prod"):
        deploy = config[env]["deploy"]["parameters"]
        stack = config[env].get("global", {}).get("parameters", {}) | deploy
        assert stack["stack_name"] and stack["region"]
        assert "CAPABILITY_IAM" in deploy["capabilities"]
        assert deploy["resolve_s3"] is True
        overrides = deploy["parameter_overrides"]
        pairs = dict(o.split("=", 1) for o in (overrides if isinstance(overrides, list) else overrides.split()))
        assert set(pairs) <= declared, set(pairs) - declared
        assert not any(k.lower().endswith(("token", "apikey", "password")) for k in pairs)
    assert config["default"]["global"]["parameters"]["stack_name"] != config["prod"]["global"]["parameters"][
        "stack_name"]


# ------------------------------------------------------------------ IAM (on the expanded template)


def test_each_function_has_its_own_role_assumed_only_by_lambda() -> None:
    out = expanded()["Resources"]
    roles = [out[f]["Properties"]["Role"]["Fn::GetAtt"][0] for f in FUNCTIONS]
    assert len(set(roles)) == len(FUNCTIONS)
    for role in roles:
        [statement] = out[role]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert statement["Principal"] == {"Service": ["lambda.amazonaws.com"]}


ALLOWED_MANAGED = {
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",  # its own logs
    "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",  # X-Ray has no resource-level permissions
}


def test_no_wildcard_action_or_resource_in_any_role() -> None:
    out = expanded()["Resources"]
    roles = {k: v for k, v in out.items() if v["Type"] == "AWS::IAM::Role"}
    assert len(roles) >= 6  # four functions + two schedules
    for name, role in roles.items():
        assert set(role["Properties"].get("ManagedPolicyArns", [])) <= ALLOWED_MANAGED, name
        for statement in role_statements(role):
            if statement["Effect"] != "Allow":
                continue
            for action in as_list(statement["Action"]):
                assert action != "*" and not action.endswith(":*"), (name, action)
            for resource in as_list(statement["Resource"]):
                assert resource != "*", (name, statement)
                assert refs(resource), f"{name}: {resource} names no resource of this stack"


# What each role may do, action by action: exactly what the function's code calls (recorded in
# tests/functional/test_iam_least_privilege.py), plus what Lambda does with the role on its behalf
# (the queue trigger's polling, the failure destination).
EXPECTED_GRANTS: dict[str, dict[str, set[str]]] = {
    "PlanFunction": {
        "ssm:GetParameter": {"ConfigParameter"},
        "dynamodb:PutItem": {"RunsTable", "CacheTable", "ResultsTable"},  # ResultsTable: a cached PR's result
        "dynamodb:UpdateItem": {"RunsTable"},  # an empty range, or one all cached, claims its report at once
        "dynamodb:GetItem": {"CacheTable", "RunsTable"},  # GitHub ETags; a listing's kept parts; the run's progress
        "dynamodb:BatchGetItem": {"CacheTable"},  # the score cache's results for the listed heads
        "dynamodb:BatchWriteItem": {"JudgementsTable"},  # the event's judgements (prhub run --judgements)
        "dynamodb:Query": {"JudgementsTable"},  # earlier weeks' judgements, for the learner
        # PlanDLQ: the failure destination; PlanQueue: a listing's continuation
        "sqs:SendMessage": {"ScoreQueue", "ReportQueue", "PlanQueue", "PlanDLQ"},
        "sqs:ReceiveMessage": {"PlanQueue"}, "sqs:DeleteMessage": {"PlanQueue"},
        "sqs:GetQueueAttributes": {"PlanQueue"},
        # the model's key: whether the workers score with the model decides which cached results the plan stores
        "secretsmanager:GetSecretValue": {"GitHubTokenSecretName", "LlmApiKeySecretName"},
        "s3:GetObject": {"ExportBucket"},  # a jsonl:s3:// source, where ExportBucket is set
    },
    "ScoreFunction": {
        "sqs:ReceiveMessage": {"ScoreQueue"}, "sqs:DeleteMessage": {"ScoreQueue"},
        "sqs:GetQueueAttributes": {"ScoreQueue"}, "sqs:ChangeMessageVisibility": {"ScoreQueue"},
        "sqs:SendMessage": {"ScoreQueue", "ReportQueue"},  # a deferred PR; the report request
        "dynamodb:GetItem": {"RunsTable", "CacheTable"},
        "dynamodb:BatchGetItem": {"CacheTable"},  # a PR's model result and its stand-in, in one read
        "dynamodb:UpdateItem": {"RunsTable"},
        "dynamodb:PutItem": {"ResultsTable", "CacheTable"},
        # key_labels / minor_labels: a label judgement kept, or forgotten once the label is gone
        "dynamodb:BatchWriteItem": {"JudgementsTable"}, "dynamodb:DeleteItem": {"JudgementsTable"},
        "secretsmanager:GetSecretValue": {"GitHubTokenSecretName", "LlmApiKeySecretName"},
        "s3:GetObject": {"ExportBucket"},  # the run's jsonl:s3:// source, where ExportBucket is set
    },
    "ReportFunction": {
        "sqs:ReceiveMessage": {"ReportQueue"}, "sqs:DeleteMessage": {"ReportQueue"},
        "sqs:GetQueueAttributes": {"ReportQueue"},
        # the sweep's failure destination; the PR pages' batches; one message per channel
        "sqs:SendMessage": {"SweepDLQ", "PagesQueue", "DeliveryQueue", "ReportQueue"},  # ReportQueue: revisions
        "dynamodb:GetItem": {"RunsTable", "IdempotencyTable", "CacheTable"},
        "dynamodb:UpdateItem": {"RunsTable", "IdempotencyTable"},
        "dynamodb:Scan": {"RunsTable"},  # the sweep
        # JudgementsTable: prs[].judged; the index: which run's report a folder holds (Store.superseding)
        "dynamodb:Query": {"ResultsTable", "JudgementsTable", "RunsTable/index/ReportKeyIndex"},
        "dynamodb:PutItem": {"IdempotencyTable", "CacheTable"},
        "dynamodb:DeleteItem": {"IdempotencyTable"},
        "s3:ListBucket": {"SiteBucket"}, "s3:PutObject": {"SiteBucket"},
        # ExportBucket: the dashboard's weeks no run listed, from a jsonl:s3:// run's export (flow.pages.year)
        "s3:GetObject": {"SiteBucket", "ExportBucket"},
        "cloudfront:CreateInvalidation": {"SiteDistribution"},
        # the narrative's model; GitHub, for the dashboard's weeks no run listed
        "secretsmanager:GetSecretValue": {"LlmApiKeySecretName", "GitHubTokenSecretName"},
        "ssm:GetParameter": {"ConfigParameter"},  # the repository's configured language (site folders)
    },
    "PagesFunction": {
        "sqs:ReceiveMessage": {"PagesQueue"}, "sqs:DeleteMessage": {"PagesQueue"},
        "sqs:GetQueueAttributes": {"PagesQueue"}, "sqs:SendMessage": {"PagesQueue"},  # the rest, near the deadline
        "ssm:GetParameter": {"ConfigParameter"},  # the module map, to group a PR's files
        "s3:ListBucket": {"SiteBucket"}, "s3:GetObject": {"SiteBucket"}, "s3:PutObject": {"SiteBucket"},
        "cloudfront:CreateInvalidation": {"SiteDistribution"},
    },
    "DeliveryFunction": {
        "sqs:ReceiveMessage": {"DeliveryQueue"}, "sqs:DeleteMessage": {"DeliveryQueue"},
        "sqs:GetQueueAttributes": {"DeliveryQueue"},
        "sqs:SendMessage": {"DeliveryQueue"},  # a delayed copy for a channel that asks for a long wait
        "dynamodb:GetItem": {"DeliveriesTable"}, "dynamodb:UpdateItem": {"DeliveriesTable"},
        "s3:GetObject": {"SiteBucket"},
        # the channels' secrets, and the GitHub token a github channel posts with by default
        "secretsmanager:GetSecretValue": {"NotifySecretPrefix", "GitHubTokenSecretName"},
        "ses:SendEmail": {"NotifyEmailIdentity"},
    },
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_role_grants_exactly_what_its_function_needs(function: str) -> None:
    assert grants(function) == EXPECTED_GRANTS[function]


def test_the_report_function_cannot_delete_or_reconfigure_the_site() -> None:
    for action in ("s3:DeleteObject", "s3:DeleteObjectVersion", "s3:PutObjectAcl", "s3:PutBucketAcl",
                   "s3:PutLifecycleConfiguration", "s3:PutBucketPolicy", "s3:DeleteBucket", "s3:PutBucketVersioning"):
        assert not can("ReportFunction", action), action


def test_s3_grants_name_the_bucket_for_listing_and_its_objects_for_reading_and_writing() -> None:
    for statement in role_statements(function_role("ReportFunction")):
        actions = set(as_list(statement["Action"]))
        if "s3:ListBucket" in actions:
            assert actions == {"s3:ListBucket"} and statement["Resource"] == {"Fn::GetAtt": ["SiteBucket", "Arn"]}
        elif refs(statement["Resource"]) == {"ExportBucket"}:  # a run's export: read only
            assert actions == {"s3:GetObject"}
        elif any(a.startswith("s3:") for a in actions):
            assert actions == {"s3:GetObject", "s3:PutObject"}
            assert statement["Resource"] == {"Fn::Sub": "${SiteBucket.Arn}/*"}


def test_secret_grants_match_the_named_secret_and_nothing_longer() -> None:
    """Secrets Manager appends '-' and six random characters to a secret's ARN: `-??????` matches exactly those
    (`-*` would also match prhub/github-token-old, say). The channels' secrets are read under a name prefix
    ending in "/" (NotifySecretPrefix), so a new channel needs no deploy and no other secret matches."""
    found = 0
    for function in FUNCTIONS:
        for statement in role_statements(function_role(function)):
            if "secretsmanager:GetSecretValue" in as_list(statement["Action"]):
                for resource in as_list(statement["Resource"]):
                    found += 1
                    if function == "DeliveryFunction" and "NotifySecretPrefix" in resource["Fn::Sub"]:
                        assert resource["Fn::Sub"].endswith(":secret:${NotifySecretPrefix}*"), resource
                        continue
                    assert re.fullmatch(r"arn:\$\{AWS::Partition\}:secretsmanager:\$\{AWS::Region\}:"
                                        r"\$\{AWS::AccountId\}:secret:\$\{(GitHubTokenSecretName|LlmApiKeySecretName)"
                                        r"\}-\?{6}", resource["Fn::Sub"]), resource
    assert found == 8  # plan: GitHub, model; score: GitHub, model; report: model, GitHub; delivery: the prefix, GitHub


def test_secret_arn_pattern_matches_the_secret_and_not_its_namesakes() -> None:
    from fnmatch import fnmatchcase

    pattern = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prhub/github-token-??????"
    assert fnmatchcase("arn:aws:secretsmanager:us-east-1:123456789012:secret:prhub/github-token-AbC123", pattern)
    assert not fnmatchcase("arn:aws:secretsmanager:us-east-1:123456789012:secret:prhub/github-token-old-AbC123",
                           pattern)


def test_schedules_may_only_invoke_their_function_and_keep_what_they_could_not_deliver() -> None:
    out = expanded()["Resources"]
    for schedule, function, dlq in (("PlanFunctionWeekly", "PlanFunction", "PlanDLQ"),
                                    ("ReportFunctionSweep", "ReportFunction", "SweepDLQ")):
        target = out[schedule]["Properties"]["Target"]
        assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [dlq, "Arn"]}}
        role = out[target["RoleArn"]["Fn::GetAtt"][0]]
        allowed = {(a, r) for s in role_statements(role) for a in as_list(s["Action"]) for r in refs(s["Resource"])}
        assert allowed == {("lambda:InvokeFunction", function), ("sqs:SendMessage", dlq)}, schedule


# ------------------------------------------------------------------ outputs and events


def test_outputs() -> None:
    outputs = load_template()["Outputs"]
    expected = {"SiteUrl": {"SiteDomainName", "SiteDistribution"}, "SiteBucketName": {"SiteBucket"},
                "SiteDistributionDomain": {"SiteDistribution"},
                "DistributionId": {"SiteDistribution"}, "PlanFunctionName": {"PlanFunction"},
                "ScoreFunctionName": {"ScoreFunction"}, "ReportFunctionName": {"ReportFunction"},
                "ScoreDLQUrl": {"ScoreDLQ"}}
    for name, target in expected.items():
        assert refs(outputs[name]["Value"]) == target, name
    assert outputs["SiteUrl"]["Value"] == SITE_URL


@pytest.mark.parametrize("path", sorted((ROOT / "events").glob("*.json")), ids=lambda p: p.name)
def test_sample_events_parse(path: Path) -> None:
    assert isinstance(json.loads(path.read_text()), dict)


@pytest.mark.parametrize("path", sorted((ROOT / "events").glob("plan*.json")), ids=lambda p: p.name)
def test_plan_sample_events_are_accepted_with_the_templates_watch_list(path: Path) -> None:
    from prhub.core.config import WatchList
    from prhub.flow import plan

    watchlist = WatchList.parse(load_template()["Parameters"]["WatchedRepositories"]["Default"])
    requests = plan.parse_plan_event(json.loads(path.read_text()), lambda: watchlist,
                                     datetime(2026, 6, 22, 1, tzinfo=ZoneInfo("Asia/Shanghai")))
    assert requests and all(r.period.since <= r.period.until for r in requests)


# ------------------------------------------------------------------ export sources (jsonl:s3://)


@pytest.mark.parametrize("configured", [False, True], ids=["no-bucket", "bucket"])
def test_only_the_export_bucket_is_readable_and_only_when_it_is_set(configured: bool) -> None:
    param = load_template()["Parameters"]["ExportBucket"]
    assert param["Default"] == "" and re.fullmatch(param["AllowedPattern"], "")
    env = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["EXPORT_BUCKET"] == {"Ref": "ExportBucket"} and env["LOCAL_EXPORTS"] == "false"
    rendered = render(HasExportBucket=configured)
    for function in FUNCTIONS:
        statements = [s for p in rendered["Resources"][function]["Properties"]["Policies"]
                      for s in as_list(p["Statement"])]
        reads = [s for s in statements if refs(s["Resource"]) == {"ExportBucket"}]
        if not configured or function not in ("PlanFunction", "ScoreFunction", "ReportFunction"):
            assert reads == [], function
            continue
        [read] = reads
        assert read["Action"] == "s3:GetObject"  # objects only: no listing, no writing
        assert read["Resource"] == {"Fn::Sub": "arn:${AWS::Partition}:s3:::${ExportBucket}/*"}


def test_the_local_pollers_take_the_batches_the_event_source_mappings_give() -> None:
    from prhub_local.runner import PipelineError, batch_size
    from prhub_local.template import load_template as local_template

    template = local_template(TEMPLATE)
    mappings = {m["Properties"]["EventSourceArn"]["Fn::GetAtt"][0]: m["Properties"]["BatchSize"]
                for m in resources("AWS::Lambda::EventSourceMapping").values()}
    assert mappings["ScoreQueue"] == 10  # a whole batch is scored at once (PRHUB_LLM_CONCURRENCY's default)
    assert {queue: batch_size(template, queue) for queue in mappings} == mappings
    with pytest.raises(PipelineError, match="ScoreDLQ"):
        batch_size(template, "ScoreDLQ")  # nothing consumes a dead-letter queue
