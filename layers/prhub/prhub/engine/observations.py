"""The narrative's observations: modules rising or fading, one note per risk kind, the revert chains, and the
follow-ups they suggest (engine.narrative assembles them with the highlights and the summary)."""
from __future__ import annotations

import re

from prhub.core.report import Analysis, Note, PrEntry, Stats
from prhub.engine import headline, reviews, translate
from prhub.engine.lexicon import area_name
from prhub.engine.telling import (
    fact,
    fmt,
    now_words,
    pr_line,
    pr_told,
    refs_text,
    short,
)
from prhub.engine.wording import reading, say

RISK_TEXT = {
    "zh": {
        "breaking": "破坏性变更", "revert": "回滚", "dependency_pin": "依赖版本变更", "todo_left": "新增 TODO/FIXME",
        "large_change": "超大改动", "missing_tests": "改了源码但没有改测试", "title_convention": "标题规范问题",
        "doc_mismatch": "文档与代码不符",
        "unresolved_review": "合并时未解决的审阅意见", "unreviewed": "未经审阅合并", "follow_up": "承诺的后续工作",
    },
    "en": {
        "breaking": "breaking changes", "revert": "reverts", "dependency_pin": "dependency changes",
        "todo_left": "new TODO/FIXME markers", "large_change": "very large changes",
        "missing_tests": "source changes without test changes", "title_convention": "title convention problems",
        "doc_mismatch": "docs out of step with code",
        "unresolved_review": "review threads unresolved at merge", "unreviewed": "PRs merged without review",
        "follow_up": "follow-ups promised in review",
    },
}


TREND_WORDS = {"zh": {"rising": "上升", "fading": "回落", "new": "新出现"},
               "en": {"rising": "rising", "fading": "fading", "new": "new"}}


def trend_notes(report: Analysis, zh: bool) -> list[Note]:
    notes: list[Note] = []
    words = TREND_WORDS["zh" if zh else "en"]
    now, per, before = now_words(report, zh)
    for module in report.get("modules", []):
        trend = module.get("trend")
        if trend not in ("rising", "fading", "new"):
            continue
        if trend == "new" and module["pr_count"] < 2:
            continue  # one PR in a module unseen for a month is not a trend
        base = fmt(module.get("baseline", 0))
        if zh:
            text = (f"{area_name(module['name'])}：{now} {module['pr_count']} 个 PR，"
                    f"{before}平均{per} {base} 个（{words[trend]}）")
        else:
            count = f"{module['pr_count']} PR{'s' if module['pr_count'] != 1 else ''}"
            text = f"{module['name']}: {count} {now} vs {base}{per} over {before} ({words[trend]})"
        notes.append({"text": text, "prs": list(module["prs"]),
                      "evidence": [fact(None, "modules", f"{module['name']}: pr_count {module['pr_count']}, "
                                                         f"baseline {base}, trend {trend}")]})
    return notes[:5]


def risk_notes(report: Analysis, zh: bool) -> list[Note]:
    names = RISK_TEXT["zh" if zh else "en"]
    notes: list[Note] = []
    importance = {p["number"]: p["importance"] for p in report.get("prs", [])}
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    by_number = {p["number"]: p for p in report.get("prs", [])}
    for risk in report.get("risks", []):
        label = names.get(risk["kind"], risk["kind"])
        # the example is the risk's most important PR (a year lists hundreds by number)
        if not risk["prs"]:
            continue  # a kind lists its PRs (engine.analysis._risks); none, no observation
        first = min(risk["prs"], key=lambda n: (-importance.get(n, 0.0), n))
        items = sorted(risk.get("items") or [], key=lambda i: i["pr"] != first)
        detail = f"{items[0]['detail']}" if items else risk["detail"]
        quoted = _first_clause(detail)  # the details section has all
        example = _glance(risk["kind"], detail, quoted, by_number.get(first), zh)
        # The renderers list the PRs the text does not cite, so the text names only the example.
        count = len(risk["prs"])
        ranked = sorted(risk["prs"], key=lambda n: (-importance.get(n, 0.0), n))  # the brief names the first few
        if risk["kind"] == "breaking":  # the highlights name every one with its migration (narrative.must_name)
            if count == 1:
                text = f"{label}：#{first}，见上文亮点" if zh else f"{label}: #{first}, in the highlights above"
            else:
                text = (f"{label}：{count} 个 PR，都在上文亮点中" if zh else
                        f"{label}: {count} PRs, all in the highlights above")
            notes.append({"text": text, "prs": ranked, "evidence": [fact(first, "risks", quoted)]})
            continue
        keyed = len(key & set(risk["prs"])) if risk["kind"] == "missing_tests" else 0  # the follow-ups ask for those
        if zh:
            among = f"（其中关键 PR {keyed} 个）" if 0 < keyed < count else ""
            text = (f"{label}：#{first}，{_within(example, 120)}" if count == 1 else
                    f"{label}：{count} 个 PR{among}，例如 #{first}：{_within(example, 120)}")
        else:
            among = f" ({keyed} key)" if 0 < keyed < count else ""
            text = (f"{label}: #{first}, {_within(example, 120)}" if count == 1 else
                    f"{label}: {count} PRs{among}, e.g. #{first}: {_within(example, 120)}")
        notes.append({"text": text, "prs": ranked, "evidence": [
            fact(first, "risks", quoted), *reviews.review_risk_facts(risk["kind"], first, report.get("reviews"))]})
    return notes


