"""The period's narrative written by the engine, in the report's language (zh or en).

Contract: `engine_narrative(analysis) -> Narrative` (prhub.core.report) with

    summary              str (paragraphs separated by a blank line)
    highlights           [{text, prs}]        the period's themes (clusters with a key PR), then lone key PRs
    key_changes          [{theme, text, prs}] a paragraph per related-PR cluster, then the busiest modules
    trend_notes          [{text, prs}]        modules rising, fading or new against the 4 same-length periods before
    risk_notes           [{text, prs}]        one per risk kind
    relation_notes       [{text, prs}]        revert chains, with what re-landed or re-fixed the change
    suggestions          [str]                what the maintainers could do next

The same sections the LLM writes (prhub.model.answers.SECTIONS), so the model falls back
per section. Every number quoted comes from the analysis; PR titles and summaries
are quoted as data (renderers escape them). In a zh report the sentences are Chinese
around the technical names: a PR is told by its one-line summary (prhub.engine.gist for an
English PR), not by its English title, and the sentence shapes vary between items.
The period's kind (prhub.core.period.Period.kind) sets the words: 本周 / 本月 / 本年 / 本期
(prhub.engine.wording.period_words, which the model's narrative prompt uses too).
"""
from __future__ import annotations

import re
from typing import Any

from prhub.core.report import Analysis, KeyChange, Module, Narrative, Note, PrEntry
from prhub.engine import headline, observations, summary
from prhub.engine.lexicon import area_name
from prhub.engine.telling import (
    chain_sentence,
    cited,
    fact,
    keyed,
    lead_of,
    lowered,
    member_facts,
    member_line,
    now_words,
    pr_line,
    refs_text,
    short,
    size_clause,
    themes_of,
    unbracket,
)

HIGHLIGHTS = 6


HIGHLIGHTS_MAX = 8  # items, whatever must be named: a month's or a year's further breaking PRs share the last one


KEY_CHANGES = 3  # after the highlights: the themes they left out, then the busiest modules


def _placeless(text: str, place: str) -> str:
    """`text` without the place a fallback headline opens with ("#7340 修复：megatron 模块，改动 3 个文件" under the
    megatron heading reads "#7340 修复：改动 3 个文件"); the same words inside a sentence stay."""
    return re.sub(rf"(：|#\d+ ){re.escape(place)}，", r"\1", text)


def must_name(report: Analysis) -> list[int]:
    """The PRs the highlights always name, whoever writes them: every breaking one, and the three most
    important."""
    prs = sorted(report.get("prs", []), key=lambda p: (-p["importance"], p["number"]))
    return list(dict.fromkeys([p["number"] for p in prs if p["breaking"]] + [p["number"] for p in prs[:3]]))


def _heading(cluster: dict[str, Any]) -> str:
    """The subsystem a cluster's title heads it with (engine.analysis names it by its members' paths)."""
    return re.split(r"：|: ", str(cluster.get("title") or ""), maxsplit=1)[0]


def _units(report: Analysis) -> list[tuple[str, list[PrEntry]]]:
    """The period's subjects as (subsystem, member PRs): each cluster under the subsystem its title heads it with
    (engine.analysis names it by paths), each PR of no cluster under its first module."""
    themes = themes_of(report)
    clustered = {p["number"] for _, members in themes for p in members}
    units = [(_heading(c), members) for c, members in themes]
    units += [(p["modules"][0] if p["modules"] else "", [p]) for p in report.get("prs", [])
              if p["number"] not in clustered]
    return units


