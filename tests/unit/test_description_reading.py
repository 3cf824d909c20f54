"""Descriptions read as Markdown, split into sentences, and told apart: what the PR changes from its status notes,
credits, links and vague lines; a list with the heading or lead-in that frames it (issue 45, item 4)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest, ScoredPR
from prhub.engine import synopsis, textparse
from prhub.engine.scoring import score_pull

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
REPOS = {"verl": ("verl-project/verl", "verl-project-verl"), "cargo": ("rust-lang/cargo", "rust-lang-cargo")}


def exported(repo: str, number: int) -> PullRequest:
    """One PR of the shared export (the test skips where the export is absent)."""
    export = DATA / REPOS[repo][1] / "pulls.jsonl"
    if not export.exists():
        pytest.skip(f"shared data not present: {export}")
    with export.open(encoding="utf-8") as handle:
        for line in handle:
            if str(number) in line and (data := json.loads(line))["number"] == number:
                return PullRequest.from_export(data)
    pytest.skip(f"#{number} is not in {export}")


def scored(repo: str, number: int, language: str = "en") -> ScoredPR:
    """One PR of the shared export scored by the engine, as a run scores it."""
    return score_pull(exported(repo, number), RepoConfig(repo=REPOS[repo][0], tz="UTC", language=language))


def test_sentences_do_not_end_at_abbreviations_versions_or_inside_a_word():
    text = ("Route every model, e.g. Moonlight, through the fused path, i.e. the kernel. Compare eager vs. compiled. "
            "Bump trtllm to 1.3.0rc14 in verl/trainer/config/{a,b}.yaml now. Done!")
    assert textparse.sentences(text) == [
        "Route every model, e.g. Moonlight, through the fused path, i.e. the kernel.",
        "Compare eager vs. compiled.", "Bump trtllm to 1.3.0rc14 in verl/trainer/config/{a,b}.yaml now.", "Done!"]
    assert textparse.sentences("修复了卡住的问题。原因是没有释放！") == ["修复了卡住的问题。", "原因是没有释放！"]


def test_a_long_summary_is_cut_after_a_sentence_never_at_e_g():
    text = ("Route the forward of every patched model family (e.g. Moonlight-16B-A3B-Instruct loaded with "
            "trust_remote_code=True) through the fused kernel so log probs are computed once per step.")
    summary = synopsis.summarize(text, "fallback", limit=150)
    assert not re.search(r"\be\.g\.$", summary) and summary.endswith("…") and len(summary) <= 151


def test_the_parser_sees_fences_and_comments_as_github_does():
    body = "### What does this PR do?\n\n<!-- template hint -->\nAdds a cache.\n\n```yaml\n# <!-- kept -->\nx: 1\n```\n"
    cleaned = textparse.strip_template(body)
    assert "template hint" not in cleaned and "# <!-- kept -->" in cleaned  # code is code, even when it looks like HTML
    assert textparse.strip_template("Adds a cache.\n\n<!-- an unclosed comment\n\nhides the rest") == "Adds a cache."


def test_summaries_skip_status_notes_praise_links_and_vague_lines():
    assert synopsis.summarize("Requires the engine to be updated to include https://x/pull/1 [Merged].\n\n"
                               "Adds async rollout for trtllm.", "fallback") == "Adds async rollout for trtllm."
    assert synopsis.summarize("Alice did a lot of great work on the prototype. The cache is now shared across "
                               "workers.", "fallback") == "The cache is now shared across workers."
    assert synopsis.summarize("[The design document for the cache](https://x/doc)\n\nShares the cache across "
                               "workers.", "fallback") == "Shares the cache across workers."
    assert synopsis.summarize("This caused some confusions.\nBetter to split the flag in two.", "fallback") \
        == "Better to split the flag in two."
    assert synopsis.summarize("As title.", "Fallback") == "Fallback"


def test_the_summary_prefers_a_sentence_that_says_what_the_pr_changes():
    text = ("## Summary\n\nThe engine crashed when the model returned no log probs.\n\n"
            "## Approach\n\nInstead of patching the forward, this PR asks the model for its own log probs.\n")
    assert synopsis.summarize(text, "fallback") == \
        "Instead of patching the forward, this PR asks the model for its own log probs."
    opening = "Adds a shared cache. It is keyed by the tokenizer's name.\n\n## Approach\n\nThis PR also adds x.\n"
    assert synopsis.summarize(opening, "fallback") == "Adds a shared cache. It is keyed by the tokenizer's name."


def test_a_heading_or_lead_in_travels_with_the_items_it_frames():
    text = ("### What does this PR do?\n\n**Removed:**\n- the curriculum sampler and its config block\n\n"
            "### Breaking changes\n\n- rename `foo` to `bar` in the trainer config\n\n"
            "### Changes\n\n- cache the routing table between micro-batches\n")
    assert synopsis.key_points(text) == ["Removed: the curriculum sampler and its config block",
                                          "Breaking changes: rename foo to bar in the trainer config",
                                          "Cache the routing table between micro-batches"]


def test_only_a_frame_that_says_what_happened_travels_and_a_lead_in_reads_with_its_list():
    assert synopsis.key_points("### Additional info\n\n- chunking keeps the memory constant.\n\n"
                                "### Added\n\n- a flag for the fused kernel\n") == [
        "Chunking keeps the memory constant.", "Added: a flag for the fused kernel"]
    lead = "Fix 12 documentation issues across the tutorials:\n\n- typos in the install guide\n- wrong device ids\n"
    assert synopsis.summarize(lead, "fallback") == \
        "Fix 12 documentation issues across the tutorials: typos in the install guide; wrong device ids."
    announced = "This PR contains the following:\n\n- Add a dockerfile for CANN 8.3\n- Update vllm\n"
    assert synopsis.summarize(announced, "fallback") == "Add a dockerfile for CANN 8.3"


def test_past_the_opening_only_the_pr_or_its_author_doing_something_is_preferred():
    text = ("The build script name lost its hash in #1.\n\nLooking at the comments, there is no use for it. "
            "So I modified the logic to never include the hash. Let me know if this is a bad assumption.\n")
    assert synopsis.summarize(text, "fallback") == "So I modified the logic to never include the hash."
    side = "Routine update of dependencies.\n\nUpdating ahash v0.8.11 -> v0.8.12\n\nNote: I also added a lint.\n"
    assert synopsis.summarize(side, "fallback") == "Routine update of dependencies."


# The export's real PRs the issue quotes.

def test_verl_5631_summary_is_not_its_status_note():
    summary = scored("verl", 5631).summary
    assert "[Merged]" not in summary and not summary.startswith("Requires verl's trtllm version")
    assert "enables e2e async RL" in summary
    assert "Requires" not in scored("verl", 5631, "zh").summary


def test_verl_6184_summary_is_not_cut_at_e_g_and_says_what_the_pr_does():
    pr = scored("verl", 6184)
    assert not re.search(r"\be\.g\.$", pr.summary)
    assert "this PR uses VeOmni's own native per-token log-probs path" in pr.summary
    cleaned = textparse.strip_template(exported("verl", 6184).body)
    assert not re.search(r"\be\.g\.$", synopsis.summarize(cleaned, "fallback", limit=200))


def test_cargo_17333_summary_is_not_its_credit():
    summary = scored("cargo", 17333).summary
    assert not summary.startswith("Tor did a lot of great work") and summary


def test_cargo_17353_summary_is_not_a_vague_line():
    summary = scored("cargo", 17353).summary
    assert not summary.startswith("This caused some confusions")
    assert summary.startswith("Better to stabilize min-publish-age configs incrementally.")


def test_a_reverts_summary_says_why_not_the_line_git_wrote():
    # "This reverts commit 15a7672…" and "Reverts verl-project/verl#6350" were the en summaries of reverts
    assert scored("cargo", 15512).summary.startswith("There was a miscommunication about some outstanding concerns")
    assert scored("verl", 6360).summary.startswith('Revert "[fsdp] fix: emit distillation outputs')
    assert scored("verl", 7488).summary == "Will cause hccl error when update weights for npu"


def test_a_revert_line_with_its_reason_is_kept():
    # only git's own line is skipped: a reason written on it is the summary (ruff #27174 had lost "since issue
    # upstream is fixed"); the PR below is made up, its body one line
    pr = PullRequest.from_export({"number": 1, "title": 'Revert "Add the fast path"', "user": {"login": "a"},
                                  "merged_at": "2026-06-01T00:00:00Z", "files": [],
                                  "body": "This reverts commit 15a7672e1 because it deadlocked the scheduler."})
    summary = score_pull(pr, RepoConfig(repo="acme/x", tz="UTC", language="en")).summary
    assert "deadlocked" in summary, summary


def test_verl_6302_removed_items_read_as_removals():
    points = scored("verl", 6302).key_points
    assert any(p.startswith("Removed: 5 tool implementations: gsm8k_tool") for p in points), points
    assert not any(p.startswith("5 tool implementations") for p in points)


def test_sentences_are_split_alike_from_many_threads_at_once() -> None:
    # The local runner's score workers share the engine: pySBD's Segmenter keeps the text it segments on itself,
    # and one shared instance gave a thread another's sentences (a week's report then depended on the timing).
    from concurrent.futures import ThreadPoolExecutor

    from prhub.engine import textparse

    texts = [f"Adds the {i}th cache, e.g. for rollout v{i}.2.1 workers. It keeps the old path. "
             f"Then it drops the retry in worker {i}; see the notes." * (1 + i % 3) for i in range(40)]
    alone = [textparse.sentences(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(5):
            assert list(pool.map(textparse.sentences, texts)) == alone
