"""Related PRs: clusters of a period's PRs working on the same subject, each named after its lead PR under its
subsystem (report.json's `clusters`).

    clusters_of(prs, reverts, config) -> list[Cluster]

Links between two PRs come from references their work bears out and revert chains (prhub.engine.reverts), names
both work on, rare title words and files few PRs share; the groups are joined strongest link first, at most
MAX_CLUSTER PRs each (see clusters_of).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache

from prhub.core.config import RepoConfig
from prhub.core.models import ScoredPR
from prhub.core.report import Cluster, Revert
from prhub.engine import gist
from prhub.engine.changes import file_kind, is_generated
from prhub.engine.classify import abbreviates, bears, layout_module
from prhub.engine.headline import quotes_english
from prhub.engine.reverts import is_revert
from prhub.engine.scoring import PR_SUFFIX, modules_from_title, parse_title
from prhub.engine.textparse import identifiers
from prhub.engine.wording import clip, joined, say, type_word

MAX_CLUSTER = 6  # a "related PRs" group larger than this is a theme, which modules[] already shows
STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "with", "without", "by", "from", "via", "as",
    "at", "is", "are", "be", "when", "if", "into", "not", "no", "use", "using", "support", "supports", "add",
    "adds", "added", "fix", "fixes", "fixed", "update", "updates", "updated", "remove", "removes", "make", "makes",
    "new", "more", "some", "all", "its", "it", "this", "that", "default", "issue", "bug", "refactor", "feat",
    "chore", "docs", "doc", "test", "tests", "ci", "perf", "misc", "enable", "enables", "allow", "allows", "change",
    "changes", "improve", "improves", "introduce", "v1", "v2", "code", "file", "files", "run", "running", "error",
    "errors", "case", "cases", "option", "options"
})




def _terms(title: str) -> set[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.+-]{2,}|[\u4e00-\u9fff]{2,}", parse_title(title)[0].lower())
    return {w.strip(".-+") for w in words if w.strip(".-+") not in STOPWORDS}


def _names(pr: ScoredPR) -> tuple[set[str], set[str]]:
    """The identifiers, config keys and flags the PR names (`reward_model.enable`, `RewardModelConfig`, `--flag`):
    (those of its title and description's synopsis, what it says it is about; those of its key points too). The
    synopsis's are the engine's `subject_names`, in no report language: the week's groups must not change with it
    (arrow-rs 2026-08-03 grouped #10157 with #10320 in en, apart in zh, whose summary is the translated title). A
    result stored before them reads its title and summary."""
    headline = set(pr.subject_names) if pr.subject_names is not None else \
        set(identifiers(f"{parse_title(pr.title)[0]} {pr.summary}"))
    # A flag only its key points give is how it was run or tested ("cargo clippy --workspace --all-targets", in
    # every arrow-rs PR's template), not what it is about
    return headline, headline | {n for n in identifiers(" ".join(pr.key_points)) if not n.startswith("--")}


# Past this many PRs a file or title term is too common to say two PRs belong together (weeks up to 320 PRs
# never reach it; a year of a busy repository does).
MAX_RARE_USERS = 40
REFERENCE_LINK = 100.0  # a reference or a revert chain: stronger than any shared file or term
# Files that gather unrelated work whoever touches them: package and crate roots, build manifests, test set-up.
HUB_NAMES = frozenset({"__init__.py", "mod.rs", "lib.rs", "main.rs", "setup.py", "conftest.py", "build.rs"})
SUBSTANCE = 0.25  # shared files are a PR's substance when they hold at least this share of its code lines


def file_users(prs: list[ScoredPR]) -> dict[str, set[int]]:
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
    headline: dict[int, set[str]]  # of those, the ones the title and synopsis name
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
    users = file_users(prs)
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
    return _Vocabulary(users, terms, names, headline, term_users, common, max(3, common // 2),
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


def clusters_of(prs: list[ScoredPR], reverts: list[Revert], config: RepoConfig) -> list[Cluster]:
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
    standing = [n for n in members if not is_revert(by_number[n].title)] or members
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
    # A name both are about (their titles or synopses name it) is their subject; one only one of them is about,
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
    borne = next((t for t in tags if any(bears(t, f) for f in paths) or any(abbreviates(t, k) for k in kinds)),
                 None)
    if borne:
        return borne
    layout = Counter(layout_module(f, config.name) for f in source)
    folder = min(layout, key=lambda name: (-layout[name], name))
    return tag if folder in ("root", config.name) else folder


def _cluster_title(members: list[int], by_number: dict[int, ScoredPR], head: str, language: str) -> str:
    """"subsystem: what the lead does", the lead the most important member that is not a revert."""
    best = by_number[_lead_of(members, by_number)]
    lead = PR_SUFFIX.sub("", parse_title(best.title)[0] or best.title)
    if language == "zh":
        said = gist.heading(lead, best.type)
        if quotes_english(said):  # no English title quoted: the lead's type, number and group size
            said = f"{type_word(language, best.type)} #{best.number} 等 {len(members)} 个 PR"
        return f"{head}：{_clip(said, 60)}"
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