def _highlights(report: Analysis, zh: bool) -> list[Note]:
    """The period's headlines, a subject (a cluster, or a PR of none) an item under its subsystem: those holding
    a breaking PR or one of the three most important first, then the other key ones by importance, up to
    HIGHLIGHTS items. The PRs of `must_name` are always in; past HIGHLIGHTS_MAX items (a month, a year) the
    last names the breaking PRs the others could not hold. Subjects of one subsystem stay apart: a module holds
    unrelated changes (a maintainer's panel grouped them finer than modules)."""
    must = set(must_name(report))
    chosen = [(area, members) for area, members in _units(report) if must & {p["number"] for p in members}
              or lead_of(members)["key"] and not lead_of(members).get("reverted_by")]
    chosen.sort(key=lambda u: (not must & {p["number"] for p in u[1]}, -lead_of(u[1])["importance"],
                               lead_of(u[1])["number"]))
    picked = [(area, members) for area, members in chosen if must & {p["number"] for p in members}]
    for area, members in chosen:
        if len(picked) >= HIGHLIGHTS:
            break
        if not any(members is m for _, m in picked):
            picked.append((area, members))
    items = [_theme_highlight(area, members, report, zh, must) for area, members in picked]
    if len(items) > HIGHLIGHTS_MAX:
        items = items[:HIGHLIGHTS_MAX - 1]
        told = {n for item in items for n in item["prs"]}
        by_number = {p["number"]: p for p in report.get("prs", [])}
        items.append(_more_breaking([by_number[n] for n in must_name(report) if n not in told], zh))
    return items


def _more_breaking(prs: list[PrEntry], zh: bool) -> Note:
    """The breaking PRs the items before could not hold, named in one (a month or a year has dozens)."""
    numbers = [p["number"] for p in prs]
    shown = refs_text(numbers, 20, zh)
    text = (f"另有 {len(numbers)} 个破坏性变更：{shown}（原因见附录「风险详情」）。" if zh else
            f"{len(numbers)} more breaking changes: {shown} (why: see the appendix, Risks in detail).")
    return {"text": text, "prs": numbers,
            "evidence": [fact(p["number"], "breaking_reason", p["breaking_reason"]) for p in prs[:20]
                         if p.get("breaking_reason")]}


def _told_members(members: list[PrEntry], must: set[int]) -> tuple[list[PrEntry], list[int]]:
    """The members an item tells by their lines (its lead, then those the highlights must name, else the next
    most important when it is key), and the others it names by number."""
    lead = lead_of(members)
    rest = sorted((p for p in members if p["number"] != lead["number"]),
                  key=lambda p: (p["number"] not in must, -p["importance"], p["number"]))
    # a member below the key line is named by number only (ruff's "Minor followup to severity display", 3.6, had been
    # told by its line beside the change it followed up)
    named = [p for p in rest if p["number"] in must] or [p for p in rest[:1] if p["key"]]
    named = named[:max(2, len(named))]
    return [lead, *named], [p["number"] for p in rest if p not in named]


def _theme_highlight(subsystem: str, members: list[PrEntry], report: Analysis, zh: bool, must: set[int]) -> Note:
    """A subject's item under its subsystem: its lead's line, up to two more members by their lines (those the
    highlights must name first), the rest by number; then what follows from it (breaking reasons, revert
    chains)."""
    told, others = _told_members(members, must)
    area = area_name(subsystem) if zh and subsystem else subsystem
    broken = [p for p in told if p["breaking"]]
    flag, mixed = _breaking_marks(len(broken), len(told), bool(others), zh)
    lines = ("；" if zh else "; ").join(member_line(p, report, zh, marked=mixed and p["breaking"])
                                       .replace("，属于破坏性变更", "") for p in told)
    lines = _placeless(lines, area) if zh and area else lines  # a headline's place, said by the item
    also = (f"（另见 {refs_text(others, 3, zh)}）" if zh else f" (see also {refs_text(others, 3)})") if others else ""
    opening = f"{flag}{area + ('：' if zh else ': ') if area else ''}{lines}{also}{'。' if zh else '.'}"
    chain = chain_sentence({p["number"] for p in members}, report, zh)
    # an item of one PR: its migration needs no number again
    text = opening + "".join(_consequence(p, zh, len(told) + len(others) > 1) for p in broken) + (
        chain if zh or not chain else f" {chain}")
    # the PRs it names: one it counts past the "另见" list ("等 4 个") is not listed again after it by the renderers
    note: Note = {"text": text, "prs": cited(text, [p["number"] for p in told] + others),
                  "evidence": [*member_facts(told, zh), fact(told[0]["number"], "importance", told[0]["importance"])]}
    if area:
        note["theme"] = area
    return note


