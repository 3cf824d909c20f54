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
from dataclasses import dataclass
from typing import Any

from prhub.core.report import Analysis, Evidence, KeyChange, Module, Narrative, Note, PrEntry, Stats
from prhub.engine import gist, headline, reviews, translate
from prhub.engine.scoring import PR_SUFFIX, parse_title
from prhub.engine.wording import clip, period_words

HIGHLIGHTS = 5
HIGHLIGHTS_MAX = 8  # items, whatever must be named: a month's or a year's further breaking PRs share the last one
KEY_CHANGES = 3  # after the highlights: the themes they left out, then the busiest modules

RISK_TEXT = {
    "zh": {
        "breaking": "破坏性变更", "revert": "回滚", "dependency_pin": "依赖版本变更", "todo_left": "新增 TODO/FIXME",
        "large_change": "超大改动", "missing_tests": "改了源码但没有改测试", "title_convention": "标题规范问题",
        "doc_mismatch": "文档与代码不符",
        "unresolved_review": "合并时未解决的审阅意见", "unreviewed": "未经审阅合并", "follow_up": "承诺的后续工作",
    },
    "en": {
        "breaking": "breaking changes", "revert": "reverts", "dependency_pin": "dependency pins",
        "todo_left": "new TODO/FIXME markers", "large_change": "very large changes",
        "missing_tests": "source changes without test changes", "title_convention": "title convention problems",
        "doc_mismatch": "docs out of step with code",
        "unresolved_review": "review threads unresolved at merge", "unreviewed": "PRs merged without review",
        "follow_up": "follow-ups promised in review",
    },
}
TREND_WORDS = {"zh": {"rising": "上升", "fading": "回落", "new": "新出现"},
               "en": {"rising": "rising", "fading": "fading", "new": "new"}}


def _words(report: Any, zh: bool) -> tuple[str, str, str]:
    return period_words("zh" if zh else "en", report.get("period"))


def _refs(numbers: list[int], limit: int = 4, zh: bool = False) -> str:
    shown = ("、" if zh else ", ").join(f"#{n}" for n in numbers[:limit])  # a Chinese list takes the 顿号
    return shown + (" …" if len(numbers) > limit else "")


def _short(text: str, limit: int = 90) -> str:
    """`text` cut where a word ends; a title it quotes is kept whole (it is the author's, as written)."""
    text = " ".join(str(text).split())
    if "“" in text[:limit] and "”" in text[text.index("“"):]:
        end = text.index("”", text.index("“")) + 1
        return text[:end] + (clip(text[end:], max(limit - end, 12)) if len(text) > limit else text[end:])
    return clip(text, limit)


def _fact(pr: int | None, where: str, fact: Any) -> Evidence:
    """One fact a sentence stands on: which PR (None: the period's), which field of it, what it says."""
    return {"pr": pr, "field": where, "fact": str(fact)}


def _fmt(value: float) -> str:
    return f"{value:g}"


def _line(p: PrEntry, zh: bool) -> str:
    """What a PR does, as one sentence without its final stop: its summary, else its title's action."""
    return _told(p, zh)[0]


def _told(p: PrEntry, zh: bool) -> tuple[str, list[Evidence]]:
    """A PR's line and the facts it stands on: its summary (a sentence of the description, or in zh its title in
    Chinese with what the files, markers and description state), else its title. In zh a summary that would
    quote English (a title the translator could not carry) gives way to the brief's headline (engine.headline),
    which says in Chinese what the engine knows."""
    title = PR_SUFFIX.sub("", parse_title(p["title"])[0] or p["title"])
    summary = str(p.get("summary") or "")
    facts = [_fact(p["number"], "title", title)]
    if not summary or summary == p["title"]:
        summary = gist.doing(title, p["type"]) if zh else title
    elif not _from_title(summary, title, p["type"], zh):
        facts = [_fact(p["number"], "body", summary)]  # the author's sentence: scoring took it from the body
    summary = summary.rstrip("。.")
    area = f"（{'、'.join(p['modules'][:2])}）"
    if zh and p["modules"] and summary.endswith(area):
        summary = summary[:-len(area)]  # the line's module tag: prose names the module already
    if "据描述实测" in summary:
        facts.append(_fact(p["number"], "summary", summary.split("据描述实测", 1)[1].strip("，。 ")))
    if zh and p.get("headline") and headline.english_prose(summary):
        measured = headline.MEASURED.search(summary)
        summary = p["headline"] + (f"，{measured.group(0)}" if measured else "")
    if p["breaking"] and p.get("breaking_reason"):
        facts.append(_fact(p["number"], "breaking_reason", p["breaking_reason"]))
    if not zh:  # one sentence of the author's, whole: English prose is sentences, never a body cut mid-word
        summary = re.split(r"(?<=[a-z0-9)`'\"”])[.!?]\s+(?=[A-Z`])", summary, maxsplit=1)[0].rstrip(".")
    return _short(summary, 160), facts


