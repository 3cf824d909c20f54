"""The engine's judgement of importance as a table of rules: a condition, the points it moves, the reason shown.

Importance (0–10) answers "does the reader of the weekly report need to know?". It starts from the change
type's base (BASE) and adds the points of every rule in RULES whose condition holds; a rule in a `group`
counts only when no earlier rule of that group did (a fix is judged by the worst thing it repairs, once).
Above 8 a point counts half, so a week's milestones land at 8–9.5. Then the lowest CAPS that holds limits
the score: docs, tests, CI, examples or dependency files only, typo fixes, housekeeping named in the title,
reverts, a repository's own chore conventions. Every rule that moves the score leaves its phrase (its row's, in
zh and en) in `reasons`; `importance` also says which rules fired and the cap that bound the score, which is what
prhub.engine.learning learns from. The table's rows, phrases and patterns are part of the engine's version
(prhub.engine.scoring.ENGINE_VERSION): a changed row cannot reuse a result cached before it.

What is the product depends on the repository: a housekeeping word (`lint`, `script`) that names a folder
of the repository's own source is its work, not housekeeping, and `RepoConfig.product_kinds` lifts the caps
of the file kinds a repository ships (a documentation site's docs). Calibrated on the judged panels in
bench/panel.py (docs/calibration.md).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest
from prhub.engine.changes import adds_inline_tests, is_generated, versions_named
from prhub.engine.wording import type_word

BASE = {"feat": 3.0, "perf": 3.0, "fix": 2.5, "revert": 2.5, "refactor": 2.0, "chore": 1.5, "test": 1.0,
        "docs": 1.0, "ci": 1.0}
SURFACE = re.compile(r"\b(api|interface|config\w*|option\w*|argument\w*|args?|flag\w*|cli|parameter\w*|"
                     r"endpoint\w*|backend\w*|model\w*|algorithm\w*|engine\w*)\b", re.I)
# Severity of what a fix repairs. A result silently changed (wrong gradients, stale weights, a lost token) is worse
# than a hang, and a hang worse than a crash or an OOM: the crash announces itself, the wrong loss curve does not.
SILENT = re.compile(r"\b(wrong\w*|incorrect\w*|correct(?:s|ed|ly|ing)?|silent\w*|corrupt\w*|data loss|lose|loses|"
                    r"lost|stale|never|nan|inf|diverg\w*|mismatch\w*|misalign\w*|accuracy|precision|numerical\w*|"
                    r"normali[sz]\w*|blow-?ups?|explod\w*|race condition|race|ignored|"
                    r"not (?:be )?(?:loaded|applied|synced|used|passed)|missing|leak\w*|memory leak\w*)\b"
                    r"|精度|错误结果|不一致", re.IGNORECASE)
STUCK = re.compile(r"\b(hang|hangs|hanging|hung|deadlock\w*|stuck|stall\w*|block(?:s|ing|ed)?|unblock\w*)\b"
                   r"|死锁|卡住", re.IGNORECASE)
CRASH = re.compile(r"\b(crash\w*|ooms?|out of memory|segfault\w*|broken|error\w*|fail\w*|bug\w*|exception\w*|"
                   r"assert\w*|invalid|regression|keyerror|typeerror|valueerror|attributeerror|importerror)\b"
                   r"|崩溃|报错|失败", re.IGNORECASE)
# What training computes: a fix there changes results even when the title names no symptom.
NUMERICS = re.compile(r"\b(loss\w*|grad\w*|advantages?|rewards?|log_?probs?|logprobs?|entropy|kl|weights?|"
                      r"normali[sz]\w*|masks?|position\w*|rope|routing|router|experts?|metrics?|flops|tflops|"
                      r"sampling|tokeni[sz]\w*|chat_template|padding)\b", re.IGNORECASE)
# A dependency bump's title: one that closes an advisory is the bump it is.
BUMP_TITLE = re.compile(r"^(bump\w*|upgrad\w*|updat\w*|pin\w*)\b", re.IGNORECASE)
# A security advisory's id: a CVE, or GitHub's GHSA-xxxx-xxxx-xxxx.
ADVISORY = re.compile(r"\bCVE-\d{4}-\d{4,}\b|\bGHSA(?:-[0-9a-z]{4}){3}\b", re.IGNORECASE)
# Titles of feats that polish what exists rather than add to it.
NOT_NEW = re.compile(r"^(polish\w*|refin\w*|improv\w*|tid\w*|clean\w*|updat\w*|bump\w*|upgrad\w*|renam\w*|mov\w*|"
                     r"minor|unif\w*|simplif\w*|deprecat\w*)\b", re.IGNORECASE)
# What a new capability adds, when the title names it: a model family, a backend or engine, an algorithm or loss.
OBJECT = re.compile(r"\b(deepseek\w*|qwen\w*|glm\w*|gemma\w*|llama\w*|mistral\w*|mixtral|gpt-?oss|kimi\w*|minicpm\w*|"
                    r"pi0\S*|apertus|internvl\w*|vlm|vl|moe|"
                    r"backend\w*|engine\w*|rollout\w*|server mode|trainer|worker\w*|critic|reward model|"
                    r"algorithm\w*|loss\w*|objective\w*|distillation|grpo|ppo|dapo|gspo|sac|dro|prime|flowrl|"
                    r"correction|masking|lora|fp8|mxfp4|quantiz\w*|"
                    r"weight sync\w*|weight transfer|checkpoint\w*|parallel\w*|pipeline|pp|vpp|cp|ep|tp|dp|sharded|"
                    r"offload\w*|async|disaggregat\w*|streaming|dataloader|multi-?turn|agent\w*|tool calls?)\b", re.I)
PERF_WORDS = re.compile(r"\b(speed\w*|faster|throughput|latency|perf\w*|optimi[sz]\w*|accelerat\w*|efficien\w*|"
                        r"overlap\w*|memory|mfu|tflops|reduc\w*|compile time|zero-copy)\b|加速|性能|吞吐", re.I)
MEASURE = re.compile(r"\d+(?:\.\d+)?\s*(?:x|×|%|ms|sec\w*|min\w*|gb|gib|mb|mib|tokens?/s|tok/s|it/s|samples?/s|"
                     r"tflops|mfu)(?![a-z])", re.I)
REMOVAL = re.compile(r"\b(remov\w*|deprecat\w*|drop\w*|delet\w*|migrat\w*|retir\w*|clean\w*\s*up|mov\w*|"
                     r"replac\w*|legacy)\b", re.I)
TYPO = re.compile(r"\b(typo\w*|spelling|misspell\w*|grammar|wording|badge\w*|broken link|dead link|fix (the )?link\w*|"
                  r"comments?|docstrings?)\b|错别字", re.I)
# Housekeeping named in the title: fixing CI or lint, tuning a log line, a script, an image, a warning.
# A word joined by a hyphen names something else: cargo's "cargo-script" and "1.95-nightly" are its product.
HOUSEKEEPING = re.compile(r"(?<![\w-])(ci|nightly|pre-?commit|lint\w*|e2e tests?|unit tests?|flaky|workflows?|"
                          r"docker\w*|images?|dockerfile\w*|warnings?|log(?:s|ging)?(?![-_])|print\w*|readme|news|"
                          r"meetup|scripts?|examples?|typing|type hints?|mypy|ruff|timeout)\b(?!-)", re.I)
LOW_TAGS = {"ci", "doc", "docs", "test", "tests", "env", "docker", "deployment", "example", "examples"}
# A title that says a default changes ("enable V1 trainer by default", "set ETP default to null"): users who relied
# on the old behaviour get the new one without touching their config.
# "make" only with its object and "(the) default" next ("make X the default"): "Make it easier to visually scan for
# default features" (axum #3550) changes no default, nor does "Make the default database truly infallible" (ruff
# #23929): "make" names its object before "(the) default".
# A runtime version its users may still run, no longer supported ("Drop Python 3.9 support", "Drop Python 3.9, add
# 3.13", "Remove support for Node 18"): they must upgrade it to upgrade the package.
RUNTIME_DROPPED = re.compile(r"^(?:drop\w*|remov\w*|end\w*)\s+(?:support\s+for\s+)?(?P<name>python|py|node(?:\.?js)?|"
                             r"ruby|php|java|go)\s*(?P<version>v?\d+(?:\.\d+)*)(?:\s+support)?"
                             r"(?=$|\s*[,;(]|\s+(?:and|as|since|because|which)\b)", re.I)  # not "Python 2-only methods"
DEFAULT_CHANGE = re.compile(r"\b(chang\w*|switch\w*|set|sets|flip\w*|enabl\w*|disabl\w*|"
                            r"turn\w*\s+(?:on|off)|revert\w*)\b[^.;]{0,60}\bdefaults?\b|"
                            r"\bmakes?\s+(?!(?:the|a|an)\s)(?:[\w`.-]+\s+){1,4}?(?:the\s+|a\s+)?defaults?\b(?!\s+features?\b)|"
                            r"\b(?:drop\w*|remov\w*|add\w*)\b[^.;]{0,60}\b(?:from|to)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}"
                            r"defaults?\b(?!\s+(?:config\w*|ya?ml|files?|settings)\b)|"  # "Drop a few rules from the
                            # preview default set" (ruff #23879); "add X to default config" adds to a file
                            r"\bby default\b|\bdefaults?\s+(?:to|from)\b", re.I)
# How a description explains what a fix repairs: the cause, the conditions, the state before the change.
EXPLAINS = re.compile(r"\b(root cause|the cause|caused by|is caused|was caused|because|happens when|occurs when|"
                      r"this is due|due to|before this (?:pr|change)|previously|currently,? (?:when|if|the|we)|"
                      r"regress\w* (?:from|in|since)|the bug|the issue (?:is|was))\b|根因|原因是|导致", re.I)
# A description that quotes the failure it fixes (a traceback, an exception's name): the failure announced itself.
ANNOUNCED = re.compile(r"\btraceback\b|\b[A-Z]\w*(?:Error|Exception)\b|"
                       r"\b(?:crash\w*|segfault\w*|raises?|fails?|failed|failing)\b|out of memory|\bOOM\w*", re.I)
FIXES_ISSUE = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s*(?:[\w.-]+/[\w.-]+)?(?:#|"
                         r"https://github\.com/[\w.-]+/[\w.-]+/issues/)(\d+)", re.I)
# Runtime manifests: what a user installs with the package. Cargo.toml is not one: Rust crates are built in.
RUNTIME_MANIFEST = re.compile(r"(^|/)(setup\.py|setup\.cfg|pyproject\.toml|requirements(?!-?(?:dev|test|doc|ci|lint))"
                              r"[^/]*\.txt|package\.json|environment\.ya?ml)$", re.I)
REQUIREMENT = re.compile(r"\b([A-Za-z][\w.-]*[A-Za-z0-9])\s*(>=|==|~=|<=|<|>)\s*(v?\d+(?:\.\w+)*)")
# A title that says its change is documentation, whatever files it edits (docstrings live in source files).
DOCS_TITLE = re.compile(r"\b(docstrings?|doc ?strings?|documentation|docs?|tutorials?|guides?|readme|typos?)\b", re.I)
CHANGELOG = re.compile(r"(^|/)(changelog|changes|news|release[-_]?notes)[^/]*\.(md|rst|txt)$|(^|/)\.changeset/", re.I)
LOW_CAP = {"docs": 2.5, "test": 2.5}  # a kind a repository ships (product_kinds) is not capped


@dataclass
class Signals:
    """What the importance rules saw, for the one-line gist (prhub.engine.gist)."""

    fix_class: str = ""  # silent | stuck | numerics | silent_body | stuck_body | oom | crash
    new_object: str = ""
    default_change: bool = False
    only: str = ""  # docs | tests | ci | examples | deps when every file is of that kind


@dataclass
class Facts:
    """What the rules read of one PR, computed once."""

    pr: PullRequest
    kind: str  # the change type
    title: str  # the title's description (tags and type removed)
    text: str  # title and the cleaned description's opening
    body: str  # the cleaned description
    kinds: list[str]  # each file's kind
    breaking: bool
    tagged_breaking: bool
    breaking_reason: str
    config: RepoConfig
    declared: str | None = None  # the type the title declares (`chore:`), if any
    pairs: list[tuple[Any, str]] = field(default_factory=list)
    code_lines: int = 0
    new_code: int = 0
    present: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    marker: str = ""  # the repository's "not worth noting" marker the PR carries (prhub.engine.conventions)
    reported: str = ""  # the type the PR is shown with: the repository's word where it says one, else `kind`
    released: str = ""  # what it releases (prhub.engine.releases), read once for its type, risks and result

    def __post_init__(self) -> None:
        self.pairs = [(f, k) for f, k in zip(self.pr.files, self.kinds, strict=True) if not is_generated(f.filename)]
        self.code_lines = sum(f.changes for f, k in self.pairs if k == "source")
        self.new_code = sum(f.additions for f, k in self.pairs if k == "source" and f.status == "added")
        self.present = {k for _, k in self.pairs}
        if any(k == "source" and adds_inline_tests(f) for f, k in self.pairs):
            self.present.add("test")  # tests written beside the code (Rust's #[test] in src/)

    @property
    def core(self) -> bool:
        return self.code_lines > 0

    @property
    def labels(self) -> set[str]:
        return {label.strip().lower() for label in self.pr.labels}


# --- conditions: each returns the phrase's placeholders (a dict, possibly empty) when it holds, else None ------

Hit = dict[str, Any] | None


def _words_hit(pattern: re.Pattern[str], where: str, kinds: tuple[str, ...], title_only: bool = True
               ) -> Callable[[Facts], Hit]:
    """A fix-severity condition: `pattern` in the title (or description), for a fix (or any of `kinds` in the title)."""
    def condition(f: Facts) -> Hit:
        # Identifiers count by their words: `scale_rewards` names rewards.
        found = pattern.search((f.title if where == "title" else f.text).replace("_", " "))
        if found and f.kind != "fix" and REMOVAL.search(f.title):
            return None  # what a chore removes, not what it repairs: "remove not used benchmarks", "drop stale docs"
        if found and (f.kind == "fix" or (f.kind in kinds and where == "title" and title_only)):
            return {"word": found.group(0).lower()}
        return None
    return condition


def _subsystem_removed(f: Facts) -> Hit:
    """A break that takes a whole folder of the library away: many source lines or files deleted under one folder."""
    if not f.breaking or not (REMOVAL.search(f.title) or f.kind == "refactor"):
        return None
    removed = [fc for fc, k in f.pairs if k == "source" and fc.status == "removed"]
    deleted = sum(fc.deletions for fc, k in f.pairs if k == "source")
    added = sum(fc.additions for fc, k in f.pairs if k == "source")
    if len(removed) < 3 and deleted < 500 or deleted < 2 * added:
        return None
    folders = Counter(fc.filename.rsplit("/", 1)[0] for fc in removed or [fc for fc, k in f.pairs if k == "source"])
    return {"what": min(folders, key=lambda d: (-folders[d], d)) if folders else "", "lines": deleted}


def _user_dependency(f: Facts) -> Hit:
    """An upgrade of a package users install with the project: named with its version, in a runtime manifest."""
    if f.declared in ("ci", "test", "docs") or not any(RUNTIME_MANIFEST.search(fc.filename)
                                                                for fc, _ in f.pairs):
        return None
    if found := REQUIREMENT.search(f.title):
        return {"what": f"{found.group(1)}{found.group(2)}{found.group(3)}"}
    named = [p for p in versions_named(f.title, "title") if p.spec.strip() and len(p.name) >= 3
             and p.name.lower() not in ("version", "dev")]
    return {"what": f"{named[0].name}{named[0].spec.replace(' ', '', 1)}"} if named else None


def _explained_fix(f: Facts) -> Hit:
    """A correctness fix whose description says what went wrong (its cause, or the state before the change), and
    not a failure that announced itself (a quoted exception or crash: the user already knew)."""
    if f.kind != "fix" or len(f.body.split()) < 25 or ANNOUNCED.search(f.body):
        return None
    return {} if EXPLAINS.search(f.body) else None


def _silent_in_body(f: Facts) -> Hit:
    """The description tells of a result silently changed, and of no exception or crash."""
    return None if ANNOUNCED.search(f.body) else _words_hit(SILENT, "text", ())(f)


def _numerics_silent(f: Facts) -> Hit:
    """A fix of what training computes (the title) whose description says the result came out wrong."""
    if _words_hit(NUMERICS, "title", (), title_only=False)(f) is None or _words_hit(SILENT, "title", ())(f):
        return None
    return _silent_in_body(f)


def _reported_issue(f: Facts) -> Hit:
    """A fix of an issue users filed (`Fixes #N`)."""
    if f.kind != "fix":
        return None
    found = FIXES_ISSUE.search(f"{f.pr.title}\n{f.pr.body or ''}")
    return {"ref": found.group(1)} if found else None


def _security_fix(f: Facts) -> Hit:
    """A fix of the repository's own code that names the advisory it closes (a CVE or GitHub's GHSA id): users
    upgrade for it. A dependency bump that closes one is capped as the bump it is (cap_dependency)."""
    found = ADVISORY.search(f.title) if f.code_lines and not BUMP_TITLE.match(f.title) else None
    return {"id": found.group(0).upper()} if found else None


def _new_capability(f: Facts) -> Hit:
    return {} if f.kind in ("feat", "perf") and not REMOVAL.match(f.title) and not NOT_NEW.match(f.title) else None


def _named_object(f: Facts) -> Hit:
    if _new_capability(f) is None or not f.core:
        return None
    named = OBJECT.search(f.title)
    return {"what": named.group(0)} if named else None


def _new_surface(f: Facts) -> Hit:
    return {} if _new_capability(f) is not None and _named_object(f) is None and SURFACE.search(f.title) else None


def _sizeable(f: Facts) -> Hit:
    return {"lines": f.code_lines} if f.code_lines and SIZE(f) >= 1.8 else None


def _spread(f: Facts) -> Hit:
    """How many packages of the library the change touches (`verl/workers`, `src/cargo`, ...)."""
    n = len({"/".join(fc.filename.split("/")[:2]) for fc, k in f.pairs if k == "source"})
    return {"n": n} if f.code_lines and n >= 3 else None


def _highlighted(f: Facts) -> Hit:
    """The repository's own word that a change matters: a highlight or release-notes label."""
    marked = f.labels & {label.lower() for label in f.config.highlight_labels}
    return {"label": sorted(marked)[0]} if marked else None


