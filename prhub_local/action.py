"""The GitHub Action's steps (action.yml): check the token, then run Prhub on the repository the workflow runs in.

    python action.py preflight   one readable line (a workflow `::error::`) and exit 1 when the token cannot do what
                                 the inputs ask: read the repository (contents: read), post the report (issues: write
                                 or discussions: write)
    python action.py run         `prhub run --source github` for the repository, into the site and state folders the
                                 action's cache and Pages steps keep; with `post`, a watch list whose github channel
                                 posts the report, and exit 1 with its cause when GitHub refused the post

Standard library only: the preflight runs before Prhub is installed. Settings come from the environment the action's
steps give (PRHUB_* from the action's inputs; GITHUB_* as GitHub Actions sets them).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

WRITE = {"issue": "issues", "discussion": "discussions"}
# Inputs left empty reach the step as empty variables; to Prhub and the openai package an empty OPENAI_BASE_URL is
# not "unset" (it would be the endpoint), so they are dropped.
OPTIONAL = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PRHUB_LLM_MODEL", "SITE_URL")
# The delivery's own line when GitHub refused the post (prhub.notify.delivery logs it; the runner prints it).
_REFUSED = re.compile(r"notify (github:[^ ]*): (?:gave up|deferred)[^:]*: (.*)$")


class Refusal(Exception):
    """What the workflow must change, in one line."""


def error(message: str) -> int:
    print(f"::error title=Prhub::{message}", flush=True)
    return 1


def _get(env: Mapping[str, str], path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    api = (env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    url = (api[: -len("/v3")] + "/graphql" if api.endswith("/api/v3") else api + "/graphql") if body else api + path
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body else None,
                                     method="POST" if body else "GET",
                                     headers={"Accept": "application/vnd.github+json", "User-Agent": "prhub-action",
                                              "Authorization": f"Bearer {env.get('GITHUB_TOKEN', '')}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - GITHUB_API_URL is https or a test's
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (urllib.error.URLError, TimeoutError) as exc:
        raise Refusal(f"GitHub cannot be reached at {api}: {exc}") from exc


def preflight(env: Mapping[str, str]) -> None:
    """Raise Refusal naming the permission the workflow lacks, or the input that is wrong."""
    repo = env.get("PRHUB_REPO") or env.get("GITHUB_REPOSITORY") or ""
    if not re.fullmatch(r"[A-Za-z0-9-]+/[A-Za-z0-9._-]+", repo):
        raise Refusal(f"input repo must be owner/name, got {repo!r}")
    post = env.get("PRHUB_POST", "")
    if post not in ("", *WRITE):
        raise Refusal(f"input post must be issue, discussion or empty, got {post!r}")
    if post == "discussion" and not env.get("PRHUB_POST_CATEGORY"):
        raise Refusal("input post-category must name a discussion category when post is discussion")
    if not env.get("GITHUB_TOKEN"):
        raise Refusal("no token: give the action github-token (default: the workflow's GITHUB_TOKEN)")
    status, _ = _get(env, f"/repos/{repo}")
    if status == 401:
        raise Refusal("GitHub rejected the token (401): check the action's github-token")
    if status != 200:
        raise Refusal(f"the token cannot read {repo} (HTTP {status}): give the workflow `permissions: contents: read`")
    if post == "issue":
        status, _ = _get(env, f"/repos/{repo}/issues?per_page=1")
        if status == 410:
            raise Refusal(f"issues are turned off in {repo}: turn them on, or post a discussion")
        if status != 200:
            raise Refusal(f"the token cannot use the issues of {repo} (HTTP {status}): give the workflow "
                          "`permissions: issues: write`")
    if post == "discussion":
        owner, name = repo.split("/", 1)
        status, doc = _get(env, "", {"query": "query($o: String!, $n: String!) { repository(owner: $o, name: $n) "
                                              "{ hasDiscussionsEnabled } }", "variables": {"o": owner, "n": name}})
        found = ((doc or {}).get("data") or {}).get("repository") if status == 200 else None
        if found is None:
            raise Refusal(f"the token cannot read the discussions of {repo} (HTTP {status}): give the workflow "
                          "`permissions: discussions: write`")
        if not found.get("hasDiscussionsEnabled"):
            raise Refusal(f"discussions are turned off in {repo}: turn them on, or post an issue")


def watchlist(env: Mapping[str, str]) -> dict[str, Any] | None:
    """The watch list of a run that posts the report (None when it does not): the repository, read from GitHub,
    with one github channel as the inputs say."""
    post = env.get("PRHUB_POST", "")
    if not post:
        return None
    channel: dict[str, Any] = {"channel": "github", "mode": post}
    labels = [x.strip() for x in env.get("PRHUB_POST_LABELS", "").split(",") if x.strip()]
    if labels and post == "issue":
        channel["labels"] = labels
    if post == "discussion":
        channel["category"] = env["PRHUB_POST_CATEGORY"]
    for key in ("close_previous", "skip_empty"):
        if env.get(f"PRHUB_{key.upper()}", "").lower() == "true":
            channel[key] = True
    repo = env.get("PRHUB_REPO") or env.get("GITHUB_REPOSITORY", "")
    return {"repos": [{"repo": repo, "source": "github", "notify": [channel]}]}


def command(env: Mapping[str, str], config: Path | None) -> list[str]:
    """`prhub run` for the inputs: the site into PRHUB_SITE, the state kept in PRHUB_STATE."""
    args = ["prhub", "run", "--source", "github", "--repo", env.get("PRHUB_REPO") or env.get("GITHUB_REPOSITORY", ""),
            "--out", env.get("PRHUB_SITE") or "site", "--state", env.get("PRHUB_STATE") or ".prhub/state"]
    for flag, key in (("--since", "PRHUB_SINCE"), ("--until", "PRHUB_UNTIL"), ("--tz", "PRHUB_TZ"),
                      ("--lang", "PRHUB_LANG"), ("--scorer", "PRHUB_SCORER")):
        if env.get(key):
            args += [flag, env[key]]
    if config is not None:
        args += ["--config", str(config)]
    return args


def run(env: Mapping[str, str]) -> int:
    """Run Prhub; its stderr passes through, and a post GitHub refused fails the step with its cause."""
    config = None
    doc = watchlist(env)
    if doc is not None:
        config = Path(env.get("RUNNER_TEMP") or ".") / "prhub-watch.json"
        config.write_text(json.dumps(doc), encoding="utf-8")
    given = {k: v for k, v in env.items() if v or k not in OPTIONAL}
    process = subprocess.Popen(command(env, config), stderr=subprocess.PIPE, text=True, env=given)
    refused = []
    assert process.stderr is not None
    for line in process.stderr:
        sys.stderr.write(line)
        found = _REFUSED.search(line.strip())
        if found:
            refused.append(f"{found.group(1)}: {found.group(2)}")
    code = process.wait()
    if code != 0:
        return error(f"prhub run failed (exit code {code}); its output above says why")
    if refused:
        return error(f"the report was not posted on GitHub: {refused[-1]}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    env = dict(os.environ)
    try:
        if args == ["preflight"]:
            preflight(env)
            return 0
        if args == ["run"]:
            return run(env)
    except Refusal as exc:
        return error(str(exc))
    print("usage: action.py preflight|run", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