def _from_title(summary: str, title: str, kind: str, zh: bool) -> bool:
    """Whether a PR's summary was built from its title (the engine's line) rather than taken from its body."""
    if zh:
        return summary.startswith(gist.doing(title, kind).rstrip("。"))
    return summary.rstrip(".").lower() == title.rstrip(".").lower()


def _member(p: PrEntry, report: Analysis, zh: bool, in_module: bool = False) -> str:
    """A PR told after its theme's lead (or in its module's line): what it reverts, else what it does."""
    undone = next((c["reverts"] for c in report.get("reverts", []) if c["pr"] == p["number"] and c["reverts"]), None)
    if undone:
        return f"#{p['number']} 回滚了 #{undone}" if zh else f"#{p['number']} reverts #{undone}"
    line = _short(_line(p, zh), 70 if zh else 120)
    # one PR, one clause: its line's own "；" would read as the next member's
    return f"#{p['number']} {line.replace('；', '，')}" if zh else f"#{p['number']} ({_lower(line)})"


def _size(p: PrEntry, zh: bool, i: int) -> str:
    """How much a PR changed, from its files: a clause to follow its line (its shape varies with `i`)."""
    files, plus, minus = p["changed_files"], p["additions"], p["deletions"]
    if zh:
        return [f"，改动 {files} 个文件（+{plus}/−{minus} 行）", f"，共 {files} 个文件、+{plus}/−{minus} 行",
                f"（{files} 个文件，+{plus}/−{minus} 行）"][i % 3]
    return f" ({files} file{'s' if files != 1 else ''}, +{plus}/−{minus} lines;"  # the importance closes it


def _member_facts(members: list[PrEntry], zh: bool) -> list[Evidence]:
    return [fact for p in members for fact in _told(p, zh)[1]]


def _unbracket(text: str) -> str:
    """A phrase to put in brackets: its bracketed part becomes a comma clause ("较大（147 行）" → "较大，147 行")."""
    return text.replace("（", "，").replace("）", "")


def _lead(members: list[PrEntry]) -> PrEntry:
    """The member a theme is told by: the most important one that is neither a revert nor reverted."""
    standing = [p for p in members if p["type"] != "revert" and not p.get("reverted_by")] or members
    return max([p for p in standing if p["key"]] or standing, key=lambda p: (p["importance"], -p["number"]))


def _keyed(members: list[PrEntry]) -> bool:
    """Whether a theme is a key change: its lead is key (a key PR that was reverted does not make it one)."""
    return bool(_lead(members)["key"])


def _themes(report: Analysis) -> list[tuple[dict[str, Any], list[PrEntry]]]:
    """The clusters with their member PRs, the one with the most important key PR first."""
    by_number = {p["number"]: p for p in report.get("prs", [])}
    themes = []
    for cluster in report.get("clusters", []):
        members = [by_number[n] for n in cluster["prs"] if n in by_number]
        if members:
            themes.append((dict(cluster), members))
    return themes


def _chain_sentence(numbers: set[int], report: Analysis, zh: bool) -> str:
    """The revert chains among `numbers`, told in one sentence each."""
    out = []
    for c in report.get("reverts", []):
        if c["pr"] not in numbers and c["reverts"] not in numbers:
            continue
        target = f"#{c['reverts']}" if c["reverts"] else ("此前的改动" if zh else "an earlier change")
        back = c.get("relanded_by")
        if zh:
            tail = (f"，随后由 #{back} 重新修复" if c.get("relanded_how") == "refix" else
                    f"，随后由 #{back} 重新合入" if back else "，目前尚未重新合入")
            out.append(f"其中 {target} 被 #{c['pr']} 回滚{tail}。")
        else:
            tail = (f", then fixed again by #{back}" if c.get("relanded_how") == "refix" else
                    f", then re-landed by #{back}" if back else ", not re-landed yet")
            out.append(f"{target} was reverted by #{c['pr']}{tail}.")
    return ("" if zh else " ").join(out)


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
    themes = _themes(report)
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
              or _lead(members)["key"] and not _lead(members).get("reverted_by")]
    chosen.sort(key=lambda u: (not must & {p["number"] for p in u[1]}, -_lead(u[1])["importance"],
                               _lead(u[1])["number"]))
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
    shown = _refs(numbers, 20, zh)
    text = (f"另有 {len(numbers)} 个破坏性变更：{shown}（原因见附录「风险详情」）。" if zh else
            f"{len(numbers)} more breaking changes: {shown} (why: see the appendix, Risks in detail).")
    return {"text": text, "prs": numbers,
            "evidence": [_fact(p["number"], "breaking_reason", p["breaking_reason"]) for p in prs[:20]
                         if p.get("breaking_reason")]}


