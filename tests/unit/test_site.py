"""The static site: objects in the bucket with their headers, indexes and feeds rebuilt from it, invalidation,
CloudFront's rewrite (`prhub serve` is tests/unit/test_serve.py)."""
from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import boto3
import pytest
from moto import mock_aws
from prhub.cloud import aws
from prhub.cloud.aws import CloudFrontCdn, S3Bucket
from prhub.site import publish as site
from prhub.site.render.html import render_html
from prhub.site.render.markdown import render_markdown

from tests.golden.cases import load
from tests.unit.render_support import parse_html

BUCKET = "prhub-site-test"
ATOM = "{http://www.w3.org/2005/Atom}"


def files_for(report):
    """Cheap stand-ins for the PDF (its rendering has its own tests); the rest is real."""
    return {"report.json": json.dumps(report, ensure_ascii=False).encode(),
            "report.md": render_markdown(report).encode(), "report.pdf": b"%PDF-1.4 stand-in",
            "index.html": render_html(report).encode()}


def week(report, since, until, pr_count, highlight):
    other = copy.deepcopy(report)
    other["period"] = {**other["period"], "since": since, "until": until}
    other["title"] = f"{other['repo']} {since}"
    other["generated_at"] = f"{until}T23:00:00Z"
    other["stats"]["pr_count"] = pr_count
    other["highlights"] = [{"text": highlight, "prs": []}]
    return other


