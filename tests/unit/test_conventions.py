"""The repository's word first (issue 48): its minor markers and type words, learned from its own titles
(prhub.engine.conventions), weigh in the engine's score; the watch list can give or turn them off."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pytest
from prhub.core.config import Conventions, RepoConfig, WatchList
from prhub.core.errors import InputError
from prhub.engine import conventions, headline
from prhub.engine.scoring import parse_title, score_pull

from tests.unit.engine_support import CONFIG, change, make_pr

# A repository that writes `minor:` on what it leaves out of its notes, beside conventional prefixes.
MINOR_HABIT = ["minor: tidy the logging of the rollout", "feat: add a beam search sampler", "minor: rename a helper",
               "fix: handle an empty batch", "minor: bump a pinned version in the docs", "feat(trainer): add lr warmup",
               "fix(data): keep the last shard"]
# One that never does: conventional prefixes, and no `minor:`.
NO_HABIT = ["feat: add a beam search sampler", "fix: handle an empty batch", "refactor: split the trainer",
            "fix(data): keep the last shard", "feat(trainer): add lr warmup", "docs: explain the reward"]
# A substantial change titled with the marker: without the repository's habit, the engine scores it as any other.
SUBSTANTIAL = make_pr("minor: support gradient checkpointing in the trainer",
                      [change("pkg/trainer/checkpointing.py", 220, 10), change("pkg/trainer/main.py", 40, 12),
                       change("tests/test_checkpointing.py", 60, 0)], number=700)


def learned(titles: list[str], given: Conventions | None = None) -> RepoConfig:
    return replace(CONFIG, conventions=conventions.learn(given or Conventions(), titles))


def test_a_repositorys_minor_marker_lowers_importance_only_in_a_repository_that_uses_it() -> None:
    # GIVEN the same PR, titled "minor: ...", in a repository that writes `minor:` and in one that never does
    habit, none = learned(MINOR_HABIT), learned(NO_HABIT)
    assert habit.conventions.minor_markers == ("minor",) and none.conventions.minor_markers == ()
    # WHEN each scores it
    there, elsewhere = score_pull(SUBSTANTIAL, habit), score_pull(SUBSTANTIAL, none)
    # THEN only the repository that uses the marker lowers it below key, and says why
    assert not there.key and there.importance <= 2.5
    assert any("not worth noting by the repository's convention (minor)" in r for r in there.reasons)
    # ... and elsewhere the prefix changes nothing: the same score as with no learning at all
    assert elsewhere.key and elsewhere.importance == score_pull(SUBSTANTIAL, CONFIG).importance
    assert not any("not worth noting" in r for r in elsewhere.reasons)


def test_one_stray_marker_is_not_a_convention() -> None:
    # A repository with a single `minor:` title among many has no such habit (fewer than MIN_USES titles).
    assert learned([*NO_HABIT, "minor: fix a typo"]).conventions.minor_markers == ()


def test_a_marker_label_and_tag_count_once_the_repository_uses_them() -> None:
    config = learned(["[internal] move a helper", "[internal] reorder imports", "[internal] rename a variable",
                      "Add a sampler"])
    assert config.conventions.minor_markers == ("internal",)
    tagged = make_pr("[internal] support gradient checkpointing", SUBSTANTIAL.files, number=701)
    assert score_pull(tagged, config).importance <= 2.5
    # a given marker is read on labels too (a skip-changelog label)
    given = replace(CONFIG, conventions=Conventions.from_value({"minor_markers": ["skip-changelog"]}))
    labelled = replace(SUBSTANTIAL, title="support gradient checkpointing", labels=["skip-changelog"])
    assert score_pull(labelled, given).importance <= 2.5 and score_pull(labelled, CONFIG).key


def test_a_consistent_prefix_decides_the_type_over_tags_and_the_engines_reading() -> None:
    # A repository declaring types with prefixes: each prefix word it writes is its word for a type ...
    consistent = learned([*NO_HABIT, "[ci] fix: retry the flaky job", "[ci] feat: cache", "[ci] chore: pin"])
    assert dict(consistent.conventions.types) == {"chore:": "chore", "docs:": "docs", "feat:": "feat", "fix:": "fix",
                                                  "refactor:": "refactor"}
    # ... as a prefix: its tags name areas, `fix:` decides, not `[ci]`, and a `[docs]` tag is no type
    pr = make_pr("[ci] fix: keep the runner's cache", [change("pkg/runner.py", 8, 3)], number=702)
    assert score_pull(pr, consistent).type == "fix"
    tagged = make_pr("[docs] support a second reward model", [change("pkg/reward.py", 80, 3)], number=707)
    assert score_pull(tagged, consistent).type == score_pull(tagged, CONFIG).type == "feat"
    # ... and its `chore:` stands where the engine alone reads the verb: "chore: Fix ..." is its chore
    chore = make_pr("chore: Fix the precision of the loss on NPU", [change("pkg/loss.py", 30, 4)], number=704)
    alone, said = score_pull(chore, CONFIG), score_pull(chore, consistent)
    assert alone.type == "fix" and said.type == "chore"
    # The rules still score what the PR does, a fix, not a chore capped as one.
    assert said.importance == alone.importance and not any("a chore by" in r for r in said.reasons)
    # A revert undoes a change whatever its prefix says.
    revert = make_pr('fix: Revert "feat: add lr warmup"', [change("pkg/trainer.py", 3, 40)], number=708)
    assert score_pull(revert, consistent).type == "revert"


def test_a_repositorys_type_tags_decide_the_type_where_its_titles_carry_no_prefix() -> None:
    # A repository tagging titles [Bugfix] / [Doc] (and no conventional prefixes) has its tags decide the type.
    config = learned(["[Bugfix] keep the last shard", "[Bugfix] handle an empty batch", "[Bugfix] a race",
                      "[Doc] explain the reward", "[Doc] a typo", "[Doc] the sampler", "Add a sampler"])
    assert dict(config.conventions.types) == {"bugfix": "fix", "doc": "docs"}
    pr = make_pr("[Bugfix] Update the sampler for empty prompts", [change("pkg/sampler.py", 5, 2)], number=703)
    assert score_pull(pr, CONFIG).type != "fix"  # the engine alone reads "Update" as a chore
    assert score_pull(pr, config).type == "fix"


# A repository that opens its titles with numpy's acronyms in capitals, mostly without a colon (as peft does).
CAPS_HABIT = ["FIX Resolve regex target_modules in the config", "ENH Refactor LoRA variant resolution",
              "DOC Expand installation guide", "TST Skip failing tests", "CI Pin kernels version",
              "FIX: Keep the last shard", "MAINT: Bump numpy", "Add a sampler"]


def test_type_words_in_capitals_are_read_with_or_without_a_colon() -> None:
    # The repository's habit: its capitals before the title count as its prefixes, consistently used.
    config = learned(CAPS_HABIT)
    assert dict(config.conventions.types) == {"ci:": "ci", "doc:": "docs", "enh:": "feat", "fix:": "fix",
                                              "maint:": "chore", "tst:": "test"}
    # The title says its type and goes on after it: the word is not a verb, nor "ENH:" a module named "enh".
    assert parse_title("FIX Resolve regex target_modules") == ("Resolve regex target_modules", "fix", None, False)
    assert parse_title("ENH: add a beam search sampler") == ("add a beam search sampler", "feat", None, False)
    enh = make_pr("ENH Refactor LoRA variant resolution", [change("pkg/lora/variants.py", 90, 40)], number=730)
    assert score_pull(enh, config).type == "feat" and "enh" not in score_pull(enh, config).modules
    assert score_pull(replace(enh, title="Refactor LoRA variant resolution"), CONFIG).type == "refactor"
    # polars' "depr:" is a type word too (its deprecations had been a module named "depr")
    depr = make_pr("depr: Deprecate casts from string to temporal dtypes", [change("pkg/compute/cast.rs", 30, 2)],
                   number=731)
    assert parse_title(depr.title)[1] == "refactor" and "depr" not in score_pull(depr, CONFIG).modules
    # A capitalised word that is a sentence's subject, or one before its own prefix, is not the form.
    for title in ("CI fails on Windows", "CI hotfix: xfail the paged test", "FIX CI: Targeting fused parameters",
                  "DPO Fix the loss", "FIX bnb weights can be dequantized on CPU"):
        assert parse_title(title)[0] == title and conventions.bare_type_word(title) == ("", 0), title
    # The headline says the title's own words in Chinese, without the type word read as the verb "fix".
    fixed = score_pull(make_pr("FIX Resolve regex target_modules in MoE config conversion",
                               [change("pkg/config.py", 20, 4)], number=732), replace(config, language="zh"))
    said = headline.headline(fixed.title, fixed.summary, fixed.type, fixed.modules, fixed.changed_files,
                             fixed.additions, fixed.deletions)
    assert said == "解决 MoE 配置转换中的正则 target_modules", said


# A repository titling every PR with gitmoji (as fastapi does), and one that opens titles with an emoji now and then.
GITMOJI_HABIT = ["✨ Add a beam search sampler", "🐛 Fix an empty batch", "📝 Explain the reward", "⬆️ Bump numpy",
                 "♻️ Split the trainer", "⚡ Speed up the sampler", ":sparkles: Add lr warmup",
                 ":zap: Cache the batches", "Release 0.3"]
NOW_AND_THEN = ["🐛 Fix an empty batch", "✨ Add a beam search sampler", "📝 Explain the reward", "Add lr warmup",
                "Split the trainer", "Handle an empty batch", "Bump numpy", "Release 0.3", "Keep the last shard",
                "Support fp8 in the sampler"]


def test_a_gitmoji_titled_repository_gets_its_types_from_the_emoji() -> None:
    config = learned(GITMOJI_HABIT)
    assert config.conventions.type_of("🐛") == "fix" and config.conventions.type_of("✨") == "feat"
    cases = [("🐛 Update the sampler for empty prompts", [change("pkg/sampler.py", 5, 2)], "fix"),
             ("📝 Add a section on rewards", [change("docs/rewards.md", 40, 0), change("pkg/reward.py", 2, 1)], "docs"),
             ("⚡️ Cache the tokenized prompts", [change("pkg/prompts.py", 30, 2)], "perf"),
             (":zap: Cache the shard index", [change("pkg/shards.py", 30, 1)], "perf")]
    for number, (title, files, kind) in enumerate(cases, start=710):
        pr = make_pr(title, files, number=number)
        assert score_pull(pr, CONFIG).type != kind, title  # the engine alone reads the words otherwise
        assert score_pull(pr, config).type == kind, title


def test_a_repository_that_uses_emoji_only_sometimes_is_not_ruled_by_them() -> None:
    config = learned(NOW_AND_THEN)
    assert config.conventions.types == ()
    pr = make_pr("🐛 Update the sampler for empty prompts", [change("pkg/sampler.py", 5, 2)], number=720)
    assert score_pull(pr, config).type == score_pull(pr, CONFIG).type != "fix"


def test_given_conventions_win_and_false_learns_nothing() -> None:
    given = Conventions.from_value({"types": {"Doc": "feat"}, "minor_markers": ["Trivial"]})
    assert given.types == (("doc", "feat"),) and given.minor_markers == ("trivial",)
    both = conventions.learn(given, ["[Doc] a", "[Doc] b", "[Doc] c", "plain"])
    assert both.type_of("doc") == "feat" and both.minor_markers == ("trivial",)
    # an emoji given with or without its U+FE0F selector is one word, as titles are read
    emoji = replace(CONFIG, conventions=Conventions.from_value({"types": {"⬆️": "feat", "🐯": "perf"}}))
    assert score_pull(make_pr("⬆ Bump numpy", [change("pkg/a.py")], number=705), emoji).type == "feat"
    assert score_pull(make_pr("🐯 Bump numpy", [change("pkg/a.py")], number=706), emoji).type == "perf"
    off = Conventions.from_value(False)
    assert conventions.learn(off, MINOR_HABIT) == off


def test_an_unmarked_break_is_told_only_where_the_repository_marks_breaks() -> None:
    # A PR that removes a public module, its title without [BREAKING]: the engine infers the break either way.
    pr = make_pr("feat: move the legacy loader into the new sampler", [change("pkg/legacy.py", 0, 80, status="removed"),
                                                                      change("pkg/sampler.py", 90, 4)], number=740)
    plain = [f"fix: handle case {n}" for n in range(conventions.SEEN)]
    marking, never, short = learned([*plain, "[BREAKING] feat: drop the v1 API"]), learned(plain), learned(plain[:10])
    assert (marking.conventions.breaking_marker, never.conventions.breaking_marker,
            short.conventions.breaking_marker) == (True, False, None)

    def told(config: RepoConfig, body: str = "") -> bool:
        scored = score_pull(replace(pr, body=body), config)
        assert scored.breaking
        return any(r.kind == "title_convention" and "BREAKING" in r.detail for r in scored.risks)

    # told where its titles mark breaks, or where too few titles say; not where many never do (trl: none in 3,044)
    assert told(marking) and told(short) and told(CONFIG) and not told(never)
    # ... unless the PR's own template asks for the mark (verl's: "Add `[BREAKING]` to the PR title if ...")
    assert told(never, "- [ ] Add `[BREAKING]` to the PR title if it breaks any API.")
    # `feat!:` and a `breaking:` prefix are marks too; the watch list's word wins over what titles show
    assert learned([*plain, "feat(api)!: drop v1"]).conventions.breaking_marker is True
    assert learned([*plain, "breaking: drop v1"]).conventions.breaking_marker is True
    assert learned(plain, Conventions.from_value({"breaking_marker": True})).conventions.breaking_marker is True


def watch(value: Any) -> RepoConfig:
    return WatchList.parse(json.dumps({"repos": [{"repo": "o/r", "conventions": value}]})).get("o/r")


@pytest.mark.parametrize(("value", "says"), [
    ("minor", "conventions must be false"),
    ({"minor_prefix": ["minor"]}, "did you mean 'minor_markers'"),
    ({"minor_markers": "minor"}, "conventions.minor_markers must be a list"),
    ({"minor_markers": [""]}, "conventions.minor_markers must be a list"),
    ({"types": {"bugfix": "bug"}}, "conventions.types['bugfix'] must be one of feat"),
    ({"types": ["fix"]}, "conventions.types must map"),
    ({"learn": "no"}, "conventions.learn must be true or false"),
    ({"breaking_marker": "yes"}, "conventions.breaking_marker must be true"),
])
def test_bad_conventions_are_refused_with_what_is_wrong(value: Any, says: str) -> None:
    with pytest.raises(InputError, match=re.escape(says)):
        watch(value)


def test_conventions_round_trip_through_the_run_item() -> None:
    config = watch({"minor_markers": ["minor"], "types": {"bugfix": "fix"}, "breaking_marker": False})
    again = RepoConfig.from_dict(json.loads(json.dumps(config.to_dict())))
    assert again == config and watch(False).conventions.learn is False
