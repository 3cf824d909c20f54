"""The published site in a real headless Chromium: navigation, CJK font, PDF link, feed, layout, console.

Builds a site the way the ReportFunction does (render_all, publish_report and
rebuild_indexes on a moto S3 bucket), copies the bucket to a directory, serves
it with `prhub serve`'s server (prhub_local.serve) on 127.0.0.1 and drives Debian's /usr/bin/chromium
through playwright. Screenshots go to tests/artifacts/ (gitignored).
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import boto3
import pytest
from moto import mock_aws
from prhub.cloud.aws import S3Bucket
from prhub.site import publish as site
from prhub.site.render import render_all

from prhub_local import serve
from tests.fakes.loopback import running
from tests.golden.cases import hostile_report, load

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
BUCKET = "prhub-browser-site"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    """A two-repository site: the Chinese golden week and a hostile week, built through the bucket."""
    out = tmp_path_factory.mktemp("site")
    hostile = hostile_report()
    hostile["repo"] = "evil-org/hostile"
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        for report in (load("zh-week"), hostile):
            site.publish_report(S3Bucket(s3, BUCKET), report, render_all(report))
            site.rebuild_indexes(S3Bucket(s3, BUCKET), report["repo"])
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
            for obj in page.get("Contents", []):
                target = out / obj["Key"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(s3.get_object(Bucket=BUCKET, Key=obj["Key"])["Body"].read())
    return out


VERL = "/verl-project/verl/"
VERL_WEEK = VERL + "reports/2026-05-04-to-2026-05-10/"


@pytest.fixture(scope="module")
def verl_site(site_dir):
    """The real verl week published in zh, then in en, with the pages of its first key PRs from the pages service."""
    from dataclasses import replace

    from prhub.core.config import WatchList
    from prhub.flow import pages
    from prhub.flow.messages import PagesMessage

    from bench.render_week import DATA, scored_week, week_history
    from tests.fakes.memory import memory_stack

    if not DATA.is_file():
        pytest.skip(f"{DATA} is absent (real data lives outside the repo)")
    keys: list[int] = []
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        bucket = S3Bucket(s3, BUCKET)
        stack = memory_stack(WatchList.parse('{"repos": [{"repo": "verl-project/verl", "language": "zh"}]}'))
        deps = replace(stack.deps, bucket=bucket)
        for lang in ("zh", "en"):
            report, scored = scored_week(lang)
            site.publish_report(bucket, report, render_all(report, "zh"), "zh")
            pages.publish_facts(report, scored, deps, week_history())  # as publish: before the dashboard
            site.rebuild_indexes(bucket, report["repo"], "", "zh")
            pages.queue_pages(report, "zh", scored, deps)  # as announce
            keys = [p["number"] for p in report["prs"] if p["key"]][:4]
            body = stack.queue.take("memory://pages")[0].body
            # the pages the test opens; the rest cost time
            pages.pages_message(PagesMessage.of({**body, "numbers": keys}), deps)
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix="verl-project/"):
            for obj in page.get("Contents", []):  # the site's root page stays the two-repository one
                target = site_dir / obj["Key"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(s3.get_object(Bucket=BUCKET, Key=obj["Key"])["Body"].read())
    return keys


def fits_a_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def test_week_to_pr_page_and_back_then_the_other_language(page, base_url, verl_site):
    ARTIFACTS.mkdir(exist_ok=True)
    number = verl_site[0]
    page.goto(base_url + VERL_WEEK)
    desktop = height(page)
    page.screenshot(path=str(ARTIFACTS / "verl-week-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert fits_a_phone(page)
    assert height(page) <= 2 * desktop, (height(page), desktop)  # the key-PR table reads as cards
    page.screenshot(path=str(ARTIFACTS / "verl-week-phone.png"), full_page=True)
    page.locator(f"#key-prs a[href='../../pull/{number}/']").first.click()
    page.wait_for_load_state()
    assert page.url == f"{base_url}{VERL}pull/{number}/"
    assert page.locator("h1").inner_text().startswith(f"#{number} ")
    assert fits_a_phone(page)
    page.screenshot(path=str(ARTIFACTS / "pull-phone.png"), full_page=True)
    page.click("header.site a.back")
    page.wait_for_load_state()
    assert page.url == base_url + VERL_WEEK
    page.click("header.site a.lang")
    page.wait_for_load_state()
    assert page.url == base_url + VERL_WEEK + "en/"
    assert "weekly report" in page.locator("h1").inner_text()
    page.locator(f"#key-prs a[href='../../../pull/{number}/en/']").first.click()
    page.wait_for_load_state()
    assert page.url == f"{base_url}{VERL}pull/{number}/en/" and fits_a_phone(page)
    page.click("header.site a.lang")
    page.wait_for_load_state()
    assert page.url == f"{base_url}{VERL}pull/{number}/"
    assert page.errors == []


def test_the_dashboard_draws_its_charts_and_fits_a_phone(page, base_url, verl_site):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(base_url + VERL)
    assert page.locator("svg.chart").count() >= 8 and page.evaluate("document.scripts.length") == 0
    # the history's charts: the three full weeks the run's source listed and the reported one; eight hatched
    assert page.locator("#weeks-12 .source").inner_text().startswith("合并 PR、模块占比、破坏性变更与回滚来自仓库")
    assert page.locator("#weeks-12 figure").first.locator("rect.nodata").count() == 8
    page.screenshot(path=str(ARTIFACTS / "dashboard-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert fits_a_phone(page)
    page.screenshot(path=str(ARTIFACTS / "dashboard-phone.png"), full_page=True)
    page.click("header.site a.lang")
    page.wait_for_load_state()
    assert page.url == base_url + VERL + "en/" and fits_a_phone(page)
    assert page.locator("#reports h3 a").first.inner_text().startswith("verl-project/verl weekly report")
    page.locator("#reports h3 a").first.click()
    page.wait_for_load_state()
    assert page.url == base_url + VERL_WEEK + "en/"
    assert page.errors == []


def test_the_week_folds_every_merged_pr_and_opens_it_on_a_phone(page, base_url, verl_site):
    # issue 25: two of the week's 34 PRs appeared nowhere on its page; now a folded list links every one
    from bench.render_week import build_week

    report = build_week("zh")
    page.set_viewport_size(PHONE)
    page.goto(base_url + VERL_WEEK)
    index = page.locator("#all-prs ul.pr-index")
    assert not index.is_visible()  # folded by default, in the appendix, itself folded below the brief
    assert page.locator("#highlights").is_visible() and not page.locator("#trends").is_visible()
    page.click("#appendix > summary")
    assert page.locator("#trends").is_visible() and not index.is_visible()
    page.click("#all-prs summary")
    assert index.is_visible() and fits_a_phone(page)
    hrefs = index.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert len(hrefs) == len(report["prs"]) + len(report["unscored"])
    assert {f"../../pull/{p['number']}/" for p in report["prs"]} <= set(hrefs)
    index.locator(f"a[href='../../pull/{verl_site[0]}/']").click()
    page.wait_for_load_state()
    assert page.url == f"{base_url}{VERL}pull/{verl_site[0]}/"
    # the dashboard draws key PRs and average importance on their own axes
    page.goto(base_url + VERL)
    assert page.locator("#weeks-12 figure svg[aria-label^='每周平均重要度']").count() == 1
    assert page.locator("#weeks-12 figure svg[aria-label^='每周关键 PR 数']").count() == 1
    assert page.errors == []


@pytest.fixture(scope="module")
def base_url(site_dir):
    with running(serve.make_server(site_dir, "127.0.0.1", 0)) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    yield page
    context.close()


def platform_fonts(page, selector: str) -> list[str]:
    """The fonts Chromium really used to draw the element's text (DevTools CSS.getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return [f["familyName"] for f in fonts]


