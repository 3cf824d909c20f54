"""The maintainers' judgements reach the learner through plan -> score -> report on in-memory adapters (issue 27):
judgements of earlier weeks reorder a later week, a judged PR's verdict is no evidence for itself, the held-out
check keeps the default rules when learning does not help, and without judgements nothing changes."""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.core.models import PullRequest
from prhub.sources.github import GitHubSource

from prhub_local.sample import SAMPLE_DIR
from tests.conftest import VERL_EXPORT
from tests.fakes.github_server import FakeGitHub
from tests.fakes.memory import SETTINGS, MemoryStack, memory_stack
from tests.functional.test_judgements_flow import CHANGELOG, WEEK, run_week, verdicts

REPO = "acme/manual"
MONDAYS = [date(2026, 1, 5) + timedelta(weeks=w) for w in range(9)]
LAST = {"repo": REPO, "since": MONDAYS[8].isoformat(), "until": (MONDAYS[8] + timedelta(days=6)).isoformat()}


def row(number: int, title: str, files: list[tuple[str, int]], merged_at: str) -> dict[str, Any]:
    return {"number": number, "title": title, "body": "", "state": "closed", "merged": True, "merged_at": merged_at,
            "user": {"login": f"dev{number % 4}"}, "co_authors": [], "labels": [], "base": {"ref": "main"},
            "merge_commit_sha": f"{number:040x}", "html_url": f"https://github.com/{REPO}/pull/{number}",
            "additions": sum(a for _, a in files), "deletions": 0, "changed_files": len(files),
            "files": [{"filename": f, "status": "modified", "additions": a, "deletions": 0, "changes": a}
                      for f, a in files]}


def docs_pr(week: int, i: int) -> int:
    return 1000 + 10 * week + i


def fix_pr(week: int, i: int) -> int:
    return 1005 + 10 * week + i


