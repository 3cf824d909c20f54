"""The deterministic engine's per-PR judgement: modules, type, breaking, importance, insight, risks.

Contract: `score_pull(pr, config, registry=None, model=None) -> ScoredPR`, deterministic; no I/O
unless a `registry` is handed in and `config.check_registry` is on (the shipped importance model is read once
per process).

Importance (0–10) is judged by the table of rules in prhub.engine.rules (condition, points, the reason
shown), from what this module reads of the PR: its type (the title's conventional prefix, else its verb,
else what its lines do), modules (title tags, labels, module_map, scope, the repository's layout:
prhub.engine.classify), breaks (declared or inferred from the diff) and reverts; plus, when a model learned
across repositories is shipped (prhub.engine.prior), the points it gives what the rules saw.

Insight (0–10) is what a reader learns from the description once the PR template is stripped: why
(root cause, motivation), how (a design section, trade-offs) and proof (measured results, test evidence),
plus its length; the last reason says which parts were found.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from prhub.core import text as core_text
from prhub.core.config import PR_TYPES, RepoConfig
from prhub.core.models import PullRequest, ScoredPR
from prhub.core.period import format_timestamp
from prhub.core.text import capitalised
from prhub.engine import (
    changes,
    classify,
    conventions,
    features,
    fingerprint,
    gist,
    lexicon,
    noun_phrases,
    prior,
    releases,
    reviews,
    risks,
    rules,
    synopsis,
    textparse,
    translate,
    verb_phrases,
    wording,
)
from prhub.engine.changes import breaking_reasons, file_kind, is_generated
from prhub.engine.risks import VersionRegistry, assess
from prhub.engine.rules import DEFAULT_CHANGE, MEASURE, RUNTIME_DROPPED, Signals
from prhub.engine.wording import joined, say

# The engine's version (ENGINE_VERSION, at the end of this module; part of every cached result's key, so a result
# is not reused across versions) is this revision and a hash of the data the engine judges with. The hash follows
# the rule table, patterns and phrases by itself; the revision is bumped by hand when code changes what the engine
# says (a rule's condition, how the type, breaks, insight or summary are read).
# engine-10: a scored PR's review facts carry who merged it (both GitHub sources read it now), which the
# self-merged risk compares with; results cached by engine-9 say "" there. Scores are unchanged.
# engine-11: descriptions are read by a Markdown parser and a sentence segmenter (prhub.engine.textparse): summaries
# and key points change (status notes, credits and vague lines skipped, list frames kept), and so may insight.
# Also: a zh breaking reason for a changed default no longer quotes the English title (issue 45).
# engine-12: the repository's own conventions (prhub.engine.conventions, issue 48): its minor markers cap a PR's
# importance, and its type words (given, or the type tags of a repository without conventional prefixes) decide the
# type.
# engine-13: the type shown is the repository's word where it says one consistently (issue 48): every type word of a
# repository with consistent conventional prefixes (its `chore:` stays a chore), gitmoji in a repository that titles
# with them, tags after an opening emoji. Importance changes only where such a word was not read before.
# engine-14: a revert is breaking only when its author declares it (what it removes is the reverted PR's own);
# a summary's Chinese sentences follow each other without a space.
# engine-15: numpy's type acronyms are type words ("ENH:" was read as a module), and a repository writing them in
# capitals without a colon ("FIX Resolve ...", peft) has them read as its prefix, not as the title's verb. A break
# without [BREAKING] is a risk only where the repository marks breaks (Conventions.breaking_marker) or asks to. A
# dot folder below the root is tooling; a chore that removes names no repair ("remove not used benchmarks"); tests a
# diff writes inside a source file (#[test]) are tests; an experiment's or benchmark's file removed breaks nothing.
# engine-16: a default changed by a PR the repository calls its build or tests (`build:`, `ci:`, `test:`) breaks
# nobody; polars' `depr:` is a type word (refactor), not a module; a distribution's folder holding the package
# (pydantic_ai_slim/pydantic_ai/) is no module; a docs site's builder settings (mkdocs.yml, book.toml) are tooling.
# engine-17: a title naming a CVE or GHSA advisory that the PR's own code closes is a security fix (type fix, 2
# points); "bugfix"/"Hotfix" titles are fixes; a type tag's scope ("[Bugfix (rlhf)]") is the module.
# engine-18: a title that documents, explains or clarifies, or adds docs, is docs where the repository says no type
# (tokio's doc comments are in its source files); a zh revert risk quotes no English title; a tag's module is its
# name without backticks (ruff's "[`pylint`]").
# engine-19: a result keeps the names its title and description's synopsis give (subject_names), whatever the
# report's language, so a week's groups are the same in zh and en; a root dev/ folder is the repository's tooling
# (no public module); a benchmark suite's code weighs as a test, "bench:" is a test type; "Prepare for X release"
# and "Release vX" are chores; a title whose verb changes behaviour ("Improve handling of X", "Show X by default",
# "Respect X") on source files is a feature, one that improves performance or efficiency is perf.
# engine-20: a path (`DataFrame::transpose_from_dtype`) names its last part, not the type it lives in
# (subject_names), so two PRs on one central type are no theme for it; a zh summary says 只改依赖 only of a PR whose
# code is dependencies alone (not of a benchmark suite removed with its package.json); a docs PR's source edits (doc
# comments) are no missing test; a module moved into a package of its own name (`io/delta.py` to `io/delta/` with its
# `__init__.py`) breaks no import; dropping a runtime version its users may run ("Drop Python 3.9 support") breaks;
# a scope abbreviating a subsystem is said as its name (tokio's "rt:" is runtime); a large change counts the lines
# a reviewer reads (not tests, docs, lock or generated files, nor a change that only deletes); a *-test-support or
# *-testing-support crate or module is tests (core.config's test_paths).
# engine-21: "make the default X" changes no default; mdtest/ Markdown and .snap snapshots are tests; a dependency
# no user installs (an example's, the docs', a playground's, deps-dev) is no risk; a release or a typo's fix wants no
# test; a bot's generated description has no insight; the translator reads more titles (lend, move out of, a subject
# before an unconjugated verb); a revert keeps the follow-ups its description reverts too (reverts_also), a release
# what it releases (released, a changesets release's from its description); work saved is perf; adding to or
# dropping from a default changes it, and the reason names the opt-out its author gives.
# engine-22: the translator says a feature titled by what it brings as adding it (新增 …), "X coordinated with Y"
# (参照 Y), a series' [a/N] at its clause's end, one 的 a place phrase, "check that <plural subject> <verb>", "X change
# from A to B", "X caused by Y" (Y 导致的 X), "X (after) moved to Y", and more words (handles, boundaries, manual,
# re-wrap, shutdown, occasional, a trailing "instead"), "X not found" (找不到 X), "X that <verb> Y" (…的 X), "align
# with X", "extract X to Y" (将 X 提取到 Y).
# engine-23: the translator says what a fix makes true with its modal ("X should not apply to Y": X 不应作用于 Y, "X
# should be non-blocking": X 应是非阻塞的), a subject of up to five words before one, "how/when/where to V" as an
# object (如何 V, not a purpose or a condition), "let X V" (让 X V), "promote X to Y" (将 X 提升为 Y), "X does not
# need Y", and more words (hard, denied, slash, too-new, teach, decide, hint, regularization, toolchain, file
# descriptors, gating, pixel, cross-entropy, auxiliary, load-balancing, non-standard); a verb with no object says its
# condition first ("Rebuild when X changes": 在 X 改动时重建).
# engine-24: a name of several words the glossary keeps ("model engine", "router replay") is no English in a thin
# Chinese frame (verl #5561 "model engine 支持 mtp" was quoted, then fell back to facts); "X is combined with Y" is
# the two used together (同时使用), "false deadlock" a false report (误报的死锁), "spurious" 虚假的; a kept name is one
# word of an English run ("moe weight refit": verl #7224).
REVISION = 24

# Leading emoji and symbols some repositories open titles with ("🔬 SFT simplification", "⬆️ Bump dev version").
TITLE = re.compile(r"^\s*(?:[^\w\s\[\](){}<>`'\"“#:!.,/\\-]\s*)*((?:\[[^\]]*\]\s*)*)\s*(.*)$", re.DOTALL)
CONVENTIONAL = re.compile(r"^\(?([A-Za-z]+)\)?(?:\(([^)]*)\))?(!)?\s*[:：]\s*(.*)$", re.DOTALL)
REVERT_TITLE = re.compile(r"^\s*revert\s*[:：]?\s*[\"“'](.+?)[\"”']?\s*$", re.IGNORECASE | re.DOTALL)
REVERT_REF = re.compile(r"\b(?:this\s+)?reverts?\s+(?:pr\s+|of\s+)?(?:[\w.-]+/[\w.-]+)?#(\d+)|\brevert\w*\s+(?:of\s+)?"
                        r"(?:https://github\.com/[\w.-]+/[\w.-]+/pull/)(\d+)", re.IGNORECASE)
PR_SUFFIX = re.compile(r"\s*\(#(\d+)\)\s*$")

TYPES = PR_TYPES
# A conventional prefix's word as a type: the words conventions reads as a repository's word, and "misc:", a
# catch-all prefix (as a tag or label "misc" names an area, so conventions does not read it).
TYPE_ALIASES = {**conventions.TYPE_WORDS, "misc": "chore"}
VERB_TYPES = (
    ("revert", re.compile(r"^(revert|reverts|reverting)\b", re.I)),
    # before fix: "Avoid string allocations", "Avoid cloning X" save work, they repair nothing (ruff's ty week
    # typed 20 such optimisations as fixes and features)
    ("perf", re.compile(r"^(speed\w*|optimi[sz]\w*|accelerat\w*|faster|reduc\w*\s+(?:\S+\s+){0,4}"
                        r"(?:memory|vram|latency|time|overhead|peak|allocations?|monomorphi[sz]ation)|"
                        r"avoid\w*\s+(?:\S+\s+){0,3}(?:clon\w*|allocat\w*|cop(?:y|ies|ying)|rehash\w*|"
                        r"recomput\w*|re-?quer\w*|lookups?|redundant)|"
                        r"improv\w*\s+(?:\S+\s+){0,5}(?:performance|speed|throughput|efficiency)"
                        r"(?!\s+(?:docs?|documentation|guides?)\b))\b", re.I)),
    ("fix", re.compile(r"^(fix\w*|bug\s*fix\w*|hotfix\w*|correct\w*|resolve\w*|repair\w*|avoid\w*|prevent\w*|"
                       r"handle\w*|patch\w*|don'?t|do not|never|stop|ensure\w*|restore\w*|guard\w*|properly|"
                       r"make\s+(?:\S+\s+){1,4}(?:work\w*|resilient|robust|consistent\w*))\b", re.I)),
    # "Document …", "Explain …", "Clarify that …", "Add docs for …": the words a repository's docs are changed
    # with (tokio's doc comments live in its .rs files, so the files alone do not say so); a clarified message or
    # an EXPLAIN plan is code
    ("docs", re.compile(r"^(document(?:s|ed|ing)?\b(?!\s+(?:store|loader|parser|db|model|type|id|symbol|view)s?\b)|"
                        r"explain(?:s|ed|ing)?\b(?!\s+(?:plan|output|command|analy[sz]e)s?\b)|"
                        r"clarif\w*\b(?!\s+(?:\S+\s+){0,3}(?:error|warning|message|panic|diagnostic)s?\b)|"
                        r"(?:add(?:s|ed|ing)?|improv\w*|updat\w*|expand\w*|polish\w*|rewrit\w*|reword\w*)\s+"
                        r"(?:\S+\s+){0,2}(?:docs?|documentation|doc ?strings?|doc[- ]?comments?)(?![\w-])"
                        r"(?!\s+(?:ci|build|builder|job|workflow|code|detection|formatting|formatter|checker|coverage|"
                        r"generation|generator|lint|linter|style|tests?)\b))", re.I)),
    ("feat", re.compile(r"^(add(?:s|ed|ing)?|support\w*|implement\w*|introduc\w*|enabl\w*|allow\w*|new|suggest\w*|"
                        r"warn\w*|emit\w*|expose\w*|stabili[sz]\w*|integrat\w*|extend\w*|teach\w*|"
                        r"consider\w*|provide\w*|create\w*)\b", re.I)),
    ("refactor", re.compile(r"^(refactor\w*|remov\w*|clean\w*|renam\w*|mov\w*|simplif\w*|unif\w*|deprecat\w*|"
                            r"drop\w*|delet\w*|replac\w*|migrat\w*|decoupl\w*|split\w*|extract\w*|"
                            r"reorgani[sz]\w*|restructur\w*|consolidat\w*|inline\w*)\b", re.I)),
    # "Prepare for 58.1.0 release", "Release v0.4.0": a release's version and changelog
    ("chore", re.compile(r"^(bump\w*|upgrad\w*|updat\w*|pin\w*|chang\w*|set|modif\w*|use|"
                         r"prepar\w*\s+(?:for\s+)?(?:the\s+)?(?:\S+\s+){0,2}releases?|releas\w*\s+`?(?:v\d+|\d+\.\d+))\b",
                         re.I)),
)

# Verbs that change what the code does for its users, neither adding nor fixing: on source files a changelog files
# them with features ("Changed"), not with internal refactors.
BEHAVIOUR = re.compile(r"^(improv\w*|better|show\w*|respect\w*|detect\w*|narrow\w*|preserv\w*|mark\w*|skip\w*|"
                       r"ignor\w*|infer\w*|recogni[sz]\w*|accept\w*|reject\w*|display\w*|omit\w*|prefer\w*|"
                       r"treat\w*|report\w*|disallow\w*|hide\w*|render\w*|highlight\w*|tighten\w*|relax\w*|"
                       r"honou?r\w*|propagat\w*|include\w*|exclude\w*|expand\w*|widen\w*|special-case\w*)\b",
                       re.I)
# ... unless the title says it is about the tests, docs, CI, benchmarks or a deprecation ("Improve `coalesce` kernel
# tests", "Mark `foo` as deprecated"), which live in source files too.
NOT_BEHAVIOUR = re.compile(r"\b(?:tests?|testing|docs?|documentation|ci|benchmarks?|examples?|deprecat\w*)\b", re.I)


def _tags(title: str) -> list[str]:
    match = TITLE.match(title)
    return re.findall(r"\[([^\]]*)\]", match.group(1)) if match else []


def modules_from_title(title: str) -> list[str]:
    """Module tags of a `[BREAKING][megatron, fsdp] fix: ...` title, lower case, in order, without BREAKING.

    A revert (`Revert "[fsdp] fix: ..."`) belongs to the modules of the change it reverts.
    """
    tags = _tags(title)
    if not modules_of(tags) and (revert := REVERT_TITLE.match(parse_title(title)[0])):
        tags = _tags(revert.group(1))
    return modules_of(tags)


# A title tag's part that names no module: a series' [1/N], a state, a type word (diffusers' "[chore] remove X"
# had been "chore 模块").
NOT_MODULE = re.compile(r"\s*(\d+\s*/\s*(n|\d+)|wip|draft|rfc|bug ?fix|hot ?fix|bug|fix|feat|feature|chore|"
                        r"refactor)\s*", re.IGNORECASE)


def modules_of(tags: list[str]) -> list[str]:
    """Module names in title tags; `[1/N]`, `[WIP]` and the like are not modules."""
    mods: list[str] = []
    for tag in tags:
        if NOT_MODULE.fullmatch(tag):
            continue
        for part in re.split(r"[,，/()]", tag):  # "[Bugfix (rlhf)]": a type and its module
            name = part.strip().strip("`").strip().lower()  # ruff's "[`pylint`]": the rule set, not code
            if name and name != "breaking" and name not in mods and not NOT_MODULE.fullmatch(name):
                mods.append(name)
    return mods


def parse_title(title: str) -> tuple[str, str | None, str | None, bool]:
    """(description, conventional type or None, scope or None, `!` marker) of a title, tags removed."""
    match = TITLE.match(title)
    rest = (match.group(2) if match else title).strip().lstrip(":：").strip()
    bare, end = conventions.bare_type_word(rest)
    if bare:  # "FIX Resolve ...": the type in capitals, without a colon
        return rest[end:].strip(), conventions.TYPE_WORDS[bare], None, False
    if slashed := conventions.BRANCH_TYPE.match(rest):  # "Feat/minimax m2.5 support": a branch's name as the title
        return rest[slashed.end():].strip(), conventions.TYPE_WORDS[slashed.group(1).lower()], None, False
    conv = CONVENTIONAL.match(rest)
    if conv:
        word = conv.group(1).lower()
        kind = TYPE_ALIASES.get(word, word)
        if kind in TYPES:
            return conv.group(4).strip(), kind, (conv.group(2) or "").strip().lower() or None, bool(conv.group(3))
        if word == "breaking":  # "[trainer] breaking: pass dataset as required args"
            return conv.group(4).strip(), None, None, True
        if len(word) <= 20 and not conv.group(2):
            return conv.group(4).strip(), None, word, bool(conv.group(3))  # "megatron: ..." names a scope
    return rest, None, None, False


def _verb_type(description: str, kinds: list[str]) -> str | None:
    """The type the title's verb says (VERB_TYPES), with what its words or files add."""
    verb = next((t for t, pattern in VERB_TYPES if pattern.match(description)), None)
    if verb is None and rules.ADVISORY.search(description):
        return "fix"  # "`copy_headers` does not strip identity headers (Fixes GHSA-…)" closes an advisory
    if verb == "chore" and rules.PERF_WORDS.search(description) and not re.search(r"\d", description):
        return "perf"  # "Use vLLM prefix caching for speedup": a speed-up, not a bump
    if verb == "docs" and kinds and set(kinds) <= {"test", "ci"}:
        return "test" if "test" in kinds else "ci"  # "Document the … bug" in a test: the files say what it is
    return verb


