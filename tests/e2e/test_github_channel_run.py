"""A week through the watch list with `github` channels (an issue and a discussion) against the fake GitHub.

The sample repository, thinned (tests.e2e.test_delivery_run), is reported through the real handlers on moto; its
watch list subscribes an issue channel and a discussion channel (both `close_previous` and `skip_empty`) and a
Slack hook. GIVEN last week's posts, WHEN this week is reported THEN one issue and one discussion carry the report's
title and a body linking the report, and last week's are closed; `prhub judge` on one of its PRs edits both (no
second post); running the week again changes nothing; an empty week posts nothing (Slack still hears of it).
A second test: a token that may not write anything leaves both github channels given up, each saying why, and
Slack told.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prhub_local.judge import judge
from prhub_local.runner import run_pipeline
from prhub_local.sample import sample_settings
from tests.e2e.test_delivery_run import quiet, thinned
from tests.fakes.chat_servers import FakeChat
from tests.fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
SITE = "https://acme.github.io/rocket"
TOKEN = "ghs_" + uuid.uuid4().hex
LAST_WEEK = {"since": "2026-05-25", "until": "2026-05-31"}
WEEK = {"since": "2026-06-01", "until": "2026-06-07"}
EMPTY_WEEK = {"since": "2026-06-15", "until": "2026-06-21"}  # the export has a PR after it, none in it


@pytest.fixture
def gh(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub([], repo="acme/rocket", token=TOKEN) as fake:
        monkeypatch.setenv("GITHUB_API_URL", fake.url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("SITE_URL", SITE)
        yield fake


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with FakeChat() as fake:
        yield fake


def watchlist(tmp_path: Path, slack_url: str) -> dict[str, Any]:
    rocket, _ = thinned(tmp_path, "acme/rocket")
    rows = rocket.read_text(encoding="utf-8").splitlines()
    last = json.loads(rows[-1])
    later = {**last, "number": 4321, "merged_at": "2026-06-23T09:00:00Z",
             "html_url": last["html_url"].replace(f"/{last['number']}", "/4321")}
    rocket.write_text("\n".join([*rows, json.dumps(later)]) + "\n", encoding="utf-8")
    both = {"close_previous": True, "skip_empty": True}
    return {"defaults": {"language": "en"}, "repos": [{**sample_settings()["config"], "source": f"jsonl:{rocket}",
                                                       "notify": [
        {"channel": "github", "labels": ["weekly"], **both},
        {"channel": "github", "mode": "discussion", "category": "Announcements", **both},
        {"channel": "slack", "url": slack_url}]}]}


def test_a_week_posts_one_issue_and_one_discussion_edited_by_judge_and_never_twice(
        tmp_path: Path, gh: FakeGitHub, chat: FakeChat) -> None:
    hook = chat.hook("slack")
    config = json.dumps(watchlist(tmp_path, hook.url))
    prefix = "g" + uuid.uuid4().hex[:10]
    state, out = tmp_path / "state", tmp_path / "site"

    def run(week: dict[str, str]) -> Any:
        return run_pipeline(config_text=config, **week, prefix=prefix, state=state, out=out, progress=quiet)

    # GIVEN last week reported: its issue and discussion
    run(LAST_WEEK)
    assert len(gh.issues) == 1 and len(gh.discussions) == 1
    [old_issue], [old_discussion] = gh.issues.values(), gh.discussions.values()

    # WHEN this week is reported
    result = run(WEEK)
    [key] = result.report_keys
    report = json.loads((out / key / "report.json").read_text(encoding="utf-8"))
    page = f"{SITE}/{key}"
    # THEN one new issue and one new discussion, with the report's title and a body linking the report
    assert len(gh.issues) == 2 and len(gh.discussions) == 2
    [issue] = [i for i in gh.issues.values() if i is not old_issue]
    [discussion] = [d for d in gh.discussions.values() if d is not old_discussion]
    for post in (issue, discussion):
        assert post["title"] == report["title"]
        assert f"]({page})" in post["body"] and f"]({page}report.pdf)" in post["body"]
        assert "<!-- prhub:report acme/rocket 2026-06-01..2026-06-07 en -->" in post["body"]
    assert [x["name"] for x in issue["labels"]] == ["weekly"]
    pr = next(p for p in report["prs"] if not p["key"])
    assert f"{SITE}/acme/rocket/pull/" in issue["body"]
    # and last week's are closed, this week's open
    assert (old_issue["state"], issue["state"]) == ("closed", "open")
    assert (old_discussion["closed"], discussion["closed"]) == (True, False)
    assert len(hook.accepted) == 2

    # WHEN a maintainer judges one of its PRs key: the new revision edits both posts, nothing new is posted
    before = (issue["body"], discussion["body"])
    gh.reset_counts()
    made = judge("acme/rocket", [pr["number"]], [], state=state, config_text=config,
                 out=out, prefix=prefix)
    assert [m["report_key"] for m in made] == [key]
    assert len(gh.issues) == 2 and len(gh.discussions) == 2
    assert issue["body"] != before[0] and discussion["body"] != before[1]
    assert gh.counts["issue_create"] == 0 and gh.counts["issue_edit"] == 1
    revised = json.loads((out / key / "report.json").read_text(encoding="utf-8"))
    assert revised["revision"] == 2 and revised["title"] == issue["title"]

    # WHEN the week is run again: no post made, edited or closed
    snapshot = json.dumps([gh.issues, gh.discussions], sort_keys=True)
    gh.reset_counts()
    run(WEEK)
    assert json.dumps([gh.issues, gh.discussions], sort_keys=True) == snapshot
    assert gh.counts["issue_create"] == gh.counts["issue_edit"] == gh.counts["graphql_mutation"] == 0

    # WHEN a week without a merged PR is reported: skip_empty posts nothing (and closes nothing); Slack hears of it
    empty = run(EMPTY_WEEK)
    assert [json.loads((out / k / "report.json").read_text(encoding="utf-8"))["stats"]["pr_count"]
            for k in empty.report_keys] == [0]
    assert json.dumps([gh.issues, gh.discussions], sort_keys=True) == snapshot
    assert len(hook.accepted) == 3


def test_a_token_without_write_permission_fails_both_posts_and_slack_is_told(
        tmp_path: Path, gh: FakeGitHub, chat: FakeChat, caplog: pytest.LogCaptureFixture) -> None:
    gh.can_write.clear()
    hook = chat.hook("slack")
    config = watchlist(tmp_path, hook.url)
    prefix = "g" + uuid.uuid4().hex[:10]
    run_pipeline(config_text=json.dumps(config), **WEEK, prefix=prefix, state=None,
                 out=tmp_path / "site", progress=quiet)
    assert len(hook.accepted) == 1 and gh.issues == {} and gh.discussions == {}
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "may not write issues in acme/rocket" in said and "may not write discussions in acme/rocket" in said
    assert TOKEN not in said