def _breaking_marks(broken: int, told: int, others: bool, zh: bool) -> tuple[str, bool]:
    """The item's flag when all it names breaks, else whether the breaking ones are marked where they stand: a flag
    over "#5094 …; #5099 …" had read as if both broke, and one over "#6951 …（另见 #7003、#7039）" as if all three."""
    mixed = bool(broken) and (broken < told or others)
    return (("[破坏性变更] " if zh else "[breaking] ") if broken and not mixed else ""), mixed


def _consequence(p: PrEntry, zh: bool, numbered: bool = True) -> str:
    """What a breaking PR asks of its users (headline.migration_step): the new name of a renamed one, the old value
    of a changed default, else what it removes or changes (files by their names) rather than that its title says
    so; by its number when the item tells several."""
    said, step = headline.migration_step(str(p.get("breaking_reason") or ""), str(p.get("title") or ""), zh)
    reason = _whole_parts(said, 80, zh)
    if zh:  # the author's own marker says only that it breaks: the migration is the PR's to describe
        whose = f" #{p['number']} 的" if numbered else "其"
        if not reason:
            return f"迁移：作者标注为破坏性变更，升级前请按{whose}说明修改用法。"
        told = f"{'#' + str(p['number']) + ' ' if numbered else ''}{unbracket(reason)}"
        # what it removes or changes is not yet a step: say what users do about it, as the en line does
        return f"迁移：{told}。" if step else f"迁移：{told.rstrip('…')}，升级前需修改受影响的用法。"
    if step:  # what users do, said as such ("Migration: use `actor_wg` where `trainer` was used.")
        which = f" (#{p['number']})" if numbered else ""
        return f" Migration{which}: {reason.rstrip('.')}{'' if reason.endswith('…') else '.'}"
    return f" #{p['number']} breaks existing use ({reason}): migrate before upgrading." if reason else \
        f" #{p['number']} is marked breaking by its author: follow its description before upgrading."


def _whole_parts(reason: str, limit: int, zh: bool) -> str:
    """A migration's parts ("；"-separated) that fit in `limit` characters, whole, then "等" / "…" for the rest: a part
    cut mid-way loses its target ("将公共模块 a.py 移到，升级前…" had read as if a.py moved nowhere)."""
    parts = [part.strip() for part in reason.split("；" if zh else "; ")]
    kept: list[str] = []
    for part in parts:
        if len("；".join([*kept, part])) > limit:
            break
        kept.append(part)
    if not kept:  # one part longer than the line: cut where a word ends, as before
        return short(reason, limit)
    rest = "；".join(kept) if zh else "; ".join(kept)
    return rest if len(kept) == len(parts) else rest + (" 等" if zh else "; …")


def _described(highlights: list[Note]) -> frozenset[int]:
    """The PRs the highlights told by their own lines: those whose facts an item cites as evidence."""
    return frozenset(f["pr"] for item in highlights for f in item.get("evidence", []) if f["pr"] is not None)


def _key_changes(report: Analysis, zh: bool, described: frozenset[int] = frozenset(),
                 highlighted: frozenset[int] = frozenset()) -> list[KeyChange]:
    """A paragraph per theme (what its lead does, what the others add, its revert chains), then busy modules.
    A PR the highlights already told by its line (`described`) is named, not told again, beside a theme's or a
    module's lead: the paragraph's lines go to PRs the reader has not read about yet."""
    by_number = {p["number"]: p for p in report.get("prs", [])}
    now = now_words(report, zh)[0]
    # a theme of no key PR is no key change; a theme the highlights told whole is not told twice
    open_themes = [(c, m) for c, m in themes_of(report) if keyed(m) and not {p["number"] for p in m} <= highlighted]
    changes = [_theme_change(i, cluster, members, report, zh, described)
               for i, (cluster, members) in enumerate(open_themes[:KEY_CHANGES])]
    covered = {n for change in changes for n in change["prs"]} | highlighted
    for module in report.get("modules", []):
        if len(changes) >= KEY_CHANGES:
            break
        rest = [n for n in module["prs"] if n not in covered]
        if module["pr_count"] < 2 or len(rest) < 2 or not any(by_number[n]["key"] for n in rest if n in by_number):
            continue  # a module's PRs none of which is key are no key change either
        change = _module_change(module, rest, by_number, report, now, zh, described)
        if any(c["theme"] == change["theme"] for c in changes):  # a theme of the module came first: these are the rest
            change["theme"] += "：其他改动" if zh else ": other changes"
        changes.append(change)
        covered.update(rest)
    if zh:  # a headline's place ("新功能：rollout 模块，改动 …") is the paragraph's heading, or opens it ("megatron
        # 模块：其他改动")
        changes = [{**c, "text": _placeless(c["text"], c["theme"].split("：", 1)[0])} for c in changes]
    return _distinct_headings(changes, by_number, zh)


