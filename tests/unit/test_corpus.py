"""The judged corpus (issue 48): a changelog's sections read as grades and categories, on made-up snippets."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench import corpus
from bench.corpus import Rule, load, normalise, read_labels

REPO = "o/r"


def pull(n: int, repo: str = REPO) -> str:
    return f"[#{n}](https://github.com/{repo}/pull/{n})"


RULES = [Rule.parse(r) for r in [
    {"match": "highlights", "category": "feature", "grade": 3},
    {"match": "features", "category": "feature", "grade": 2},
    {"match": "breaking changes", "category": "entry", "grade": 2, "breaking": True},
    {"match": "server", "category": "entry", "grade": 2, "fix_grade": 1},
    {"match": "fixes", "category": "fix", "grade": 1},
    {"match": "performance", "category": "perf", "grade": 2},
    {"match": "docs", "category": "docs", "grade": 0},
    {"match": "internal|upgrades", "category": "internal", "grade": 0},
]]

CHANGELOG = f"""# Release notes

## 1.2.0

### Features

* ✨ Add a thing. PR {pull(10)} by [@a](https://github.com/a).
* 🎉 Add the release's big thing. PR {pull(11)}.

### Fixes

* 🐛 Fix the thing. PR {pull(12)}.
* 🐛 Fix the thing again, also listed as a feature above. PR {pull(10)}.
* Fix a reported bug ([#13](https://github.com/{REPO}/issues/13)), in another repo's PR {pull(14, "x/y")}.

### Server

- Fix a hang in the server {pull(15)}
- Support pull diagnostics {pull(16)}

### Breaking Changes

- Fix: drop the old flag {pull(17)}
- Remove the old API {pull(12)}

## 1.1.0

### Docs

* 📝 Document it. PR {pull(18)}.

### Contributors

* [@a](https://github.com/a) in {pull(19)}

### Internal

* ⬆ Bump a dependency. PR {pull(20)}.
"""


def labels(text: str = CHANGELOG, **kw: object) -> dict[int, corpus.Label]:
    return read_labels(text, REPO, RULES, **kw)  # type: ignore[arg-type]


def test_sections_map_to_grades_and_categories() -> None:
    got = labels()
    assert (got[16].section, got[16].category, got[16].grade) == ("Server", "feature", 2)
    assert (got[18].category, got[18].grade) == ("docs", 0)
    assert (got[20].section, got[20].category, got[20].grade) == ("Internal", "internal", 0)
    assert 19 not in got  # a section no rule maps (Contributors) gives no label


def test_highest_grade_wins_and_keeps_its_section() -> None:
    got = labels()
    assert (got[10].section, got[10].category, got[10].grade) == ("Features", "feature", 2)  # also under Fixes
    assert got[11].grade == 3  # 🎉 opens the entry
    assert labels(highlight=None)[11].grade == 2


def test_breaking_from_any_entry_and_fix_grade_of_component_sections() -> None:
    got = labels()
    assert (got[12].grade, got[12].breaking, got[12].section) == (2, True, "Breaking Changes")  # fix, then breaking
    assert (got[17].category, got[17].grade, got[17].breaking) == ("fix", 2, True)  # a breaking fix stays grade 2
    assert (got[15].category, got[15].grade) == ("fix", 1)  # a component section's fix is a fix
    assert not got[10].breaking


def test_issue_links_and_other_repositories_are_ignored() -> None:
    got = labels()
    assert 13 not in got and 14 not in got


def test_bare_hash_references_only_in_the_configured_form() -> None:
    text = """## 23.1.0

### Features

- Add a flag (#30)
- Two PRs for one entry (#31,
  #32)
- See #33 for the discussion, fixed in (#34)
- Mentions issue #35 only
"""
    assert labels(text) == {}  # without `paren`, no bare reference counts
    got = labels(normalise(text, REPO, refs=("paren",)))
    assert sorted(got) == [30, 31, 32, 34]


def test_rst_headings_and_pull_roles() -> None:
    text = """What's New
==========

v2026.07.0 (Jul 9, 2026)
------------------------

New Features
~~~~~~~~~~~~
- Add a method (:issue:`40`, :pull:`41`).
  By `A <https://github.com/a>`_.
- Only an issue (:issue:`42`).

Bug Fixes
~~~~~~~~~
- Fix a thing
  (:pull:`43`).

v2026.06.0 (Jun 1, 2026)
------------------------

Internal Changes
~~~~~~~~~~~~~~~~
- Refactor (:pull:`44`).
"""
    rules = [Rule.parse({"match": "new features", "category": "feature", "grade": 2}),
             Rule.parse({"match": "bug fixes", "category": "fix", "grade": 1}),
             Rule.parse({"match": "internal changes", "category": "internal", "grade": 0})]
    got = read_labels(normalise(text, REPO, "rst", ("pull_role",)), REPO, rules)
    assert {n: (lab.section, lab.grade) for n, lab in got.items()} == {
        41: ("New Features", 2), 43: ("Bug Fixes", 1), 44: ("Internal Changes", 0)}


def test_one_space_bullets_renamed_repositories_and_entry_text() -> None:
    text = f"""## 1.12

### Other Fixes

 * Fix a crash (A, PR [50](https://github.com/old/name/pull/50))
 * Add a check (A, PR [51](https://github.com/{REPO}/pull/51))
"""
    rules = [Rule.parse({"match": "other fixes", "category": "entry", "grade": 2, "fix_grade": 1})]
    assert read_labels(normalise(text, REPO), REPO, rules) == {}  # an indented bullet reads as a nested one
    got = read_labels(normalise(text, REPO, outdent=True, renamed_from=("old/name",)), REPO, rules)
    assert {n: (lab.category, lab.grade) for n, lab in got.items()} == {50: ("fix", 1), 51: ("feature", 2)}
    changeset = f"""## 0.4.1

### Patch Changes

- {pull(52)} [`abc1234`](https://github.com/{REPO}/commit/abc1234) Thanks [@a](https://github.com/a)! - Fixes a bug
"""
    patch = [Rule.parse({"match": "patch changes", "category": "entry", "grade": 1})]
    assert read_labels(changeset, REPO, patch)[52].category == "feature"  # the link opens the entry, not "Fixes"
    assert read_labels(changeset, REPO, patch, entry_text=r"! - (.*)")[52].category == "fix"


def test_recipes_parse_and_keep_the_rules_of_issue_48() -> None:
    recipes = corpus.recipes()
    for recipe in recipes.values():
        assert [Rule.parse(r) for r in recipe["sections"]]
        assert recipe["kind"]
    assert [r for r in recipes if r.lower().startswith("rust-lang/")] == ["rust-lang/cargo"]
    assert sum(r["held_out"] for r in recipes.values()) >= 3
    assert len({r["kind"] for r in recipes.values()}) >= 6


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout


TOOLS = Path(__file__).resolve().parents[3] / "shared" / "tools"


@pytest.mark.skipif(not (TOOLS / "extract_merge_prs.py").exists(), reason="../shared/tools absent")
def test_build_and_load_a_made_up_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    base_env = {"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@users.noreply.github.com",
                "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@users.noreply.github.com", "PATH": "/usr/bin:/bin"}
    merges = [(1, "2024-01-05", "Add a thing"), (2, "2024-02-05", "Fix the thing"), (3, "2024-03-05", "Bump deps"),
              (4, "2024-04-05", "Tidy up")]
    for number, day, title in merges:
        (work / f"f{number}.py").write_text("x = 1\n" * number)
        _git(work, "add", ".")
        env = {**base_env, "GIT_AUTHOR_DATE": f"{day}T12:00:00Z", "GIT_COMMITTER_DATE": f"{day}T12:00:00Z"}
        _git(work, "commit", "-q", "-m", f"{title} (#{number})", env=env)
    (work / "CHANGES.md").write_text(f"## 1.0\n\n### Features\n\n- Add a thing {pull(1)}\n\n### Fixes\n\n"
                                     f"- Fix the thing {pull(2)}\n- An old fix {pull(99)}\n")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "Release 1.0", env={**base_env, "GIT_AUTHOR_DATE": "2024-05-01T12:00:00Z",
                                                          "GIT_COMMITTER_DATE": "2024-05-01T12:00:00Z"})
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    monkeypatch.setenv("PRHUB_TOOLS", str(TOOLS))
    recipe = {"repo": REPO, "kind": "CLI", "held_out": True, "extractor": "merge", "branch": "HEAD",
              "since": "2024-01-01", "changelog": "CHANGES.md",
              "sections": [{"match": "features", "category": "feature", "grade": 2},
                           {"match": "fixes", "category": "fix", "grade": 1}]}
    base = tmp_path / "corpus"
    info = corpus.build(REPO, str(bare), base=base, recipe=recipe)
    assert (info["prs"], info["labelled"], info["labelled_in_export"], info["labelled_not_in_export"]) == (4, 3, 2, 1)
    assert (info["since"], info["until"], info["prs_in_range"]) == ("2024-01-05", "2024-02-05", 2)
    assert info["commit"] == _git(work, "rev-parse", "HEAD").strip()
    folder = base / "o__r"
    assert (folder / "CHANGELOG.md").read_text() == (work / "CHANGES.md").read_text()
    assert [row["repo"] for row in json.loads((base / "index.json").read_text())] == [REPO]
    loaded = load(REPO, base)
    assert loaded is not None and loaded.held_out
    assert sorted(p.number for p in loaded.prs) == [1, 2, 3, 4]
    assert {n: lab.grade for n, lab in loaded.labels.items()} == {1: 2, 2: 1, 99: 1}
    assert [p.number for p in loaded.in_range()] == [1, 2]
    assert load("o/absent", base) is None