def _changelog_entry(f: Facts) -> Hit:
    """A change that writes its own changelog entry (not a release, which writes them all)."""
    if f.kind == "chore" or not f.core:
        return None
    return {} if any(CHANGELOG.search(fc.filename) for fc, _ in f.pairs) else None


@dataclass(frozen=True)
class Phrase:
    """A rule's reason as a report in each language says it; placeholders take the condition's values."""

    en: str
    zh: str

    def say(self, lang: str, **values: Any) -> str:
        return (self.zh if lang == "zh" else self.en).format(**values)


# Points computed from the facts, as data (not lambdas) so the engine's version sees their figures.

@dataclass(frozen=True)
class IfCore:
    """`core` points for a change of the library code, `outside` for one that touches none."""

    core: float
    outside: float

    def __call__(self, f: Facts) -> float:
        return self.core if f.core else self.outside


def _core_third(points: float) -> IfCore:
    return IfCore(points, points / 3)


@dataclass(frozen=True)
class IfLines:
    """`large` points from `lines` library lines on, `small` below."""

    lines: int
    large: float
    small: float

    def __call__(self, f: Facts) -> float:
        return self.large if f.code_lines >= self.lines else self.small


@dataclass(frozen=True)
class LogLines:
    """log10 of the library lines (generated files aside), at most `most`."""

    most: float

    def __call__(self, f: Facts) -> float:
        return min(self.most, math.log10(1 + f.code_lines))


