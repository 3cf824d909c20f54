"""The week's narrative written by the engine, in the report's language (zh or en).

Contract: `engine_narrative(analysis) -> Narrative` (prhub.report) with

    summary              str (paragraphs separated by a blank line)
    highlights           [{text, prs}]        the most important key PRs
    key_changes          [{theme, text, prs}] related-PR clusters, then the busiest modules
    trend_notes          [{text, prs}]        modules rising, fading or new against the 4-week baseline
    risk_notes           [{text, prs}]        one per risk kind
    relation_notes       [{text, prs}]        revert chains
    suggestions          [str]                what the maintainers could do next

The same sections the LLM writes (prhub.llm.SECTIONS), so the model falls back
per section. Every number quoted comes from the analysis; PR titles and summaries
are quoted as data (renderers escape them).
"""
from __future__ import annotations

from prhub.report import Analysis, KeyChange, Narrative, Note, PrEntry
from prhub.scoring import parse_title

HIGHLIGHTS = 5
KEY_CHANGES = 6

RISK_TEXT = {
    "zh": {
        "breaking": "破坏性变更", "revert": "回滚", "dependency_pin": "依赖版本变更", "todo_left": "新增 TODO/FIXME",
        "large_change": "超大改动", "missing_tests": "改了源码但没有改测试", "title_convention": "标题规范问题",
        "doc_mismatch": "文档与代码不符",
    },
    "en": {
        "breaking": "breaking changes", "revert": "reverts", "dependency_pin": "dependency pins",
        "todo_left": "new TODO/FIXME markers", "large_change": "very large changes",
        "missing_tests": "source changes without test changes", "title_convention": "title convention problems",
        "doc_mismatch": "docs out of step with code",
    },
}
TREND_WORDS = {"zh": {"rising": "上升", "fading": "回落", "new": "新出现"},
               "en": {"rising": "rising", "fading": "fading", "new": "new"}}


def _refs(numbers: list[int], limit: int = 6) -> str:
    shown = ", ".join(f"#{n}" for n in numbers[:limit])
    return shown + (" …" if len(numbers) > limit else "")


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _fmt(value: float) -> str:
    return f"{value:g}"


def _highlights(report: Analysis, zh: bool) -> list[Note]:
    key = [p for p in report.get("prs", []) if p["key"]][:HIGHLIGHTS]  # prs[] is sorted by importance
    items: list[Note] = []
    for p in key:
        summary = p["summary"] if p["summary"] and p["summary"] != p["title"] else ""
        flags = []
        if p["breaking"]:
            flags.append("破坏性变更" if zh else "breaking")
        if p["type"] == "revert":
            flags.append("回滚" if zh else "revert")
        flag = f"[{'/'.join(flags)}] " if flags else ""
        if zh:
            text = f"{flag}#{p['number']} {_short(p['title'])}（重要度 {_fmt(p['importance'])}）"
            text += f"：{_short(summary, 160)}" if summary else ""
        else:
            text = f"{flag}#{p['number']} {_short(p['title'])} (importance {_fmt(p['importance'])})"
            text += f": {_short(summary, 160)}" if summary else ""
        items.append({"text": text, "prs": [p["number"]]})
    return items


def _key_changes(report: Analysis, zh: bool) -> list[KeyChange]:
    by_number = {p["number"]: p for p in report.get("prs", [])}
    changes: list[KeyChange] = []
    covered: set[int] = set()
    for cluster in report.get("clusters", [])[:KEY_CHANGES]:
        members = [by_number[n] for n in cluster["prs"] if n in by_number]
        lead = max(members, key=lambda p: (p["importance"], -p["number"]))
        n = len(members)
        what = _short(parse_title(lead["title"])[0] or lead["title"], 70)  # the tags are in the theme already
        if what.rstrip("…") in cluster["title"]:
            what = ""  # the theme is the lead's own title: do not say it twice
        if zh:
            text = f"{n} 个相关 PR（{_refs(cluster['prs'])}），以 #{lead['number']}{f'「{what}」' if what else ' '}为主"
        else:
            text = f"{n} related PRs ({_refs(cluster['prs'])}), led by #{lead['number']}{f' “{what}”' if what else ''}"
        changes.append({"theme": cluster["title"], "text": text, "prs": list(cluster["prs"])})
        covered.update(cluster["prs"])
    for module in report.get("modules", []):
        if len(changes) >= KEY_CHANGES:
            break
        rest = [n for n in module["prs"] if n not in covered]
        if module["pr_count"] < 2 or len(rest) < 2:
            continue
        key = [n for n in rest if n in by_number and by_number[n]["key"]]
        more = len(rest) < module["pr_count"]  # some of the module's PRs were told with a cluster above
        if zh:
            share = f"其中关键 {len(key)} 个" if key else "均非关键 PR"
            text = f"{module['name']} 模块{'另有' if more else '本周'} {len(rest)} 个 PR，{share}：{_refs(rest)}"
        else:
            share = f"{len(key)} of them key" if key else "none of them key"
            text = f"{len(rest)} {'more ' if more else ''}PRs in {module['name']}, {share}: {_refs(rest)}"
        changes.append({"theme": module["name"], "text": text, "prs": rest})
        covered.update(rest)
    return changes


