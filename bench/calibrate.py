"""Calibrate the engine on real weeks: run it over every Monday–Sunday week of an export and print what it says.

    python -m bench.calibrate [--repo rust-lang/cargo] [--data PATH] [--tz ZONE] [--top 5] [--quiet]
    python -m bench.calibrate --panels [--tuning]
    python -m bench.calibrate --judgements

Per week: PR count, key count, average importance and insight, and the highest PRs
with their scores and reasons; then the distribution over all weeks (importance
histogram, key share, insight histogram, risk kinds, inferred breaking flags) and
the time taken. Then the judged panels (bench.panel), per repository (verl, cargo, trl): recall@K and
Spearman of the engine's importance and of a size-only ranking (changed lines) against the panel's grades,
on the weeks tuned on and the held-out weeks apart. Then the judged corpus (issue 48), per repository and the
held-out repositories pooled: recall@K and ROC AUC of importance against the maintainers' picks, beside size-only
and the rules without the learned model (bench.corpus_importance); and type accuracy against the changelog's
categories (bench.corpus_types). `--tuning` leaves the held-out weeks' and repositories' figures out, for use while
tuning. Default data: ../shared/data/verl-project-verl/pulls.jsonl.

`--judgements` (issue 27): the engine with a repository's judgements learned (prhub.engine.learning) against the
engine alone, on later panel weeks no judgement comes from. cargo: its CHANGELOG.md's judgements of the export's
first year, read by prhub.engine.changelog (the reader a deployed stack uses) with CARGO_SECTIONS and CARGO_GRADES,
scored on the panel's cargo weeks after that year. verl: the panel's tuning weeks as judgements (a panel PR key,
every other PR of the week minor), scored on its held-out weeks. Also: the learner's own held-out check and the
fit's time.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.history import History
from prhub.core.judgements import Judgement, judgement
from prhub.core.models import PullRequest, ScoredPR
from prhub.core.period import Period
from prhub.engine import conventions, learning
from prhub.engine.analysis import analyse_period
from prhub.engine.changelog import read_changelog
from prhub.engine.learning import spearman
from prhub.engine.scoring import ENGINE_VERSION, score_pull

from bench import corpus_importance
from bench.panel import PANEL, REPOS, Week

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DATA = SHARED / "verl-project-verl" / "pulls.jsonl"
REPO = "verl-project/verl"


def load(path: Path) -> list[PullRequest]:
    with path.open(encoding="utf-8") as handle:
        prs = [PullRequest.from_export(json.loads(line)) for line in handle if line.strip()]
    return sorted(prs, key=lambda p: (p.merged_at, p.number))


def weeks_of(prs: list[PullRequest], tz: str) -> list[Period]:
    """Every Monday–Sunday week in `tz` from the first merge to the last."""
    first = Period.last_complete_week(prs[0].merged_at + timedelta(days=7), tz)
    last = Period.last_complete_week(prs[-1].merged_at + timedelta(days=7), tz)
    weeks, week = [], first
    while week.since <= last.since:
        weeks.append(week)
        week = Period(week.since + timedelta(days=7), week.until + timedelta(days=7), tz)
    return weeks


def run(prs: list[PullRequest], config: RepoConfig) -> tuple[list[tuple[Period, dict[str, Any]]], float, float]:
    """(week, report) for every week with PRs, the seconds spent scoring and the seconds spent analysing."""
    started = time.perf_counter()
    scored: dict[int, ScoredPR] = {p.number: score_pull(p, config) for p in prs}
    scoring_time = time.perf_counter() - started
    history = [{**p.ref.to_dict(), "modules": scored[p.number].modules} for p in prs]
    started = time.perf_counter()
    reports = []
    for week in weeks_of(prs, config.tz):
        start, end = week.start_utc, week.end_utc
        members = [scored[p.number] for p in prs if start <= p.merged_at < end]
        if not members:
            continue
        report = analyse_period(members, [], week, config, History.of(history, week), "2026-01-01T00:00:00Z",
                              {"kind": "heuristic", "model": None, "prompt_version": ENGINE_VERSION})
        reports.append((week, report))
    return reports, scoring_time, time.perf_counter() - started


# What a key point must never be: template text, checklists, credits, image tags, links, pointers elsewhere.
BANNED_POINTS = re.compile(
    r"what does this pr do|checklist|\[[ x]\]|before submitting|add \*?\*?concise|demonstrate the high-level|"
    r"\[note which|fixes issue #|if any\.|^as title|credit to|thanks to|carried as-is|co-authored|"
    r"<img|&lt;|<br|!\[|https?://|^(?:please )?see |see issue|^@|:$|^[\w./-]+\.(?:py|sh|ya?ml|md)$",
    re.IGNORECASE)


def banned_points(scored: list[ScoredPR]) -> tuple[int, int, list[tuple[int, str]]]:
    """(banned key points, all key points, the first few banned ones with their PR) over `scored`."""
    points = [(p.number, k) for p in scored for k in p.key_points]
    bad = [(n, k) for n, k in points if BANNED_POINTS.search(k)]
    return len(bad), len(points), bad[:5]


@dataclass(frozen=True)
class PanelFigures:
    weeks: int
    keys: int
    recall: float  # hits in each week's top K (K = that week's panel keys), pooled over weeks
    spearman: float  # mean over weeks of rho(score, grade) over all the week's PRs


def panel_figures(weeks: list[Week], prs: list[PullRequest], score: Callable[[PullRequest], float],
                  tz: str = "Asia/Shanghai") -> PanelFigures:
    """How well `score` ranks each panel week's PRs against the panel's grades (ties broken by PR number)."""
    hits = keys = 0
    rhos: list[float] = []
    for week in weeks:
        monday = date.fromisoformat(week.monday)
        period = Period(monday, monday + timedelta(days=6), tz)
        members = [p for p in prs if period.start_utc <= p.merged_at < period.end_utc]
        scores = {p.number: score(p) for p in members}
        top = sorted(members, key=lambda p: (-scores[p.number], p.number))[:len(week.key)]
        hits += sum(p.number in week.key for p in top)
        keys += len(week.key)
        rhos.append(spearman([scores[p.number] for p in members],
                             [float(week.key.get(p.number, (0, ""))[0]) for p in members]))
    return PanelFigures(len(weeks), keys, hits / keys if keys else 0.0, statistics.mean(rhos) if rhos else 0.0)


def size_only(pr: PullRequest) -> float:
    """The baseline the engine must beat: a PR's changed lines."""
    return float(pr.additions + pr.deletions)