def _distinct_headings(changes: list[KeyChange], by_number: dict[int, PrEntry], zh: bool) -> list[KeyChange]:
    """Two themes under one subsystem: the second says its lead's headline too, so no two headings read alike (a
    module's other PRs after its theme are headed so by _key_changes)."""
    seen: set[str] = set()
    out = []
    for change in changes:
        members = [by_number[n] for n in change["prs"] if n in by_number]
        lead = lead_of(members) if members else None
        if change["theme"] in seen and lead is not None and lead.get("headline"):
            # a headline that only knows the diff ("新功能：改动 2 个文件，多为新增") says nothing as a heading
            said = f"{'：' if zh else ': '}{lead['headline']}" if not headline.DIFF_ONLY.search(lead["headline"]) \
                else f"{'（' if zh else ' ('}#{lead['number']}{'）' if zh else ')'}"
            change = {**change, "theme": change["theme"] + said}
        seen.add(change["theme"])
        out.append(change)
    return out


def _theme_change(i: int, cluster: dict[str, Any], members: list[PrEntry], report: Analysis, zh: bool,
                  described: frozenset[int] = frozenset()) -> KeyChange:
    """A theme's paragraph: its lead, then what the others do, in their own lines (those the highlights told
    are only named), then its revert chains."""
    lead = lead_of(members)
    chained = {c["pr"] for c in report.get("reverts", [])}  # told by the chain sentence below
    others = sorted((p for p in members if p["number"] != lead["number"] and p["number"] not in chained),
                    key=lambda p: (p["number"] in described, -p["importance"], p["number"]))
    told = [p for p in others[:3] if p["number"] not in described]
    untold = [p["number"] for p in others if p not in told]
    said = ("；" if zh else "; ").join(member_line(p, report, zh) for p in told)
    recalled = lead["number"] in described and bool(told)  # the highlights told the lead: go on from it
    if recalled:
        # the lead by its headline (a few words: the highlights told its line), then what the others add
        named = short(str(lead.get("headline") or pr_line(lead, zh)), 40)
        text = (f"#{lead['number']}（{named}）之外，同组还有 {said}"
                f"{'，另有 ' + refs_text(untold, zh=True) if untold else ''}。" if zh else
                f"Besides #{lead['number']} ({lowered(named)}), {len(members) - 1} related PRs: {said}"
                f"{'; also ' + refs_text(untold) if untold else ''}.")
    else:
        text = _theme_opening(i, lead, len(members), said, untold, zh)
    chain = chain_sentence({p["number"] for p in members}, report, zh)
    text += chain if zh else (f" {chain.strip()}" if chain else "")
    return {"theme": _theme_heading(cluster, lead, zh), "text": text, "prs": cited(text, list(cluster["prs"])),
            "evidence": [*member_facts(told if recalled else [lead, *told], zh),
                         fact(None, "clusters", cluster.get("reason", ""))]}


def _theme_heading(cluster: dict[str, Any], lead: PrEntry, zh: bool) -> str:
    """A theme's heading: its subsystem (the cluster's, as the highlights name it), else its lead's headline.
    The paragraph below tells the lead: a heading that said it too would be read twice."""
    area = _heading(cluster)
    if not area:
        return str(lead.get("headline") or cluster["title"])
    return area_name(area) if zh else area


