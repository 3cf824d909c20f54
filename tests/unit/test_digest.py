"""The organisation digest (prhub.report.digest): its numbers are the reports' own, and every rendering shows them."""
from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from typing import Any

import pytest
from prhub.core.channels import Target
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.core.period import Period
from prhub.notify import slack
from prhub.notify.message import digest_message
from prhub.report.digest import build, folder
from prhub.site.render.digest import render_digest_html, render_digest_markdown

from tests.golden.cases import hostile_report, load
from tests.unit.render_support import parse_html

PERIOD = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")


def report(repo: str, base: str = "zh-week") -> dict[str, Any]:
    doc = copy.deepcopy(load(base))
    doc["repo"] = repo
    for pr in doc["prs"]:
        pr["url"] = f"https://github.com/{repo}/pull/{pr['number']}"
    return doc


def inputs() -> dict[str, tuple[str, dict[str, Any]] | None]:
    rocket, booster = report("acme/rocket"), report("acme/booster", "en-small")
    booster["prs"][0]["importance"] = 9.9  # the top PR across repositories comes from the smaller one
    return {"acme/rocket": ("acme/rocket/reports/2026-05-04-to-2026-05-10/", rocket),
            "acme/booster": ("acme/booster/reports/2026-05-04-to-2026-05-10/", booster), "acme/late": None}


def test_the_digest_counts_what_the_reports_hold_and_names_the_missing() -> None:
    given = inputs()
    digest = build("", PERIOD, "en", "2026-05-11T03:00:00Z", given)
    reports = [r for _, r in filter(None, given.values())]
    prs = [p for r in reports for p in r["prs"]]
    assert digest["schema"] == "prhub.digest/1" and digest["missing"] == ["acme/late"] and not digest["complete"]
    assert digest["stats"] == {
        "repo_count": 3, "reported": 2, "pr_count": sum(r["stats"]["pr_count"] for r in reports),
        "key_pr_count": sum(r["stats"]["key_pr_count"] for r in reports),
        "breaking_count": sum(1 for p in prs if p["breaking"]),
        "risk_count": sum(len(k["prs"]) for r in reports for k in r["risks"]),
        "avg_importance": digest["stats"]["avg_importance"]}
    assert [r["repo"] for r in digest["repos"]] == ["acme/booster", "acme/rocket"]
    top = digest["top_prs"]
    assert len(top) == sum(1 for p in prs if p["key"]) and top[0]["repo"] == "acme/booster"
    assert [p["importance"] for p in top] == sorted((p["importance"] for p in top), reverse=True)
    assert [(b["repo"], b["number"]) for b in digest["breaking"]] == [("acme/rocket", 4101)]
    shared = {(t["kind"], t["name"]) for t in digest["themes"]}
    assert ("module", "trainer") in shared and ("module", "ci") in shared  # in both repositories
    assert ("module", "rollout") not in shared  # in one only
    assert digest["title"] == "Organisation digest weekly report, 2026-W19, May 4–10"
    assert "acme/late" in digest["summary"] and str(digest["stats"]["pr_count"]) in digest["summary"]
    assert folder(PERIOD) == "_digest/2026-05-04-to-2026-05-10/"


def test_the_web_page_and_markdown_show_the_numbers_and_escape_pr_text() -> None:
    given = inputs()
    given["acme/evil"] = ("acme/evil/reports/2026-05-04-to-2026-05-10/", hostile_report())
    digest = build("Acme weekly", PERIOD, "zh", "2026-05-11T03:00:00Z", given)
    html, md = render_digest_html(digest), render_digest_markdown(digest, "https://reports.example")
    for row in digest["repos"]:
        counts = f"合并 {row['pr_count']} · 关键 {row['key_pr_count']} · 破坏性 {row['breaking_count']} · " \
                 f"风险 {row['risk_count']}"
        assert counts in html and counts in md
    assert "acme/late" in html and "acme/late" in md
    tags = parse_html(html)
    assert not {"script", "img", "iframe"} & {t for t, _ in tags.tags}
    assert not [a for _, attrs in tags.tags for a in attrs if a.lower().startswith("on")]
    hrefs = [str(attrs["href"]) for t, attrs in tags.tags if "href" in attrs and t == "a"]
    assert hrefs and all(h.startswith(("https://", "../", "report.", "feed.xml")) for h in hrefs), hrefs
    assert "<script>alert(1)</script>" in "".join(tags.text)  # shown as text, not run
    assert not re.search(r"\]\((?!<?https?://)", md)  # no link Markdown did not write itself
    # The web page links reports and PRs inside the site, relatively; Markdown links PRs to GitHub.
    assert 'href="../../acme/rocket/reports/2026-05-04-to-2026-05-10/"' in html
    assert 'href="../../acme/rocket/pull/4101/"' in html
    assert "https://github.com/acme/rocket/pull/4101" in md
    assert "https://reports.example/acme/rocket/reports/2026-05-04-to-2026-05-10/" in md


