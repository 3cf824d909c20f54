"""report.json (schema prhub.report/1) as types: the report and its parts, with the keys in file order.

A report is built once, by prhub.report.compose.report: prhub.engine.analysis computes the
`Analysis` of the period, compose sets the title and the run's notes, and a
narrator (the engine's, or the model's through prhub.model.narrator) writes the
`Narrative`. Renderers and the site read it and never add to it. The key order
of each TypedDict is the order report.json has always had, so the file stays
byte-identical; docs/reports.md describes every field.
"""
from __future__ import annotations

from typing import Any, NotRequired, TypedDict

SCHEMA = "prhub.report/1"


class Period(TypedDict):
    since: str  # YYYY-MM-DD, inclusive, in tz
    until: str
    tz: str


class Guard(TypedDict):
    """Sentences the fact guard removed from the model's text in a run (prhub.model.factguard.reason_of's reasons)."""
    removed_sentences: int
    by_reason: dict[str, int]  # pr_number | count | number | ratio | date -> sentences
    in_prs: int  # from the PRs' summaries, key points, breaking reasons and risk details
    in_narrative: int


class Cost(TypedDict):
    """What the run's model tokens cost, from a price table (prhub.model.pricing)."""
    usd: float | None  # None: the model is not in the table
    prices_as_of: str  # the date the table's prices were read
    usd_per_million_in: float | None
    usd_per_million_out: float | None


class Scorer(TypedDict):
    """Who wrote what: the per-PR scorer, and (added by the narrator) who wrote each narrative section."""
    kind: str  # llm | heuristic
    model: str | None
    prompt_version: str
    tokens_in: NotRequired[int]
    tokens_out: NotRequired[int]
    llm_prs: NotRequired[int]
    heuristic_prs: NotRequired[int]
    narrative_model: NotRequired[str]
    narrative_by: NotRequired[dict[str, str]]  # section -> llm | heuristic
    narrative_tokens_in: NotRequired[int]
    narrative_tokens_out: NotRequired[int]
    guard: NotRequired[Guard]
    cost: NotRequired[Cost]


class Reviewer(TypedDict):
    login: str
    reviews: int


class BotStats(TypedDict):
    prs: int
    logins: list[str]


class Stats(TypedDict):
    pr_count: int  # merged PRs of the period, scored or not
    unscored_count: NotRequired[int]  # of them, without a result (reports before it counted scored PRs only)
    key_pr_count: int
    avg_importance: float
    avg_insight: float
    additions: int
    deletions: int
    authors: int
    new_contributors: list[str]  # logins first seen this period
    history_since: str  # how far back "new" was judged ("" without history)
    new_contributors_window: int  # weeks the history covers when it is shorter than the newcomer horizon, else 0
    types: dict[str, int]
    reviewers: NotRequired[list[Reviewer]]  # only when reviews are known
    bots: NotRequired[BotStats]  # only when bots merged PRs: their accounts are not among `authors`


class ReviewMark(TypedDict):
    """One person's review of a PR: each state they left it once (APPROVED | CHANGES_REQUESTED | COMMENTED |
    DISMISSED)."""
    login: str
    state: str


class OpenThread(TypedDict):
    """A review thread not resolved when the PR merged (resolved False), or whose resolution the source could not
    read (None: GitHub's REST API has none). `text` is its first comment's point, one cleaned sentence."""
    path: str
    line: int | None
    resolved: bool | None
    outdated: bool
    author: str
    text: str
    url: str


class Promise(TypedDict):
    """A follow-up promised in review or in the conversation ("in a follow-up PR", 后续 PR 再处理): the sentence,
    who wrote it, where, and the PR/issue numbers it names."""
    author: str
    text: str
    url: str
    refs: list[int]


class PrReview(TypedDict):
    """What the PR's conversation says (engine.reviews.pr_review), people only: bots are left out."""
    reviews: list[ReviewMark]  # by login, then state; the author's own reviews left out
    merged_by: str  # "" when the source does not say
    created_at: str  # "" when the source does not say
    hours_to_first_review: float | None  # from opening to the first review or review comment by someone else
    hours_to_merge: float | None
    threads: list[OpenThread]  # the threads open at merge, or of unknown resolution
    resolved_threads: int
    promises: list[Promise]


class PrRisk(TypedDict):
    kind: str
    detail: str


