"""`prhub invoke`: one handler on moto with each sample event in events/, as `sam local invoke` would run it.

The invocations run as a user's `prhub invoke` does: the embedded AWS in this process and a `--state` directory,
so a second invocation restores what the first left. The CLI's own tests also take `--endpoint-url` (the session's
moto server, a fresh resource prefix each).
"""
from __future__ import annotations

import json
import uuid
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from prhub.core.errors import InputError

from prhub_local import cli, packs
from prhub_local.invoke import Invocation, invoke_function
from prhub_local.sample import sample_settings
from prhub_local.state import generation
from tests.conftest import EVENTS, load_event

SAMPLE_WEEK = "acme/rocket/reports/2026-06-01-to-2026-06-07/"


def invoke(function: str, event_file: str, state: Path, source: str | None = None,
           out: Path | None = None) -> tuple[Invocation, list[str]]:
    """`prhub invoke FUNCTION --event FILE --state STATE`: the embedded AWS in this process, STATE restored and
    saved."""
    lines: list[str] = []
    result = invoke_function(function, load_event(event_file), state=state,
                             prefix="i" + uuid.uuid4().hex[:10], progress=lines.append, source=source, out=out)
    return result, lines


def merged_in(export: Path, since: date, until: date, tz: str) -> int:
    """PRs of the export merged between two dates (inclusive) in a time zone, counted here independently."""
    count = 0
    for line in export.read_text(encoding="utf-8").splitlines():
        merged = datetime.fromisoformat(json.loads(line)["merged_at"].replace("Z", "+00:00"))
        count += since <= merged.astimezone(ZoneInfo(tz)).date() <= until
    return count


def test_plan_custom_range_lists_verls_week_from_the_export(tmp_path: Path,
                                                            verl_export: Path) -> None:
    result, lines = invoke("PlanFunction", "plan-custom-range.json", tmp_path / "state",
                           source=f"jsonl:{verl_export}")
    assert result.failures == []
    [run] = result.answer["runs"]
    assert run["repo"] == "verl-project/verl" and run["expected"] == 21
    assert run["period"] == {"since": "2026-06-15", "until": "2026-06-21", "tz": "Asia/Shanghai"}
    assert f"verl-project/verl is read from jsonl:{verl_export} (--source)" in lines
    # The run and its 21 score messages are in the saved state for the next invocation.
    assert len((generation(tmp_path / "state") / "queues" / "ScoreQueue.messages.jsonl").read_text().splitlines()) == 21


def test_plan_scheduled_plans_every_watched_repository_for_the_week_before(tmp_path: Path,
                                                                           verl_export: Path) -> None:
    result, _ = invoke("PlanFunction", "plan-scheduled.json", tmp_path / "state",
                       source=f"jsonl:{verl_export}")
    assert result.failures == []
    runs = {r["repo"]: r for r in result.answer["runs"]}
    # The schedule fired Monday 01:00 in Shanghai, Sunday evening in Berlin: each repo's last complete week.
    assert runs["acme/rocket"]["period"] == {"since": "2026-06-01", "until": "2026-06-07", "tz": "Europe/Berlin"}
    assert runs["acme/rocket"]["expected"] == 32
    verl = runs["verl-project/verl"]
    assert verl["period"] == {"since": "2026-06-08", "until": "2026-06-14", "tz": "Asia/Shanghai"}
    assert verl["expected"] == merged_in(verl_export, date(2026, 6, 8), date(2026, 6, 14), "Asia/Shanghai") > 0
    assert all(r["run_id"].endswith("/weekly") for r in runs.values())


