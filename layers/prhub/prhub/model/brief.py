"""The brief's rules, which a model-written narrative keeps as the engine's does (issue 45).

The fact guard (prhub.model.answers.check_section) checks that every sentence is true; these check that the
sections still make the brief: the highlights name every breaking PR and the three most important, each
section stays within its share of the five-minute read, and a zh narrative is Chinese, never an English
sentence or title quoted. A section that breaks a rule is asked for once more, then the engine's stands in.
"""
from __future__ import annotations

import re
from typing import Any

from prhub.core.report import Report
from prhub.engine import headline
from prhub.engine.narrative import must_name
from prhub.model.factguard import injecting

# Characters each section may take of the brief (the whole brief of a week: at most 6,000 visible characters,
# of which the key-PR table, the risks at a glance and the header take about half).
LENGTH = {"summary": 600, "highlights": 1800, "key_changes": 1500, "suggestions": 600}
CITED = re.compile(r"#(\d+)")


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    out = []
    for item in value or []:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out += [str(item.get(k) or "") for k in ("theme", "text")]
    return out


def problems(name: str, value: Any, report: Report, lang: str) -> list[str]:
    """Why a section the fact guard kept is still no part of the brief ([] when it is)."""
    texts = _texts(value)
    errors = []
    size = sum(len(t) for t in texts)
    if name in LENGTH and size > LENGTH[name]:
        errors.append(f"{name} is {size} characters long; the brief allows {LENGTH[name]}")
    if lang == "zh":
        english = [t for t in texts if headline.english_prose(t)]
        if english:
            errors.append(f"{name} must be Chinese: do not quote English titles or sentences "
                          f"(\"{english[0][:60]}\")")
    if name == "highlights" and isinstance(value, list):
        named = {int(n) for t in texts for n in CITED.findall(t)}
        named |= {n for item in value if isinstance(item, dict) for n in item.get("prs") or [] if isinstance(n, int)}
        withheld = {p["number"] for p in report.get("prs") or [] if injecting(p)}  # never named by the model
        missing = [n for n in must_name(report) if n not in named and n not in withheld]
        if missing:
            errors.append("highlights must name every breaking PR and the three most important: missing "
                          + ", ".join(f"#{n}" for n in missing))
    return errors
