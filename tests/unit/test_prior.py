"""Importance learned across repositories (issue 48): the shipped model, how the engine applies it, the trainer."""
from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from prhub.engine import learning, prior
from prhub.engine.scoring import ENGINE_VERSION, facts, score_pull

from bench import corpus_importance, train_importance
from tests.unit.engine_support import CONFIG, change, make_pr

FIX = make_pr("fix: handle an empty value in the parser",
              [change("pkg/parse.py", 40, 5), change("tests/test_parse.py", 20, 0)])


def test_a_learned_weight_of_a_fired_rule_moves_the_score_and_not_the_reasons():
    # GIVEN a PR that fires `with_tests`, and a model that learned points for it
    assert "with_tests" in prior.read(facts(FIX, CONFIG))[0]
    up = prior.Prior("test-up", {"with_tests": 1.5})
    down = prior.Prior("test-down", {"with_tests": -1.5, "rule_that_never_fires": 3.0})
    off = score_pull(FIX, CONFIG, model=prior.OFF)
    # WHEN the engine scores it with each model THEN the points move its importance, the reasons stay the rules'
    assert score_pull(FIX, CONFIG, model=up).importance == round(off.importance + 1.5, 1)
    assert score_pull(FIX, CONFIG, model=down).importance == round(off.importance - 1.5, 1)
    assert score_pull(FIX, CONFIG, model=up).reasons == off.reasons


def test_learned_points_are_capped_and_the_score_clipped():
    model = prior.Prior.from_dict({"version": "x", "max_points": 3.0, "weights": {"with_tests": 9.0, "size": -7}})
    assert model.points == {"with_tests": 3.0, "size": -3.0}
    assert prior.adjust(9.5, {"with_tests": 1.0}, model) == 10.0
    assert prior.adjust(0.5, {"size": 1.0}, model) == 0.0
    assert prior.adjust(2.0, {"with_tests": 1.0}, model, ceiling=2.5) == 2.5


def test_learned_points_do_not_lift_a_pr_past_the_rules_caps():
    # GIVEN a docs-only change (capped at 2.5 by the rules) and a model that learned docs matter
    docs = make_pr("Document the install guide", [change("docs/install.md", 300)])
    feats, ceiling = prior.read(facts(docs, CONFIG))
    assert "type:docs" in feats and ceiling == 2.5
    model = prior.Prior("docs-up", {"type:docs": 3.0})
    off = score_pull(docs, CONFIG, model=prior.OFF).importance
    # WHEN the engine scores it THEN the points lift it only up to the cap, never past it
    assert off < score_pull(docs, CONFIG, model=model).importance == 2.5


def test_the_engine_scores_with_the_model_it_ships_and_names_it_in_its_version(tmp_path: Path):
    shipped = prior.load()  # the layer's importance_model.json, or the rules alone without one
    assert all(abs(p) <= prior.MAX_POINTS for p in shipped.points.values())
    assert (f"+{shipped.version}" in ENGINE_VERSION) == bool(shipped.points)
    # What score_pull gives by default is the rules' score with the shipped model's points...
    f = facts(FIX, CONFIG)
    feats, ceiling = prior.read(f)
    rules_only = score_pull(FIX, CONFIG, model=prior.OFF).importance
    assert score_pull(FIX, CONFIG).importance == prior.adjust(rules_only, feats, shipped, ceiling)
    # ...and the per-repository learner starts from that same default score
    assert learning.features(f)[0] == score_pull(FIX, CONFIG).importance
    # A model file loads as written; no file is the rules alone
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"version": "t-1", "weights": {"with_tests": 0.5}}), encoding="utf-8")
    assert prior.load(path) == prior.Prior("t-1", {"with_tests": 0.5})
    assert prior.load(tmp_path / "absent.json") == prior.OFF


# --- the trainer ---------------------------------------------------------------------------------------------

MONDAYS = [date(2026, 1, 5) + timedelta(weeks=w) for w in range(6)]


def write_repo(root: Path, repo: str, tested_grade: int, untested_grade: int, base: int) -> None:
    """Six weeks of a repository whose maintainers grade the fixes that come with tests `tested_grade` and the
    others `untested_grade` (the planted signal, which the rules' score does not see), in its export and labels."""
    folder = root / repo.replace("/", "__")
    folder.mkdir(parents=True)
    prs, labels = [], []
    for w, monday in enumerate(MONDAYS):
        for i in range(4):
            n = base + 10 * w + i
            # The rules score both kinds alike (4.7): 15 library lines with tests, 50 without
            files = [change(f"pkg/mod{i}.py", 12, 3), change(f"tests/test_mod{i}.py", 20, 0)] if i % 2 == 0 \
                else [change(f"pkg/mod{i}.py", 40, 10)]
            prs.append(make_pr(f"fix: handle an empty value in module {i} part {w}", files, number=n,
                               merged_at=f"{monday.isoformat()}T0{i + 1}:00:00Z"))
            labels.append({"number": n, "section": "x", "category": "fix", "breaking": False,
                           "grade": tested_grade if i % 2 == 0 else untested_grade})
    (folder / "pulls.jsonl").write_text("".join(json.dumps(p.to_export()) + "\n" for p in prs), encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels), encoding="utf-8")


