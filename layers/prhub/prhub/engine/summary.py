"""The engine's executive summary: the period's figures, then where the work was, what to read first (the
highlights tell it) and what needs attention; and the facts it stands on."""
from __future__ import annotations

from dataclasses import dataclass

from prhub.core.report import Analysis, Evidence, PrEntry, Stats
from prhub.engine import releases, reviews, translate
from prhub.engine.lexicon import area_name
from prhub.engine.telling import (
    fact,
    member_facts,
    now_words,
)


@dataclass(frozen=True)
class _Notable:
    """What the summary's second paragraph points at."""

    lead: list[PrEntry]  # the first two key PRs not reverted: the ones to read first
    busiest: list[str]  # the three modules with the most key PRs
    breaking: int
    reverts: int  # revert chains and reverts
    back: int  # of them, re-landed or re-fixed


def _busiest(report: Analysis) -> list[str]:
    """The three modules with the most key PRs (then the most PRs), and the sentence says so: gh's week of seven
    acceptance-test PRs, none key, had read "the busiest modules were attestation, api, extension" (one PR each)."""
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    held = sorted(((len(key & set(m["prs"])), m["pr_count"], i, m["name"]) for i, m in
                   enumerate(report.get("modules", []))), key=lambda t: (-t[0], -t[1], t[2]))
    # a module with one key PR among many such is no "most" (ruff's week named ruff_python_parser third, one of seven
    # with one key PR beside ty's 76): those are named only when all of them fit
    many = [name for keyed, _, _, name in held if keyed >= 2][:3]
    ones = [name for keyed, _, _, name in held if keyed == 1]
    return many + ones if len(many) + len(ones) <= 3 else many


def _notable(report: Analysis) -> _Notable:
    chains = report.get("reverts", [])
    return _Notable(
        lead=[p for p in report.get("prs", []) if p["key"] and not p.get("reverted_by")][:2],
        busiest=_busiest(report),
        breaking=sum(1 for p in report.get("prs", []) if p["breaking"]),
        # the revert chains, and the reverts that name no reverted PR (okhttp's "revert some Renovate config"): the
        # risks above count both, and the summary had said 1 where they said 2
        reverts=len({c["pr"] for c in chains} | {n for r in report.get("risks", []) if r["kind"] == "revert"
                                                  for n in r["prs"]}),
        # a revert that undid several PRs (ruff #26339: #26163 and five follow-ups) is back when all of them are
        back=sum(1 for n in {c["pr"] for c in chains} if all(c["relanded_by"] for c in chains if c["pr"] == n)))


def paragraphs(report: Analysis, zh: bool, themes: dict[int, str] | None = None) -> str:
    """The summary; `themes`: the subsystem the highlights file a PR under, by number, which the PRs to read first
    are named by (a PR's first module may be another: #7181 of module megatron stood under 检查点)."""
    s = report["stats"]
    now = now_words(report, zh)[0]
    if s["pr_count"] == 0:
        return f"{now}没有合并的 PR。" if zh else f"No pull requests were merged {now}."
    waiting = s.get("unscored_count", 0)
    if waiting >= s["pr_count"]:  # merged, none scored yet: no figures to give, and never "none merged"
        return (f"{now}合并 {s['pr_count']} 个 PR，均尚未评分（见“未评分 PR”），暂无统计。" if zh else
                f"{_merged_en(s['pr_count'])} {now}; none is scored yet (see Unscored PRs), so there are no figures.")
    notable = _notable(report)
    if zh:
        second = _notable_zh(notable, themes or {})
        text = _figures_zh(s, now) + _released(report, zh, now) + ("\n\n" + "；".join(second) + "。" if second else "")
    else:
        second = _notable_en(notable)
        text = _figures_en(s) + _released(report, zh, now) + ("\n\n" + "; ".join(second) + "." if second else "")
    said = reviews.summary_line(report.get("reviews"), zh)  # a paragraph of its own, only with review data
    return text + ("\n\n" + said if said else "")


RELEASES_SHOWN = 5


def _released(report: Analysis, zh: bool, now: str) -> str:
    """The versions the period's PRs release ("本周发布：Tokio v1.51.0（#8005）"), by merge order, or ''."""
    repo = str(report.get("repo") or "")
    cut = sorted((p["merged_at"], p["number"], name) for p in report.get("prs", [])
                 if (name := p.get("released") or releases.released(str(p.get("title") or ""), repo)))
    if not cut:
        return ""
    shown = [f"{name}（#{n}）" if zh else f"{name} (#{n})" for _, n, name in cut[:RELEASES_SHOWN]]
    more = len(cut) - len(shown)
    if zh:
        return f"{now}发布：{'、'.join(shown)}{f' 等 {len(cut)} 个版本' if more else ''}。"
    return f" Released {now}: {', '.join(shown)}{f' and {more} more' if more else ''}."