def _told_members(members: list[PrEntry], must: set[int]) -> tuple[list[PrEntry], list[int]]:
    """The members an item tells by their lines (its lead, then those the highlights must name, else the next
    most important: at least two more), and the others it names by number."""
    lead = _lead(members)
    rest = sorted((p for p in members if p["number"] != lead["number"]),
                  key=lambda p: (p["number"] not in must, -p["importance"], p["number"]))
    named = [p for p in rest if p["number"] in must] or rest[:1]
    named = named[:max(2, len(named))]
    return [lead, *named], [p["number"] for p in rest if p not in named]


def _theme_highlight(subsystem: str, members: list[PrEntry], report: Analysis, zh: bool, must: set[int]) -> Note:
    """A subject's item under its subsystem: its lead's line, up to two more members by their lines (those the
    highlights must name first), the rest by number; then what follows from it (breaking reasons, revert
    chains)."""
    told, others = _told_members(members, must)
    area = _area(subsystem) if zh and subsystem else subsystem
    broken = [p for p in told if p["breaking"]]
    flag = ("[破坏性变更] " if zh else "[breaking] ") if broken else ""
    lines = ("；" if zh else "; ").join(_member(p, report, zh).replace("，属于破坏性变更", "") for p in told)
    also = (f"（另见 {_refs(others, 3, zh)}）" if zh else f" (see also {_refs(others, 3)})") if others else ""
    opening = f"{flag}{area + ('：' if zh else ': ') if area else ''}{lines}{also}{'。' if zh else '.'}"
    chain = _chain_sentence({p["number"] for p in members}, report, zh)
    # an item of one PR: its migration needs no number again
    text = opening + "".join(_consequence(p, zh, len(told) + len(others) > 1) for p in broken) + (
        chain if zh or not chain else f" {chain}")
    return {"text": text, "prs": [p["number"] for p in told] + others,
            "evidence": [*_member_facts(told, zh), _fact(told[0]["number"], "importance", told[0]["importance"])]}


def _consequence(p: PrEntry, zh: bool, numbered: bool = True) -> str:
    """What a breaking PR asks of its users, from why the engine found it breaking: what it removes or changes
    (files by their names) rather than that its title says so; by its number when the item tells several."""
    reason = _short(headline.migration(str(p.get("breaking_reason") or ""), zh), 80)
    if zh:  # the author's own marker says only that it breaks: the migration is the PR's to describe
        return (f"迁移：{'#' + str(p['number']) + ' ' if numbered else ''}{_unbracket(reason)}。" if reason else
                f"迁移：作者标注为破坏性变更，升级前请按 #{p['number']} 的说明修改用法。")
    return f" #{p['number']} breaks existing use ({reason}): migrate before upgrading." if reason else \
        f" #{p['number']} is marked breaking by its author: follow its description before upgrading."


def _described(highlights: list[Note]) -> frozenset[int]:
    """The PRs the highlights told by their own lines: those whose facts an item cites as evidence."""
    return frozenset(f["pr"] for item in highlights for f in item.get("evidence", []) if f["pr"] is not None)


def _area(name: str) -> str:
    """A module as zh prose names it: a generic one in Chinese (文档), a proper name marked a module (megatron 模块)."""
    said = translate.module(name)
    return said if said != name or not name else f"{name} 模块"


