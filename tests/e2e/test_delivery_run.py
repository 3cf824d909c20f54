"""`prhub run --config FILE`: exactly the file's repositories, each reported, each channel told once, then the
organisation digest of both, told to its own channel once.

Two watched repositories (the sample and a copy of it under another name), each subscribed to a channel
by literal URL (the local runner accepts that, with a warning), through the real handlers on moto.
Both exports keep every fourth PR of the sample's week (and the PRs before it): delivery and the digest are the
same for 8 PRs as for 32, and each run renders a quarter of the PR pages.
"""
from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prhub.core.period import Period, parse_timestamp

from prhub_local import cli
from prhub_local.runner import run_pipeline
from prhub_local.sample import sample_settings
from tests.fakes.chat_servers import FakeChat, Hook

pytestmark = pytest.mark.slow
WEEK = {"since": "2026-06-01", "until": "2026-06-07"}


def quiet(_message: str) -> None:
    return None


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with FakeChat() as fake:
        yield fake


def thinned(tmp_path: Path, repo: str) -> tuple[Path, int]:
    """The sample's export under `repo`'s name with every fourth PR of its week, and how many that keeps."""
    sample = sample_settings()
    period = Period.parse(WEEK["since"], WEEK["until"], sample["config"]["tz"])
    export = Path(sample["config"]["source"].removeprefix("jsonl:"))
    rows = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    week = [r for r in rows if period.contains(parse_timestamp(r["merged_at"]))]
    kept = [r for r in rows if r not in week] + week[::4]
    path = tmp_path / f"{repo.replace('/', '-')}.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept)
    path.write_text(text.replace(sample["config"]["repo"], repo), encoding="utf-8")
    return path, len(week[::4])


def two_repos(tmp_path: Path, chat: FakeChat) -> tuple[dict[str, Any], dict[str, Hook], int]:
    """A watch list of acme/rocket and acme/booster (the same thinned sample under two names), one hook each,
    and the PRs each reports."""
    (rocket, count), (booster, _) = thinned(tmp_path, "acme/rocket"), thinned(tmp_path, "acme/booster")
    sample = sample_settings()["config"]
    hooks = {"acme/rocket": chat.hook("slack"), "acme/booster": chat.hook("webhook", secret="shared-secret")}
    config = {"defaults": {"language": "en"}, "repos": [
        {**sample, "source": f"jsonl:{rocket}", "notify": [{"channel": "slack", "url": hooks["acme/rocket"].url}]},
        {**sample, "repo": "acme/booster", "source": f"jsonl:{booster}",
         "notify": [{"channel": "webhook", "url": hooks["acme/booster"].url, "secret": "shared-secret"}]}]}
    return config, hooks, count


def test_a_config_run_reports_exactly_its_repositories_and_tells_each_channel_once(
        tmp_path: Path, chat: FakeChat, caplog: pytest.LogCaptureFixture) -> None:
    config, hooks, count = two_repos(tmp_path, chat)
    assert count == 8
    digest_hook = chat.hook("slack")
    config["digest"] = {"title": "Acme", "notify": [{"channel": "slack", "url": digest_hook.url}]}
    prefix = "d" + uuid.uuid4().hex[:10]
    out = tmp_path / "site"
    with caplog.at_level(logging.WARNING, logger="prhub.core.channels"):
        result = run_pipeline(config_text=json.dumps(config), **WEEK, prefix=prefix,
                              state=tmp_path / "state", out=out, progress=quiet)
    assert sorted(result.report_keys) == ["acme/booster/reports/2026-06-01-to-2026-06-07/",
                                          "acme/rocket/reports/2026-06-01-to-2026-06-07/"]
    assert {p["repo"] for p in result.planned} == {"acme/rocket", "acme/booster"}  # and nothing else
    for key in result.report_keys:
        assert json.loads((out / key / "report.json").read_text(encoding="utf-8"))["stats"]["pr_count"] == count
    assert [len(h.accepted) for h in hooks.values()] == [1, 1]
    slack = json.dumps(hooks["acme/rocket"].accepted[0].json)
    assert "acme/rocket" in slack and "acme/booster" not in slack
    assert json.loads(hooks["acme/booster"].accepted[0].body)["repo"] == "acme/booster"
    assert any("literal url/secret" in r.getMessage() for r in caplog.records)
    assert all(h.url not in r.getMessage() for r in caplog.records for h in hooks.values())
    # The digest of both repositories: its page and feed, linked from the root page, and one message.
    digest_dir = out / "_digest" / "2026-06-01-to-2026-06-07"
    assert {p.name for p in digest_dir.iterdir()} >= {"index.html", "report.md", "report.pdf", "report.json"}
    digest = json.loads((digest_dir / "report.json").read_text(encoding="utf-8"))
    assert [r["repo"] for r in digest["repos"]] == ["acme/booster", "acme/rocket"] and digest["missing"] == []
    assert digest["stats"]["pr_count"] == 2 * count
    assert digest["title"] in (out / "_digest" / "feed.xml").read_text(encoding="utf-8")
    assert 'href="_digest/2026-06-01-to-2026-06-07/"' in (out / "index.html").read_text(encoding="utf-8")
    [told] = digest_hook.accepted
    assert digest["title"] in json.dumps(told.json, ensure_ascii=False)

    # WHEN the same range is run again on the same state: reports again, but no channel hears twice.
    again = run_pipeline(config_text=json.dumps(config), **WEEK, prefix=prefix,
                         state=tmp_path / "state", out=out, progress=quiet)
    assert sorted(again.report_keys) == sorted(result.report_keys) and again.run_id != result.run_id
    assert [len(h.accepted) for h in hooks.values()] == [1, 1] and len(digest_hook.accepted) == 1


def test_prhub_run_with_config_prints_every_report(tmp_path: Path, chat: FakeChat,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    config, hooks, _ = two_repos(tmp_path, chat)
    # acme/booster's export ends before the week does, and has two lines it cannot read (one holding a secret)
    booster = Path(config["repos"][1]["source"].removeprefix("jsonl:"))
    rows = [line for line in booster.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["merged_at"] < "2026-06-05"]
    secret = "sk-" + uuid.uuid4().hex
    booster.write_text("\n".join([*rows, f'{{"number": 1, "title": "{secret}', json.dumps({"title": secret})])
                       + "\n", encoding="utf-8")
    last = max(json.loads(line)["merged_at"] for line in rows)[:10]
    path = tmp_path / "watch.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "site"
    code = cli.main(["run", "--config", str(path), "--since", WEEK["since"], "--until", WEEK["until"],
                     "--state", str(tmp_path / "state"), "--out", str(out)])
    assert code == 0
    captured = capsys.readouterr()
    printed = captured.out.split()
    assert len(printed) == 8 and all(Path(p).exists() for p in printed)
    # stderr counts the skipped lines and names each by file:line and kind of problem, never by its value,
    # and warns that the range is only partly covered, naming the export's first and last merge dates
    assert f"warning: {booster}: 2 line(s) skipped" in captured.err
    assert f"warning: export line skipped: {booster}:{len(rows) + 1}: not valid JSON" in captured.err
    assert f"warning: export line skipped: {booster}:{len(rows) + 2}: missing field" in captured.err
    assert secret not in captured.err
    assert f"warning: the export {booster} covers merges from 2026-05-26 to {last} only" in captured.err
    assert {Path(p).relative_to(out).parts[1] for p in printed} == {"rocket", "booster"}
    assert [len(h.accepted) for h in hooks.values()] == [1, 1]
