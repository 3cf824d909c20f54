"""What the reviews said: reviewers, threads left open at merge, follow-ups promised, review timing.

Contract:

    pr_review(pr, config) -> PrReview | None            per PR, when it is scored (None: no conversation read)
    period_reviews(prs, config, earlier) -> (Reviews | None, {number: [Risk]})   per period, in the analysis
    earlier_facts(prs, config) -> {number: facts}       the comparison periods' PRs, for the history entries

Review text is untrusted, as titles and bodies are: it is only ever quoted (one cleaned sentence, clipped), never
read for a score: `pr_review` runs beside the judgement and its result goes into no rule, so a comment cannot move
importance or insight. People only: bot accounts (config.is_bot, as the contributor lists judge them) and the
author's own reviews are left out.

The period's risks, added to the PRs' own by the analysis:
  unresolved_review  a thread not resolved when the PR merged (outdated ones say so); a thread whose resolution the
                     source could not read (GitHub's REST API has none) is counted as unknown, never a risk
  unreviewed         merged without a review by anyone but its author (self-merged: merged by the author too),
                     only where the repository usually reviews: of the period's other PRs whose conversation was
                     read (bots' aside), at least USUAL_MIN_PRS, and at least USUAL_SHARE of them reviewed
  follow_up          a follow-up promised in review or in the conversation that no later PR of the period has
                     taken up: a later PR that refers to the promising PR, or to the issue or PR the promise names.
                     A promise of the comparison periods still open there (their history entries' `promises`,
                     earlier_facts) is listed as done in the period whose PR takes it up
"""
from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.models import Comment, PullRequest, Risk, ScoredPR
from prhub.core.period import format_timestamp, parse_timestamp
from prhub.core.report import (
    Evidence,
    FollowUp,
    OpenThread,
    Promise,
    PrReview,
    ReviewerCount,
    ReviewMark,
    Reviews,
    Slowest,
    Thread,
    Timing,
)
from prhub.core.text import clean
from prhub.engine import textparse
from prhub.engine.wording import clip

USUAL_MIN_PRS = 3
USUAL_SHARE = 0.5
MAIN_REVIEWERS = 3  # named in the summary, each with at least MAIN_REVIEWER_PRS PRs reviewed
MAIN_REVIEWER_PRS = 2
POINT_CHARS = 160  # a quoted sentence of review text
PROMISES_PER_PR = 3

# Promises to do something later, in English and Chinese; quoted lines (someone else's words) are skipped.
PROMISE = re.compile(
    r"\bfollow[- ]?up\s+(?:pr|pull request|change|patch|commit)s?\b"
    r"|\bin\s+a\s+(?:separate|later|future|subsequent|next|new)\s+(?:pr|pull request|change|patch)\b"
    r"|\b(?:in\s+(?:the\s+)?next|another)\s+(?:pr|pull request)\b"
    r"|\b(?:will|i'?ll|we'?ll|let'?s|can|could|to)\s+(?:fix|address|handle|clean\s+up|do|tackle|revisit|improve|"
    r"update|refactor|support|add)\b(?:\s+\S+){0,5}?\s+(?:later|afterwards|separately|in\s+a\s+follow[- ]?up)\b"
    r"|\b(?:fix|address|handle|revisit)\s+(?:it|this|that|these|them)\s+later\b"
    r"|\btodo\s+after\s+(?:this|it)\s+(?:lands|is\s+merged|merges|goes\s+in)\b"
    r"|\bleave\s+(?:it|this|that)\s+(?:for|to)\s+(?:later|a\s+follow[- ]?up)\b"
    r"|后续\s*(?:的\s*)?(?:PR|pr|提交|版本)?\s*(?:中|里)?\s*再?\s*(?:处理|修复|优化|解决|跟进|补充|完善|修改|支持|改)"
    r"|(?:下一个|下个|之后的?|后面的?|另一个)\s*(?:PR|pr)"
    r"|(?:以后|之后|稍后|后面)再\s*(?:处理|修|改|优化|解决|补|支持)",
    re.IGNORECASE)