def test_root_to_repository_to_report_with_chinese_in_a_cjk_font(page, base_url):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(base_url + "/")
    page.click("text=example-org/trainer >> nth=0")
    page.wait_for_load_state()
    assert page.url == base_url + "/example-org/trainer/"
    page.click("a[href='reports/2026-05-04-to-2026-05-10/']")
    page.wait_for_load_state()
    assert page.url.endswith("/example-org/trainer/reports/2026-05-04-to-2026-05-10/")
    assert page.locator("h1").inner_text() == "example-org/trainer 2026 年第 19 周周报（05-04 至 05-10）"
    assert any("CJK" in name for name in platform_fonts(page, "h1")), platform_fonts(page, "h1")
    assert page.locator("svg.chart").count() == 3
    page.screenshot(path=str(ARTIFACTS / "report-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(ARTIFACTS / "report-phone.png"), full_page=True)
    assert page.errors == []


def test_report_downloads_answer_with_their_types_and_the_feed_parses(page, base_url):
    page.goto(base_url + "/example-org/trainer/reports/2026-05-04-to-2026-05-10/")
    pdf_href = page.get_attribute("a[href='report.pdf']", "href")
    pdf = page.request.get(page.url + pdf_href)
    assert pdf.status == 200 and pdf.headers["content-type"] == "application/pdf" and pdf.body()[:5] == b"%PDF-"
    md = page.request.get(page.url + "report.md")
    assert md.headers["content-type"].startswith("text/markdown") and "周报" in md.text()
    feed_href = page.get_attribute("footer a", "href")
    feed = page.request.get(page.url + feed_href)
    assert feed.headers["content-type"] == "application/atom+xml"
    root = ET.fromstring(feed.body())
    assert len(root.findall("{http://www.w3.org/2005/Atom}entry")) == 1
    assert page.errors == []


def test_hostile_report_runs_nothing_and_fits_a_phone(page, base_url):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(base_url + "/evil-org/hostile/reports/2026-05-04-to-2026-05-10/")
    page.set_viewport_size(PHONE)
    page.hover("h1")
    assert dialogs == []
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    assert all(h.startswith(("http://127.0.0.1", "https://")) for h in hrefs), hrefs
    page.screenshot(path=str(ARTIFACTS / "hostile-phone.png"), full_page=True)
    assert page.errors == []


def test_repository_and_root_pages_fit_a_phone(page, base_url):
    page.set_viewport_size(PHONE)
    for path, name in (("/", "root-phone.png"), ("/example-org/trainer/", "repo-phone.png")):
        page.goto(base_url + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    assert page.errors == []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def prhub_run_site(tmp_path_factory):
    """`prhub run` on the bundled sample (the whole local serverless flow), served by `prhub serve`."""
    work = tmp_path_factory.mktemp("run")
    cli = [sys.executable, "-m", "prhub_local.cli"]
    done = subprocess.run([*cli, "run", "--out", str(work / "site"), "--state", str(work / "state")],
                          cwd=work, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    port = _free_port()
    server = subprocess.Popen([*cli, "serve", str(work / "site"), "--port", str(port)], cwd=work,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("prhub serve did not answer")
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=10)


@pytest.mark.slow
def test_a_real_prhub_run_site_served_by_prhub_serve(page, prhub_run_site):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(prhub_run_site + "/")
    repo_links = page.locator("main h2 a")
    assert repo_links.count() >= 1
    repo_links.first.click()
    page.wait_for_load_state()
    # the repository page is its dashboard now: its reports list links each report's folder
    page.locator("main a[href*='reports/']").first.click()
    page.wait_for_load_state()
    assert "/reports/" in page.url
    h1 = page.locator("h1").inner_text()
    assert "周报" in h1 or "report" in h1
    assert any("CJK" in name for name in platform_fonts(page, "h1"))
    pdf = page.request.get(page.url + "report.pdf")
    assert pdf.headers["content-type"] == "application/pdf" and pdf.body()[:5] == b"%PDF-"
    feed = page.request.get(page.url + page.get_attribute("footer a", "href"))
    assert ET.fromstring(feed.body()).tag == "{http://www.w3.org/2005/Atom}feed"
    page.screenshot(path=str(ARTIFACTS / "run-report-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(ARTIFACTS / "run-report-phone.png"), full_page=True)
    assert page.errors == []


def test_print_hides_navigation_and_keeps_the_report(page, base_url):
    page.goto(base_url + "/example-org/trainer/reports/2026-05-04-to-2026-05-10/")
    page.emulate_media(media="print")
    assert page.locator("header.site").is_hidden() and page.locator(".downloads").is_hidden()
    assert page.locator("#key-prs table").is_visible()
    pdf = page.pdf(format="A4")
    (ARTIFACTS / "report-print.pdf").write_bytes(pdf)
    assert pdf[:5] == b"%PDF-"
    assert page.errors == []
