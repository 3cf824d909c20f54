"""The engine learns a repository's ranking from its maintainers' judgements (issue 27, prhub.engine.learning)."""
from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from prhub.core.errors import SourceError
from prhub.core.judgements import judgement
from prhub.core.models import PullRef, PullRequest
from prhub.core.period import Period
from prhub.engine import learning
from prhub.engine.learning import Example
from prhub.engine.scoring import facts, score_pull
from prhub.flow import ranking

from tests.unit.engine_support import CONFIG, change, make_pr

MONDAYS = [(date(2026, 1, 5) + timedelta(weeks=w)).isoformat() for w in range(8)]


def docs_repository() -> tuple[list, list]:
    """Eight weeks of a documentation project: its maintainers call every docs change key, and small code fixes
    minor; the rules (docs capped at 2.5) rank them the other way."""
    prs, verdicts = [], []
    for w, monday in enumerate(MONDAYS):
        for i in range(3):
            n = 1000 + 10 * w + i
            prs.append(make_pr(f"Document the {['install', 'config', 'api'][i]} guide, part {w}",
                               [change(f"docs/guide{i}.md", 40 + 7 * i + w)], number=n,
                               merged_at=f"{monday}T0{i + 1}:00:00Z"))
            verdicts.append(judgement("acme/trainer", n, "key", "file"))
            n += 5
            prs.append(make_pr(f"fix: handle an empty value in parser {i}",
                               [change(f"pkg/parse{i}.py", 20 + w + i), change("tests/test_parse.py")], number=n,
                               merged_at=f"{monday}T0{i + 4}:00:00Z"))
            verdicts.append(judgement("acme/trainer", n, "minor", "file"))
    return prs, verdicts


def test_without_judgements_every_score_is_the_rules_score():
    # GIVEN no judgements WHEN learning THEN nothing is learned and every PR keeps the rules' importance exactly
    learned = learning.learn([])
    assert (learned.adjusted, learned.outcome, learned.points) == (False, "too_few", {})
    prs, _ = docs_repository()
    for pr in prs[:6]:
        assert learning.rescore(pr, CONFIG, learned) == (score_pull(pr, CONFIG).importance, [])


def test_the_features_are_what_the_table_of_rules_saw():
    pr = make_pr("fix: wrong loss normalisation", [change("pkg/loss.py", 200, 20), change("tests/test_loss.py")])
    importance, feats = learning.features(facts(pr, CONFIG))
    assert importance == score_pull(pr, CONFIG).importance
    assert feats["type:fix"] == 1.0 and feats["fix_silent"] == 1.0 and feats["with_tests"] == 1.0
    assert "fix_crash" not in feats  # the fix group counts its first rule only, as the score does
    assert 2.3 < feats["size"] < 2.4  # log10(1 + 220 library lines): the size rule's points
    docs = make_pr("feat: add an install walkthrough", [change("docs/install.md", 400)])
    assert "cap_docs" in learning.features(facts(docs, CONFIG))[1]  # the cap that bound its score


def test_judgements_that_disagree_with_the_rules_reorder_the_ranking():
    # GIVEN maintainers who judge docs key and small fixes minor, eight weeks of it
    prs, verdicts = docs_repository()
    examples = learning.examples(prs, verdicts, CONFIG)
    # WHEN the engine learns THEN the learned ranking beats the rules on the held-out latest weeks, and is kept
    learned = learning.learn(examples)
    assert learned.adjusted and learned.outcome == "adjusted" and learned.judgements == len(verdicts)
    assert learned.default is not None and learned.learned is not None and learned.learned.beats(learned.default)
    assert learned.held_out_weeks >= 2
    # AND a new docs PR now outranks a new small fix, which the rules put above it
    docs = make_pr("Document the upgrade guide", [change("docs/upgrade.md", 60)], number=2000)
    fix = make_pr("fix: handle an empty value in reader", [change("pkg/read.py", 25), change("tests/test_r.py")],
                  number=2001)
    assert score_pull(docs, CONFIG).importance < score_pull(fix, CONFIG).importance
    (docs_score, docs_moved), (fix_score, fix_moved) = (learning.rescore(p, CONFIG, learned) for p in (docs, fix))
    assert docs_score > fix_score
    assert docs_moved and all(points != 0 for _, points in docs_moved)  # the weights that moved it, named
    assert learning.Learned.from_dict(learned.to_dict()) == learned