def _key_changes(report: Analysis, zh: bool, described: frozenset[int] = frozenset(),
                 highlighted: frozenset[int] = frozenset()) -> list[KeyChange]:
    """A paragraph per theme (what its lead does, what the others add, its revert chains), then busy modules.
    A PR the highlights already told by its line (`described`) is named, not told again, beside a theme's or a
    module's lead: the paragraph's lines go to PRs the reader has not read about yet."""
    by_number = {p["number"]: p for p in report.get("prs", [])}
    now = _words(report, zh)[0]
    # a theme of no key PR is no key change; a theme the highlights told whole is not told twice
    keyed = [(c, m) for c, m in _themes(report) if _keyed(m) and not {p["number"] for p in m} <= highlighted]
    changes = [_theme_change(i, cluster, members, report, zh, described)
               for i, (cluster, members) in enumerate(keyed[:KEY_CHANGES])]
    covered = {n for change in changes for n in change["prs"]} | highlighted
    for module in report.get("modules", []):
        if len(changes) >= KEY_CHANGES:
            break
        rest = [n for n in module["prs"] if n not in covered]
        if module["pr_count"] < 2 or len(rest) < 2 or not any(by_number[n]["key"] for n in rest if n in by_number):
            continue  # a module's PRs none of which is key are no key change either
        changes.append(_module_change(module, rest, by_number, report, now, zh, described))
        covered.update(rest)
    return _distinct_headings(changes, by_number, zh)


def _distinct_headings(changes: list[KeyChange], by_number: dict[int, PrEntry], zh: bool) -> list[KeyChange]:
    """Two key changes under one subsystem (two themes, or a theme and its module's other PRs): the second says
    its lead's headline too, so no two headings read alike."""
    seen: set[str] = set()
    out = []
    for change in changes:
        members = [by_number[n] for n in change["prs"] if n in by_number]
        lead = _lead(members) if members else None
        if change["theme"] in seen and lead is not None and lead.get("headline"):
            change = {**change, "theme": f"{change['theme']}{'：' if zh else ': '}{lead['headline']}"}
        seen.add(change["theme"])
        out.append(change)
    return out


def _theme_change(i: int, cluster: dict[str, Any], members: list[PrEntry], report: Analysis, zh: bool,
                  described: frozenset[int] = frozenset()) -> KeyChange:
    """A theme's paragraph: its lead, then what the others do, in their own lines (those the highlights told
    are only named), then its revert chains."""
    lead = _lead(members)
    chained = {c["pr"] for c in report.get("reverts", [])}  # told by the chain sentence below
    others = sorted((p for p in members if p["number"] != lead["number"] and p["number"] not in chained),
                    key=lambda p: (p["number"] in described, -p["importance"], p["number"]))
    told = [p for p in others[:3] if p["number"] not in described]
    untold = [p["number"] for p in others if p not in told]
    said = ("；" if zh else "; ").join(_member(p, report, zh) for p in told)
    recalled = lead["number"] in described and bool(told)  # the highlights told the lead: go on from it
    if recalled:
        # the lead by its headline (a few words: the highlights told its line), then what the others add
        named = _short(str(lead.get("headline") or _line(lead, zh)), 40)
        text = (f"#{lead['number']}（{named}）之外，同组还有 {said}"
                f"{'，另有 ' + _refs(untold, zh=True) if untold else ''}。" if zh else
                f"Besides #{lead['number']} ({_lower(named)}), {len(members) - 1} related PRs: {said}"
                f"{'; also ' + _refs(untold) if untold else ''}.")
    else:
        text = _theme_opening(i, lead, len(members), said, untold, zh)
    chain = _chain_sentence({p["number"] for p in members}, report, zh)
    text += chain if zh else (f" {chain.strip()}" if chain else "")
    return {"theme": _theme_heading(cluster, lead, zh), "text": text, "prs": list(cluster["prs"]),
            "evidence": [*_member_facts(told if recalled else [lead, *told], zh),
                         _fact(None, "clusters", cluster.get("reason", ""))]}


def _theme_heading(cluster: dict[str, Any], lead: PrEntry, zh: bool) -> str:
    """A theme's heading: its subsystem (the cluster's, as the highlights name it), else its lead's headline.
    The paragraph below tells the lead: a heading that said it too would be read twice."""
    area = _heading(cluster)
    if not area:
        return str(lead.get("headline") or cluster["title"])
    return _area(area) if zh else area


