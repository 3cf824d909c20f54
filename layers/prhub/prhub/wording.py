"""The engine's sentences (per-PR reasons, breaking reasons, risk details, week notes) in zh and en.

The engine writes prose into report.json that the renderers show as is, so it follows the report's language
(RepoConfig.language). Placeholders take untrusted text (titles, file names) unchanged: escaping is the renderers'.
"""
from __future__ import annotations

from typing import Any

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
        "changes_default": "changes a default: {title}",
        "tagged_breaking": "tagged [BREAKING] in the title",
        "declared_breaking": "declared breaking in the title",
        "body_breaking": "BREAKING CHANGE stated in the description",
        # importance reasons (scoring)
        "type_change": "{kind} change",
        "breaking": "breaking change",
        "breaking_inferred": "breaking: {why}",
        "correctness_fix": "correctness fix ({word})",
        "correctness_fix_outside": "correctness fix ({word}) outside core code",
        "fixes_word": "fixes {word}",
        "fixes_error": "fixes an error on a code path",
        "new_capability": "new capability",
        "new_surface": "new API/config/backend surface",
        "touches_surface": "touches an API surface",
        "perf_measured": "performance gain with measured numbers",
        "perf_unmeasured": "performance change (no numbers given)",
        "large_removal": "large removal/migration (−{lines} lines)",
        "version_upgrade": "dependency/version upgrade",
        "sizeable": "sizeable code change ({lines} lines)",
        "cap_typo": "typo/wording fix",
        "cap_docs": "documentation only",
        "cap_tests": "tests only",
        "cap_ci": "CI only",
        "cap_examples": "examples/recipes only",
        "cap_bump": "version bump",
        "cap_tagged": "tagged {tags} only",
        "reverts": "reverts {what}",
        "earlier_change": "an earlier change",
        # risk details (risks)
        "missing_tests_one": "changes 1 source file ({lines} lines) but no test file",
        "missing_tests": "changes {n} source files ({lines} lines) but no test file",
        "deps_no_diff": "changes dependency files ({names}); no diff text to read the versions from",
        "pin_missing": "{pin} does not exist on {where}",
        "pins_no_diff": "versions in files without diff text",
        "pins": "pins {shown}",
        "todo_one": "adds 1 TODO/FIXME marker, e.g. {file}: {line}",
        "todo": "adds {n} TODO/FIXME markers, e.g. {file}: {line}",
        "large_one": "{size} changed lines (+{additions}/−{deletions}) in 1 file; threshold {threshold}",
        "large": "{size} changed lines (+{additions}/−{deletions}) in {n} files; threshold {threshold}",
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
        "unscored": "{n} PR(s) could not be scored and are left out of the statistics",
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
        "changes_default": "修改了默认行为：{title}",
        "tagged_breaking": "标题标注了 [BREAKING]",
        "declared_breaking": "标题声明为破坏性变更",
        "body_breaking": "描述中写明了 BREAKING CHANGE",
        "type_change": "{kind}类改动",
        "breaking": "破坏性变更",
        "breaking_inferred": "破坏性变更：{why}",
        "correctness_fix": "修复正确性问题（{word}）",
        "correctness_fix_outside": "修复核心代码以外的正确性问题（{word}）",
        "fixes_word": "修复 {word}",
        "fixes_error": "修复代码路径上的报错",
        "new_capability": "新功能",
        "new_surface": "新增接口、配置或后端",
        "touches_surface": "涉及接口",
        "perf_measured": "性能提升，附实测数据",
        "perf_unmeasured": "性能改动（未给出数据）",
        "large_removal": "大规模删除或迁移（−{lines} 行）",
        "version_upgrade": "依赖或版本升级",
        "sizeable": "代码改动较大（{lines} 行）",
        "cap_typo": "错别字或措辞修正",
        "cap_docs": "仅改文档",
        "cap_tests": "仅改测试",
        "cap_ci": "仅改 CI",
        "cap_examples": "仅改示例或配方",
        "cap_bump": "版本升级",
        "cap_tagged": "仅标注 {tags}",
        "reverts": "回滚 {what}",
        "earlier_change": "此前的改动",
        "missing_tests_one": "改动 1 个源文件（{lines} 行），未改测试",
        "missing_tests": "改动 {n} 个源文件（{lines} 行），未改测试",
        "deps_no_diff": "改动了依赖文件（{names}），没有 diff 文本可读出版本",
        "pin_missing": "{pin} 在 {where} 上不存在",
        "pins_no_diff": "无 diff 文本的文件中的版本",
        "pins": "锁定版本 {shown}",
        "todo_one": "新增 1 处 TODO/FIXME，例如 {file}：{line}",
        "todo": "新增 {n} 处 TODO/FIXME，例如 {file}：{line}",
        "large_one": "改动 {size} 行（+{additions}/−{deletions}），涉及 1 个文件；阈值 {threshold}",
        "large": "改动 {size} 行（+{additions}/−{deletions}），涉及 {n} 个文件；阈值 {threshold}",
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
        "unscored": "{n} 个 PR 评分失败，未计入统计",
    },
}

# Change types as Chinese prose names them ("fix 类改动" mixes languages).
TYPE_WORDS = {"zh": {"feat": "新功能", "fix": "修复", "perf": "性能", "refactor": "重构", "docs": "文档",
                     "test": "测试", "ci": "CI ", "chore": "杂项", "revert": "回滚"}}

# Separators between phrases: Chinese prose uses full-width punctuation.
SEPARATORS = {"en": {"list": "; ", "comma": ", "}, "zh": {"list": "；", "comma": "、"}}


def say(language: str, key: str, **values: Any) -> str:
    """The sentence `key` in `language` (en for anything else), with `values` filled in."""
    return PHRASES.get(language, PHRASES["en"])[key].format(**values)


def type_word(language: str, kind: str) -> str:
    """A change type (feat, fix, ...) as the language says it in a sentence."""
    return TYPE_WORDS.get(language, {}).get(kind, kind)


def joined(language: str, parts: list[str], kind: str = "list") -> str:
    """Phrases joined the way the language punctuates a list."""
    return SEPARATORS.get(language, SEPARATORS["en"])[kind].join(parts)
