"""The digest service on in-memory adapters (tests/fakes/memory.py): the period's digest goes out once, when the
last watched repository's report is out, or at the sweep's deadline naming the missing ones; its channels are
asked for through the delivery queue like a report's."""
from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prhub.cloud.store import Run
from prhub.core.config import WatchList
from prhub.core.history import History
from prhub.core.period import Period
from prhub.flow import digest
from prhub.flow.deliver import load_message
from prhub.flow.delivery_deps import literal_channels
from prhub.flow.messages import DeliveryMessage, ReportMessage
from prhub.flow.publish import report_message

from prhub_local.runner import LambdaContext
from tests.fakes.memory import SETTINGS, MemoryStack, memory_stack
from tests.golden.cases import load
from tests.unit.render_support import pdf_text

WEEK = Period.parse("2026-06-01", "2026-06-07", "UTC")
KEY = "_digest/2026-06-01-to-2026-06-07/"
DELIVERY = "memory://delivery"
HOOK = "https://hooks.example/digest"
WATCH = {"defaults": {"language": "en"}, "repos": ["acme/rocket", "acme/booster"],
         "digest": {"title": "Acme", "deadline_hours": 3, "notify": [{"channel": "webhook", "url": HOOK}]}}


def stack(now: str = "2026-06-08T01:00:00+00:00") -> MemoryStack:
    made = memory_stack(WatchList.parse(json.dumps(WATCH)), clock=lambda: datetime.fromisoformat(now))
    made.deps = replace(made.deps, settings=replace(SETTINGS, delivery_queue_url=DELIVERY,
                                                    site_url="https://reports.example"))
    made.deps = made.deps.invoked(LambdaContext("ReportFunction"))
    return made


def publish_report(made: MemoryStack, repo: str) -> Run:
    """What the report service leaves behind for the digest to read: the repository's report.json."""
    doc = copy.deepcopy(load("en-small"))
    doc.update(repo=repo, period=WEEK.to_dict(), title=f"{repo} weekly report")
    made.bucket.put(f"{repo}/reports/{WEEK.slug}/report.json", json.dumps(doc).encode(), "application/json", "")
    config = made.deps.watchlist().get(repo)
    return Run(f"{repo}/2026-06-01_2026-06-07/weekly", repo, WEEK, config, "github", 0, [], History([], {}, ""))


def digest_puts(made: MemoryStack) -> list[str]:
    return [k for k in made.bucket.puts if k == KEY + "report.json"]


def test_the_last_report_out_publishes_the_digest_once_and_asks_its_channel_once(tmp_path: Path) -> None:
    made = stack()
    rocket = publish_report(made, "acme/rocket")
    assert digest.after_report(rocket, made.deps) is None  # booster's report is not out: it waits
    assert not [k for k in made.bucket.objects if k.startswith("_digest/")]

    booster = publish_report(made, "acme/booster")
    answer = digest.after_report(booster, made.deps)
    assert answer == {"digest_key": KEY, "repos": 2, "missing": [], "deliveries": 1}
    assert {KEY + f for f in ("index.html", "report.md", "report.pdf", "report.json")} <= set(made.bucket.objects)
    doc = json.loads(made.bucket.get(KEY + "report.json") or b"")
    assert [r["repo"] for r in doc["repos"]] == ["acme/booster", "acme/rocket"] and doc["complete"]
    # The PDF shows report.json's numbers, as the page and Markdown do (tests/unit/test_digest.py).
    pdf = re.sub(r"\s+", "", pdf_text(made.bucket.get(KEY + "report.pdf") or b"", tmp_path))
    for row in doc["repos"]:
        assert re.sub(r"\s+", "", f"{row['pr_count']} PRs · {row['key_pr_count']} key") in pdf
    assert doc["title"].replace(" ", "") in pdf
    feed = (made.bucket.get("_digest/feed.xml") or b"").decode()
    assert "https://reports.example/_digest/2026-06-01-to-2026-06-07/" in feed and doc["title"] in feed
    root = (made.bucket.get("index.html") or b"").decode()
    assert f'href="{KEY}"' in root and 'href="_digest/feed.xml"' in root
    # _digest/ has a page of its own listing the digests (before: none)
    listing = (made.bucket.get("_digest/index.html") or b"").decode()
    assert 'href="2026-06-01-to-2026-06-07/"' in listing and 'href="feed.xml"' in listing and doc["title"] in listing
    assert any(f"/{KEY}" in paths for paths in made.cdn.invalidations)
    [ask] = made.queue.take(DELIVERY)
    # a literal channel is named by reference (no URL in the queue), and found in the watch list again
    found = literal_channels(lambda: WatchList.parse(json.dumps(WATCH)))
    assert ask.body["report_key"] == KEY and HOOK not in json.dumps(ask.body)
    assert DeliveryMessage.parse(json.dumps(ask.body), found).channel.to_dict() == {"channel": "webhook", "url": HOOK}

    # WHEN the reports' services run again (a redelivery, a re-run of the week) and the sweep passes
    assert digest.after_report(rocket, made.deps) == answer
    assert digest.after_report(booster, made.deps) == answer
    # THEN nothing is published or asked for twice
    assert len(digest_puts(made)) == 1 and made.queue.depth(DELIVERY) == 0

    # The channel's message is the digest's: its title, counts and page.
    message = load_message(made.bucket, "https://reports.example", DeliveryMessage.parse(json.dumps(ask.body), found))
    assert message.title == doc["title"] and message.counts.prs == doc["stats"]["pr_count"]
    assert message.page == "https://reports.example/" + KEY