def panel_table(prs: list[PullRequest], importance: dict[int, float], tz: str, panel: tuple[Week, ...] = PANEL,
                held_out: bool = True) -> list[tuple[str, PanelFigures, PanelFigures]]:
    """(scope, engine figures, size-only figures) for all panel weeks, the tuned ones and the held-out ones, and
    the held-out weeks of each judging round apart when there are several (only the tuned ones without
    `held_out`: what tuning may look at)."""
    held = [w for w in panel if w.held_out]
    rounds = sorted({w.judged for w in held})
    scopes = [("all", list(panel)), ("tuned", [w for w in panel if not w.held_out]), ("held out", held)]
    if len(rounds) > 1:
        scopes += [(f"held out, judged before {r}" if r else "held out, first round",
                    [w for w in held if w.judged == r]) for r in rounds]
    return [(name, panel_figures(weeks, prs, lambda p: importance[p.number], tz),
             panel_figures(weeks, prs, size_only, tz)) for name, weeks in scopes
            if held_out or name == "tuned"]


def repo_config(repo: str, tz: str) -> RepoConfig:
    """How the panel runs a repository: its zone, English prose, and otherwise the defaults every user gets
    (no module map, no labels: the engine must read each repository from its titles and layout alone)."""
    return RepoConfig(repo=repo, tz=tz, language="en")


def with_conventions(config: RepoConfig, prs: list[PullRequest]) -> RepoConfig:
    """The config with the conventions the repository's titles show (the plan learns them from its history the
    same way, prhub.engine.conventions): here from the whole export."""
    return replace(config, conventions=conventions.learn(config.conventions, [p.title for p in prs]))


def repo_panels(held_out: bool = True) -> list[tuple[str, list[tuple[str, PanelFigures, PanelFigures]]]]:
    """Each repository's panel figures, scored by the engine alone (a repository whose export is absent is skipped)."""
    out = []
    for repo, (panel, folder, tz) in REPOS.items():
        path = SHARED / folder / "pulls.jsonl"
        if path.exists():
            prs = load(path)
            config = with_conventions(repo_config(repo, tz), prs)
            importance = {p.number: score_pull(p, config).importance for p in prs}
            out.append((repo, panel_table(prs, importance, tz, panel, held_out)))
    return out