def write_corpus(root: Path, tested_grade: int = 2, untested_grade: int = 0) -> Path:
    write_repo(root, "acme/one", tested_grade, untested_grade, 1000)
    write_repo(root, "acme/two", tested_grade, untested_grade, 2000)
    write_repo(root, "acme/held", untested_grade, tested_grade, 3000)  # the opposite signal, held out
    index = [{"repo": r, "held_out": r == "acme/held", "since": "2026-01-05", "until": "2026-02-15",
              "commit": f"{r}-sha"} for r in ("acme/one", "acme/two", "acme/held")]
    (root / "index.json").write_text(json.dumps(index), encoding="utf-8")
    return root


@pytest.mark.parametrize(("tested", "untested", "sign"), [(2, 0, 1), (0, 2, -1)])
def test_the_trainer_recovers_a_planted_signal(tmp_path: Path, tested: int, untested: int, sign: int):
    root = write_corpus(tmp_path / "corpus", tested, untested)
    repos = train_importance.train_repos(corpus_importance.corpus(root))
    judged = {r.repo: (False, corpus_importance.seen(r)) for r in repos}
    fitted = train_importance.fit(judged, 1.0)
    assert fitted.points["with_tests"] * sign > 0.5


def test_held_out_repositories_never_enter_training(tmp_path: Path):
    root = write_corpus(tmp_path / "corpus")
    repos = corpus_importance.corpus(root)
    assert {r.repo: r.held_out for r in repos} == {"acme/one": False, "acme/two": False, "acme/held": True}
    assert [r.repo for r in train_importance.train_repos(repos)] == ["acme/one", "acme/two"]
    # The fit refuses a held-out repository handed to it
    held = next(r for r in repos if r.held_out)
    with pytest.raises(train_importance.HeldOutError, match="acme/held"):
        train_importance.fit({held.repo: (True, corpus_importance.seen(held))}, 1.0)
    # The whole run: the model it writes names only the training repositories, and learned their signal, not the
    # held-out one's opposite
    out, report = tmp_path / "model.json", tmp_path / "report.md"
    assert train_importance.main(["--corpus", str(root), "--out", str(out), "--report", str(report)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [t["repo"] for t in data["trained_on"]] == ["acme/one", "acme/two"]
    assert [t["commit"] for t in data["trained_on"]] == ["acme/one-sha", "acme/two-sha"]
    assert data["weights"]["with_tests"] > 0 and "acme/held" not in report.read_text(encoding="utf-8")
    # The file the trainer writes is what the engine reads: its learned weight moves a PR that fires the rule
    model = prior.load(out)
    assert model.version == data["version"] and model.points["with_tests"] == data["weights"]["with_tests"]
    assert score_pull(FIX, CONFIG, model=model).importance > score_pull(FIX, CONFIG, model=prior.OFF).importance


def test_the_corpus_table_reports_each_repository_and_the_held_out_ones_pooled(tmp_path: Path):
    root = write_corpus(tmp_path / "corpus")
    model = prior.Prior("t", {"with_tests": 2.0})
    rows = corpus_importance.rows(root, model)
    assert [r.scope for r in rows] == ["acme/one", "acme/two", "acme/held", "held out, pooled"]
    one, held = rows[0], rows[-1]
    assert one.rules.auc == 0.5 and one.model.auc == 1.0 and one.model.recall == 1.0
    assert held.held_out and held.prs == 24 and held.picks == 12 and held.model.auc == 0.0
    assert [r.scope for r in corpus_importance.rows(root, model, held_out=False)] == ["acme/one", "acme/two"]


def test_auc_counts_ties_half():
    assert corpus_importance.auc([1, 2, 3, 4], [False, False, True, True]) == 1.0
    assert corpus_importance.auc([1, 1, 1, 1], [False, False, True, True]) == 0.5
    assert corpus_importance.auc([2, 1], [False, True]) == 0.0


def test_a_part_the_changelog_never_covers_is_not_judged(tmp_path: Path):
    # GIVEN a repository whose build says its changelog never covers module 1's PRs (as ruff's never covers ty's)
    root = write_corpus(tmp_path / "corpus")
    build = {"out_of_scope": {"title": r"fix: handle an empty value in module 1\b", "paths": ["pkg/mod3.py"]}}
    (root / "acme__one" / "BUILD.json").write_text(json.dumps(build), encoding="utf-8")
    one = next(r for r in corpus_importance.corpus(root) if r.repo == "acme/one")
    # WHEN the corpus is read THEN those PRs are not judged (unnamed there is no grade 0), the others are
    judged = {p.number % 10 for p in one.judged}
    assert judged == {0, 2} and len(one.judged) == 12
    assert len(next(r for r in corpus_importance.corpus(root) if r.repo == "acme/two").judged) == 24