@dataclass(frozen=True)
class Lifted:
    """A cap of `low`, lifted to `breaking` for a change that breaks its users (they need to hear of it)."""

    low: float
    breaking: float = 4.5

    def __call__(self, f: Facts) -> float:
        return self.low if not f.breaking else self.breaking


SIZE = LogLines(3.5)


@dataclass(frozen=True)
class Rule:
    """One line of the table: when `condition` holds, `points` (a number, or one computed from the facts) are
    added (for a cap: the score is held below them) and `phrase` is shown with the condition's placeholders."""

    name: str
    condition: Callable[[Facts], Hit]
    points: float | Callable[[Facts], float]
    phrase: Phrase | None  # None: the rule moves the score quietly
    group: str = ""  # only the first rule of a group that holds counts
    graded: bool = False  # the learner reads its points, not only that it fired (prhub.engine.learning)

    def points_for(self, f: Facts) -> float:
        return self.points(f) if callable(self.points) else self.points


# The type's base is said first; a fix outside the library code is said so, whatever its group's rule.
TYPE_CHANGE = Phrase("{kind} change", "{kind}类改动")
FIX_OUTSIDE = Phrase("fix ({word}) outside the library code", "库代码以外的修复（{word}）")
FIX_KINDS = ("revert", "refactor", "perf", "chore")  # types whose title may name what a fix repairs

