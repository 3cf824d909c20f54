"""What prhub run reads and writes in the embedded moto's backends directly, without the API round trip, against
the API over the same moto: the site adapter (EmbeddedBucket) against aws.S3Bucket, a table read in place against
a Scan, the local event source mapping's queue calls (EmbeddedQueue) against boto3's (BotoQueue)."""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.aws import S3Bucket

from prhub_local.embedded import EmbeddedAws, EmbeddedBucket, EmbeddedQueue, aws_env, patched_env, table_items
from prhub_local.runner import BotoQueue
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


def test_the_buckets_of_one_process_share_what_they_parsed(s3: Any) -> None:
    # Each worker thread's handlers have a bucket of their own: a document the report's fan-out parsed is the one
    # the pages' messages read, while it stays unchanged.
    fan_out, pages = EmbeddedBucket(s3, NAME), EmbeddedBucket(s3, NAME)
    fan_out.put("o/r/pull/7/report.json", b'{"n": 7}', "application/json", "no-cache")
    first = fan_out.get_json("o/r/pull/7/report.json")
    assert pages.get_json("o/r/pull/7/report.json") is first
    pages.put("o/r/pull/7/report.json", b'{"n": 8}', "application/json", "no-cache")
    assert fan_out.get_json("o/r/pull/7/report.json") == {"n": 8}


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


def test_the_embedded_queue_receives_deletes_retries_and_dead_letters_as_sqs_does_through_boto3(s3: Any) -> None:
    sqs = aws.client("sqs")
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(QueueName="q", Attributes={
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": "2"})})["QueueUrl"]
    mine, api = EmbeddedQueue.of(url), BotoQueue(sqs, url)
    assert mine is not None
    for body in ("a", "b", "c"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    assert mine.depth() == api.depth() == 3
    first, second = mine.receive(2, 900)
    [third] = api.receive(10, 900)  # the rest: the two are in flight
    assert mine.depth() == api.depth() == 3 and mine.receive(10, 900) == []
    for got in (first, second):
        assert got.keys() == third.keys() and got["Attributes"].keys() == third["Attributes"].keys()
        assert got["MD5OfBody"] == hashlib.md5(got["Body"].encode()).hexdigest()
        assert got["Attributes"]["ApproximateReceiveCount"] == "1"
    assert sorted(m["Body"] for m in (first, second, third)) == ["a", "b", "c"]
    mine.delete([first["ReceiptHandle"]])
    assert api.depth() == 2
    mine.change_visibility([second["ReceiptHandle"]], 0)  # a failed record, due again at once
    [again] = api.receive(10, 900)
    assert again["MessageId"] == second["MessageId"] and again["Attributes"]["ApproximateReceiveCount"] == "2"
    api.change_visibility([again["ReceiptHandle"]], 0)
    assert mine.receive(10, 900) == []  # received twice already: moved to the dead-letter queue instead
    assert [m["Body"] for m in BotoQueue(sqs, dlq).receive(10, 900)] == [second["Body"]]
    assert mine.depth() == api.depth() == 1  # the third, still in flight


def test_a_queue_boto3_would_not_reach_in_this_process_has_no_embedded_queue(s3: Any) -> None:
    url = aws.client("sqs").create_queue(QueueName="q")["QueueUrl"]
    assert EmbeddedQueue.of(url) is not None
    assert EmbeddedQueue.of(url.rsplit("/", 1)[0] + "/no-such-queue") is None
    with patched_env({"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}):  # a moto server or LocalStack of the caller's
        assert os.environ["AWS_ENDPOINT_URL"] and EmbeddedQueue.of(url) is None
