"""The GraphQL source's pure parts, and the fake's GraphQL against GitHub's documented node and cost examples."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prhub.core.models import FileChange, PullRequest
from prhub.sources.graphql_details import needs_diff
from prhub.sources.graphql_nodes import split_slice as _split
from prhub.sources.graphql_query import graphql_endpoint

from tests.fakes import graphql_lite as gql

DOC_CONNECTIONS = frozenset({"repositories", "issues", "pullRequests", "comments", "followers", "labels"})


def test_graphql_lives_beside_the_rest_api_and_under_api_on_enterprise_server() -> None:
    assert graphql_endpoint("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_endpoint("https://ghe.example.com/api/v3/") == "https://ghe.example.com/api/graphql"


def test_only_prs_with_lines_the_engine_reads_need_a_diff() -> None:
    def pr(*files: FileChange) -> PullRequest:
        return PullRequest(1, "t", "", "a", datetime(2026, 1, 1, tzinfo=UTC), "u", files=list(files))

    assert needs_diff(pr(FileChange("a.py", additions=1)))
    assert needs_diff(pr(FileChange("b.py", "renamed")))  # the old path is only in the diff
    assert not needs_diff(pr(FileChange("uv.lock", additions=900), FileChange("x.png", "added", binary=True)))
    assert not needs_diff(pr())


def test_slices_cover_the_range_without_overlap() -> None:
    start, stop = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, 0, 0, 9, tzinfo=UTC)
    slices = _split(start, stop, 3)
    assert slices == [["2026-01-01T00:00:00Z", "2026-01-01T00:00:03Z"],
                      ["2026-01-01T00:00:04Z", "2026-01-01T00:00:06Z"],
                      ["2026-01-01T00:00:07Z", "2026-01-01T00:00:09Z"]]
    assert _split(start, start.replace(second=1), 5) == [["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"],
                                                         ["2026-01-01T00:00:01Z", "2026-01-01T00:00:01Z"]]


def test_the_fakes_node_count_and_cost_match_githubs_documented_examples() -> None:
    simple = "query { viewer { repositories(first: 50) { edges { repository:node { name issues(first: 10) { " \
             "totalCount edges { node { title bodyHTML } } } } } } } }"
    assert gql.price(gql.parse(simple)[1], {}, DOC_CONNECTIONS)[1] == 550
    complex_ = ("query { viewer { repositories(first: 50) { edges { repository:node { name "
                "pullRequests(first: 20) { edges { pullRequest:node { title comments(first: 10) { edges { "
                "comment:node { bodyHTML } } } } } } issues(first: 20) { totalCount edges { issue:node { title "
                "bodyHTML comments(first: 10) { edges { comment:node { bodyHTML } } } } } } } } } "
                "followers(first: 10) { edges { follower:node { login } } } } }")
    assert gql.price(gql.parse(complex_)[1], {}, DOC_CONNECTIONS)[1] == 22_060
    scored = ("query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { "
              "node { id labels(first: 60) { edges { node { id name } } } } } } } } } } }")
    assert gql.price(gql.parse(scored)[1], {}, DOC_CONNECTIONS)[0] == 51  # 5,101 requests / 100


@pytest.mark.parametrize(("query", "kind"), [
    ("{ search(query: \"x\", type: ISSUE) { issueCount } }", "MISSING_PAGINATION_BOUNDARIES"),
    ("query($n: Int!) { search(query: \"x\", type: ISSUE, first: $n) { issueCount } }", "EXCESSIVE_PAGINATION"),
    ("{ a: search(first: 100, query: \"x\", type: ISSUE) { nodes { ... on PullRequest { files(first: 100) { "
     "nodes { path reviews(first: 100) { totalCount } } } } } } }", "MAX_NODE_LIMIT_EXCEEDED"),
])
def test_the_fake_refuses_what_github_refuses(query: str, kind: str) -> None:
    declared, selections = gql.parse(query)
    with pytest.raises(gql.GraphQLError) as caught:
        gql.price(selections, {"n": 101}, frozenset({"search", "files", "reviews"}))
    assert caught.value.kind == kind


def test_the_fake_executes_aliases_variables_fragments_and_cursors() -> None:
    items = [gql.Obj("PullRequest", number=n) for n in range(5)] + [gql.Obj("Issue", number=99)]
    root = gql.Obj("Query", search=lambda args: gql.connection("SearchResultItem", items, args))
    declared, selections = gql.parse("""query Q($after: String) { # a comment
        one: search(first: 2, after: $after) { pageInfo { hasNextPage endCursor } nodes { __typename
          ... on PullRequest { n: number } } } }""")
    assert declared == ["after"]
    first, errors = gql.execute(root, selections, {"after": None})
    assert errors == [] and first["one"]["nodes"] == [{"__typename": "PullRequest", "n": 0},
                                                      {"__typename": "PullRequest", "n": 1}]
    after = first["one"]["pageInfo"]["endCursor"]
    rest, _ = gql.execute(root, selections, {"after": after})
    assert [n["n"] for n in rest["one"]["nodes"]] == [2, 3]
    tail = f'{{ search(first: 9, after: "{gql.cursor(4)}") {{ nodes {{ ... on PullRequest {{ number }} }} ' \
           "pageInfo { hasNextPage } } }"
    last, _ = gql.execute(root, gql.parse(tail)[1], {})
    assert last["search"] == {"nodes": [{"number": 4}, {}], "pageInfo": {"hasNextPage": False}}
