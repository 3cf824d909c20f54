"""Judgements through plan -> score -> report on in-memory adapters (issue 27): every source reaches the report,
they are kept for later runs, bad ones are refused with nothing written, and a late correction makes a revision."""
from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.core.period import format_timestamp
from prhub.flow import judgements, pages
from prhub.flow.messages import PagesMessage, ReportMessage
from prhub.flow.plan import plan
from prhub.flow.publish import report_message
from prhub.flow.score import score_record

from prhub_local.runner import LambdaContext
from prhub_local.sample import SAMPLE_DIR
from tests.fakes.memory import SETTINGS, MemoryStack, memory_stack
from tests.functional.test_flow_in_memory import record

WEEK = {"repo": "acme/rocket", "since": "2026-06-01", "until": "2026-06-07"}
WEEK_BEFORE = {"repo": "acme/rocket", "since": "2026-05-25", "until": "2026-05-31"}
PREFIX = "acme/rocket/reports/2026-06-01-to-2026-06-07/"
CHANGELOG = """# Changelog
## 1.4
### Added
- 🎉 A highlight [#1210](https://github.com/acme/rocket/pull/1210)
### Internal
- CI [#1211](https://github.com/acme/rocket/pull/1211) and an issue [#1212](https://github.com/acme/rocket/issues/1212)
"""


def export(tmp_path: Path, labels: dict[int, list[str]]) -> Path:
    """The sample's export with `labels` on some PRs, and the CHANGELOG beside it."""
    rows = [json.loads(line) for line in (SAMPLE_DIR / "acme-rocket.jsonl").read_text().splitlines() if line.strip()]
    path = tmp_path / "pulls.jsonl"
    path.write_text("".join(json.dumps({**r, "labels": labels.get(r["number"], r["labels"])}) + "\n" for r in rows))
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG)
    return path


def stack_for(tmp_path: Path, **settings: Any) -> MemoryStack:
    path = export(tmp_path, {1214: ["highlight"], 1215: ["internal"]})
    config = {"repo": "acme/rocket", "tz": "Europe/Berlin", "source": f"jsonl:{path}",
              "key_labels": ["highlight"], "minor_labels": ["internal"],
              "changelog": {"path": "CHANGELOG.md", "sections": {"Added": "minor", "Internal": "minor"}}, **settings}
    return memory_stack(WatchList.parse(json.dumps({"defaults": {"language": "en"}, "repos": [config]})))


def publish(stack: MemoryStack, body: dict[str, Any]) -> str:
    """The report message delivered, and the PR pages it queued built; where the report is."""
    answer = report_message(ReportMessage.of(body), stack.deps.invoked(LambdaContext("ReportFunction")))
    for message in stack.queue.take(SETTINGS.pages_queue_url):
        pages.pages_message(PagesMessage.of(message.body), stack.deps)
    return str(answer["report_key"])


