"""The local state's runs table keeps references to a watch list's literal channel URLs and secrets, never the
values (issue 24, low item): a run item holds what plan decided, and the state directory sits on disk in clear.
The channels are still told: the report service finds each literal channel by its reference in the watch list."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

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


def test_the_runs_table_keeps_channel_references_not_urls_or_secrets(tmp_path: Path, chat: FakeChat) -> None:
    export, count = thinned(tmp_path, "acme/rocket")
    slack, hook = chat.hook("slack"), chat.hook("webhook", secret="shared-secret-" + chat.hook("slack").token)
    config = {"defaults": {"language": "en"}, "repos": [{
        **sample_settings()["config"], "source": f"jsonl:{export}",
        "notify": [{"channel": "slack", "url": slack.url},
                   {"channel": "webhook", "url": hook.url, "secret": hook.secret}]}]}
    state = tmp_path / "state"
    result = run_pipeline(config_text=json.dumps(config), **WEEK, state=state, out=tmp_path / "site", progress=quiet)
    assert result.report["stats"]["pr_count"] == count
    assert [len(h.accepted) for h in (slack, hook)] == [1, 1], "the channels were told"

    gen = generation(state)
    assert gen is not None
    runs = (gen / "tables" / "RunsTable.jsonl").read_text("utf-8")
    assert result.run_id in runs
    for value in (slack.url, slack.token, hook.url, hook.token, hook.secret):
        assert value not in runs, "a literal channel value is in the state's runs table"
    [run] = [json.loads(line) for line in runs.splitlines() if result.run_id in line and "period" in line]
    assert [ref["S"].split("-")[0] for ref in run["channel_refs"]["L"]] == ["slack", "webhook"]
    assert json.loads(run["config"]["S"])["notify"] == []
