"""The model's word checked end to end: `prhub run --scorer llm` against a fake model that invents PR numbers,
shifts counts and claims a break on every PR, then a re-run, then an outage.

Every rendering (report.md, index.html, the PDF's text, report.json) is searched for the invented numbers.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from prhub_local.runner import run_pipeline
from tests.fakes.openai_server import FakeOpenAI, Fault, data_block, hallucinating, rule_based
from tests.unit.render_support import pdf_text

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
INVENTED = (99991, 88882)  # PR numbers no verl PR has, nor cites
SHIFT = 100_000  # added to a PR's line count: a count the data contradicts
WEEK = ("2026-05-04", "2026-05-10")  # 34 PRs
# The outage and its re-runs need PRs on both sides of the outage, not a whole week: one day (12 PRs) renders a
# third of the PR pages, three times over. The model's outage is reached at once: no retries (llm.max_retries,
# the watch list's setting; test_llm_scorer shows the retries and their backoff).
OUTAGE_DAY = ("2026-05-06", "2026-05-06")
NO_RETRIES = {"defaults": {"tz": "Asia/Shanghai", "language": "zh"},
              "repos": [{"repo": "verl-project/verl", "llm": {"max_retries": 0}}]}

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is absent")]


def inventing(request: dict[str, Any]) -> Any:
    """A model that cites PRs absent from its prompt, shifts counts and calls every PR breaking."""
    answer = hallucinating(rule_based, number=INVENTED[0])(request)
    features = data_block(request, "engine_features")
    if features is None:
        return answer
    n, lines = features["number"], features["additions"] + SHIFT
    return {**answer, "breaking": True, "breaking_reason": f"与 #{INVENTED[1]} 冲突。",
            "summary": f"#{n} 与 \\#{INVENTED[0]} 调整了 megatron。新增 {lines} 行代码。{answer['summary']}",
            "key_points": [f"\\#{INVENTED[1]} 重构了 cross。", "要点一"],
            "risks": [{"kind": "breaking", "detail": "破坏性变更"}, {"kind": "breaking", "detail": "again"}]}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(inventing) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-tests")
        monkeypatch.setenv("PRHUB_LLM_MODEL", "fake-model")
        yield server


def run(tmp_path: Path, retry_model: bool = False, period: tuple[str, str] = WEEK,
        config: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    out = tmp_path / "site"
    # moto keeps its tables per process: a prefix of this test's own is a stack no other test's cache reaches
    run_pipeline(repo="verl-project/verl", since=period[0], until=period[1], tz="Asia/Shanghai",
                 source=f"jsonl:{DATA}", scorer="llm", out=out, state=tmp_path / "state", workers=4,
                 progress=lambda message: None, prefix=f"guard{tmp_path.name[-12:].replace('_', '')}",
                 retry_model=retry_model, config_text=json.dumps(config) if config else None)
    [folder] = [p.parent for p in out.glob("verl-project/verl/reports/*/report.json")]
    texts = {"json": (folder / "report.json").read_text(encoding="utf-8"),
             "md": (folder / "report.md").read_text(encoding="utf-8"),
             "html": (folder / "index.html").read_text(encoding="utf-8"),
             "pdf": pdf_text((folder / "report.pdf").read_bytes(), tmp_path)}
    return json.loads(texts["json"]), texts


def merged_on(since: str, until: str) -> set[int]:
    """Numbers of the export's PRs merged from `since` to `until` (inclusive, Asia/Shanghai)."""
    zone = ZoneInfo("Asia/Shanghai")
    days = (date.fromisoformat(since), date.fromisoformat(until))
    rows = (json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip())
    merged = ((int(r["number"]), datetime.fromisoformat(r["merged_at"].replace("Z", "+00:00"))) for r in rows)
    return {n for n, at in merged if days[0] <= at.astimezone(zone).date() <= days[1]}