def test_the_digest_message_carries_its_counts_and_links_and_fits_slack() -> None:
    digest = build("", PERIOD, "en", "2026-05-11T03:00:00Z", inputs())
    message = digest_message(digest, "https://reports.example/")
    s = digest["stats"]
    assert (message.counts.prs, message.counts.key_prs, message.counts.breaking, message.counts.risks) == (
        s["pr_count"], s["key_pr_count"], s["breaking_count"], s["risk_count"])
    assert message.page == "https://reports.example/_digest/2026-05-04-to-2026-05-10/"
    assert message.highlights[0].text.startswith("acme/booster: ")
    assert message.highlights[0].prs[0].page == "https://reports.example/acme/booster/pull/4107/"
    request = slack.build(message, Target("slack", "slack", "https://hooks.slack.example/x"), 0.0, "id")
    body = json.loads(request.body)
    assert digest["title"] in json.dumps(body, ensure_ascii=False) and len(body["blocks"]) <= 50


def test_the_digest_is_named_in_a_field_of_its_own_and_repo_keeps_working() -> None:
    from prhub.notify import webhook

    digest = build("Acme weekly", PERIOD, "en", "2026-05-11T03:00:00Z", inputs())
    message = digest_message(digest, "https://reports.example/")
    body = json.loads(webhook.build(message, Target("webhook", "w", "https://h.example/x"), 0.0, "id").body)
    # THEN the payload says it is the digest named so; `repo` keeps the name for receivers that read it
    assert (body["digest"], body["repo"], body["title"]) == ("Acme weekly", "Acme weekly", digest["title"])
    # AND a repository's report carries no digest field
    report = json.loads(webhook.build(replace(message, digest=""), Target("webhook", "w", "https://h"), 0.0,
                                      "id").body)
    assert "digest" not in report


def test_the_watch_list_reads_digest_and_org() -> None:
    watchlist = WatchList.parse(json.dumps({
        "defaults": {"language": "en", "tz": "Asia/Shanghai"}, "org": "acme", "exclude": ["*-archive"],
        "digest": {"title": "Acme weekly", "deadline_hours": 2.5,
                   "notify": [{"channel": "slack", "url_secret": "prhub/notify/acme"}]}}))
    assert watchlist.org == "acme" and watchlist.exclude == ("*-archive",)
    digest = watchlist.digest
    assert digest is not None and (digest.title, digest.deadline_hours, digest.language, digest.tz) == (
        "Acme weekly", 2.5, "en", "Asia/Shanghai")
    assert digest.notify[0].url_secret == "prhub/notify/acme"
    assert WatchList.parse('{"repos": []}').digest is None