def test_judgements_the_rules_already_follow_keep_the_default_rules():
    # GIVEN verdicts that say exactly what the rules say (key at the key threshold)
    prs, _ = docs_repository()
    examples = [learning.example(p, CONFIG, score_pull(p, CONFIG).importance >= CONFIG.key_threshold) for p in prs]
    examples = [Example(e.pr, e.week, e.importance, e.features, e.importance >= 2.5) for e in examples]
    # WHEN learning THEN the held-out weeks cannot be ranked better: the default rules stay, and nothing moves
    learned = learning.learn(examples)
    assert (learned.adjusted, learned.outcome, learned.points) == (False, "not_better", {})
    assert learned.default is not None and learned.learned is not None
    assert not learned.learned.beats(learned.default)
    assert learning.rescore(prs[0], CONFIG, learned) == (score_pull(prs[0], CONFIG).importance, [])


def synthetic(n_weeks: int = 8) -> list[Example]:
    """Examples where the rules' score says nothing and a `tested` feature says key (ties in score: 3.0)."""
    out = []
    for w in range(n_weeks):
        for i in range(6):
            tested = i % 2 == 0
            out.append(Example(100 * w + i, MONDAYS[w], 3.0 + 0.1 * (i % 3),
                               {"with_tests": 1.0} if tested else {"type:chore": 1.0}, tested))
    return out


def test_a_judged_prs_own_verdict_is_not_evidence_for_its_score():
    # GIVEN a feature only one judged PR has, judged key against everything else the repository says
    examples = synthetic()
    lone = Example(999, MONDAYS[2], 3.0, {"with_tests": 1.0, "new_object": 1.0}, True)
    examples.append(lone)
    # WHEN its week is scored, the weights are fitted without its judgement: its own feature learns nothing
    blind = learning.learn(examples, scoring=[lone.pr])
    assert blind.adjusted and blind.judgements == len(examples) - 1 and "new_object" not in blind.points
    assert learning.adjust(lone.importance, lone.features, blind.points)[1] == [("with_tests",
                                                                                blind.points["with_tests"])]
    # AND scoring other PRs, the same judgement is evidence like any other: fitted with it, its feature learns
    assert learning.learn(examples).judgements == len(examples)
    assert learning.fit(examples, 0.5).get("new_object", 0) > 0



def test_an_adjusted_pr_says_which_learned_weights_moved_it_and_the_report_says_from_how_many():
    prs, verdicts = docs_repository()
    learned = learning.learn(learning.examples(prs, verdicts, CONFIG))
    docs = make_pr("Document the upgrade guide", [change("docs/upgrade.md", 60)], number=2000)
    rules_only = score_pull(docs, CONFIG)
    adjusted = learning.apply(score_pull(docs, CONFIG), docs, CONFIG, learned)
    assert adjusted.importance > rules_only.importance
    assert adjusted.reasons[:-1] == rules_only.reasons  # it keeps its facts and the rules' reasons
    assert adjusted.reasons[-1].startswith("learned from the repository's judgements: ")
    assert learning.apply(rules_only, docs, CONFIG, None) is rules_only  # no judgements: the rules' result itself
    model = score_pull(docs, CONFIG)
    model.scored_by = "llm"
    assert learning.apply(model, docs, CONFIG, learned) is model  # a model's score is the model's
    en, zh = learning.note("en", learned), learning.note("zh", learned)
    assert en.startswith(f"The ranking was adjusted by weights learned from {learned.judgements} judgements")
    assert f"{learned.judgements} 条判断" in zh and "recall@K" in zh
    kept = learning.Learned(30, False, "not_better")
    assert learning.note("en", kept).startswith("The judgements did not improve the ranking on held-out weeks; "
                                                "default rules kept")
    assert learning.note("zh", kept).startswith("这些判断在留出周上没有改进排名，沿用默认规则")