SUGGESTION_BLOCK = re.compile(r"```\s*suggestion.*?(?:```|$)", re.DOTALL | re.IGNORECASE)
CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.DOTALL)
QUOTED_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
STATE_RANK = {"CHANGES_REQUESTED": 0, "APPROVED": 1, "COMMENTED": 2, "DISMISSED": 3}


def _prose(body: str) -> str:
    """Review text as plain prose: suggested code, code blocks and quoted lines removed, markup stripped."""
    text = QUOTED_LINE.sub("", CODE_BLOCK.sub(" ", SUGGESTION_BLOCK.sub(" ", body or "")))
    return clean(textparse.plain(text))


def _sentences(body: str) -> list[str]:
    return [s.strip() for s in textparse.SENTENCE_END.split(_prose(body)) if s and s.strip()]


def point(body: str) -> str:
    """A comment's point: its first sentence of prose, cleaned and clipped ("" when it has none, e.g. a bare
    suggested change)."""
    first = next(iter(_sentences(body)), "")
    return clip(first, POINT_CHARS)


def promise(body: str) -> str:
    """The sentence of `body` that promises a follow-up, cleaned and clipped, or ""."""
    found = next((s for s in _sentences(body) if PROMISE.search(s)), "")
    return clip(found, POINT_CHARS)


def _person(login: str, config: RepoConfig) -> bool:
    return bool(login) and login != "ghost" and not config.is_bot(login)


def _hours(start: datetime | None, end: datetime | None) -> float | None:
    if start is None or end is None or end < start:
        return None
    return round((end - start).total_seconds() / 3600, 1)


def _link(url: str, pr: PullRequest) -> str:
    """A comment's link, only where it points into the PR's own page (GitHub's html_url does): an export line could
    give any address."""
    return url if pr.url and url.startswith(f"{pr.url}#") else ""


def _open_threads(pr: PullRequest, config: RepoConfig) -> tuple[list[OpenThread], int]:
    """The threads open at merge or of unknown resolution, and how many were resolved."""
    threads: list[OpenThread] = []
    resolved = 0
    for t in pr.review_threads:
        if t.is_resolved:
            resolved += 1
            continue
        first: Comment | None = next((c for c in t.comments if _person(c.author, config)), None)
        if first is None:
            continue  # a bot's thread (a coverage or lint bot) is no reviewer's concern
        threads.append({"path": clean(t.path), "line": t.line, "resolved": t.is_resolved, "outdated": t.is_outdated,
                        "author": clean(first.author), "text": point(first.body), "url": _link(first.url, pr)})
    return threads, resolved


def _promises(pr: PullRequest, config: RepoConfig) -> list[Promise]:
    """Follow-ups promised in the reviews, the threads and the issue comments, by people, in that order."""
    said: list[tuple[str, str, str]] = [(r.reviewer, r.body, "") for r in pr.reviews]
    said += [(c.author, c.body, c.url) for t in pr.review_threads for c in t.comments]
    said += [(c.author, c.body, c.url) for c in pr.comments]
    found: list[Promise] = []
    for author, body, url in said:
        sentence = promise(body) if _person(author, config) else ""
        if sentence and all(p["text"] != sentence for p in found):
            found.append({"author": clean(author), "text": sentence, "url": _link(url, pr),
                          "refs": textparse.references(sentence, own=pr.number)})
    return found[:PROMISES_PER_PR]


def _first_review(pr: PullRequest, config: RepoConfig) -> datetime | None:
    """When someone other than the author first reviewed or commented on the diff."""
    times = [r.submitted_at for r in pr.reviews if r.reviewer != pr.author and _person(r.reviewer, config)]
    times += [c.created_at for t in pr.review_threads for c in t.comments
              if c.author != pr.author and _person(c.author, config)]
    # A comment dated before the PR was opened (a thread carried over from a draft branch) is no review of it.
    known = [t for t in times if t is not None and (pr.created_at is None or t >= pr.created_at)]
    return min(known) if known else None


