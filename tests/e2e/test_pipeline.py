"""The local pipeline end to end: the real handlers on moto through prhub_local.runner.run_pipeline and `prhub run`.

Runs use the session's moto server (a unique resource prefix each) instead of
starting their own, which is what `prhub run --endpoint-url` does too.
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.dynamo import from_item
from prhub.core.errors import PrhubError

from prhub_local import cli
from prhub_local.runner import PipelineError, run_pipeline
from prhub_local.state import generation

SAMPLE_KEY = "acme/rocket/reports/2026-06-01-to-2026-06-07/"


def quiet(_message: str) -> None:
    return None


def results_of(prefix: str, run_id: str) -> list[dict[str, Any]]:
    db = aws.client("dynamodb")
    items = db.query(TableName=f"{prefix}-ResultsTable", KeyConditionExpression="run_id = :r",
                     ExpressionAttributeValues={":r": {"S": run_id}})["Items"]
    return [from_item(i) for i in items]


@pytest.mark.slow
def test_sample_run_then_a_second_run_from_the_saved_state_hits_the_cache(aws_endpoint: str, tmp_path: Path) -> None:
    state, out = tmp_path / "state", tmp_path / "site"
    lines: list[str] = []
    # GIVEN no state: the bundled sample through plan -> SQS -> score -> report -> S3, in English on two workers
    # (what `prhub run --lang en --workers 2` asks; the command's own printing is test_llm_run's and
    # test_delivery_run's)
    first = run_pipeline(endpoint_url=aws_endpoint, prefix="a" + uuid.uuid4().hex[:10], state=state, out=out,
                         lang="en", workers=2, progress=lines.append)
    # THEN the four files exist where the site layout says, and report.json is the one published: the sample's
    # configured language is zh, so an English report sits beside it, in en/
    english = SAMPLE_KEY + "en/"
    assert first.report_key == english
    for name in ("report.md", "report.pdf", "report.json", "index.html"):
        assert first.paths[name] == out / english / name and first.paths[name].stat().st_size > 0
    assert first.paths["report.pdf"].read_bytes().startswith(b"%PDF")
    assert "report" not in vars(first)  # read only when asked: `prhub run` prints the paths and never parses it
    assert json.loads(first.paths["report.json"].read_text(encoding="utf-8")) == first.report
    assert first.report["language"] == "en"
    assert first.report["stats"]["pr_count"] == 32 and first.report["unscored"] == []
    assert (out / "index.html").exists()  # the root index, rebuilt by the report
    assert any(line.startswith("listed 32 PRs") for line in lines)
    assert any(line.startswith("scoring: 32/32 PRs") for line in lines)
    assert f"report written: {out / english}" in lines
    assert {p.name for p in (generation(state) / "tables").iterdir()} >= {"RunsTable.jsonl", "CacheTable.jsonl"}
    # AND the fan-out published a page per PR in English, linked from the week page
    for pr in first.report["prs"]:
        page = out / "acme/rocket/pull" / str(pr["number"]) / "en"
        assert json.loads((page / "report.json").read_text(encoding="utf-8"))["pr"]["number"] == pr["number"]
        assert (page / "report.pdf").read_bytes()[:5] == b"%PDF-"
    week = first.paths["index.html"].read_text(encoding="utf-8")
    assert f'href="../../../pull/{first.report["prs"][0]["number"]}/en/"' in week
    # WHEN a fresh embedded AWS (new resources) restores that state and reports the same week again
    prefix = "b" + uuid.uuid4().hex[:10]
    second = run_pipeline(endpoint_url=aws_endpoint, prefix=prefix, state=state, out=out, lang="en",
                          progress=quiet)
    # THEN every PR comes from the score cache, and the earlier run is still in the history of runs
    stored = results_of(prefix, second.run_id)
    assert len(stored) == 32 and all(r["cached"] for r in stored)
    assert second.report["stats"] == first.report["stats"]
    runs = (generation(state) / "tables" / "RunsTable.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(runs) == 2


@pytest.mark.slow
def test_a_pr_that_always_fails_lands_in_the_dlq_and_a_lost_one_is_swept(aws_endpoint: str, tmp_path: Path) -> None:
    """Fault injection through the runner's invoke hook: #1205's details cannot be loaded (every delivery
    fails), and #1210's message is lost (deleted unprocessed, as if its worker died)."""

    def faulty(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name != "ScoreFunction":
            return handler(event, context)
        records = []
        for record in event["Records"]:
            body = json.loads(record["body"])
            if body["number"] == 1210:
                continue  # never handed to the function, and not reported failed: the runner deletes it
            if body["number"] == 1205:
                body["ref"]["number"] = 999_999
                record = {**record, "body": json.dumps(body)}
            records.append(record)
        return handler({"Records": records}, context) if records else {"batchItemFailures": []}

    prefix = "c" + uuid.uuid4().hex[:10]
    lines: list[str] = []
    result = run_pipeline(endpoint_url=aws_endpoint, prefix=prefix, state=None, out=tmp_path / "site",
                          invoke=faulty, progress=lines.append, visibility_timeout=1)
    report = result.report
    unscored = {u["number"]: u for u in report["unscored"]}
    assert set(unscored) == {1205, 1210}
    assert "999999" in unscored[1205]["reason"]
    assert unscored[1210]["reason"] == "没有结果：评分任务没有完成"  # the sample reports in zh: its reasons too
    assert unscored[1205]["reason"].startswith("评分失败：")
    assert report["stats"]["pr_count"] == 32 and report["stats"]["unscored_count"] == 2  # merged, 2 unscored
    assert any("sweeping" in line for line in lines)
    sqs = aws.client("sqs")
    dlq = sqs.get_queue_url(QueueName=f"{prefix}-ScoreDLQ")["QueueUrl"]
    [dead] = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10).get("Messages", [])
    assert json.loads(dead["Body"])["number"] == 1205