def _type(description: str, declared: str | None, kinds: list[str], new_code: int = 0,
          source_lines: tuple[int, int] = (0, 0)) -> str:
    if REVERT_TITLE.match(description):
        return "revert"
    if declared in ("chore", "refactor") and dict(VERB_TYPES)["fix"].match(description):
        return "fix"  # "[model] chore: Fix Qwen3-235B precision issues" is a fix
    if declared:
        return declared
    verb = _verb_type(description, kinds)
    if verb in ("revert", "fix", "perf", "docs", "feat"):
        return verb
    if kinds:
        only = set(kinds)
        for kind, name in (("docs", "docs"), ("test", "test"), ("ci", "ci"), ("deps", "chore")):
            if only == {kind}:
                return name
    if verb is None and source_lines and BEHAVIOUR.match(description) and not NOT_BEHAVIOUR.search(description):
        return "feat"  # "Improve handling of builtin symbols", "Show fixes by default": what users meet changes
    if verb is None and new_code >= 150:
        return "feat"  # "recipe: PRIME algorithm" names no verb but adds a body of new code
    if verb is None and source_lines:
        # A bare title ("SFT simplification", "FSDP2+GRPO") on library code: what the lines do says more than
        # "chore", which a repository says with its own prefix.
        return "feat" if source_lines[0] >= 2 * source_lines[1] else "refactor"
    return verb or "chore"