RULES: tuple[Rule, ...] = (
    Rule("breaking", lambda f: {} if f.breaking and f.tagged_breaking else None, 2.0,
         Phrase("breaking change", "破坏性变更")),
    Rule("breaking_inferred", lambda f: {"why": f.breaking_reason} if f.breaking and not f.tagged_breaking else None,
         1.0, Phrase("breaking: {why}", "破坏性变更：{why}")),
    Rule("subsystem_removed", _subsystem_removed, 2.5,
         Phrase("removes a whole subsystem ({what}, −{lines} lines)", "移除整个子系统（{what}，−{lines} 行）")),
    # A fix is judged by the worst it repairs; outside the library code a third of it (said FIX_OUTSIDE).
    Rule("security_fix", _security_fix, 2.0, Phrase("fixes security advisory {id}", "修复安全公告 {id}")),
    Rule("fix_silent", _words_hit(SILENT, "title", FIX_KINDS), _core_third(2.5),
         Phrase("fixes a result silently changed ({word})", "修复悄然改变结果的问题（{word}）"), "fix"),
    Rule("fix_stuck", _words_hit(STUCK, "title", FIX_KINDS), _core_third(2.0),
         Phrase("fixes a hang ({word})", "修复卡死问题（{word}）"), "fix"),
    Rule("fix_numerics", _words_hit(NUMERICS, "title", (), title_only=False), _core_third(1.5),
         Phrase("fixes what training computes ({word})", "修复训练计算的内容（{word}）"), "fix"),
    Rule("fix_silent_body", _silent_in_body, _core_third(1.5),
         Phrase("the description shows results silently changed ({word})", "描述表明结果曾被悄然改变（{word}）"),
         "fix"),
    Rule("fix_stuck_body", _words_hit(STUCK, "text", ()), _core_third(1.0),
         Phrase("the description shows a hang ({word})", "描述表明曾出现卡死（{word}）"), "fix"),
    Rule("fix_crash", _words_hit(CRASH, "title", FIX_KINDS), _core_third(0.5),
         Phrase("fixes a failure ({word})", "修复报错（{word}）"), "fix"),
    Rule("numerics_silent", _numerics_silent, _core_third(1.0),
         Phrase("what training computes came out wrong ({word})", "训练算出的结果曾经有误（{word}）")),
    Rule("explained_fix", _explained_fix, IfCore(1.0, 0.3),
         Phrase("the description explains what went wrong", "描述说明了问题的原因")),
    Rule("reported_issue", _reported_issue, IfCore(0.5, 0.0),
         Phrase("fixes a reported issue (#{ref})", "修复用户报告的问题（#{ref}）")),
    Rule("new_capability", _new_capability, IfLines(30, 1.0, 0.5), Phrase("new capability", "新功能")),
    Rule("new_object", _named_object, IfLines(100, 1.0, 0.5),
         Phrase("names what it adds ({what})", "点明新增对象（{what}）")),
    Rule("new_surface", _new_surface, 0.5, Phrase("new API/config/backend surface", "新增接口、配置或后端")),
    Rule("touches_surface", lambda f: {} if f.kind == "refactor" and f.core and (
        SURFACE.search(f.title) or OBJECT.search(f.title)) else None, 0.5,
         Phrase("touches an API surface", "涉及接口")),
    Rule("perf_measured", lambda f: {} if (f.kind == "perf" or PERF_WORDS.search(f.title)) and MEASURE.search(f.text)
         else None, 1.5, Phrase("performance gain with measured numbers", "性能提升，附实测数据"), "perf"),
    Rule("perf_unmeasured", lambda f: {} if f.kind == "perf" else None, 0.5,
         Phrase("performance change (no numbers given)", "性能改动（未给出数据）"), "perf"),
    Rule("default_change", lambda f: {} if DEFAULT_CHANGE.search(f.title) and f.core else None, 1.0,
         Phrase("changes a default users get without asking", "修改了用户默认得到的行为")),
    Rule("user_dependency", _user_dependency, 1.5,
         Phrase("upgrades a dependency users install ({what})", "升级用户安装的依赖（{what}）")),
    Rule("large_removal", lambda f: {"lines": f.pr.deletions} if f.pr.deletions >= 300 and (
        REMOVAL.search(f.title) or f.kind == "refactor" or "refactor" in f.title.lower()) else None, 1.0,
         Phrase("large removal/migration (−{lines} lines)", "大规模删除或迁移（−{lines} 行）")),
    # The library change's size (log scale, generated files aside) adds quietly; past 1.8 points it is named.
    Rule("size", lambda f: {} if f.code_lines else None, SIZE, None, graded=True),
    Rule("sizeable", _sizeable, 0.0,
         Phrase("sizeable code change ({lines} source lines)", "代码改动较大（{lines} 行源代码）")),
    Rule("new_code", lambda f: {"lines": f.new_code} if f.code_lines and f.new_code >= 150 else None, 0.5,
         Phrase("new code ({lines} lines in new files)", "新增代码（新文件 {lines} 行）")),
    Rule("spread", _spread, 0.5, Phrase("spans {n} packages", "涉及 {n} 个包")),
    Rule("with_tests", lambda f: {} if f.core and "test" in f.present and f.kind in ("feat", "perf", "fix", "refactor")
         else None, 0.5, Phrase("comes with tests", "附带测试")),
    Rule("measured_body", lambda f: {} if len(MEASURE.findall(f.text)) >= 2 and f.kind in ("feat", "perf", "fix")
         else None, 0.5, Phrase("the description gives measured numbers", "描述给出了实测数据")),
    Rule("highlighted", _highlighted, 1.5, Phrase("marked {label} by the repository", "仓库标记为 {label}")),
    Rule("changelog_entry", _changelog_entry, 0.5, Phrase("writes its own changelog entry", "附带变更日志条目")),
)