def run_week(stack: MemoryStack, event: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Plan, score every PR and publish the report: (the run's id, its report.json)."""
    [run] = plan(event, stack.deps)
    for message in stack.queue.take(SETTINGS.score_queue_url):
        score_record(record(message), stack.deps)
    [ask] = stack.queue.take(SETTINGS.report_queue_url)
    body = stack.bucket.get(publish(stack, ask.body) + "report.json")
    assert body is not None
    return str(run["run_id"]), json.loads(body)


def verdicts(report: dict[str, Any]) -> dict[int, str]:
    return {p["number"]: p["judged"] for p in report["prs"] if p["judged"] is not None}


def test_every_source_reaches_the_report_and_the_stronger_one_wins(tmp_path: Path) -> None:
    # GIVEN labels, a CHANGELOG, the watch list's verdicts and the run's own file
    stack = stack_for(tmp_path, judgements=[{"pr": 1216, "verdict": "minor"}, {"pr": 1210, "verdict": "key"}])
    event = {**WEEK, "judgements": [{"pr": 1217, "verdict": "key"}, {"pr": 1211, "verdict": "key"}]}
    # WHEN the week is reported
    _, report = run_week(stack, event)
    # THEN each PR is marked with the strongest source's verdict: the changelog's 🎉 is key unless configured, the
    # watch list's minor beats nothing here, the file's key beats the changelog's Internal
    assert verdicts(report) == {1210: "key", 1211: "key", 1214: "key", 1215: "minor", 1216: "minor", 1217: "key"}
    assert all("judged" in p for p in report["prs"])  # the others say None
    # the PR page marks a judged PR, in every format
    page = stack.bucket.get("acme/rocket/pull/1215/report.md")
    assert page is not None and "| Judged by the maintainers | minor |" in page.decode()
    plain = stack.bucket.get("acme/rocket/pull/1203/report.md")
    assert plain is not None and "Judged" not in plain.decode()
    # what could not be read again is kept: the file's and the labels'
    kept = {(j.source, j.pr): j.verdict for j in stack.store.judgements("acme/rocket")}
    assert kept == {("file", 1211): "key", ("file", 1217): "key", ("label", 1214): "key", ("label", 1215): "minor"}


def test_judgements_carry_to_a_later_report_of_the_repository(tmp_path: Path) -> None:
    # GIVEN a run whose file judged PR 1180, of the week before (it is in the run's history)
    stack = stack_for(tmp_path)
    run_week(stack, {**WEEK, "judgements": [{"pr": 1180, "verdict": "key"}]})
    # WHEN the week before is reported, with no file of its own
    _, report = run_week(stack, WEEK_BEFORE)
    # THEN it sees the earlier run's judgement
    assert verdicts(report)[1180] == "key"


@pytest.mark.parametrize(("settings", "event", "says"), [
    ({}, {"judgements": [{"pr": 1210, "verdict": "vital"}]}, "'verdict' must be key or minor"),
    ({}, {"judgements": {"pr": 1210}}, "judgements must be a list"),
])
def test_bad_judgements_refuse_the_plan_and_nothing_is_written(tmp_path: Path, settings: dict[str, Any],
                                                                event: dict[str, Any], says: str) -> None:
    stack = stack_for(tmp_path, **settings)
    with pytest.raises(InputError, match=says):
        plan({**WEEK, **event}, stack.deps)
    assert stack.store.runs == {} and stack.store.kept == {}
    assert stack.queue.depth(SETTINGS.score_queue_url) == 0 and stack.bucket.objects == {}


def test_a_pr_judged_on_several_lines_counts_its_last_line_with_one_warning(tmp_path: Path) -> None:
    # GIVEN a judgements file grown by appending corrections: 1211 three times, 1217 twice
    stack = stack_for(tmp_path)
    event = {**WEEK, "judgements": [{"pr": 1211, "verdict": "key"}, {"pr": 1217, "verdict": "key"},
                                    {"pr": 1211, "verdict": "minor"}, {"pr": 1217, "verdict": "minor"},
                                    {"pr": 1211, "verdict": "key"}]}
    # WHEN the week is planned
    [run] = plan(event, stack.deps)
    # THEN the last line of each PR is kept, and one warning counts the lines replaced
    kept = {(j.source, j.pr): j.verdict for j in stack.store.judgements("acme/rocket") if j.source == "file"}
    assert kept == {("file", 1211): "key", ("file", 1217): "minor"}
    said = [w for w in run.get("warnings", []) if "replaced by a later line" in w]
    assert said == ["the judgements file: 3 lines replaced by a later line on the same PR (the last line of each "
                    "PR counts)"]


@pytest.mark.parametrize(("settings", "event", "unknown"), [
    ({}, {"judgements": [{"pr": 99999, "verdict": "key"}, {"pr": 1217, "verdict": "key"}]}, "#99999"),
    ({"judgements": [{"pr": 4242, "verdict": "minor"}]}, {"judgements": [{"pr": 1217, "verdict": "key"}]}, "#4242"),
])
def test_a_judged_pr_the_repository_has_no_record_of_is_a_warning_not_a_failure(
        tmp_path: Path, settings: dict[str, Any], event: dict[str, Any], unknown: str) -> None:
    stack = stack_for(tmp_path, **settings)
    # WHEN a week is reported with a judgement naming a PR the repository never had
    [run] = plan({**WEEK, **event}, stack.deps)
    # THEN the run goes on with a warning naming it, the unknown PR left out and the known one kept
    assert f"judgements name PRs acme/rocket has no record of, left out: {unknown}" in run["warnings"]
    kept = {(j.source, j.pr) for j in stack.store.judgements("acme/rocket")}
    assert ("file", 1217) in kept and not {pr for _, pr in kept} - {1214, 1215, 1217}
    assert stack.queue.depth(SETTINGS.score_queue_url) > 0


def test_a_correction_after_publication_makes_a_new_revision(tmp_path: Path) -> None:
    # GIVEN the week published, PR 1210 key by the changelog's highlight
    stack = stack_for(tmp_path)
    run_id, first = run_week(stack, WEEK)
    assert verdicts(first)[1210] == "key" and "revision" not in first
    # WHEN a maintainer corrects it to minor (and a PR no run lists is refused, nothing kept)
    later = format_timestamp(datetime.now(UTC) + timedelta(seconds=5))
    with pytest.raises(InputError, match="no stored run of acme/rocket lists #4242"):
        judgements.correct("acme/rocket", {1210: "minor", 4242: "key"}, stack.deps, later)
    assert not [j for j in stack.store.judgements("acme/rocket") if j.source == "correction"]
    asked = judgements.correct("acme/rocket", {1210: "minor"}, stack.deps, later)
    # THEN revision 2 of the report is asked for, once, and says what changed
    assert asked == [{"run_id": run_id, "revision": 2, "report_key": PREFIX}]
    [ask] = stack.queue.take(SETTINGS.report_queue_url)
    assert ask.body == {"run_id": run_id, "revision": 2}
    publish(stack, ask.body)
    body = stack.bucket.get(PREFIX + "report.json")
    assert body is not None
    second = json.loads(body)
    assert second["revision"] == 2 and second["changes"]["judged"] == [1210]
    assert verdicts(second)[1210] == "minor"
    assert any("corrected their verdict on 1 PR" in n and "#1210" in n for n in second["notes"])
    page = stack.bucket.get("acme/rocket/pull/1210/report.md")
    assert page is not None and "| Judged by the maintainers | minor |" in page.decode()


def test_prhub_judge_of_a_pr_no_run_lists_is_exit_2_and_writes_nothing(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from prhub_local.cli import main

    state, out = tmp_path / "state", tmp_path / "site"
    code = main(["judge", "--repo", "acme/rocket", "--key", "1210", "--state", str(state), "--out", str(out)])
    assert code == 2 and "no stored run of acme/rocket lists #1210" in capsys.readouterr().err
    assert not state.exists() and not out.exists()


def key_rows(markdown: str) -> set[int]:
    """The PRs with a row in report.md's key-PR table (the section from its heading to the next)."""
    start = markdown.index("## Key PRs")
    section = markdown[start:markdown.index("\n## ", start + 1)]
    return {int(n) for n in re.findall(r"^\| \[\\#(\d+)\]", section, re.MULTILINE)}


def test_a_correction_is_the_verdict_in_the_report_flag_counts_table_and_highlights(tmp_path: Path) -> None:
    # GIVEN the week published: its most important key PR, and a PR the engine did not find key
    stack = stack_for(tmp_path)
    run_id, first = run_week(stack, WEEK)
    top = max((p for p in first["prs"] if p["key"]), key=lambda p: p["importance"])["number"]
    plain = next(p["number"] for p in first["prs"] if not p["key"] and p["judged"] is None)
    md = stack.bucket.get(PREFIX + "report.md")
    assert md is not None and top in key_rows(md.decode()) and plain not in key_rows(md.decode())
    # WHEN a maintainer judges the first minor and the second key
    later = format_timestamp(datetime.now(UTC) + timedelta(seconds=5))
    judgements.correct("acme/rocket", {top: "minor", plain: "key"}, stack.deps, later)
    [ask] = stack.queue.take(SETTINGS.report_queue_url)
    publish(stack, ask.body)
    body, md = stack.bucket.get(PREFIX + "report.json"), stack.bucket.get(PREFIX + "report.md")
    assert body is not None and md is not None
    second = json.loads(body)
    # THEN the revision carries both verdicts: the flags, marked as the maintainers', the key count, the key-PR
    # table and the highlights
    by_number = {p["number"]: p for p in second["prs"]}
    assert (by_number[top]["key"], by_number[top]["judged"]) == (False, "minor")
    assert (by_number[plain]["key"], by_number[plain]["judged"]) == (True, "key")
    assert second["stats"]["key_pr_count"] == first["stats"]["key_pr_count"]
    assert {p["number"] for p in second["prs"] if p["key"]} == \
        {p["number"] for p in first["prs"] if p["key"]} - {top} | {plain}
    assert top not in key_rows(md.decode())  # (the table shows the 15 most important key PRs: `plain` is below)
    assert all(top not in h["prs"] or len(h["prs"]) > 1 for h in second["highlights"])
    # the scores stay the scorer's: a verdict says whether a PR is key, not how it ranks
    assert by_number[top]["importance"] == next(p["importance"] for p in first["prs"] if p["number"] == top)


def test_the_same_correction_again_changes_nothing(tmp_path: Path) -> None:
    # GIVEN the week published and PR 1210 corrected to minor (revision 2)
    stack = stack_for(tmp_path)
    run_id, _ = run_week(stack, WEEK)
    later = format_timestamp(datetime.now(UTC) + timedelta(seconds=5))
    assert judgements.correct("acme/rocket", {1210: "minor"}, stack.deps, later)[0]["revision"] == 2
    [ask] = stack.queue.take(SETTINGS.report_queue_url)
    publish(stack, ask.body)
    # WHEN the same correction is made twice more
    for seconds in (10, 15):
        again = format_timestamp(datetime.now(UTC) + timedelta(seconds=seconds))
        assert judgements.correct("acme/rocket", {1210: "minor"}, stack.deps, again) == []
        assert judgements.unchanged("acme/rocket", {1210: "minor"}, stack.store) == [1210]
    # THEN no revision is asked for, and the kept correction is the first one
    assert stack.queue.depth(SETTINGS.report_queue_url) == 0
    run = stack.store.runs[run_id]
    assert (run.revision, run.revision_requested) == (2, 2)
    [kept] = [j for j in stack.store.judgements("acme/rocket") if j.source == "correction"]
    assert kept.at == later
    # AND a correction that does change the verdict still makes the next revision
    back = format_timestamp(datetime.now(UTC) + timedelta(seconds=20))
    assert judgements.unchanged("acme/rocket", {1210: "key"}, stack.store) == []
    assert judgements.correct("acme/rocket", {1210: "key"}, stack.deps, back)[0]["revision"] == 3
