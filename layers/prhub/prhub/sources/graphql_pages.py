"""A PR's connections beyond their first page (files, reviews, review threads, issue comments; a thread's
replies), asked MORE_PER_REQUEST to a query by aliases: by the PR's number under `repository`, by the thread's id
at the root (`node(id)`). A listing has them ride in its next page's query (prhub.sources.graphql_listing); what is
left, or a PR loaded alone, is asked with `more_pages`."""
from __future__ import annotations

from typing import Any

from prhub.core.errors import SourceError
from prhub.sources.github import FILES_CAP
from prhub.sources.graphql_history import Ahead, ahead_parts
from prhub.sources.graphql_nodes import COMMENTS, FILES, RATE, REVIEWS, THREADS_PAGE, connection_nodes
from prhub.sources.graphql_query import Ask

MORE_PER_REQUEST = 10  # further pages (a PR's files, reviews, threads, comments; a thread's replies) per query
# A connection's further pages, by field: what a follow-up query selects of each.
MORE_FIELDS = {"files": FILES, "reviews": REVIEWS, "reviewThreads": THREADS_PAGE, "comments": COMMENTS}


def pending(nodes: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """(holder, field) of every connection with a further page: the PRs' own, then their threads' replies."""
    todo = []
    for node in nodes:
        todo += [(node, field) for field in MORE_FIELDS if _has_more(node, field)]
        todo += [(thread, "comments") for thread in connection_nodes(node, "reviewThreads")
                 if _has_more(thread, "comments")]
    return todo


def more_parts(batch: list[tuple[dict[str, Any], str]]) -> tuple[list[str], dict[str, Any], list[str], list[str]]:
    """The aliased fields that ask the next page of each (holder, field) of `batch`: (variable declarations,
    variables, fields under `repository` (a PR's, by number), fields at the root (a thread's, by `node(id)`))."""
    params: list[str] = []
    variables: dict[str, Any] = {}
    pulls: list[str] = []
    roots: list[str] = []
    for i, (holder, field) in enumerate(batch):
        params.append(f"$a{i}: String")
        variables[f"a{i}"] = holder[field]["pageInfo"]["endCursor"]
        page = f"{field}(first: 100, after: $a{i}) {{ {MORE_FIELDS[field]} }}"
        if "number" in holder:
            pulls.append(f"p{i}: pullRequest(number: {int(holder['number'])}) {{ {page} }}")
        else:  # a review thread
            params.append(f"$t{i}: ID!")
            variables[f"t{i}"] = str(holder["id"])
            roots.append(f"p{i}: node(id: $t{i}) {{ ... on PullRequestReviewThread {{ {page} }} }}")
    return params, variables, pulls, roots


def apply_more(repo: str, batch: list[tuple[dict[str, Any], str]], data: dict[str, Any]) -> None:
    """Append the further pages an answer to `more_parts(batch)` holds to their holders' connections, in place."""
    repository = data.get("repository") or {}
    for i, (holder, field) in enumerate(batch):
        more = ((repository if "number" in holder else data).get(f"p{i}") or {}).get(field)
        if not isinstance(more, dict):
            raise SourceError(f"GitHub answered no {field} page for {_named(holder)} of {repo}")
        holder[field]["nodes"] = [*(holder[field].get("nodes") or []), *(more.get("nodes") or [])]
        holder[field]["pageInfo"] = more.get("pageInfo") or {}


def _has_more(holder: dict[str, Any], field: str) -> bool:
    conn = holder.get(field) or {}
    if field == "files" and len(conn.get("nodes") or []) >= FILES_CAP:  # GitHub lists no more files than REST
        return False
    return bool((conn.get("pageInfo") or {}).get("hasNextPage") and (conn.get("pageInfo") or {}).get("endCursor"))


def _named(holder: dict[str, Any]) -> str:
    return f"PR #{holder['number']}" if "number" in holder else f"review thread {holder.get('id')}"


def more_pages(ask: Ask, repo: str, nodes: list[dict[str, Any]], ahead: Ahead | None = None) -> None:
    """Fetch the connections beyond each node's first page, in place, MORE_PER_REQUEST to a query (aliases):
    a PR's files, reviews, threads and comments by its number, a thread's replies by its id (`node`); with
    what is asked `ahead` riding along."""
    owner, name = repo.split("/", 1)
    while True:
        todo = pending(nodes)
        if not todo:
            return
        batch = todo[:MORE_PER_REQUEST]
        params, variables, pulls, roots = more_parts(batch)
        history_params, history_variables, history_roots, asked = ahead_parts(ahead)
        query = (f"query($owner: String!, $name: String!, {', '.join(params + history_params)}) {{ {RATE} "
                 f"repository(owner: $owner, name: $name) {{ nameWithOwner {' '.join(pulls)} }} "
                 f"{' '.join(roots + history_roots)} }}")
        data = ask(query, {**variables, **history_variables, "owner": owner, "name": name})
        apply_more(repo, batch, data)
        if ahead is not None:
            ahead.take(data, asked)
