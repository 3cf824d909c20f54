"""How the engine's narrative tells a PR in prose, zh or en: its line (its summary, or in zh its title in
Chinese, else the brief's headline), its size, a theme's lead, its revert chains, and the facts a sentence stands on.
Shared by the highlights and key changes (engine.narrative), the observations and the summary."""
from __future__ import annotations

import re
from typing import Any

from prhub.core.report import Analysis, Evidence, PrEntry
from prhub.core.text import PR_REF, capitalised
from prhub.engine import gist, headline
from prhub.engine.lexicon import CJK
from prhub.engine.scoring import PR_SUFFIX, parse_title
from prhub.engine.wording import clip, period_words


def now_words(report: Any, zh: bool) -> tuple[str, str, str]:
    return period_words("zh" if zh else "en", report.get("period"))


def refs_text(numbers: list[int], limit: int = 4, zh: bool = False) -> str:
    """The first `limit` PRs by number, then how many there are in all ("#1、#2 等 5 个" / "#1, #2 and 3 more")."""
    shown = ("、" if zh else ", ").join(f"#{n}" for n in numbers[:limit])  # a Chinese list takes the 顿号
    if len(numbers) <= limit:
        return shown
    return f"{shown} 等 {len(numbers)} 个" if zh else f"{shown} and {len(numbers) - limit} more"


def cited(text: str, numbers: list[int]) -> list[int]:
    """The PRs of `numbers` that `text` names as "#N" (as the renderers find them: core.text.PR_REF): a paragraph
    that counts the rest ("等 9 个") hands the renderers no others to list after it."""
    named = {int(m.group(1)) for m in PR_REF.finditer(text)}
    return [n for n in numbers if n in named]


def short(text: str, limit: int = 90) -> str:
    """`text` cut where a word ends; a title it quotes is kept whole (it is the author's, as written)."""
    text = " ".join(str(text).split())
    if "“" in text[:limit] and "”" in text[text.index("“"):]:
        end = text.index("”", text.index("“")) + 1
        return text[:end] + (clip(text[end:], max(limit - end, 12)) if len(text) > limit else text[end:])
    return clip(text, limit)


def fact(pr: int | None, where: str, fact: Any) -> Evidence:
    """One fact a sentence stands on: which PR (None: the period's), which field of it, what it says."""
    return {"pr": pr, "field": where, "fact": str(fact)}


def fmt(value: float) -> str:
    return f"{value:g}"


EN_LINE = 120  # characters of an English line in the brief: its title, cut only past this


def pr_line(p: PrEntry, zh: bool) -> str:
    """What a PR does, as one sentence without its final stop: its summary, else its title's action."""
    return pr_told(p, zh)[0]


def pr_told(p: PrEntry, zh: bool) -> tuple[str, list[Evidence]]:
    """A PR's line and the facts it stands on. In zh its summary (its title in Chinese with what the files, markers
    and description state), else its title's action; a summary that would quote English (a title the translator
    could not carry) gives way to the brief's headline (engine.headline), which says in Chinese what the engine
    knows. In en its title, whole, as a changelog gives it."""
    title = PR_SUFFIX.sub("", parse_title(p["title"])[0] or p["title"])
    why = [fact(p["number"], "breaking_reason", p["breaking_reason"])] if p["breaking"] and p.get(
        "breaking_reason") else []
    if p.get("headline") and headline.BRANCH_TITLE.match(title):  # "Next": the merge of a branch, and its size
        return p["headline"], [fact(p["number"], "title", title), *why, *(
            fact(p["number"], field, p[field]) for field in ("changed_files", "additions", "deletions"))]
    if not zh:  # what it does as its title says it, a changelog's line: the description's first sentence is as
        # often context ("PR #16722 introduced a check…", cargo #17071) or an aside ("X is the only caller"); then
        # what it measured, as the zh line's summary says it
        said = p.get("measured") or ""
        title = re.sub(r"(?<![.\s])\.\s*$", "", title)  # a sentence's stop, not an ellipsis: the line gets its own
        line = short(capitalised(title), 160 - len(said)) + (", " + said.replace("Measured: ", "measured ") if said
                                                            else "")  # "…, measured 2.81× faster"
        return line, [fact(p["number"], "title", title), *why, *([fact(p["number"], "measured", said)] if said else [])]
    summary = str(p.get("summary") or "")
    facts = [fact(p["number"], "title", title)]
    if not summary or summary == p["title"]:
        summary = gist.doing(title, p["type"])
    elif not summary.startswith(gist.doing(title, p["type"]).rstrip("。")):
        facts = [fact(p["number"], "body", summary)]  # the author's sentence: scoring took it from the body
    summary = summary.rstrip("。.")
    area = f"（{'、'.join(p['modules'][:2])}）"
    if p["modules"] and summary.endswith(area):
        summary = summary[:-len(area)]  # the line's module tag: prose names the module already
    if "据描述实测" in summary:
        facts.append(fact(p["number"], "summary", summary.split("据描述实测", 1)[1].strip("，。 ")))
    # a summary in English, one that quotes the English title, or one that is only a name ("gemma4") gives way to
    # the headline ("新功能：gemma4")
    if p.get("headline") and (headline.english_prose(summary) or headline.quotes_english(summary) or
                              not CJK.search(summary)):
        measured = headline.MEASURED.search(summary)
        summary = p["headline"] + (f"，{measured.group(0)}" if measured else "")
    return short(summary, 160), facts + why


