"""The ETag cache over the stack's one cache (DynamoCache on moto), with CacheTable's key schema from template.yaml."""
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
from prhub.cloud import aws, cache
from prhub.cloud.cache import DynamoCache
from prhub.flow.deps import Deps
from prhub.sources.github import GitHubSource
from prhub.sources.http import CachedResponse, CacheEtags

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


def etags(table: Any, **options: Any) -> CacheEtags:
    return CacheEtags(DynamoCache(boto3.client("dynamodb", region_name="us-east-1"), table.name, **options))


def test_round_trip_with_prefix_and_ttl(table: Any) -> None:
    cache_ = etags(table, clock=lambda: 1000.0)
    value = CachedResponse('W/"abc"', {"items": [{"title": "标题 <b>"}]}, '<http://x?page=2>; rel="next"')
    cache_.put("http://api/repos/o/n", value)
    assert cache_.get("http://api/repos/o/n") == value
    assert cache_.get("http://api/other") is None
    item = table.get_item(Key={"key": "etag#http://api/repos/o/n"})["Item"]
    assert int(item["expires_at"]) == 1000 + cache.TTL_SECONDS


def test_bodies_too_big_for_an_item_are_skipped_not_failed(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    cache_ = etags(table)
    rng = random.Random(1)
    noise = ["".join(rng.choice("0123456789abcdef") for _ in range(64)) for _ in range(20_000)]  # ~650 KB zipped
    cache_.put("big", CachedResponse("e", noise, ""))
    assert cache_.get("big") is None
    assert "write failed" not in caplog.text  # skipped before DynamoDB had to refuse it


def test_the_stack_cache_table_is_the_github_sources_cache(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    names = ("RUNS_TABLE", "RESULTS_TABLE", "IDEMPOTENCY_TABLE", "SCORE_QUEUE_URL",
             "REPORT_QUEUE_URL", "SITE_BUCKET", "PAGES_QUEUE_URL")
    aws.reset()
    try:
        with FakeGitHub(week_pulls(2), REPO) as gh:
            url = gh.url
            deps = Deps.from_env({**dict.fromkeys(names, "x"), "CACHE_TABLE": table.name, "GITHUB_API_URL": url,
                                  "GITHUB_TOKEN": "t"})
            fetch_all(deps.sources("github"))
    finally:
        aws.reset()
    keys = [item["key"] for item in table.scan()["Items"]]
    # The GraphQL source keeps its payloads and diffs there too, REST its ETags: all under the ETag cache's prefix
    assert keys and all(key.startswith(("etag#" + url, "etag#graphql:")) for key in keys)
    assert any(key.startswith("etag#graphql:pr:") for key in keys)


def test_a_new_worker_reuses_the_shared_cache_and_pays_only_304s(table: Any) -> None:
    pulls = week_pulls(5) + [make_pull(77, WEEK.start_utc + timedelta(days=3), files=250)]  # 3 file pages
    with FakeGitHub(pulls, REPO) as gh:
        first = fetch_all(GitHubSource(token="t", api_url=gh.url, etag_cache=etags(table)))
        gh.reset_counts()
        # Another Lambda container: nothing in memory, the same table.
        second = fetch_all(GitHubSource(token="t", api_url=gh.url, etag_cache=etags(table)))
        assert gh.total == 0 and gh.counts["not_modified"] > 0
    assert second == first and len(first) == 6