def manual(tmp_path: Path) -> Path:
    """Nine weeks of a documentation project's PRs: three docs changes and three small code fixes a week. Its rules
    rank the fixes first (docs are capped); its maintainers, as the judgements below say, call the docs key."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    rows = []
    for w, monday in enumerate(MONDAYS):
        for i in range(3):
            rows.append(row(docs_pr(w, i), f"Document the {['install', 'config', 'api'][i]} guide, part {w}",
                            [(f"docs/guide{i}.md", 40 + 7 * i + w)], f"{monday}T0{i + 1}:00:00Z"))
            rows.append(row(fix_pr(w, i), f"fix: handle an empty value in parser {i}",
                            [(f"pkg/parse{i}.py", 20 + w + i), ("tests/test_parse.py", 10)],
                            f"{monday}T0{i + 4}:00:00Z"))
    path = tmp_path / "pulls.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def said(weeks: range, docs: str = "key", fixes: str = "minor") -> list[dict[str, Any]]:
    return [{"pr": n, "verdict": v} for w in weeks for i in range(3)
            for n, v in ((docs_pr(w, i), docs), (fix_pr(w, i), fixes))]


def local(watchlist: WatchList, **options: Any) -> MemoryStack:
    """An in-memory stack that reads jsonl: files on this machine, as the CLI does, on a fixed clock."""
    stack = memory_stack(watchlist, clock=lambda: datetime(2026, 7, 1, tzinfo=UTC), **options)
    stack.deps = replace(stack.deps, settings=replace(stack.deps.settings, local_exports=True))
    return stack


def stack_for(tmp_path: Path, lang: str = "en", **settings: Any) -> MemoryStack:
    config = {"repo": REPO, "tz": "UTC", "source": f"jsonl:{manual(tmp_path)}", **settings}
    return local(WatchList.parse(json.dumps({"defaults": {"language": lang}, "repos": [config]})))


def ranking(report: dict[str, Any]) -> list[int]:
    return [p["number"] for p in sorted(report["prs"], key=lambda p: (-p["importance"], p["number"]))]


def importance(report: dict[str, Any]) -> dict[int, float]:
    return {p["number"]: p["importance"] for p in report["prs"]}


def test_judgements_of_earlier_weeks_reorder_a_later_week(tmp_path: Path) -> None:
    # GIVEN the rules alone rank the last week's fixes above its docs
    _, plain = run_week(stack_for(tmp_path / "plain"), LAST)
    assert set(ranking(plain)[:3]) == {fix_pr(8, i) for i in range(3)}
    # AND a stack where an earlier week's run was given the maintainers' verdicts on eight weeks (kept in its table)
    stack = stack_for(tmp_path / "judged")
    earlier = {"repo": REPO, "since": MONDAYS[7].isoformat(), "until": (MONDAYS[7] + timedelta(days=6)).isoformat()}
    run_week(stack, {**earlier, "judgements": said(range(8))})
    # WHEN the last week is reported, with no judgements of its own
    _, report = run_week(stack, LAST)
    # THEN the learned weights put its docs first, the report says so and from how many judgements
    assert set(ranking(report)[:3]) == {docs_pr(8, i) for i in range(3)}
    assert report["learning"]["adjusted"] is True and report["learning"]["judgements"] == 48
    assert any("adjusted by weights learned from 48 judgements" in n for n in report.get("notes", [])) or \
        "adjusted by weights learned from 48 judgements" in json.dumps(report)
    md = stack.bucket.get(f"{REPO}/reports/{LAST['since']}-to-{LAST['until']}/report.md")
    assert md is not None and "adjusted by weights learned from 48 judgements" in md.decode()
    # AND each moved PR's page names the learned weights that moved it
    page = stack.bucket.get(f"{REPO}/pull/{docs_pr(8, 0)}/report.md")
    assert page is not None and "learned from the repository's judgements: " in page.decode()
    assert importance(report)[docs_pr(8, 0)] > importance(plain)[docs_pr(8, 0)]


def test_a_judged_pr_s_own_verdict_is_no_evidence_for_its_score(tmp_path: Path) -> None:
    # GIVEN eight earlier weeks judged, and the last week's PRs judged the other way round
    stack = stack_for(tmp_path, judgements=[*said(range(8)), *said(range(8, 9), docs="minor", fixes="key")])
    # WHEN the last week is reported
    _, report = run_week(stack, LAST)
    # THEN the weights come from the 48 earlier judgements only, and still lift the docs the week's verdicts call
    # minor; each of the week's PRs is marked with its verdict
    assert report["learning"]["judgements"] == 48 and report["learning"]["adjusted"] is True
    assert set(ranking(report)[:3]) == {docs_pr(8, i) for i in range(3)}
    assert verdicts(report) == {**{docs_pr(8, i): "minor" for i in range(3)}, **{fix_pr(8, i): "key" for i in range(3)}}


def test_the_watch_list_s_jsonl_judgements_teach_the_ranking(tmp_path: Path) -> None:
    # GIVEN the watch list names a judgements file, one of them on a PR of the reported week
    path = tmp_path / "judgements.jsonl"
    path.write_text("".join(json.dumps(j) + "\n" for j in [*said(range(8)), {"pr": fix_pr(8, 1), "verdict": "key"}]))
    stack = stack_for(tmp_path, lang="zh", judgements=f"jsonl:{path}")
    # WHEN the last week is reported (in Chinese)
    _, report = run_week(stack, LAST)
    # THEN the ranking is adjusted from the file's earlier judgements, and the judged PR is marked on its page
    assert report["learning"]["adjusted"] is True and report["learning"]["judgements"] == 48
    assert verdicts(report) == {fix_pr(8, 1): "key"}
    md = stack.bucket.get(f"{REPO}/reports/{LAST['since']}-to-{LAST['until']}/report.md")
    assert md is not None and "排名已按本仓库维护者的 48 条判断学到的权重调整" in md.decode()
    page = stack.bucket.get(f"{REPO}/pull/{fix_pr(8, 1)}/report.md")
    assert page is not None and "| 维护者判定 | 关键 |" in page.decode()
    moved = stack.bucket.get(f"{REPO}/pull/{docs_pr(8, 0)}/report.md")
    assert moved is not None and "据本仓库的判断学到：" in moved.decode()


def test_judgements_that_do_not_beat_the_rules_keep_the_default_rules(tmp_path: Path) -> None:
    # GIVEN verdicts that agree with the rules already (fixes key, docs minor): nothing to learn on held-out weeks
    _, plain = run_week(stack_for(tmp_path / "plain"), LAST)
    stack = stack_for(tmp_path / "judged", judgements=said(range(8), docs="minor", fixes="key"))
    # WHEN the last week is reported
    _, report = run_week(stack, LAST)
    # THEN the default rules stay, the report says why, and every score is the rules'
    assert report["learning"]["adjusted"] is False and report["learning"]["outcome"] == "not_better"
    md = stack.bucket.get(f"{REPO}/reports/{LAST['since']}-to-{LAST['until']}/report.md")
    assert md is not None and r"held-out weeks; default rules kept \(48 judgements\)" in md.decode()
    assert importance(report) == importance(plain)


@pytest.mark.parametrize(("text", "says"), [
    ('{"pr": 1001, "verdict": "key"}\nnot json\n', r"judgements.jsonl:2: not a judgement"),
])
def test_a_bad_watch_list_judgements_file_refuses_the_plan_and_writes_nothing(tmp_path: Path, text: str,
                                                                              says: str) -> None:
    path = tmp_path / "judgements.jsonl"
    path.write_text(text)
    stack = stack_for(tmp_path, judgements=f"jsonl:{path}")
    from prhub.flow.plan import plan

    with pytest.raises(InputError, match=says):
        plan(LAST, stack.deps)
    assert stack.store.runs == {} and stack.store.kept == {}
    assert stack.queue.depth(SETTINGS.score_queue_url) == 0 and stack.bucket.objects == {}


def test_the_changelog_is_read_once_a_run_from_github_s_default_branch(tmp_path: Path) -> None:
    # GIVEN the repository on (fake) GitHub, its CHANGELOG on the default branch
    rows = [json.loads(line) for line in (SAMPLE_DIR / "acme-rocket.jsonl").read_text().splitlines() if line.strip()]
    pulls = [PullRequest.from_export(r) for r in rows]
    with FakeGitHub(pulls, repo="acme/rocket", files={"CHANGELOG.md": CHANGELOG}) as gh:
        config = {"repo": "acme/rocket", "tz": "Europe/Berlin", "source": "github",
                  "changelog": {"path": "CHANGELOG.md", "sections": {"Added": "key", "Internal": "minor"}}}
        watchlist = WatchList.parse(json.dumps({"defaults": {"language": "en"}, "repos": [config]}))
        source = GitHubSource(api_url=gh.url, max_tries=1)
        stack = local(watchlist, sources=lambda _name: source)
        # WHEN a week is reported
        _, report = run_week(stack, WEEK)
        # THEN its PRs carry the CHANGELOG's verdicts, read by the plan alone (the report does not read it again)
        assert verdicts(report) == {1210: "key", 1211: "minor"}
        assert [p for p, _ in gh.log if "/contents/" in p] == ["/repos/acme/rocket/contents/CHANGELOG.md"]


def _text(body: bytes | None) -> str:
    assert body is not None
    return body.decode()


@pytest.mark.skipif(not VERL_EXPORT.exists(), reason="the shared verl export is not here")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_with_no_judgements_the_report_is_what_it_was(lang: str) -> None:
    # GIVEN a verl week reported without the judgements setting, and with an empty list of them
    week = {"repo": "verl-project/verl", "since": "2026-06-15", "until": "2026-06-21"}
    out = []
    for extra in ({}, {"judgements": []}):
        config = {"repo": "verl-project/verl", "source": f"jsonl:{VERL_EXPORT}", **extra}
        stack = local(WatchList.parse(json.dumps({"defaults": {"language": lang}, "repos": [config]})))
        _, report = run_week(stack, week)
        prefix = f"verl-project/verl/reports/{week['since']}-to-{week['until']}/"
        out.append((report, stack.bucket.get(prefix + "report.md"), stack.bucket.get(prefix + "report.json")))
    (plain, plain_md, plain_json), (empty, empty_md, empty_json) = out
    # THEN the two agree byte for byte (on one clock), and neither says a word on learning
    assert "learning" not in plain and not any("judged" in p for p in plain["prs"])
    assert _text(plain_md) == _text(empty_md)
    assert _text(plain_json) == _text(empty_json)


def test_a_watch_list_judgements_file_naming_an_unknown_pr_is_a_warning(tmp_path: Path) -> None:
    # An unknown PR is left out with a warning (issue 48): a typo in one line does not lose the week's report.
    path = tmp_path / "judgements.jsonl"
    path.write_text('{"pr": 99999, "verdict": "key"}\n')
    stack = stack_for(tmp_path, judgements=f"jsonl:{path}")
    from prhub.flow.plan import plan

    [run] = plan(LAST, stack.deps)
    assert f"judgements name PRs {REPO} has no record of, left out: #99999" in run["warnings"]
    assert stack.queue.depth(SETTINGS.score_queue_url) > 0