def _trend_notes(report: Analysis, zh: bool) -> list[Note]:
    notes: list[Note] = []
    words = TREND_WORDS["zh" if zh else "en"]
    for module in report.get("modules", []):
        trend = module.get("trend")
        if trend not in ("rising", "fading", "new"):
            continue
        if trend == "new" and module["pr_count"] < 2:
            continue  # one PR in a module unseen for a month is not a trend
        base = _fmt(module.get("baseline", 0))
        if zh:
            text = (f"{module['name']}：本周 {module['pr_count']} 个 PR，前 4 周平均每周 {base} 个（{words[trend]}）")
        else:
            count = f"{module['pr_count']} PR{'s' if module['pr_count'] != 1 else ''}"
            text = (f"{module['name']}: {count} this week vs {base}/week over the previous 4 "
                    f"({words[trend]})")
        notes.append({"text": text, "prs": list(module["prs"])})
    return notes[:5]


def _risk_notes(report: Analysis, zh: bool) -> list[Note]:
    names = RISK_TEXT["zh" if zh else "en"]
    notes: list[Note] = []
    for risk in report.get("risks", []):
        label = names.get(risk["kind"], risk["kind"])
        items = risk.get("items") or []
        example = f"{items[0]['detail']}" if items else risk["detail"]
        # The renderers list the PRs the text does not cite, so the text names only the example.
        first, count = risk["prs"][0], len(risk["prs"])
        if zh:
            text = (f"{label}：#{first}，{_short(example, 120)}" if count == 1 else
                    f"{label}：{count} 个 PR，例如 #{first}：{_short(example, 120)}")
        else:
            text = (f"{label}: #{first}, {_short(example, 120)}" if count == 1 else
                    f"{label}: {count} PRs, e.g. #{first}: {_short(example, 120)}")
        notes.append({"text": text, "prs": list(risk["prs"])})
    return notes


def _relation_notes(report: Analysis, zh: bool) -> list[Note]:
    notes: list[Note] = []
    for chain in report.get("reverts", []):
        prs = [n for n in (chain["reverts"], chain["pr"], chain["relanded_by"]) if n]
        target = f"#{chain['reverts']}" if chain["reverts"] else f"“{_short(chain['title'], 60)}”"
        if zh:
            text = f"#{chain['pr']} 回滚了 {target}"
            text += f"，随后由 #{chain['relanded_by']} 重新合入" if chain["relanded_by"] else "，尚未重新合入"
        else:
            text = f"#{chain['pr']} reverts {target}"
            text += f", re-landed by #{chain['relanded_by']}" if chain["relanded_by"] else ", not re-landed yet"
        notes.append({"text": text, "prs": prs})
    return notes


def _suggestions(report: Analysis, zh: bool) -> list[str]:
    risks = {r["kind"]: r["prs"] for r in report.get("risks", [])}
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    out: list[str] = []
    if risks.get("breaking"):
        out.append(f"升级前请阅读破坏性变更 {_refs(risks['breaking'])}，并在发布说明中写明迁移方式。" if zh else
                   f"Read the breaking changes {_refs(risks['breaking'])} before upgrading and note the migration "
                   "in the release notes.")
    open_reverts = [c["pr"] for c in report.get("reverts", []) if not c["relanded_by"]]
    if open_reverts:
        out.append(f"跟进被回滚且尚未重新合入的改动（{_refs(open_reverts)}）。" if zh else
                   f"Follow up the reverted changes not re-landed yet ({_refs(open_reverts)}).")
    untested_key = [n for n in risks.get("missing_tests", []) if n in key]
    if untested_key:
        out.append(f"为没有测试的关键 PR 补充测试：{_refs(untested_key)}。" if zh else
                   f"Add tests for key PRs merged without any: {_refs(untested_key)}.")
    if risks.get("dependency_pin"):
        out.append(f"核对依赖版本变更（{_refs(risks['dependency_pin'])}）与部署镜像是否一致。" if zh else
                   f"Check the dependency changes ({_refs(risks['dependency_pin'])}) against the deployed images.")
    if risks.get("todo_left"):
        out.append(f"为新增的 TODO/FIXME 建立 issue 跟踪（{_refs(risks['todo_left'])}）。" if zh else
                   f"Track the new TODO/FIXME markers in issues ({_refs(risks['todo_left'])}).")
    if risks.get("doc_mismatch"):
        out.append(f"为改动了接口或配置却未更新文档的 PR 补充文档：{_refs(risks['doc_mismatch'])}。" if zh else
                   f"Document the API/config changes merged without docs: {_refs(risks['doc_mismatch'])}.")
    if risks.get("title_convention"):
        out.append(f"提醒作者按规范书写标题标签（{_refs(risks['title_convention'])}）。" if zh else
                   f"Remind authors of the title convention ({_refs(risks['title_convention'])}).")
    rising = [m["name"] for m in report.get("modules", []) if m.get("trend") == "rising"]
    if rising:
        out.append(f"关注活跃度上升的模块：{'、'.join(rising[:3])}。" if zh else
                   f"Watch the modules gaining activity: {', '.join(rising[:3])}.")
    newcomers = report["stats"].get("new_contributors") or []
    window = report["stats"].get("new_contributors_window") or 0
    if newcomers and window:
        out.append(f"欢迎近 {window} 周首次出现的 {len(newcomers)} 位贡献者。" if zh else
                   f"Welcome the {len(newcomers)} contributor{'s' if len(newcomers) != 1 else ''} first seen in the "
                   f"last {window} weeks.")
    elif newcomers:
        out.append(f"欢迎 {len(newcomers)} 位首次贡献者。" if zh else
                   f"Welcome the {len(newcomers)} first-time contributor{'s' if len(newcomers) != 1 else ''}.")
    return out[:5]