def _figures_zh(s: Stats, now: str) -> str:
    """The period's figures: PRs, key PRs, authors and newcomers. The lines and the average scores are the title
    block's, just above: said again here, every figure of the header was read twice."""
    window = s.get("new_contributors_window") or 0  # the history reaches back only this many weeks
    newcomers = (f"此前 {window} 周未出现过的 {len(s['new_contributors'])} 位" if window else
                 f"新贡献者 {len(s['new_contributors'])} 位")
    waiting = s.get("unscored_count", 0)
    merged = (f"{now}合并 {s['pr_count']} 个 PR，其中 {waiting} 个尚未评分；已评分的 {s['pr_count'] - waiting} 个中"
              if waiting else f"{now}合并 {s['pr_count']} 个 PR，其中")
    newcomers = f"（{newcomers}）" if s["new_contributors"] else ""  # "新贡献者 0 位" says nothing
    return f"{merged}关键 PR {s['key_pr_count']} 个，来自 {s['authors']} 位作者{newcomers}。"


def _figures_en(s: Stats) -> str:
    n, window, waiting = s["pr_count"], s.get("new_contributors_window") or 0, s.get("unscored_count", 0)
    merged = _merged_en(n) + (f" ({waiting} not scored yet; the figures are the other {n - waiting}'s)"
                              if waiting else "")
    newcomers = (f"{len(s['new_contributors'])} not seen in the {window} weeks before" if window else
                 f"{len(s['new_contributors'])} first-time")
    newcomers = f" ({newcomers})" if s["new_contributors"] else ""
    return f"{merged}, {s['key_pr_count']} of them key, by {s['authors']} author{'s' if s['authors'] != 1 else ''}" \
        f"{newcomers}."


def _merged_en(n: int) -> str:
    return f"{n} PRs were merged" if n != 1 else "1 PR was merged"


def _notable_zh(seen: _Notable, themes: dict[int, str]) -> list[str]:
    second = []
    if seen.busiest:
        # a space beside Latin only: "是实验特性、trainer", "是 rollout、trainer"
        # not "关键 PR 归为 N 个主题": a count of groups the page shows nowhere as such, which the en summary never
        # said ("1 个主题" for 12 key PRs read as a claim about them all)
        second.append(translate.join(["关键 PR 最多的模块是", "、".join(map(translate.module, seen.busiest))]))
    if seen.lead:  # the highlights, just above, tell them (they always hold the top three)
        parts, said = ["最值得先读的是"], ""
        for i, p in enumerate(seen.lead):  # join spaces Chinese from Latin only: "是工具的 #6302", "是 rollout 模块的"
            area = themes.get(p["number"]) or (area_name(p["modules"][0]) if p["modules"] else "")
            if i and area == said:  # one subsystem is named once: "检查点的 #6974 和 #7181"
                parts += ["和", f"#{p['number']}"]
                continue
            parts += (["，以及"] if i else []) + ([area, "的"] if area else []) + [f"#{p['number']}"]
            said = area
        second.append(translate.join(parts) + "（见上文亮点）")
    settled = f"（其中 {seen.back} 条已重新合入或修复）" if seen.back else ""
    attention = [f"{seen.breaking} 个破坏性变更" if seen.breaking else "",
                 f"{seen.reverts} 条回滚记录{settled}" if seen.reverts else ""]
    if seen.breaking or seen.reverts:
        second.append("需要留意的有 " + "和 ".join(a for a in attention if a))
    return second


def _notable_en(seen: _Notable) -> list[str]:
    second = []
    if seen.busiest:
        second.append(f"Most key PRs were in {', '.join(seen.busiest)}" if len(seen.busiest) > 1 else
                      f"Most key PRs were in {seen.busiest[0]}")
    if seen.lead:  # the highlights, just above, tell them (they always hold the top three)
        second.append("the changes to read first are " + " and ".join(f"#{p['number']}" for p in seen.lead)
                      + " (see the highlights)")
    breaking, reverts = seen.breaking, seen.reverts
    attention = [f"{breaking} breaking change{'s' if breaking != 1 else ''}" if breaking else "",
                 f"{reverts} revert{'s' if reverts != 1 else ''}" if reverts else ""]
    if breaking or reverts:
        second.append(" and ".join(a for a in attention if a) + (" need" if breaking + reverts > 1 else " needs")
                      + " attention")
    return second


def evidence(report: Analysis) -> list[Evidence]:
    """What the engine's summary stands on: the period's stats, and the lines of the PRs it says to read first."""
    zh = report.get("language", "zh") == "zh"
    s = report["stats"]
    facts = [fact(None, "stats", f"{name} {s[name]}") for name in  # type: ignore[literal-required]
             ("pr_count", "key_pr_count", "authors", "additions", "deletions", "avg_importance", "avg_insight")]
    if s["pr_count"]:
        facts += member_facts(_notable(report).lead, zh) + reviews.summary_facts(report.get("reviews"))
    return facts