def _theme_opening(i: int, lead: PrEntry, size: int, said: str, untold: list[int], zh: bool) -> str:
    """A theme's paragraph told from its lead's line (its shape varies with `i`), then the members `said`."""
    line = pr_line(lead, zh)
    line += size_clause(lead, zh, i + 1) if zh and "个文件" not in line else ""  # a headline may give the size already
    if zh:
        opening = [f"#{lead['number']} {line}。", f"这一组以 #{lead['number']} 为首：{line}。",
                   f"{size} 个 PR 围绕 #{lead['number']} 展开：{line}。"][i % 3]
        if not said:
            return opening + (f"同组的还有 {refs_text(untold, zh=True)}。" if untold else "")
        return opening + f"同组的 {said}" + (f"，另有 {refs_text(untold, zh=True)}" if untold else "") + "。"
    text = (f"#{lead['number']} leads {size} related PRs: {lowered(line)}." if i % 2 == 0 else
            f"{size} related PRs, led by #{lead['number']} ({lowered(line)}).")
    if not said:
        return text + (f" With it: {refs_text(untold)}." if untold else "")
    return text + f" With it: {said}" + (f"; also {refs_text(untold)}" if untold else "") + "."


def _module_change(module: Module, rest: list[int], by_number: dict[int, PrEntry], report: Analysis,
                   now: str, zh: bool, described: frozenset[int] = frozenset()) -> KeyChange:
    """A busy module's paragraph over its PRs no theme told (`rest`, at least one of them key: _key_changes), each
    told by its own line. The counts are the module's own (its PRs, its key PRs), which the report holds: a count
    of the PRs left after the themes would be arithmetic on the page that no table shows."""
    key = [n for n in module["prs"] if n in by_number and by_number[n]["key"]]
    # some of the module's PRs were told above: with a theme, or by their own lines in the highlights
    more = len(rest) < module["pr_count"] or any(n in described for n in rest)
    fresh = (by_number[n] for n in rest if n in by_number and n not in described)
    told = sorted(fresh, key=lambda p: (-p["importance"], p["number"]))[:2]
    untold = [n for n in rest if n not in {p["number"] for p in told}]
    if zh:
        said = "；".join(member_line(p, report, zh) for p in told)
        listed = "；另有 ".join(part for part in (said, refs_text(untold, zh=True)) if part)
        # the paragraph stands under the module's heading: the name is not said again (every renderer heads it)
        counts = f"{module['pr_count']} 个 PR，其中关键 {len(key)} 个"
        text = f"{now}共 {counts}，除上文外：{listed}。" if more else f"{now} {counts}：{listed}。"
    else:
        said = "; ".join(member_line(p, report, zh) for p in told)
        also = f"; also {refs_text(untold)}" if untold else ""
        beyond = "; besides those above" if more else ""
        text = f"{module['pr_count']} PRs touched it ({len(key)} key){beyond}: {said}{also}."
    return {"theme": area_name(module["name"]) if zh else module["name"], "text": text, "prs": cited(text, rest),
            "evidence": [*member_facts(told, zh), fact(None, "modules", module["name"])]}


def engine_narrative(report: Analysis) -> Narrative:
    """The engine's narrative sections for the analysed period (see the module docstring)."""
    zh = report.get("language", "zh") == "zh"
    highlights = _highlights(report, zh)
    return {
        "summary": summary.paragraphs(report, zh, {n: item["theme"] for item in highlights if item.get("theme")
                                                   for n in item["prs"]}),
        "highlights": highlights,
        "key_changes": _key_changes(report, zh, _described(highlights),
                                    frozenset(n for item in highlights for n in item["prs"])),
        "trend_notes": observations.trend_notes(report, zh),
        "risk_notes": observations.risk_notes(report, zh),
        "relation_notes": observations.relation_notes(report, zh),
        "suggestions": observations.suggestions(report, zh),
    }