def pr_review(pr: PullRequest, config: RepoConfig) -> PrReview | None:
    """What the PR's conversation says, people only; None when its source read no conversation."""
    if not pr.has_conversation:
        return None
    marks = sorted({(r.reviewer, r.state) for r in pr.reviews
                    if r.reviewer != pr.author and _person(r.reviewer, config) and r.state != "PENDING"},
                   key=lambda m: (m[0].lower(), STATE_RANK.get(m[1], 9), m[1]))
    reviews: list[ReviewMark] = [{"login": clean(login), "state": clean(state)} for login, state in marks]
    threads, resolved = _open_threads(pr, config)
    return {"reviews": reviews, "merged_by": clean(pr.merged_by),
            "created_at": format_timestamp(pr.created_at) if pr.created_at else "",
            "hours_to_first_review": _hours(pr.created_at, _first_review(pr, config)),
            "hours_to_merge": _hours(pr.created_at, pr.merged_at),
            "threads": threads, "resolved_threads": resolved, "promises": _promises(pr, config)}


# -- the period --

WORDS = {
    "zh": {"unresolved": "{where} 的审阅意见合并时仍未解决：“{text}”", "outdated": "（该讨论已过时）",
           "more_threads": "；另有 {n} 条未解决", "no_text": "（只有修改建议）",
           "unreviewed": "合并前没有作者以外的人审阅", "self_merged": "作者自行合并，合并前没有作者以外的人审阅",
           "follow_up": "{author} 承诺后续处理：“{text}”", "more_promises": "；另有 {n} 条"},
    "en": {"unresolved": "review thread on {where} unresolved at merge: “{text}”", "outdated": " (outdated)",
           "more_threads": "; {n} more unresolved", "no_text": "(a suggested change)",
           "unreviewed": "merged without a review by anyone but its author",
           "self_merged": "self-merged without a review by anyone but its author",
           "follow_up": "{author} promised a follow-up: “{text}”", "more_promises": "; {n} more"},
}


def _words(config: RepoConfig) -> dict[str, str]:
    return WORDS.get(config.language, WORDS["en"])


def _reviewed(review: PrReview) -> bool:
    return bool(review["reviews"]) or review["hours_to_first_review"] is not None


def _where(t: OpenThread) -> str:
    return f"{t['path']}:{t['line']}" if t["line"] is not None else t["path"] or "?"


def _unresolved_risk(threads: list[OpenThread], words: dict[str, str]) -> Risk:
    first = threads[0]
    detail = words["unresolved"].format(where=_where(first), text=first["text"] or words["no_text"])
    detail += words["outdated"] if first["outdated"] else ""
    if len(threads) > 1:
        detail += words["more_threads"].format(n=len(threads) - 1)
    return Risk("unresolved_review", detail)


def _follow_up_risk(open_ones: list[FollowUp], words: dict[str, str]) -> Risk:
    first = open_ones[0]
    detail = words["follow_up"].format(author=first["author"], text=first["text"])
    if len(open_ones) > 1:
        detail += words["more_promises"].format(n=len(open_ones) - 1)
    return Risk("follow_up", detail)


def _when(p: ScoredPR) -> tuple[datetime, int]:
    return parse_timestamp(p.merged_at), p.number


def _done_by(number: int, promised: Promise, later: Iterable[tuple[int, list[int]]]) -> int | None:
    """The first later PR (number, refs) that refers to the promising PR or to what the promise names."""
    named = set(promised["refs"])  # an issue a later PR closes, or the PR the promise says will do it
    return next((n for n, refs in later if number in refs or named & {*refs, n}), None)


Known = list[tuple[ScoredPR, PrReview]]  # the period's PRs with review data, and it


