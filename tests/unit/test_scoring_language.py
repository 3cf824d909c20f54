"""The engine's sentences follow the report language (RepoConfig.language), and so does the cache key."""
from __future__ import annotations

import dataclasses
import re

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine.analysis import analyse_period
from prhub.engine.scoring import ENGINE_VERSION, HeuristicScorer, score_pull
from prhub.model.scorers import ModelSettings, make_scorer

from tests.unit.engine_support import CONFIG, change, history_entry, make_pr

ZH = dataclasses.replace(CONFIG, language="zh")
EN = dataclasses.replace(CONFIG, language="en")
WEEK = Period.parse("2026-06-15", "2026-06-21", "Asia/Shanghai")
SCORER = {"kind": "heuristic", "model": None, "prompt_version": "engine-test"}
CJK = re.compile(r"[\u4e00-\u9fff]")
# English words the engine used to write into its sentences; none may be left in a zh report's prose.
ENGLISH = re.compile(r"\b(changes?|removes?|moves|adds|pins|reverts|breaking change|no test file|threshold|tagged|"
                     r"but|lines|files?|shared|cross-references|common title terms|and \d+ more|fix|capability)\b")

TODO_PATCH = "@@ -1,2 +1,3 @@\n def run():\n+    # TODO: retry on timeout\n     pass\n"
PIN_PATCH = "@@ -1 +1 @@\n-torch==2.3.0\n+torch==2.4.0\n"
REMOVED_DEF = "@@ -1,3 +1,1 @@\n-def legacy_step(x):\n-    return x\n+\n"


def risky_prs() -> list:
    """PRs that between them raise every kind of engine sentence: reasons, inferred breaks, each risk kind."""
    return [
        make_pr("[worker] fix: deadlock when the queue is full", [change("pkg/worker.py", 900, 300, patch=TODO_PATCH),
                                                                   change("pkg/queue.py", 20, 5)], number=1),
        make_pr("[core] refactor: drop legacy step", [change("pkg/api.py", 0, 40, patch=REMOVED_DEF),
                                                      change("pkg/old_module.py", 0, 80, status="removed")], number=2,
                author="bob"),
        make_pr("[docs] chore: bump torch", [change("requirements.txt", 1, 1, patch=PIN_PATCH)], number=3),
        make_pr('Revert "[worker] fix: deadlock when the queue is full"',
                [change("pkg/worker.py", 300, 900), change("pkg/queue.py", 5, 20)], number=4,
                body="Reverts acme/trainer#1"),
        make_pr("[rollout] perf: faster decoding", [change("pkg/worker.py", 30, 5), change("pkg/rollout.py", 40, 2)],
                number=5, body="Throughput 1.8x on 8 GPUs because the cache is reused."),
    ]


def engine_sentences(config: RepoConfig) -> list[str]:
    scored = [score_pull(p, config) for p in risky_prs()]
    report = analyse_period(scored, [{"number": 9, "title": "x", "error": "boom"}], WEEK, config,
                          History.of([history_entry(90, "[worker] fix: x", "2026-05-20T00:00:00Z", "carol")], WEEK),
                          "2026-06-22T01:00:00Z", SCORER)
    texts = [r for p in scored for r in p.reasons] + [p.breaking_reason for p in scored if p.breaking]
    texts += [r.detail for p in scored for r in p.risks]
    texts += [r["detail"] for r in report["risks"]] + [c["reason"] for c in report["clusters"]] + report["notes"]
    return texts


def test_zh_reports_get_chinese_engine_sentences():
    texts = engine_sentences(ZH)
    kinds = {r.kind for p in risky_prs() for r in score_pull(p, ZH).risks}
    assert {"breaking", "revert", "dependency_pin", "todo_left", "large_change", "missing_tests"} <= kinds
    assert len(texts) >= 15
    for text in texts:
        assert CJK.search(text), text
        assert not ENGLISH.search(text), text


def test_en_reports_keep_english_engine_sentences():
    texts = engine_sentences(EN)
    assert not [t for t in texts if CJK.search(t)]
    assert any("no test file" in t for t in texts)


def test_untrusted_text_stays_as_is_inside_a_chinese_sentence():
    pr = make_pr("[worker] feat: x", [change("pkg/w.py", patch="@@ -1 +1,2 @@\n x\n+# TODO: <b>later</b>\n")])
    detail = next(r.detail for r in score_pull(pr, ZH).risks if r.kind == "todo_left")
    assert detail == "新增 1 处 TODO 或 FIXME，例如 pkg/w.py：# TODO: <b>later</b>"


def test_the_cache_key_changes_with_the_language():
    zh, en = HeuristicScorer(language="zh"), HeuristicScorer(language="en")
    assert zh.prompt_version == f"{ENGINE_VERSION}-zh" != en.prompt_version == f"{ENGINE_VERSION}-en"
    made = make_scorer(RepoConfig(repo="o/r", scorer="heuristic", language="en"), ModelSettings(), None)
    assert made.prompt_version == en.prompt_version
    assert make_scorer(RepoConfig(repo="o/r", scorer="heuristic"), ModelSettings(),
                       None).prompt_version == zh.prompt_version


def test_the_size_reason_says_it_counts_source_lines_only():
    # GIVEN a PR whose tests and docs double its size: "sizeable" counts its source lines only (issue 25: one PR
    # read "代码改动较大（642 行）" beside "改动 1235 行"), so each figure must say what it counts
    pr = make_pr("[worker] feat: batch the queue", [change("pkg/worker.py", 500, 142), change("tests/test_worker.py",
                 400, 0), change("docs/worker.md", 193, 0)], number=9)
    for config, source_words in ((ZH, "642 行源代码"), (EN, "642 source lines")):
        scored = score_pull(pr, config)
        assert any(source_words in r for r in scored.reasons), scored.reasons
