"""The DynamoDB-backed ETag cache on moto, with CacheTable's key schema taken from template.yaml."""
from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml
from moto import mock_aws
from prhub import aws
from prhub.github import CachedResponse, DynamoEtagCache, GitHubSource

from tests.fakes import FakeGitHub
from tests.functional.test_github_source import REPO, WEEK, fetch_all, make_pull, week_pulls

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """template.yaml uses CloudFormation's short tags (!Ref, !Sub...): read them as plain values."""


_CfnLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


@pytest.fixture
def table() -> Iterator[Any]:
    props = yaml.load(TEMPLATE.read_text(), Loader=_CfnLoader)["Resources"]["CacheTable"]["Properties"]
    with mock_aws():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        yield resource.create_table(TableName="cache", BillingMode="PAY_PER_REQUEST",
                                    KeySchema=props["KeySchema"], AttributeDefinitions=props["AttributeDefinitions"])


def test_round_trip_with_prefix_and_ttl(table: Any) -> None:
    cache = DynamoEtagCache(table, clock=lambda: 1000.0)
    value = CachedResponse('W/"abc"', {"items": [{"title": "标题 <b>"}]}, '<http://x?page=2>; rel="next"')
    cache.put("http://api/repos/o/n", value)
    assert cache.get("http://api/repos/o/n") == value
    assert cache.get("http://api/other") is None
    item = table.get_item(Key={"key": "etag#http://api/repos/o/n"})["Item"]
    assert int(item["expires_at"]) == 1000 + DynamoEtagCache.TTL_SECONDS


def test_bodies_too_big_for_an_item_are_skipped_not_failed(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    cache = DynamoEtagCache(table)
    rng = random.Random(1)
    noise = ["".join(rng.choice("0123456789abcdef") for _ in range(64)) for _ in range(20_000)]  # ~650 KB zipped
    cache.put("big", CachedResponse("e", noise, ""))
    assert cache.get("big") is None
    assert "write failed" not in caplog.text  # skipped before DynamoDB had to refuse it


def test_the_stack_cache_table_is_the_default_when_named(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CACHE_TABLE", table.name)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    aws.reset()
    try:
        with FakeGitHub(week_pulls(2), REPO) as gh:
            url = gh.url
            fetch_all(GitHubSource(token="t", api_url=url))
    finally:
        aws.reset()
    keys = [item["key"] for item in table.scan()["Items"]]
    assert keys and all(key.startswith("etag#" + url) for key in keys)


def test_a_new_worker_reuses_the_shared_cache_and_pays_only_304s(table: Any) -> None:
    pulls = week_pulls(5) + [make_pull(77, WEEK.start_utc + timedelta(days=3), files=250)]  # 3 file pages
    with FakeGitHub(pulls, REPO) as gh:
        first = fetch_all(GitHubSource(token="t", api_url=gh.url, etag_cache=DynamoEtagCache(table)))
        gh.reset_counts()
        # Another Lambda container: nothing in memory, the same table.
        second = fetch_all(GitHubSource(token="t", api_url=gh.url, etag_cache=DynamoEtagCache(table)))
        assert gh.total == 0 and gh.counts["not_modified"] > 0
    assert second == first and len(first) == 6