@pytest.mark.parametrize(("doc", "message"), [
    ({"digest": {"titel": "x"}}, "unknown digest settings: 'titel'"),
    ({"digest": {"deadline_hours": -1}}, "deadline_hours"),
    ({"digest": {"deadline_hours": True}}, "deadline_hours"),
    ({"digest": {"notify": [{"channel": "pager"}]}}, r"digest.notify\[0\].channel"),
    ({"digest": []}, "digest must be an object"),
    ({"org": "not/an-org"}, "org must be"),
    ({"exclude": ["x"]}, "give org too"),
    ({"org": "acme", "exclude": "x"}, "exclude must be a list"),
])
def test_a_bad_digest_or_org_setting_is_refused_with_its_name(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        WatchList.parse(json.dumps(doc))


def test_the_digest_opens_with_its_brief_and_puts_the_counts_and_reviewers_in_its_appendix(tmp_path) -> None:
    from prhub.site.render.digest import render_digest_pdf

    from tests.unit.render_support import pdf_text

    digest = build("", PERIOD, "zh", "2026-05-11T03:00:00Z", inputs())
    md, html = render_digest_markdown(digest), render_digest_html(digest)
    brief, appendix = md.split("\n## 附录\n", 1)
    assert re.findall(r"(?m)^## (.+)", brief) == ["概览", "跨仓库的重要 PR", "破坏性变更", "共同主题", "截止时仍无报告"]
    assert re.findall(r"(?m)^##+ (.+)", appendix) == ["各仓库"]
    counts = f"合并 {digest['repos'][0]['pr_count']} · "
    assert counts not in brief and counts in appendix  # each repository's counts: below the brief
    folded = html.split('<details id="appendix" class="appendix">', 1)
    assert len(folded) == 2 and counts in folded[1] and counts not in folded[0]
    pdf = pdf_text(render_digest_pdf(digest), tmp_path)
    assert pdf.index("附录") < pdf.index(counts)


def test_a_zh_digest_says_its_pr_points_and_shared_types_in_chinese() -> None:
    # a digest of lmdeploy and tokio (2026-08-03) gave as key points the PRs' summaries, one quoting an English title
    # ("重构：“split api server endpoints”…"), and its shared themes read "类型 feat: 12 个 PR 见于 a, b"
    given = inputs()
    for _, doc in filter(None, given.values()):
        for pr in doc["prs"]:
            pr["headline"], pr["points"] = f"要点标题 {pr['number']}", [f"附带测试 {pr['number']}"]
            pr["summary"] = "新功能：“an English title quoted”"
    digest = build("", PERIOD, "zh", "2026-05-11T03:00:00Z", given)
    md = render_digest_markdown(digest)
    top = digest["top_prs"][0]
    assert top["points"] == [f"附带测试 {top['number']}"]
    assert f"附带测试 {top['number']}" in md and "an English title quoted" not in md.split("## 附录")[0]
    shared = [t for t in digest["themes"] if t["kind"] == "type"]
    zh_type = {"feat": "新功能", "fix": "修复", "refactor": "重构", "chore": "杂项", "docs": "文档", "perf": "性能"}
    assert shared and all(f"类型 {zh_type[t['name']]}：" in md for t in shared)
    assert "，见于 acme/booster、acme/rocket" in md or "，见于 acme/rocket、acme/booster" in md
    # the channels' message says the same of them
    from prhub.notify.message import digest_message
    said = [h.text for h in digest_message(digest, "").highlights]
    assert said[0] == f"{top['repo']}: 要点标题 {top['number']}"
    # en says a count of one as "1 PR"
    from prhub.site.render.digest import _theme_line, words
    line = _theme_line({"kind": "type", "name": "fix", "repos": ["a/b", "c/d"], "pr_count": 1}, "en", words("en"))
    assert line == "type fix: 1 PR in a/b, c/d"


def test_a_shared_theme_is_a_module_both_touched_this_period_and_a_place() -> None:
    # arrow-rs, gin and polars (2026-02-23) shared "misc" with 0 PRs: a module each report listed as fading
    given = inputs()
    for _, doc in filter(None, given.values()):
        doc["modules"] = [*doc["modules"], {"name": "misc", "pr_count": 0, "prs": [], "trend": "fading"},
                          {"name": "legacy", "pr_count": 0, "prs": [], "trend": "fading"},
                          {"name": "root", "pr_count": 2, "prs": [1, 2], "trend": "new"}]
    shared = {(t["kind"], t["name"]) for t in build("", PERIOD, "en", "2026-05-11T03:00:00Z", given)["themes"]}
    assert ("module", "trainer") in shared
    assert not {("module", "misc"), ("module", "legacy"), ("module", "root")} & shared
