"""The versions a period's PRs release, and the summary naming them (a reviewer read tokio's week of v1.51.0 and
polars' of 1.37.0: neither brief said a version went out)."""
from __future__ import annotations

import pytest
from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.period import Period
from prhub.engine import summary
from prhub.engine.analysis import analyse_period
from prhub.engine.releases import released
from prhub.engine.scoring import score_pull

from tests.unit.engine_support import change, make_pr


@pytest.mark.parametrize(("title", "repo", "version"), [
    ("chore: prepare Tokio v1.51.0", "tokio-rs/tokio", "Tokio v1.51.0"),
    ("chore: prepare to release v1.52.1", "tokio-rs/tokio", "v1.52.1"),
    ("Prepare for 57.1.0 release: Changelog and Version", "apache/arrow-rs", "57.1.0"),
    ("Prepare release v0.14.14", "astral-sh/ruff", "v0.14.14"),
    ("[release] bump to v0.2.2", "THUDM/slime", "v0.2.2"),
    ("Release axum 0.8.2 and related crates", "tokio-rs/axum", "axum 0.8.2"),
    ("0.9.3 release", "huggingface/trl", "0.9.3"),
    ("Python Polars 1.37.0", "pola-rs/polars", "Python Polars 1.37.0"),
    ("chore: release v2.0.0-rc.1", "acme/rocket", "v2.0.0-rc.1"),
    ("Release: v1.9", "huggingface/trl", "v1.9"),  # the type word is the release
    ("chore(release): 1.2.0", "acme/rocket", "1.2.0"),
    ("Prepare for `55.2.0` release", "apache/arrow-rs", "55.2.0"),
    ("Release 0.18.0.rc0", "huggingface/peft", "0.18.0.rc0"),
    # a release's scope names its package (langgraph), a version bumped alone is the release (ruff's "Bump 0.15.20")
    ("release(cli): 0.4.30", "langchain-ai/langgraph", "cli 0.4.30"),
    ("release(langgraph): 1.2.6", "langchain-ai/langgraph", "langgraph 1.2.6"),
    ("Bump 0.15.20", "astral-sh/ruff", "0.15.20"),
    ("Bump version to 0.15.19", "astral-sh/ruff", "0.15.19"),
    # not a release: a dev version, a cycle's bump, a dependency, an announcement, other senses of the words
    ("Bump version to 0.16.1.dev0 after release", "huggingface/peft", ""),
    ("chore: bump to 0.93.0", "rust-lang/cargo", ""),
    ("vLLM 0.18.0", "verl-project/verl", ""),
    ("[doc] feat: announce verl-vla v0.1.0", "verl-project/verl", ""),
    ("docs(config-include): prepare for doc stabilization", "rust-lang/cargo", ""),
    ("release state cache", "InternLM/lmdeploy", ""),
    ("Prepare for 1.0: remove deprecated APIs", "acme/rocket", ""),
    ("chore: prepare 2.0 deprecations", "acme/rocket", ""),
    ("Prepare release notes for 1.2.0", "acme/rocket", ""),
    ("Upgrade Ruff 0.9.1", "astral-sh/ruff", ""),
    ("Update Engine 2.0", "gin-gonic/gin", ""),  # "gin" inside "Engine" is no name of the repository
])
def test_a_release_is_read_from_its_title(title: str, repo: str, version: str) -> None:
    assert released(title, repo) == version


def test_a_changesets_release_is_read_from_its_description() -> None:
    # svelte's "Version Packages" (#18640, svelte@5.56.10) names its version only in its description: the brief of
    # its week never said it went out, and the appendix typed it a refactor titled "版本 Packages"
    body = ("This PR was opened by the [Changesets\nrelease](https://github.com/changesets/action) GitHub action.\n\n"
            "# Releases\n\n## svelte@5.56.10\n\n### Patch Changes\n\n- fix: x (#18431)\n")
    assert released("Version Packages", "sveltejs/svelte", body) == "svelte 5.56.10"
    many = "# Releases\n" + "".join(f"## @scope/p{i}@1.{i}.0\n\n- x\n" for i in range(5))
    assert released("Version Packages", "acme/mono", many) == "@scope/p0 1.0.0, @scope/p1 1.1.0, @scope/p2 1.2.0 (+2)"
    assert released("Version Packages", "acme/mono", "## svelte@5.56.10") == ""  # no changesets release list