# --- caps: rules whose points are a ceiling; the lowest that holds limits the score ------------------------

def _only(f: Facts, kinds: set[str]) -> bool:
    return bool(f.present) and f.present <= kinds and not (f.present & set(f.config.product_kinds))


def _housekeeping(f: Facts) -> Hit:
    """Housekeeping the title names, unless the word names a folder of the repository's own source (cargo's lints,
    its `script` module) or follows the repository's name (cargo's "cargo script"): there it is the product's work."""
    house = HOUSEKEEPING.search(f.title)
    if not house or f.title[:house.start()].rstrip().lower().endswith(f.config.name.lower()):
        return None  # the repository's name before the word names its own feature ("cargo script")
    stem = house.group(0).lower().rstrip("s")
    if len(stem) >= 4 and any(stem in part.lower() for fc, k in f.pairs if k == "source"
                              for part in fc.filename.split("/")[:-1]):
        return None
    return {"word": house.group(0).lower()}


def _low_tags(f: Facts) -> Hit:
    return {"tags": "/".join(sorted(f.tags))} if f.tags and f.tags <= LOW_TAGS and _subsystem_removed(f) is None \
        else None


def _repo_chore(f: Facts) -> Hit:
    """The repository's own chore convention: a `chore:` title, or a chore label of its configuration."""
    if f.declared == "chore" and f.kind == "chore" and not f.breaking and _user_dependency(f) is None:
        return {"word": "chore:"}
    marked = f.labels & {label.lower() for label in f.config.chore_labels}
    return {"word": sorted(marked)[0]} if marked else None


