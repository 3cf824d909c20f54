"""What a PR shows beside the rules (issue 48): what learned importance weighs where a repository is silent."""
from __future__ import annotations

import json
from pathlib import Path

from prhub.engine import features, prior
from prhub.engine.scoring import facts, score_pull

from bench import corpus_importance, train_importance
from tests.unit.engine_support import CONFIG, change, make_pr


def test_a_bot_author_is_read_from_the_login():
    bump = [change("requirements-dev.txt", 1, 1)]
    by_dependabot = make_pr("Bump ruff from 0.1 to 0.2", bump, author="dependabot[bot]")
    assert features.of(facts(by_dependabot, CONFIG))["x:bot"] == 1
    assert features.of(facts(make_pr("Update hooks", bump, author="pre-commit-ci[bot]"), CONFIG))["x:bot"] == 1
    assert "x:bot" not in features.of(facts(make_pr("Bump ruff", bump, author="abbot"), CONFIG))


def test_where_the_changed_lines_fall_is_shared_out_by_file_kind():
    pr = make_pr("Add a streaming parser", [change("pkg/parse.py", 60, 0), change("tests/test_parse.py", 30, 0),
                                            change("docs/parse.md", 10, 0)])
    seen = features.of(facts(pr, CONFIG))
    assert (seen["x:share_test"], seen["x:share_docs"]) == (0.3, 0.1)
    assert "x:share_ci" not in seen and "x:share_source" not in seen  # a zero is left out; source is the rest


def test_the_title_verb_and_the_description_are_read():
    added = features.of(facts(make_pr("Add `--frozen` to the `sync` command", body="Closes #12. Not breaking."),
                              CONFIG))
    assert added["x:verb_add"] == 1 and added["x:backtick"] == 1 and added["x:cli_flag"] == 1
    assert added["x:issue"] == 1 and added["x:ref"] == 1 and added["x:breaking_word"] == 1
    assert "x:verb_fix" not in added and "x:declared" not in added
    fixed = features.of(facts(make_pr("fix: handle an empty value"), CONFIG))
    assert fixed["x:verb_fix"] == 1 and fixed["x:declared"] == 1 and "x:body_len" not in fixed


def test_the_model_weighs_them_and_the_reasons_stay_the_rules():
    # GIVEN a PR a bot opened, and a model that learned bots' PRs matter less
    pr = make_pr("Bump the parser", [change("pkg/parse.py", 40, 5)], author="renovate[bot]")
    assert "x:bot" in prior.read(facts(pr, CONFIG))[0]
    model = prior.Prior("bots-down", {"x:bot": -1.5})
    off = score_pull(pr, CONFIG, model=prior.OFF)
    # WHEN the engine scores it with the model THEN the bot's PR loses the points, and the reasons do not change
    scored = score_pull(pr, CONFIG, model=model)
    assert scored.importance == round(off.importance - 1.5, 1) and scored.reasons == off.reasons
    # A person's same PR is not moved
    person = make_pr("Bump the parser", [change("pkg/parse.py", 40, 5)], author="alice")
    assert score_pull(person, CONFIG, model=model).importance == score_pull(person, CONFIG, model=prior.OFF).importance


def test_a_model_file_with_their_points_moves_the_engine(tmp_path: Path):
    # GIVEN a model file (as bench.train_importance writes it) with points for a fact beside the rules
    path = tmp_path / "importance_model.json"
    path.write_text(json.dumps({"version": "x-1", "max_points": 3.0, "weights": {"x:share_test": 2.0}}),
                    encoding="utf-8")
    model = prior.load(path)
    assert model.points == {"x:share_test": 2.0}
    # WHEN the engine scores a PR half of whose lines are tests with it THEN the PR gains half the points
    pr = make_pr("fix: handle an empty value", [change("pkg/parse.py", 40, 0), change("tests/test_parse.py", 40, 0)])
    off = score_pull(pr, CONFIG, model=prior.OFF).importance
    assert score_pull(pr, CONFIG, model=model).importance == round(min(10.0, off + 1.0), 1)


def test_the_trainer_can_learn_only_the_facts_beside_the_rules():
    pr = make_pr("fix: handle an empty value", [change("pkg/parse.py", 40, 0), change("tests/test_parse.py", 40, 0)])
    feats, ceiling = prior.read(facts(pr, CONFIG))
    row = corpus_importance.Seen("acme/one", 1, "2026-06-15", 0, 80, 4.0, feats, ceiling)
    kept = train_importance.beside_rules(row).features
    assert kept and all(n.startswith(features.PREFIX) for n in kept) and "with_tests" in feats
