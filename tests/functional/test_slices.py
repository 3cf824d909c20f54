"""Two slices of one monorepo and the repository itself, planned, scored and reported by the handlers on moto.

GIVEN a small synthetic export (bench/synthetic.py: two weeks of one repository) and a watch list naming the
repository, a "rollout" slice and a "docs" slice, WHEN each is planned for the second week and the flow runs,
THEN each is published in its own folder, laid out like a repository, with only the PRs touching its paths (in
the period and in its history), and none clobbers another.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import aws

from bench import synthetic
from prhub_local.runner import sqs_event
from prhub_local.template import Stack
from tests.functional.flow_support import deliver, handler, invoke, objects, receive_all

REPO = synthetic.REPO
SLUG = "2026-01-12-to-2026-01-18"
ROWS = list(synthetic.generate(40, seed=5, since=date(2026, 1, 5), days=14, repo=REPO))
ROLLOUT = f"{REPO}/slices/rollout/"
DOCS = f"{REPO}/slices/docs/"
ATOM = "{http://www.w3.org/2005/Atom}"


def in_week(row: dict[str, Any], week: int) -> bool:
    """Merged in week 1 (Jan 5-11) or 2 (Jan 12-18) of Asia/Shanghai (UTC+8)."""
    day = (datetime.fromisoformat(row["merged_at"].replace("Z", "+00:00")) + timedelta(hours=8)).date()
    first = date(2026, 1, 5) + timedelta(weeks=week - 1)
    return first <= day <= first + timedelta(days=6)


# The slices' paths, read independently of prhub.sources.scope: the rollout folder, and Markdown anywhere under docs/.
def rollout(row: dict[str, Any]) -> bool:
    return any(f["filename"].startswith("src/example/rollout/") for f in row["files"])


def docs(row: dict[str, Any]) -> bool:
    return any(f["filename"].startswith("docs/") and f["filename"].endswith(".md") for f in row["files"])


@pytest.fixture
def export(tmp_path: Path) -> Path:
    path = tmp_path / "monorepo.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


@pytest.fixture
def watchlist(export: Path) -> dict[str, Any]:
    return {"defaults": {"language": "en", "tz": "Asia/Shanghai", "source": f"jsonl:{export}"},
            "repos": [REPO,
                      {"repo": REPO, "name": "rollout", "paths": ["src/example/rollout/**"]},
                      {"repo": REPO, "name": "docs", "paths": ["docs/**/*.md"]}]}


def body(stack: Stack, key: str) -> bytes:
    return aws.client("s3").get_object(Bucket=stack.buckets["SiteBucket"], Key=key)["Body"].read()  # type: ignore[no-any-return]


def report(stack: Stack, folder: str) -> dict[str, Any]:
    return json.loads(body(stack, f"{folder}reports/{SLUG}/report.json"))  # type: ignore[no-any-return]


def test_two_slices_and_the_repository_publish_side_by_side(stack: Stack) -> None:
    expected = {"": [r for r in ROWS if in_week(r, 2)], "rollout": [r for r in ROWS if in_week(r, 2) and rollout(r)],
                "docs": [r for r in ROWS if in_week(r, 2) and docs(r)]}
    assert all(expected.values()) and len(expected["rollout"]) < len(expected[""])  # the data can tell them apart
    plan = handler(stack, "PlanFunction")
    runs = {}
    for name in expected:
        answer = invoke(plan, {"repo": REPO, **({"slice": name} if name else {}),
                               "since": "2026-01-12", "until": "2026-01-18"})
        [run] = answer["runs"]
        assert run["expected"] == len(expected[name])
        runs[name] = run["run_id"]
    assert runs["rollout"].startswith(f"{REPO}/slices/rollout/2026-01-12_2026-01-18/")
    assert runs[""].startswith(f"{REPO}/2026-01-12_2026-01-18/") and len(set(runs.values())) == 3

    total = sum(len(v) for v in expected.values())
    score = handler(stack, "ScoreFunction")
    messages = receive_all(stack, "ScoreQueue", total)
    assert len(messages) == total
    for start in range(0, total, 10):
        assert deliver(score, stack, "ScoreQueue", messages[start:start + 10]) == set()
    reports = receive_all(stack, "ReportQueue", 3)
    assert deliver(handler(stack, "ReportFunction"), stack, "ReportQueue", reports) == set()

    whole, roll, doc = report(stack, f"{REPO}/"), report(stack, ROLLOUT), report(stack, DOCS)
    for got, name in ((whole, ""), (roll, "rollout"), (doc, "docs")):
        assert sorted(p["number"] for p in got["prs"]) == sorted(r["number"] for r in expected[name])
    assert "slice" not in whole and roll["slice"] == {"name": "rollout", "paths": ["src/example/rollout/**"]}
    assert roll["title"] == f"{REPO} (rollout) weekly report, 2026-W03, Jan 12–18"
    assert doc["title"] == f"{REPO} (docs) weekly report, 2026-W03, Jan 12–18"
    # The history each compares with holds only the PRs touching its paths (the week before's count).
    assert roll["trends"]["weeks"][-2]["pr_count"] == sum(1 for r in ROWS if in_week(r, 1) and rollout(r))
    assert doc["trends"]["weeks"][-2]["pr_count"] == sum(1 for r in ROWS if in_week(r, 1) and docs(r))
    assert whole["trends"]["weeks"][-2]["pr_count"] == sum(1 for r in ROWS if in_week(r, 1))

    keys = set(objects(stack))
    for folder in (f"{REPO}/", ROLLOUT, DOCS):  # each laid out like a repository
        assert {f"{folder}index.html", f"{folder}feed.xml", f"{folder}reports/{SLUG}/index.html",
                f"{folder}reports/{SLUG}/report.md", f"{folder}reports/{SLUG}/report.pdf",
                f"{folder}reports/{SLUG}/pulls.json"} <= keys
    assert not any(k.startswith(f"{REPO}/reports/") and "/slices/" in k for k in keys)
    roll_feed = ET.fromstring(body(stack, ROLLOUT + "feed.xml"))
    whole_feed = ET.fromstring(body(stack, f"{REPO}/feed.xml"))
    assert roll_feed.findtext(f"{ATOM}title") == f"{REPO} (rollout) · Prhub"
    assert roll_feed.findtext(f"{ATOM}id") != whole_feed.findtext(f"{ATOM}id")
    assert [e.findtext(f"{ATOM}title") for e in roll_feed.iter(f"{ATOM}entry")] == [roll["title"]]
    assert [e.findtext(f"{ATOM}title") for e in whole_feed.iter(f"{ATOM}entry")] == [whole["title"]]
    page = body(stack, ROLLOUT + "index.html").decode()
    assert f"{REPO} (rollout)" in page and 'href="../../../../"' in page  # the root, four folders up
    root = body(stack, "index.html").decode()
    assert all(f'href="{f}"' in root for f in (f"{REPO}/", ROLLOUT, DOCS))
    html = body(stack, f"{ROLLOUT}reports/{SLUG}/index.html").decode()
    assert f'href="../../pull/{roll["prs"][0]["number"]}/"' in html  # its PRs link to the slice's own PR pages

    # PR pages: the rollout slice's pages land in its own pull/ folder, linking back to its report.
    pages = handler(stack, "PagesFunction")
    queued = receive_all(stack, "PagesQueue", sum(-(-len(prs) // 10) for prs in expected.values()))
    mine = [m for m in queued if json.loads(m["Body"]).get("slice") == "rollout"]
    assert len(mine) == 1 and json.loads(mine[0]["Body"])["repo"] == REPO
    assert invoke(pages, sqs_event(mine, stack.queue_arns["PagesQueue"]))["batchItemFailures"] == []
    keys = set(objects(stack))
    for r in expected["rollout"]:
        assert f"{ROLLOUT}pull/{r['number']}/index.html" in keys
        assert f"{REPO}/pull/{r['number']}/index.html" not in keys  # the repository's pages are its own
    pull = body(stack, f"{ROLLOUT}pull/{expected['rollout'][0]['number']}/index.html").decode()
    assert f'href="../../reports/{SLUG}/"' in pull
