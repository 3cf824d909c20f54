"""The period's analysis: from scored PRs to the facts of the report (prhub.core.report.Analysis).

Contract:

    analyse_period(prs, unscored, period, config, history, generated_at, scorer) -> Analysis

`prs` are this period's scored PRs; `unscored` lists {number, title, url, reason}
for PRs that could not be scored; `history` is every PR known from the stored
history as dicts {number, title, author, merged_at, url, modules?} — it includes
this period's PRs and at least the 4 same-length periods before it
(`Period.previous(4)`: the weeks before a week, the months before a month; listing
only: modules then come from the title). Same input, same output: every list has a
total order.

What it computes: stats; module trends against those 4 periods (a module with a
baseline but no PR this period is listed with pr_count 0, fading); hot files
(changed by 2+ PRs, lock and generated files ignored, top 10); clusters of PRs
working on the same subject (`_clusters`), named after their lead PR under its subsystem; revert chains, found through
`history` so they reach across weeks, with the PR that re-lands or re-fixes the
change (the reverted PR's `prs[]` entry gets `reverted_by`); risks, one entry per
kind. The narrative slots stay empty: the
title, the run's notes and the narrative are prhub.report.compose's.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol

from prhub.core.config import RepoConfig
from prhub.core.models import NO_AUTHOR, ScoredPR
from prhub.core.period import Period, parse_timestamp, zone
from prhub.core.report import (
    SCHEMA,
    Analysis,
    Cluster,
    HotFile,
    Module,
    PrEntry,
    Revert,
    RiskGroup,
    RiskItem,
    Scorer,
    Stats,
    TrendWeek,
    Unscored,
)
from prhub.engine import gist, headline, reviews
from prhub.engine.changes import file_kind, is_generated
from prhub.engine.classify import layout_module
from prhub.engine.risks import KINDS
from prhub.engine.scoring import PR_SUFFIX, REVERT_TITLE, modules_from_title, parse_title, reverted_ref
from prhub.engine.textparse import IDENTIFIER
from prhub.engine.wording import clip, joined, say

TREND_WEEKS = 4
HOT_FILES = 10
MAX_CLUSTER = 6  # a "related PRs" group larger than this is a theme, which modules[] already shows
HISTORY_FOR_NEWCOMERS_DAYS = 180  # shorter history than this: say how far "first-time" looks back
STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "with", "without", "by", "from", "via", "as",
    "at", "is", "are", "be", "when", "if", "into", "not", "no", "use", "using", "support", "supports", "add",
    "adds", "added", "fix", "fixes", "fixed", "update", "updates", "updated", "remove", "removes", "make", "makes",
    "new", "more", "some", "all", "its", "it", "this", "that", "default", "issue", "bug", "refactor", "feat",
    "chore", "docs", "doc", "test", "tests", "ci", "perf", "misc", "enable", "enables", "allow", "allows", "change",
    "changes", "improve", "improves", "introduce", "v1", "v2", "code", "file", "files", "run", "running", "error",
    "errors", "case", "cases", "option", "options"
})


class PriorRecord(Protocol):
    """The repository's record before a period, as the analysis reads it (prhub.sources.source.History is one):
    the comparison periods' PRs as history entries, each earlier author's first merge by lower-case login, and
    the earliest merge the source sees ("" when it sees the whole repository)."""

    @property
    def earlier(self) -> list[dict[str, Any]]: ...

    @property
    def first_merged(self) -> dict[str, str]: ...

    @property
    def reach(self) -> str: ...


RELAND = re.compile(r"^\s*(re-?land(?:ed|ing)?|re-?apply|re-?submit)\b\s*[:：]?\s*", re.IGNORECASE)


@lru_cache(maxsize=65536)
def _norm_title(title: str) -> str:
    """A title reduced to what identifies the change: no Revert/reland wrapper, tags, type or (#N) suffix."""
    text = title.strip()
    for _ in range(3):
        match = REVERT_TITLE.match(text) or REVERT_TITLE.match(parse_title(text)[0])
        if match:
            text = match.group(1)
        text = RELAND.sub("", parse_title(text)[0])
    text = re.sub(r"\s*\(#\d+\)\s*$", "", text)
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@lru_cache(maxsize=65536)
def _is_revert(title: str) -> bool:
    return bool(REVERT_TITLE.match(title) or REVERT_TITLE.match(parse_title(title)[0]))


def _when(entry: dict[str, Any]) -> datetime:
    return _timestamp(str(entry["merged_at"]))


@lru_cache(maxsize=65536)
def _timestamp(value: str) -> datetime:
    return parse_timestamp(value)


def _known(prs: list[ScoredPR], history: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Every PR known, by number: history first, this week's scored facts over it."""
    known: dict[int, dict[str, Any]] = {}
    for entry in history:
        try:
            known[int(entry["number"])] = {**entry, "number": int(entry["number"])}
        except (KeyError, TypeError, ValueError):
            continue
    for p in prs:
        known[p.number] = {"number": p.number, "title": p.title, "author": p.author, "merged_at": p.merged_at,
                           "url": p.url, "modules": p.modules, "reverts": p.reverts}
    return known


def _revert_chains(prs: list[ScoredPR], known: dict[int, dict[str, Any]]) -> list[Revert]:
    """Each revert touching this period (the revert, the reverted PR or what re-lands it merged in it).

    What brings the change back: a later PR of the same title (a re-land); else a later PR of the period that
    refers to the revert or the reverted PR in its title or body, or changes again every file the reverted
    change touched, in one of its modules (a re-fix, as #6265 re-fixes what #6258 reverted of #6226).
    """
    week = {p.number for p in prs}
    ordered = sorted(known.values(), key=lambda e: (_when(e), e["number"]))
    by_title: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in ordered:
        by_title[_norm_title(str(entry["title"]))].append(entry)
    chains: list[Revert] = []
    for entry in ordered:
        if not _is_revert(str(entry["title"])) and not entry.get("reverts"):
            continue
        target = _revert_target(entry, known, by_title)
        back, how = _brought_back(entry, target, by_title, prs)
        if {entry["number"], target["number"] if target else None, back} & week:
            chain: Revert = {"pr": entry["number"], "reverts": target["number"] if target else entry.get("reverts"),
                             "relanded_by": back,
                             "title": str(target["title"]) if target else _norm_title(str(entry["title"]))}
            if how:
                chain["relanded_how"] = how
            chains.append(chain)
    return chains


def _revert_target(entry: dict[str, Any], known: dict[int, dict[str, Any]],
                   by_title: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """The PR a revert undoes, or None when no known PR is it."""
    # A scored revert knows its target from the body; a listing-only one has its title: match the
    # reverted title first, the title's (#N) suffix last (it may name a PR the reverted one referred to).
    target = known.get(int(entry["reverts"])) if entry.get("reverts") else None
    if target is not None:
        return target
    moment = _when(entry)
    earlier = [e for e in by_title.get(_norm_title(str(entry["title"])), [])
               if _when(e) <= moment and e["number"] != entry["number"] and not _is_revert(str(e["title"]))]
    if earlier:
        return earlier[-1]
    number = reverted_ref(parse_title(str(entry["title"]))[0])[0]
    return known.get(number) if number else None


def _brought_back(entry: dict[str, Any], target: dict[str, Any] | None, by_title: dict[str, list[dict[str, Any]]],
                  prs: list[ScoredPR]) -> tuple[int | None, str]:
    """The PR that brings a reverted change back and how ("reland" or "refix"), else (None, "")."""
    moment = _when(entry)
    key = _norm_title(str(target["title"])) if target is not None else _norm_title(str(entry["title"]))
    later = [e for e in by_title.get(key, []) if (_when(e), e["number"]) > (moment, entry["number"])
             and not _is_revert(str(e["title"]))]
    if later:
        return later[0]["number"], "reland"
    back = _refix(entry["number"], target["number"] if target else None, moment, prs)
    return back, "refix" if back else ""


def _refix(revert: int, reverted: int | None, moment: datetime, prs: list[ScoredPR]) -> int | None:
    """The first PR of the period merged after `revert` that fixes the reverted change again, or None."""
    scored = {p.number: p for p in prs}
    undone = {revert} | ({reverted} if reverted else set())
    source = scored.get(reverted or 0) or scored.get(revert)  # a revert touches the files it reverts
    files = {f for f in source.files if not is_generated(f)} if source else set()
    modules = set(source.modules) if source else set()
    after = sorted((p for p in prs if (_timestamp(p.merged_at), p.number) > (moment, revert)
                    and p.number not in undone and not _is_revert(p.title)),
                   key=lambda p: (_timestamp(p.merged_at), p.number))
    named = next((p.number for p in after if undone & set(p.refs)), None)
    if named is not None:
        return named
    return next((p.number for p in after if files and files <= set(p.files) and modules & set(p.modules)), None)


def _terms(title: str) -> set[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.+-]{2,}|[\u4e00-\u9fff]{2,}", parse_title(title)[0].lower())
    return {w.strip(".-+") for w in words if w.strip(".-+") not in STOPWORDS}


# Names every codebase mentions in passing, which say nothing about a PR's subject: the language's exceptions and
# warnings, attribute access on `self`, and the standard and ubiquitous libraries' namespaces.
GENERIC_NAME = re.compile(r"\w*(?:error|exception|warning)|(?:torch|np|numpy|os|sys|ray|re|json|math|typing|"
                          r"logging|time|pathlib|collections|functools|std)\..*")


def _names(pr: ScoredPR) -> tuple[set[str], set[str]]:
    """The identifiers, config keys and flags the PR names (`reward_model.enable`, `RewardModelConfig`, `--flag`):
    (those of its title and summary, what it says it is about; those of its key points too)."""
    headline = set(_identifiers(f"{parse_title(pr.title)[0]} {pr.summary}"))
    return headline, headline | _identifiers(" ".join(pr.key_points))


@lru_cache(maxsize=65536)
def _identifiers(text: str) -> frozenset[str]:
    names: set[str] = set()
    for found in IDENTIFIER.findall(text):
        name = re.sub(r"^(?:self|cls)\.", "", found).strip("._")
        name = re.sub(r"\.__\w+$", "", name)
        # Still an identifier once `self.` is gone (`self.trainer` is the word "trainer"), not a file name, not
        # a product's spelling (vLLM), nor a versioned model family (qwen3.5 names every Qwen3.5 script).
        if (len(name) >= 4 and "://" not in name and not name[:1].isdigit()
                and re.search(r"[_.]|[a-z][A-Z]+[a-z]|^--", name) and not re.fullmatch(r"[\w]+\.(?:py|rs|md|sh)", name)
                and not GENERIC_NAME.fullmatch(name.lower()) and not re.search(r"\d\.\d", name)):
            names.add(name.lower())
    return frozenset(names)


# Past this many PRs a file or title term is too common to say two PRs belong together (weeks up to 320 PRs
# never reach it; a year of a busy repository does).
MAX_RARE_USERS = 40
REFERENCE_LINK = 100.0  # a reference or a revert chain: stronger than any shared file or term
# Files that gather unrelated work whoever touches them: package and crate roots, build manifests, test set-up.
HUB_NAMES = frozenset({"__init__.py", "mod.rs", "lib.rs", "main.rs", "setup.py", "conftest.py", "build.rs"})
SUBSTANCE = 0.25  # shared files are a PR's substance when they hold at least this share of its code lines


def _file_users(prs: list[ScoredPR]) -> dict[str, set[int]]:
    """The PRs changing each file, generated files aside."""
    users: dict[str, set[int]] = defaultdict(set)
    for p in prs:
        for path in p.files:
            if not is_generated(path):
                users[path].add(p.number)
    return users


def _code_lines(pr: ScoredPR, test_paths: tuple[str, ...]) -> dict[str, int]:
    """The PR's source and test files (generated and hub files aside) with the lines it changed in each (1 each
    for results stored without per-file lines)."""
    lines = pr.file_lines if len(pr.file_lines) == len(pr.files) else [[1, 0]] * len(pr.files)
    return {path: max(1, sum(counts)) for path, counts in zip(pr.files, lines, strict=True)
            if file_kind(path, test_paths) in ("source", "test") and not is_generated(path)
            and path.rsplit("/", 1)[-1] not in HUB_NAMES}


def _docs_only(pr: ScoredPR, test_paths: tuple[str, ...]) -> bool:
    return pr.type == "docs" or bool(pr.files) and all(file_kind(f, test_paths) == "docs" for f in pr.files)


@dataclass(frozen=True)
class _Vocabulary:
    """The files and title terms of the period with the PRs using each, and which are rare enough to link PRs."""

    file_users: dict[str, set[int]]
    terms: dict[int, set[str]]  # each PR's title words and names: what it works on
    names: dict[int, set[str]]  # of them, the identifiers, config keys and flags
    headline: dict[int, set[str]]  # of those, the ones the title and summary name
    term_users: Counter[str]
    common: int  # used by more PRs than this, a file or term says nothing about relatedness
    few: int  # changed by more PRs than this, a file is a hub of the period (a central trainer), no one's substance
    rare_term_users: dict[str, set[int]]
    code: dict[int, dict[str, int]]  # each PR's source and test files with their changed lines
    docs_only: frozenset[int]
    declared: dict[int, frozenset[str]]  # the modules each PR's title names (tags, a conventional scope)
    piece_users: Counter[str]  # the PRs whose title has each word (_pieces)

    def partners(self, pr: ScoredPR) -> set[int]:
        """The PRs sharing a rare title term or name with `pr`, or two of its rare source or test files (itself
        included): no link needs less, and one shared file is what most pairs a busy period brings together."""
        on_files: Counter[int] = Counter()
        for f in self.code[pr.number]:
            if len(self.file_users[f]) <= self.few:
                on_files.update(self.file_users[f])
        partners = {n for n, shared in on_files.items() if shared >= 2}
        for t in self.terms[pr.number]:
            partners |= self.rare_term_users.get(t, set())
        return partners

    def rare(self, term: str) -> bool:
        return self.term_users[term] <= self.common


def _vocabulary(prs: list[ScoredPR], test_paths: tuple[str, ...] = ()) -> _Vocabulary:
    file_users = _file_users(prs)
    headline, names = {}, {}
    for p in prs:
        headline[p.number], names[p.number] = _names(p)
    terms = {p.number: _terms(p.title) | names[p.number] for p in prs}
    term_users: Counter[str] = Counter(t for ts in terms.values() for t in ts)
    # A file or term most of the week touches (the trainer entry point, "rollout") says nothing about relatedness.
    # The absolute cap keeps a long range linear: each PR then has a bounded number of link partners.
    common = max(3, min(len(prs) // 8, MAX_RARE_USERS))
    rare_term_users: dict[str, set[int]] = defaultdict(set)
    for n, ts in terms.items():
        for t in ts:
            if term_users[t] <= common:
                rare_term_users[t].add(n)
    return _Vocabulary(file_users, terms, names, headline, term_users, common, max(3, common // 2),
                       rare_term_users,
                       {p.number: _code_lines(p, test_paths) for p in prs},
                       frozenset(p.number for p in prs if _docs_only(p, test_paths)),
                       {p.number: _declared(p.title) for p in prs},
                       Counter(w for p in prs for w in _pieces(p.title)))


@lru_cache(maxsize=65536)
def _declared(title: str) -> frozenset[str]:
    """The modules a title names: its tags (`[tool, data]`) or conventional scope (`fix(diag):`)."""
    scope = parse_title(title)[2]
    return frozenset(modules_from_title(title)) | {s.strip() for s in re.split(r"[,/]", scope or "") if s.strip()}


def _clusters(prs: list[ScoredPR], reverts: list[Revert], config: RepoConfig) -> list[Cluster]:
    """Groups of PRs working on the same subject, joined strongest link first and at most MAX_CLUSTER PRs each.

    Links (issue 45): a reference the two PRs' work bears out, or a revert chain; a specific name both work on
    (an identifier, config key or flag few PRs of the period name); two rare title words within a module or a
    file; or several files few PRs touch that are the substance of both, within a module or with a rare word.
    One shared file or one title word never links, nor does a docs-only PR link to code but by a reference.
    Joining strongest first with a size cap keeps one busy file from chaining half the week into one "cluster",
    and two groups joined by one weak link must be knit closer than that (_join). Clusters with a key PR come
    first, the one whose lead matters most first: a cluster with no key PR is no key change.
    """
    by_number = {p.number: p for p in prs}
    words = _vocabulary(prs, config.test_paths)
    edges = _reference_links(prs, reverts, by_number, words)
    edges.update(_shared_work_links(prs, words, skip=set(edges)))
    groups = _join(sorted(by_number), edges)
    clusters = [_describe_cluster(members, by_number, words.terms, config) for members in groups if len(members) >= 2]
    return sorted(clusters, key=lambda c: _cluster_rank(c, by_number))


def _cluster_rank(cluster: Cluster, by_number: dict[int, ScoredPR]) -> tuple[bool, float, int, int]:
    """Clusters with a key PR first, by their lead's importance, then by size."""
    lead = by_number[_lead_of(cluster["prs"], by_number)]
    return (not lead.key, -lead.importance, -len(cluster["prs"]), cluster["prs"][0])


def _lead_of(members: list[int], by_number: dict[int, ScoredPR]) -> int:
    """The member a cluster is named and led by: its most important key PR that is not a revert, else its most
    important member that is not a revert."""
    standing = [n for n in members if not _is_revert(by_number[n].title)] or members
    keyed = [n for n in standing if by_number[n].key] or standing
    return max(keyed, key=lambda n: (by_number[n].importance, -n))


def _reference_links(prs: list[ScoredPR], reverts: list[Revert], by_number: dict[int, ScoredPR],
                     words: _Vocabulary) -> dict[tuple[int, int], float]:
    """The pairs a revert chain or a borne-out reference joins, at full strength."""
    edges: dict[tuple[int, int], float] = {}
    for p in prs:
        for ref in p.refs + ([p.reverts] if p.reverts else []):
            if ref in by_number and ref != p.number and (ref == p.reverts or _borne_out(p, by_number[ref], words)):
                edges[(min(p.number, ref), max(p.number, ref))] = REFERENCE_LINK
    for chain in reverts:
        linked = sorted(n for n in (chain["pr"], chain["reverts"], chain["relanded_by"]) if n in by_number)
        for a, b in zip(linked, linked[1:], strict=False):
            edges[(a, b)] = REFERENCE_LINK
    return edges


def _borne_out(pa: ScoredPR, pb: ScoredPR, words: _Vocabulary) -> bool:
    """Whether a reference between two PRs is to shared work: they share a module, a file, a rare term or a rare
    word of their titles (`build-dir` in the docs of `build.build-dir`). A mention in passing ("pre-commit fails
    on main from #7300") joins a doc note to nothing it shares."""
    return bool(set(pa.modules) & set(pb.modules) or set(words.code[pa.number]) & set(words.code[pb.number])
                or any(words.rare(t) for t in words.terms[pa.number] & words.terms[pb.number])
                or any(words.piece_users[w] <= words.common for w in _pieces(pa.title) & _pieces(pb.title)))


@lru_cache(maxsize=65536)
def _pieces(title: str) -> frozenset[str]:
    """The words of a title's description, identifiers split (`redundant_homepage` is redundant and homepage)."""
    return frozenset(w for w in re.findall(r"[a-z]{4,}", parse_title(title)[0].lower()) if w not in STOPWORDS)


def _shared_work_links(prs: list[ScoredPR], words: _Vocabulary,
                       skip: set[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """The pairs (not in `skip`) whose rare names, title words and files say they are one piece of work."""
    # Every link needs a file or a term that few PRs share, so only PRs sharing one can link: asking the
    # inverted indexes for those partners, instead of comparing all n^2 pairs, keeps a big period near linear.
    by_number = {p.number: p for p in prs}
    edges: dict[tuple[int, int], float] = {}
    for a in sorted(by_number):
        pa = by_number[a]
        for b in sorted(n for n in words.partners(pa) if n > a):
            if (a, b) in skip:
                continue
            strength = _link_strength(pa, by_number[b], words)
            if strength is not None:
                edges[(a, b)] = strength
    return edges


def _link_strength(pa: ScoredPR, pb: ScoredPR, words: _Vocabulary) -> float | None:
    """How strongly two PRs share a subject; None when what they share is no subject."""
    a, b = pa.number, pb.number
    if (a in words.docs_only) != (b in words.docs_only):
        return None  # a doc note about X joins a docs group or a PR it refers to, not the fix of X
    rare_terms = {t for t in words.terms[a] & words.terms[b] if words.term_users[t] <= words.common}
    code_a, code_b = words.code[a], words.code[b]
    files = {f for f in code_a.keys() & code_b.keys() if len(words.file_users[f]) <= words.few}
    if not rare_terms and len(files) < 2:
        return None  # most pairs a rare file brings together share nothing else: every rule below needs more
    shared_modules = set(pa.modules) & set(pb.modules)
    names = rare_terms & (words.names[a] | words.names[b]) - set(pa.modules) - set(pb.modules)
    plain = rare_terms - names - set(pa.modules) - set(pb.modules)  # a module's name is no subject of its own
    substance = len(files) >= 2 and all(sum(code[f] for f in files) >= SUBSTANCE * sum(code.values())
                                        for code in (code_a, code_b))
    # A name both are about (their titles or summaries name it) is their subject; one only one of them is about,
    # or two they mention, within a module or a file they share. Names mentioned in passing (`replica_rank` in a
    # profiling guard and in an IPC path fix, cargo's `GlobalContext`) are no subject.
    about = names & (words.headline[a] | words.headline[b])
    named = bool(names & words.headline[a] & words.headline[b]) or bool(
        (shared_modules or files) and (about or len(names) >= 2))
    # Files are a subject when the titles say the same module too: a sweep over every trainer (autocast, a model
    # card) shares their files with any other sweep, and a layout module says no more than the files do.
    declared = words.declared[a] & words.declared[b]
    if not (named or (len(plain) >= 2 and (shared_modules or files))
            or (substance and (declared or plain))):
        return None
    # Rarer files and terms weigh more: two PRs alone on a file are likelier one piece of work.
    return (sum(2.0 / (len(words.file_users[f]) - 1) for f in files)
            + sum(1.0 / words.term_users[t] for t in rare_terms) + 0.5 * bool(shared_modules))


def _join(numbers: list[int], edges: dict[tuple[int, int], float]) -> list[list[int]]:
    """The groups the links make, joined strongest first (union-find), a join past MAX_CLUSTER PRs refused.

    Two groups of 2+ PRs that one weaker-than-reference link meets join only when every PR of the smaller one
    links into the other: a chain (a vLLM retirement, a fix mentioning its class, the PD work using it) is not
    one subject end to end."""
    parent = {n: n for n in numbers}
    members = {n: [n] for n in numbers}
    neighbours: dict[int, set[int]] = defaultdict(set)
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for (a, b), strength in sorted(edges.items(), key=lambda kv: (-kv[1], kv[0])):
        ra, rb = find(a), find(b)
        if ra == rb or len(members[ra]) + len(members[rb]) > MAX_CLUSTER:
            continue
        small, large = sorted((members[ra], members[rb]), key=len)
        if strength < REFERENCE_LINK and len(small) >= 2 and not all(neighbours[n] & set(large) for n in small):
            continue
        root, child = min(ra, rb), max(ra, rb)
        parent[child] = root
        members[root] += members.pop(child)
    groups: dict[int, list[int]] = defaultdict(list)
    for n in numbers:
        groups[find(n)].append(n)
    return list(groups.values())


def _clip(text: str, limit: int) -> str:
    return clip(text, limit)  # a heading never cuts a word


def _describe_cluster(members: list[int], by_number: dict[int, ScoredPR], terms: dict[int, set[str]],
                      config: RepoConfig) -> Cluster:
    """The cluster named after its lead: the most important member that is not a revert, under its subsystem.

    Named by what the lead does ("rollout: enable Async RL for trtllm rollout", in zh "rollout：启用 Async RL，
    用于 trtllm rollout"), not by a list of shared title words, and under the subsystem the work is in: the
    lead's module when the members' paths bear it out, else the part of the repository their files are in.
    """
    language = config.language
    modules = Counter(m for n in members for m in by_number[n].modules)
    ranked = sorted(modules.items(), key=lambda kv: (-kv[1], kv[0]))
    top_modules = [m for i, (m, c) in enumerate(ranked[:2]) if i == 0 or c >= 2]  # a second module if it recurs
    head = _subsystem(members, by_number, top_modules, config)
    return {"title": _cluster_title(members, by_number, head, language), "prs": sorted(members),
            "modules": top_modules,
            "reason": _cluster_reason(members, by_number, terms, set(modules), language)}


def _subsystem(members: list[int], by_number: dict[int, ScoredPR], top_modules: list[str], config: RepoConfig) -> str:
    """The part of the repository a cluster works on: the lead's first module a member's path or its kind names
    (`ckpt` in verl/checkpoint_engine/), else the folder most of the members' source is in (a `[tool]` tag on
    verl/utils/memory_utils.py is utils work); the tag still when that folder is only the repository's top."""
    best = by_number[_lead_of(members, by_number)]
    tags = list(dict.fromkeys([*best.modules, *top_modules]))
    tag = tags[0] if tags else "misc"
    paths = [f for n in members for f in by_number[n].files if not is_generated(f)]
    source = [f for f in paths if file_kind(f, config.test_paths) == "source"] or paths
    if not source:
        return tag
    # A path names the module (verl/workers/rollout/ for [rollout]), or its kind does ([ci] on a workflow).
    kinds = {file_kind(f, config.test_paths) for f in paths}
    borne = next((t for t in tags if any(_bears(t, f) for f in paths) or any(_abbreviates(t, k) for k in kinds)),
                 None)
    if borne:
        return borne
    layout = Counter(layout_module(f, config.name) for f in source)
    folder = min(layout, key=lambda name: (-layout[name], name))
    return tag if folder in ("root", config.name) else folder


@lru_cache(maxsize=65536)
def _bears(tag: str, path: str) -> bool:
    """Whether a component of `path` is the module `tag` names."""
    return any(_abbreviates(tag, part) for part in re.split(r"[/.]", path))


def _abbreviates(tag: str, part: str) -> bool:
    """Whether a module tag names a path component: the same word, one inside the other, or an abbreviation
    (its letters in order from the same first letter: ckpt for checkpoint_engine, cfg for config)."""
    tag, part = re.sub(r"[\W_]", "", tag.lower()), re.sub(r"[\W_]", "", part.lower())
    if not tag or not part:
        return False
    if tag in part or (len(part) >= 3 and part in tag):
        return True
    letters = iter(part)
    return tag[0] == part[0] and all(ch in letters for ch in tag)


def _cluster_title(members: list[int], by_number: dict[int, ScoredPR], head: str, language: str) -> str:
    """"subsystem: what the lead does", the lead the most important member that is not a revert."""
    best = by_number[_lead_of(members, by_number)]
    lead = PR_SUFFIX.sub("", parse_title(best.title)[0] or best.title)
    if language == "zh":
        return f"{head}：{_clip(gist.heading(lead, best.type), 60)}"
    return f"{head}: {_clip(lead, 60)}"


def _cluster_reason(members: list[int], by_number: dict[int, ScoredPR], terms: dict[int, set[str]],
                    modules: set[str], language: str) -> str:
    """What the members share: references between them, files, title terms (module names aside)."""
    shared_terms = [t for t, c in Counter(t for n in members for t in terms[n] if t not in modules).items() if c >= 2]
    files = Counter(f for n in members for f in by_number[n].files)
    shared_files = sorted(f for f, c in files.items() if c >= 2)
    why = []
    if any(r in members for n in members for r in by_number[n].refs):
        why.append(say(language, "cluster_refs"))
    if shared_files:
        why.append(say(language, "cluster_file" if len(shared_files) == 1 else "cluster_files", n=len(shared_files)))
    if shared_terms:
        why.append(say(language, "cluster_terms"))
    return joined(language, why, "comma") or say(language, "cluster_related")


def _module_trends(prs: list[ScoredPR], period: Period, known: dict[int, dict[str, Any]],
                   history_known: bool) -> tuple[list[Module], list[TrendWeek]]:
    weeks = period.previous(TREND_WEEKS)  # same-length periods: weeks before a week, months before a month
    per_week, totals = _earlier_counts(weeks, known)
    current: dict[str, list[int]] = defaultdict(list)
    for p in prs:
        for m in set(p.modules):
            current[m].append(p.number)
    names = set(current) | {m for c in per_week for m in c}
    modules: list[Module] = []
    for name in names:
        baseline = round(sum(c[name] for c in per_week) / len(weeks), 2)
        count = len(current.get(name, []))
        if count == 0 and baseline < 1.0:
            continue  # a module seen once in a month is not news when it is quiet
        delta = round(count - baseline, 2)
        # a period with nothing scored is a quiet one, not every module falling at once
        trend = _trend(count, baseline, delta, history_known) if prs else "steady"
        modules.append({"name": name, "pr_count": count, "prs": sorted(current.get(name, [])),
                        "baseline": baseline, "delta": delta, "trend": trend})
    modules.sort(key=lambda m: (-m["pr_count"], -m["baseline"], m["name"]))
    trend_weeks: list[TrendWeek] = [{"since": w.since.isoformat(), "until": w.until.isoformat(), "pr_count": totals[i]}
                   for i, w in enumerate(weeks)]
    return modules, trend_weeks


def _earlier_counts(weeks: list[Period], known: dict[int, dict[str, Any]]) -> tuple[list[Counter[str]], list[int]]:
    """Per comparison period: the PRs of each module, and all its PRs."""
    bounds = [(w.start_utc, w.end_utc) for w in weeks]  # Period.contains recomputes them per call
    per_week: list[Counter[str]] = [Counter() for _ in weeks]
    totals = [0 for _ in weeks]
    for entry in known.values():
        moment = _when(entry)
        for i, (start, end) in enumerate(bounds):
            if start <= moment < end:
                totals[i] += 1
                mods = entry.get("modules") or modules_from_title(str(entry["title"])) or ["misc"]
                per_week[i].update(set(mods))
    return per_week, totals


def _trend(count: int, baseline: float, delta: float, history_known: bool) -> str:
    """rising | fading | steady | new, of a module's PR count against its baseline."""
    if baseline == 0:
        return "new" if history_known else "steady"
    if count >= baseline * 1.5 and delta >= 2:
        return "rising"
    if count <= baseline * 0.5 and delta <= -1:
        return "fading"
    return "steady"


def _risks(prs: list[ScoredPR], language: str = "en") -> list[RiskGroup]:
    items: dict[str, list[RiskItem]] = defaultdict(list)
    for p in sorted(prs, key=lambda p: p.number):
        for risk in p.risks:
            items[risk.kind].append({"pr": p.number, "detail": risk.detail})
    order = {k: i for i, k in enumerate(KINDS)}
    result: list[RiskGroup] = []
    for kind in sorted(items, key=lambda k: (order.get(k, len(order)), k)):
        entries = items[kind]
        colon = "：" if language == "zh" else ": "
        shown = [f"#{e['pr']}{colon}{e['detail']}" for e in entries[:3]]
        if len(entries) > 3:
            shown.append(say(language, "and_more", n=len(entries) - 3))
        result.append({"kind": kind, "prs": [e["pr"] for e in entries], "detail": joined(language, shown),
                       "items": entries})
    return result


@dataclass(frozen=True)
class _Reach:
    """How far back the repository's record lets the analysis judge "new"."""

    known: bool  # the record reaches before the period (or sees the whole repository)
    since: str  # the local day the record starts, "" when it sees the whole repository or knows nothing before
    weeks: int  # the weeks it covers when shorter than HISTORY_FOR_NEWCOMERS_DAYS, else 0
    notes: list[str]


def _reach(history: PriorRecord, period: Period, language: str) -> _Reach:
    start = period.start_utc
    reach = _timestamp(history.reach) if history.reach else None  # None: the source sees the whole repository
    if reach is None:
        return _Reach(True, "", 0, [])
    if reach >= start:
        return _Reach(False, "", 0, [say(language, "no_history")])
    since = f"{reach.astimezone(zone(period.tz)):%Y-%m-%d}"
    if (start - reach).days < HISTORY_FOR_NEWCOMERS_DAYS:
        # The record starts shortly before the period: "first-time" then means "first since it starts".
        return _Reach(True, since, math.ceil((start - reach).days / 7) or 1,
                      [say(language, "short_history", since=since)])
    return _Reach(True, since, 0, [])


def _new_contributors(prs: list[ScoredPR], history: PriorRecord, config: RepoConfig, reach: _Reach) -> list[str]:
    """The people whose first merged PR is in the period, in the order they merged; none without history."""
    first_seen: dict[str, int] = {}
    for p in sorted(prs, key=lambda p: (p.merged_at, p.number)):
        # New: no merged PR in the repository before the period, as its source says.
        if (reach.known and p.author.lower() not in history.first_merged and not config.is_bot(p.author)
                and p.author != NO_AUTHOR):
            first_seen.setdefault(p.author, p.number)
    return sorted(first_seen, key=lambda a: (first_seen[a], a))


def _stats(prs: list[ScoredPR], config: RepoConfig, reach: _Reach, newcomers: list[str], unscored: int) -> Stats:
    n = len(prs)  # the scored PRs: what the averages and sizes are of
    stats: Stats = {
        "pr_count": n + unscored,  # every merged PR of the period, as the headline says
        "unscored_count": unscored,  # of them, not scored yet (or for good): the figures below leave them out
        "key_pr_count": sum(p.key for p in prs),
        "avg_importance": round(sum(p.importance for p in prs) / n, 1) if n else 0.0,
        "avg_insight": round(sum(p.insight for p in prs) / n, 1) if n else 0.0,
        "additions": sum(p.additions for p in prs),
        "deletions": sum(p.deletions for p in prs),
        # people: bots are counted apart, and a PR whose author is gone has nobody to count
        "authors": len({p.author for p in prs if not config.is_bot(p.author) and p.author != NO_AUTHOR}),
        "new_contributors": newcomers,
        # How far back "new" was judged, so a report can say "first seen in the last 4 weeks" when that is all
        # it knows: "" without history; new_contributors_window is the weeks covered when the history is short.
        "history_since": reach.since,
        "new_contributors_window": reach.weeks,
        "types": dict(sorted(Counter(p.type for p in prs).items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    bot_prs = [p for p in prs if config.is_bot(p.author)]
    if bot_prs:
        stats["bots"] = {"prs": len(bot_prs), "logins": sorted({p.author for p in bot_prs}, key=str.lower)}
    reviews = Counter(r for p in prs for r in p.reviewers if not config.is_bot(r))  # review bots are not people
    if reviews:
        stats["reviewers"] = [{"login": r, "reviews": c} for r, c in sorted(reviews.items(), key=lambda kv: (-kv[1],
                                                                                                            kv[0]))]
    return stats


def _hot_files(prs: list[ScoredPR]) -> list[HotFile]:
    """The files 2+ PRs changed, most changed first, at most HOT_FILES."""
    hot = sorted(((path, users) for path, users in _file_users(prs).items() if len(users) >= 2),
                 key=lambda kv: (-len(kv[1]), kv[0]))[:HOT_FILES]
    return [{"path": path, "pr_count": len(users), "prs": sorted(users)} for path, users in hot]


def _entries(prs: list[ScoredPR], reverts: list[Revert], config: RepoConfig) -> list[PrEntry]:
    """The PRs' report entries, a reverted one marked with its revert (wherever the PR is shown), each with what
    the brief says of it in the report's language (engine.headline)."""
    reverted_by = {c["reverts"]: c["pr"] for c in reverts if c["reverts"]}
    entries, language = [], config.language
    for p in prs:
        entry = p.pr_entry()
        if p.number in reverted_by:
            entry["reverted_by"] = reverted_by[p.number]
        entry["headline"] = headline.headline(p.title, p.summary, p.type, p.modules, p.changed_files, p.additions,
                                              p.deletions, language)
        entry["points"] = headline.points(p.summary, p.breaking, p.breaking_reason, p.risks,
                                          reverted_by.get(p.number), p.changed_files, p.additions, p.deletions,
                                          language, said_size="个文件" in entry["headline"],
                                          kinds={file_kind(f, config.test_paths) for f in p.files})
        entries.append(entry)
    return entries


def analyse_period(prs: list[ScoredPR], unscored: list[Unscored], period: Period, config: RepoConfig,
                   history: PriorRecord, generated_at: str, scorer: Scorer) -> Analysis:
    """The analysis of one period; deterministic for the same arguments. `history` is the repository's own
    record before the period, from its source (never what earlier runs stored)."""
    prs = sorted(prs, key=lambda p: (-p.importance, p.number))
    # The review risks are the period's (whether the repository usually reviews, which later PR takes a follow-up
    # up): added to the PRs' own here, after their judgement, so review text never moves a score.
    review, review_risks = reviews.period_reviews(prs, config, history.earlier)
    prs = [replace(p, risks=[*p.risks, *review_risks[p.number]]) if p.number in review_risks else p for p in prs]
    known = _known(prs, history.earlier)
    reach = _reach(history, period, config.language)
    notes = list(reach.notes)
    modules, trend_weeks = _module_trends(prs, period, known, reach.known)
    this_week = len(prs) + len(unscored)  # listing counts of earlier weeks include PRs that failed to score
    trend_weeks.append({"since": period.since.isoformat(), "until": period.until.isoformat(), "pr_count": this_week})
    reverts = _revert_chains(prs, known)
    if unscored:
        notes.append(say(config.language, "unscored", n=len(unscored)))
    # With `paths` (a slice, or a repository narrowed to paths) the report says what it covers, after its repo.
    narrowed: dict[str, Any] = {"slice": {"name": config.slice, "paths": list(config.paths)}} if config.paths else {}
    facts: Analysis = {
        "schema": SCHEMA,
        "repo": config.repo,
        **narrowed,  # type: ignore[typeddict-item]
        "period": {"since": period.since.isoformat(), "until": period.until.isoformat(), "tz": period.tz},
        "generated_at": generated_at,
        "language": config.language,
        "scorer": scorer,
        "stats": _stats(prs, config, reach, _new_contributors(prs, history, config, reach), len(unscored)),
        "prs": _entries(prs, reverts, config),
        "modules": modules,
        "hot_files": _hot_files(prs),
        "clusters": _clusters(prs, reverts, config),
        "reverts": reverts,
        "risks": _risks(prs, config.language),
        "highlights": [],
        "key_changes": [],
        "trends": {"weeks": trend_weeks},
        "summary": "",
        "suggestions": [],
        "unscored": unscored,
        "notes": notes,
    }
    if review is not None:  # a period without review data (an export without it) has no such key
        facts["reviews"] = review
    return facts