BUMP = Phrase("version bump", "版本升级")  # a dependency a user installs or not: a bump either way

CAPS: tuple[Rule, ...] = (
    Rule("cap_typo", lambda f: {} if TYPO.search(f.title) and f.code_lines < 50 else None, 1.0,
         Phrase("typo/wording fix", "错别字或措辞修正")),
    Rule("cap_docs", lambda f: {} if _only(f, {"docs"}) else None, LOW_CAP["docs"],
         Phrase("documentation only", "仅改文档")),
    Rule("cap_tests", lambda f: {} if _only(f, {"test"}) else None, LOW_CAP["test"], Phrase("tests only", "仅改测试")),
    Rule("cap_ci", lambda f: {} if _only(f, {"ci", "test"}) else None, 2.0, Phrase("CI only", "仅改 CI")),
    Rule("cap_support", lambda f: {} if _only(f, {"docs", "ci", "test"}) else None, 3.0,
         Phrase("only docs, tests and CI", "只改文档、测试和 CI")),
    Rule("cap_examples", lambda f: {} if _only(f, {"example", "docs", "test", "ci", "other", "config"})
         and "example" in f.present else None, Lifted(3.0), Phrase("examples/recipes only", "仅改示例或配方")),
    Rule("cap_bump", lambda f: {} if _only(f, {"deps", "ci", "docs", "test", "other", "example"})
         and "deps" in f.present and _user_dependency(f) is None else None, Lifted(3.0), BUMP),
    Rule("cap_dependency", lambda f: {} if _only(f, {"deps", "ci", "docs", "test", "other", "example"})
         and _user_dependency(f) is not None else None, Lifted(5.0), BUMP),
    Rule("cap_docs_title", lambda f: {} if DOCS_TITLE.search(f.title) and f.kind in ("docs", "refactor", "feat", "fix",
                                                                                  "chore")
         and f.code_lines < 150 and "docs" not in f.config.product_kinds else None, 3.0,
         Phrase("documentation by its title", "标题表明是文档改动")),
    Rule("cap_nothing", lambda f: {} if not f.present else None, 2.0, Phrase("no file changed", "没有改动文件")),
    Rule("cap_tagged", _low_tags, Lifted(3.0), Phrase("tagged {tags} only", "仅标注 {tags}")),
    Rule("cap_housekeeping", lambda f: _housekeeping(f) if _subsystem_removed(f) is None else None, 3.5,
         Phrase("housekeeping ({word})", "日常维护（{word}）")),
    Rule("cap_chore", _repo_chore, 3.0,
         Phrase("a chore by the repository's convention ({word})", "按仓库惯例属于杂务（{word}）")),
    # The repository's own "not worth noting" (`minor:`, a skip-changelog label): below key, even when it breaks.
    Rule("cap_marker", lambda f: {"word": f.marker} if f.marker else None, 2.5,
         Phrase("not worth noting by the repository's convention ({word})", "按仓库惯例无需特别关注（{word}）")),
    Rule("cap_revert", lambda f: {} if f.kind == "revert" else None, 4.5,
         Phrase("a revert undoes, it adds nothing", "回滚只撤销改动，不新增功能")),
)


