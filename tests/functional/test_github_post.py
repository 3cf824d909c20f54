"""The github channel against the fake GitHub: one post per report, edited by a new revision, found again by its
marker, the previous one closed; every refusal a clear failure of its own, the other channels still told.

The fake (tests.fakes.github_server) keeps the issues and discussions it is sent, and refuses as GitHub documents
(403 without the permission, 404 for a repository the token cannot see, 410 with issues turned off, 422 for a
missing label, rate limits with Retry-After or x-ratelimit-remaining 0).
"""
from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests
from prhub.cloud import aws
from prhub.core.channels import Target, parse_channel
from prhub.flow.deliver import deliver_one
from prhub.flow.delivery_deps import DeliveryDeps
from prhub.flow.messages import DeliveryMessage
from prhub.notify.delivery import deliver_post, idempotent
from prhub.notify.github_post import BODY_LIMIT, GitHubApi, Post, Where, build_post, publish

from prhub_local.template import Stack
from tests.fakes.chat_servers import FakeChat, VirtualClock
from tests.fakes.github_server import FakeGitHub

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SITE = "https://reports.example.org"
REPO = "example-org/trainer"
TOKEN = "ghs_fake_token_for_tests"


def golden(name: str = "zh-week") -> tuple[dict[str, Any], str]:
    folder = GOLDEN / name
    return (json.loads((folder / "report.json").read_text(encoding="utf-8")),
            (folder / "report.md").read_text(encoding="utf-8"))


def where(report: dict[str, Any], site: str = SITE) -> Where:
    period = report["period"]
    return Where(base=report["repo"], since=period["since"], until=period["until"], lang=report["language"],
                 site_url=site)


def post_of(report: dict[str, Any], markdown: str, **channel: Any) -> Post:
    spec = {"channel": "github", **channel}
    return build_post(parse_channel(spec), report, markdown, where(report), report["repo"])


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub([], repo=REPO, token=TOKEN) as fake:
        yield fake


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def api(gh: FakeGitHub, http: requests.Session, clock: VirtualClock | None = None) -> GitHubApi:
    return GitHubApi(http, gh.url, TOKEN, (clock or VirtualClock()).time)


def earlier(report: dict[str, Any], days: int = 7) -> dict[str, Any]:
    """The same report a week before (its title, period and marker moved)."""
    from datetime import date, timedelta

    doc = copy.deepcopy(report)
    for key in ("since", "until"):
        doc["period"][key] = (date.fromisoformat(doc["period"][key]) - timedelta(days=days)).isoformat()
    doc["title"] = doc["title"] + " (earlier)"
    return doc


# -- the post ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, heading", [("zh-week", "## 附录"), ("en-small", "## Appendix")])
def test_the_body_is_the_brief_cut_at_the_appendix_with_links_to_the_site(name: str, heading: str) -> None:
    report, markdown = golden(name)
    assert f"\n{heading}\n" in markdown  # the renderer's own appendix heading
    post = post_of(report, markdown)
    period = report["period"]
    page = f"{SITE}/{report['repo']}/reports/{period['since']}-to-{period['until']}/"
    assert post.title == report["title"]
    assert post.body.startswith(f"<!-- prhub:report {report['repo']} {period['since']}..{period['until']} "
                                f"{report['language']} -->")
    assert f"({page})" in post.body and f"({page}report.pdf)" in post.body
    assert heading not in post.body and "| rollout | 2 |" not in post.body  # the appendix stays on the site
    assert post.body.rstrip().endswith(f"]({page})")  # the appendix is a link away
    # report.md's relative links now point into the report's folder on the site; a PR's link to its page there
    assert "(<index.html>)" not in post.body  # no relative link: the report's own links stay below the appendix
    key = next(p for p in report["prs"] if p["key"])
    assert f"(<{SITE}/{report['repo']}/pull/{key['number']}/>)" in post.body
    assert f"(<{key['url']}>)" not in post.body
    assert not post.body.lstrip().startswith("# ")  # the title is the post's title, not repeated