def week(*titles: str) -> dict:
    prs = [{"number": 8000 + i, "title": t, "merged_at": f"2026-03-30T1{i}:00:00Z", "key": False, "breaking": False,
            "importance": 2.0, "modules": [], "type": "chore"} for i, t in enumerate(titles)]
    return {"repo": "tokio-rs/tokio", "prs": prs, "modules": [], "clusters": [], "reverts": [], "risks": [],
            "period": {"since": "2026-03-30", "until": "2026-04-05", "tz": "UTC"},
            "stats": {"pr_count": len(prs), "key_pr_count": 0, "authors": 1, "new_contributors": []}}


def test_the_summary_says_which_versions_went_out_in_merge_order() -> None:
    report = week("chore: prepare tokio-macros v2.7.0", "chore: prepare Tokio v1.51.0", "fix: a thing")
    assert "本周发布：tokio-macros v2.7.0（#8000）、Tokio v1.51.0（#8001）。" in summary.paragraphs(report, True)
    assert "Released this week: tokio-macros v2.7.0 (#8000), Tokio v1.51.0 (#8001)." in \
        summary.paragraphs(report, False)
    assert "发布" not in summary.paragraphs(week("fix: a thing"), True)


def test_a_month_of_releases_names_the_first_five_and_counts_the_rest() -> None:
    report = week(*(f"Release: v1.{i}" for i in range(7)))
    assert "本周发布：v1.0（#8000）、v1.1（#8001）、v1.2（#8002）、v1.3（#8003）、v1.4（#8004） 等 7 个版本。" in \
        summary.paragraphs(report, True)
    assert "v1.4 (#8004) and 2 more." in summary.paragraphs(report, False)


def test_the_summary_says_a_release_the_engine_read_from_a_description() -> None:
    # the report entry keeps what scoring read (prs[].released); a title alone could not say it
    body = "# Releases\n\n## svelte@5.56.10\n\n### Patch Changes\n"
    pr = make_pr("Version Packages", [change("packages/svelte/src/version.js", 1, 1)], body=body, number=18640)
    scored = score_pull(pr, RepoConfig("sveltejs/svelte", language="zh"))
    assert scored.released == "svelte 5.56.10" and not [r for r in scored.risks if r.kind == "missing_tests"]
    assert scored.type == "chore"  # a release, not the refactor its files had made it
    report = week("Version Packages", "fix: a thing")
    report["prs"][0]["released"] = scored.released
    assert "本周发布：svelte 5.56.10（#8000）。" in summary.paragraphs(report, True)


def test_a_release_prs_headline_says_what_it_releases() -> None:
    body = "# Releases\n\n## svelte@5.56.10\n\n### Patch Changes\n"
    pr = make_pr("Version Packages", [change("packages/svelte/src/version.js", 1, 1)], body=body, number=18640,
                 merged_at="2026-08-20T03:00:00Z")
    period = Period.parse("2026-08-17", "2026-08-23", "UTC")
    for lang, line in (("zh", "发布 svelte 5.56.10"), ("en", "Release svelte 5.56.10")):
        config = RepoConfig("sveltejs/svelte", language=lang)
        report = analyse_period([score_pull(pr, config)], [], period, config, History.of([], period),
                                "2026-08-24T00:00:00Z", {"kind": "heuristic", "model": None, "prompt_version": "t"})
        assert report["prs"][0]["headline"] == line  # it had read "版本 Packages"
