"""The engine's sentences (insight and revert reasons, breaking reasons, risk details, week notes) in zh and en;
importance's reasons sit in the rows of its table (prhub.engine.rules).

The engine writes prose into report.json that the renderers show as is, so it follows the report's language
(RepoConfig.language). Placeholders take untrusted text (titles, file names) unchanged: escaping is the renderers'.
"""
from __future__ import annotations

import re
from functools import cache
from typing import Any

from prhub.core.period import kind_of
from prhub.core.text import prs_counted
from prhub.engine.lexicon import CJK

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        # breaking changes inferred from the diff (changes.breaking_reasons)
        "deletes_imported": "deletes {file}, which other code imported ({line})",
        "removes_module": "removes public module {file}",
        "moves_module": "moves public module {old} to {new}",
        "removes_config_file": "removes config file {file}",
        "removes_cli_option": "removes CLI option {options} from {file}",
        "renames_api": "renames public API in {file}: {pairs}",
        "removes_def": "removes public {kind} {name} from {file}",
        "removes_config_key": "removes config key {keys} from {file}",
        "changes_default_of": "changes the default of {name} in {file} from {old} to {new}",
        "changes_default": "changes a default, as its title says",  # the title is beside it wherever it shows
        "changes_default_optout": "changes a default, as its title says; {flag} keeps the old behaviour",
        "drops_runtime": "no longer supports {what}",
        "tagged_breaking": "tagged [BREAKING] in the title",
        "declared_breaking": "declared breaking in the title",
        "body_breaking": "BREAKING CHANGE stated in the description",
        # a PR's insight and what a revert undoes (scoring); importance's reasons are its rules' (rules)
        "insight": "insight {score}: {parts}",
        "ins_words": "{n} words of the author's own",
        "ins_bot": "a bot's generated description",
        "ins_root_cause": "explains the root cause",
        "ins_motivation": "says why",
        "ins_design": "a design section",
        "ins_measured": "measured results",
        "ins_figure": "a figure",
        "ins_tradeoff": "weighs trade-offs",
        "ins_tested": "test evidence",
        "ins_title": "only the title says what and why",
        "ins_nothing": "the description adds nothing to the title",
        "reverts": "reverts {what}",
        "earlier_change": "an earlier change",
        # risk details (risks)
        "missing_tests_one": "changes {file} ({lines} lines) but no test file",
        "missing_tests": "changes {n} source files ({lines} lines, most in {file}) but no test file",
        "pin_missing": "{pin} does not exist on {where}",
        "pins": "sets versions: {shown}",
        "todo_one": "adds 1 TODO or FIXME marker, e.g. {file}: {line}",
        "todo": "adds {n} TODO or FIXME markers, e.g. {file}: {line}",
        "large_one": "{size} changed lines (+{additions}/−{deletions}) in 1 file; threshold {threshold}",
        "large": "{size} changed lines (+{additions}/−{deletions}) in {n} files; threshold {threshold}",
        "large_glance_one": "{size} changed lines in 1 file",  # risks at a glance: how large, the details how
        "large_glance": "{size} changed lines in {n} files",
        "todo_glance_one": "1, in {file}",  # risks at a glance: how many and where, the details quote the line
        "todo_glance": "{n} in all, the first in {file}",
        # what a breaking PR's users do (engine.headline.migration_step)
        "default_step": "set the old default explicitly where you rely on it",
        "optout_step": "use {flag} where you rely on the old behaviour",
        # the effect a description measured (engine.gist.effect): a table's point, and after an en line's title
        "measured_change": "Measured: {old} → {new}",
        "measured_faster": "Measured: {by} faster",
        "measured_less": "Measured: {by} less",
        "rename_step": "use `{new}` where `{old}` was used",
        "runtime_step": "{what} is no longer supported: move to a newer {name} before upgrading",
        "tag_mismatch": "tagged [{tags}] but touches only {paths}",
        "untagged_breaking": "breaking change without [BREAKING] in the title",
        "doc_breaking": "breaking change ({why}) but no documentation file changed",
        "doc_added": "adds {shown} but no documentation file changed",
        # the week (analysis)
        "and_more": "and {n} more",
        "cluster_refs": "cross-references",
        "cluster_file": "1 shared file",
        "cluster_files": "{n} shared files",
        "cluster_terms": "common title terms",
        "cluster_related": "related",
        "no_history": "no history before this period: trends and first-time contributors are not computed",
        "short_history": "first-time contributors are judged against the history since {since} only",
        "unscored": "{n} PR(s) could not be scored (left out of the statistics)",
        # why a PR has no result, or the engine stood in for the model (the report's notes and unscored list)
        "no_result": "no result: its worker never finished",
        "no_result_yet": "no result yet: PRs of this run were handed back for later (a rate limit) until {until}; "
                         "a late result makes a new revision",
        "failed": "scoring failed: {detail}",
        "engine_scored": "{n} PR(s) scored by the engine instead of the model: {cause} ({prs})",
        "engine_wrote": "narrative: the engine wrote {sections} because {cause}",
        "revision": "revision {revision}: made again with the results of {n} PR(s) that arrived after the "
                    "revision published {since} ({prs})",
        "revision_judged": "revision {revision}: made again after the maintainers corrected their verdict on {n} "
                           "PR(s) since the revision published {since} ({prs})",
    },
    "zh": {
        "deletes_imported": "删除了被其他代码导入的 {file}（{line}）",
        "removes_module": "删除公共模块 {file}",
        "moves_module": "将公共模块 {old} 移到 {new}",
        "removes_config_file": "删除配置文件 {file}",
        "removes_cli_option": "从 {file} 删除命令行参数 {options}",
        "renames_api": "重命名 {file} 中的公共接口：{pairs}",
        "removes_def": "从 {file} 删除公共{kind} {name}",
        "removes_config_key": "从 {file} 删除配置项 {keys}",
        "changes_default_of": "将 {file} 中 {name} 的默认值从 {old} 改为 {new}",
        "changes_default": "标题写明修改了默认行为",
        "changes_default_optout": "标题写明修改了默认行为，可用 {flag} 保留旧行为",
        "drops_runtime": "不再支持 {what}",
        "tagged_breaking": "标题标注了 [BREAKING]",
        "declared_breaking": "标题声明为破坏性变更",
        "body_breaking": "描述中写明了 BREAKING CHANGE",
        "insight": "洞察 {score}：{parts}",
        "ins_words": "作者自述 {n} 词",
        "ins_bot": "描述由机器人生成",
        "ins_root_cause": "分析了根因",
        "ins_motivation": "说明了动机",
        "ins_design": "有设计说明",
        "ins_measured": "有实测结果",
        "ins_figure": "附图",
        "ins_tradeoff": "权衡了利弊",
        "ins_tested": "有测试证据",
        "ins_title": "只有标题说明了做什么、为什么",
        "ins_nothing": "描述没有超出标题的内容",
        "reverts": "回滚 {what}",
        "earlier_change": "此前的改动",
        "missing_tests_one": "改动了 {file}（{lines} 行），没有相应测试",
        "missing_tests": "改动 {n} 个源文件共 {lines} 行（主要是 {file}），没有相应测试",
        "pin_missing": "{pin} 在 {where} 上不存在",
        "pins": "依赖版本：{shown}",
        "todo_one": "新增 1 处 TODO 或 FIXME，例如 {file}：{line}",
        "todo": "新增 {n} 处 TODO 或 FIXME，例如 {file}：{line}",
        "large_one": "改动 {size} 行（+{additions}/−{deletions}），涉及 1 个文件；阈值 {threshold}",
        "large": "改动 {size} 行（+{additions}/−{deletions}），涉及 {n} 个文件；阈值 {threshold}",
        "large_glance_one": "改动 {size} 行，涉及 1 个文件",
        "large_glance": "改动 {size} 行，涉及 {n} 个文件",
        "todo_glance_one": "1 处，在 {file}",
        "todo_glance": "共 {n} 处，首处在 {file}",
        "default_step": "依赖旧默认值之处需显式设置原值",
        "optout_step": "依赖旧行为之处改用 {flag}",
        "measured_change": "据描述实测 {old} → {new}",
        "measured_faster": "据描述实测提速 {by}",
        "measured_less": "据描述实测减少 {by}",
        "rename_step": "用到 `{old}` 的地方改用 `{new}`",
        "runtime_step": "不再支持 {what}，仍在使用它的用户需先升级到更新的 {name}",
        "tag_mismatch": "标注为 [{tags}]，但只改动了 {paths}",
        "untagged_breaking": "破坏性变更，但标题没有标注 [BREAKING]",
        "doc_breaking": "破坏性变更（{why}），但没有改文档",
        "doc_added": "新增 {shown}，但没有改文档",
        "and_more": "另有 {n} 个",
        "cluster_refs": "互相引用",
        "cluster_file": "共享 1 个文件",
        "cluster_files": "共享 {n} 个文件",
        "cluster_terms": "标题用词相近",
        "cluster_related": "相关",
        "no_history": "本期之前没有历史数据：未计算趋势和新贡献者",
        "short_history": "新贡献者仅对照 {since} 以来的历史判断",
        "unscored": "{n} 个 PR 尚未评分或评分失败，未计入统计",
        "no_result": "没有结果：评分任务没有完成",
        "no_result_yet": "暂无结果：本次运行的部分 PR 因速率限制推迟到 {until} 再评分；迟到的结果会生成新的修订版",
        "failed": "评分失败：{detail}",
        "engine_scored": "{n} 个 PR 由引擎代替模型评分：{cause}（{prs}）",
        "engine_wrote": "叙述：{sections} 由引擎撰写，原因是{cause}",
        "revision": "第 {revision} 版：{since} 发布上一版之后又收到 {n} 个 PR 的结果（{prs}），据此重新生成",
        "revision_judged": "第 {revision} 版：{since} 发布上一版之后维护者更正了对 {n} 个 PR 的判定（{prs}），"
                           "据此重新生成",
    },
}

