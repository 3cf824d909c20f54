"""The deterministic engine's per-PR judgement: modules, type, breaking, importance, insight, risks.

Contract: `score_pull(pr, config, registry=None) -> ScoredPR`, deterministic; no I/O
unless a `registry` is handed in and `config.check_registry` is on.

Importance (0–10) answers "does the reader of the weekly report need to know?". It adds, from the
change type's base: a break (declared or inferred); for fixes, how bad what they repair was (a result
silently changed > a hang > what training computes > a crash or OOM; a third of that outside the library
code); for feats, a new capability and the thing it names (a model family, backend, algorithm, weight-sync
or parallelism mechanism); a measured speed-up; a default users get without asking; a large removal; the
size of the library change (log scale, generated files ignored), new files, the packages it spans, tests
shipped with it and numbers in the description. Above 8 a point counts half, so a week's milestones land
at 8–9.5. Then caps: docs, tests, CI, examples or dependency files only, typo fixes, housekeeping named in
the title (CI, docker, scripts, warnings), reverts. Every step that moves the score leaves a phrase in
`reasons`, calibrated on the judged panel in bench/panel.py (docs/calibration.md).

Insight (0–10) is what a reader learns from the description once the PR template is stripped: why
(root cause, motivation), how (a design section, trade-offs) and proof (measured results, test evidence),
plus its length; the last reason says which parts were found.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest, ScoredPR
from prhub.core.period import format_timestamp
from prhub.engine import gist, textparse
from prhub.engine.changes import breaking_reasons, file_kind, is_generated
from prhub.engine.risks import VersionRegistry, assess
from prhub.engine.wording import joined, say, type_word

# Bumped whenever the engine's judgement changes, so cached results are not reused across versions.
ENGINE_VERSION = "engine-7"

TITLE = re.compile(r"^\s*((?:\[[^\]]*\]\s*)*)\s*(.*)$", re.DOTALL)
CONVENTIONAL = re.compile(r"^\(?([A-Za-z]+)\)?(?:\(([^)]*)\))?(!)?\s*[:：]\s*(.*)$", re.DOTALL)
REVERT_TITLE = re.compile(r"^\s*revert\s*[:：]?\s*[\"“'](.+?)[\"”']?\s*$", re.IGNORECASE | re.DOTALL)
REVERT_REF = re.compile(r"\b(?:this\s+)?reverts?\s+(?:pr\s+|of\s+)?(?:[\w.-]+/[\w.-]+)?#(\d+)|\brevert\w*\s+(?:of\s+)?"
                        r"(?:https://github\.com/[\w.-]+/[\w.-]+/pull/)(\d+)", re.IGNORECASE)
PR_SUFFIX = re.compile(r"\s*\(#(\d+)\)\s*$")

TYPES = ("feat", "fix", "perf", "refactor", "docs", "test", "ci", "chore", "revert")
TYPE_ALIASES = {"feature": "feat", "feats": "feat", "bugfix": "fix", "hotfix": "fix", "bug": "fix", "fixes": "fix",
                "refact": "refactor", "refactoring": "refactor", "doc": "docs", "tests": "test", "build": "ci",
                "style": "chore", "misc": "chore", "deps": "chore", "performance": "perf", "optim": "perf"}
VERB_TYPES = (
    ("revert", re.compile(r"^(revert|reverts|reverting)\b", re.I)),
    ("fix", re.compile(r"^(fix\w*|correct\w*|resolve\w*|repair\w*|avoid\w*|prevent\w*|handle\w*|patch\w*)\b", re.I)),
    ("perf", re.compile(r"^(speed\w*|optimi[sz]\w*|accelerat\w*|faster)\b", re.I)),
    ("feat", re.compile(r"^(add\w*|support\w*|implement\w*|introduc\w*|enabl\w*|allow\w*|new)\b", re.I)),
    ("refactor", re.compile(r"^(refactor\w*|remov\w*|clean\w*|renam\w*|mov\w*|simplif\w*|unif\w*|deprecat\w*|"
                            r"drop\w*|delet\w*|replac\w*|migrat\w*)\b", re.I)),
    ("chore", re.compile(r"^(bump\w*|upgrad\w*|updat\w*|pin\w*|chang\w*|set|modif\w*|use)\b", re.I)),
)

BASE = {"feat": 3.0, "perf": 3.0, "fix": 2.5, "revert": 2.5, "refactor": 2.0, "chore": 1.5, "test": 1.0,
        "docs": 1.0, "ci": 1.0}
SURFACE = re.compile(r"\b(api|interface|config\w*|option\w*|argument\w*|args?|flag\w*|cli|parameter\w*|"
                     r"endpoint\w*|backend\w*|model\w*|algorithm\w*|engine\w*)\b", re.I)


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


def modules_of(tags: list[str]) -> list[str]:
    """Module names in title tags; `[1/N]`, `[WIP]` and the like are not modules."""
    mods: list[str] = []
    for tag in tags:
        if re.fullmatch(r"\s*(\d+\s*/\s*(n|\d+)|wip|draft|rfc)\s*", tag, re.IGNORECASE):
            continue
        for part in re.split(r"[,，/]", tag):
            name = part.strip().lower()
            if name and name != "breaking" and name not in mods:
                mods.append(name)
    return mods


def parse_title(title: str) -> tuple[str, str | None, str | None, bool]:
    """(description, conventional type or None, scope or None, `!` marker) of a title, tags removed."""
    match = TITLE.match(title)
    rest = (match.group(2) if match else title).strip().lstrip(":：").strip()
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


def _type(description: str, declared: str | None, kinds: list[str], new_code: int = 0) -> str:
    if REVERT_TITLE.match(description):
        return "revert"
    if declared in ("chore", "refactor") and VERB_TYPES[1][1].match(description):
        return "fix"  # "[model] chore: Fix Qwen3-235B precision issues" is a fix
    if declared:
        return declared
    verb = next((t for t, pattern in VERB_TYPES if pattern.match(description)), None)
    if verb in ("revert", "fix", "perf", "feat"):
        return verb
    if kinds:
        only = set(kinds)
        for kind, name in (("docs", "docs"), ("test", "test"), ("ci", "ci"), ("deps", "chore")):
            if only == {kind}:
                return name
    if verb is None and new_code >= 150:
        return "feat"  # "recipe: PRIME algorithm" names no verb but adds a body of new code
    return verb or "chore"


def _modules(pr: PullRequest, config: RepoConfig, scope: str | None) -> list[str]:
    tagged = modules_from_title(pr.title)
    if tagged:
        return tagged
    if pr.labels:
        return sorted({label.strip().lower() for label in pr.labels if label.strip()})
    if config.module_map:
        prefixes = sorted(config.module_map, key=len, reverse=True)
        counts = Counter(next((config.module_map[p] for p in prefixes if f.filename.startswith(p)), None)
                         for f in pr.files)
        counts.pop(None, None)
        if counts:
            return [str(m) for m, _ in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))]
    if scope:
        return [s.strip() for s in re.split(r"[,/]", scope) if s.strip()]
    folders = Counter(f.filename.split("/", 1)[0] if "/" in f.filename else "root" for f in pr.files)
    if folders:
        return [min(folders, key=lambda name: (-folders[name], name)).lstrip(".") or "root"]
    return ["misc"]


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
HOUSEKEEPING = re.compile(r"\b(ci|nightly|pre-?commit|lint\w*|e2e tests?|unit tests?|flaky|workflows?|"
                          r"docker\w*|images?|dockerfile\w*|warnings?|log(?:s|ging)?(?![-_])|print\w*|readme|news|meetup|scripts?|examples?|"
                          r"typing|type hints?|mypy|ruff|timeout)\b", re.I)
LOW_TAGS = {"ci", "doc", "docs", "test", "tests", "env", "docker", "deployment", "example", "examples"}
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
# A title that says a default changes ("enable V1 trainer by default", "set ETP default to null"): users who relied
# on the old behaviour get the new one without touching their config.
DEFAULT_CHANGE = re.compile(r"\b(chang\w*|switch\w*|set|sets|make|makes|flip\w*|enabl\w*|disabl\w*|"
                            r"turn\w*\s+(?:on|off)|revert\w*)\b[^.;]{0,60}\bdefaults?\b|\bby default\b|"
                            r"\bdefaults?\s+(?:to|from)\b", re.I)
DESIGN_HEADINGS = ("design", "changes", "implementation", "approach", "solution", "how", "details", "方案", "设计")
TEST_HEADINGS = ("test", "validation", "verification", "benchmark", "result", "accuracy", "测试", "验证")


@dataclass
class Signals:
    """What the importance rules saw, for the one-line gist (prhub.engine.gist)."""

    fix_class: str = ""  # silent | stuck | numerics | silent_body | stuck_body | oom | crash
    new_object: str = ""
    default_change: bool = False
    only: str = ""  # docs | tests | ci | examples | deps when every file is of that kind


def _spread(pr: PullRequest, kinds: list[str]) -> int:
    """How many packages of the library the change touches (`verl/workers`, `verl/trainer`, ...)."""
    return len({"/".join(f.filename.split("/")[:2]) for f, k in zip(pr.files, kinds, strict=True)
                if k == "source" and not is_generated(f.filename)})


def _importance(pr: PullRequest, kind: str, description: str, text: str, kinds: list[str], breaking: bool,
                tagged_breaking: bool, breaking_reason: str, config: RepoConfig) -> tuple[float, list[str], Signals]:
    """Importance with the phrase of every step that moved it (see the module docstring), and what it saw."""
    signals = Signals()
    lang = config.language
    score = BASE[kind]
    reasons = [say(lang, "type_change", kind=type_word(lang, kind))]
    title = description
    pairs = [(f, k) for f, k in zip(pr.files, kinds, strict=True) if not is_generated(f.filename)]
    code_lines = sum(f.changes for f, k in pairs if k == "source")
    new_code = sum(f.additions for f, k in pairs if k == "source" and f.status == "added")
    core = code_lines > 0
    if breaking:
        score += 2.0 if tagged_breaking else 1.0
        reasons.append(say(lang, "breaking") if tagged_breaking else
                       say(lang, "breaking_inferred", why=breaking_reason))
    if kind in ("fix", "revert", "refactor", "perf", "chore"):
        for pattern, where, bonus, key in ((SILENT, title, 2.5, "fix_silent"), (STUCK, title, 2.0, "fix_stuck"),
                                           (NUMERICS, title, 1.5, "fix_numerics"),
                                           (SILENT, text, 1.5, "fix_silent_body"), (STUCK, text, 1.0, "fix_stuck_body"),
                                           (CRASH, title, 0.5, "fix_crash")):
            found = pattern.search(where)
            if found and (kind == "fix" or (where is title and pattern is not NUMERICS)):
                gain = bonus if core else bonus / 3
                score += gain
                word = found.group(0).lower()
                reasons.append(say(lang, key if core else "fix_outside", word=word))
                signals.fix_class = ("oom" if word.startswith(("oom", "out of")) else "crash") \
                    if key == "fix_crash" else key.removeprefix("fix_")
                break
    if kind in ("feat", "perf") and not REMOVAL.match(title) and not NOT_NEW.match(title):
        score += 1.0 if code_lines >= 30 else 0.5  # a capability that fits in a few lines is a small one
        reasons.append(say(lang, "new_capability"))
        if (named := OBJECT.search(title)) and core:
            score += 1.0 if code_lines >= 100 else 0.5
            reasons.append(say(lang, "new_object", what=named.group(0)))
            signals.new_object = named.group(0)
        elif SURFACE.search(title):
            score += 0.5
            reasons.append(say(lang, "new_surface"))
    elif kind == "refactor" and (SURFACE.search(title) or OBJECT.search(title)) and core:
        score += 0.5
        reasons.append(say(lang, "touches_surface"))
    if kind == "perf" or PERF_WORDS.search(title):
        if MEASURE.search(text):
            score += 1.5
            reasons.append(say(lang, "perf_measured"))
        elif kind == "perf":
            score += 0.5
            reasons.append(say(lang, "perf_unmeasured"))
    if DEFAULT_CHANGE.search(title) and core:
        score += 1.0
        reasons.append(say(lang, "default_change"))
        signals.default_change = True
    if pr.deletions >= 300 and (REMOVAL.search(title) or kind == "refactor" or "refactor" in title.lower()):
        score += 1.0
        reasons.append(say(lang, "large_removal", lines=pr.deletions))
    if code_lines:
        size_bonus = min(3.5, 1.0 * math.log10(1 + code_lines))
        score += size_bonus
        if size_bonus >= 1.8:
            reasons.append(say(lang, "sizeable", lines=code_lines))
        if new_code >= 150:
            score += 0.5
            reasons.append(say(lang, "new_code", lines=new_code))
        if (spread := _spread(pr, kinds)) >= 3:
            score += 0.5
            reasons.append(say(lang, "spread", n=spread))
    if core and "test" in {k for _, k in pairs} and kind in ("feat", "perf", "fix", "refactor"):
        score += 0.5
        reasons.append(say(lang, "with_tests"))
    if len(MEASURE.findall(text)) >= 2 and kind in ("feat", "perf", "fix"):
        score += 0.5
        reasons.append(say(lang, "measured_body"))
    caps: list[tuple[float, str]] = []
    present = {k for _, k in pairs}
    if TYPO.search(title) and code_lines < 50:
        caps.append((1.0, say(lang, "cap_typo")))
    if present and present <= {"docs"}:
        caps.append((2.5, say(lang, "cap_docs")))
    if present and present <= {"test"}:
        caps.append((2.5, say(lang, "cap_tests")))
    if present and present <= {"ci", "test"}:
        caps.append((2.0, say(lang, "cap_ci")))
    if present and present <= {"docs", "ci", "test"}:
        caps.append((3.0, say(lang, "cap_support")))
    if present and present <= {"example", "docs", "test", "ci", "other", "config"} and "example" in present:
        caps.append((3.0 if not breaking else 4.5, say(lang, "cap_examples")))
    if present and present <= {"deps", "ci", "docs", "test", "other", "example"} and "deps" in present:
        caps.append((3.0 if not breaking else 4.5, say(lang, "cap_bump")))
    if not present:
        caps.append((2.0, say(lang, "cap_nothing")))
    tags = set(modules_from_title(pr.title))
    if tags and tags <= LOW_TAGS:
        caps.append((3.0 if not breaking else 4.5, say(lang, "cap_tagged", tags="/".join(sorted(tags)))))
    if house := HOUSEKEEPING.search(title):
        caps.append((3.5, say(lang, "cap_housekeeping", word=house.group(0).lower())))
    if kind == "revert":
        caps.append((4.5, say(lang, "cap_revert")))
    if score > 8.0:  # the scale's top is for the week's milestones: what lies above 8 counts half
        score = 8.0 + (score - 8.0) / 2
    if caps:
        cap, why = min(caps)
        if score > cap:
            score = cap
            reasons.append(why)
    signals.only = next((name for name, group, needs in (
        ("docs", {"docs"}, "docs"), ("tests", {"test"}, "test"), ("ci", {"ci", "test"}, "ci"),
        ("examples", {"example", "docs", "test", "ci", "other", "config"}, "example"),
        ("deps", {"deps", "ci", "docs", "test", "other", "example"}, "deps"))
        if needs in present and present <= group), "")
    return round(max(0.0, min(10.0, score)), 1), reasons, signals


# What insight reads of a description: past this a description teaches no more, and the patterns stay cheap.
INSIGHT_CHARS = 20_000


def _insight(cleaned: str, title: str, lang: str) -> tuple[float, list[str]]:
    """What a reader learns from the description: why (motivation, root cause), how (design), and proof
    (measured results, test evidence), with the phrase of each part found."""
    cleaned = cleaned[:INSIGHT_CHARS]
    parts = textparse.sections(cleaned) if cleaned else []
    prose = " ".join(b for _, c in parts for b in textparse.prose_blocks(c))
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


def score_pull(pr: PullRequest, config: RepoConfig, registry: VersionRegistry | None = None) -> ScoredPR:
    """Judge one PR from its title, description, labels and changed files."""
    description, declared, scope, bang = parse_title(pr.title)
    kinds = [file_kind(f.filename, config.test_paths) for f in pr.files]
    new_code = sum(f.additions for f, k in zip(pr.files, kinds, strict=True)
                   if k == "source" and f.status == "added" and not is_generated(f.filename))
    kind = _type(description, declared, kinds, new_code)
    cleaned = textparse.strip_template(pr.body)
    lang = config.language
    breaking = _breaking(pr, description, bang, kinds, config)
    revert = _revert(pr, description, kind)
    text = f"{description}\n{cleaned[:4000]}"
    importance, reasons, signals = _importance(pr, kind, description, text, kinds, breaking.flag, breaking.declared,
                                               breaking.reason, config)
    if kind == "revert":
        what = f"#{revert.number}" if revert.number else revert.title or say(lang, "earlier_change")
        reasons.append(say(lang, "reverts", what=what))
    points = textparse.key_points(cleaned)
    insight, learned = _insight(cleaned, description, lang)
    reasons.append(say(lang, "insight", score=insight, parts=joined(lang, learned, "comma")))
    modules = _modules(pr, config, scope)
    summary = _summary_line(pr, cleaned, description, kind, modules, breaking.flag, signals, lang)
    risks = assess(pr, config, tags=modules_from_title(pr.title), breaking=breaking.flag,
                   breaking_reason=breaking.reason, tagged_breaking=breaking.declared,
                   revert_of=revert.named(lang) if kind == "revert" else "", registry=registry)
    reviewers = list(dict.fromkeys(r.reviewer for r in pr.reviews if r.reviewer != pr.author))
    return ScoredPR(
        number=pr.number, title=pr.title, url=pr.url, author=pr.author, merged_at=format_timestamp(pr.merged_at),
        modules=modules, type=kind, breaking=breaking.flag, importance=importance,
        insight=insight, key=importance >= config.key_threshold,
        summary=summary, key_points=points, risks=risks,
        additions=pr.additions, deletions=pr.deletions, changed_files=pr.changed_files, scored_by="heuristic",
        breaking_reason=breaking.reason if breaking.flag else "", reasons=reasons,
        files=[f.filename for f in pr.files], file_lines=[[f.additions, f.deletions] for f in pr.files],
        refs=_references(pr, revert.number), reverts=revert.number, reviewers=reviewers,
        co_authors=list(pr.co_authors), head_sha=pr.head_sha,
    )


@dataclass(frozen=True)
class _Breaking:
    """Whether a PR breaks its users, and why."""

    flag: bool  # declared or inferred
    declared: bool  # [BREAKING] or `type!:` in the title, or a BREAKING CHANGE line in the body
    reason: str  # the declaration, then the inferred reasons (at most two)


def _breaking(pr: PullRequest, description: str, bang: bool, kinds: list[str], config: RepoConfig) -> _Breaking:
    lang = config.language
    tag_breaking = any(t.strip().upper() == "BREAKING" for t in _tags(pr.title))
    tagged_breaking = tag_breaking or bang
    declared_breaking = tagged_breaking or bool(re.search(r"^\s*BREAKING[ -]CHANGE", pr.body or "", re.M))
    inferred = breaking_reasons(pr.files, config.test_paths, lang)
    if DEFAULT_CHANGE.search(description) and {"source", "config", "example"} & set(kinds):
        inferred.append(say(lang, "changes_default", title=description[:100]))
    if tagged_breaking:
        reason = say(lang, "tagged_breaking" if tag_breaking else "declared_breaking")
    elif declared_breaking:
        reason = say(lang, "body_breaking")
    else:
        reason = joined(lang, inferred[:2])
    if declared_breaking and inferred:
        reason += f"（{joined(lang, inferred[:2])}）" if lang == "zh" else f" ({joined(lang, inferred[:2])})"
    return _Breaking(declared_breaking or bool(inferred), declared_breaking, reason)


@dataclass(frozen=True)
class _Reverted:
    """What a revert undoes, as far as its title and body say: a PR number, else the reverted title."""

    number: int | None = None
    title: str = ""

    def named(self, lang: str) -> str:
        """How the revert risk names what was reverted."""
        return (f"#{self.number}" if self.number else f"“{self.title}”" if self.title else
                say(lang, "earlier_change"))


def _revert(pr: PullRequest, description: str, kind: str) -> _Reverted:
    if kind != "revert":
        return _Reverted()
    # 'revert: "X"' keeps its quote outside the description; 'Revert "X"' and '[m] fix: Revert "X"' inside it.
    rest = TITLE.match(pr.title).group(2).strip()  # type: ignore[union-attr]
    return _Reverted(*reverted_ref(rest if REVERT_TITLE.match(rest) else description, pr.body))


def _summary_line(pr: PullRequest, cleaned: str, description: str, kind: str, modules: list[str], breaking: bool,
                  signals: Signals, lang: str) -> str:
    """The PR's one-line summary from its description; in a zh report an English PR's is built by prhub.engine.gist."""
    fallback = description[:1].upper() + description[1:] if description else pr.title
    summary = textparse.summarize(cleaned, fallback)
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