@dataclass(frozen=True)
class Fired:
    """A rule that moved a PR's score, and by how many points."""

    rule: Rule
    points: float


@dataclass(frozen=True)
class Importance:
    """A PR's importance, the phrase of every rule that moved it, what the gist needs, and what moved it: the rules
    that fired (the first of each group) and the caps that bound the score."""

    score: float
    reasons: tuple[str, ...]
    signals: Signals
    fired: tuple[Fired, ...]
    caps: tuple[Rule, ...]  # the lowest caps that held, when they bound the score, by name; equal caps bind together
    ceiling: float = 10.0  # the lowest cap that held, bound or not (10 without one): what nothing lifts the PR past

    @property
    def cap(self) -> Rule | None:
        """The cap that bound the score (of equal ones, the first by name), if one did."""
        return self.caps[0] if self.caps else None


def importance(f: Facts) -> Importance:
    """Importance with the phrase of every rule that moved it, and what it saw (see the module docstring)."""
    lang = f.config.language
    score = BASE[f.kind]
    reasons = [TYPE_CHANGE.say(lang, kind=type_word(lang, f.kind))]
    signals = Signals()
    fired: list[Fired] = []
    done: set[str] = set()
    for rule in RULES:
        if rule.group and rule.group in done:
            continue
        hit = rule.condition(f)
        if hit is None:
            continue
        done.add(rule.group)
        points = rule.points_for(f)
        score += points
        fired.append(Fired(rule, points))
        if rule.group == "fix" and not f.core:
            reasons.append(FIX_OUTSIDE.say(lang, **hit))
        elif rule.phrase is not None:
            reasons.append(rule.phrase.say(lang, **hit))
        _signal(signals, rule.name, hit)
    if score > 8.0:  # the scale's top is for the week's milestones: what lies above 8 counts half
        score = 8.0 + (score - 8.0) / 2
    held = [(cap.points_for(f), cap, hit) for cap in CAPS if (hit := cap.condition(f)) is not None]
    low = min((points for points, _, _ in held), default=score)
    bound = sorted(((cap, hit) for points, cap, hit in held if points == low < score), key=lambda c: c[0].name)
    if bound:
        score = low
        # Of equal caps the reason shown is the first by its phrase in the report's language (as engine-12 had it).
        reasons.append(min(cap.phrase.say(lang, **hit) for cap, hit in bound if cap.phrase is not None))
    signals.only = next((name for name, group, needs in (
        ("docs", {"docs"}, "docs"), ("tests", {"test"}, "test"), ("ci", {"ci", "test"}, "ci"),
        ("examples", {"example", "docs", "test", "ci", "other", "config"}, "example"),
        ("deps", {"deps", "ci", "docs", "other"}, "deps"))  # code beside it (a test adapted, a suite removed) is more
        if needs in f.present and f.present <= group), "")
    return Importance(round(max(0.0, min(10.0, score)), 1), tuple(reasons), signals, tuple(fired),
                      tuple(cap for cap, _ in bound), min(low, 10.0) if held else 10.0)


def _signal(signals: Signals, name: str, hit: dict[str, Any]) -> None:
    """What the gist needs to know of the rules that held."""
    if name.startswith("fix_"):
        word = str(hit.get("word", ""))
        signals.fix_class = ("oom" if word.startswith(("oom", "out of")) else "crash") if name == "fix_crash" \
            else name.removeprefix("fix_")
    elif name == "new_object":
        signals.new_object = str(hit["what"])
    elif name == "default_change":
        signals.default_change = True