def _what(pr: PrEntry) -> str:
    """A PR's title without its tags and type prefix, for prose that names it."""
    return _short(parse_title(pr["title"])[0] or pr["title"], 60)


def _summary(report: Analysis, zh: bool) -> str:
    s = report["stats"]
    n, key = s["pr_count"], s["key_pr_count"]
    if n == 0:
        return "本期没有合并的 PR。" if zh else "No pull requests were merged in this period."
    lead = [p for p in report.get("prs", []) if p["key"]][:2]
    busiest = [m["name"] for m in report.get("modules", []) if m["pr_count"]][:3]
    breaking = sum(1 for p in report.get("prs", []) if p["breaking"])
    reverts = len(report.get("reverts", []))
    window = s.get("new_contributors_window") or 0  # the history reaches back only this many weeks
    if zh:
        newcomers = (f"近 {window} 周首次出现 {len(s['new_contributors'])} 位" if window else
                     f"新贡献者 {len(s['new_contributors'])} 位")
        first = (f"本期合并 {n} 个 PR，其中关键 PR {key} 个，来自 {s['authors']} 位作者"
                 f"（{newcomers}），共 +{s['additions']}/−{s['deletions']} 行；"
                 f"平均重要度 {s['avg_importance']:.1f}，平均洞察度 {s['avg_insight']:.1f}。")
        second = []
        if busiest:
            second.append(f"最活跃的模块是 {'、'.join(busiest)}")
        if lead:
            second.append("最值得关注的是 " + "、".join(f"#{p['number']} {_what(p)}" for p in lead))
        attention = [f"{breaking} 个破坏性变更" if breaking else "", f"{reverts} 条回滚记录" if reverts else ""]
        if breaking or reverts:
            second.append("包含 " + "、".join(a for a in attention if a))
        return first + ("\n\n" + "；".join(second) + "。" if second else "")
    merged = f"{n} PRs were merged" if n != 1 else "1 PR was merged"
    newcomers = (f"{len(s['new_contributors'])} first seen in the last {window} weeks" if window else
                 f"{len(s['new_contributors'])} first-time")
    first = (f"{merged}, {key} of them key, by {s['authors']} author{'s' if s['authors'] != 1 else ''} "
             f"({newcomers}), +{s['additions']}/−{s['deletions']} lines; "
             f"average importance {s['avg_importance']:.1f}, average insight {s['avg_insight']:.1f}.")
    second = []
    if busiest:
        second.append(f"The busiest modules were {', '.join(busiest)}")
    if lead:
        second.append("the changes to read first are " + " and ".join(f"#{p['number']} {_what(p)}" for p in lead))
    attention = [f"{breaking} breaking change{'s' if breaking != 1 else ''}" if breaking else "",
                 f"{reverts} revert chain{'s' if reverts != 1 else ''}" if reverts else ""]
    if breaking or reverts:
        second.append(" and ".join(a for a in attention if a) + (" need" if breaking + reverts > 1 else " needs")
                      + " attention")
    return first + ("\n\n" + "; ".join(second) + "." if second else "")


def engine_narrative(report: Analysis) -> Narrative:
    """The engine's narrative sections for the analysed period (see the module docstring)."""
    zh = report.get("language", "zh") == "zh"
    return {
        "summary": _summary(report, zh),
        "highlights": _highlights(report, zh),
        "key_changes": _key_changes(report, zh),
        "trend_notes": _trend_notes(report, zh),
        "risk_notes": _risk_notes(report, zh),
        "relation_notes": _relation_notes(report, zh),
        "suggestions": _suggestions(report, zh),
    }