def _modules(pr: PullRequest, config: RepoConfig, scope: str | None) -> list[str]:
    tagged = modules_from_title(pr.title)
    if tagged:
        paths = [f.filename for f in pr.files]
        return classify.source_first(tagged, paths, [file_kind(p, config.test_paths) for p in paths])
    if pr.labels:
        return sorted({label.strip().lower() for label in pr.labels if label.strip()})
    if config.module_map:
        prefixes = sorted(config.module_map, key=len, reverse=True)
        counts = Counter(next((config.module_map[p] for p in prefixes if f.filename.startswith(p)), None)
                         for f in pr.files)
        counts.pop(None, None)
        if counts:
            return [str(m) for m, _ in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))]
    paths = [f.filename for f in pr.files]
    if scope:
        folders = {part for p in paths if file_kind(p, config.test_paths) == "source" for part in p.split("/")[:-1]}
        return [_spelled_out(s.strip(), folders) for s in re.split(r"[,/]", scope) if s.strip()]
    return classify.modules_by_layout(paths, [file_kind(p, config.test_paths) for p in paths], config.name) or ["misc"]


# Scopes that abbreviate one subsystem's name wherever they are used (Rust's runtimes title their runtime work
# "rt:"): said as the name, so "rt" and "runtime" are one module. The listing's records, which have no files, say it
# the same.
SPELLED_OUT = {"rt": "runtime", "ws": "websocket"}