def _theme_opening(i: int, lead: PrEntry, size: int, said: str, untold: list[int], zh: bool) -> str:
    """A theme's paragraph told from its lead's line (its shape varies with `i`), then the members `said`."""
    line = _line(lead, zh)
    line += _size(lead, zh, i + 1) if zh and "个文件" not in line else ""  # a headline may give the size already
    if zh:
        opening = [f"#{lead['number']} {line}。", f"这一组以 #{lead['number']} 为首：{line}。",
                   f"{size} 个 PR 围绕 #{lead['number']} 展开：{line}。"][i % 3]
        if not said:
            return opening + (f"同组的还有 {_refs(untold, zh=True)}。" if untold else "")
        return opening + f"同组的 {said}" + (f"，另有 {_refs(untold, zh=True)}" if untold else "") + "。"
    text = (f"#{lead['number']} leads {size} related PRs: {_lower(line)}." if i % 2 == 0 else
            f"{size} related PRs, led by #{lead['number']} ({_lower(line)}).")
    if not said:
        return text + (f" With it: {_refs(untold)}." if untold else "")
    return text + f" With it: {said}" + (f"; also {_refs(untold)}" if untold else "") + "."


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
        said = "；".join(_member(p, report, zh, in_module=True) for p in told)
        listed = "；另有 ".join(part for part in (said, _refs(untold, zh=True)) if part)
        counts = f"{module['pr_count']} 个 PR，其中关键 {len(key)} 个"
        name = translate.module(module["name"])
        said = f"{now}共 {counts}，除上文外：{listed}。" if more else f"{now} {counts}：{listed}。"
        text = translate.join([name, said])
    else:
        said = "; ".join(_member(p, report, zh, in_module=True) for p in told)
        also = f"; also {_refs(untold)}" if untold else ""
        beyond = "; besides those above" if more else ""
        text = f"{module['pr_count']} PRs touched {module['name']} ({len(key)} key){beyond}: {said}{also}."
    return {"theme": _area(module["name"]) if zh else module["name"], "text": text, "prs": rest,
            "evidence": [*_member_facts(told, zh), _fact(None, "modules", module["name"])]}


def _trend_notes(report: Analysis, zh: bool) -> list[Note]:
    notes: list[Note] = []
    words = TREND_WORDS["zh" if zh else "en"]
    now, per, before = _words(report, zh)
    for module in report.get("modules", []):
        trend = module.get("trend")
        if trend not in ("rising", "fading", "new"):
            continue
        if trend == "new" and module["pr_count"] < 2:
            continue  # one PR in a module unseen for a month is not a trend
        base = _fmt(module.get("baseline", 0))
        if zh:
            text = (f"{_area(module['name'])}：{now} {module['pr_count']} 个 PR，"
                    f"{before}平均{per} {base} 个（{words[trend]}）")
        else:
            count = f"{module['pr_count']} PR{'s' if module['pr_count'] != 1 else ''}"
            text = f"{module['name']}: {count} {now} vs {base}{per} over {before} ({words[trend]})"
        notes.append({"text": text, "prs": list(module["prs"]),
                      "evidence": [_fact(None, "modules", f"{module['name']}: pr_count {module['pr_count']}, "
                                                         f"baseline {base}, trend {trend}")]})
    return notes[:5]


def _risk_notes(report: Analysis, zh: bool) -> list[Note]:
    names = RISK_TEXT["zh" if zh else "en"]
    notes: list[Note] = []
    importance = {p["number"]: p["importance"] for p in report.get("prs", [])}
    for risk in report.get("risks", []):
        label = names.get(risk["kind"], risk["kind"])
        # the example is the risk's most important PR (a year lists hundreds by number)
        if not risk["prs"]:
            continue  # a kind lists its PRs (engine.analysis._risks); none, no observation
        first = min(risk["prs"], key=lambda n: (-importance.get(n, 0.0), n))
        items = sorted(risk.get("items") or [], key=lambda i: i["pr"] != first)
        example = f"{items[0]['detail']}" if items else risk["detail"]
        example = _first_clause(example)  # the details section has all
        quoted = example
        if risk["kind"] == "dependency_pin":
            example = _first_pins(example, zh)
        example = headline.PATH.sub(r"\1", example)  # a file by its name: the details give its path
        # The renderers list the PRs the text does not cite, so the text names only the example.
        count = len(risk["prs"])
        if zh:
            text = (f"{label}：#{first}，{_short(example, 120)}" if count == 1 else
                    f"{label}：{count} 个 PR，例如 #{first}：{_short(example, 120)}")
        else:
            text = (f"{label}: #{first}, {_short(example, 120)}" if count == 1 else
                    f"{label}: {count} PRs, e.g. #{first}: {_short(example, 120)}")
        ranked = sorted(risk["prs"], key=lambda n: (-importance.get(n, 0.0), n))  # the brief names the first few
        notes.append({"text": text, "prs": ranked, "evidence": [
            _fact(first, "risks", quoted), *reviews.review_risk_facts(risk["kind"], first, report.get("reviews"))]})
    return notes


