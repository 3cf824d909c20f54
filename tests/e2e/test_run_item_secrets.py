"""The local state's runs table keeps references to a watch list's literal channel URLs and secrets, never the
values (issue 24, low item): a run item holds what plan decided, and the state directory sits on disk in clear.
The channels are still told: the report service finds each literal channel by its reference in the watch list."""
from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prhub_local.runner import run_pipeline
from prhub_local.sample import sample_settings
from prhub_local.state import generation
from tests.e2e.test_delivery_run import WEEK, quiet, thinned
from tests.fakes.chat_servers import FakeChat

pytestmark = pytest.mark.slow


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with FakeChat() as fake:
        yield fake


def test_the_runs_table_keeps_channel_references_not_urls_or_secrets(
        tmp_path: Path, chat: FakeChat, caplog: pytest.LogCaptureFixture) -> None:
    export, count = thinned(tmp_path, "acme/rocket")
    slack, hook = chat.hook("slack"), chat.hook("webhook", secret="shared-secret-" + chat.hook("slack").token)
    wecom = chat.hook("wecom")
    config = {"defaults": {"language": "en"}, "repos": [{
        **sample_settings()["config"], "source": f"jsonl:{export}",
        "notify": [{"channel": "slack", "url": slack.url},
                   {"channel": "webhook", "url": hook.url, "secret": hook.secret},
                   {"channel": "wecom", "url": wecom.url}]}]}
    state = tmp_path / "state"
    # every logger at DEBUG, as `prhub run` with a DEBUG root (botocore logs each request's and answer's body)
    caplog.set_level(logging.DEBUG)
    result = run_pipeline(config_text=json.dumps(config), **WEEK, state=state, out=tmp_path / "site", progress=quiet)
    assert result.report["stats"]["pr_count"] == count
    assert [len(h.accepted) for h in (slack, hook, wecom)] == [1, 1, 1], "the channels were told"
    literal = (slack.url, slack.token, hook.url, hook.token, hook.secret, wecom.url, wecom.token)

    # THEN no log line shows a literal value: SSM's PutParameter and GetParameter carry the watch list,
    # SQS's SendMessageBatch the delivery messages (issue 46, item 7)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "PutParameter" in logged and "SendMessageBatch" in logged, "botocore's DEBUG lines were captured"
    for value in literal:
        assert value not in logged, "a literal channel value is in a log line"
    # AND no file of the saved state holds one (the queues' and DLQs' messages name a literal channel by reference)
    for path in (p for p in state.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", "replace")
        for value in literal:
            assert value not in text, f"a literal channel value is in the state's {path.relative_to(state)}"

    gen = generation(state)
    assert gen is not None
    runs = (gen / "tables" / "RunsTable.jsonl").read_text("utf-8")
    assert result.run_id in runs
    for value in literal:
        assert value not in runs, "a literal channel value is in the state's runs table"
    [run] = [json.loads(line) for line in runs.splitlines() if result.run_id in line and "period" in line]
    assert [ref["S"].split("-")[0] for ref in run["channel_refs"]["L"]] == ["slack", "webhook", "wecom"]
    assert json.loads(run["config"]["S"])["notify"] == []


def test_the_pr_pages_render_through_the_runners_renderer_handed_in_by_deps(tmp_path: Path) -> None:
    # The local runner's page renderer (prhub_local.render_pool) reaches PagesFunction in its Deps, the one its
    # environment starts warm with, not by changing a module of the layer.
    export, _ = thinned(tmp_path, "acme/rocket")
    config = {"defaults": {"language": "en"}, "repos": [{**sample_settings()["config"], "source": f"jsonl:{export}"}]}
    renderers: list[Any] = []
    buckets: dict[str, set[str]] = {}

    def watching(name: str, handler: Any, event: Any, context: Any) -> Any:
        result = handler(event, context)
        deps = inspect.unwrap(handler).__globals__["_deps"]
        if name == "PagesFunction":
            renderers.append(deps.render_pages)
        buckets.setdefault(name, set()).add(type(deps.bucket).__name__)
        return result

    run_pipeline(config_text=json.dumps(config), **WEEK, state=None, out=tmp_path / "site", progress=quiet,
                 invoke=watching, render_processes=1)
    assert renderers and all(callable(r) and r.__module__ == "prhub_local.render_pool" for r in renderers)
    # and the site is written straight into the embedded moto's S3 by every function that writes it (issue 49:
    # handed in by the Deps each starts with, where the layer's deps.SITE_BUCKET was swapped before)
    assert {name: kinds for name, kinds in buckets.items() if name in ("ReportFunction", "PagesFunction")} == {
        "ReportFunction": {"EmbeddedBucket"}, "PagesFunction": {"EmbeddedBucket"}}