def member_line(p: PrEntry, report: Analysis, zh: bool, marked: bool = False) -> str:
    """A PR told after its theme's lead (or in its module's line): what it reverts, else what it does. `marked`: its
    number says it breaks ("#11（破坏性变更）…", "… (#11, breaking)"), where the item tells other PRs beside it."""
    number = f"#{p['number']}" + (("（破坏性变更）" if zh else " (breaking)") if marked else "")
    undone = next((c["reverts"] for c in report.get("reverts", []) if c["pr"] == p["number"] and c["reverts"]), None)
    if undone:
        return f"{number}{'' if marked else ' '}回滚了 #{undone}" if zh else f"{number} reverts #{undone}"
    line = short(pr_line(p, zh), 70 if zh else EN_LINE)
    # one PR, one clause: its line's own "；" would read as the next member's
    if zh:
        return f"{number}{'' if marked else ' '}{line.replace('；', '，')}"
    return f"{lowered(line)} (#{p['number']}{', breaking' if marked else ''})"


def size_clause(p: PrEntry, zh: bool, i: int) -> str:
    """How much a PR changed, from its files: a clause to follow its line (its shape varies with `i`)."""
    files, plus, minus = p["changed_files"], p["additions"], p["deletions"]
    if zh:
        return [f"，改动 {files} 个文件（+{plus}/−{minus} 行）", f"，共 {files} 个文件、+{plus}/−{minus} 行",
                f"（{files} 个文件，+{plus}/−{minus} 行）"][i % 3]
    return f" ({files} file{'s' if files != 1 else ''}, +{plus}/−{minus} lines;"  # the importance closes it


def member_facts(members: list[PrEntry], zh: bool) -> list[Evidence]:
    return [fact for p in members for fact in pr_told(p, zh)[1]]


def unbracket(text: str) -> str:
    """A phrase to put in brackets: its bracketed part becomes a comma clause ("较大（147 行）" → "较大，147 行")."""
    return text.replace("（", "，").replace("）", "")


def lead_of(members: list[PrEntry]) -> PrEntry:
    """The member a theme is told by: the most important one that is neither a revert nor reverted."""
    standing = [p for p in members if p["type"] != "revert" and not p.get("reverted_by")] or members
    return max([p for p in standing if p["key"]] or standing, key=lambda p: (p["importance"], -p["number"]))


def keyed(members: list[PrEntry]) -> bool:
    """Whether a theme is a key change: its lead is key (a key PR that was reverted does not make it one)."""
    return bool(lead_of(members)["key"])


def themes_of(report: Analysis) -> list[tuple[dict[str, Any], list[PrEntry]]]:
    """The clusters with their member PRs, the one with the most important key PR first."""
    by_number = {p["number"]: p for p in report.get("prs", [])}
    themes = []
    for cluster in report.get("clusters", []):
        members = [by_number[n] for n in cluster["prs"] if n in by_number]
        if members:
            themes.append((dict(cluster), members))
    return themes


def chain_sentence(numbers: set[int], report: Analysis, zh: bool) -> str:
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


def lowered(line: str) -> str:
    """A line that follows "which": its first letter in lower case unless it opens a name ("Qwen3", "CI")."""
    first = line.split(" ", 1)[0]
    return line if re.search(r"[A-Z].*[A-Z]|\d|[_`./]", first) else line[:1].lower() + line[1:]