def _first_clause(text: str) -> str:
    """The first of `text`'s "；"-separated clauses, where a clause's own brackets may hold "；" too: a cut inside
    "（a；b）" would leave the bracket open."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c in "（(") - (c in "）)")
        if depth <= 0 and (c == "；" or text.startswith("; ", i)):
            return text[:i]
    return text


def _first_pins(detail: str, zh: bool, shown: int = 2) -> str:
    """A pin list cut to its first `shown` pins ("依赖版本：a、b 等"): the note points at the risk, whose section
    below lists every pin."""
    if not (match := re.match(r"^(.*?[：:]\s*)(.+)$", detail)) or len(pins := match.group(2).split(", ")) <= shown:
        return detail
    return match.group(1) + ("、".join(pins[:shown]) + " 等" if zh else ", ".join(pins[:shown]) + ", …")


def _relation_notes(report: Analysis, zh: bool) -> list[Note]:
    by_number = {p["number"]: p for p in report.get("prs", [])}
    notes: list[Note] = []
    for chain in report.get("reverts", []):
        prs = [n for n in (chain["reverts"], chain["pr"], chain["relanded_by"]) if n]
        target = f"#{chain['reverts']}" if chain["reverts"] else f"“{_short(chain['title'], 60)}”"
        reverted = by_number.get(chain["reverts"] or 0)
        what = f"（{_line(reverted, zh)}）" if zh and reverted else ""
        back, refix = chain["relanded_by"], chain.get("relanded_how") == "refix"
        if zh:
            text = f"#{chain['pr']} 回滚了 {target}{what}"
            text += (f"，随后 #{back} 重新修复了这一问题" if refix else f"，随后由 #{back} 重新合入" if back else
                     "，尚未重新合入")
        else:
            text = f"#{chain['pr']} reverts {target}"
            text += (f", fixed again by #{back}" if refix else f", re-landed by #{back}" if back else
                     ", not re-landed yet")
        facts = [_fact(chain["pr"], "title", chain["title"]) if chain["pr"] in by_number else
                 _fact(None, "reverts", chain["title"])]
        if reverted:
            facts += _told(reverted, zh)[1]
        notes.append({"text": text, "prs": prs, "evidence": facts})
    return notes


# What to do next about each kind of finding, in the order suggested; {refs} are its PRs.
SUGGESTIONS = (
    ("breaking", "升级前请阅读破坏性变更 {refs}，并在发布说明中写明迁移方式。",
     "Read the breaking changes {refs} before upgrading and note the migration in the release notes."),
    ("open_reverts", "跟进被回滚且尚未重新合入的改动（{refs}）。",
     "Follow up the reverted changes not re-landed yet ({refs})."),
    ("untested_key", "为没有测试的关键 PR 补充测试：{refs}。", "Add tests for key PRs merged without any: {refs}."),
    ("follow_up", "兑现审阅中承诺的后续工作（{refs}）。", "Do the follow-ups promised in review ({refs})."),
    ("unresolved_review", "确认合并时未解决的审阅意见是否仍要处理（{refs}）。",
     "Check whether the review threads left open at merge still need work ({refs})."),
    ("dependency_pin", "核对依赖版本变更（{refs}）与部署镜像是否一致。",
     "Check the dependency changes ({refs}) against the deployed images."),
    ("todo_left", "为新增的 TODO/FIXME 建立 issue 跟踪（{refs}）。",
     "Track the new TODO/FIXME markers in issues ({refs})."),
    ("doc_mismatch", "为改动了接口或配置却未更新文档的 PR 补充文档：{refs}。",
     "Document the API/config changes merged without docs: {refs}."),
    ("title_convention", "提醒作者按规范书写标题标签（{refs}）。", "Remind authors of the title convention ({refs})."),
)


def _suggestions(report: Analysis, zh: bool) -> list[str]:
    asks: dict[str, list[int]] = {r["kind"]: r["prs"] for r in report.get("risks", [])}
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    asks["open_reverts"] = [c["pr"] for c in report.get("reverts", []) if not c["relanded_by"]]  # re-fixed: done
    asks["untested_key"] = [n for n in asks.get("missing_tests", []) if n in key]
    out = [(in_zh if zh else in_en).format(refs=_refs(asks[name], zh=zh))
           for name, in_zh, in_en in SUGGESTIONS if asks.get(name)]
    rising = [m["name"] for m in report.get("modules", []) if m.get("trend") == "rising"]
    if rising:
        named = "、".join(map(translate.module, rising[:3]))
        out.append(f"关注活跃度较{_words(report, zh)[2]}上升的模块：{named}。" if zh else
                   f"Watch the modules gaining activity: {', '.join(rising[:3])}.")
    welcome = _welcome(report["stats"], zh)
    if welcome:
        out.append(welcome)
    return out[:5]


def _welcome(stats: Stats, zh: bool) -> str:
    """A welcome to the period's newcomers ("first seen in the last N weeks" when the history is short), or ''."""
    newcomers = stats.get("new_contributors") or []
    window = stats.get("new_contributors_window") or 0
    plural = "s" if len(newcomers) != 1 else ""
    if newcomers and window:
        return (f"欢迎近 {window} 周首次出现的 {len(newcomers)} 位贡献者。" if zh else
                f"Welcome the {len(newcomers)} contributor{plural} first seen in the last {window} weeks.")
    if newcomers:
        return (f"欢迎 {len(newcomers)} 位首次贡献者。" if zh else
                f"Welcome the {len(newcomers)} first-time contributor{plural}.")
    return ""