def test_score_then_report_events_plan_the_named_run_first_and_then_reuse_it(aws_endpoint: str,
                                                                              tmp_path: Path) -> None:
    state = tmp_path / "state"
    # GIVEN a fresh state: the run score-sqs.json names does not exist
    named = json.loads(load_event("score-sqs.json")["Records"][0]["body"])["run_id"]
    # WHEN ScoreFunction gets the event
    scored, lines = invoke("ScoreFunction", "score-sqs.json", state)
    # THEN the run of that repository and period is planned first, and the record is scored into it
    assert scored.answer == {"batchItemFailures": []} and scored.failures == []
    [said] = [line for line in lines if line.startswith(f"run {named} is not in the state: planned ")]
    planned = said.split(" planned ")[1].split(" ")[0]
    assert planned.startswith("acme/rocket/2026-06-01_2026-06-07/") and planned != named
    assert json.loads(scored.event["Records"][0]["body"])["run_id"] == planned
    queued = (generation(state) / "queues" / "ScoreQueue.messages.jsonl").read_text().splitlines()
    assert len(queued) == 32  # the plan's own messages
    # WHEN ReportFunction gets report-sqs.json (the same named run) on a new embedded AWS from that state
    reported, lines = invoke("ReportFunction", "report-sqs.json", state)
    # THEN it reports the open run planned above: PR 1205 scored, the other 31 named as unscored
    assert reported.answer == {"batchItemFailures": []}
    assert f"run {named} is not in the state: using {planned}, the open run of that period" in lines
    report = json.loads(site_objects(state)[SAMPLE_WEEK + "report.json"])
    assert [p["number"] for p in report["prs"]] == [1205]
    assert len(report["unscored"]) == 31 and 1205 not in {u["number"] for u in report["unscored"]}
    # AND its headline counts the 32 merged PRs, 31 not scored yet, in the report's language (zh) as its reasons
    assert report["language"] == "zh" and report["stats"]["pr_count"] == 32
    assert report["summary"].startswith("本周合并 32 个 PR，其中 31 个尚未评分")
    assert {u["reason"] for u in report["unscored"]} == {"没有结果：评分任务没有完成"}
    assert report["notes"] and not any(n.startswith(("no result", "narrative:")) or "scored by the engine" in n
                                       for n in report["notes"])


def site_objects(state: Path) -> dict[str, bytes]:
    """The site bucket the state's last save holds, by key."""
    gen = generation(state)
    assert gen is not None
    return dict(packs.bodies(gen / "buckets", "SiteBucket"))


def test_report_sweep_leaves_a_fresh_run_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    invoke("ScoreFunction", "score-sqs.json", state)  # an open run, progress a moment ago
    swept, _ = invoke("ReportFunction", "report-sweep.json", state)
    # older_than_minutes is 30: the run is not stuck yet
    assert swept.answer == {"swept": [], "failed": []}
    assert not any(key.startswith(SAMPLE_WEEK) for key in site_objects(state))


def test_cli_prints_the_answer_and_exits_by_the_contract(aws_endpoint: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    def run(function: str, event: Path) -> tuple[int, Any]:
        code = cli.main(["invoke", function, "--event", str(event), "--endpoint-url", aws_endpoint])
        out = capsys.readouterr().out
        return code, json.loads(out) if out.strip() else None

    # 0: done, the handler's JSON answer on stdout
    assert run("ReportFunction", EVENTS / "report-sweep.json") == (0, {"swept": [], "failed": []})
    # 2: bad input, PlanFunction's refusal printed as its answer
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"repo": "not a repo", "since": "2026-06-01", "until": "2026-06-07"}))
    code, answer = run("PlanFunction", bad)
    assert code == 2 and answer["ok"] is False and "repo" in answer["error"]
    # 2: an event file that is not JSON, before anything starts
    bad.write_text("{")
    assert run("PlanFunction", bad) == (2, None)
    # 1: the function failed: AWS's sample schedule event (1970), a week the sample export does not cover, is a
    # failed run of each watched repository (the watch list names the sample alone: nothing is asked of GitHub)
    config = tmp_path / "watch.json"
    config.write_text(json.dumps({"repos": [sample_settings()["config"]]}))
    bad.write_text(json.dumps({"detail-type": "Scheduled Event", "source": "aws.events",
                               "time": "1970-01-01T00:00:00Z", "detail": {}}))
    code = cli.main(["invoke", "PlanFunction", "--event", str(bad), "--endpoint-url", aws_endpoint,
                     "--config", str(config)])
    answer = json.loads(capsys.readouterr().out)
    assert code == 1 and answer["ok"] is False and all(r.get("failed") for r in answer["runs"])