def print_panels(held_out: bool = True) -> None:
    print("\n== judged panels (bench/panel.py): recall@K, K = the week's key PRs; Spearman of score vs grade")
    for repo, table in repo_panels(held_out):
        print(f"  {repo}")
        for name, engine, size in table:
            print(f"    {name:<32} {engine.weeks:>2} weeks {engine.keys:>3} key PRs   engine recall@K "
                  f"{engine.recall:.2f} Spearman {engine.spearman:.2f}   size-only recall@K {size.recall:.2f} "
                  f"Spearman {size.spearman:.2f}")


# How cargo's sections read as verdicts, fixed before any figure was seen: what a user of stable Cargo meets (new,
# changed, fixed behaviour) is key; nightly-only work, documentation and internals are minor; 🎉 is key (the
# reader's default).
CARGO_SECTIONS: dict[str, Any] = {"Added": "key", "Changed": "key", "Fixed": "key", "Nightly only": "minor",
                                  "Documentation": "minor", "Internal": "minor"}
# And how they rank, fixed with the reasoning of docs/calibration.md (graded targets) before any figure of it was
# printed: what a release leads with (🎉) above what is new or changed for a stable user, above repair, above work
# for contributors.
CARGO_GRADES: dict[str, int] = {"🎉": 3, "Added": 2, "Changed": 2, "Fixed": 1, "Nightly only": 0,
                                "Documentation": 0, "Internal": 0}


@dataclass(frozen=True)
class JudgedFigures:
    judgements: int  # the judgements of PRs in the export
    keys: int  # how many of them say key
    learned: learning.Learned
    fit_seconds: float
    without: PanelFigures
    with_: PanelFigures


def judged_figures(prs: list[PullRequest], judgements: list[Judgement], config: RepoConfig,
                   weeks: list[Week]) -> JudgedFigures:
    """The panel `weeks` ranked by the engine alone and with what `judgements` taught it."""
    config = with_conventions(config, prs)
    started = time.perf_counter()
    examples = learning.examples(prs, judgements, config)
    learned = learning.learn(examples)
    seconds = time.perf_counter() - started
    alone = {p.number: score_pull(p, config).importance for p in prs}
    taught = {p.number: learning.rescore(p, config, learned)[0] for p in prs}
    return JudgedFigures(len(examples), sum(e.key for e in examples), learned, seconds,
                         panel_figures(weeks, prs, lambda p: alone[p.number], config.tz),
                         panel_figures(weeks, prs, lambda p: taught[p.number], config.tz))


def cargo_judged() -> tuple[str, JudgedFigures] | None:
    """cargo: the changelog's judgements of the export's first year; the panel's weeks after that year."""
    folder = SHARED / "rust-lang-cargo"
    if not (folder / "pulls.jsonl").exists() or not (folder / "CHANGELOG.md").exists():
        return None
    prs = load(folder / "pulls.jsonl")
    year_end = prs[0].merged_at + timedelta(days=365)
    first_year = {p.number for p in prs if p.merged_at < year_end}
    judged = [j for j in read_changelog((folder / "CHANGELOG.md").read_text(encoding="utf-8"), CARGO_SECTIONS,
                                        "rust-lang/cargo", CARGO_GRADES) if j.pr in first_year]
    later = [w for w in REPOS["rust-lang/cargo"][0] if date.fromisoformat(w.monday) > year_end.date()]
    scope = f"first year's changelog (to {year_end.date()}), panel weeks {', '.join(w.monday for w in later)}"
    return scope, judged_figures(prs, judged, repo_config("rust-lang/cargo", "UTC"), later)


def verl_judged() -> tuple[str, JudgedFigures] | None:
    """verl: the panel's tuning weeks as judgements; its held-out weeks scored."""
    path = SHARED / "verl-project-verl" / "pulls.jsonl"
    if not path.exists():
        return None
    prs, tz = load(path), "Asia/Shanghai"
    judged = []
    for week in (w for w in PANEL if not w.held_out):
        monday = date.fromisoformat(week.monday)
        period = Period(monday, monday + timedelta(days=6), tz)
        judged += [judgement(REPO, p.number, "key" if p.number in week.key else "minor", "file")
                   for p in prs if period.start_utc <= p.merged_at < period.end_utc]
    held = [w for w in PANEL if w.held_out]
    scope = f"the panel's {len(PANEL) - len(held)} tuning weeks, held-out weeks {', '.join(w.monday for w in held)}"
    return scope, judged_figures(prs, judged, repo_config(REPO, tz), held)