@pytest.mark.parametrize(("argv", "message"), [
    (["--since", "2026-06-01"], "give both --since and --until"),
    (["--repo", "not a repo"], "owner/name"),
    (["--repo", "acme/rocket", "--since", "2026-06-08", "--until", "2026-06-01"], "is after until"),
    (["--repo", "acme/rocket", "--since", "2026-06-01", "--until", "2026-06-07", "--tz", "Nowhere/Land"],
     "unknown time zone"),
    (["--config", "/nonexistent/watchlist.json"], "cannot read --config"),
])
def test_prhub_run_bad_input_exits_2_with_a_message_and_no_traceback(
        aws_endpoint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code = cli.main(["run", "--endpoint-url", aws_endpoint, "--out", str(tmp_path / "site"), *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_prhub_serve_refuses_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", str(tmp_path / "nothing")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_prhub_run_with_the_llm_scorer_and_no_key_says_so_up_front(
        aws_endpoint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "LLM_API_KEY_SECRET"):
        monkeypatch.delenv(name, raising=False)
    code = cli.main(["run", "--endpoint-url", aws_endpoint, "--out", str(tmp_path / "site"), "--scorer", "llm"])
    assert code == 2
    assert "needs an API key" in capsys.readouterr().err


def test_a_refused_llm_run_leaves_no_state_behind(aws_endpoint: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "LLM_API_KEY_SECRET"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(PrhubError, match="needs an API key"):
        run_pipeline(endpoint_url=aws_endpoint, prefix="r" + uuid.uuid4().hex[:10], state=tmp_path / "state",
                     out=tmp_path / "site", scorer="llm", progress=quiet)
    assert not (tmp_path / "state").exists() and not (tmp_path / "site").exists()


@pytest.mark.slow
def test_runner_keeps_slow_batches_hidden_and_honours_the_functions_own_hold(aws_endpoint: str, tmp_path: Path) -> None:
    """A batch slower than the retry delay is not delivered twice meanwhile; a record the function held back
    with ChangeMessageVisibility (as RetryLater does) stays hidden that long; other failures retry quickly."""
    deliveries: dict[int, list[float]] = {}
    lock = threading.Lock()
    started = time.monotonic()

    def hooked(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name != "ScoreFunction":
            return handler(event, context)
        now = time.monotonic() - started
        keep, failures = [], []
        for record in event["Records"]:
            number = json.loads(record["body"])["number"]
            with lock:
                seen = deliveries.setdefault(number, [])
                seen.append(now)
            if number == 1203 and len(seen) == 1:  # held by the function for 8 s
                url = aws.client("sqs").get_queue_url(QueueName=record["eventSourceARN"].rsplit(":", 1)[1])["QueueUrl"]
                aws.client("sqs").change_message_visibility(QueueUrl=url, ReceiptHandle=record["receiptHandle"],
                                                            VisibilityTimeout=8)
                failures.append(record["messageId"])
            elif number == 1204 and len(seen) == 1:  # an ordinary failure: back after the retry delay
                failures.append(record["messageId"])
            else:
                keep.append(record)
        answer = handler({"Records": keep}, context) if keep else {"batchItemFailures": []}
        time.sleep(1.5)  # slower than the 1 s retry delay
        return {"batchItemFailures": answer["batchItemFailures"] + [{"itemIdentifier": i} for i in failures]}

    result = run_pipeline(endpoint_url=aws_endpoint, prefix="r" + uuid.uuid4().hex[:10], state=None,
                          out=tmp_path / "site", invoke=hooked, progress=quiet, visibility_timeout=1)
    assert result.report["stats"]["pr_count"] == 32 and result.report["unscored"] == []
    assert {n: len(t) for n, t in deliveries.items() if len(t) != 1} == {1203: 2, 1204: 2}
    held, retried = deliveries[1203], deliveries[1204]
    assert held[1] - held[0] >= 8 - 0.2  # hidden for the 8 s the function asked, not the 1 s retry delay
    # back after its batch (1.5 s), the retry delay and at most one more batch of a busy poller: sooner than the
    # held one (compared with it, not with a fixed bound, so a loaded host slowing every batch fails nothing)
    assert retried[1] - retried[0] < held[1] - held[0]


@pytest.mark.slow
def test_a_report_that_keeps_failing_ends_the_run_with_an_error_and_the_scores_kept(
        aws_endpoint: str, tmp_path: Path) -> None:
    def broken_report(name: str, handler: Any, event: Any, context: Any) -> Any:
        if name == "ReportFunction":
            raise RuntimeError("injected: the report function is broken")
        return handler(event, context)

    state = tmp_path / "state"
    with pytest.raises(PipelineError, match="could not be written"):
        run_pipeline(endpoint_url=aws_endpoint, prefix="e" + uuid.uuid4().hex[:10], state=state,
                     out=tmp_path / "site", invoke=broken_report, progress=quiet, visibility_timeout=1)
    cache = (generation(state) / "tables" / "CacheTable.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(cache) == 32  # the next run reuses every score
    dead = generation(state) / "queues" / "ReportDLQ.messages.jsonl"
    assert len(dead.read_text(encoding="utf-8").splitlines()) == 1