# Change types as Chinese prose names them ("fix 类改动" mixes languages).
TYPE_WORDS = {"zh": {"feat": "新功能", "fix": "修复", "perf": "性能", "refactor": "重构", "docs": "文档",
                     "test": "测试", "ci": "CI ", "chore": "杂项", "revert": "回滚"}}

# What a period of each kind (prhub.core.period.Period.kind) is called: (this one, per one, the 4 before).
PERIOD_WORDS = {
    "zh": {"week": ("本周", "每周", "前 4 周"), "month": ("本月", "每月", "前 4 个月"),
           "year": ("本年", "每年", "前 4 年"), "range": ("本期", "每段", "前 4 个同样长度的时段")},
    "en": {"week": ("this week", "/week", "the previous 4"), "month": ("this month", "/month", "the previous 4 months"),
           "year": ("this year", "/year", "the previous 4 years"),
           "range": ("this period", " per period", "the previous 4 periods of the same length")},
}

# Separators between phrases: Chinese prose uses full-width punctuation.
SEPARATORS = {"en": {"list": "; ", "comma": ", "}, "zh": {"list": "；", "comma": "、"}}


# A space between two Chinese characters, which lexicon.join never writes: a value meeting its phrase leaves none
# ("回滚 {what}" with 此前的改动 had read "回滚 此前的改动").
CJK_GAP = re.compile(rf"(?<={CJK.pattern}) (?={CJK.pattern})")


