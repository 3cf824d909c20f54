"""A fake GitHub REST API on 127.0.0.1, serving the PRs of an export file with GitHub's response shapes.

Serves GET /repos/O/N, /search/issues (repo:, is:pr, is:merged, author:, merged:A..B or <=X; capped at
1,000 results like GitHub, 422 beyond), /repos/O/N/pulls/N and its /files, /reviews and /comments (review
comments, a reply's `in_reply_to_id` naming its thread's first comment), /repos/O/N/issues/N/comments,
/repos/O/N/git/commits/SHA (the squash commit, with Co-authored-by trailers),
and /orgs/O/repos (an organisation's repositories, `org_repos`: `type` all|public|private|forks|sources|member,
`sort` created|updated|pushed|full_name with `direction` (asc for full_name, else desc by default), `per_page` up
to 100, 30 by default; an unknown organisation 404s; GitHub lists archived repositories too, flagged `archived`),
with Link pagination, X-RateLimit-* headers (a real budget, spent by every non-304
answer), ETags and 304s. Faults are queued per test (`inject`) and matched by path
pattern (GraphQL ones also by a pattern of the query text); every answer is counted
by kind, 304s separately.

GET /repos/O/N/contents/PATH serves the default branch's files (`files`: path -> text): with
`Accept: application/vnd.github.raw+json` the raw text (GitHub's documented custom media type for files; the
Content-Type the fake answers with, the same media type, is not confirmed), else GitHub's file object (type, encoding
base64, content, size, sha, path, name); 404 for a path it does not hold.

The pull endpoint also speaks the diff media type (`Accept: application/vnd.github.diff`):
the PR's whole `git diff`, or 406 `too_large` past 300 files or 20,000 changed lines as
GitHub answers. The export holds no diff text for most files: such a file appears with its
git headers and no hunk (the fake's stand-in, so the engine sees the same "no patch" it
sees in the export); a file with a `patch` gets it as its hunks.

POST /graphql (and /api/graphql when the REST API is under /api/v3, as on GitHub
Enterprise Server) answers GitHub's GraphQL request shape, {query, variables}, through
tests/fakes/graphql_lite.py: a small parser for the queries prhub sends (aliases, variables,
inline fragments), GitHub's connection bounds, node limit and point cost, and a points
budget of its own (`rateLimit { cost remaining resetAt }`, x-ratelimit-* headers with
resource `graphql`; when spent, 200 with a `RATE_LIMITED` error). Served: `rateLimit`,
`repository(owner, name) { nameWithOwner pullRequest(number) }` and `search(type: ISSUE,
query, first, after)`, aliased as often as a query likes (`a0: search(...) a1: search(...)`), with the
REST search's qualifiers and its 1,000-result cap, and `sort:created-asc|desc` in the query string (GitHub
takes the sort there, not as an argument; the fake's PRs are created when merged, so it sorts by merge); pull
requests with number, title, body, url, merged, mergedAt, baseRefName, headRefOid,
additions, deletions, changedFiles, author and mergedBy { login __typename }, mergeCommit { oid message },
labels, commits { totalCount }, reviews, files (at most 3,000, like REST; not confirmed for
GraphQL), createdAt, reviewThreads (with their comments) and comments (issue comments), and
`node(id)` for a review thread's further comments. The conversation is the PR's own (`reviews`,
`review_threads`, `comments`, `created_at`), as tests/fakes/github_conversation.py fills it (`served`: what
the fake answers is the truth tests compare with).
Writes (the github channel, prhub.notify.github_post), as GitHub documents them: GET /repos/O/N/issues (state
open|closed|all, creator, labels (all of them), since (updated at or after), sort created|updated, direction,
paging; pull requests would be listed too, flagged `pull_request`, but the fake lists its issues only), POST
/repos/O/N/issues (title, body, labels; 201) and PATCH /repos/O/N/issues/N (title, body, state, state_reason).
Refusals: 403 "Resource not accessible by integration" when the token may not write issues (`can_write`), 410 when
issues are turned off (`issues_enabled`), 422 "Validation Failed" for a body over 65,536 characters and for a
label the repository does not have (`repo_labels`; errors[] {value, resource: Label, field: name, code: invalid}).
Not confirmed in GitHub's documentation: the 422 for a missing label (GitHub may instead create the label when
the token may push; the brief of the github channel asks for the 422, and an answer of that shape is seen in
the wild) and the exact wording of the 403/410 messages. GraphQL serves `repository { id hasDiscussionsEnabled
discussionCategories discussions(categoryId, orderBy, states) }` and the mutations createDiscussion,
updateDiscussion and closeDiscussion (inputs as in octokit/graphql-schema: CreateDiscussionInput {repositoryId,
categoryId, title, body}, UpdateDiscussionInput {discussionId, title, body, categoryId}, CloseDiscussionInput
{discussionId, reason: RESOLVED|OUTDATED|DUPLICATE}); a token that may not write discussions gets a FORBIDDEN
error at the mutation's path (its wording not confirmed). The fault "lost" makes a write and hangs up without
answering (the client sees a dropped connection after sending: maybe posted).

GraphQL faults: "secondary" (200 with a secondary-limit error and Retry-After),
"partial" (one search node null, an error at its path), "timeout" (200, data null, GitHub's
"Something went wrong ... timeout" error); the HTTP faults apply to /graphql as well.

    with FakeGitHub(pulls, repo="o/r") as gh:
        gh.inject("502", path="/files", times=2)
        source = GitHubSource(api_url=gh.url, ...)
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from prhub.core.models import PullRequest
from prhub.core.period import format_timestamp, parse_timestamp

from tests.fakes import graphql_lite as gql
from tests.fakes.github_conversation import issue_comment_ids, review_comment_ids, served
from tests.fakes.loopback import LoopbackServer

FAULTS = ("401", "404", "403-retry-after", "429", "502", "slow", "cut", "cut-connection", "exhausted", "incomplete",
          "secondary", "partial", "timeout", "lost")
DIFF_MEDIA_TYPE = "application/vnd.github.diff"
RAW_MEDIA_TYPE = "application/vnd.github.raw+json"  # the contents API's raw file
CONNECTIONS = frozenset({"search", "files", "labels", "reviews", "commits", "reviewThreads", "comments",
                         "discussions", "discussionCategories"})
BODY_LIMIT = 65_536  # characters of an issue's or discussion's body
FORBIDDEN = "Resource not accessible by integration"


@dataclass
class Fault:
    kind: str  # one of FAULTS
    path: re.Pattern[str]
    times: int = 1
    retry_after: int = 2  # seconds, for 403-retry-after and 429
    reset_in: int = 30  # seconds until the primary limit resets, for exhausted
    delay: float = 1.0  # seconds, for slow
    query: re.Pattern[str] | None = None  # GraphQL: only requests whose query text matches


def load_export(path: str | Path) -> list[PullRequest]:
    with open(path, encoding="utf-8") as handle:
        return [PullRequest.from_export(json.loads(line)) for line in handle if line.strip()]


class FakeGitHub(LoopbackServer):
    """The fake server. Start with `with FakeGitHub(...) as gh` or start()/stop(); its base URL is `gh.url`."""

    def __init__(
        self,
        pulls: Iterable[PullRequest],
        repo: str = "verl-project/verl",
        *,
        token: str | None = None,
        rate_limit: int = 5000,
        search_cap: int = 1000,
        prefix: str = "",
        search_merged_at: bool = True,
        clock: Callable[[], float] = time.time,
        points_limit: int = 5000,
        graphql: bool = True,
        diff_max_files: int = 300,
        diff_max_lines: int = 20_000,
        bots: Iterable[str] = (),
        org_repos: dict[str, list[dict[str, Any]]] | None = None,
        files: dict[str, str] | None = None,
        can_write: Iterable[str] = ("issues", "discussions"),
        issues_enabled: bool = True,
        discussions_enabled: bool = True,
        repo_labels: Iterable[str] = ("weekly", "report"),
        categories: Iterable[str] = ("Announcements", "General", "Q&A"),
        login: str = "github-actions[bot]",
    ) -> None:
        self.repo = repo
        self.can_write = set(can_write)  # what the token may write: issues, discussions
        self.issues_enabled = issues_enabled
        self.discussions_enabled = discussions_enabled
        self.repo_labels = set(repo_labels)
        self.categories = {name: f"DIC_{i + 1}" for i, name in enumerate(categories)}
        self.login = login  # who the token is: the author of what it posts
        self.issues: dict[int, dict[str, Any]] = {}  # number -> the issue as GET would answer it
        self.discussions: dict[str, dict[str, Any]] = {}  # node id -> the discussion's fields
        self.files = dict(files or {})  # the default branch's files the contents endpoint serves
        # Accounts GitHub types as bots though their login has no "[bot]" (GitHub Copilot's "Copilot"): REST says
        # so with `"type": "Bot"`, GraphQL with `__typename: Bot`. Logins ending in "[bot]" are bots too.
        self.bots = set(bots)
        self.org_repos = org_repos or {}  # org login -> its repositories as GitHub lists them (see org_repo)
        self.prefix = prefix.rstrip("/")  # GitHub Enterprise serves the API under /api/v3
        self.search_merged_at = search_merged_at  # older GitHub versions lack pull_request.merged_at in search
        self.pulls = {pr.number: served(pr) for pr in pulls}  # the truth: what the fake answers
        self.token = token  # when set, requests must carry it
        self.rate_limit = rate_limit
        self.remaining = rate_limit
        self.clock = clock
        self.reset_at = clock() + 3600
        self.search_cap = search_cap
        self.faults: list[Fault] = []
        self.graphql = graphql  # False: a server without GraphQL (404), for the REST fallback
        self.points_limit = points_limit
        self.points_remaining = points_limit
        self.points_reset_at = clock() + 3600
        self.points_spent = 0  # GraphQL points charged, over the fake's life (reset_counts clears it)
        self.diff_max_files = diff_max_files
        self.diff_max_lines = diff_max_lines
        self.counts: Counter[str] = Counter()  # answered requests per kind; 304s under "not_modified"
        self.log: list[tuple[str, int]] = []  # (request path with query, status) of every answer
        self._lock = threading.Lock()

    @classmethod
    def from_export(cls, path: str | Path, repo: str = "verl-project/verl", **options: Any) -> FakeGitHub:
        return cls(load_export(path), repo, **options)

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        return self.serve(Handler)

    @property
    def url(self) -> str:
        assert self._server, "start the fake first"
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    # --- test controls ------------------------------------------------------------------------

    def inject(self, kind: str, path: str = ".", times: int = 1, query: str | None = None, **options: Any) -> None:
        """Answer the next `times` requests whose path matches the regex `path` (and, for GraphQL, whose query
        text matches the regex `query`) with fault `kind`."""
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; known: {FAULTS}")
        with self._lock:
            self.faults.append(Fault(kind, re.compile(path), times, query=re.compile(query) if query else None,
                                     **options))

    def take_fault(self, path: str, text: str = "") -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and fault.path.search(path) and (fault.query is None or fault.query.search(text)):
                    fault.times -= 1
                    return fault
        return None

    @property
    def total(self) -> int:
        """Answers that counted against the rate limit (everything but 304s)."""
        return sum(n for kind, n in self.counts.items() if kind != "not_modified")

    def reset_counts(self) -> None:
        with self._lock:
            self.counts.clear()
            self.log.clear()
            self.points_spent = 0

    def spend_points(self, cost: int) -> tuple[int, float]:
        """Charge a query's cost to the GraphQL budget; (remaining after it, reset epoch); -1 means refused."""
        with self._lock:
            now = self.clock()
            if now >= self.points_reset_at:
                self.points_remaining = self.points_limit
                self.points_reset_at = now + 3600
            if self.points_remaining < cost:
                return -1, self.points_reset_at
            self.points_remaining -= cost
            self.points_spent += cost
            return self.points_remaining, self.points_reset_at

    def exhaust_points(self, reset_in: float) -> None:
        with self._lock:
            self.points_remaining = 0
            self.points_reset_at = self.clock() + reset_in

    def spend(self) -> tuple[int, float]:
        """Take one request from the budget; (remaining after it, reset epoch). Remaining -1 means refused."""
        with self._lock:
            now = self.clock()
            if now >= self.reset_at:
                self.remaining = self.rate_limit
                self.reset_at = now + 3600
            if self.remaining <= 0:
                return -1, self.reset_at
            self.remaining -= 1
            return self.remaining, self.reset_at

    def exhaust(self, reset_in: float) -> None:
        with self._lock:
            self.remaining = 0
            self.reset_at = self.clock() + reset_in

    def count(self, kind: str, path: str, status: int) -> None:
        with self._lock:
            self.counts[kind] += 1
            self.log.append((path, status))

    def search_queries(self) -> list[str]:
        """The `q` of every search answered, decoded."""
        return [parse_qs(urlsplit(path).query).get("q", [""])[0] for path, _ in self.log if "/search/" in path]

    # --- issues and discussions (the github channel's writes) ---------------------------------

    def next_number(self) -> int:
        """Issues, pull requests and discussions share a repository's numbers."""
        taken = [*self.pulls, *self.issues, *(d["number"] for d in self.discussions.values())]
        return max(taken, default=0) + 1

    def now(self) -> str:
        return datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def open_issues(self) -> list[dict[str, Any]]:
        return [i for i in self.issues.values() if i["state"] == "open"]

    def issue_listing(self, query: dict[str, list[str]]) -> list[dict[str, Any]]:
        state = query.get("state", ["open"])[0]
        rows = [i for i in self.issues.values() if state == "all" or i["state"] == state]
        if "creator" in query:
            rows = [i for i in rows if i["user"]["login"].lower() == query["creator"][0].lower()]
        if query.get("labels", [""])[0]:
            wanted = {x.strip().lower() for x in query["labels"][0].split(",")}
            rows = [i for i in rows if wanted <= {label["name"].lower() for label in i["labels"]}]
        if "since" in query:
            rows = [i for i in rows if i["updated_at"] >= query["since"][0]]
        field = "updated_at" if query.get("sort", ["created"])[0] == "updated" else "created_at"
        return sorted(rows, key=lambda i: (i[field], i["number"]), reverse=query.get("direction", ["desc"])[0] != "asc")

    def issue_write(self, method: str, path: str, body: Any, base: str) -> tuple[int, dict[str, Any]]:
        """POST /repos/O/N/issues or PATCH /repos/O/N/issues/N: (status, answer)."""
        found = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues(?:/(\d+))?", path)
        if not found or found.group(1).lower() != self.repo.lower() or (method == "POST") == bool(found.group(2)):
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
        if "issues" not in self.can_write:
            return 403, {"message": FORBIDDEN, "documentation_url": "https://docs.github.com/rest/issues/issues"}
        if not self.issues_enabled:
            return 410, {"message": "Issues are disabled for this repo",
                         "documentation_url": "https://docs.github.com/articles/disabling-issues/"}
        if not isinstance(body, dict):
            return 400, {"message": "Problems parsing JSON"}
        errors = [{"value": name, "resource": "Label", "field": "name", "code": "invalid"}
                  for name in body.get("labels") or [] if name not in self.repo_labels]
        if len(str(body.get("body") or "")) > BODY_LIMIT:
            errors.append({"resource": "Issue", "code": "custom", "field": "body",
                           "message": f"body is too long (maximum is {BODY_LIMIT} characters)"})
        if method == "POST" and not body.get("title"):
            errors.append({"resource": "Issue", "code": "missing_field", "field": "title"})
        if errors:
            return 422, {"message": "Validation Failed", "errors": errors,
                         "documentation_url": "https://docs.github.com/rest/issues/issues"}
        with self._lock:
            if method == "POST":
                number = self.next_number()
                issue = {"id": 9_000_000 + number, "node_id": f"I_{number}", "number": number,
                         "title": body["title"], "body": body.get("body") or "", "state": "open", "state_reason": None,
                         "labels": [{"name": name} for name in body.get("labels") or []],
                         "user": self.user(self.login), "created_at": self.now(), "updated_at": self.now(),
                         "closed_at": None, "comments": 0,
                         "url": self.api(base, f"/repos/{self.repo}/issues/{number}"),
                         "html_url": f"https://github.com/{self.repo}/issues/{number}"}
                self.issues[number] = issue
                return 201, dict(issue)
            issue = self.issues.get(int(found.group(2)))
            if issue is None:
                return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
            for key in ("title", "body"):
                if key in body:
                    issue[key] = body[key]
            if body.get("state") in ("open", "closed"):
                issue["state"] = body["state"]
                issue["closed_at"] = self.now() if body["state"] == "closed" else None
                issue["state_reason"] = body.get("state_reason") or ("completed" if body["state"] == "closed"
                                                                    else "reopened")
            issue["updated_at"] = self.now()
            return 200, dict(issue)

    def discussion_node(self, d: dict[str, Any]) -> gql.Obj:
        return gql.Obj("Discussion", id=d["id"], number=d["number"], url=d["url"], title=d["title"], body=d["body"],
                       closed=d["closed"], stateReason=d["state_reason"], createdAt=d["created_at"],
                       updatedAt=d["updated_at"], locked=False, author=self.actor(d["author"]),
                       category=gql.Obj("DiscussionCategory", id=d["category"],
                                        name=next(n for n, i in self.categories.items() if i == d["category"])))

    def discussion_listing(self, args: dict[str, Any]) -> gql.Obj:
        rows = list(self.discussions.values())
        if args.get("categoryId"):
            rows = [d for d in rows if d["category"] == args["categoryId"]]
        states = args.get("states") or []
        if states:
            rows = [d for d in rows if ("CLOSED" if d["closed"] else "OPEN") in states]
        order = args.get("orderBy") or {"field": "UPDATED_AT", "direction": "DESC"}
        field = "created_at" if order.get("field") == "CREATED_AT" else "updated_at"
        rows.sort(key=lambda d: (d[field], d["number"]), reverse=order.get("direction") != "ASC")
        return gql.connection("Discussion", [self.discussion_node(d) for d in rows], args)

    def mutation_root(self) -> gql.Obj:
        def allowed() -> None:
            if "discussions" not in self.can_write:
                raise gql.GraphQLError(FORBIDDEN, "FORBIDDEN")

        def check(body: Any) -> None:
            if body is not None and len(str(body)) > BODY_LIMIT:
                raise gql.GraphQLError(f"Body is too long (maximum is {BODY_LIMIT} characters)", "UNPROCESSABLE")

        def create(args: dict[str, Any]) -> gql.Obj:
            allowed()
            given = args.get("input") or {}
            if given.get("repositoryId") != "R_fake1" or not self.discussions_enabled:
                raise gql.GraphQLError(f"Could not resolve to a node with the global id of "
                                       f"'{given.get('repositoryId')}'", "NOT_FOUND")
            if given.get("categoryId") not in self.categories.values():
                raise gql.GraphQLError(f"Could not resolve to a node with the global id of "
                                       f"'{given.get('categoryId')}'", "NOT_FOUND")
            check(given.get("body"))
            with self._lock:
                number = self.next_number()
                d = {"id": f"D_{number}", "number": number, "title": given["title"], "body": given["body"],
                     "category": given["categoryId"], "closed": False, "state_reason": None, "author": self.login,
                     "created_at": self.now(), "updated_at": self.now(),
                     "url": f"https://github.com/{self.repo}/discussions/{number}"}
                self.discussions[d["id"]] = d
            return gql.Obj("CreateDiscussionPayload", clientMutationId=None, discussion=self.discussion_node(d))

        def found(args: dict[str, Any]) -> dict[str, Any]:
            allowed()
            d = self.discussions.get(str((args.get("input") or {}).get("discussionId")))
            if d is None:
                raise gql.GraphQLError("Could not resolve to a node with the global id of "
                                       f"'{(args.get('input') or {}).get('discussionId')}'", "NOT_FOUND")
            return d

        def update(args: dict[str, Any]) -> gql.Obj:
            d = found(args)
            given = args["input"]
            check(given.get("body"))
            for key in ("title", "body"):
                if given.get(key) is not None:
                    d[key] = given[key]
            d["updated_at"] = self.now()
            return gql.Obj("UpdateDiscussionPayload", clientMutationId=None, discussion=self.discussion_node(d))

        def close(args: dict[str, Any]) -> gql.Obj:
            d = found(args)
            reason = args["input"].get("reason") or "RESOLVED"
            if reason not in ("RESOLVED", "OUTDATED", "DUPLICATE"):
                raise gql.GraphQLError(f"Argument 'reason' on InputObject 'CloseDiscussionInput' has an invalid "
                                       f"value ({reason}).", "argumentLiteralsIncompatible")
            d.update(closed=True, state_reason=reason, updated_at=self.now())
            return gql.Obj("CloseDiscussionPayload", clientMutationId=None, discussion=self.discussion_node(d))

        return gql.Obj("Mutation", createDiscussion=create, updateDiscussion=update, closeDiscussion=close)

    # --- GitHub's shapes ----------------------------------------------------------------------

    def api(self, base: str, path: str) -> str:
        return f"{base}{self.prefix}{path}"

    def user(self, login: str) -> dict[str, Any]:
        """A REST simple-user object: GitHub Apps' bot accounts keep "[bot]" in their login, and every user
        object says its `type` ("User", "Bot" or "Organization")."""
        bot = login.endswith("[bot]") or login in self.bots
        return {"login": login, "id": zlib.crc32(login.encode()), "type": "Bot" if bot else "User"}

    def repo_body(self, base: str) -> dict[str, Any]:
        owner, name = self.repo.split("/")
        return {"id": 1, "name": name, "full_name": self.repo, "private": False, "owner": {"login": owner},
                "html_url": f"https://github.com/{self.repo}", "url": self.api(base, f"/repos/{self.repo}"),
                "default_branch": "main"}

    def org_listing(self, org: str, query: dict[str, list[str]]) -> list[dict[str, Any]] | None:
        """GET /orgs/{org}/repos before paging: filtered by `type`, ordered by `sort` and `direction`."""
        repos = next((r for login, r in self.org_repos.items() if login.lower() == org.lower()), None)
        if repos is None:
            return None
        kind = query.get("type", ["all"])[0]
        keep = {"all": lambda r: True, "member": lambda r: True, "public": lambda r: not r["private"],
                "private": lambda r: r["private"], "forks": lambda r: r["fork"], "sources": lambda r: not r["fork"]}
        chosen = [r for r in repos if keep.get(kind, keep["all"])(r)]
        sort = query.get("sort", ["created"])[0]
        direction = query.get("direction", ["asc" if sort == "full_name" else "desc"])[0]
        field = {"full_name": "full_name", "updated": "updated_at", "pushed": "pushed_at"}.get(sort, "created_at")
        return sorted(chosen, key=lambda r: str(r[field]).lower(), reverse=direction == "desc")

    def search_item(self, base: str, pr: PullRequest) -> dict[str, Any]:
        merged = format_timestamp(pr.merged_at)
        pull_request = {"url": self.api(base, f"/repos/{self.repo}/pulls/{pr.number}"), "html_url": pr.url}
        if self.search_merged_at:
            pull_request["merged_at"] = merged
        return {
            "url": self.api(base, f"/repos/{self.repo}/issues/{pr.number}"),
            "html_url": pr.url, "number": pr.number, "title": pr.title, "user": self.user(pr.author),
            "labels": [{"name": name} for name in pr.labels], "state": "closed", "comments": len(pr.comments),
            "created_at": format_timestamp(pr.created_at or pr.merged_at), "closed_at": merged, "body": pr.body,
            "pull_request": pull_request,
        }

    def pull_body(self, base: str, pr: PullRequest) -> dict[str, Any]:
        merged = format_timestamp(pr.merged_at)
        return {
            "url": self.api(base, f"/repos/{self.repo}/pulls/{pr.number}"), "id": pr.number,
            "number": pr.number, "state": "closed", "locked": False, "title": pr.title,
            "user": self.user(pr.author), "body": pr.body or None,
            "labels": [{"name": name} for name in pr.labels],
            "created_at": format_timestamp(pr.created_at or pr.merged_at), "updated_at": merged, "closed_at": merged,
            "merged_at": merged, "merged_by": self.user_or_null(pr.merged_by), "comments": len(pr.comments),
            "review_comments": sum(len(t.comments) for t in pr.review_threads),
            "merge_commit_sha": pr.head_sha, "head": {"ref": f"pr-{pr.number}", "sha": pr.head_sha},
            "base": {"ref": pr.base_ref}, "html_url": pr.url, "merged": True,
            "commits": pr.commits if pr.commits is not None else 1,
            "additions": pr.additions, "deletions": pr.deletions, "changed_files": pr.changed_files,
        }

    def file_bodies(self, pr: PullRequest) -> list[dict[str, Any]]:
        rows = []
        for f in pr.files[:3000]:  # GitHub lists at most 3,000 files of a PR
            row: dict[str, Any] = {"sha": hashlib.sha1(f.filename.encode()).hexdigest(), "filename": f.filename,
                                   "status": f.status, "additions": f.additions, "deletions": f.deletions,
                                   "changes": f.changes}
            if f.previous_filename:
                row["previous_filename"] = f.previous_filename
            if f.patch is not None and not f.binary:
                row["patch"] = f.patch
            rows.append(row)
        return rows

    def commit_body(self, base: str, pr: PullRequest) -> dict[str, Any]:
        """The git commit a squash merge makes: title (#N), body, Co-authored-by trailers."""
        trailers = []
        for who in pr.co_authors:
            # GitHub-style noreply address for what looks like a login; a plain address for a display name.
            email = f"{who}@users.noreply.github.com" if re.fullmatch(r"[A-Za-z0-9-]+(\[bot\])?", who) \
                else "someone@example.com"
            trailers.append(f"Co-authored-by: {who} <{email}>")
        message = f"{pr.title} (#{pr.number})\n\n{pr.body}" + ("\n\n" + "\n".join(trailers) if trailers else "")
        return {"sha": pr.head_sha, "url": self.api(base, f"/repos/{self.repo}/git/commits/{pr.head_sha}"),
                "message": message, "author": {"name": pr.author, "date": format_timestamp(pr.merged_at)}}

    def review_bodies(self, pr: PullRequest) -> list[dict[str, Any]]:
        return [{"id": pr.number * 100 + i + 1, "user": self.user(r.reviewer), "state": r.state, "body": r.body,
                 "submitted_at": format_timestamp(r.submitted_at or pr.merged_at), "commit_id": pr.head_sha,
                 "html_url": f"{pr.url}#pullrequestreview-{pr.number * 100 + i + 1}",
                 "author_association": "MEMBER"} for i, r in enumerate(pr.reviews)]

    def user_or_null(self, login: str) -> dict[str, Any] | None:
        return None if login in ("", "ghost") else self.user(login)  # a deleted account: GitHub answers null

    def review_comment_bodies(self, base: str, pr: PullRequest) -> list[dict[str, Any]]:
        """GET /pulls/N/comments: every review comment, by id. A reply names its thread's first comment in
        `in_reply_to_id` (GitHub takes replies to first comments only). An outdated comment has no `line` or
        `position` any more, only `original_line` (what GitHub shows; not confirmed in its documentation)."""
        rows = []
        for thread, ids in zip(pr.review_threads, review_comment_ids(pr), strict=True):
            for k, (comment, cid) in enumerate(zip(thread.comments, ids, strict=True)):
                rows.append({
                    "id": cid, "node_id": f"PRRC_{cid}", "pull_request_review_id": None, "path": thread.path,
                    "diff_hunk": "@@ -1 +1 @@", "commit_id": pr.head_sha, "original_commit_id": pr.head_sha,
                    "user": self.user_or_null(comment.author), "body": comment.body,
                    "created_at": format_timestamp(comment.created_at or pr.merged_at),
                    "updated_at": format_timestamp(comment.created_at or pr.merged_at),
                    "html_url": comment.url, "url": self.api(base, f"/repos/{self.repo}/pulls/comments/{cid}"),
                    "author_association": "MEMBER", "subject_type": "line", "side": "RIGHT",
                    "line": None if thread.is_outdated else thread.line, "original_line": thread.line,
                    "position": None if thread.is_outdated else 1, "original_position": 1,
                    **({"in_reply_to_id": ids[0]} if k else {})})
        return rows

    def issue_comment_bodies(self, base: str, pr: PullRequest) -> list[dict[str, Any]]:
        """GET /issues/N/comments: the conversation's comments, by id."""
        return [{"id": cid, "node_id": f"IC_{cid}", "user": self.user_or_null(c.author), "body": c.body,
                 "created_at": format_timestamp(c.created_at or pr.merged_at),
                 "updated_at": format_timestamp(c.created_at or pr.merged_at), "html_url": c.url,
                 "issue_url": self.api(base, f"/repos/{self.repo}/issues/{pr.number}"),
                 "author_association": "CONTRIBUTOR"}
                for c, cid in zip(pr.comments, issue_comment_ids(pr), strict=True)]

    def search(self, query: str) -> list[PullRequest] | str:
        """The PRs a search query matches (sorted by number), or an error message."""
        repo, merged, author, sort = None, None, None, ""
        flags = set()
        for token in query.split():
            key, _, value = token.partition(":")
            if key == "repo":
                repo = value
            elif key == "is":
                flags.add(value)
            elif key == "author":
                author = value.lower()
            elif key == "sort":
                sort = value
            elif key == "merged":
                merged = _parse_range(value)
                if merged is None:
                    return f"cannot parse merged:{value}"
        if repo is None or repo.lower() != self.repo.lower():
            return "The listed users and repositories cannot be searched"
        hits = [pr for pr in self.pulls.values() if (merged is None or merged[0] <= pr.merged_at <= merged[1])
                and (author is None or pr.author.lower() == author)]
        if flags - {"pr", "merged", "closed"}:
            hits = []
        if sort in ("created-asc", "created-desc", "created"):  # the fake's PRs are created when merged
            return sorted(hits, key=lambda pr: (pr.merged_at, pr.number), reverse=sort != "created-asc")
        return sorted(hits, key=lambda pr: pr.number)


    # --- the diff media type ------------------------------------------------------------------

    def diff_too_large(self, pr: PullRequest) -> str | None:
        """GitHub's 406 message when it will not render `pr`'s diff, else None."""
        if pr.changed_files > self.diff_max_files:
            return f"Sorry, the diff exceeded the maximum number of files ({self.diff_max_files}). Consider using " \
                   "'List pull requests files' API or locally cloning the repository instead."
        if pr.additions + pr.deletions > self.diff_max_lines:
            return f"Sorry, the diff exceeded the maximum number of lines ({self.diff_max_lines})"
        return None

    def diff_text(self, pr: PullRequest) -> str:
        """The PR's `git diff` (see the module docstring for files without diff text)."""
        parts = []
        for f in pr.files:
            old = f.previous_filename or f.filename
            lines = [f"diff --git a/{old} b/{f.filename}"]
            if f.status == "added":
                lines.append("new file mode 100644")
            elif f.status == "removed":
                lines.append("deleted file mode 100644")
            elif f.status == "renamed" and f.previous_filename:
                lines += ["similarity index 90%", f"rename from {old}", f"rename to {f.filename}"]
            mode = "" if f.status in ("added", "removed") else " 100644"
            lines.append(f"index {_sha7(old, f.status == 'added')}..{_sha7(f.filename, f.status == 'removed')}{mode}")
            a_side = "/dev/null" if f.status == "added" else f"a/{old}"
            b_side = "/dev/null" if f.status == "removed" else f"b/{f.filename}"
            if f.binary:
                lines.append(f"Binary files {a_side} and {b_side} differ")
            elif f.patch is not None:
                lines += [f"--- {a_side}", f"+++ {b_side}", f.patch.rstrip("\n")]
            parts.append("\n".join(lines))
        return "\n".join(parts) + "\n" if parts else ""

    # --- GraphQL ------------------------------------------------------------------------------

    def graphql_path(self) -> str:
        """Where GraphQL is served: /graphql, or /api/graphql beside GitHub Enterprise's /api/v3."""
        return self.prefix[: -len("/v3")] + "/graphql" if self.prefix.endswith("/api/v3") else "/graphql"

    def actor(self, login: str) -> gql.Obj | None:
        if login in ("", "ghost"):
            return None  # a deleted account: GitHub answers null
        if login.endswith("[bot]") or login in self.bots:
            return gql.Obj("Bot", login=login.removesuffix("[bot]"))
        return gql.Obj("User", login=login)

    def pull_node(self, base: str, pr: PullRequest) -> gql.Obj:
        change = {"added": "ADDED", "removed": "DELETED", "renamed": "RENAMED", "modified": "MODIFIED",
                  "copied": "COPIED", "changed": "CHANGED"}
        files = [gql.Obj("PullRequestChangedFile", path=f.filename, additions=f.additions, deletions=f.deletions,
                         changeType=change.get(f.status, "MODIFIED"), viewerViewedState="UNVIEWED")
                 for f in pr.files]
        reviews = [gql.Obj("PullRequestReview", state=r.state, author=self.actor(r.reviewer), body=r.body,
                           submittedAt=format_timestamp(r.submitted_at or pr.merged_at)) for r in pr.reviews]
        threads = self.thread_nodes(pr)
        comments = [self.comment_node("IssueComment", c, pr) for c in pr.comments]
        commits = [gql.Obj("PullRequestCommit", commit=gql.Obj("Commit", oid=pr.head_sha))
                   for _ in range(pr.commits if pr.commits is not None else 1)]
        labels = [gql.Obj("Label", name=name) for name in pr.labels]
        merged = format_timestamp(pr.merged_at)
        return gql.Obj(
            "PullRequest", number=pr.number, title=pr.title, body=pr.body, url=pr.url, merged=True,
            mergedAt=merged, createdAt=format_timestamp(pr.created_at or pr.merged_at), state="MERGED",
            baseRefName=pr.base_ref, headRefName=f"pr-{pr.number}",
            headRefOid=pr.head_sha, additions=pr.additions, deletions=pr.deletions, changedFiles=pr.changed_files,
            author=self.actor(pr.author), mergedBy=self.actor(pr.merged_by),
            mergeCommit=gql.Obj("Commit", oid=pr.head_sha, message=self.commit_body(base, pr)["message"]),
            labels=lambda a: gql.connection("Label", labels, a),
            commits=lambda a: gql.connection("PullRequestCommit", commits, a),
            reviews=lambda a: gql.connection("PullRequestReview", reviews, a),
            files=lambda a: gql.connection("PullRequestChangedFile", files, a, cap=3000),  # as REST's /files
            reviewThreads=lambda a: gql.connection("PullRequestReviewThread", threads, a),
            comments=lambda a: gql.connection("IssueComment", comments, a),
        )

    def comment_node(self, typename: str, c: Any, pr: PullRequest) -> gql.Obj:
        return gql.Obj(typename, author=self.actor(c.author), body=c.body, url=c.url,
                       createdAt=format_timestamp(c.created_at or pr.merged_at))

    def thread_nodes(self, pr: PullRequest) -> list[gql.Obj]:
        """PullRequestReviewThread nodes: an outdated thread's `line` is null, its `originalLine` kept (as GitHub
        shows outdated threads; not confirmed in its documentation)."""
        nodes = []
        for k, thread in enumerate(pr.review_threads):
            comments = [self.comment_node("PullRequestReviewComment", c, pr) for c in thread.comments]
            nodes.append(gql.Obj(
                "PullRequestReviewThread", id=f"PRRT_{pr.number}_{k}", isResolved=bool(thread.is_resolved),
                isOutdated=thread.is_outdated, isCollapsed=bool(thread.is_resolved), path=thread.path,
                line=None if thread.is_outdated else thread.line, originalLine=thread.line,
                comments=lambda a, items=comments: gql.connection("PullRequestReviewComment", items, a)))
        return nodes

    def graphql_root(self, base: str, cost: int, remaining: int, reset: float, nodes: int) -> gql.Obj:
        def repository(args: dict[str, Any]) -> gql.Obj:
            name = f"{args.get('owner')}/{args.get('name')}"
            if name.lower() != self.repo.lower():
                raise gql.GraphQLError(f"Could not resolve to a Repository with the name '{name}'.", "NOT_FOUND")

            def pull_request(a: dict[str, Any]) -> gql.Obj:
                pr = self.pulls.get(int(a.get("number") or 0))
                if pr is None:
                    raise gql.GraphQLError(f"Could not resolve to a PullRequest with the number of {a.get('number')}.",
                                           "NOT_FOUND")
                return self.pull_node(base, pr)

            return gql.Obj("Repository", id="R_fake1", nameWithOwner=self.repo, pullRequest=pull_request,
                           hasDiscussionsEnabled=self.discussions_enabled, hasIssuesEnabled=self.issues_enabled,
                           discussionCategories=lambda a: gql.connection(
                               "DiscussionCategory", [gql.Obj("DiscussionCategory", id=i, name=n, slug=n.lower())
                                                      for n, i in self.categories.items()], a),
                           discussions=self.discussion_listing)

        def search(args: dict[str, Any]) -> gql.Obj:
            if args.get("type") != "ISSUE":
                raise gql.GraphQLError("the fake GitHub searches issues and pull requests only")
            hits = self.search(str(args.get("query") or ""))
            if isinstance(hits, str):
                raise gql.GraphQLError(hits, "INVALID")
            found = gql.connection("SearchResultItem", [self.pull_node(base, pr) for pr in hits], args,
                                   cap=self.search_cap)
            found.fields.update(issueCount=len(hits), codeCount=0, repositoryCount=0, userCount=0, wikiCount=0,
                                discussionCount=0)
            return found

        def node(args: dict[str, Any]) -> gql.Obj:
            """Query.node(id): the review threads (`PRRT_<number>_<k>`), all the fake serves by id."""
            found = re.fullmatch(r"PRRT_(\d+)_(\d+)", str(args.get("id") or ""))
            pr = self.pulls.get(int(found.group(1))) if found else None
            if pr is None or int(found.group(2)) >= len(pr.review_threads):  # type: ignore[union-attr]
                raise gql.GraphQLError(f"Could not resolve to a node with the global id of '{args.get('id')}'",
                                       "NOT_FOUND")
            return self.thread_nodes(pr)[int(found.group(2))]  # type: ignore[union-attr]

        reset_at = datetime.fromtimestamp(math.ceil(reset), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        rate = gql.Obj("RateLimit", cost=cost, limit=self.points_limit, remaining=remaining,
                       used=self.points_limit - remaining, resetAt=reset_at, nodeCount=nodes)
        return gql.Obj("Query", rateLimit=rate, repository=repository, search=search, node=node)


def _parse_moment(value: str, end: bool) -> datetime:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = datetime.fromisoformat(value).replace(tzinfo=UTC)
        return day + timedelta(days=1, seconds=-1) if end else day
    # A "+" a client forgot to encode arrives as a space.
    return parse_timestamp(re.sub(r" (\d{2}:?\d{2})$", r"+\1", value))


def _parse_range(value: str) -> tuple[datetime, datetime] | None:
    """A..B, a single day or moment, or the qualifiers <=X, <X, >=X, >X GitHub's search syntax allows."""
    try:
        for op in ("<=", ">=", "<", ">"):
            if value.startswith(op):
                moment = _parse_moment(value[len(op):], end=op in ("<=", ">"))
                step = timedelta(seconds=1) if op in ("<", ">") else timedelta(0)
                low, high = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
                return (low, moment - step) if op.startswith("<") else (moment + step, high)
        if ".." in value:
            low, high = value.split("..", 1)
            return _parse_moment(low, False), _parse_moment(high, True)
        return _parse_moment(value, False), _parse_moment(value, True)
    except ValueError:
        return None


class _Handler(BaseHTTPRequestHandler):
    server_fake: FakeGitHub
    protocol_version = "HTTP/1.1"  # keep-alive, as GitHub
    disable_nagle_algorithm = True  # headers and body go out in separate writes: avoid 40 ms delayed-ACK stalls

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        fake = self.server_fake
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if fake.prefix:
            if not path.startswith(fake.prefix + "/"):
                self._send(404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
                return
            path = path[len(fake.prefix):]
        kind = _kind(path)
        base = f"http://{self.headers.get('Host')}"
        fault = fake.take_fault(self.path)
        if fault and fault.kind == "slow":
            time.sleep(fault.delay)
            fault = None  # then answer normally: the client gave up waiting long ago
        if fake.token and self.headers.get("Authorization") not in (f"Bearer {fake.token}", f"token {fake.token}"):
            fault = fault or Fault("401", re.compile("."))
        if fault and fault.kind == "exhausted":
            fake.exhaust(fault.reset_in)
        if fault and fault.kind in ("401", "404", "403-retry-after", "429", "502"):
            self._fault(fault, kind, path)
            return
        status, body, link = self._route(path, query, base)
        if fault and fault.kind == "incomplete" and isinstance(body, dict) and "items" in body:
            # GitHub's search timed out: a 200 that says so, with only part of the page.
            body = {**body, "incomplete_results": True, "items": body["items"][: len(body["items"]) // 2]}
        if kind == "pull" and status == 200 and DIFF_MEDIA_TYPE in (self.headers.get("Accept") or ""):
            kind = "diff"
            pr = fake.pulls[int(path.rsplit("/", 1)[1])]
            too_large = fake.diff_too_large(pr)
            if too_large:
                status, body = 406, {"message": too_large, "errors": [
                    {"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                    "documentation_url": "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files",
                    "status": "406"}
            else:
                body = fake.diff_text(pr)
        if kind == "contents" and status == 200 and RAW_MEDIA_TYPE in (self.headers.get("Accept") or ""):
            body = fake.files[body["path"]]
        text = isinstance(body, str)
        payload = body.encode() if text else json.dumps(body).encode()
        etag = f'W/"{hashlib.sha1(payload).hexdigest()}"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            fake.count("not_modified", self.path, 304)
            self._send(304, b"", {"ETag": etag, **self._rate_headers(fake.remaining, fake.reset_at)})
            return
        remaining, reset = fake.spend()
        if remaining < 0:
            fake.count("rate_limited", self.path, 403)
            message = {"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest"}
            self._send(403, json.dumps(message).encode(), self._rate_headers(0, reset))
            return
        fake.count(kind, self.path, status)
        content_type = (f"{RAW_MEDIA_TYPE if kind == 'contents' else DIFF_MEDIA_TYPE}; charset=utf-8" if text
                        else "application/json; charset=utf-8")
        headers = {**self._rate_headers(remaining, reset), "Content-Type": content_type}
        if status == 200:
            headers["ETag"] = etag
        if link:
            headers["Link"] = link
        self._deliver(status, payload, headers, fault)

    def _deliver(self, status: int, payload: bytes, headers: dict[str, str], fault: Fault | None) -> None:
        """Send the answer, or cut it as the fault says."""
        if fault and fault.kind == "cut":
            self._send(status, payload[: len(payload) // 2], headers)
        elif fault and fault.kind == "cut-connection":
            # Promise the whole body, send half, hang up: the client sees an incomplete read.
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(payload))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self._send(status, payload, headers)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        """GraphQL: {query, variables} in, {data, errors} out, priced and charged to the points budget."""
        fake = self.server_fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        json_type = {"Content-Type": "application/json; charset=utf-8"}
        if urlsplit(self.path).path != fake.graphql_path() and fake.prefix + "/repos/" in self.path:
            self._rest_write("POST", raw)
            return
        if urlsplit(self.path).path != fake.graphql_path() or not fake.graphql:
            fake.count("not_found", self.path, 404)
            self._send(404, b'{"message": "Not Found"}', json_type)
            return
        fault = fake.take_fault(self.path, raw.decode("utf-8", errors="replace"))
        if fault and fault.kind == "slow":
            time.sleep(fault.delay)
            fault = None
        auth = self.headers.get("Authorization")
        if auth is None or (fake.token and auth not in (f"Bearer {fake.token}", f"token {fake.token}")):
            fault = fault or Fault("401", re.compile("."))  # GraphQL needs a token, always
        if fault and fault.kind == "exhausted":
            fake.exhaust_points(fault.reset_in)
        if fault and fault.kind in ("401", "404", "403-retry-after", "429", "502"):
            self._fault(fault, "graphql", self.path)
            return
        if fault and fault.kind in ("secondary", "timeout"):
            fake.count(f"fault_{fault.kind}", self.path, 200)
            headers = {**json_type, **self._points_headers(max(fake.points_remaining, 0), fake.points_reset_at)}
            if fault.kind == "secondary":
                headers["Retry-After"] = str(fault.retry_after)
                message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
            else:
                message = ("Something went wrong while executing your query. This may be the result of a timeout, "
                           "or it could be a GitHub bug. Please include `F4KE:0000:0000` when reporting this issue.")
            self._send(200, json.dumps({"data": None, "errors": [{"message": message}]}).encode(), headers)
            return
        try:
            request = json.loads(raw)
            if not isinstance(request, dict) or not isinstance(request.get("query"), str):
                raise gql.GraphQLError("A query attribute must be specified and must be a string.")
            variables = request.get("variables") or {}
            operation, declared, selections = gql.parse_operation(request["query"])
            missing = [name for name in declared if name not in variables]
            cost, nodes = gql.price(selections, variables, CONNECTIONS)
        except (ValueError, gql.GraphQLError) as exc:
            error = exc.to_json() if isinstance(exc, gql.GraphQLError) else {"message": "Problems parsing JSON"}
            fake.count("graphql_invalid", self.path, 200)
            self._send(200, json.dumps({"errors": [error]}).encode(),
                       {**json_type, **self._points_headers(fake.points_remaining, fake.points_reset_at)})
            return
        remaining, reset = fake.spend_points(cost)
        if remaining < 0:
            fake.count("rate_limited", self.path, 200)
            body = {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]}
            self._send(200, json.dumps(body).encode(), {**json_type, **self._points_headers(0, reset)})
            return
        base = f"http://{self.headers.get('Host')}"
        root = fake.mutation_root() if operation == "mutation" else fake.graphql_root(base, cost, remaining, reset,
                                                                                        nodes)
        data, errors = gql.execute(root, selections, {name: None for name in missing} | variables)
        if operation == "mutation" and fault and fault.kind == "lost":
            fake.count("graphql_lost", self.path, 0)
            self.close_connection = True  # done, and no answer: the client cannot tell whether it was
            return
        if fault and fault.kind == "partial":
            # The first search (aliased or not) with a result: GitHub could not load it, and says so in errors.
            hit = next((alias for alias, value in data.items()
                        if isinstance(value, dict) and value.get("nodes")), None)
            if hit is not None:
                data[hit]["nodes"][0] = None
                errors.append({"type": "SERVICE_UNAVAILABLE", "path": [hit, "nodes", 0],
                               "message": "Something went wrong while loading this item."})
        fake.count("graphql_mutation" if operation == "mutation" else "graphql", self.path, 200)
        answer: dict[str, Any] = {"data": data}
        if errors:
            answer["errors"] = errors
        self._deliver(200, json.dumps(answer).encode(), {**json_type, **self._points_headers(remaining, reset)}, fault)

    def do_PATCH(self) -> None:  # noqa: N802 (http.server's naming)
        self._rest_write("PATCH", self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _rest_write(self, method: str, raw: bytes) -> None:
        """POST or PATCH of an issue, with the REST faults, the token check and the core budget of GET."""
        fake = self.server_fake
        path = urlsplit(self.path).path
        if fake.prefix:
            path = path.removeprefix(fake.prefix)
        fault = fake.take_fault(self.path)
        if fake.token and self.headers.get("Authorization") not in (f"Bearer {fake.token}", f"token {fake.token}"):
            fault = fault or Fault("401", re.compile("."))
        if fault and fault.kind == "exhausted":
            fake.exhaust(fault.reset_in)
        if fault and fault.kind in ("401", "404", "403-retry-after", "429", "502"):
            self._fault(fault, "issue_write", path)
            return
        remaining, reset = fake.spend()
        if remaining < 0:
            fake.count("rate_limited", self.path, 403)
            message = {"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest"}
            self._send(403, json.dumps(message).encode(), {**self._rate_headers(0, reset),
                                                           "Content-Type": "application/json"})
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        status, answer = fake.issue_write(method, path, body, f"http://{self.headers.get('Host')}")
        kind = "issue_create" if method == "POST" else "issue_edit"
        if fault and fault.kind == "lost" and status < 300:
            fake.count(f"{kind}_lost", self.path, 0)
            self.close_connection = True  # written, and no answer: the client cannot tell whether it was
            return
        fake.count(kind if status < 300 else f"{kind}_refused", self.path, status)
        self._send(status, json.dumps(answer).encode(), {**self._rate_headers(remaining, reset),
                                                         "Content-Type": "application/json; charset=utf-8"})

    def _points_headers(self, remaining: int, reset: float) -> dict[str, str]:
        fake = self.server_fake
        return {"X-RateLimit-Limit": str(fake.points_limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(math.ceil(reset)), "X-RateLimit-Used": str(fake.points_limit - remaining),
                "X-RateLimit-Resource": "graphql"}

    def _route(self, path: str, query: dict[str, list[str]], base: str) -> tuple[int, Any, str]:
        fake = self.server_fake
        not_found = (404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, "")
        page = max(1, int(query.get("page", ["1"])[0]))
        per_page = min(100, max(1, int(query.get("per_page", ["30"])[0])))
        if path == "/search/issues":
            hits = fake.search(query.get("q", [""])[0])
            if isinstance(hits, str):
                return 422, {"message": "Validation Failed", "errors": [{"message": hits}]}, ""
            if (page - 1) * per_page >= fake.search_cap:
                return 422, {"message": "Only the first 1000 search results are available"}, ""
            visible = hits[: fake.search_cap]
            items = [fake.search_item(base, pr) for pr in visible[(page - 1) * per_page: page * per_page]]
            body = {"total_count": len(hits), "incomplete_results": False, "items": items}
            return 200, body, self._link(base, path, query, page, per_page, len(visible))
        org = re.fullmatch(r"/orgs/([^/]+)/repos", path)
        if org:
            listing = fake.org_listing(org.group(1), query)
            if listing is None:
                return not_found
            chunk = listing[(page - 1) * per_page: page * per_page]
            return 200, chunk, self._link(base, path, query, page, per_page, len(listing))
        contents = re.fullmatch(r"/repos/([^/]+/[^/]+)/contents/(.+)", path)
        if contents:
            name = unquote(contents.group(2))
            if contents.group(1).lower() != fake.repo.lower() or name not in fake.files:
                return not_found
            data = fake.files[name].encode()
            return 200, {"type": "file", "encoding": "base64", "size": len(data), "name": name.rsplit("/", 1)[-1],
                         "path": name, "sha": hashlib.sha1(data).hexdigest(),
                         "content": base64.b64encode(data).decode()}, ""
        issues = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues", path)
        if issues:
            if issues.group(1).lower() != fake.repo.lower():
                return not_found
            if not fake.issues_enabled:
                return 410, {"message": "Issues are disabled for this repo"}, ""
            listing = fake.issue_listing(query)
            chunk = listing[(page - 1) * per_page: page * per_page]
            return 200, chunk, self._link(base, path, query, page, per_page, len(listing))
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)(?:/(pulls|issues)/(\d+)(/files|/reviews|/comments)?)?", path)
        commit = re.fullmatch(r"/repos/([^/]+/[^/]+)/git/commits/(\w+)", path)
        if commit and commit.group(1).lower() == fake.repo.lower():
            by_sha = next((pr for pr in fake.pulls.values() if pr.head_sha == commit.group(2)), None)
            return (200, fake.commit_body(base, by_sha), "") if by_sha else not_found
        if not match or match.group(1).lower() != fake.repo.lower():
            return not_found
        if match.group(2) is None:
            return 200, fake.repo_body(base), ""
        pr = fake.pulls.get(int(match.group(3)))
        what = (match.group(2), match.group(4))
        if pr is None or what[0] == "issues" and what[1] != "/comments":
            return not_found
        if what[1] is None:
            return 200, fake.pull_body(base, pr), ""
        rows = {("pulls", "/files"): lambda: fake.file_bodies(pr),
                ("pulls", "/reviews"): lambda: fake.review_bodies(pr),
                ("pulls", "/comments"): lambda: fake.review_comment_bodies(base, pr),
                ("issues", "/comments"): lambda: fake.issue_comment_bodies(base, pr)}[what]()
        chunk = rows[(page - 1) * per_page: page * per_page]
        return 200, chunk, self._link(base, path, query, page, per_page, len(rows))

    def _link(self, base: str, path: str, query: dict[str, list[str]], page: int, per_page: int, total: int) -> str:
        last = max(1, math.ceil(total / per_page))
        if last == 1:
            return ""

        def url(number: int) -> str:
            params = {k: v[0] for k, v in query.items()} | {"page": str(number)}
            return f"<{self.server_fake.api(base, path)}?{urlencode(params)}>"

        rels = []
        if page < last:
            rels += [f'{url(page + 1)}; rel="next"', f'{url(last)}; rel="last"']
        if page > 1:
            rels += [f'{url(1)}; rel="first"', f'{url(page - 1)}; rel="prev"']
        return ", ".join(rels)

    def _fault(self, fault: Fault, kind: str, path: str) -> None:
        fake = self.server_fake
        status = int(fault.kind[:3])
        fake.count(f"fault_{fault.kind}", self.path, status)
        headers = self._rate_headers(max(fake.remaining, 0), fake.reset_at)
        messages = {401: "Bad credentials", 404: "Not Found", 502: "Server Error",
                    403: "You have exceeded a secondary rate limit", 429: "Too many requests"}
        if fault.kind in ("403-retry-after", "429"):
            headers["Retry-After"] = str(fault.retry_after)
        self._send(status, json.dumps({"message": messages[status]}).encode(),
                   {**headers, "Content-Type": "application/json"})

    def _rate_headers(self, remaining: int, reset: float) -> dict[str, str]:
        fake = self.server_fake
        return {"X-RateLimit-Limit": str(fake.rate_limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(math.ceil(reset)), "X-RateLimit-Used": str(fake.rate_limit - remaining),
                "X-RateLimit-Resource": "core"}

    def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)


def _sha7(path: str, missing: bool) -> str:
    return "0000000" if missing else hashlib.sha1(path.encode()).hexdigest()[:7]


def org_repo(full_name: str, n: int, *, archived: bool = False, private: bool = False, fork: bool = False,
             disabled: bool = False) -> dict[str, Any]:
    """One repository as GitHub's list endpoints show it (the fields prhub reads and a few beside them);
    the n-th is created (and pushed) n days after 2020-01-01."""
    owner, name = full_name.split("/")
    when = format_timestamp(datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=n))
    return {"id": 1000 + n, "node_id": f"R_{n}", "name": name, "full_name": full_name, "private": private,
            "owner": {"login": owner, "type": "Organization"}, "html_url": f"https://github.com/{full_name}",
            "fork": fork, "archived": archived, "disabled": disabled,
            "visibility": "private" if private else "public", "created_at": when, "updated_at": when,
            "pushed_at": when, "default_branch": "main"}


def _kind(path: str) -> str:
    if path.startswith("/search/"):
        return "search"
    if path.startswith("/orgs/"):
        return "org_repos"
    if "/git/commits/" in path:
        return "commit"
    if "/contents/" in path:
        return "contents"
    if path.endswith("/files"):
        return "files"
    if path.endswith("/issues"):
        return "issues"
    if path.endswith("/reviews"):
        return "reviews"
    if path.endswith("/comments"):
        return "review_comments" if "/pulls/" in path else "issue_comments"
    if "/pulls/" in path:
        return "pull"
    return "repo"
