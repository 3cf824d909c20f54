"""The narrative fact guard: a model's text may quote the week's facts, never invent or compute them.

What is checked, in text written by the model (`check_text`) and in the PR lists
it attaches to items (`check_prs`):

1. PR citations. Every `#N` and every number in an item's `prs` must be a PR of the
   week (report["prs"] and report["unscored"]), or a PR the week's computed data names (report["reverts"]:
   the reverted and relanding PRs, which may lie outside the week). A PR caught instructing the model (its
   `prompt_injection` risk) may not be cited at all: the model's words about it may be what it dictated.
2. Dates `YYYY-MM-DD` must be dates of the data (the period, merge dates).
3. Counts of PRs: a numeral followed by a PR noun ("34 PRs", "5 key PRs", "34 个 PR")
   must equal a PR count the code computed: stats.pr_count / key_pr_count, any
   `*count*` field, the length of any `prs` list in the report, the number of
   unscored PRs, the number of the week's PRs sharing one type, module, risk kind,
   key or breaking flag, or the number of one module's key PRs ("trainer 本周 4 个 PR，其中关键 3 个").
   A count left after a subtraction ("另有 13 个 PR" when 5 of 18 were told above) is none of these.
4. Counts of people: a numeral followed by authors/contributors ("7 authors",
   "7 位贡献者") must equal stats.authors or the number of new contributors.
5. Ratios ("38%", "3x") must appear as such in a string of the data (a PR title
   announcing "2x faster"): the computed data holds no ratios, so any other is arithmetic.
6. Every other quantity (integers, decimals) must appear in the data: a numeric
   field anywhere in the report, the length of a list, or a numeral inside one of
   its strings (titles, paths). A decimal written with d places matches
   a data value that rounds to it at d places (avg_importance 6.25 may be quoted as
   6.3); an integer matches only an integral value. Nothing is exempt, not even 1.

Not quantities, so not checked: digits glued to letters or to other dotted digits
(Qwen2.5, H100, fp8, v0.4.1, 0.4.1), and numbers spelled in words ("five", "五").
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

ROUNDINGS = (ROUND_HALF_UP, ROUND_HALF_EVEN)
# A PR citation: "#123" (escaped "\\#123" and full-width "＃123" too) or ".../pull/123". ("PR 9" is left to the
# count checks: "关键 PR 9 个" counts PRs.)
CITE = re.compile(r"(?:(?<![\w&/])[#＃]|\bpull/)(\d{1,7})\b", re.IGNORECASE)
# Where a text is cut into sentences: after CJK end marks, after . ! ? ; followed by a space, at line ends.
SENTENCE_BREAK = re.compile(r"(?<=[。！？；])|(?<=[.!?;])(?=\s)|(?<=\n)")
DATE = re.compile(r"(?<![\w.])(\d{4}-\d{2}-\d{2})(?![\w.]*\d)")
# A numeral standing alone: not part of an identifier (letters or digits glued on either side, or a
# dotted version); optional thousands separators, decimals, and a % or x suffix.
NUMERAL = re.compile(
    r"(?<![\w.\-#])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\.\d)(%|[xX×](?![A-Za-z]))?(?![\w])")
PR_NOUN = re.compile(r"^\s*(?:[+]?\s*)?(?:(?:个|项|条|次)\s*)?(?:[A-Za-z-]+\s+){0,2}?(?:PRs?\b|pull requests?\b|"
                     r"合并请求|拉取请求)", re.IGNORECASE)
PEOPLE_NOUN = re.compile(r"^\s*(?:(?:位|名|个)\s*)?(?:[A-Za-z-]+\s+)?(?:authors?\b|contributors?\b|people\b|"
                         r"作者|贡献者|开发者|人)", re.IGNORECASE)


INJECTION_KIND = "prompt_injection"  # the risk of a PR whose text instructs the model (prhub.model.answers)


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _suffix(text: str) -> str:
    return "%" if text == "%" else "x"


@dataclass
class Quotable:
    """What a model's text may quote: the PRs it may cite and the dates, counts, numbers and ratios of its data."""

    prs: set[int] = field(default_factory=set)  # PRs a text may cite
    withheld: set[int] = field(default_factory=set)  # PRs caught injecting: an item naming one goes whole
    week: set[int] = field(default_factory=set)  # PRs merged in the period (scored or not)
    dates: set[str] = field(default_factory=set)
    pr_counts: set[int] = field(default_factory=set)
    people_counts: set[int] = field(default_factory=set)
    numbers: set[Decimal] = field(default_factory=set)
    ratios: set[tuple[Decimal, str]] = field(default_factory=set)  # (value, "%" or "x") quoted in data strings

    @classmethod
    def from_report(cls, report: Mapping[str, Any]) -> Quotable:
        facts = cls()
        prs = report.get("prs") or []
        facts.week = {int(p["number"]) for p in prs} | {int(u["number"]) for u in report.get("unscored") or []}
        facts.prs = set(facts.week)
        for r in report.get("reverts") or []:
            facts.prs |= {int(v) for k, v in r.items() if k in ("pr", "reverts", "relanded_by") and v is not None}
        facts.withheld = {int(p["number"]) for p in prs if injecting(p)}
        facts.prs -= facts.withheld
        stats = report.get("stats") or {}
        facts.pr_counts |= {int(stats.get("pr_count", len(prs))), int(stats.get("key_pr_count", 0)),
                            len(report.get("unscored") or [])}
        facts.people_counts |= {int(stats.get("authors", 0)), len(stats.get("new_contributors") or [])}
        groups: Counter[tuple[str, Any]] = Counter()
        for p in prs:
            groups.update([("type", p.get("type")), ("key", p.get("key")), ("breaking", p.get("breaking")),
                           ("scored_by", p.get("scored_by"))])
            groups.update(("module", m) for m in p.get("modules") or [])
            groups.update(("module key", m) for m in (p.get("modules") or []) if p.get("key"))
            groups.update(("risk", k) for k in {r.get("kind") for r in p.get("risks") or []})
        facts.pr_counts |= set(groups.values())
        facts._walk(report)
        facts.numbers |= {Decimal(n) for n in facts.pr_counts | facts.people_counts}
        return facts

    def _walk(self, value: Any, key: str = "") -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int | float):
            self.numbers.add(Decimal(str(value)))
            if "count" in key and isinstance(value, int):
                self.pr_counts.add(value)
        elif isinstance(value, str):
            self.dates.update(DATE.findall(value))
            self.dates.update(m.group(0)[:10] for m in re.finditer(r"\d{4}-\d{2}-\d{2}T", value))
            for m in NUMERAL.finditer(value):
                number = _number(m.group(1) + (m.group(2) or ""))
                if number is not None:
                    self.numbers.add(number)
                    if m.group(3):
                        self.ratios.add((number, _suffix(m.group(3))))
        elif isinstance(value, dict):
            for k, v in value.items():
                self._walk(v, str(k))
        elif isinstance(value, list | tuple):
            self.numbers.add(Decimal(len(value)))
            if key == "prs":
                self.pr_counts.add(len(value))
            for v in value:
                self._walk(v, key)

    def known(self, number: Decimal) -> bool:
        exponent = number.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        if places == 0:
            return number in self.numbers
        quantum = Decimal(1).scaleb(-places)
        # Half-up and half-even are both faithful roundings (renderers and Python's round() differ).
        return any(v.quantize(quantum, rounding=mode) == number for v in self.numbers for mode in ROUNDINGS)


    @classmethod
    def for_text(cls, prs: set[int], text: str, extra_numbers: Collection[int] = ()) -> Quotable:
        """What a text about one PR may say: cite `prs` and quote the numerals, dates and ratios of `text`
        (what the model read: the PR's title, description, file list, diff and the engine's figures)."""
        facts = cls(prs=set(prs), week=set(prs))
        facts._walk(text)
        ints = {int(n) for n in facts.numbers if n == n.to_integral_value()} | set(extra_numbers)
        facts.numbers |= {Decimal(n) for n in ints}
        facts.pr_counts |= ints
        facts.people_counts |= ints
        return facts


