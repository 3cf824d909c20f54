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


WHY_ONLY = {"docs": "只涉及文档", "tests": "只涉及测试", "ci": "只涉及 CI", "examples": "只涉及示例脚本",
            "deps": "只涉及依赖与镜像"}


def effect(body: str) -> str:
    """The measured effect the description states, in a short Chinese phrase, or ''."""
    body = body[:6000]  # results are stated early; the patterns stay cheap on huge descriptions
    if match := CHANGE.search(body):
        return f"据描述实测 {match.group(1)} → {match.group(2)}"
    if match := SPEEDUP.search(body):
        return f"据描述实测提速 {match.group(1) or match.group(2)}"
    if match := SAVING.search(body):
        return f"据描述实测减少 {match.group(1) or match.group(2)}"
    return ""


def doing(description: str, kind: str) -> str:
    """What a PR does, its title in Chinese ("为 router replay 补上缺失的 FP8 padding")."""
    return translate.title(description, kind) or description.strip()


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