def _lower(line: str) -> str:
    """A line that follows "which": its first letter in lower case unless it opens a name ("Qwen3", "CI")."""
    first = line.split(" ", 1)[0]
    return line if re.search(r"[A-Z].*[A-Z]|\d|[_`./]", first) else line[:1].lower() + line[1:]


@dataclass(frozen=True)
class _Notable:
    """What the summary's second paragraph points at."""

    lead: list[PrEntry]  # the first two key PRs not reverted: the ones to read first
    busiest: list[str]  # the three modules with the most PRs
    themes: int  # clusters with a key PR
    breaking: int
    reverts: int  # revert chains
    back: int  # of them, re-landed or re-fixed


def _busiest(report: Analysis) -> list[str]:
    """The three modules with the most PRs among those with a key PR: docs PRs alone do not make a module the
    week's centre."""
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    return [m["name"] for m in report.get("modules", []) if m["pr_count"] and key & set(m["prs"])][:3]


def _notable(report: Analysis) -> _Notable:
    chains = report.get("reverts", [])
    return _Notable(
        lead=[p for p in report.get("prs", []) if p["key"] and not p.get("reverted_by")][:2],
        busiest=_busiest(report),
        themes=len([c for c, m in _themes(report) if _keyed(m)]),
        breaking=sum(1 for p in report.get("prs", []) if p["breaking"]),
        reverts=len(chains), back=sum(1 for c in chains if c["relanded_by"]))


def _summary(report: Analysis, zh: bool) -> str:
    s = report["stats"]
    now = _words(report, zh)[0]
    if s["pr_count"] == 0:
        return f"{now}没有合并的 PR。" if zh else f"No pull requests were merged {now}."
    waiting = s.get("unscored_count", 0)
    if waiting >= s["pr_count"]:  # merged, none scored yet: no figures to give, and never "none merged"
        return (f"{now}合并 {s['pr_count']} 个 PR，均尚未评分（见“未评分 PR”），暂无统计。" if zh else
                f"{_merged_en(s['pr_count'])} {now}; none is scored yet (see Unscored PRs), so there are no figures.")
    notable = _notable(report)
    if zh:
        second = _notable_zh(notable)
        text = _figures_zh(s, now) + ("\n\n" + "；".join(second) + "。" if second else "")
    else:
        second = _notable_en(notable)
        text = _figures_en(s) + ("\n\n" + "; ".join(second) + "." if second else "")
    said = reviews.summary_line(report.get("reviews"), zh)  # a paragraph of its own, only with review data
    return text + ("\n\n" + said if said else "")


def _figures_zh(s: Stats, now: str) -> str:
    """The period's figures: PRs, key PRs, authors and newcomers, lines, average scores."""
    window = s.get("new_contributors_window") or 0  # the history reaches back only this many weeks
    newcomers = (f"近 {window} 周首次出现 {len(s['new_contributors'])} 位" if window else
                 f"新贡献者 {len(s['new_contributors'])} 位")
    waiting = s.get("unscored_count", 0)
    merged = (f"{now}合并 {s['pr_count']} 个 PR，其中 {waiting} 个尚未评分；已评分的 {s['pr_count'] - waiting} 个中"
              if waiting else f"{now}合并 {s['pr_count']} 个 PR，其中")
    return (f"{merged}关键 PR {s['key_pr_count']} 个，来自 {s['authors']} 位作者"
            f"（{newcomers}），共 +{s['additions']}/−{s['deletions']} 行；"
            f"平均重要度 {s['avg_importance']:.1f}，平均洞察度 {s['avg_insight']:.1f}。")