def test_past_the_deadline_the_sweep_publishes_it_naming_the_missing_repository() -> None:
    early = stack("2026-06-08T02:59:00+00:00")  # the week ended at midnight UTC; the deadline is three hours on
    publish_report(early, "acme/rocket")
    assert report_message(ReportMessage(sweep=True, older_than_minutes=30), early.deps)["digest"] == {
        "period": WEEK.slug, "waiting": True}
    assert not digest_puts(early)

    late = replace(early.deps, clock=lambda: datetime(2026, 6, 8, 3, 1, tzinfo=UTC))
    answer: dict[str, Any] = report_message(ReportMessage(sweep=True, older_than_minutes=30), late)
    assert answer["digest"]["missing"] == ["acme/booster"]
    doc = json.loads(early.bucket.get(KEY + "report.json") or b"")
    assert doc["missing"] == ["acme/booster"] and "acme/booster" in doc["summary"]
    assert "acme/booster" in (early.bucket.get(KEY + "index.html") or b"").decode()
    # booster's report comes later: the period already had its digest
    assert digest.after_report(publish_report(early, "acme/booster"), late) == answer["digest"]
    assert report_message(ReportMessage(sweep=True, older_than_minutes=30), late)["digest"] == answer["digest"]
    assert len(digest_puts(early)) == 1 and len(early.queue.take(DELIVERY)) == 1


def test_no_digest_without_one_configured_nor_for_a_repository_it_does_not_watch() -> None:
    made = stack()
    alone = publish_report(made, "acme/rocket")
    outsider = replace(alone, repo="someone/else")
    publish_report(made, "acme/booster")
    assert digest.after_report(outsider, made.deps) is None
    plain = replace(made.deps, watchlist=lambda: WatchList.parse('{"repos": ["acme/rocket"]}'))
    assert digest.after_report(alone, plain) is None and digest.sweep(plain) is None
    assert not digest_puts(made)


def test_two_reports_finishing_together_publish_one_digest() -> None:
    import threading

    made = stack()
    rocket, booster = publish_report(made, "acme/rocket"), publish_report(made, "acme/booster")
    writing, release = threading.Event(), threading.Event()
    put = made.bucket.put

    def slow_put(key: str, body: bytes, content_type: str, cache_control: str) -> None:
        if key.startswith("_digest/") and not writing.is_set():
            writing.set()
            release.wait(10)  # the first worker is mid-publication
        put(key, body, content_type, cache_control)

    made.bucket.put = slow_put  # type: ignore[method-assign]
    first: list[Any] = []
    worker = threading.Thread(target=lambda: first.append(digest.after_report(rocket, made.deps)))
    worker.start()
    assert writing.wait(10)
    assert digest.after_report(booster, made.deps) == {"digest_key": KEY, "in_progress": True}
    release.set()
    worker.join(10)
    assert first[0]["digest_key"] == KEY and first[0]["deliveries"] == 1
    assert len(digest_puts(made)) == 1 and made.queue.depth(DELIVERY) == 1