class PrEntry(TypedDict):
    """One scored PR (ScoredPR.pr_entry)."""
    number: int
    title: str
    url: str
    author: str
    merged_at: str
    modules: list[str]
    type: str
    breaking: bool
    breaking_reason: str
    importance: float
    insight: float
    key: bool
    summary: str
    key_points: list[str]
    risks: list[PrRisk]
    additions: int
    deletions: int
    changed_files: int
    scored_by: str
    reasons: list[str]
    reverted_by: NotRequired[int]  # the revert that undid this PR (see reverts[])
    # Model tokens this run spent on the PR (a fallback's too), and their cost at the report's price table; absent
    # when it spent none (the engine's, or a cache hit). cost_usd is None when the model is not in the table.
    tokens_in: NotRequired[int]
    tokens_out: NotRequired[int]
    cost_usd: NotRequired[float | None]
    # Only when the source read the PR's conversation (engine.reviews): the people who reviewed it, and what the
    # conversation says.
    reviewers: NotRequired[list[str]]
    review: NotRequired[PrReview]
    # What the maintainers said of it (issue 27): "key", "minor" or None; absent when the repository has no
    # judgements at all (the report is then as it always was).
    judged: NotRequired[str | None]
    # What the brief says of it, in the report's language (engine.headline): one line, and at most two facts.
    headline: NotRequired[str]
    points: NotRequired[list[str]]
    measured: NotRequired[str]  # the effect its description measured ("Measured: 2.81× faster"), or ""
    released: NotRequired[str]  # what it releases ("Tokio v1.51.0", "svelte 5.56.10"; engine.releases); absent if none


class Module(TypedDict):
    name: str
    pr_count: int
    prs: list[int]
    baseline: float  # average PRs per period over the 4 same-length periods before (weeks before a week)
    delta: float
    trend: str  # rising | fading | steady | new


class HotFile(TypedDict):
    path: str
    pr_count: int
    prs: list[int]


class Cluster(TypedDict):
    title: str
    prs: list[int]
    modules: list[str]
    reason: str


class Revert(TypedDict):
    pr: int  # the revert
    reverts: int | None
    relanded_by: int | None  # the PR that brings the change back, however (relanded_how)
    title: str
    relanded_how: NotRequired[str]  # reland (merged again, same title) | refix (fixed again, found by reference/files)


class RiskItem(TypedDict):
    pr: int
    detail: str


class RiskGroup(TypedDict):
    kind: str
    prs: list[int]
    detail: str
    items: list[RiskItem]


class TrendWeek(TypedDict):
    since: str
    until: str
    pr_count: int


class Trends(TypedDict):
    weeks: list[TrendWeek]  # the 4 same-length periods before (Period.previous), then this one


class ReviewerCount(TypedDict):
    login: str
    pr_count: int  # PRs of the period they reviewed
    changes_requested: int  # of them, PRs where they requested changes


class Thread(OpenThread):
    pr: int


class FollowUp(Promise):
    pr: int
    done_by: int | None  # a later PR that refers to the promising PR or to what the promise names


class Slowest(TypedDict):
    median_hours: float
    slowest_hours: float
    slowest_pr: int
    pr_count: int  # the PRs the figures are of


class Timing(TypedDict):
    """Review timing of the period's PRs, and of the comparison periods before (trends.weeks's) where their
    listing carries the times (`prs` 0 and the figures None otherwise)."""
    first_review: Slowest | None  # opening to the first review by someone else; None when no PR has both times
    merge: Slowest | None  # opening to merge
    before_first_review_median_hours: float | None
    before_merge_median_hours: float | None
    before_pr_count: int


class Reviews(TypedDict):
    """The period's reviews (engine.reviews.period_reviews); absent when no PR of the period has review data."""
    known_count: int  # PRs whose conversation the source read
    reviewed_count: int  # of them, reviewed by someone other than their author
    usually_reviewed: bool  # whether `unreviewed` is judged at all (docs/reports.md gives the rule)
    reviewers: list[ReviewerCount]  # most PRs first
    main_reviewers: list[str]
    unresolved: list[Thread]  # open at merge (resolved False)
    unknown_threads: int  # threads whose resolution the source could not read (REST): no risk is claimed
    unreviewed: list[int]  # merged without review, where the repository usually reviews
    self_merged: list[int]  # of them, merged by their own author
    follow_ups: list[FollowUp]
    timing: Timing