def _figures_en(s: Stats) -> str:
    n, window, waiting = s["pr_count"], s.get("new_contributors_window") or 0, s.get("unscored_count", 0)
    merged = _merged_en(n) + (f" ({waiting} not scored yet; the figures are the other {n - waiting}'s)"
                              if waiting else "")
    newcomers = (f"{len(s['new_contributors'])} first seen in the last {window} weeks" if window else
                 f"{len(s['new_contributors'])} first-time")
    return (f"{merged}, {s['key_pr_count']} of them key, by {s['authors']} author{'s' if s['authors'] != 1 else ''} "
            f"({newcomers}), +{s['additions']}/−{s['deletions']} lines; "
            f"average importance {s['avg_importance']:.1f}, average insight {s['avg_insight']:.1f}.")


def _merged_en(n: int) -> str:
    return f"{n} PRs were merged" if n != 1 else "1 PR was merged"


def _notable_zh(seen: _Notable) -> list[str]:
    second = []
    if seen.busiest:
        second.append(f"改动最集中的模块是 {'、'.join(map(translate.module, seen.busiest))}"
                      + (f"，关键 PR 归为 {seen.themes} 个主题" if seen.themes else ""))
    if seen.lead:  # the highlights, just above, tell them (they always hold the top three)
        second.append("最值得先读的是 " + "，以及 ".join(
            f"{translate.join([_area(p['modules'][0]), '的']) + ' ' if p['modules'] else ''}#{p['number']}"
            for p in seen.lead) + "（见上文亮点）")
    settled = f"（其中 {seen.back} 条已重新合入或修复）" if seen.back else ""
    attention = [f"{seen.breaking} 个破坏性变更" if seen.breaking else "",
                 f"{seen.reverts} 条回滚记录{settled}" if seen.reverts else ""]
    if seen.breaking or seen.reverts:
        second.append("需要留意的有 " + "和 ".join(a for a in attention if a))
    return second


def _notable_en(seen: _Notable) -> list[str]:
    second = []
    if seen.busiest:
        second.append(f"The busiest modules were {', '.join(seen.busiest)}")
    if seen.lead:  # the highlights, just above, tell them (they always hold the top three)
        second.append("the changes to read first are " + " and ".join(f"#{p['number']}" for p in seen.lead)
                      + " (see the highlights)")
    breaking, reverts = seen.breaking, seen.reverts
    attention = [f"{breaking} breaking change{'s' if breaking != 1 else ''}" if breaking else "",
                 f"{reverts} revert chain{'s' if reverts != 1 else ''}" if reverts else ""]
    if breaking or reverts:
        second.append(" and ".join(a for a in attention if a) + (" need" if breaking + reverts > 1 else " needs")
                      + " attention")
    return second


def summary_evidence(report: Analysis) -> list[Evidence]:
    """What the engine's summary stands on: the period's stats, and the lines of the PRs it says to read first."""
    zh = report.get("language", "zh") == "zh"
    s = report["stats"]
    facts = [_fact(None, "stats", f"{name} {s[name]}") for name in  # type: ignore[literal-required]
             ("pr_count", "key_pr_count", "authors", "additions", "deletions", "avg_importance", "avg_insight")]
    if s["pr_count"]:
        facts += _member_facts(_notable(report).lead, zh) + reviews.summary_facts(report.get("reviews"))
    return facts


def engine_narrative(report: Analysis) -> Narrative:
    """The engine's narrative sections for the analysed period (see the module docstring)."""
    zh = report.get("language", "zh") == "zh"
    highlights = _highlights(report, zh)
    return {
        "summary": _summary(report, zh),
        "highlights": highlights,
        "key_changes": _key_changes(report, zh, _described(highlights),
                                    frozenset(n for item in highlights for n in item["prs"])),
        "trend_notes": _trend_notes(report, zh),
        "risk_notes": _risk_notes(report, zh),
        "relation_notes": _relation_notes(report, zh),
        "suggestions": _suggestions(report, zh),
    }