def say(language: str, key: str, **values: Any) -> str:
    """The sentence `key` in `language` (en for anything else), with `values` filled in (in Chinese, see CJK_GAP)."""
    said = PHRASES.get(language, PHRASES["en"])[key].format(**values)
    return CJK_GAP.sub("", said) if language == "zh" else prs_counted(said)


@cache
def reading(language: str, key: str) -> re.Pattern[str]:
    """The sentence `key` in `language` as a pattern that reads its values back (a named group each, "n" digits,
    a value before a space or a colon none of either): what a risk's detail said, from the detail alone."""
    parts = re.split(r"\{(\w+)\}", PHRASES.get(language, PHRASES["en"])[key])
    return re.compile("".join(re.escape(part) if i % 2 == 0 else
                              rf"(?P<{part}>\d+)" if part == "n" else rf"(?P<{part}>.+?)"
                              for i, part in enumerate(parts)) + "$", re.S)


# Why the model did not score or write, as prhub.model and prhub.flow.score say it (English, for the logs), by its
# opening words; the rest of the sentence (figures, a model's name, an error) follows as it is.
CAUSES = {"zh": {
    "the run's token budget is spent": "本次运行的 token 预算已用完",
    "the run's money budget is spent": "本次运行的费用预算已用完",
    "model answer invalid after one repair": "模型的回答修正一次后仍无效",
    "the model was unavailable": "模型不可用",
    "the model text failed the checks twice": "模型写的文本两次未通过事实检查",
    "llm.max_cost_per_run_usd is set but model": "设置了 llm.max_cost_per_run_usd，但模型没有价格",
    "no time for a model call": "剩余时间不够一次模型调用",
    "budget exhausted": "模型预算已用完",
}}


def cause_words(language: str, cause: str) -> str:
    """`cause` (an English reason) in `language`: its known opening translated, the detail kept."""
    for english, said in CAUSES.get(language, {}).items():
        if cause.startswith(english):
            rest = cause[len(english):].strip(" :;,()")
            return f"{said}（{rest}）" if rest else said
    return cause


def type_word(language: str, kind: str) -> str:
    """A change type (feat, fix, ...) as the language says it in a sentence."""
    return TYPE_WORDS.get(language, {}).get(kind, kind)


def joined(language: str, parts: list[str], kind: str = "list") -> str:
    """Phrases joined the way the language punctuates a list."""
    return SEPARATORS.get(language, SEPARATORS["en"])[kind].join(parts)


def period_words(language: str, period: Any) -> tuple[str, str, str]:
    """How `language` names a report's `period` ({since, until, tz}) by its kind: this one ("本月", "this
    month"), per one ("每月", "/month") and the 4 before; a custom range is "本期" / "this period"."""
    return PERIOD_WORDS.get(language, PERIOD_WORDS["en"])[kind_of(period or {})]


def _in_name(c: str) -> bool:
    """Part of a Latin word or a code name ("reward_extra_infos_dict", "a.py", "a::b", "multi-output")."""
    return len(c) == 1 and c.isascii() and (c.isalnum() or c in "_-./:`'")


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut where a word ends (a Latin word, a code name or a number is never
    cut in two; Chinese may end at any character), with "…" when cut; a quote cut inside is closed after it and
    a code span is never left open."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    if _in_name(text[limit - 1]) and _in_name(head[-1:]):
        cut = max(head.rfind(" "), max((i for i, c in enumerate(head) if not c.isascii()), default=-1))
        head = head[:cut + 1] if cut > 0 else head
    head = head.rstrip(" ,，、;；:：(（")
    if head.count("`") % 2:  # never an open code span: cut before it
        head = head[:head.rfind("`")].rstrip(" ,，、;；:：(（")
    closes = "".join(close for opens, close in (("“", "”"), ("「", "」")) if head.count(opens) > head.count(close))
    return head + "…" + closes  # a quote cut inside still ends: “don't crash when…”