def _follow_ups(known: Known, prs: list[ScoredPR], earlier: Iterable[dict[str, Any]]) -> list[FollowUp]:
    """The period's promises, taken up or not, then the comparison periods' still-open ones (history entries'
    `promises`, see earlier_facts) that a PR of this period takes up: marked done here, as a revert in one week
    is followed to the PR that re-lands it in another. An earlier promise nobody took up yet is not repeated:
    its own week's report said so."""
    ordered = sorted(prs, key=_when)
    out: list[FollowUp] = []
    for p, review in sorted(known, key=lambda pair: _when(pair[0])):
        later = [(q.number, q.refs) for q in ordered if _when(q) > _when(p)]
        out += [{**promised, "pr": p.number, "done_by": _done_by(p.number, promised, later)}
                for promised in review["promises"]]
    week = {p.number for p in prs}
    for entry in sorted(earlier, key=lambda e: (str(e.get("merged_at")), int(e.get("number") or 0))):
        number = int(entry.get("number") or 0)
        if number in week:
            continue
        for said in entry.get("promises") or []:  # from the run's stored history: read field by field
            promised: Promise = {"author": str(said.get("author") or ""), "text": str(said.get("text") or ""),
                                 "url": str(said.get("url") or ""), "refs": [int(r) for r in said.get("refs") or []]}
            done = _done_by(number, promised, [(q.number, q.refs) for q in ordered])
            if done is not None and promised["text"]:
                out.append({**promised, "pr": number, "done_by": done})
    return out


def earlier_facts(prs: Iterable[PullRequest], config: RepoConfig) -> dict[int, dict[str, Any]]:
    """What a later period's report needs of the comparison periods' conversation, by PR, for the PRs whose
    conversation the source read (the others get nothing, so a report says nothing of them rather than zero):
    `created_at` and `first_review_at` (the timing of the periods before), and `promises` no later PR of those
    periods took up (a PR of the later period may: _follow_ups). Kept in the run's history entries."""
    ordered = sorted(prs, key=lambda p: (p.merged_at, p.number))
    refs = [(q.number, textparse.references(f"{q.title}\n{q.body}", own=q.number)) for q in ordered]
    out: dict[int, dict[str, Any]] = {}
    for i, p in enumerate(ordered):
        if not p.has_conversation:
            continue
        facts: dict[str, Any] = {}
        first = _first_review(p, config)
        if p.created_at is not None:
            facts["created_at"] = format_timestamp(p.created_at)
        if first is not None:
            facts["first_review_at"] = format_timestamp(first)
        later = refs[i + 1:]
        open_ones = [promised for promised in _promises(p, config) if _done_by(p.number, promised, later) is None]
        if open_ones:
            facts["promises"] = open_ones
        if facts:
            out[p.number] = facts
    return out


def _usual(people: Known, but: int | None = None) -> bool:
    """Whether the repository usually reviews, judged from the period's PRs by people other than `but`."""
    others = [review for p, review in people if p.number != but]
    return len(others) >= USUAL_MIN_PRS and sum(map(_reviewed, others)) >= USUAL_SHARE * len(others)


def _reviewer_counts(known: Known) -> list[ReviewerCount]:
    prs: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for _p, review in known:
        prs.update({m["login"] for m in review["reviews"]})
        asked.update({m["login"] for m in review["reviews"] if m["state"] == "CHANGES_REQUESTED"})
    return [{"login": login, "pr_count": n, "changes_requested": asked[login]}
            for login, n in sorted(prs.items(), key=lambda kv: (-kv[1], kv[0].lower()))]


def _figures(values: list[tuple[float, int]]) -> Slowest | None:
    if not values:
        return None
    slowest = max(values, key=lambda v: (v[0], -v[1]))
    return {"median_hours": round(statistics.median(v for v, _ in values), 1), "slowest_hours": slowest[0],
            "slowest_pr": slowest[1], "pr_count": len(values)}