def test_the_plan_learns_from_the_sources_prs_without_the_periods_own():
    import json

    from prhub.sources.source import JsonlSource

    prs, verdicts = docs_repository()
    lines = [json.dumps({"number": p.number, "title": p.title, "body": p.body, "merged_at": p.merged_at.isoformat(),
                         "user": {"login": p.author}, "html_url": p.url, "additions": p.additions,
                         "deletions": p.deletions, "changed_files": p.changed_files,
                         "files": [{"filename": f.filename, "status": f.status, "additions": f.additions,
                                    "deletions": f.deletions, "changes": f.changes} for f in p.files]})
             for p in prs]
    source = JsonlSource(lines)
    period = Period(date(2026, 2, 23), date(2026, 3, 1), "UTC")  # the last judged week
    refs = [p.ref for p in prs if p.merged_at.date() >= date(2026, 2, 23)]
    taught = ranking.learned(source, CONFIG, period, refs, verdicts)
    assert taught is not None and taught["judgements"] == len(verdicts) - len(refs)
    assert ranking.note(taught, "en")[0].startswith("The ranking was adjusted")
    assert ranking.learned(source, CONFIG, period, refs, []) is None and ranking.note(None, "en") == []


def test_a_plan_reads_only_the_latest_judged_prs_so_a_long_changelog_costs_a_bounded_number_of_requests(monkeypatch):
    """A CHANGELOG judges thousands of PRs; on GitHub each judged PR read is a request, every plan."""
    asked: list[int] = []

    class Counting:
        def get(self, repo: str, ref: PullRef) -> PullRequest:
            asked.append(ref.number)
            raise SourceError("not held")  # what it teaches does not matter here, only what is read

    monkeypatch.setattr(ranking, "LEARNED_PRS", 5)
    verdicts = [judgement("o/r", n, "key" if n % 2 else "minor", "file") for n in range(1, 21)]
    period = Period(date(2026, 2, 23), date(2026, 3, 1), "UTC")
    ranking.learned(Counting(), CONFIG, period, [], verdicts)  # type: ignore[arg-type]
    assert asked == [16, 17, 18, 19, 20]


def test_the_fit_learns_the_order_within_a_week_not_which_weeks_are_busy_with_key_prs():
    # GIVEN weeks whose PRs all carry a `busy` feature and are mostly key, and quiet weeks without it, mostly
    # minor; inside every week a tested PR is key and an untested one minor
    out = []
    for w in range(8):
        busy = w % 2 == 0
        for i in range(6):
            tested = i < (5 if busy else 1)
            feats = {"with_tests": 1.0} if tested else {}
            out.append(Example(100 * w + i, MONDAYS[w], 3.0, {**feats, **({"busy": 1.0} if busy else {})}, tested))
    # WHEN fitting THEN what orders a week's PRs learns points, what only tells weeks apart learns none
    points = learning.fit(out, 0.5)
    assert points.get("with_tests", 0) > 0.5 and "busy" not in points
    # AND a week judged one way only gives no pair to learn from
    assert learning.fit([e for e in out if e.key], 0.5) == {}


# -- graded judgements: a CHANGELOG's 🎉 > Added/Changed > Fixed > the rest -----------------------------------

def graded(pr: int, week: str, grade: int | None, feats: dict[str, float], importance: float = 3.0,
           key: bool | None = None) -> Example:
    return Example(pr, week, importance, feats, grade >= 1 if key is None and grade is not None else bool(key), grade)


def test_pairs_are_formed_across_grades_within_a_week_the_higher_first():
    # GIVEN a week with a 🎉 entry (3), an addition (2), a fix (1), an internal change (0), and a second fix
    week = [graded(1, MONDAYS[0], 3, {"a": 1.0}, 6.0), graded(2, MONDAYS[0], 2, {}, 5.0),
            graded(3, MONDAYS[0], 1, {}, 4.0), graded(4, MONDAYS[0], 0, {}, 2.0), graded(5, MONDAYS[0], 1, {}, 3.5)]
    # AND a second week with one graded entry only
    lone = [graded(9, MONDAYS[1], 2, {})]
    rows = learning.pairs(week + lone)
    # THEN every two PRs of different grades make one pair, higher minus lower; the two fixes make none
    diffs = sorted(row[0][1] for row, _ in rows)
    assert len(rows) == 9  # 10 pairs of 5 PRs, less the one of equal grades
    assert all(d > 0 for d in diffs)  # here the default score follows the grades: each pair's Δ is higher − lower
    assert sorted(diffs) == sorted([1.0, 2.0, 4.0, 2.5, 1.0, 3.0, 1.5, 2.0, 1.5])
    # AND the week's pairs weigh as much together as its judged PRs; a lone PR orders nothing
    assert {w for _, w in rows} == {5 / 9}
    # AND the features' difference rides along (index 1: "a", the only feature): the 🎉 entry's 4 pairs carry it
    assert sum(1 for row, _ in rows if (1, 1.0) in row) == 4


