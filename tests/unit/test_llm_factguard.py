"""The narrative fact guard: citations, counts and quantities must come from the week's data."""
from __future__ import annotations

import pytest
from prhub.model.factguard import Quotable, check_prs, check_text

REPORT = {
    "period": {"since": "2026-05-04", "until": "2026-05-10", "tz": "Asia/Shanghai"},
    "stats": {"pr_count": 34, "key_pr_count": 9, "avg_importance": 4.25, "avg_insight": 3.1, "additions": 5120,
              "deletions": 1830, "authors": 21, "new_contributors": ["a", "b", "c"]},
    "prs": [
        {"number": 101, "title": "[rollout] feat: Qwen2.5 support for vllm 0.8.4", "type": "feat",
         "modules": ["rollout"], "key": True, "breaking": False, "risks": [{"kind": "missing_tests"}],
         "additions": 1200, "deletions": 30, "merged_at": "2026-05-05T03:00:00Z"},
        {"number": 102, "title": "[trainer] fix: H100 OOM", "type": "fix", "modules": ["trainer"], "key": False,
         "breaking": True, "risks": [], "additions": 12, "deletions": 4, "merged_at": "2026-05-06T03:00:00Z"},
    ],
    "modules": [{"name": "rollout", "pr_count": 13, "prs": [101]}],
    "reverts": [{"pr": 102, "reverts": 55, "relanded_by": None}],
    "unscored": [{"number": 103, "title": "x", "url": "", "reason": "failed"}],
}


@pytest.fixture(scope="module")
def facts() -> Quotable:
    return Quotable.from_report(REPORT)


@pytest.mark.parametrize("text", [
    "本周合并 34 个 PR，其中关键 PR 9 个，共 21 位贡献者，新贡献者 3 位。",
    "34 PRs were merged; 9 key PRs; 21 authors. Average importance 4.3 (or 4.2).",
    "#101 adds Qwen2.5 and vllm 0.8.4 support; #102 fixes an H100 OOM and reverts #55.",
    "The rollout module saw 13 PRs, +5,120/-1830 lines; #101 alone added 1200.",
    "From 2026-05-04 to 2026-05-10.",
    "1 breaking PR and 1 feat PR this week.",
])
def test_faithful_text_passes(facts: Quotable, text: str) -> None:
    assert check_text(text, facts) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("#999 landed", "cites #999"),
    ("35 PRs were merged", "says 35 PRs"),
    ("本周合并 35 个 PR", "says 35 PRs"),
    ("22 contributors took part", "says 22 authors"),
    ("average importance 4.7", "quotes 4.7"),
    ("rollout grew 38% this week", "quotes 38%"),
    ("a 3x speedup", "quotes 3x"),
    ("6950 lines changed in total", "quotes 6950"),  # 5120 + 1830: the model's arithmetic
    ("merged on 2026-05-12", "quotes the date 2026-05-12"),
])
def test_invented_numbers_are_caught(facts: Quotable, text: str, expected: str) -> None:
    errors = check_text(text, facts)
    assert any(expected in e for e in errors), errors


def test_a_modules_key_count_is_a_count_and_a_remainder_is_not() -> None:
    prs = [{"number": n, "type": "feat", "modules": ["trainer"] if n < 206 else ["rollout"], "key": n not in (204, 205),
            "risks": []} for n in range(201, 208)]  # trainer: 201-205, 3 key; rollout: 206-207, both key
    facts = Quotable.from_report({"stats": {"pr_count": 7, "key_pr_count": 5}, "prs": prs,
                               "modules": [{"name": "trainer", "pr_count": 5, "prs": [201, 202, 203, 204, 205]}]})
    assert check_text("trainer 本周共 5 个 PR，其中关键 3 个 PR。", facts) == []  # trainer's key PRs: 3
    # 5 − 1 told above is arithmetic on the page: the engine's old "另有 4 个 PR" is rightly flagged
    assert any("says 4 PRs" in e for e in check_text("trainer 另有 4 个 PR", facts))


def test_attached_pr_lists_must_be_the_weeks(facts: Quotable) -> None:
    assert check_prs([101, 102, 55, 103], facts) == []  # 103 is unscored but merged this week
    assert check_prs([101, 4242], facts) == ["cites PR #4242, which is not one of this week's PRs"]
    assert check_prs(["101"], facts)  # a string is not a PR number


def test_identifiers_are_not_quantities(facts: Quotable) -> None:
    assert check_text("FSDP2, fp8, H200, Qwen3-235B-A22B, v0.9.1, sm_90 and python3.12", facts) == []