@pytest.fixture
def s3(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def test_publish_writes_every_file_with_its_content_type_and_a_long_cache(s3):
    report = load("zh-week")
    keys = site.publish_report(S3Bucket(s3, BUCKET), report, files_for(report))
    prefix = "example-org/trainer/reports/2026-05-04-to-2026-05-10/"
    assert sorted(keys) == sorted(prefix + n for n in ("report.json", "report.md", "report.pdf", "index.html"))
    assert keys[-1].endswith("report.json")  # written last: a listing never finds half a report
    types = {k.rsplit("/", 1)[1]: s3.head_object(Bucket=BUCKET, Key=k) for k in keys}
    assert types["index.html"]["ContentType"] == "text/html; charset=utf-8"
    assert types["report.md"]["ContentType"] == "text/markdown; charset=utf-8"
    assert types["report.pdf"]["ContentType"] == "application/pdf"
    assert types["report.json"]["ContentType"] == "application/json"
    assert {h["CacheControl"] for h in types.values()} == {site.REPORT_CACHE}


def test_rebuild_lists_reports_newest_first_with_numbers_and_top_highlight(s3):
    base = load("zh-week")
    for report in (week(base, "2026-04-20", "2026-04-26", 8, "较早的一周"), base,
                   week(base, "2026-04-27", "2026-05-03", 11, "中间的 <b>一周</b>")):
        site.publish_report(S3Bucket(s3, BUCKET), report, files_for(report))
    keys = site.rebuild_indexes(S3Bucket(s3, BUCKET), base["repo"])
    assert keys == ["example-org/trainer/index.html", "example-org/trainer/dashboard.json",
                    "example-org/trainer/feed.xml", "example-org/trainer/reports/index.html", "index.html"]
    for key in keys:
        head = s3.head_object(Bucket=BUCKET, Key=key)
        assert head["CacheControl"] == site.INDEX_CACHE
        assert head["ContentType"] == site.content_type(key)
    page = s3.get_object(Bucket=BUCKET, Key=keys[0])["Body"].read().decode()
    links = [h for h in parse_html(page).hrefs() if h.startswith("reports/")]
    assert links == ["reports/2026-05-04-to-2026-05-10/", "reports/2026-04-27-to-2026-05-03/",
                     "reports/2026-04-20-to-2026-04-26/"]
    assert "异步 rollout 配置统一" in page and "中间的 &lt;b&gt;一周&lt;/b&gt;" in page and "合并 PR 11" in page
    # AND the reports/ folder has a page of its own listing them (before: /owner/repo/reports/ had none)
    listing = s3.get_object(Bucket=BUCKET, Key="example-org/trainer/reports/index.html")["Body"].read().decode()
    assert parse_html(listing).hrefs() == ["data:,", "../../../", "../", "2026-05-04-to-2026-05-10/",
                                           "2026-04-27-to-2026-05-03/", "2026-04-20-to-2026-04-26/"]
    assert "中间的 &lt;b&gt;一周&lt;/b&gt;" in listing and "合并 PR 11" in listing


def test_listing_follows_every_page(s3, monkeypatch):
    monkeypatch.setattr(aws, "LIST_PAGE_SIZE", 2)
    base = load("en-small")
    for day in range(1, 8):
        report = week(base, f"2026-03-0{day}", f"2026-03-0{day}", day, f"day {day}")
        site.publish_report(S3Bucket(s3, BUCKET), report, files_for(report))
    entries = site.list_reports(S3Bucket(s3, BUCKET), base["repo"])
    assert [e["pr_count"] for e in entries] == ["7", "6", "5", "4", "3", "2", "1"]


def test_root_page_lists_every_repository_with_its_latest_report(s3):
    first, second = load("zh-week"), load("en-small")
    second["repo"] = "other-org/lib"
    for report in (first, second):
        site.publish_report(S3Bucket(s3, BUCKET), report, files_for(report))
        site.rebuild_indexes(S3Bucket(s3, BUCKET), report["repo"])
    root = s3.get_object(Bucket=BUCKET, Key="index.html")["Body"].read().decode()
    hrefs = parse_html(root).hrefs()
    assert "example-org/trainer/" in hrefs and "other-org/lib/" in hrefs
    assert "other-org/lib/reports/2026-05-05-to-2026-05-07/" in hrefs


def test_feed_is_atom_with_one_entry_per_report_and_absolute_links(s3):
    base = load("zh-week")
    for report in (base, week(base, "2026-04-27", "2026-05-03", 11, "x")):
        site.publish_report(S3Bucket(s3, BUCKET), report, files_for(report))
    site.rebuild_indexes(S3Bucket(s3, BUCKET), base["repo"], site_url="https://reports.example.com/")
    feed = ET.fromstring(s3.get_object(Bucket=BUCKET, Key="example-org/trainer/feed.xml")["Body"].read())
    assert feed.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert feed.find(f"{ATOM}{required}") is not None
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 2
    ids = {e.findtext(f"{ATOM}id") for e in entries}
    assert len(ids) == 2 and all(i.startswith("urn:uuid:") for i in ids)
    first = entries[0]
    assert first.find(f"{ATOM}link").get("href") == \
        "https://reports.example.com/example-org/trainer/reports/2026-05-04-to-2026-05-10/"
    assert first.findtext(f"{ATOM}updated") == "2026-05-11T02:00:00Z"
    assert feed.findtext(f"{ATOM}updated") == "2026-05-11T02:00:00Z"


def test_feed_escapes_hostile_titles():
    entry = site.index_card({**load("en-small"), "title": "<entry>]]>&</feed>"}, "2026-05-05-to-2026-05-07")
    feed = ET.fromstring(site.render_feed("example-org/trainer", [entry]))
    assert feed.find(f"{ATOM}entry").findtext(f"{ATOM}title") == "<entry>]]>&</feed>"


class FakeCloudFront:
    def __init__(self):
        self.calls = []

    def create_invalidation(self, **kwargs):
        self.calls.append(kwargs)
        return {"Invalidation": {"Id": "I1", "Status": "InProgress"}}


def test_invalidate_asks_for_the_paths_readers_request():
    cloudfront = FakeCloudFront()
    site.invalidate(CloudFrontCdn(cloudfront, "E123"),
                    ["example-org/trainer/index.html", "/index.html", "a/reports/x/report.pdf"])
    (call,) = cloudfront.calls
    assert call["DistributionId"] == "E123"
    paths = call["InvalidationBatch"]["Paths"]
    assert paths["Items"] == ["/example-org/trainer/index.html", "/example-org/trainer/", "/index.html", "/",
                              "/a/reports/x/report.pdf"]
    assert paths["Quantity"] == 5 and call["InvalidationBatch"]["CallerReference"]


def test_invalidate_without_a_distribution_does_nothing_and_many_paths_become_one_wildcard():
    cloudfront = FakeCloudFront()
    site.invalidate(CloudFrontCdn(cloudfront, ""), ["/index.html"])
    assert cloudfront.calls == []
    site.invalidate(CloudFrontCdn(cloudfront, "E1"), [f"/r/{i}.json" for i in range(site.MAX_INVALIDATION_PATHS + 1)])
    assert cloudfront.calls[0]["InvalidationBatch"]["Paths"]["Items"] == ["/*"]


def test_invalidate_against_moto_cloudfront():
    with mock_aws():
        cloudfront = boto3.client("cloudfront", region_name="us-east-1")
        dist = cloudfront.create_distribution(DistributionConfig={
            "CallerReference": "t", "Comment": "", "Enabled": True,
            "Origins": {"Quantity": 1, "Items": [{"Id": "o", "DomainName": "b.s3.amazonaws.com",
                                                  "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
            "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "redirect-to-https",
                                     "MinTTL": 0, "ForwardedValues": {"QueryString": False,
                                                                      "Cookies": {"Forward": "none"}}}})
        dist_id = dist["Distribution"]["Id"]
        site.invalidate(CloudFrontCdn(cloudfront, dist_id), ["x/index.html"])
        listed = cloudfront.list_invalidations(DistributionId=dist_id)["InvalidationList"]
        assert listed["Quantity"] == 1


@pytest.mark.parametrize("path, expected", [("/", "/index.html"), ("/a/b/", "/a/b/index.html"),
                                            ("/a/b", "/a/b/index.html"), ("/a/report.pdf", "/a/report.pdf")])
def test_rewrite_matches_cloudfront(path, expected):
    assert site.rewrite(path) == expected


def test_list_pages_show_a_teaser_of_a_long_highlight():
    report = load("en-small")
    report["highlights"] = [{"text": "word " * 200, "prs": []}]
    entry = site.index_card(report, "2026-05-05-to-2026-05-07")
    assert len(entry["highlight"]) <= 240 and entry["highlight"].endswith("…")


def _calls(s3):
    """The S3 operations `s3` sends, by name, in order."""
    seen: list[str] = []
    s3.meta.events.register("before-call.s3", lambda model, **_: seen.append(model.name))
    return seen


def test_get_json_reads_a_document_once_while_it_is_unchanged_and_again_when_it_changes(s3):
    bucket = S3Bucket(s3, BUCKET)
    key = "example-org/trainer/reports/2026-05-04-to-2026-05-10/pulls.json"
    bucket.put(key, b'{"prs": {"1": {}}}', "application/json", "no-cache")
    calls = _calls(s3)
    first = bucket.get_json(key)
    assert first == {"prs": {"1": {}}} and calls == ["GetObject"]
    assert bucket.get_json(key) is first  # unchanged: one HEAD, neither downloaded nor parsed again
    assert calls == ["GetObject", "HeadObject"]
    bucket.put(key, b'{"prs": {"2": {}}}', "application/json", "no-cache")  # rewritten: read anew
    assert bucket.get_json(key) == {"prs": {"2": {}}}
    s3.delete_object(Bucket=BUCKET, Key=key)
    assert bucket.get_json(key) is None  # gone: never the copy held
    assert bucket.get_json("example-org/none.json") is None


def test_a_pr_page_is_published_without_reading_back_what_it_wrote(s3):
    """The language versions a PR folder has are looked up for the languages not just written (a GET each)."""
    from prhub.site import paths as sitepaths

    bucket = S3Bucket(s3, BUCKET)
    page = {"repo": "example-org/trainer", "language": "zh", "pr": {"number": 7}}
    files = {"report.json": json.dumps(page).encode(), "index.html": b"<p>zh</p>"}
    calls = _calls(s3)
    keys = site.publish_pull(bucket, page, files, "zh")  # type: ignore[arg-type]
    folder = sitepaths.pull_dir("example-org/trainer", 7, "zh", "zh")
    assert keys == [folder + "index.html", folder + "report.json"]
    assert calls == ["PutObject", "PutObject", "GetObject", "GetObject"]  # zh/ and en/: none there