def _earlier_hours(earlier: Iterable[dict[str, Any]], name: str) -> list[float]:
    """Hours from opening to `name` (first_review_at | merged_at) of the comparison periods' PRs, where their
    listing carries both times."""
    out = []
    for entry in earlier:
        try:
            hours = _hours(parse_timestamp(str(entry["created_at"])), parse_timestamp(str(entry[name])))
        except (KeyError, TypeError, ValueError):
            continue
        if hours is not None:
            out.append(hours)
    return out


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _timing(known: Known, earlier: list[dict[str, Any]]) -> Timing:
    first = [(h, p.number) for p, r in known if (h := r["hours_to_first_review"]) is not None]
    merge = [(h, p.number) for p, r in known if (h := r["hours_to_merge"]) is not None]
    before_merge = _earlier_hours(earlier, "merged_at")
    return {"first_review": _figures(first), "merge": _figures(merge),
            "before_first_review_median_hours": _median(_earlier_hours(earlier, "first_review_at")),
            "before_merge_median_hours": _median(before_merge), "before_pr_count": len(before_merge)}


def _unresolved(known: Known, words: dict[str, str], risks: dict[int, list[Risk]]) -> tuple[list[Thread], int]:
    """The threads open at merge (each PR's risk added to `risks`), and how many threads' resolution is unknown."""
    unresolved: list[Thread] = []
    unknown = 0
    for p, review in known:
        open_ones = [t for t in review["threads"] if t["resolved"] is False]
        unknown += sum(1 for t in review["threads"] if t["resolved"] is None)
        unresolved += [{**t, "pr": p.number} for t in open_ones]
        if open_ones:
            risks[p.number].append(_unresolved_risk(open_ones, words))
    return unresolved, unknown


def period_reviews(prs: list[ScoredPR], config: RepoConfig,
                   earlier: list[dict[str, Any]]) -> tuple[Reviews | None, dict[int, list[Risk]]]:
    """The period's reviews and the review risks of its PRs; (None, {}) when no PR has review data.

    `earlier` is the comparison periods' PRs as history entries; those carrying `created_at` (and
    `first_review_at`) give the timing of the periods before."""
    known: Known = sorted(((p, p.review) for p in prs if p.review is not None), key=lambda pair: pair[0].number)
    if not known:
        return None, {}
    words = _words(config)
    risks: dict[int, list[Risk]] = defaultdict(list)
    unresolved, unknown = _unresolved(known, words, risks)
    people = [(p, r) for p, r in known if not config.is_bot(p.author)]  # a bot's PR is merged by rule, not review
    unreviewed = [(p, r) for p, r in people if not _reviewed(r) and _usual(people, but=p.number)]
    self_merged = [p.number for p, r in unreviewed if r["merged_by"] == p.author]
    for p, _r in unreviewed:
        risks[p.number].append(Risk("unreviewed", words["self_merged" if p.number in self_merged else "unreviewed"]))
    follow_ups = _follow_ups(known, prs, earlier)
    for number in sorted({f["pr"] for f in follow_ups}):
        open_ones = [f for f in follow_ups if f["pr"] == number and f["done_by"] is None]
        if open_ones:
            risks[number].append(_follow_up_risk(open_ones, words))
    counts = _reviewer_counts(known)
    reviews: Reviews = {
        "known_count": len(known), "reviewed_count": sum(_reviewed(r) for _p, r in known),
        "usually_reviewed": _usual(people), "reviewers": counts,
        "main_reviewers": [c["login"] for c in counts if c["pr_count"] >= MAIN_REVIEWER_PRS][:MAIN_REVIEWERS],
        "unresolved": unresolved, "unknown_threads": unknown,
        "unreviewed": [p.number for p, _r in unreviewed], "self_merged": self_merged,
        "follow_ups": follow_ups, "timing": _timing(known, earlier),
    }
    return reviews, dict(risks)


# -- what the summary says of them --