def test_without_a_site_the_body_keeps_no_relative_link() -> None:
    report, markdown = golden()
    post = build_post(parse_channel({"channel": "github"}), report, markdown, where(report, site=""), REPO)
    assert "](<index.html>)" not in post.body and "](report.pdf)" not in post.body  # no link GitHub would misread
    assert f"(<{report['prs'][0]['url']}>)" in post.body  # PRs link to GitHub when there is no site


def test_a_huge_report_is_cut_to_githubs_body_limit(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    wide = "## 关键变更\n\n" + "\n\n".join(f"### 模块 {i}\n\n" + "很长的说明🙂" * 400 for i in range(40))
    brief, appendix = markdown.split("\n## 附录\n", 1)
    post = post_of(report, brief + "\n" + wide + "\n\n## 附录\n" + appendix)
    assert len(post.body) < BODY_LIMIT and len(post.body.encode("utf-16-le")) // 2 <= BODY_LIMIT
    assert "正文过长" in post.body and post.body.startswith("<!-- prhub:report")
    verdict = publish(api(gh, http), post)
    assert verdict.kind == "delivered", verdict  # the fake refuses bodies over the limit with a 422


# -- issues -----------------------------------------------------------------------------------------------------

def test_an_issue_is_created_once_then_edited_and_found_again_by_its_marker(gh: FakeGitHub,
                                                                            http: requests.Session) -> None:
    report, markdown = golden()
    post = post_of(report, markdown, labels=["weekly"])
    first = publish(api(gh, http), post)
    assert first.kind == "delivered" and first.post is not None, first
    [issue] = gh.issues.values()
    assert (issue["title"], issue["body"], [x["name"] for x in issue["labels"]]) == (post.title, post.body,
                                                                                      ["weekly"])
    assert first.post == {"mode": "issue", "repo": REPO, "number": issue["number"], "url": issue["html_url"],
                          "author": gh.login}
    # The same post again without the ledger's record: found by its marker, left as it is.
    again = publish(api(gh, http), post)
    assert again.kind == "delivered" and "unchanged" in again.detail and len(gh.issues) == 1
    assert gh.counts["issue_edit"] == 0
    # A new revision: the same issue edited, by the ledger's record (no listing needed).
    revised = replace(post, body=post.body.replace("本周共合并", "修订后：本周共合并"))
    calls = api(gh, http)
    edited = publish(calls, revised, first.post)
    assert edited.kind == "delivered" and "edited" in edited.detail, edited
    assert len(gh.issues) == 1 and issue["body"] == revised.body and gh.counts["issue_edit"] == 1
    assert [c for c in calls.calls if c.startswith("GET")] == []


def test_a_post_deleted_on_github_is_made_again_by_the_next_revision(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    for spec in ({}, {"mode": "discussion", "category": "General"}):
        post = post_of(report, markdown, **spec)
        first = publish(api(gh, http), post)
        assert first.post is not None
        gh.issues.clear()  # a maintainer deleted it
        gh.discussions.clear()
        again = publish(api(gh, http), replace(post, body=post.body + "\nrevised\n"), first.post)
        assert again.kind == "delivered" and "created" in again.detail, again
        assert len(gh.issues) + len(gh.discussions) == 1


def test_close_previous_closes_the_earlier_weeks_issue_only(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    last_week = publish(api(gh, http), post_of(earlier(report), markdown, close_previous=True))
    in_english = build_post(parse_channel({"channel": "github"}), earlier(report), markdown,
                            replace(where(earlier(report)), lang="en"), REPO)
    other_lang = publish(api(gh, http), in_english)
    assert last_week.post and other_lang.post
    this_week = publish(api(gh, http), post_of(report, markdown, close_previous=True))
    assert this_week.kind == "delivered" and f"closed #{last_week.post['number']}" in this_week.detail, this_week
    states = {n: i["state"] for n, i in gh.issues.items()}
    assert states == {last_week.post["number"]: "closed", other_lang.post["number"]: "open",
                      this_week.post["number"]: "open"}  # type: ignore[index]
    assert gh.issues[last_week.post["number"]]["state_reason"] == "completed"


def test_a_write_whose_answer_never_came_is_not_posted_twice(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    gh.inject("lost", path=r"/issues$")
    clock = VirtualClock()
    target = Target(channel="github", label="github:issue", url=gh.url, secret=TOKEN)
    outcome = deliver_post(target, post_of(report, markdown), http=http, clock=clock.time, sleep=clock.sleep)
    assert outcome.kind == "delivered" and outcome.attempts == 2, outcome
    assert len(gh.issues) == 1 and gh.counts["issue_create_lost"] == 1 and gh.counts["issue_create"] == 0
    assert outcome.post and outcome.post["number"] == next(iter(gh.issues))


@pytest.mark.parametrize("setup, cause", [
    (lambda gh: gh.can_write.discard("issues"), "may not write issues in example-org/trainer (HTTP 403"),
    (lambda gh: setattr(gh, "issues_enabled", False), "issues are turned off in example-org/trainer"),
    (lambda gh: gh.repo_labels.discard("weekly"), "label(s) weekly do not exist in example-org/trainer"),
])
def test_each_refusal_is_a_permanent_failure_naming_its_cause(gh: FakeGitHub, http: requests.Session, setup: Any,
                                                              cause: str) -> None:
    report, markdown = golden()
    setup(gh)
    verdict = publish(api(gh, http), post_of(report, markdown, labels=["weekly"]))
    assert verdict.kind == "permanent" and cause in verdict.detail, verdict
    assert gh.issues == {}


def test_a_repository_the_token_cannot_see_is_named(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    verdict = publish(api(gh, http), post_of(report, markdown, repo="example-org/private"))
    assert verdict.kind == "permanent" and "repository example-org/private not found, or the token cannot see it" \
        in verdict.detail, verdict


def test_rate_limits_are_waited_for_as_github_says(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    clock = VirtualClock(1_780_000_000.0)
    gh.clock = clock.time
    target = Target(channel="github", label="github:issue", url=gh.url, secret=TOKEN)
    gh.inject("403-retry-after", path=r"/issues$", retry_after=7)
    gh.inject("429", path=r"/issues$", retry_after=3)
    outcome = deliver_post(target, post_of(report, markdown), http=http, clock=clock.time, sleep=clock.sleep)
    assert outcome.kind == "delivered" and clock.sleeps == [7.0, 3.0], (outcome, clock.sleeps)
    # The primary limit spent: x-ratelimit-remaining 0 until a reset further off than a Lambda should sleep.
    gh.inject("exhausted", path=r"/issues", reset_in=1800)
    later = deliver_post(target, post_of(earlier(report), markdown), http=http, clock=clock.time, sleep=clock.sleep)
    assert later.kind == "throttled" and later.deferred and 1790 <= (later.retry_after or 0) <= 1800, later
    assert "rate limit" in later.detail and len(gh.issues) == 1


# -- discussions ------------------------------------------------------------------------------------------------

def test_a_discussion_is_created_edited_and_the_previous_one_closed(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    spec = {"mode": "discussion", "category": "Announcements", "close_previous": True}
    before = publish(api(gh, http), post_of(earlier(report), markdown, **spec))
    assert before.kind == "delivered" and before.post, before
    first = publish(api(gh, http), post_of(report, markdown, **spec))
    assert first.kind == "delivered" and first.post and first.post["id"] != before.post["id"], first
    assert f"closed #{before.post['number']}" in first.detail
    d = gh.discussions[first.post["id"]]
    assert (d["title"], d["category"], d["closed"]) == (report["title"], gh.categories["Announcements"], False)
    old = gh.discussions[before.post["id"]]
    assert (old["closed"], old["state_reason"]) == (True, "OUTDATED")
    # found again by its marker (no ledger record): unchanged; then edited by the record
    assert "unchanged" in publish(api(gh, http), post_of(report, markdown, **spec)).detail
    revised = post_of(report, markdown.replace("本周共合并", "修订后：本周共合并"), **spec)
    assert "edited" in publish(api(gh, http), revised, first.post).detail
    assert len(gh.discussions) == 2 and d["body"] == revised.body


@pytest.mark.parametrize("setup, spec, cause", [
    (lambda gh: gh.can_write.discard("discussions"), {}, "may not write discussions in example-org/trainer"),
    (lambda gh: setattr(gh, "discussions_enabled", False), {}, "discussions are turned off in example-org/trainer"),
    (lambda gh: None, {"category": "Ideas"}, "no discussion category 'Ideas' in example-org/trainer"),
    (lambda gh: None, {"repo": "example-org/private"}, "repository example-org/private not found"),
])
def test_each_discussion_refusal_names_its_cause(gh: FakeGitHub, http: requests.Session, setup: Any,
                                                 spec: dict[str, Any], cause: str) -> None:
    report, markdown = golden()
    setup(gh)
    verdict = publish(api(gh, http), post_of(report, markdown, **{"mode": "discussion", "category": "General",
                                                                   **spec}))
    assert verdict.kind == "permanent" and cause in verdict.detail, verdict
    assert gh.discussions == {}


def test_a_lost_create_discussion_answer_is_not_posted_twice(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    gh.inject("lost", path="graphql", query="createDiscussion")
    clock = VirtualClock()
    target = Target(channel="github", label="github:discussion", url=gh.url, secret=TOKEN)
    outcome = deliver_post(target, post_of(report, markdown, mode="discussion", category="General"), http=http,
                           clock=clock.time, sleep=clock.sleep)
    assert outcome.kind == "delivered" and outcome.attempts == 2 and len(gh.discussions) == 1, outcome


def test_graphql_rate_limits_are_throttled(gh: FakeGitHub, http: requests.Session) -> None:
    report, markdown = golden()
    clock = VirtualClock()
    gh.inject("secondary", path="graphql", query="createDiscussion", retry_after=5)
    target = Target(channel="github", label="github:discussion", url=gh.url, secret=TOKEN)
    outcome = deliver_post(target, post_of(report, markdown, mode="discussion", category="General"), http=http,
                           clock=clock.time, sleep=clock.sleep)
    assert outcome.kind == "delivered" and clock.sleeps == [5.0] and len(gh.discussions) == 1, outcome


# -- through the delivery service: the other channels are told whatever GitHub answers ---------------------------

KEY = f"{REPO}/reports/2026-05-04-to-2026-05-10/"


@pytest.fixture
def published(stack: Stack) -> Stack:
    """The golden report published at its key in the stack's bucket."""
    s3 = aws.client("s3")
    for name in ("report.json", "report.md"):
        s3.put_object(Bucket=stack.buckets["SiteBucket"], Key=KEY + name,
                      Body=(GOLDEN / "zh-week" / name).read_bytes())
    return stack


def service(gh: FakeGitHub, clock: VirtualClock) -> DeliveryDeps:
    return replace(DeliveryDeps.from_env(), clock=clock.time, sleep=clock.sleep, github_api_url=gh.url,
                   github_token=lambda: TOKEN)


def job(channel: dict[str, Any], run_id: str = "run-1") -> DeliveryMessage:
    return DeliveryMessage(run_id, KEY, "zh", parse_channel(channel))


@pytest.mark.parametrize("setup, spec, cause", [
    (lambda gh: gh.can_write.clear(), {}, "may not write issues"),
    (lambda gh: None, {"repo": "example-org/private"}, "cannot see it"),
    (lambda gh: setattr(gh, "issues_enabled", False), {}, "issues are turned off"),
    (lambda gh: None, {"labels": ["nonexistent"]}, "label(s) nonexistent do not exist"),
    (lambda gh: gh.can_write.clear(), {"mode": "discussion", "category": "General"}, "may not write discussions"),
])
def test_a_refused_post_is_given_up_and_the_other_channels_are_told(published: Stack, gh: FakeGitHub, setup: Any,
                                                                    spec: dict[str, Any], cause: str) -> None:
    clock = VirtualClock()
    setup(gh)
    deps = service(gh, clock)
    with FakeChat(clock=clock.time) as chat:
        hook = chat.hook("slack")
        told = deliver_one(job({"channel": "slack", "url": hook.url}), replace(deps, allow_literal=True))
        answer = deliver_one(job({"channel": "github", **spec}), deps)
    assert told["sent"] and len(hook.accepted) == 1
    assert answer["sent"] is False and answer["outcome"] == "permanent" and cause in answer["detail"], answer
    item = deps.ledger.get(KEY, answer["channel"])
    assert item is not None and item["status"] == "gave_up" and cause in item["detail"]
    assert gh.issues == {} and gh.discussions == {}


def test_a_rate_limited_post_is_deferred_and_posted_once_later(published: Stack, gh: FakeGitHub) -> None:
    clock = VirtualClock()
    gh.clock = clock.time
    deps = service(gh, clock)
    gh.inject("exhausted", path=r"/issues", reset_in=600)
    first = deliver_one(job({"channel": "github"}), deps)
    assert first["sent"] is False and first["deferred"] > 0, first  # a delayed copy of the message, this one done
    clock.now += 601
    second = deliver_one(job({"channel": "github"}), deps)
    assert second["sent"] is True and len(gh.issues) == 1, second
    third = deliver_one(job({"channel": "github"}), deps)  # redelivered: nothing changes
    assert third["sent"] is False and third["reason"] == "already delivered" and len(gh.issues) == 1


def test_the_ledger_keeps_the_post_and_a_new_revision_edits_it(published: Stack, gh: FakeGitHub) -> None:
    clock = VirtualClock()
    deps = service(gh, clock)
    first = deliver_one(job({"channel": "github"}), deps)
    assert first["sent"] and first["post"]["number"] in gh.issues
    item = deps.ledger.get(KEY, first["channel"])
    assert item is not None and item["post"]["number"] == first["post"]["number"]
    # the next revision of the report: what it says changed (and so did its notes and generated_at)
    s3 = aws.client("s3")
    text = (GOLDEN / "zh-week" / "report.md").read_text(encoding="utf-8").replace("本周共合并", "修订后：本周共合并")
    report = json.loads((GOLDEN / "zh-week" / "report.json").read_text(encoding="utf-8"))
    revised = {**report, "summary": "修订后：" + report["summary"], "revision": 2, "notes": ["revision 2"],
               "generated_at": "2026-05-12T02:00:00Z"}
    s3.put_object(Bucket=published.buckets["SiteBucket"], Key=KEY + "report.md", Body=text.encode())
    s3.put_object(Bucket=published.buckets["SiteBucket"], Key=KEY + "report.json", Body=json.dumps(revised).encode())
    gh.reset_counts()
    second = deliver_one(job({"channel": "github"}, "run-1"), deps)
    assert second["sent"] and second["kind"] == "update" and len(gh.issues) == 1, second
    assert gh.counts["issue_edit"] == 1 and gh.counts["issues"] == 0  # by the ledger's record: no listing
    assert "修订后" in next(iter(gh.issues.values()))["body"]
    # a run that only rewrote how it came about (its notes, its time) is no reason to edit the post
    again = {**revised, "notes": ["made again"], "generated_at": "2026-05-13T02:00:00Z", "revision": 1}
    s3.put_object(Bucket=published.buckets["SiteBucket"], Key=KEY + "report.json", Body=json.dumps(again).encode())
    third = deliver_one(job({"channel": "github"}, "run-2"), deps)
    assert third["sent"] is False and third["reason"] == "already delivered" and gh.counts["issue_edit"] == 1


def test_skip_empty_posts_nothing_for_a_week_without_merged_prs(published: Stack, gh: FakeGitHub) -> None:
    report = json.loads((GOLDEN / "zh-week" / "report.json").read_text(encoding="utf-8"))
    report["stats"]["pr_count"] = 0
    report["prs"] = []
    aws.client("s3").put_object(Bucket=published.buckets["SiteBucket"], Key=KEY + "report.json",
                                Body=json.dumps(report).encode())
    deps = service(gh, VirtualClock())
    answer = deliver_one(job({"channel": "github", "skip_empty": True}), deps)
    assert answer["sent"] is False and "skip_empty" in answer["reason"] and gh.issues == {}
    assert deps.ledger.get(KEY, answer["channel"]) is None


def test_the_default_token_is_the_stacks_github_secret(published: Stack, gh: FakeGitHub,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """DeliveryFunction posts with the secret GITHUB_TOKEN_SECRET names (template.yaml grants it), or a channel's
    own token_secret under the notify prefix."""
    secrets = aws.client("secretsmanager")
    secrets.create_secret(Name="prhub/github-token-test", SecretString=TOKEN)
    monkeypatch.setenv("GITHUB_TOKEN_SECRET", "prhub/github-token-test")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    deps = replace(DeliveryDeps.from_env(), clock=VirtualClock().time)
    assert deliver_one(job({"channel": "github"}), deps)["sent"] is True
    # a channel's own token, read by name; one outside the notify prefix is refused before anything is sent
    secrets.create_secret(Name="prhub/notify/other-token", SecretString="wrong-token")
    refused = deliver_one(job({"channel": "github", "token_secret": "prhub/notify/other-token",
                               "labels": ["report"]}), deps)
    assert refused["outcome"] == "permanent" and "rejected the token" in refused["detail"], refused
    outside = deliver_one(job({"channel": "github", "token_secret": "elsewhere/token", "labels": ["weekly"]}), deps)
    assert outside["outcome"] == "permanent" and "outside" in outside["detail"]
    assert len(gh.issues) == 1


def test_github_post_is_idempotent_for_the_ledger() -> None:
    assert idempotent("github") is True


def test_the_digest_is_posted_to_the_repository_its_channel_names(gh: FakeGitHub, http: requests.Session) -> None:
    """The organisation digest (`_digest/<range>/`) has no repository of its own: its channel's `repo` takes it,
    its marker names the digest, its report in the channel's language is the one chosen."""
    from prhub.flow.deliver import load_report

    from tests.fakes.memory import MemoryBucket

    bucket = MemoryBucket()
    key = "_digest/2026-05-04-to-2026-05-10/"
    for lang, title in (("", "Example org weekly digest"), ("zh/", "示例组织周报")):
        doc = {"title": title, "language": "zh" if lang else "en", "stats": {"pr_count": 9},
               "period": {"since": "2026-05-04", "until": "2026-05-10"}}
        bucket.put(f"{key}{lang}report.json", json.dumps(doc).encode(), "application/json", "")
        bucket.put(f"{key}{lang}report.md", f"# {title}\n\n## Top\n\n[report.pdf](report.pdf)\n".encode(),
                   "text/markdown", "")
    channel = parse_channel({"channel": "github", "repo": REPO, "lang": "zh"})
    report, markdown, where_ = load_report(bucket, SITE, DeliveryMessage("digest:x", key, "en", channel))
    post = build_post(channel, report, markdown, where_, "")
    assert (post.repo, post.title, where_.base, where_.lang_dir) == (REPO, "示例组织周报", "_digest", "zh")
    assert post.body.startswith("<!-- prhub:report _digest 2026-05-04..2026-05-10 zh -->")
    page = f"{SITE}/_digest/2026-05-04-to-2026-05-10/zh/"  # the digest's folder: _digest/<range>/, no reports/
    assert f"]({page})" in post.body and f"(<{page}report.pdf>)" in post.body
    verdict = publish(api(gh, http), post)
    assert verdict.kind == "delivered" and next(iter(gh.issues.values()))["title"] == "示例组织周报"