def _spelled_out(scope: str, folders: set[str]) -> str:
    """A scope as the subsystem it abbreviates ("rt" is runtime: tokio titles its runtime work "rt:" and "runtime:"
    both, which had read as two modules, one of them "fading"), unless the PR's folders use the short name itself."""
    return scope if scope in folders else SPELLED_OUT.get(scope.lower(), scope)


def modules_for(pr: PullRequest, config: RepoConfig) -> list[str]:
    """The modules the engine tags a PR with (title tag, labels, path map, scope, top folder)."""
    return _modules(pr, config, parse_title(pr.title)[2])


def reverted_ref(description: str, body: str = "") -> tuple[int | None, str]:
    """(number, title) of the PR a revert undoes, as far as its text says.

    The body's "Reverts owner/repo#N" (GitHub's revert button) wins over a `(#N)` inside the quoted title:
    that suffix is the number of the PR the reverted one referred to, not always the reverted PR's own.
    """
    match = REVERT_TITLE.match(description)
    title = match.group(1).strip() if match else ""
    suffix = PR_SUFFIX.search(title) if title else None
    if suffix:
        title = PR_SUFFIX.sub("", title)
    if ref := REVERT_REF.search(f"{description}\n{body}"):
        return int(ref.group(1) or ref.group(2)), title
    return (int(suffix.group(1)) if suffix else None), title