def print_judgements() -> None:
    print("== the engine with judgements (prhub.engine.learning): recall@K / Spearman on later panel weeks")
    for repo, found in (("rust-lang/cargo", cargo_judged()), (REPO, verl_judged())):
        if found is None:
            print(f"  {repo}: skipped, its data is not in {SHARED}")
            continue
        scope, f = found
        learned = f.learned
        check = (f"held-out check on its latest {learned.held_out_weeks} judged weeks: rules "
                 f"{learned.default.recall:.2f} / {learned.default.spearman:.2f}, learned "
                 f"{learned.learned.recall:.2f} / {learned.learned.spearman:.2f}" if learned.default and learned.learned
                 else "no held-out check (too few judgements)")
        print(f"  {repo}: judgements of {scope}")
        print(f"    {f.judgements} judgements ({f.keys} key) -> {learned.outcome} (penalty {learned.penalty}); "
              f"{check}; fit {f.fit_seconds:.2f} s")
        for name, got in (("engine alone", f.without), ("with judgements", f.with_)):
            print(f"    {name:<17} {got.weeks} weeks {got.keys} key PRs: recall@K {got.recall:.2f} "
                  f"Spearman {got.spearman:.2f}")
        moved = sorted(learned.points.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:8]
        print("    largest learned weights (points): " + ", ".join(f"{n} {p:+.2f}" for n, p in moved))


def histogram(values: list[float], width: int = 50) -> list[str]:
    buckets = Counter(min(int(v), 9) for v in values)
    top = max(buckets.values()) if buckets else 1
    return [f"  {b:>2}–{b + 1:<2} {buckets[b]:>5}  {'#' * round(width * buckets[b] / top)}" for b in range(10)]