def _glance(kind: str, detail: str, quoted: str, pr: PrEntry | None, zh: bool) -> str:
    """A risk's example as the brief says it, from its detail (`quoted`: its first clause): a pin list cut short,
    a new TODO by how many and where (its line is code of any length; the details below quote it), a large change
    by its size, files by their names (the details give their paths)."""
    lang = "zh" if zh else "en"
    example = _first_pins(quoted, zh) if kind == "dependency_pin" else quoted
    for key in ("todo_one", "todo") if kind == "todo_left" else ():
        if todo := reading(lang, key).match(detail):  # the detail read back as risks.todo_left wrote it
            example = say(lang, key.replace("todo", "todo_glance"), **todo.groupdict())
            break
    example = headline.by_name(example)
    if kind == "large_change" and pr:
        example = say(lang, "large_glance_one" if pr["changed_files"] == 1 else "large_glance",
                      size=pr["additions"] + pr["deletions"], n=pr["changed_files"])
    return example


def _within(text: str, limit: int) -> str:
    """`text` in about `limit` characters, an aside in brackets cut first: "破坏性变更（将公共模块 a 移到 b；…），
    但没有改文档" keeps what it says after the aside (it had been cut to "…，但没…")."""
    if len(text) > limit and (aside := re.search(r"（([^（）]+)）|\(([^()]+)\)", text)):
        inner = aside.group(1) or aside.group(2)
        room = max(len(inner) - (len(text) - limit), 12)
        left, right = ("（", "）") if aside.group(1) else ("(", ")")
        text = text[:aside.start()] + left + short(inner, room) + right + text[aside.end():]
    return short(text, limit)


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
    """A pin list cut to its first `shown` pins ("a、b 等"): the note points at the risk, whose section below lists
    every pin. The list's own label goes: the note's ("依赖版本变更：") says it."""
    label = say("zh" if zh else "en", "pins", shown="")
    listed = detail.removeprefix(label)
    if listed == detail or len(pins := listed.split(", ")) <= shown:
        return listed
    return "、".join(pins[:shown]) + " 等" if zh else ", ".join(pins[:shown]) + ", …"


def relation_notes(report: Analysis, zh: bool) -> list[Note]:
    by_number = {p["number"]: p for p in report.get("prs", [])}
    notes: list[Note] = []
    for chain in report.get("reverts", []):
        prs = [n for n in (chain["reverts"], chain["pr"], chain["relanded_by"]) if n]
        target = f"#{chain['reverts']}" if chain["reverts"] else f"“{short(chain['title'], 60)}”"
        reverted = by_number.get(chain["reverts"] or 0)
        what = f"（{pr_line(reverted, zh)}）" if zh and reverted else ""
        back, refix = chain["relanded_by"], chain.get("relanded_how") == "refix"
        if zh:
            text = f"#{chain['pr']} 回滚了 {target}{what}"
            text += (f"，随后 #{back} 重新修复了这一问题" if refix else f"，随后由 #{back} 重新合入" if back else
                     "，尚未重新合入")
        else:
            text = f"#{chain['pr']} reverts {target}"
            text += (f", fixed again by #{back}" if refix else f", re-landed by #{back}" if back else
                     ", not re-landed yet")
        facts = [fact(chain["pr"], "title", chain["title"]) if chain["pr"] in by_number else
                 fact(None, "reverts", chain["title"])]
        if reverted:
            facts += pr_told(reverted, zh)[1]
        notes.append({"text": text, "prs": prs, "evidence": facts})
    return notes