MOTIVATION = re.compile(r"\b(because|why|motivat\w*|problem\w*|currently|previously|otherwise|so that|in order to|"
                        r"caus\w*|leads? to|results? in|instead of|the reason)\b|原因|问题|背景|目前|导致", re.I)
ROOT_CAUSE = re.compile(r"\b(root cause|traceback|stack trace|the bug|the issue (?:is|was)|happens when|occurs when|"
                        r"this is because|was caused|is caused|before this (?:pr|change)|"
                        r"regress\w* (?:from|in|since))\b"
                        r"|根因|原因是", re.I)
TRADEOFF = re.compile(r"\b(trade-?offs?|however|downside\w*|limitation\w*|alternative\w*|caveat\w*|"
                      r"at the cost|drawback\w*|backward[- ]compat\w*|compatib\w*)\b|权衡|缺点|兼容", re.I)
TEST_EVIDENCE = re.compile(r"\b(pytest|passed|passes|tested|verified|validat\w*|reproduc\w*|benchmark\w*|curves?|"
                           r"wandb|tensorboard|experiment\w*|unit tests?|e2e|accuracy|reward|score)\b|测试|验证|实验",
                           re.I)
DESIGN_HEADINGS = ("design", "changes", "implementation", "approach", "solution", "how", "details", "方案", "设计")
TEST_HEADINGS = ("test", "validation", "verification", "benchmark", "result", "accuracy", "测试", "验证")


# What insight reads of a description: past this a description teaches no more, and the patterns stay cheap.
INSIGHT_CHARS = 20_000


def _insight(cleaned: str, title: str, lang: str) -> tuple[float, list[str]]:
    """What a reader learns from the description: why (motivation, root cause), how (design), and proof
    (measured results, test evidence), with the phrase of each part found."""
    cleaned = cleaned[:INSIGHT_CHARS]
    parts = textparse.sections(cleaned) if cleaned else []
    prose = " ".join(textparse.prose_blocks(cleaned)) if cleaned else ""  # every section's, from one parse
    words = len(prose.split()) + len(textparse.CJK.findall(prose)) // 2
    found: list[tuple[float, str]] = []
    if words >= 25:
        found.append((min(2.0, words / 100), say(lang, "ins_words", n=words)))
    if ROOT_CAUSE.search(prose):
        found.append((2.0, say(lang, "ins_root_cause")))
    elif MOTIVATION.search(prose) and words >= 15:
        found.append((1.5, say(lang, "ins_motivation")))
    if any(h.startswith(DESIGN_HEADINGS) for h, _ in parts) and words >= 40:
        found.append((1.5, say(lang, "ins_design")))
    table = re.search(r"^\s*\|.*\|.*\|\s*$", cleaned, re.M)
    measures = len(MEASURE.findall(cleaned))
    if table or measures >= 2:
        found.append((2.0, say(lang, "ins_measured")))
    elif re.search(r"!\[|<img", cleaned):
        found.append((1.0, say(lang, "ins_figure")))
    if TRADEOFF.search(prose) and words >= 40:
        found.append((1.0, say(lang, "ins_tradeoff")))
    if any(h.startswith(TEST_HEADINGS) for h, _ in parts) or TEST_EVIDENCE.search(prose):
        found.append((1.0, say(lang, "ins_tested")))
    score = float(sum(v for v, _ in found))
    if words < 15:
        score = min(score, 1.5)  # a line or two teaches little, whatever words it uses
    if not found and len(title.split()) >= 10:  # a title that says what and why is something
        found.append((1.0, say(lang, "ins_title")))
        score = 1.0
    return round(min(10.0, score), 1), [why for _, why in found] or [say(lang, "ins_nothing")]


