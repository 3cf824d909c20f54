"""The one line per PR, in Chinese, that says what the change does, without a model.

Every clause comes from a fact the engine holds about the PR: the title (its verb, object and clauses, in
Chinese order by prhub.engine.translate), a number with its unit that the description states, the files (when
they are all docs, tests, CI, examples or dependencies), the breaking marker and a changed default. No clause is
chosen by module or type alone: where the engine knows nothing beyond the title, the line says what the title
says and stops.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from prhub.engine import translate
from prhub.engine.wording import say

# A measured effect: "54 GiB to ~150 MiB", "1.8x", "30% faster".
UNIT = r"(?:x|×|%|ms|s|sec|min|gb|gib|mb|mib|tb|tokens?/s|tok/s|it/s|samples?/s|tflops)"
CHANGE = re.compile(rf"(?:from\s+)?~?(\d+(?:\.\d+)?\s*{UNIT})\s*(?:→|->|to)\s*~?(\d+(?:\.\d+)?\s*{UNIT})(?![a-z])",
                    re.I)
SPEEDUP = re.compile(r"(\d+(?:\.\d+)?\s*(?:x|×))\s*(?:faster|speed-?ups?|higher throughput|throughput)|"
                     r"(?:speed-?ups?|faster|throughput)\D{0,20}?(\d+(?:\.\d+)?\s*(?:x|×|%))(?![a-z])", re.I)
SAVING = re.compile(r"(?:reduc\w*|sav\w*|cut\w*|less|lower\w*|fewer)\D{0,30}?(\d+(?:\.\d+)?\s*%)|"
                    r"(\d+(?:\.\d+)?\s*%)\s*(?:less|lower|fewer|reduction|smaller)", re.I)


@dataclass(frozen=True)
class Facts:
    """What the engine found out about a PR, as the line needs it."""

    number: int
    kind: str  # change type
    description: str  # the title without tags and type prefix
    modules: list[str]
    breaking: bool
    fix_class: str  # not said: a class read from trigger words is no fact the PR states (kept for the scorer's call)
    new_object: str  # not said either: what kind of thing a title names is guessed, not stated
    default_change: bool
    only: str  # docs | tests | ci | examples | deps | "" (what the files are when they are all one kind)
    body: str  # the cleaned description


REVERTED = re.compile(r"^revert\s*[:：]?\s*[\"“'](.+?)[\"”']?\s*$", re.I)
# A quoted title's type as the title states it ("fix:" or its verb), said before the quote.
QUOTED_TYPE = {"feat": "新功能", "fix": "修复", "perf": "性能优化", "refactor": "重构", "docs": "文档", "test": "测试",
               "ci": "CI 调整", "chore": "维护"}
WHY_ONLY = {"docs": "只改文档", "tests": "只改测试", "ci": "只改 CI", "examples": "只改示例", "deps": "只改依赖"}


def effect(body: str, lang: str = "zh") -> str:
    """The measured effect the description states, in a short phrase of `lang` (wording's measured_*), or ''."""
    body = body[:6000]  # results are stated early; the patterns stay cheap on huge descriptions
    if match := CHANGE.search(body):
        return say(lang, "measured_change", old=match.group(1), new=match.group(2))
    if match := SPEEDUP.search(body):
        return say(lang, "measured_faster", by=match.group(1) or match.group(2))
    if match := SAVING.search(body):
        return say(lang, "measured_less", by=match.group(1) or match.group(2))
    return ""


def doing(description: str, kind: str) -> str:
    """What a PR does, its title in Chinese ("为 router replay 补上缺失的 FP8 padding"); a title the glossary
    cannot carry whole (an English word left in the Chinese frame) is quoted as the author wrote it."""
    if reverted := REVERTED.match(description.strip()):
        inner = translate.title(reverted.group(1))  # the reverted PR's title in Chinese, where it can be said
        return f"回滚“{inner}”" if inner and not translate.leftover(inner) else f"回滚 “{reverted.group(1)}”"
    said = translate.title(description, kind)
    if not said or translate.leftover(said):
        quoted = f"“{translate.strip(description) or description.strip()}”"
        return f"{QUOTED_TYPE[kind]}：{quoted}" if kind in QUOTED_TYPE else quoted  # the title's own type
    return translate.brought(said, description) if kind == "feat" else said


def heading(description: str, kind: str) -> str:
    """A theme's heading after its module: the lead's title in Chinese, or quoted without the type word."""
    said = doing(description, kind)
    return said.split("：", 1)[1] if said.startswith(tuple(f"{w}：“" for w in QUOTED_TYPE.values())) else said


def zh_line(facts: Facts) -> str:
    """One Chinese sentence: the title's action, then only what the files, markers and description state."""
    action = doing(facts.description, facts.kind)
    if facts.kind == "revert":
        return f"{action}。"
    parts: list[str] = []
    if facts.only in WHY_ONLY:
        parts.append(WHY_ONLY[facts.only])
    if facts.breaking:
        parts.append("属于破坏性变更")
    elif facts.default_change:
        parts.append("修改了默认值")
    if measured := effect(facts.body):
        parts.append(measured)
    return f"{action}，{'，'.join(parts)}。" if parts else f"{action}。"