def test_no_rendering_carries_an_invented_pr_or_a_shifted_count(fake: FakeOpenAI, tmp_path: Path) -> None:
    report, texts = run(tmp_path)
    assert report["scorer"]["llm_prs"] == report["stats"]["pr_count"] == 34
    for kind, text in texts.items():
        for number in INVENTED:
            assert str(number) not in text, f"{kind} carries the invented #{number}"
        shifted = [str(p["additions"] + SHIFT) for p in report["prs"]]
        assert not [s for s in shifted if s in text], f"{kind} carries a shifted line count"
    # The sentences went, not only the links: the model's own true sentence stays.
    assert all("调整了 megatron" not in p["summary"] and p["summary"] for p in report["prs"])
    assert all(p["key_points"] == ["要点一"] for p in report["prs"])
    # A break only the model claims is its opinion, not a counted break; counts are of distinct PRs.
    week = {p["number"] for p in report["prs"]}
    for group in report["risks"]:
        assert len(group["prs"]) == len(set(group["prs"])) and set(group["prs"]) <= week
    breaking = next((g for g in report["risks"] if g["kind"] == "breaking"), {"prs": []})
    assert set(breaking["prs"]) == {p["number"] for p in report["prs"] if p["breaking"]}
    assert len(breaking["prs"]) < 34
    # report.json says what the guard removed, and why
    guard = report["scorer"]["guard"]
    assert guard["in_prs"] >= 34 * 3 and guard["in_narrative"] >= 1
    assert guard["by_reason"]["pr_number"] >= 34 * 2 and guard["by_reason"]["number"] >= 34
    assert guard["removed_sentences"] == sum(guard["by_reason"].values())


def test_a_rerun_makes_no_call_and_an_outage_leaves_the_report_complete(fake: FakeOpenAI, tmp_path: Path) -> None:
    # GIVEN a run whose model goes down after a few PRs (every later call answers 500)
    fake.responder = rule_based
    answered: list[int] = []

    def flaky(request: dict[str, Any]) -> Any:
        if data_block(request, "engine_features") is not None and len(answered) >= 5:
            return Fault.server_error()
        answered.append(1)
        return rule_based(request)

    fake.responder = flaky
    first, _ = run(tmp_path, period=OUTAGE_DAY, config=NO_RETRIES)
    # THEN the report is complete: the engine's scores for the PRs the model missed, counted and named
    by_engine = sorted(p["number"] for p in first["prs"] if p["scored_by"] == "heuristic")
    day = merged_on(*OUTAGE_DAY)
    assert len(day) == 12 and {p["number"] for p in first["prs"]} == day
    assert first["stats"]["pr_count"] == 12 and first["unscored"] == [] and len(by_engine) >= 12 - 5 - 4
    # in the report's language (verl's: zh)
    [note] = [n for n in first["notes"] if "由引擎代替模型评分" in n]
    assert first["language"] == "zh" and note.startswith(f"{len(by_engine)} 个 PR 由引擎代替模型评分：")
    assert sorted(int(n) for n in re.findall(r"#(\d+)", note)) == by_engine
    # WHEN the same range runs again, the model healthy
    fake.responder = rule_based
    calls = len(fake.calls)
    again, _ = run(tmp_path, period=OUTAGE_DAY, config=NO_RETRIES)
    # THEN no model call is made: the fallbacks are reused as they are, the narrative comes from the cache
    assert len(fake.calls) == calls
    assert sorted(p["number"] for p in again["prs"] if p["scored_by"] == "heuristic") == by_engine
    # AND asking for the model again (--retry-model) asks it for exactly those PRs
    # what `prhub run --retry-model` passes
    retried, _ = run(tmp_path, retry_model=True, period=OUTAGE_DAY, config=NO_RETRIES)
    asked = {data_block(c, "engine_features")["number"] for c in fake.calls[calls:]
             if data_block(c, "engine_features") is not None}
    assert asked == set(by_engine) and all(p["scored_by"] == "llm" for p in retried["prs"])
