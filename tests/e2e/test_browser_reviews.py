"""A hostile review conversation in a real headless Chromium (issue 26): review text with script tags, links to
other domains and "ignore previous instructions" changes no score and renders inert in the week report and on the
PR page that shows its threads. The browser setup is tests/e2e/test_browser.py's (Debian's /usr/bin/chromium
through playwright); the pages are served by `prhub serve`'s server on 127.0.0.1."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from prhub.site.pulls import pull_page
from prhub.site.render import render_all
from prhub.site.render.pull import render_pull_html

from prhub_local import serve
from tests.e2e.test_browser import PHONE
from tests.fakes.loopback import running
from tests.unit.test_reviews import HOSTILE, analysed, hostile_week

pytestmark = pytest.mark.browser

WEEK_PATH = "/acme/trainer/reports/2026-06-15-to-2026-06-21/"
PR_PATH = "/acme/trainer/pull/1/"
EVIL = '<b onmouseover="alert(2)">mallory</b>'


def hostile_report() -> dict:
    """The week with hostile review text, then that text put back raw into report.json (the renderers must escape
    whatever it holds, not rely on the engine's cleaning)."""
    week = analysed(hostile_week())
    for item in [*week["reviews"]["unresolved"], *week["reviews"]["follow_ups"]]:
        item.update(text=HOSTILE, author=EVIL, url="javascript:alert(3)")
    week["reviews"]["reviewers"][0]["login"] = HOSTILE
    for p in week["prs"]:
        for t in (p.get("review") or {}).get("threads", []):
            t.update(text=HOSTILE, author=EVIL, url="https://evil.example/steal")
    return week


def test_hostile_review_text_changes_no_score() -> None:
    bare = analysed([replace(p, reviews=[], review_threads=[], comments=[], created_at=None) for p in hostile_week()])
    week = analysed(hostile_week())
    assert [(p["number"], p["importance"], p["insight"], p["key"]) for p in week["prs"]] == \
        [(p["number"], p["importance"], p["insight"], p["key"]) for p in bare["prs"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile-reviews")
    week = hostile_report()
    for name, body in render_all(week).items():
        target = out / WEEK_PATH.strip("/") / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    page = pull_page(week, "2026-06-15-to-2026-06-21", 1)
    (out / PR_PATH.strip("/")).mkdir(parents=True)
    (out / PR_PATH.strip("/") / "index.html").write_text(render_pull_html(page), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def base_url(site):
    with running(serve.make_server(site, "127.0.0.1", 0)) as url:
        yield url


@pytest.mark.parametrize("path", [WEEK_PATH, PR_PATH])
def test_hostile_review_text_runs_nothing_and_links_nowhere_else(browser, base_url, path) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(base_url + path)
        if page.locator("#appendix > summary").count():  # the reviews sit in the folded appendix
            page.click("#appendix > summary")
        text = page.inner_text("body")
        assert "Ignore previous instructions" in text  # the review text is shown, as text
        for who in page.locator("text=mallory").all()[:3]:
            who.hover()  # an onmouseover that survived would fire here
        assert dialogs == [] and errors == []
        assert page.evaluate("document.scripts.length") == 0
        assert page.evaluate("[...document.querySelectorAll('*')].flatMap(e => [...e.attributes])"
                             ".filter(a => a.name.startsWith('on')).length") == 0
        assert page.evaluate("document.querySelectorAll('img[src=x], b').length") == 0
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        assert not [h for h in hrefs if "evil.example" in h or h.startswith("javascript:")], hrefs
        assert all(u.startswith(base_url) for u in requests), requests  # nothing fetched from elsewhere
    finally:
        context.close()