def _cited(numbers: list[int], limit: int = 4) -> str:
    return ", ".join(f"#{n}" for n in numbers[:limit]) + (" …" if len(numbers) > limit else "")


def summary_line(reviews: Reviews | None, zh: bool) -> str:
    """The summary's sentence on the period's reviews: how many PRs were reviewed, by whom mostly, what was left
    open at merge and what was merged without review; "" without review data."""
    if not reviews:
        return ""
    counts = {c["login"]: c["pr_count"] for c in reviews["reviewers"]}
    main = reviews["main_reviewers"]
    open_prs = sorted({t["pr"] for t in reviews["unresolved"]})
    unreviewed = reviews["unreviewed"]
    if zh:
        parts = [f"审阅方面，读到审阅记录的 {reviews['known_count']} 个 PR 中 {reviews['reviewed_count']} 个"
                 "经作者以外的人审阅"]
        if main:
            parts.append("主要审阅者是 " + "、".join(f"{m}（{counts[m]} 个 PR）" for m in main))
        if open_prs:
            parts.append(f"合并时仍有 {len(reviews['unresolved'])} 条审阅意见未解决（{_cited(open_prs)}）")
        if unreviewed:
            parts.append(f"{len(unreviewed)} 个 PR 未经审阅合并（{_cited(unreviewed)}）")
        return "；".join(parts) + "。"
    parts = [f"{reviews['reviewed_count']} of the {reviews['known_count']} PRs with a review record were reviewed by "
             "someone other than their author"]
    if main:
        parts.append("mostly by " + ", ".join(f"{m} ({counts[m]} PRs)" for m in main))
    if open_prs:
        n = len(reviews["unresolved"])
        parts.append(f"{n} review thread{'s were' if n != 1 else ' was'} unresolved at merge ({_cited(open_prs)})")
    if unreviewed:
        n = len(unreviewed)
        parts.append(f"{n} PR{'s were' if n != 1 else ' was'} merged without review ({_cited(unreviewed)})")
    return "; ".join(parts) + "."


def comment_fact(pr: int, said: OpenThread | Promise) -> Evidence:
    """The evidence of a sentence standing on a review comment: the PR's `review` field quoted, and the comment's
    link where the source gave one into the PR's page."""
    fact: Evidence = {"pr": pr, "field": "review", "fact": said["text"]}
    if said["url"]:
        fact["url"] = said["url"]
    return fact


def review_risk_facts(kind: str, pr: int, reviews: Reviews | None) -> list[Evidence]:
    """What a risk note on `pr` of a review kind stands on beside the risk: the comment its detail quotes (the
    first open thread's, the first promise still open), as the risk's detail is built from it."""
    if not reviews:
        return []
    if kind == "unresolved_review":
        said: list[OpenThread | Promise] = [t for t in reviews["unresolved"] if t["pr"] == pr]
    elif kind == "follow_up":
        said = [f for f in reviews["follow_ups"] if f["pr"] == pr and f["done_by"] is None]
    else:
        return []
    return [comment_fact(pr, said[0])] if said and said[0]["text"] else []


def summary_facts(reviews: Reviews | None) -> list[Evidence]:
    """What `summary_line` stands on: the period's review counts, and each open thread's comment it points at."""
    if not reviews:
        return []
    facts: list[Evidence] = [{"pr": None, "field": "reviews", "fact": f"reviewed {reviews['reviewed_count']} of "
                                                                       f"{reviews['known_count']}"}]
    facts += [{"pr": None, "field": "reviews", "fact": f"{c['login']} reviewed {c['pr_count']}"}
              for c in reviews["reviewers"] if c["login"] in reviews["main_reviewers"]]
    facts += [comment_fact(t["pr"], t) for t in reviews["unresolved"] if t["text"]]
    facts += [{"pr": n, "field": "risks", "fact": "unreviewed"} for n in reviews["unreviewed"]]
    return facts