def facts(pr: PullRequest, config: RepoConfig) -> rules.Facts:
    """What the table of rules reads of one PR: its judgement here, its features for prhub.engine.learning."""
    description, declared, _scope, bang = parse_title(pr.title)
    kinds = [file_kind(f.filename, config.test_paths) for f in pr.files]
    new_code = sum(f.additions for f, k in zip(pr.files, kinds, strict=True)
                   if k == "source" and f.status == "added" and not is_generated(f.filename))
    source = [(f.additions, f.deletions) for f, k in zip(pr.files, kinds, strict=True)
              if k == "source" and not is_generated(f.filename)]
    # The repository's own word first (issue 48): a prefix, tag, gitmoji or label it uses consistently for a type
    # decides the type shown; the engine's inference fills in where the repository says nothing. The rules read
    # what the PR does: on a title declaring a conventional type that is the engine's reading of it ("chore: Fix
    # the precision of ..." scores as the fix it is), elsewhere the repository's word.
    said = conventions.said_type(pr.title, pr.labels, config.conventions)
    reading = _type(description, declared, kinds, new_code, (sum(a for a, _ in source), sum(d for _, d in source)))
    released = releases.released(pr.title, config.repo, pr.body or "")
    if not declared and reading != "revert" and released:
        reading = "chore"  # a release (svelte's changesets "Version Packages" had been read as a refactor)
    kind = reading if declared else said or reading
    cleaned = textparse.strip_template(pr.body)
    breaking = _breaking(pr, description, bang, kinds, config, revert=reading == "revert",
                         tooling=(said or declared) in ("ci", "test"))
    return rules.Facts(pr, kind, description, f"{description}\n{cleaned[:4000]}", cleaned, kinds, breaking.flag,
                       breaking.declared, breaking.reason, config, declared=declared,
                       tags=set(modules_from_title(pr.title)),
                       marker=conventions.minor_marker(pr.title, pr.labels, config.conventions),
                       reported="revert" if reading == "revert" else said or reading,  # a revert, whatever it says
                       released=released)


def score_pull(pr: PullRequest, config: RepoConfig, registry: VersionRegistry | None = None,
               model: prior.Prior | None = None) -> ScoredPR:
    """Judge one PR from its title, description, labels and changed files. Importance is the rules' score with the
    points learned across repositories (`model`, the shipped prhub.engine.prior one by default); the reasons stay
    the rules'."""
    seen = facts(pr, config)
    description, kind, cleaned, lang = seen.title, seen.kind, seen.body, config.language
    revert = _revert(pr, description, kind)
    judged = rules.importance(seen)
    importance, reasons, signals = judged.score, list(judged.reasons), judged.signals
    model = prior.load() if model is None else model
    if model.points:
        feats, ceiling = prior.seen(seen, judged)
        importance = prior.adjust(importance, feats, model, ceiling)
    if kind == "revert":
        what = f"#{revert.number}" if revert.number else revert.title or say(lang, "earlier_change")
        reasons.append(say(lang, "reverts", what=what))
    points = synopsis.key_points(cleaned)
    # a bot's description is generated (dependabot pastes upstream release notes): no author explains anything;
    # langgraph's dependabot week averaged insight 4.7 beside ruff's 1.6
    insight, learned = (0.0, [say(lang, "ins_bot")]) if config.is_bot(pr.author) else \
        _insight(cleaned, description, lang)
    reasons.append(say(lang, "insight", score=insight, parts=joined(lang, learned, "comma")))
    modules = _modules(pr, config, parse_title(pr.title)[2])
    synopsis_line = synopsis.summarize(cleaned, capitalised(description) if description else pr.title)
    summary = _summary_line(pr, synopsis_line, cleaned, description, kind, modules, seen.breaking, signals, lang)
    risks = assess(pr, config, tags=modules_from_title(pr.title), breaking=seen.breaking,
                   breaking_reason=seen.breaking_reason, tagged_breaking=seen.tagged_breaking,
                   revert_of=revert.named(lang) if kind == "revert" else "", registry=registry, kind=seen.reported,
                   released=bool(seen.released))
    reviewers = list(dict.fromkeys(r.reviewer for r in pr.reviews if r.reviewer != pr.author))
    return ScoredPR(
        number=pr.number, title=pr.title, url=pr.url, author=pr.author, merged_at=format_timestamp(pr.merged_at),
        modules=modules, type=seen.reported, breaking=seen.breaking, importance=importance,
        insight=insight, key=importance >= config.key_threshold,
        summary=summary, key_points=points, risks=risks,
        additions=pr.additions, deletions=pr.deletions, changed_files=pr.changed_files, scored_by="heuristic",
        breaking_reason=seen.breaking_reason if seen.breaking else "", reasons=reasons,
        files=[f.filename for f in pr.files], file_lines=[[f.additions, f.deletions] for f in pr.files],
        refs=_references(pr, revert.number), reverts=revert.number, reverts_also=list(revert.also),
        reviewers=reviewers,
        co_authors=list(pr.co_authors), head_sha=pr.head_sha,
        subject_names=sorted(textparse.identifiers(f"{parse_title(pr.title)[0]} {synopsis_line}")),
        review=reviews.pr_review(pr, config),  # beside the judgement, never in it: review text moves no score
        measured=gist.effect(cleaned, lang), released=seen.released,
    )