def benchmark(data: Path = DATA) -> dict[str, Any]:
    """The `python -m bench` shape: rows of [measure, value, notes] plus the raw figures (skips without data)."""
    if not data.exists():
        return {"rows": [["engine on verl", "skipped", f"{data} is not here"]]}
    prs = load(data)
    config = with_conventions(RepoConfig(repo=REPO, tz="Asia/Shanghai", language="en"), prs)
    reports, scoring_time, analysis_time = run(prs, config)
    entries = [e for _, r in reports for e in r["prs"]]
    typical = [r["stats"]["key_pr_count"] / r["stats"]["pr_count"] for _, r in reports if r["stats"]["pr_count"] >= 10]
    figures = {"prs": len(prs), "weeks": len(reports), "scoring_s": round(scoring_time, 3),
               "analysis_s": round(analysis_time, 3),
               "importance_mean": round(statistics.mean(e["importance"] for e in entries), 2),
               "importance_stdev": round(statistics.pstdev([e["importance"] for e in entries]), 2),
               "key_share_median_week": round(statistics.median(typical), 3)}
    return {**figures, "rows": [
        ["engine scoring, verl export", f"{scoring_time:.2f} s", f"{len(prs)} PRs, "
                                                                 f"{1000 * scoring_time / len(prs):.2f} ms/PR"],
        ["engine weekly analysis, verl", f"{analysis_time:.2f} s", f"{len(reports)} weeks"],
        ["importance mean / stdev", f"{figures['importance_mean']} / {figures['importance_stdev']}", "0–10 scale"],
        ["key share, median week (10+ PRs)", f"{figures['key_share_median_week']:.0%}",
         f"key_threshold {config.key_threshold}"],
        *[[f"panel {repo.split('/')[1]} {name}: recall@K / Spearman", f"{engine.recall:.2f} / {engine.spearman:.2f}",
           f"size-only {size.recall:.2f} / {size.spearman:.2f}; {engine.weeks} weeks, {engine.keys} key PRs"]
          for repo, table in repo_panels() for name, engine, size in table],
    ]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", choices=sorted(REPOS), default=REPO,
                        help="whose export the per-week figures are of (its zone unless --tz)")
    parser.add_argument("--data", type=Path, help="an export of --repo (default: its export in ../shared/data)")
    parser.add_argument("--tz")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--quiet", action="store_true", help="only the distribution")
    parser.add_argument("--tuning", action="store_true", help="only the panels' tuning weeks (while tuning)")
    parser.add_argument("--panels", action="store_true", help="only the panels' figures")
    parser.add_argument("--judgements", action="store_true",
                        help="the engine with cargo's changelog and verl's panel as judgements, on later weeks")
    args = parser.parse_args(argv)
    if args.judgements:
        print_judgements()
        return
    if args.panels:
        print_panels(not args.tuning)
        return
    _panel, folder, zone = REPOS[args.repo]
    prs = load(args.data or SHARED / folder / "pulls.jsonl")
    config = with_conventions(repo_config(args.repo, args.tz or zone), prs)
    reports, scoring_time, analysis_time = run(prs, config)
    all_prs = [entry for _, report in reports for entry in report["prs"]]
    if not args.quiet:
        for week, report in reports:
            s = report["stats"]
            print(f"\n== {week.since} – {week.until}: {s['pr_count']} PRs, {s['key_pr_count']} key "
                  f"({100 * s['key_pr_count'] / s['pr_count']:.0f}%), avg importance {s['avg_importance']}, "
                  f"avg insight {s['avg_insight']}, clusters {len(report['clusters'])}, "
                  f"reverts {len(report['reverts'])}")
            for entry in report["prs"][:args.top]:
                print(f"  {entry['importance']:>4} i{entry['insight']:<4} #{entry['number']:<5} {entry['title'][:80]}")
                print(f"        {'; '.join(entry['reasons'])}")
    shares = [r["stats"]["key_pr_count"] / r["stats"]["pr_count"] for _, r in reports]
    typical = [share for (_, r), share in zip(reports, shares, strict=True) if r["stats"]["pr_count"] >= 10]
    print(f"\n== all weeks: {len(reports)} weeks, {len(all_prs)} PRs, key threshold {config.key_threshold}")
    print("importance histogram:")
    print("\n".join(histogram([e["importance"] for e in all_prs])))
    print("insight histogram:")
    print("\n".join(histogram([e["insight"] for e in all_prs])))
    imp = [e["importance"] for e in all_prs]
    print(f"importance mean {statistics.mean(imp):.2f}, median {statistics.median(imp):.1f}, "
          f"stdev {statistics.pstdev(imp):.2f}")
    print(f"key share: overall {sum(e['key'] for e in all_prs) / len(all_prs):.0%}; per week median "
          f"{statistics.median(shares):.0%}; weeks with 10+ PRs: median {statistics.median(typical):.0%}, "
          f"{sum(0.5 <= s <= 0.67 for s in typical)}/{len(typical)} in 50–67%, "
          f"{sum(0.4 <= s <= 0.75 for s in typical)}/{len(typical)} in 40–75%")
    print("types:", dict(Counter(e["type"] for e in all_prs).most_common()))
    print("risk kinds (PRs):", dict(Counter(r["kind"] for e in all_prs for r in e["risks"]).most_common()))
    declared = ("tagged [BREAKING]", "declared breaking", "BREAKING CHANGE")
    inferred = [e for e in all_prs if e["breaking"] and not e["breaking_reason"].startswith(declared)]
    print(f"breaking: {sum(e['breaking'] for e in all_prs)} PRs, {len(inferred)} inferred")
    sizes = [len(c["prs"]) for _, r in reports for c in r["clusters"]]
    chains = {(c["pr"], c["reverts"]): c for _, r in reports for c in r["reverts"]}
    print(f"clusters: {len(sizes)} ({sum(sizes) / max(1, len(all_prs)):.0%} of PRs in one), sizes "
          f"{dict(sorted(Counter(sizes).items()))}; revert chains: {len(chains)}, "
          f"{sum(1 for c in chains.values() if c['reverts'])} linked to the reverted PR, "
          f"{sum(1 for c in chains.values() if c['relanded_by'])} re-landed")
    banned, total, examples = banned_points([ScoredPR.from_dict(e) for _, r in reports for e in r["prs"]])
    print(f"key points: {total}, banned fragments in {banned}" + "".join(f"\n  #{n}: {k}" for n, k in examples))
    print(f"time: scoring {scoring_time:.2f} s ({1000 * scoring_time / len(prs):.2f} ms/PR), "
          f"week analysis {analysis_time:.2f} s for {len(reports)} weeks")
    print_panels(not args.tuning)
    corpus_importance.print_table(held_out=not args.tuning)
    from bench import corpus_types  # reads this module's loaders: imported here, not at the top

    corpus_types.print_table(not args.tuning)


if __name__ == "__main__":
    main()