# What to do next about each kind of finding, in the order suggested; {refs} are its PRs. A kind that risks at a
# glance tells just above names no PR again: {n} (zh) / {prs} (en) count them and the sentence points up.
SUGGESTIONS = (
    ("breaking", "升级前请阅读上文的{n}破坏性变更，并在发布说明中写明迁移方式。",
     "Read the breaking changes above ({prs}) before upgrading and note the migration in the release notes."),
    ("open_reverts", "跟进被回滚且尚未重新合入的改动（{refs}）。",
     "Follow up the reverted changes not re-landed yet ({refs})."),
    # the brief names one of them ("例如 #18549"): the list is the appendix's (svelte's "上文没有测试的 5 个关键 PR"
    # pointed at four PRs the brief never named)
    ("untested_key", "为没有测试的{n}关键 PR 补充测试（名单见附录「风险详情」）。",
     "Add tests to the key PRs merged without any ({prs}; listed in the appendix's risk details)."),
    ("follow_up", "兑现审阅中承诺的后续工作（{refs}）。", "Do the follow-ups promised in review ({refs})."),
    ("unresolved_review", "确认合并时未解决的审阅意见是否仍要处理（{refs}）。",
     "Check whether the review threads left open at merge still need work ({refs})."),
    ("dependency_pin", "核对上文的{n}依赖版本变更与部署镜像是否一致。",
     "Check the dependency changes above ({prs}) against the deployed images."),
    ("dependency_change", "确认上文的{n}依赖版本变更对下游用户的影响，并写进发布说明。",
     "Check what the dependency changes above ({prs}) mean for downstream users and note them in the release notes."),
    ("todo_left", "为上文新增的 TODO/FIXME 建立 issue 跟踪。",
     "Track the new TODO/FIXME markers above in issues ({prs})."),
    ("doc_mismatch", "为上文改动了接口或配置却未更新文档的{n} PR 补充文档。",
     "Document the API/config changes above merged without docs ({prs})."),
    ("title_convention", "提醒上文{n} PR 的作者按规范书写标题标签。",
     "Remind the authors above of the title convention ({prs})."),
)


IMAGES = {"docker", "dockerfile", "dockerfiles", "image", "images", "container", "containers", "deploy", "deployment",
          "helm", "k8s", "kubernetes"}  # modules whose files build what is deployed


def suggestions(report: Analysis, zh: bool) -> list[str]:
    asks: dict[str, list[int]] = {r["kind"]: r["prs"] for r in report.get("risks", [])}
    key = {p["number"] for p in report.get("prs", []) if p["key"]}
    # the changes to follow up are the reverted ones (ruff's had named the revert #26339, not #26163); a revert that
    # names no known PR stands for its change; a re-fixed one is done
    asks["open_reverts"] = list(dict.fromkeys(c["reverts"] or c["pr"] for c in report.get("reverts", [])
                                              if not c["relanded_by"]))
    # risks at a glance names the untested PRs by importance, the key ones first, and counts those
    asks["untested_key"] = [n for n in asks.get("missing_tests", []) if n in key]
    # images are what a pin in a container's files must match; a library's or a docs site's pins are its users'
    imaged = {p["number"] for p in report.get("prs", []) if IMAGES & {m.lower() for m in p.get("modules", [])}}
    if not imaged & set(asks.get("dependency_pin", [])):
        asks["dependency_change"] = asks.pop("dependency_pin", [])
    out = [(in_zh if zh else in_en).format(refs=refs_text(asks[name], zh=zh),
                                           n=f" {len(asks[name])} 个" if len(asks[name]) > 1 else "",
                                           prs=f"{len(asks[name])} PR{'s' if len(asks[name]) != 1 else ''}")
           for name, in_zh, in_en in SUGGESTIONS if asks.get(name)]
    # the repository's top-level files and its catch-all are no part anyone watches (gh's "watch: 仓库根目录")
    rising = [m["name"] for m in report.get("modules", []) if m.get("trend") == "rising"
              and m["name"] not in ("root", "misc")]
    if rising:
        named = "、".join(map(translate.module, rising[:3]))
        out.append(f"关注活跃度较{now_words(report, zh)[2]}上升的模块：{named}。" if zh else
                   f"Watch the modules gaining activity: {', '.join(rising[:3])}.")
    welcome = _welcome(report["stats"], zh)
    if welcome:
        out.append(welcome)
    return out[:5]


def _welcome(stats: Stats, zh: bool) -> str:
    """A welcome to the period's newcomers ("not seen in the N weeks before" when the history is short: the record
    starts N weeks before the period), or ''."""
    newcomers = stats.get("new_contributors") or []
    window = stats.get("new_contributors_window") or 0
    plural = "s" if len(newcomers) != 1 else ""
    if newcomers and window:
        return (f"欢迎此前 {window} 周未出现过的 {len(newcomers)} 位贡献者。" if zh else
                f"Welcome the {len(newcomers)} contributor{plural} not seen in the {window} weeks before.")
    if newcomers:
        return (f"欢迎 {len(newcomers)} 位首次贡献者。" if zh else
                f"Welcome the {len(newcomers)} first-time contributor{plural}.")
    return ""