@dataclass(frozen=True)
class _Breaking:
    """Whether a PR breaks its users, and why."""

    flag: bool  # declared or inferred
    declared: bool  # [BREAKING] or `type!:` in the title, or a BREAKING CHANGE line in the body
    reason: str  # the declaration, then the inferred reasons (at most two)


def _breaking(pr: PullRequest, description: str, bang: bool, kinds: list[str], config: RepoConfig,
              revert: bool = False, tooling: bool = False) -> _Breaking:
    """`revert`: the PR undoes another, so what it removes or changes back is that PR's own (its revert risk
    says so): breaking only when its author declares it. The sample's #1209 reverted #1205 of the same week and
    stood as a breaking change for deleting the module #1205 had added. `tooling`: the repository says the PR is
    its build or tests (`build:`, `ci:`, `test:`), so a default it changes is its developers' (polars #28358
    "build: Set the default `dev` profile to `line-tables-only`" had led its week as a breaking change)."""
    lang = config.language
    tag_breaking = any(t.strip().upper() == "BREAKING" for t in _tags(pr.title))
    tagged_breaking = tag_breaking or bang
    declared_breaking = tagged_breaking or bool(re.search(r"^\s*BREAKING[ -]CHANGE", pr.body or "", re.M))
    inferred = [] if revert else breaking_reasons(pr.files, config.test_paths, lang)
    if not (revert or tooling) and DEFAULT_CHANGE.search(description) and {"source", "config", "example"} & set(kinds):
        optout = OPT_OUT.search(pr.body or "")  # the way back its author gives (ruff #26157's --exit-zero-on-warning)
        inferred.append(say(lang, "changes_default_optout", flag=f"`{optout.group(1) or optout.group(2)}`")
                        if optout else say(lang, "changes_default"))
    # users run the runtime the package declares (pyproject.toml, package.json) or its code needs; a CI matrix's
    # is the repository's own ("ci: drop Python 3.9")
    if not (revert or tooling) and {"source", "deps", "config"} & set(kinds) and \
            (dropped := RUNTIME_DROPPED.match(translate.strip(pr.title))):
        name = "Python" if dropped.group("name").lower() == "py" else dropped.group("name")  # "py3.9"
        inferred.insert(0, say(lang, "drops_runtime", what=f"{name} {dropped.group('version')}"))
    said = _said_findings(inferred)
    if tagged_breaking:
        reason = say(lang, "tagged_breaking" if tag_breaking else "declared_breaking")
    elif declared_breaking:
        reason = say(lang, "body_breaking")
    else:
        reason = joined(lang, said)
    if declared_breaking and inferred:
        reason += f"（{joined(lang, said)}）" if lang == "zh" else f" ({joined(lang, said)})"
    return _Breaking(declared_breaking or bool(inferred), declared_breaking, reason)


# The option a description gives to keep what a changed default did: "Add `--exit-zero-on-warning` as an explicit
# command-line opt-out", "to restore the previous behavior, set `error-on-warning = false`".
OPT_OUT = re.compile(r"`([^`\n]{2,60})`[^.\n`]{0,40}?\bas\s+an?\s+(?:explicit\s+)?(?:[\w-]+\s+){0,2}opt[- ]?out\b|"
                     r"\b(?:to\s+)?(?:restore|keep|preserve|get\s+back|revert\s+to|opt\s+out)\b[^.\n`]{0,60}?"
                     r"(?:old|previous|prior|former|existing)\s+behaviou?r[^.\n`]{0,40}?`([^`\n]{2,60})`", re.I)


def _said_findings(found: list[str]) -> list[str]:
    """The breaking findings a reason says: the first two, or every one of the same kind as those when they are
    alike (diffusers #12152 removed four public modules and its reason named two; the brief names a few of them
    and counts the rest, headline.briefly)."""
    heads = {f.rsplit(" ", 1)[0] for f in found[:2]}
    if len(found) > 2 and len(heads) == 1:
        return [f for f in found if f.rsplit(" ", 1)[0] in heads][:20]
    return found[:2]


@dataclass(frozen=True)
class _Reverted:
    """What a revert undoes, as far as its title and body say: a PR number, else the reverted title."""

    number: int | None = None
    title: str = ""
    also: tuple[int, ...] = ()  # the other PRs the body's revert sentence names ("and its follow-ups in #B, #C")

    def named(self, lang: str) -> str:
        """How the revert risk names what was reverted: its number, else its title (in a zh report in Chinese, or
        by the names it gives: an English title is not quoted in Chinese prose), else "an earlier change"."""
        if self.number or not self.title:
            return f"#{self.number}" if self.number else say(lang, "earlier_change")
        if lang != "zh":
            return f"“{self.title}”"
        said = translate.title(self.title)
        if said and not translate.leftover(said) and not translate.english_prose(said):  # "防止 being overwritten …"
            return f"“{said}”"
        names = [f"`{c}`" for c in re.findall(r"`([^`\n]{1,40})`", self.title)] or \
            textparse.IDENTIFIER.findall(self.title)
        return f"涉及 {names[0]} 的改动" if names else say(lang, "earlier_change")


