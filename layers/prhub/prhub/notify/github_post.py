"""The report as a GitHub issue or discussion: one post per report (repository, range, language), edited by
each new revision, never posted twice.

    post = build_post(channel, report, markdown, where)            the post's title, body and marker
    verdict = publish(GitHubApi(http, api_url, token, clock), post, known)
                                                                  created, edited or left as it is; verdict.post
                                                                  names it (kept in the delivery ledger)

The body is the brief of report.md (the same renderer's Markdown, cut at its `## 附录` / `## Appendix` heading),
its links made absolute to the site (the report's page and PDF, each PR's page), under GitHub's 65,536-character
limit, with a hidden marker (`<!-- prhub:report owner/repo since..until lang -->`) naming the report. The post is
found again by the ledger's record of it first; without one (a send whose answer never came, a lost ledger) by
its marker among the repository's issues or discussions, so a resend edits the post instead of making a second
one: the channel is idempotent (prhub.core.platforms), as the generic webhook is.

Issues through REST (POST and PATCH /repos/{owner}/{repo}/issues, the list endpoint to find markers); discussions
through GraphQL (createDiscussion, updateDiscussion, closeDiscussion; the repository's id and the category's by
name from `repository { id discussionCategories }`). `close_previous` closes the earlier reports' open posts of
the same report base and language (issues: state closed; discussions: closeDiscussion, reason OUTDATED).

Answers: rate limits (403/429 with Retry-After, or x-ratelimit-remaining 0 until x-ratelimit-reset; GraphQL's
RATE_LIMITED) are throttled; 5xx transient; a write whose answer never came is `maybe`; 401 a rejected token,
403 a token without the issues/discussions permission, 404 a repository the token cannot see, 410 issues turned
off, 422 a label that does not exist (or another refused field): permanent, each said in one line.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from prhub.core.text import clean, safe_url
from prhub.notify.message import WORDS
from prhub.notify.wire import Verdict, retry_after

FORMAT = 1  # the body's layout: a new one edits every post at its report's next delivery
# What a run of the same report rewrites without changing what it says: when it was made, its run's notes (a
# revision's, a learning note), its revision and what the revision changed, the scorer's tokens and costs. A
# re-run of the week does not edit the post over them.
VOLATILE = ("generated_at", "notes", "revision", "changes", "learning", "scorer")
BODY_LIMIT = 65_536  # GitHub refuses a longer issue or discussion body ("body is too long")
TITLE_LIMIT = 256
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 20.0
LIST_PAGES = 10  # pages of 100 looked through for a marker
APPENDIX = re.compile(r"^## (?:附录|Appendix)\s*$", re.MULTILINE)
MARKER = re.compile(r"<!-- prhub:report (\S+) (\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2}) ([a-z]{2}) -->")
# A Markdown link as report.md writes them: [label](<url>) or [label](url).
_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((<[^>\n]*>|[^)\s]*)\)")
MORE = {"zh": "附录（模块与主题、热点文件、PR 类型、风险详情、相关 PR 与全部合并 PR）见网页版",
        "en": "The appendix (modules and themes, hot files, PR types, risk details, related PRs and every merged PR) "
              "is on the report's page"}
CUT = {"zh": "（正文过长，其余部分见网页版）", "en": "(Too long for GitHub: the rest is on the report's page.)"}


@dataclass(frozen=True)
class Where:
    """Which report a post is about, and where its pages are: `base` is the report's folder on the site
    (owner/repo, a slice's folder, or _digest), `lang_dir` its language subfolder, if any."""

    base: str
    since: str
    until: str
    lang: str
    site_url: str = ""
    lang_dir: str | None = None

    @property
    def page(self) -> str | None:
        if not self.site_url:
            return None
        sub = f"{self.lang_dir}/" if self.lang_dir else ""
        root = f"{self.site_url.rstrip('/')}/{self.base.strip('/')}"
        # The site's layout (DESIGN.md): a repository's reports under reports/, the digest's straight under _digest/.
        folder = "" if self.base.startswith("_") else "reports/"
        return safe_url(f"{root}/{folder}{self.since}-to-{self.until}/{sub}")

    def pr_page(self, number: int) -> str | None:
        if not self.site_url or self.base.startswith("_"):
            return None
        sub = f"{self.lang_dir}/" if self.lang_dir else ""
        return safe_url(f"{self.site_url.rstrip('/')}/{self.base.strip('/')}/pull/{number}/{sub}")


@dataclass(frozen=True)
class Post:
    """One report's post: where it goes, what it says, and how it is found again."""

    repo: str  # owner/name the post goes to
    mode: str  # issue | discussion
    title: str
    body: str
    where: Where
    labels: tuple[str, ...] = ()
    category: str | None = None
    close_previous: bool = False
    content: str = ""  # the report's content without what each run rewrites anyway (VOLATILE)

    @property
    def marker(self) -> str:
        return marker(self.where.base, self.where.since, self.where.until, self.where.lang)

    def fingerprint(self) -> str:
        """What decides whether the post needs an edit: where it goes, its title, the report's content (not how
        this run of it came about) and where its pages are."""
        return json.dumps([FORMAT, self.repo, self.mode, self.title, list(self.labels), self.category,
                           self.where.page, self.content or self.body], ensure_ascii=False)


def marker(base: str, since: str, until: str, lang: str) -> str:
    return f"<!-- prhub:report {base} {since}..{until} {lang} -->"


def build_post(channel: Any, report: Mapping[str, Any], markdown: str, where: Where, default_repo: str) -> Post:
    """The post of `report` (report.json) for a github `channel` (prhub.core.channels.Channel): its title, and the
    brief of `markdown` (the report's report.md) as the body."""
    lang = where.lang if where.lang in WORDS else "en"
    title = clean(report.get("title")) or clean(report.get("repo")) or where.base
    pr_pages: dict[str, str] = {}
    for pr in report.get("prs") or []:
        url = safe_url(pr.get("url")) if isinstance(pr, dict) else None
        if url and isinstance(pr.get("number"), int) and (page := where.pr_page(pr["number"])):
            pr_pages[url] = page
    body = compose_body(markdown, where, lang, pr_pages)
    content = json.dumps({k: v for k, v in report.items() if k not in VOLATILE}, sort_keys=True, ensure_ascii=False,
                         default=str)
    return Post(repo=channel.repo or default_repo, mode=channel.mode, title=_shorten(title, TITLE_LIMIT), body=body,
                where=where, labels=tuple(channel.labels), category=channel.category,
                close_previous=channel.close_previous, content=content)


def compose_body(markdown: str, where: Where, lang: str, pr_pages: Mapping[str, str]) -> str:
    """The brief (report.md up to its appendix) as GitHub-flavoured Markdown: links to the site, the marker,
    within BODY_LIMIT."""
    words = WORDS[lang]
    text = markdown.replace("\r\n", "\n")
    cut = APPENDIX.search(text)
    brief = text[:cut.start()] if cut else text
    lines = brief.strip().split("\n")
    if lines and lines[0].startswith("# "):
        lines = lines[1:]  # the title is the post's title
    brief = _absolute("\n".join(lines).strip(), where.page, pr_pages)
    page = where.page
    head = " · ".join(f"[{label}]({url})" for label, url in
                      ((words["page"], page), (words["pdf"], f"{page}report.pdf" if page else None)) if url)
    tail = f"[{MORE[lang]}]({page})" if cut and page else (MORE[lang] if cut else "")
    parts = [marker(where.base, where.since, where.until, where.lang)]
    if head:
        parts.append(f"> {head}")
    end = [f"---\n{tail}"] if tail else []
    body = "\n\n".join([*parts, brief, *end]) + "\n"
    if _length(body) <= BODY_LIMIT:
        return body
    return "\n\n".join([*parts, _fit(brief, BODY_LIMIT - _length("\n\n".join([*parts, *end])) - 200, lang),
                        *end]) + "\n"


def _absolute(text: str, page: str | None, pr_pages: Mapping[str, str]) -> str:
    """report.md's links as a post on GitHub needs them: a PR's to its page on the site (when there is one), a
    relative one (report.pdf, index.html) to the report's folder on the site, or plain text without a site."""
    def one(match: re.Match[str]) -> str:
        label, url = match.group(1), match.group(2).strip("<>")
        if re.match(r"(?i)https?://", url):
            return f"[{label}](<{pr_pages.get(url, url)}>)"
        if url.startswith("#"):
            return match.group(0)
        if page:
            return f"[{label}](<{page}{url.removeprefix('./')}>)"
        return label

    return _LINK.sub(one, text)


def _length(text: str) -> int:
    """Characters as GitHub may count them: UTF-16 code units (an emoji is two), never fewer than code points."""
    return len(text.encode("utf-16-le")) // 2


def _fit(brief: str, limit: int, lang: str) -> str:
    """The brief's leading sections that fit in `limit`, then a note; a single section too long is cut at a line."""
    note = CUT.get(lang, CUT["en"])
    sections = re.split(r"(?m)^(?=## )", brief)
    kept = ""
    for section in sections:
        if _length(kept + section) + _length(note) + 2 > limit:
            break
        kept += section
    if not kept:
        lines, size = [], 0
        for line in brief.split("\n"):
            size += _length(line) + 1
            if size + _length(note) + 2 > limit:
                break
            lines.append(line)
        kept = "\n".join(lines)
    return kept.rstrip() + "\n\n" + note


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


# -- GitHub ------------------------------------------------------------------------------------------------------

class Refused(Exception):
    """An answer that ends this attempt: its verdict (throttled, transient, maybe or permanent)."""

    def __init__(self, verdict: Verdict, gone: bool = False) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict
        self.gone = gone  # 404/410 or NOT_FOUND: what was asked for is not there (a deleted post, or no repository)


@dataclass
class GitHubApi:
    """The REST and GraphQL calls of a post, on `http` (a requests.Session) with `token`."""

    http: Any
    api_url: str
    token: str | None
    clock: Callable[[], float] = time.time
    calls: list[str] = field(default_factory=list)  # "METHOD path" of every request, for logs and tests

    @property
    def graphql_url(self) -> str:
        # GitHub Enterprise Server: REST under /api/v3, GraphQL at /api/graphql.
        base = self.api_url.rstrip("/")
        return base[: -len("/v3")] + "/graphql" if base.endswith("/api/v3") else base + "/graphql"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                   "User-Agent": "prhub", "Content-Type": "application/json; charset=utf-8"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _send(self, method: str, url: str, body: Any, what: str) -> Any:
        import requests

        self.calls.append(f"{method} {url.removeprefix(self.api_url.rstrip('/'))}")
        data = json.dumps(body, ensure_ascii=False).encode("utf-8") if body is not None else None
        writes = method != "GET" and not (body and "query" in body and "mutation" not in str(body.get("query")))
        try:
            response = self.http.request(method, url, data=data, headers=self._headers(),
                                         timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
        except requests.ConnectTimeout as exc:
            raise Refused(Verdict("transient", f"timed out connecting to GitHub ({what})")) from exc
        except (requests.Timeout, requests.ConnectionError) as exc:
            if writes and not _never_sent(exc):
                raise Refused(Verdict("maybe", f"no answer from GitHub to {what}: maybe done")) from exc
            raise Refused(Verdict("transient", f"GitHub unreachable ({what}): {type(exc).__name__}")) from exc
        return response

    def rest(self, method: str, path: str, body: Any = None, *, what: str, repo: str, kind: str = "issues") -> Any:
        response = self._send(method, f"{self.api_url.rstrip('/')}{path}", body, what)
        status = response.status_code
        if 200 <= status < 300:
            return response.json() if response.content else None
        raise Refused(self.refusal(status, response.headers, _text(response), what, repo, kind),
                      gone=status in (404, 410))

    def graphql(self, query: str, variables: Mapping[str, Any], *, what: str, repo: str) -> dict[str, Any]:
        response = self._send("POST", self.graphql_url, {"query": query, "variables": dict(variables)}, what)
        status = response.status_code
        text = _text(response)
        if status != 200:
            raise Refused(self.refusal(status, response.headers, text, what, repo, "discussions"))
        try:
            doc = json.loads(text)
        except ValueError:
            raise Refused(Verdict("transient", f"GitHub answered {what} with a body that is not JSON")) from None
        errors = doc.get("errors") or []
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {}
            raise Refused(self.graphql_refusal(errors, response.headers, what, repo),
                          gone=first.get("type") == "NOT_FOUND")
        return doc.get("data") or {}

    def refusal(self, status: int, headers: Mapping[str, str], body: str, what: str, repo: str,
                kind: str) -> Verdict:
        """GitHub's refusal of a request, as a verdict whose detail says the cause in one line."""
        message, errors = _message(body)
        said = f"HTTP {status}" + (f" {message}" if message else "")
        wait = self.limit_wait(status, headers, message)
        if wait is not None:
            return Verdict("throttled", f"GitHub rate limit on {what} ({said})", wait)
        if status >= 500:
            return Verdict("transient", f"GitHub failed {what} ({said})", retry_after(headers.get("Retry-After")))
        if status == 401:
            return Verdict("permanent", f"GitHub rejected the token for {what} ({said}): check the token secret")
        if status == 403:
            return Verdict("permanent", f"the token may not write {kind} in {repo} ({said}): give it "
                                        f"`{kind}: write`")
        if status == 404:
            return Verdict("permanent", f"repository {repo} not found, or the token cannot see it ({said})")
        if status == 410:
            return Verdict("permanent", f"issues are turned off in {repo} ({said})")
        if status == 422:
            labels = [str(e.get("value")) for e in errors if isinstance(e, dict) and e.get("resource") == "Label"]
            if labels:
                return Verdict("permanent", f"label(s) {', '.join(labels)} do not exist in {repo} ({said}): create "
                                            "them or change the channel's labels")
            listed = ": " + json.dumps(errors)[:200] if errors else ""
            return Verdict("permanent", f"GitHub refused {what} ({said}{listed})")
        return Verdict("permanent", f"GitHub refused {what} ({said})")

    def graphql_refusal(self, errors: list[Any], headers: Mapping[str, str], what: str, repo: str) -> Verdict:
        first = errors[0] if isinstance(errors[0], dict) else {}
        kind, message = str(first.get("type") or ""), str(first.get("message") or "")
        said = f"{kind + ': ' if kind else ''}{message}"[:300]
        if kind == "RATE_LIMITED" or "rate limit" in message.lower():
            wait = self.limit_wait(403, headers, message)
            return Verdict("throttled", f"GitHub rate limit on {what} ({said})", 60.0 if wait is None else wait)
        if kind == "NOT_FOUND":
            return Verdict("permanent", f"repository {repo} not found, or the token cannot see it ({said})")
        if kind == "FORBIDDEN" or "not accessible" in message.lower():
            return Verdict("permanent", f"the token may not write discussions in {repo} ({said}): give it "
                                        "`discussions: write`")
        if "something went wrong" in message.lower() or "timeout" in message.lower():
            return Verdict("transient", f"GitHub failed {what} ({said})")
        return Verdict("permanent", f"GitHub refused {what} ({said})")

    def limit_wait(self, status: int, headers: Mapping[str, str], message: str) -> float | None:
        """Seconds a rate-limited answer asks to wait, or None when the answer is no rate limit."""
        if status not in (403, 429):
            return None
        after = retry_after(headers.get("Retry-After"))
        if after is not None:
            return after
        if headers.get("X-RateLimit-Remaining") == "0":
            try:
                return max(1.0, float(headers.get("X-RateLimit-Reset", "")) - self.clock())
            except ValueError:
                return 60.0
        if status == 429 or "rate limit" in message.lower():
            return 60.0  # GitHub's advice for a secondary limit that names no wait: at least a minute
        return None


def _text(response: Any) -> str:
    return bytes(response.content or b"").decode("utf-8", "replace")


def _message(body: str) -> tuple[str, list[Any]]:
    try:
        doc = json.loads(body)
    except ValueError:
        return body.strip()[:200], []
    if not isinstance(doc, dict):
        return "", []
    errors = doc.get("errors")
    return str(doc.get("message") or "")[:200], errors if isinstance(errors, list) else []


def _never_sent(exc: Exception) -> bool:
    from urllib3.exceptions import NewConnectionError

    reason = getattr(exc.args[0] if exc.args else None, "reason", None)
    return isinstance(reason, NewConnectionError)


# -- posting ----------------------------------------------------------------------------------------------------

def publish(api: GitHubApi, post: Post, known: Mapping[str, Any] | None = None) -> Verdict:
    """Create the post, or edit the one the ledger (`known`) or the marker names; then close the earlier ones when
    asked. The verdict's `post` names the post ({"mode", "repo", "number", "id", "url"})."""
    try:
        return _discussion(api, post, known) if post.mode == "discussion" else _issue(api, post, known)
    except Refused as refused:
        if not (known and refused.gone):
            return refused.verdict
    # The post the ledger names is gone (a maintainer deleted it): found by its marker, or made again.
    try:
        return _discussion(api, post, None) if post.mode == "discussion" else _issue(api, post, None)
    except Refused as refused:
        return refused.verdict


def _same_post(known: Mapping[str, Any] | None, post: Post) -> bool:
    """Whether the ledger's record names a post of this channel's kind and repository."""
    return known is not None and known.get("mode") == post.mode and \
        str(known.get("repo", "")).lower() == post.repo.lower()


def _issue(api: GitHubApi, post: Post, known: Mapping[str, Any] | None) -> Verdict:
    repo = post.repo
    path = f"/repos/{repo}/issues"
    number = known.get("number") if known and _same_post(known, post) else None
    found: dict[str, Any] | None = None
    if number is None:
        found = next((i for i in _issues(api, post, state="all") if post.marker in (i.get("body") or "")), None)
    if found is not None and found.get("title") == post.title and found.get("body") == post.body:
        issue, done = found, "unchanged"
    elif found is not None or number is not None:
        n = found["number"] if found is not None else number
        issue = api.rest("PATCH", f"{path}/{n}", {"title": post.title, "body": post.body},
                         what=f"editing issue #{n} of {repo}", repo=repo)
        done = "edited"
    else:
        request: dict[str, Any] = {"title": post.title, "body": post.body}
        if post.labels:
            request["labels"] = list(post.labels)
        issue = api.rest("POST", path, request, what=f"creating an issue in {repo}", repo=repo)
        done = "created"
    ref = {"mode": "issue", "repo": repo, "number": issue["number"], "url": issue.get("html_url", ""),
           "author": (issue.get("user") or {}).get("login", "")}
    detail = f"issue #{issue['number']} {done}"
    if post.close_previous:
        detail += _close_issues(api, post, ref)
    return Verdict("delivered", detail, post=ref)


def _issues(api: GitHubApi, post: Post, *, state: str, creator: str = "") -> Iterator[dict[str, Any]]:
    """The repository's issues (not pull requests) that may carry a marker: newest first, updated since the
    report's period began (its post cannot be older), in the channel's labels, by `creator` when known."""
    params = [f"state={state}", "sort=created", "direction=desc", "per_page=100"]
    if state == "all":
        params.append(f"since={post.where.since}T00:00:00Z")
    if post.labels:
        params.append("labels=" + ",".join(_quote(label) for label in post.labels))
    if creator:
        params.append(f"creator={_quote(creator)}")
    for page in range(1, LIST_PAGES + 1):
        rows = api.rest("GET", f"/repos/{post.repo}/issues?{'&'.join(params)}&page={page}",
                        what=f"listing the issues of {post.repo}", repo=post.repo)
        for row in rows or []:
            if isinstance(row, dict) and "pull_request" not in row:
                yield row
        if not rows or len(rows) < 100:
            return


def _earlier(body: str, post: Post) -> bool:
    """Whether `body` is a post of an earlier report of the same base and language."""
    found = MARKER.search(body or "")
    return found is not None and found.group(1) == post.where.base and found.group(4) == post.where.lang \
        and found.group(3) < post.where.since


def _close_issues(api: GitHubApi, post: Post, ref: Mapping[str, Any]) -> str:
    closed = []
    for issue in list(_issues(api, post, state="open", creator=str(ref.get("author") or ""))):
        if issue["number"] != ref["number"] and _earlier(issue.get("body") or "", post):
            api.rest("PATCH", f"/repos/{post.repo}/issues/{issue['number']}",
                     {"state": "closed", "state_reason": "completed"},
                     what=f"closing issue #{issue['number']} of {post.repo}", repo=post.repo)
            closed.append(f"#{issue['number']}")
    return f"; closed {', '.join(closed)}" if closed else ""


_REPOSITORY = """query($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    id hasDiscussionsEnabled discussionCategories(first: 100) { nodes { id name } }
  }
}"""
_DISCUSSIONS = """query($owner: String!, $name: String!, $category: ID, $after: String) {
  repository(owner: $owner, name: $name) {
    discussions(first: 100, after: $after, categoryId: $category, orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { id number url title body closed createdAt }
      pageInfo { hasNextPage endCursor }
    }
  }
}"""
_CREATE = """mutation($input: CreateDiscussionInput!) {
  createDiscussion(input: $input) { discussion { id number url } }
}"""
_UPDATE = """mutation($input: UpdateDiscussionInput!) {
  updateDiscussion(input: $input) { discussion { id number url } }
}"""
_CLOSE = """mutation($input: CloseDiscussionInput!) { closeDiscussion(input: $input) { discussion { id closed } } }"""


def _repository(api: GitHubApi, post: Post) -> tuple[str, str]:
    """The repository's node id and the channel's category's, by name; Refused when either cannot be had."""
    repo = post.repo
    owner, name = repo.split("/", 1)
    data = api.graphql(_REPOSITORY, {"owner": owner, "name": name}, what=f"looking up {repo}", repo=repo)
    repository = data.get("repository")
    if not repository:
        raise Refused(Verdict("permanent", f"repository {repo} not found, or the token cannot see it"))
    if repository.get("hasDiscussionsEnabled") is False:
        raise Refused(Verdict("permanent", f"discussions are turned off in {repo}"))
    categories = {c["name"]: c["id"] for c in (repository.get("discussionCategories") or {}).get("nodes") or []}
    wanted = post.category or ""
    category = categories.get(wanted) or next((i for n, i in categories.items() if n.lower() == wanted.lower()), None)
    if category is None:
        raise Refused(Verdict("permanent", f"no discussion category {wanted!r} in {repo} (it has: "
                                           f"{', '.join(sorted(categories)) or 'none'})"))
    return str(repository["id"]), category


def _discussion(api: GitHubApi, post: Post, known: Mapping[str, Any] | None) -> Verdict:
    repo = post.repo
    repository_id, category = _repository(api, post)
    listed: list[dict[str, Any]] | None = None
    target = known.get("id") if known and _same_post(known, post) else None
    if target is None:
        listed = list(_discussions(api, post, category))
        found = next((d for d in listed if post.marker in (d.get("body") or "")), None)
        if found is not None and found.get("title") == post.title and found.get("body") == post.body:
            return _closing(api, post, listed, found, category, "unchanged")
        target = found["id"] if found is not None else None
    if target is not None:
        answer = api.graphql(_UPDATE, {"input": {"discussionId": target, "title": post.title, "body": post.body}},
                             what=f"editing a discussion of {repo}", repo=repo)
        return _closing(api, post, listed, (answer.get("updateDiscussion") or {}).get("discussion") or {},
                        category, "edited")
    answer = api.graphql(_CREATE, {"input": {"repositoryId": repository_id, "categoryId": category,
                                             "title": post.title, "body": post.body}},
                         what=f"creating a discussion in {repo}", repo=repo)
    return _closing(api, post, listed, (answer.get("createDiscussion") or {}).get("discussion") or {}, category,
                    "created")


def _closing(api: GitHubApi, post: Post, listed: list[dict[str, Any]] | None, made: Mapping[str, Any],
             category: str, done: str) -> Verdict:
    if not made.get("id"):
        return Verdict("permanent", f"GitHub answered without the discussion ({done})")
    ref = {"mode": "discussion", "repo": post.repo, "id": made["id"], "number": made.get("number"),
           "url": made.get("url", "")}
    detail = f"discussion #{made.get('number')} {done}"
    if post.close_previous:
        closed = []
        for d in listed if listed is not None else _discussions(api, post, category):
            if d["id"] != made["id"] and not d.get("closed") and _earlier(d.get("body") or "", post):
                api.graphql(_CLOSE, {"input": {"discussionId": d["id"], "reason": "OUTDATED"}},
                            what=f"closing discussion #{d.get('number')} of {post.repo}", repo=post.repo)
                closed.append(f"#{d.get('number')}")
        if closed:
            detail += f"; closed {', '.join(closed)}"
    return Verdict("delivered", detail, post=ref)


def _discussions(api: GitHubApi, post: Post, category: str) -> Iterator[dict[str, Any]]:
    """The category's discussions, newest first, down to the report's period (its post cannot be older)."""
    owner, name = post.repo.split("/", 1)
    after = None
    for _ in range(LIST_PAGES):
        data = api.graphql(_DISCUSSIONS, {"owner": owner, "name": name, "category": category, "after": after},
                           what=f"listing the discussions of {post.repo}", repo=post.repo)
        page = ((data.get("repository") or {}).get("discussions")) or {}
        yield from (d for d in page.get("nodes") or [] if isinstance(d, dict))
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            return
        after = info.get("endCursor")


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")
