"""A CHANGELOG read as judgements (issue 27): which PRs sit under which section, mapped by the config."""
from __future__ import annotations

from pathlib import Path

import pytest
from prhub.engine.changelog import read_changelog, section_name

CARGO = Path(__file__).resolve().parents[3] / "shared" / "data" / "rust-lang-cargo" / "CHANGELOG.md"
CARGO_SECTIONS = {"Added": "key", "Changed": "key", "Fixed": "minor", "Nightly only": "minor",
                  "Documentation": "minor", "Internal": None}


def pull(n: int, repo: str = "o/r") -> str:
    return f"[#{n}](https://github.com/{repo}/pull/{n})"


TEXT = f"""# Changelog

## R 1.2 (2026-05-01)
[aaa...HEAD](https://github.com/o/r/compare/aaa...HEAD)

### Added

- 🎉 A highlight spread over lines,
  with its docs ([guide](https://example.com/guide))
  {pull(10)}
- A plain addition naming two PRs
  {pull(11)}
  {pull(12)}
  These keys include:
  - `nested.key`
  - `other.key` {pull(13)}

#### A sub-heading inside Added

- Still added {pull(14)}

### Fixed

- A fix, its issue [#20](https://github.com/o/r/issues/20) and an upstream PR {pull(21, "up/stream")}
  {pull(22)}
- 🎉 A highlighted fix {pull(23)}

### Internal

- Update dependencies. {pull(30)}

## R 1.1.1 (2026-04-20)

- A point release entry under no section {pull(40)}

### Nightly-only

```toml
# a comment in a code block is no heading
[profile.dev] # {pull(99)}
```
- `-Zthing`: an unstable change {pull(41)}
- Also {pull(22)} again, and {pull(11)} (key elsewhere stays key)
"""


def verdicts(text: str, sections: dict, repo: str = "o/r") -> dict[int, str]:
    found = read_changelog(text, sections, repo)
    assert all(j.source == "changelog" and j.repo == repo for j in found)
    return {j.pr: j.verdict for j in found}


def test_each_entry_takes_its_sections_verdict_and_highlights_are_key() -> None:
    got = verdicts(TEXT, {"Added": "key", "Fixed": "minor", "Internal": None, "Nightly only": "minor"})
    assert got == {10: "key", 11: "key", 12: "key", 13: "key", 14: "key", 22: "minor", 23: "key", 41: "minor"}


def test_the_file_order_is_kept() -> None:
    found = read_changelog(TEXT, {"Added": "key", "Fixed": "minor", "Nightly only": "minor"}, "o/r")
    assert [j.pr for j in found] == [10, 11, 12, 13, 14, 22, 23, 41]


def test_a_highlight_can_be_configured_otherwise() -> None:
    sections = {"Added": "minor", "Fixed": "minor"}
    assert verdicts(TEXT, {**sections, "🎉": None})[10] == "minor"  # None: its section decides
    assert verdicts(TEXT, {**sections, "🎉": "minor"})[23] == "minor"
    # no section named at all: only the highlights speak
    assert verdicts(TEXT, {}) == {10: "key", 23: "key"}


def test_a_pr_of_the_repository_counts_only_as_a_pull_link_of_that_repository() -> None:
    got = verdicts(TEXT, {"Fixed": "minor"})
    assert 20 not in got and 21 not in got  # an issue, another repository's PR
    assert verdicts(TEXT.replace("o/r", "O/R"), {"Fixed": "minor"}, "o/r")[22] == "minor"  # GitHub names are caseless
    assert verdicts(TEXT, {"Fixed": "minor"}, "o/other") == {}


def test_a_code_block_and_an_unnamed_release_heading_end_nothing_they_should_not() -> None:
    got = verdicts(TEXT, {"Nightly only": "minor"})
    assert 99 not in got and 40 not in got
    assert got[41] == "minor"


GRADED = {"Added": "key", "Fixed": "minor", "Nightly only": "minor", "Internal": None}
GRADES = {"🎉": 3, "Added": 2, "Fixed": 1, "Nightly-only": 0, "Internal": 0}


def grades(text: str, sections: dict, table: dict | None, repo: str = "o/r") -> dict[int, int | None]:
    return {j.pr: j.grade for j in read_changelog(text, sections, repo, table)}


def test_without_grades_no_judgement_has_one_and_the_verdicts_are_unchanged() -> None:
    assert set(grades(TEXT, GRADED, None).values()) == {None}
    assert ({j.pr: j.verdict for j in read_changelog(TEXT, GRADED, "o/r", GRADES)}
            == verdicts(TEXT, GRADED))  # grades say how PRs rank, never what their verdict is


def test_a_highlight_outranks_its_section_and_sections_rank_by_their_grades() -> None:
    got = grades(TEXT, GRADED, GRADES)
    assert got[10] == 3 and got[23] == 3  # 🎉 in Added, 🎉 in Fixed: the highlight's grade either way
    assert got[12] == got[13] == got[14] == 2  # Added, also its nested bullet and its sub-heading
    assert got[41] == 0  # Nightly-only (the config's name matches as people write it)
    assert got[22] == 1 and got[11] == 2  # in Fixed / Added and again in Nightly only: the highest entry
    assert 30 not in got  # Internal has a grade but no verdict: no judgement


def test_a_highlight_without_its_own_grade_takes_its_sections_and_an_ungraded_section_gives_none() -> None:
    got = grades(TEXT, GRADED, {"Added": 2})
    assert got[10] == 2 and got[23] is None and got[22] is None and got[41] is None


@pytest.mark.parametrize("name", ["Nightly only", "Nightly-only", "nightly_only", " NIGHTLY  ONLY "])
def test_section_names_are_matched_as_people_write_them(name: str) -> None:
    assert section_name(name) == "nightly only"


def test_cargo_s_own_changelog() -> None:
    if not CARGO.is_file():
        pytest.skip("../shared/data/rust-lang-cargo is not here")
    text = CARGO.read_text(encoding="utf-8")
    got = verdicts(text, CARGO_SECTIONS, "rust-lang/cargo")
    # from the file's first release (1.100): a 🎉 in Added, a fix, nightly work, docs; Internal maps to None
    assert got[17354] == "key" and got[17370] == "minor" and got[17333] == "minor" and got[17330] == "minor"
    assert 17364 not in got
    # 1.68.2 lists its fixes under no section: no verdict
    assert 11883 not in got
    # #12499 is in a release's Changed and in Nightly only; #5919 in Fixed, then Changed: key somewhere stays key
    assert got[12499] == "key" and got[5919] == "key"
    assert len(got) > 2500 and sum(v == "key" for v in got.values()) > 900


def test_cargo_s_own_changelog_graded() -> None:
    if not CARGO.is_file():
        pytest.skip("../shared/data/rust-lang-cargo is not here")
    from bench import calibrate  # the bench's reading of cargo's sections
    got = grades(CARGO.read_text(encoding="utf-8"), calibrate.CARGO_SECTIONS, calibrate.CARGO_GRADES, "rust-lang/cargo")
    # 1.100: the 🎉 in Added, a fix, nightly work, docs
    assert (got[17354], got[17370], got[17333], got[17330]) == (3, 1, 0, 0)
    assert None not in got.values() and {0, 1, 2, 3} == set(got.values())