def _revert(pr: PullRequest, description: str, kind: str) -> _Reverted:
    if kind != "revert":
        return _Reverted()
    # 'revert: "X"' keeps its quote outside the description; 'Revert "X"' and '[m] fix: Revert "X"' inside it.
    rest = TITLE.match(pr.title).group(2).strip()  # type: ignore[union-attr]
    number, title = reverted_ref(rest if REVERT_TITLE.match(rest) else description, pr.body)
    said = REVERTS_SENTENCE.search(pr.body or "")
    also = [int(n) for n in re.findall(r"#(\d+)", said.group(0))] if said else []
    return _Reverted(number, title, tuple(dict.fromkeys(n for n in also if n not in (number, pr.number))))


# What a revert's description says it reverts, as a list: ruff #26339 "This reverts #26163 and its follow-up changes
# in #26230, #26246, #26274,\n#26275, and #26316." (not "Reverts #1 because it broke #2")
_LISTED = r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+as\s+well\s+as\s+|\s+plus\s+)"
_FOLLOW_UPS = r"(?:(?:its|their|the)\s+follow-?ups?(?:\s+(?:changes?|prs?|fix(?:es)?))?\s+(?:(?:in|from|of)\s+)?)?"
REVERTS_SENTENCE = re.compile(rf"\breverts?\s+(?:pr\s+)?#\d+(?:{_LISTED}{_FOLLOW_UPS}#\d+)*", re.IGNORECASE)


def _summary_line(pr: PullRequest, summary: str, cleaned: str, description: str, kind: str, modules: list[str],
                  breaking: bool, signals: Signals, lang: str) -> str:
    """The PR's one-line summary, its description's synopsis; in a zh report an English PR's is built by
    prhub.engine.gist."""
    if lang == "zh" and textparse.language(f"{description} {summary}") != "zh":
        # An English PR in a Chinese report: the line is built from what the engine knows, names kept as written.
        summary = gist.zh_line(gist.Facts(pr.number, kind, PR_SUFFIX.sub("", description), modules, breaking,
                                          signals.fix_class, signals.new_object, signals.default_change,
                                          signals.only, cleaned))
    return summary


def _references(pr: PullRequest, reverts: int | None) -> list[int]:
    """The PRs the title and body refer to, the reverted one included."""
    refs = textparse.references(f"{pr.title}\n{pr.body}", own=pr.number)
    if reverts and reverts not in refs:
        refs = sorted([*refs, reverts])
    return refs


class Budget(Protocol):
    """A run's model-token budget (the flow's RunBudget backs it with the run's DynamoDB item, shared by every
    worker). A call reserves its estimate before it is sent and settles for what it cost, so calls in flight never
    overspend it together; `exhausted` says which limit stops the model."""

    exhausted: str

    def reserve(self, tokens: int) -> bool: ...

    def settle(self, reserved: int, spent: int) -> None: ...


class Scorer(Protocol):
    kind: str  # heuristic | llm
    model: str | None
    prompt_version: str  # part of the cache key

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR: ...


class HeuristicScorer:
    """The engine as a Scorer. `registry` answers the version look-ups of repositories that turn check_registry on
    (Deps hands the stack's in, through Scorers.engine); without one, pins are not looked up."""

    kind = "heuristic"
    model: str | None = None

    def __init__(self, registry: VersionRegistry | None = None, language: str = "zh") -> None:
        self.registry = registry
        # The engine writes its reasons and risk details in the report's language: part of the cache key.
        self.prompt_version = f"{ENGINE_VERSION}-{language}"

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR:
        return score_pull(pr, config, self.registry if config.check_registry else None)


# What the engine judges with, besides its code: the constants of these modules and of this one. The rule table
# (each row's name, points, group and phrase; BASE and the caps' figures) and every pattern, word list and phrase
# table the type, breaks, facts, insight, summary, risks and review facts are read with; the glossary file
# (lexicon.GLOSSARY) and the importance model learned across repositories (prior.MODEL) by their content, with
# the facts beside the rules it weighs (features). The translator's word lists, phrase and clause patterns are
# in its modules (translate, lexicon, noun_phrases, verb_phrases).
JUDGED_BY = (rules, wording, changes, classify, conventions, textparse, synopsis, gist, translate, lexicon,
             noun_phrases, verb_phrases, risks, releases, reviews, core_text, features, prior)


def engine_version() -> str:
    """`engine-<REVISION>-<hash of the constants of JUDGED_BY and this module>`: a changed rule, pattern or phrase
    makes a new version, stable across processes (prhub.engine.fingerprint)."""
    digest = fingerprint.digest((*JUDGED_BY, sys.modules[__name__]), skip=("ENGINE_VERSION", "JUDGED_BY"))
    return f"engine-{REVISION}-{digest}"


ENGINE_VERSION = engine_version()