def test_verdicts_alone_make_the_key_minor_pairs_as_before():
    week = [graded(1, MONDAYS[0], None, {}, 6.0, key=True), graded(2, MONDAYS[0], None, {}, 5.0, key=True),
            graded(3, MONDAYS[0], None, {}, 4.0, key=False)]
    rows = learning.pairs(week)
    assert [row[0] for row, _ in rows] == [(0, 2.0), (0, 1.0)] and {w for _, w in rows} == {3 / 2}
    assert [e.order for e in week] == [1.0, 1.0, 0.0]


def test_grades_teach_the_order_among_key_prs_which_verdicts_cannot():
    # GIVEN weeks whose judged PRs are all key (Added and Fixed entries), the highlights carrying a feature the
    # rules do not reward
    out = []
    for w in range(8):
        for i in range(4):
            out.append(graded(100 * w + i, MONDAYS[w], 3 if i == 0 else 1, {"stabilises": 1.0} if i == 0 else {},
                              3.0 + 0.1 * i))
    # WHEN fitting on verdicts alone THEN nothing orders a week judged all key; with the grades, the feature learns
    ungraded = [replace(e, grade=None) for e in out]
    assert learning.fit(ungraded, 0.5) == {}
    assert learning.fit(out, 0.5).get("stabilises", 0) > 0.5
    assert learning.learn(ungraded).outcome == "too_few"  # one order only: nothing to learn from
    learned = learning.learn(out)
    assert learned.adjusted and learned.points.get("stabilises", 0) > 0
    # AND the held-out check measures Spearman against the grades (the rules put the highlight last)
    assert learned.default is not None and learned.default.spearman < 0 < learned.learned.spearman


def test_the_held_out_check_takes_spearman_against_the_grades():
    week = {MONDAYS[0]: [graded(1, MONDAYS[0], 3, {}), graded(2, MONDAYS[0], 2, {}), graded(3, MONDAYS[0], 0, {})]}
    follows = {1: 9.0, 2: 5.0, 3: 1.0}
    swapped = {1: 5.0, 2: 9.0, 3: 1.0}  # the two key PRs the wrong way round: recall is blind to it, Spearman not
    got, wrong = (learning.figures(week, lambda e, s=s: s[e.pr]) for s in (follows, swapped))  # type: ignore[misc]
    assert got.recall == wrong.recall == 1.0
    assert round(got.spearman, 9) == 1.0 and round(wrong.spearman, 9) == 0.5


def test_graded_judgements_reach_the_examples():
    prs, _ = docs_repository()
    said = [judgement("acme/trainer", prs[0].number, "key", "changelog", grade=3),
            judgement("acme/trainer", prs[1].number, "key", "changelog"),
            judgement("acme/trainer", prs[2].number, "minor", "changelog", grade=0)]
    got = {e.pr: (e.key, e.grade, e.order) for e in learning.examples(prs, said, CONFIG)}
    assert got == {prs[0].number: (True, 3, 3.0), prs[1].number: (True, None, 1.0), prs[2].number: (False, 0, 0.0)}


def test_a_flow_changelog_with_grades_gives_graded_judgements():
    from prhub.core.config import ChangelogConfig
    from prhub.sources.judgements import from_changelog

    class Files:
        def read_file(self, repo: str, path: str) -> str:
            return ("## 1.0\n### Added\n- 🎉 new [#5](https://github.com/o/r/pull/5)\n"
                    "### Fixed\n- a fix [#6](https://github.com/o/r/pull/6)\n")

    config = replace(CONFIG, repo="o/r", changelog=ChangelogConfig("CHANGELOG.md", {"Added": "key", "Fixed": "key"},
                                                                   {"🎉": 3, "Fixed": 1}))
    got = from_changelog(config, lambda: Files())  # type: ignore[arg-type,return-value]
    assert [(j.pr, j.verdict, j.grade) for j in got] == [(5, "key", 3), (6, "key", 1)]