def injecting(pr: Mapping[str, Any]) -> bool:
    """Whether a report's PR was caught instructing the model."""
    return any(r.get("kind") == INJECTION_KIND for r in pr.get("risks") or [])


def check_prs(prs: list[Any], facts: Quotable) -> list[str]:
    """Errors for PR numbers an item attaches that are not the week's."""
    bad = [p for p in prs if not isinstance(p, int) or isinstance(p, bool) or p not in facts.prs]
    return [f"cites PR {'#' + str(p) if isinstance(p, int) else repr(p)}, which is not one of this week's PRs"
            for p in bad]


def check_text(text: str, facts: Quotable) -> list[str]:
    """Errors for every citation, date or quantity in `text` that the data does not support."""
    errors: list[str] = []
    for m in CITE.finditer(text):
        if int(m.group(1)) not in facts.prs:
            errors.append(f"cites #{m.group(1)}, which is not one of this week's PRs")
    stripped = CITE.sub(" ", text)
    for m in DATE.finditer(stripped):
        if m.group(1) not in facts.dates:
            errors.append(f"quotes the date {m.group(1)}, which is not in the data")
    stripped = DATE.sub(" ", stripped)
    for m in NUMERAL.finditer(stripped):
        raw = m.group(0)
        number = _number(m.group(1) + (m.group(2) or ""))
        if number is None:
            continue
        after = stripped[m.end():m.end() + 40]
        if PR_NOUN.match(after) and not m.group(2):
            if int(number) not in facts.pr_counts:
                errors.append(f"says {raw} PRs, but no computed PR count is {raw}")
        elif PEOPLE_NOUN.match(after) and not m.group(2):
            if int(number) not in facts.people_counts:
                errors.append(f"says {raw} authors/contributors, but the computed counts are "
                              f"{sorted(facts.people_counts)}")
        elif m.group(3):
            if (number, _suffix(m.group(3))) not in facts.ratios:
                errors.append(f"quotes {raw}, a ratio the data does not state (do not compute numbers)")
        elif not facts.known(number):
            errors.append(f"quotes {raw}, which is not a number of the data (do not compute numbers)")
    return errors