def test_a_refused_plan_event_leaves_no_state_behind(aws_endpoint: str, tmp_path: Path) -> None:
    event = {**load_event("plan-custom-range.json"), "since": "2026-06-21", "until": "2026-06-15"}
    result = invoke_function("PlanFunction", event, endpoint_url=aws_endpoint, state=tmp_path / "state",
                             prefix="i" + uuid.uuid4().hex[:10], progress=lambda _: None)
    assert result.refused and result.answer["ok"] is False and "since" in result.answer["error"]
    assert not (tmp_path / "state").exists()


EVENT_FUNCTIONS = {"plan": "PlanFunction", "score": "ScoreFunction", "report": "ReportFunction",
                   "deliver": "DeliveryFunction", "pages": "PagesFunction"}


def test_every_function_of_the_template_can_be_invoked() -> None:
    from prhub_local import FUNCTIONS
    from prhub_local.template import default_root, load_template

    resources = load_template(default_root() / "template.yaml")["Resources"]
    assert set(FUNCTIONS) == {k for k, v in resources.items() if v["Type"] == "AWS::Serverless::Function"}
    for name in FUNCTIONS:
        assert cli.build_parser().parse_args(["invoke", name, "--event", "e.json"]).function == name
    assert {EVENT_FUNCTIONS[p.name.split("-")[0]] for p in EVENTS.glob("*.json")} == set(FUNCTIONS)


@pytest.mark.parametrize("event_file", sorted(p.name for p in EVENTS.glob("*.json")))
def test_every_event_works_against_the_bundled_sample_on_a_fresh_state(event_file: str,
                                                                       tmp_path: Path, verl_export: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    function = EVENT_FUNCTIONS[event_file.split("-")[0]]
    out = tmp_path / "site"
    result, lines = invoke(function, event_file, tmp_path / "state", source=f"jsonl:{verl_export}",
                           out=out)
    assert result.failures == [], lines
    numbers = {n for r in result.event.get("Records", []) for n in json.loads(r["body"]).get("numbers", [])}
    assert numbers <= set(range(1201, 1233))  # the sample's PRs, not made-up ones
    if event_file == "report-sqs.json":
        assert f"report written: {out / SAMPLE_WEEK}" in lines and (out / SAMPLE_WEEK / "report.pdf").is_file()
    if function in ("PagesFunction", "DeliveryFunction"):
        # The report they name was run through the flow first, said where it went, and the site copied to --out.
        assert f"report written: {out / SAMPLE_WEEK}" in lines
        assert (out / SAMPLE_WEEK / "index.html").is_file()
    assert not [line for line in lines if line.startswith("report written:") and "/pull/" in line]
    if function == "PagesFunction":
        assert all((out / "acme/rocket/pull" / str(n) / "index.html").is_file() for n in numbers)
    if function == "DeliveryFunction":
        # No such secret on a fresh state: given up at once, said as one readable line, not a Powertools record.
        err = capsys.readouterr().err
        [said] = [line for line in err.splitlines() if "channel cannot be resolved" in line]
        assert said.startswith("error: DeliveryFunction: channel cannot be resolved (")
        assert "prhub/notify/slack-eng" in said
        assert "arn:aws" not in err and '"level"' not in err


def test_the_sample_events_repository_is_read_where_the_command_says(tmp_path: Path) -> None:
    from prhub_local.invoke import given_sources
    from prhub_local.sample import local_watchlist
    from prhub_local.template import default_root, load_template

    watchlist = local_watchlist(load_template(default_root() / "template.yaml"), None)
    # Without --source: as the watch list says (GitHub), whatever files this checkout has beside it.
    assert given_sources(watchlist, None) == {}
    # With it: for the watched repositories that name no source; the sample keeps its own export.
    assert given_sources(watchlist, "jsonl:x.jsonl") == {"verl-project/verl": "jsonl:x.jsonl"}
    with pytest.raises(InputError, match="no export file at"):
        invoke_function("PlanFunction", {}, source=f"jsonl:{tmp_path / 'none.jsonl'}", state=tmp_path / "s")
    assert not (tmp_path / "s").exists()
