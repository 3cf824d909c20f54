"""What prhub run reads and writes in the embedded moto's backends directly, without the API round trip, against
the API over the same moto: the site adapter (EmbeddedBucket) against aws.S3Bucket, a table read in place against
a Scan."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.aws import S3Bucket

from prhub_local.embedded import EmbeddedAws, EmbeddedBucket, aws_env, patched_env, table_items
from prhub_local.state import _line

NAME = "prhub-site-embedded"


@pytest.fixture
def s3() -> Iterator[Any]:
    with EmbeddedAws(fresh=True, in_process=True), patched_env({**aws_env(None, fake_credentials=True),
                                                                "AWS_ENDPOINT_URL": None}):
        client = aws.client("s3")
        client.create_bucket(Bucket=NAME)
        yield client


def test_what_the_embedded_bucket_writes_s3_serves_with_its_type_cache_and_etag(s3: Any) -> None:
    mine, api = EmbeddedBucket(s3, NAME), S3Bucket(s3, NAME)
    mine.put("o/r/reports/w/index.html", b"<p>week</p>", "text/html; charset=utf-8", "public, max-age=86400")
    head = s3.head_object(Bucket=NAME, Key="o/r/reports/w/index.html")
    assert head["ContentType"] == "text/html; charset=utf-8" and head["CacheControl"] == "public, max-age=86400"
    assert api.get("o/r/reports/w/index.html") == mine.get("o/r/reports/w/index.html") == b"<p>week</p>"
    api.put("o/r/reports/w/report.json", b'{"n": 1}', "application/json", "no-cache")
    assert mine.get_json("o/r/reports/w/report.json") == {"n": 1}
    assert mine.get("o/r/none") is None and mine.get_json("o/r/none.json") is None


def test_get_json_is_parsed_once_while_unchanged_and_read_again_after_a_write_or_a_delete(s3: Any) -> None:
    mine = EmbeddedBucket(s3, NAME)
    mine.put("o/r/reports/w/pulls.json", b'{"prs": {}}', "application/json", "no-cache")
    first = mine.get_json("o/r/reports/w/pulls.json")
    assert mine.get_json("o/r/reports/w/pulls.json") is first
    S3Bucket(s3, NAME).put("o/r/reports/w/pulls.json", b'{"prs": {"1": {}}}', "application/json", "no-cache")
    assert mine.get_json("o/r/reports/w/pulls.json") == {"prs": {"1": {}}}
    s3.delete_object(Bucket=NAME, Key="o/r/reports/w/pulls.json")
    assert mine.get_json("o/r/reports/w/pulls.json") is None


def test_folders_are_the_ones_s3_lists(s3: Any) -> None:
    mine, api = EmbeddedBucket(s3, NAME), S3Bucket(s3, NAME)
    for key in ("o/r/reports/b/report.json", "o/r/reports/a/zh/report.json", "o/r/reports/a/x", "o/r/index.html",
                "o/r/reportsx/c/y", "o/r/reports/top.json"):
        mine.put(key, b"{}", "application/json", "no-cache")
    assert list(mine.folders("o/r/reports/")) == list(api.folders("o/r/reports/")) == ["o/r/reports/a/",
                                                                                      "o/r/reports/b/"]
    assert list(mine.folders("o/")) == list(api.folders("o/")) == ["o/r/"]
    assert list(mine.folders("none/")) == []


def test_a_table_read_in_place_is_what_a_scan_gives_in_the_state_s_form(s3: Any) -> None:
    ddb = aws.client("dynamodb")
    ddb.create_table(TableName="t", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
    items = [{"k": {"S": "a"}, "data": {"B": b"\x00\xffgz"}, "n": {"N": "3"}, "ok": {"BOOL": True},
              "none": {"NULL": True}, "tags": {"SS": ["x", "y"]}, "blobs": {"BS": [b"\x01", b"\x02"]},
              "m": {"M": {"inner": {"B": b"\x10"}, "l": {"L": [{"S": "s"}, {"N": "1.5"}, {"B": b"\x20"}]}}}},
             {"k": {"S": "b"}, "nums": {"NS": ["1", "2"]}}]
    for item in items:
        ddb.put_item(TableName="t", Item=item)
    scanned = ddb.scan(TableName="t")["Items"]
    assert sorted(map(_line, table_items("t") or [])) == sorted(map(_line, scanned))
    assert table_items("no-such-table") is None