def reason_of(error: str) -> str:
    """The kind of a check_text error, for the report's guard counts: pr_number, date, count, ratio or number."""
    if error.startswith("cites"):
        return "pr_number"
    if error.startswith("quotes the date"):
        return "date"
    if error.startswith("says"):
        return "count"
    if "ratio" in error:
        return "ratio"
    return "number"


def clean_text(text: str, facts: Quotable) -> tuple[str, list[str]]:
    """`text` without every sentence that cites a PR, a date or a quantity the facts do not support, and the
    reason (reason_of) for each sentence removed."""
    kept: list[str] = []
    removed: list[str] = []
    for piece in SENTENCE_BREAK.split(text):
        errors = check_text(piece, facts) if piece.strip() else []
        if errors:
            removed.append(reason_of(errors[0]))
        else:
            kept.append(piece)
    return "".join(kept).strip(), removed


# The narrative sections a narrator writes (prhub.core.report.Narrative): what check_narrative reads, and what it
# leaves out of the facts, so a sentence never vouches for itself.
NARRATIVE = ("summary", "highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes", "suggestions")
# An evidence field (prhub.core.report.Evidence) and where in the PR's entry the fact it quotes must stand.
QUOTED = {"title": ("title",), "body": ("summary", "key_points"), "summary": ("summary",),
          "breaking_reason": ("breaking_reason",), "reasons": ("reasons",), "risks": ("risks",),
          "review": ("review",)}


def check_narrative(report: Mapping[str, Any]) -> list[str]:
    """Errors in a narrative, whoever wrote it (the engine's included): every citation, date and quantity of its
    sentences against the report's data without the narrative, and every evidence item against the PR it names
    (the PR is the report's, and the fact it quotes stands in that PR's field)."""
    data = {k: v for k, v in report.items() if k not in NARRATIVE}
    facts = Quotable.from_report(data)
    by_number = {int(p["number"]): p for p in report.get("prs") or []}
    errors: list[str] = []
    texts: list[tuple[str, list[Any]]] = [(str(report.get("summary") or ""),
                                           list(report.get("summary_evidence") or []))]
    for section in NARRATIVE[1:]:
        for item in report.get(section) or []:
            if isinstance(item, str):
                texts.append((item, []))
            else:
                texts.append((str(item.get("text", "")), list(item.get("evidence") or [])))
                errors += check_prs(list(item.get("prs") or []), facts)
    for text, evidence in texts:
        errors += check_text(text, facts)
        errors += [f"{text[:40]}…: {problem}" for problem in _evidence_errors(evidence, by_number)]
    return errors


def _evidence_errors(evidence: list[Any], by_number: Mapping[int, Mapping[str, Any]]) -> list[str]:
    errors = []
    for item in evidence:
        pr, where, fact = item.get("pr"), str(item.get("field", "")), str(item.get("fact", ""))
        if pr is None:
            continue  # a fact of the period (stats, modules), checked as the sentence's numbers are
        if pr not in by_number:
            errors.append(f"evidence names #{pr}, which is not one of this week's PRs")
            continue
        fields = QUOTED.get(where)
        if fields and not any(fact in json_text(by_number[pr].get(f)) for f in fields):
            errors.append(f"evidence quotes {fact[:40]!r} as #{pr}'s {where}, which does not say it")
    return errors


def json_text(value: Any) -> str:
    """A field's text, lists and risk entries flattened, for a quoted fact to be found in."""
    if isinstance(value, list):
        return "\n".join(json_text(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(json_text(v) for v in value.values())
    return "" if value is None else str(value)
