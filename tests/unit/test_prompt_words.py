"""What the prompts say about the report's period, and that every prompt asks for JSON by name."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prhub.core.config import RepoConfig
from prhub.core.models import FileChange, PullRequest
from prhub.engine.scoring import score_pull
from prhub.model.prompting import narrative_messages, pr_prompt, repair_message

WEEK = {"since": "2026-05-04", "until": "2026-05-10", "tz": "Asia/Shanghai"}  # Monday to Sunday
MONTH = {"since": "2026-05-01", "until": "2026-05-31", "tz": "Asia/Shanghai"}
RANGE = {"since": "2026-05-03", "until": "2026-05-16", "tz": "UTC"}  # two weeks from a Sunday: a custom range
OTHER_SPANS = {"zh": ("本周", "本月", "本期", "一周", "周报"), "en": ("this week", "this month", "this period",
                                                                  "one week", "weekly")}


def text(period: dict[str, str], lang: str) -> str:
    facts = {"repo": "acme/rocket", "period": period, "stats": {"pr_count": 3}, "prs": []}
    return "\n".join(m["content"] for m in narrative_messages("acme/rocket", lang, "acme/rocket report", facts))


@pytest.mark.parametrize(("period", "lang", "word"), [
    (WEEK, "zh", "本周"), (MONTH, "zh", "本月"), (RANGE, "zh", "本期"),
    (WEEK, "en", "this week"), (MONTH, "en", "this month"), (RANGE, "en", "this period")])
def test_the_narrative_prompt_names_the_period_by_its_kind(period: dict[str, str], lang: str, word: str) -> None:
    prompt = text(period, lang)
    assert f"“{word}”" in prompt if lang == "zh" else f'"{word}"' in prompt  # the word the model is told to use
    assert [w for w in OTHER_SPANS[lang] if w in prompt and w != word] == []


def test_every_prompt_names_json_as_json_object_mode_requires() -> None:
    # DashScope (and OpenAI) refuse response_format json_object unless a system or user message says "json".
    config = RepoConfig(repo="acme/rocket")
    pr = PullRequest(number=7, title="fix: the scheduler", body="", author="bob",
                     merged_at=datetime(2026, 5, 5, tzinfo=UTC), url="https://github.com/acme/rocket/pull/7",
                     additions=1, deletions=1, changed_files=1, files=[FileChange("a.py", additions=1, deletions=1)])
    for lang in ("zh", "en"):
        lang_config = RepoConfig(repo=config.repo, language=lang)
        pr_messages = pr_prompt(pr, score_pull(pr, lang_config), lang_config).messages
        for messages in (pr_messages, narrative_messages(config.repo, lang, "t", {"period": MONTH})):
            assert all("json" in m["content"].lower() for m in messages), (lang, messages)
        assert "json" in repair_message(lang, ["x"])["content"].lower()
        assert "json" in repair_message(lang, ["x"], only=["summary"])["content"].lower()