class Unscored(TypedDict):
    number: int
    title: str
    url: str
    reason: str


class Evidence(TypedDict):
    """A fact an engine sentence stands on (docs/reports.md): which PR (None: a fact of the period), which field
    of it (title | body | summary | breaking_reason | importance | risks | clusters | modules | reverts | stats |
    review | reviews) and what that field says; a `review` fact (what a review comment said) links the comment.
    The fact guard (prhub.model.factguard.check_narrative) finds a PR's title, body (its summary or key points),
    summary, breaking_reason, risks and review facts in that PR's entry."""
    pr: int | None
    field: str
    fact: str
    url: NotRequired[str]  # a `review` fact's comment on GitHub (the thread's first comment, the promise's)


class Note(TypedDict):
    """A narrative observation and the PRs it is about; the engine's carry their evidence (the model's do not)."""
    text: str
    prs: list[int]
    evidence: NotRequired[list[Evidence]]
    # A highlight's subsystem, as its text opens ("实验特性：…"): the renderers list a theme's subjects under it once.
    theme: NotRequired[str]


class KeyChange(TypedDict):
    theme: str
    text: str
    prs: list[int]
    evidence: NotRequired[list[Evidence]]


class Narrative(TypedDict):
    """The sections a narrator writes (prhub.engine.narrative.engine_narrative,
    prhub.model.narrator.model_narrative)."""
    summary: str  # paragraphs separated by a blank line
    highlights: list[Note]
    key_changes: list[KeyChange]
    trend_notes: list[Note]
    risk_notes: list[Note]
    relation_notes: list[Note]
    suggestions: list[str]


class Narration(Narrative):
    """A narrator's answer: the narrative, and the report's scorer and notes as they read after writing it (and
    its PRs, priced, once prhub.report.compose.accounted has accounted for the run's cost)."""
    scorer: Scorer
    notes: list[str]
    prs: NotRequired[list[PrEntry]]
    summary_evidence: NotRequired[list[Evidence]]  # when the engine wrote the summary


class Slice(TypedDict):
    """What a report narrowed to paths covers (prhub.sources.scope); `name` "" when it is the repository's own
    report."""
    name: str
    paths: list[str]


class Analysis(TypedDict):
    """What prhub.engine.analysis.analyse_period computes; the narrative slots stay empty (they keep their place)."""
    schema: str
    repo: str
    slice: NotRequired[Slice]  # only with `paths`: after repo
    period: Period
    generated_at: str
    language: str  # zh | en
    scorer: Scorer
    stats: Stats
    prs: list[PrEntry]  # by importance (desc), then number
    modules: list[Module]
    hot_files: list[HotFile]
    clusters: list[Cluster]
    reverts: list[Revert]
    risks: list[RiskGroup]  # one per kind, in prhub.engine.risks.KINDS order
    highlights: list[Note]
    key_changes: list[KeyChange]
    trends: Trends
    summary: str
    suggestions: list[str]
    unscored: list[Unscored]
    notes: list[str]
    reviews: NotRequired[Reviews]  # only when the period has review data, so older reports stay as they were


class Changes(TypedDict):
    """What a revision changed: the PRs that had no result when the revision before it was published."""
    since: str  # when the revision before was published
    scored: list[int]  # scored since (now among prs[])
    failed: list[int]  # recorded as failed since (still among unscored[], with the reason)
    judged: NotRequired[list[int]]  # corrected by the maintainers since (prhub judge); absent when none


class Report(Analysis):
    """report.json: the analysis, its title, and the narrative (the rest of its sections); a revision (a report
    made again at the same URL because results arrived after it was published) says which and what changed."""
    title: str
    trend_notes: list[Note]
    risk_notes: list[Note]
    relation_notes: list[Note]
    revision: NotRequired[int]  # 2, 3, ...: absent in the first publication (revision 1)
    changes: NotRequired[Changes]  # with revision
    # The facts the engine's summary stands on (prhub.engine.summary.evidence); absent when a model wrote
    # the summary. The list sections' items carry theirs in their own `evidence`.
    summary_evidence: NotRequired[list[Evidence]]
    # What the repository's judgements taught the engine (prhub.engine.learning.Learned.to_dict(): judgements,
    # adjusted, outcome, weights in points, penalty, held_out); absent without judgements (issue 27).
    learning: NotRequired[dict[str, Any]]
