"""One GraphQL query to GitHub and its answer (`Endpoint`), and the same query asked again while the answer is
partial or timed out (`retried`): what the GraphQL source's collaborators (prhub.sources.graphql) send through.

A query goes through the client the REST source uses too (prhub.sources.http.GitHubClient), with GraphQL's own
budget (prhub.sources.graphql_budget.PointsBudget). A 401 is a bad token; 403, 404 and 410 mean no GraphQL here
(GraphQLUnavailable: the REST source takes over); a 502 or 504, or a timeout error, is GitHub giving up on a query
that ran too long (QueryTimeout: a smaller page may pass); an answer with `errors` beside its data is partial
(PartialAnswer), which a `Salvage` may make whole for less than the query again.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import requests

from prhub.core.errors import SourceError, SourceUnavailable
from prhub.sources.graphql_budget import PointsBudget
from prhub.sources.http import Fault, GitHubClient, answered, message

Salvage = Callable[[dict[str, Any], list[dict[str, Any]]], "dict[str, Any] | None"]
Query = Callable[[str, dict[str, Any]], dict[str, Any]]  # one query and its `data` (Endpoint.query)


class Ask(Protocol):
    """A query asked until it is answered whole (`retried` on a source's own `query`)."""

    def __call__(self, query: str, variables: dict[str, Any], *, shrinkable: bool = False,
                 salvage: Salvage | None = None) -> dict[str, Any]: ...


class GraphQLUnavailable(SourceError):
    """This server or token cannot use GraphQL: the REST source takes over."""


class QueryTimeout(SourceUnavailable):
    """GitHub gave up on the query (502/504, or a timeout error): a smaller page may pass."""


class PartialAnswer(SourceError):
    """The answer carried `errors` beside its data: some of it is missing (`data` and `errors` as answered, when the
    answer was JSON)."""

    def __init__(self, message: str, data: dict[str, Any] | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.data, self.errors = data, errors or []


def graphql_endpoint(api_url: str) -> str:
    """GitHub's GraphQL endpoint for a REST base URL: `/graphql` beside api.github.com's REST API,
    `/api/graphql` on GitHub Enterprise Server, whose REST API is at `/api/v3`."""
    base = api_url.rstrip("/")
    return base[: -len("/v3")] + "/graphql" if base.endswith("/api/v3") else base + "/graphql"



def _query_answer(response: requests.Response) -> requests.Response | Fault:
    """How a query's answer is read: a 502 or 504 is GitHub giving up on a query that ran too long, raised as
    QueryTimeout instead of asked again as it is (a smaller page may pass); other 5xx are faults to retry."""
    if response.status_code in (502, 504):
        raise QueryTimeout(f"GitHub gave up on the query ({response.status_code})")
    return answered(response)



class Endpoint:
    """GitHub's GraphQL endpoint on `http`, its queries paid from `budget`."""

    def __init__(self, http: GitHubClient, url: str, budget: PointsBudget) -> None:
        self.http, self.url, self.budget = http, url, budget

    def query(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """Run one GraphQL query; its `data`. Raises PartialAnswer when `errors` came with the data,
        QueryTimeout when GitHub gave up, GraphQLUnavailable when there is no GraphQL to ask."""
        response = self.http.send("POST", self.url, _query_answer, limits=self.budget, tally="graphql",
                                  body={"query": query, "variables": variables})
        answer = self._decoded(response)
        self.budget.charge(answer.get("data"))
        return self._data(answer, variables)

    def _decoded(self, response: requests.Response) -> dict[str, Any]:
        """The answer's JSON document, or the error its status means."""
        status = response.status_code
        if status == 401:
            raise SourceError(f"GitHub rejected the token (401 {message(response)}): "
                              "check GITHUB_TOKEN or the token secret")
        if status in (403, 404, 410):
            raise GraphQLUnavailable(f"no GraphQL at {self.url} ({status} {message(response)})")
        if status != 200:
            raise SourceError(f"GitHub answered the query with {status}: {message(response)}")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise PartialAnswer("GitHub's answer to the query was cut off or is not JSON")
        return answer

    def _data(self, answer: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
        """The answer's `data`, when its `errors` leave it whole."""
        errors = [e for e in answer.get("errors") or [] if isinstance(e, dict)]
        if any(e.get("type") == "NOT_FOUND" and (e.get("path") or [None])[0] == "repository" for e in errors):
            raise SourceError(f"repository {variables.get('owner')}/{variables.get('name')} not found at "
                              f"{self.http.api_url} (or the token cannot see it)")
        if errors and any("timeout" in str(e.get("message", "")).lower() for e in errors):
            raise QueryTimeout(f"GitHub timed out on the query: {errors[0].get('message')}")
        if "data" not in answer:  # refused before it ran (a malformed or too large query): asking again won't help
            raise SourceError(f"GitHub refused the query: {'; '.join(str(e.get('message')) for e in errors[:3])}")
        data = answer.get("data")
        if errors or not isinstance(data, dict):
            self.http.stats["partial"] += 1
            raise PartialAnswer(f"GraphQL errors: {'; '.join(str(e.get('message')) for e in errors[:3])}",
                                data if isinstance(data, dict) else None, errors)
        return data


def retried(query: Query, http: GitHubClient, text: str, variables: dict[str, Any], *, shrinkable: bool = False,
            salvage: Salvage | None = None) -> dict[str, Any]:
    """`query(text, variables)`, asked again (with backoff) while GitHub leaves parts of the answer out or gives up
    on it. A `shrinkable` query's timeout goes to the caller instead, which can ask for a smaller page. `salvage`
    may make a partial answer whole for less than the query again (None: it cannot)."""
    for attempt in range(http.max_tries):
        try:
            return query(text, variables)
        except (PartialAnswer, QueryTimeout) as exc:
            if salvage is not None and isinstance(exc, PartialAnswer) and exc.data is not None:
                whole = salvage(exc.data, exc.errors)
                if whole is not None:
                    return whole
            if attempt + 1 == http.max_tries or (shrinkable and isinstance(exc, QueryTimeout)):
                raise
            http.wait(http.backoff(attempt), f"GraphQL answer ({exc})")
    raise AssertionError("unreachable")
