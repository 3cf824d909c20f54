"""What the brief says of one PR: a headline and at most two points, in the report's language.

The brief is read in the report's language from end to end, so a zh report never quotes an English title or an
English description bullet. A PR's headline is its summary's action when the engine (or the model) said it in
Chinese with confidence; otherwise it is what the engine knows for sure, said in Chinese: its subsystem, its type
the names its title gives in code, else where the diff goes ("修复：涉及 tokenizer_manager";
"重构：改动 20 个文件，多为删除"). The author's title
stays one link away (the PR page, and the link's title on the web page). The points are facts the engine holds
(breaking and why, a figure the description measured, a dependency pin, a TODO left, a revert, the size), never a
bullet of the description cut mid-phrase.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import cache

from prhub.core.models import Risk
from prhub.core.text import capitalised
from prhub.engine import gist, translate
from prhub.engine.lexicon import CJK, SYMPTOMS, UNPLACED, area_name, blank_code, glossary, known, verb
from prhub.engine.scoring import PR_SUFFIX, parse_title
from prhub.engine.textparse import IDENTIFIER
from prhub.engine.translate import PROSE, english_prose
from prhub.engine.wording import clip, reading, say, type_word

POINTS = 2
HEADLINE = 60  # characters: a table cell and a highlight's clause, not a paragraph
CLAUSE_END = re.compile(r"[。；;]")
MEASURED = re.compile(r"据描述实测[^，。；]*")
PATH = re.compile(r"(?<![\w/])(?:[\w.-]+/)+([\w.-]+)")
DIFF_ONLY = re.compile(r"改动 \d+ 个文件，(?:多为新增|多为删除|增删相当)$")  # a zh headline that knows only the diff
NAMES = 2  # files a brief reason names before it counts the rest


def by_name(text: str) -> str:
    """`text` with each path said by its file's name, or by as many of its last folders as tell it from another
    path of `text` with that name: "将公共模块 trl/trainer/gold.py 移到 trl/experimental/gold.py" →
    "将公共模块 trainer/gold.py 移到 experimental/gold.py" (by the name alone it read "gold.py 移到 gold.py")."""
    paths = {m.group(0) for m in PATH.finditer(text)}

    def named(m: re.Match[str]) -> str:
        parts = m.group(0).split("/")
        first = 2 if GENERIC_FILES.match(parts[-1]) and len(parts) > 1 else 1  # "2-analyze/index.js", not index.js
        for n in range(first, len(parts) + 1):
            tail = "/".join(parts[-n:])
            if not any(other != m.group(0) and (other == tail or other.endswith("/" + tail)) for other in paths):
                return tail
        return m.group(0)
    return PATH.sub(named, text)


def briefly(reason: str, zh: bool) -> str:
    """A reason as the brief says it: files by their names (the appendix's risk details give the paths), and
    reasons that repeat one verb said once ("删除公共模块 a.py；删除公共模块 b.py" → "删除公共模块 a.py、b.py")."""
    reason = by_name(reason)
    parts = [part.strip() for part in reason.split("；" if zh else "; ")]
    heads = {part.rsplit(" ", 1)[0] for part in parts if " " in part}
    if len(parts) < 2 or len(heads) != 1 or not all(" " in part for part in parts):
        return reason
    names = [part.rsplit(" ", 1)[1] for part in parts]
    shown = ("、" if zh else ", ").join(names[:NAMES])
    if len(names) > NAMES:  # the brief names a few; the appendix's risk details list every file
        shown += f" 等 {len(names)} 个" if zh else f" and {len(names) - NAMES} more"
    head = heads.pop()
    if not zh and re.search(r"\b(?:module|file|option|key|field|function|class)$", head):
        head += "s"  # "removes public modules a.py, b.py"
    return f"{head} {shown}"


def migration(reason: str, zh: bool) -> str:
    """What a breaking PR removes or changes, from why the engine found it breaking, said briefly: the diff's
    findings a marked title carries in brackets ("tagged [BREAKING]（删除公共模块 a.py）"), "" when the marker is
    all there is (the author says only that it breaks)."""
    told = re.search(r"（(.+)）$" if zh else r"\((.+)\)$", reason)
    markers = {say("zh" if zh else "en", m) for m in ("tagged_breaking", "declared_breaking", "body_breaking")}
    marked = reason in markers or re.search(r"\[BREAKING\]|BREAKING CHANGE", reason)  # "feat!:" says only that
    reason = told.group(1) if told else "" if marked else reason
    return briefly(reason, zh)


# "rename misleading `trainer` arg to `actor_wg`", "change micro_batch_size to micro_batch_size_per_gpu": a name
# (code: backticks, "_", ".", CamelCase) renamed to another, the migration its users make.
RENAMED = re.compile(r"\b(rename[sd]?|change[sd]?)\s+(?:(?:the|misleading|confusing|legacy|old)\s+){0,2}"
                     r"`?([A-Za-z][\w.]*)`?\s+(?:(?:arg|argument|param|parameter|option|field|flag|key|attribute|"
                     r"method|function|class|module|config|setting|name)s?\s+)?(?:to|->|→)\s+`?([A-Za-z][\w.]*)`?",
                     re.I)
CODE_NAME = re.compile(r"[_.]|[a-z][A-Z]")


def migration_step(reason: str, title: str, zh: bool) -> tuple[str, bool]:
    """What a breaking PR asks of its users, and whether that is a step they take (not only what the PR removes or
    changes, from migration()): the new name of a renamed one (the title's "rename `a` to `b`"), a changed
    default's old value set where they rely on it. ("", False) when the author's marker is all there is."""
    said, lang = migration(reason, zh), "zh" if zh else "en"
    default, step = say(lang, "changes_default"), say(lang, "default_step")
    if said == default:
        return step, True
    if optout := reading(lang, "changes_default_optout").fullmatch(said):  # the author's way back, named
        return say(lang, "optout_step", flag=optout.group("flag")), True
    if dropped := reading(lang, "drops_runtime").fullmatch(said):  # "不再支持 Python 3.9": users move to a newer one
        what = dropped.group("what")  # "<name> <version>", as scoring says it
        return say(lang, "runtime_step", what=what, name=what.rsplit(" ", 1)[0]), True
    if default in said:  # beside what the diff found: "删除公共模块 a.py；依赖旧默认值之处需显式设置原值"
        return said.replace(default, step), False
    # "rename" renames; "change `a_b` to `a_b_c`" only between code names ("change `mode` to `async`" sets a value)
    if not said and (renamed := RENAMED.search(translate.strip(title))) and all(
            CODE_NAME.search(name) or renamed.group(1).lower().startswith("rename") and name in title.split("`")
            for name in renamed.groups()[1:]):
        old, new = renamed.groups()[1:]
        return say(lang, "rename_step", old=old, new=new), True
    return said, False


def _where(changed_files: int, additions: int, deletions: int, main: str = "") -> str:
    """Where the diff goes, in Chinese: the source file it changes most (`main`, a maintainer knows their code by
    its files: svelte's "修复：改动 9 个文件" named none), how many files, and whether it adds or takes away."""
    files = f"改动 {changed_files} 个文件"
    if main:
        files = f"改动 `{main}`" if changed_files == 1 else f"主要改动 `{main}`（共 {changed_files} 个文件）"
    if deletions > 3 * max(additions, 1):
        return f"{files}，多为删除"
    if additions > 3 * max(deletions, 1):
        return f"{files}，多为新增"
    return f"{files}，增删相当"


# File names that say little alone (svelte has dozens of index.js): said with their folder.
GENERIC_FILES = re.compile(r"^(?:index|mod|lib|main|__init__|__main__|utils?|types?|helpers?|common|core|base|"
                           r"init|api|config)\.\w+$")


def main_file(files: Sequence[str], lines: Sequence[Sequence[int]], kinds: Sequence[str]) -> str:
    """The source file of `files` with the most changed lines (`lines`: [additions, deletions] each, `kinds`: each
    file's kind), by its name (with its folder where the name is a generic one), or ''."""
    changed = [(sum(n), path) for path, n, kind in zip(files, lines, kinds, strict=False) if kind == "source"]
    if not changed:
        return ""
    path = max(changed, key=lambda c: (c[0], c[1]))[1]
    parts = path.split("/")
    return "/".join(parts[-2:]) if GENERIC_FILES.match(parts[-1]) and len(parts) > 1 else parts[-1]


def _action_zh(title: str, summary: str, kind: str, modules: Sequence[str]) -> str:
    """The summary's first clause, without the engine's module tag and measured figure (said as points)."""
    description = PR_SUFFIX.sub("", parse_title(title)[0] or title)
    doing = gist.doing(description, kind).rstrip("。")
    said = summary.strip()
    if not said or said == title:
        said = doing
    # the first clause ends outside quotes and code: "新功能：“a; b”" is one (its quote is what english_prose reads)
    masked = re.sub(r"“[^”]*”", lambda m: "x" * len(m.group(0)), blank_code(said, "x", "x"))
    first = said[:end.start()] if (end := CLAUSE_END.search(masked)) else said
    if first.startswith(doing):  # the engine's line: its action, then facts
        first = doing
    area = f"（{'、'.join(modules[:2])}）"
    if first.endswith(area):
        first = first[:-len(area)]
    return MEASURED.sub("", first).strip("，, ")


# A title that is only a branch's name: the PR brings that branch's work in (hono's "Next", git-flow's "Develop").
BRANCH_TITLE = re.compile(r"^\s*(next|main|master|dev|develop|development|canary|beta|staging)\s*$", re.IGNORECASE)


# What a fix's title, its type word cut, opens with when it names the failure ("Typo in docs", "Missing X"): said
# with its fix in English, as the zh line says 修复.
FAILURES = SYMPTOMS | {"typo", "typos", "bug", "bugs", "regression", "race", "wrong", "incorrect", "missing", "broken",
                       "invalid", "flaky", "stale", "duplicate", "duplicated"}


def _said_alone(title: str, released: str, changed_files: int, additions: int, deletions: int, lang: str) -> str:
    """The line of a PR whose title says nothing to translate: a release by what it releases, a branch's merge
    ("Next") by its size; '' otherwise."""
    if released:
        return f"发布 {released}" if lang == "zh" else f"Release {released}"
    if branch := BRANCH_TITLE.match(PR_SUFFIX.sub("", title)):  # "Next" says nothing the reader can use
        name = branch.group(1).lower()
        return (f"合并 {name} 分支：{changed_files} 个文件，+{additions}/−{deletions} 行" if lang == "zh" else
                f"Merge of the {name} branch: {changed_files} files, +{additions}/−{deletions} lines")
    return ""


def headline(title: str, summary: str, kind: str, modules: Sequence[str], changed_files: int, additions: int,
             deletions: int, lang: str = "zh", main: str = "", released: str = "") -> str:
    """The PR in one line of the report's language (see the module docstring); `main`: the source file it changes
    most (main_file), which a line that falls back to facts names; `released`: what it releases (engine.releases),
    all a release's line says (svelte's "Version Packages" had read "版本 Packages")."""
    if said := _said_alone(title, released, changed_files, additions, deletions, lang):
        return said
    if lang != "zh":
        text = translate.strip(title) or title.strip()
        if re.fullmatch(r"[A-Za-z][a-z-]*", text):  # "cleanup", "fix", "bugfix": of what? (not a name: "GSPO")
            files = "1 file" if changed_files == 1 else f"{changed_files} files"
            return f"{capitalised(text)}: {files}, +{additions}/−{deletions} lines"
        if kind == "fix" and text.split(maxsplit=1)[0].lower() in FAILURES and not re.search(r"\bfix", text, re.I):
            text = f"fix {text[0].lower()}{text[1:]}"  # "fix(tree): panic in X" is "Fix panic in X", not "Panic in X"
        return clip(capitalised(text), HEADLINE + 30)
    action = _action_zh(title, summary, kind, modules)
    what = type_word("zh", kind) if kind in ("feat", "fix", "perf", "refactor", "docs", "test", "revert") else "改动"
    # a bare verb ("cleanup": 清理 of what?) or the author's words quoted (gist.doing quotes a title it could not
    # carry) is no headline in Chinese; one or two words that name something are said as the name they are
    action, quoted = _unquoted(action, what)
    if action and not english_prose(action) and action not in _bare_verbs() and not quoted:
        if re.fullmatch(r"(?:[A-Z][\w.-]*\s+){0,3}v?\d+(?:\.\d+)+\S*", action):
            return f"发布 {action}"  # "Release: v1.9", "Python Polars 1.43.0": a release
        return clip(action if CJK.search(action) else f"{what}：{action}", HEADLINE)  # "[model] qwen3.8": a name
    if names := _named(translate.strip(title)):
        line = f"{what}：涉及 {names[0]}"
        return clip(line if len(names) < 2 or len(line) + len(names[1]) >= HEADLINE else f"{line}、{names[1]}",
                    HEADLINE)
    where = _where(changed_files, additions, deletions, main)
    place = area_name(modules[0]) if modules and modules[0] not in UNPLACED else ""
    if place and place != what:  # where in the repository, too: "新功能：rollout 模块，改动 11 个文件"
        where = f"{place}，{where}"
    return where if what == "改动" else f"{what}：{where}"  # not "改动：改动 1 个文件"


def quotes_english(text: str) -> bool:
    """Whether `text` quotes English (“…” with letters and no Chinese): gist.doing's quote of a title it could not
    carry, which a Chinese line does not repeat."""
    return any(not CJK.search(q) and re.search(r"[A-Za-z]", q) for q in re.findall(r"“([^”]*)”", text))


def _unquoted(action: str, what: str) -> tuple[str, bool]:
    """`action` with an English quote of one or two words that name something said as that name ("新功能：“xpo
    trainer”" → "新功能：xpo trainer"), and whether an English quote is left (a verb or a participle opens it:
    "重构：“Simplify backtrack”", "“reformatted”": the author's sentence, not a name)."""
    found = re.fullmatch(r"(.*?)“([^”]*)”", action)
    if not found or not quotes_english(action):
        return action, False
    words = found.group(2).split()
    first, last = words[0] if words else "", words[-1] if words else ""
    # "realign values", "reformatted", "rebrand": a verb of the author's sentence, known or shaped as one
    verbal = verb([first]) or re.search(r"(?:ed|ing|i[sz]e|ify)$|^(?:re|un|de)[a-z]{3}", first.lower())
    opens_a_name = first and not verbal and first.lower() not in PROSE
    ends_a_name = known([last.lower()], 0, False)[2] or re.search(r"\d|[a-z][A-Z]|^[A-Z]{2,}$", last) or \
        len(words) == 1 and first.islower()  # "mrope", a lower-case name
    if 0 < len(words) <= 2 and "`" not in found.group(2) and opens_a_name and ends_a_name:
        return f"{found.group(1) or what + '：'}{found.group(2)}", False
    return action, True


@cache
def _bare_verbs() -> frozenset[str]:
    """The Chinese of every verb the glossary knows: a headline that is one of them alone ("清理", "修复") names
    nothing the PR did it to."""
    return frozenset(glossary()["verbs"].values())


def _named(text: str) -> list[str]:
    """At most two names a title gives: its code in backticks first, kept as code (polars "… for `select(len())`"),
    then its identifiers."""
    span = re.compile(r"`([^`\n]+)`")  # paired first: a long span must not pair its closing tick with the next

    def short(code: str) -> bool:  # a longer span is an expression: its identifiers name it
        return len(code) <= 40 or len(code) <= 60 and not re.search(r"\s", code)

    code = [c.strip().strip("'\"") for c in span.findall(text) if short(c)]
    code = [f"`{c}`" for c in code if re.search(r"[A-Za-z]{2}", c)]  # not "%", ".1" or "<p>"
    rest = span.sub(lambda m: " " if short(m.group(1)) else m.group(1), text)
    names = [n for n in IDENTIFIER.findall(rest) if not re.fullmatch(r"v?\d+(?:\.\d+)+\S*", n)]  # a version names
    return list(dict.fromkeys(code + names))[:2]  # nothing by itself ("性能：涉及 v0.2.1")


def says_size(line: str) -> bool:
    """Whether a headline gives the diff's size already (the engine's "改动 3 个文件", a branch's "41 files, +…"), so
    the key points need not."""
    return "个文件" in line or re.search(r"\d files?, \+", line) is not None


def _came_with(kinds: Collection[str], zh: bool) -> str:
    """"附带测试和文档" / "with tests and docs": what the source change came with, from its files' kinds."""
    if "source" not in kinds:
        return ""
    parts = [word for kind, word in (("test", "测试" if zh else "tests"), ("docs", "文档" if zh else "docs"))
             if kind in kinds]
    if not parts:
        return ""
    return "附带" + "和".join(parts) if zh else "With " + " and ".join(parts)


def measured(kept: str, summary: str) -> str:
    """The effect the description measured (ScoredPR.measured), or what a zh summary says of it (a result stored
    before the field was kept), or ''."""
    found = MEASURED.search(summary)
    return kept or (found.group(0) if found else "")


def points(summary: str, breaking: bool, breaking_reason: str, risks: Sequence[Risk], reverted_by: int | None,
           changed_files: int, additions: int, deletions: int, lang: str = "zh", said_size: bool = False,
           kinds: Collection[str] = (), measured: str = "") -> list[str]:
    """At most two facts the engine holds about the PR, most telling first, in the report's language (`measured`:
    the effect its description measured, as headline.measured gives it);
    `said_size`: the headline gives the size already; `kinds`: its files' kinds (engine.changes.file_kind), to
    say that it came with tests or docs (what a reviewer checks first) when nothing more telling is known."""
    zh = lang == "zh"
    out: list[str] = []
    if breaking:  # why, files by their names (the appendix's risk details give the paths)
        reason = clip(migration(breaking_reason, zh), 60)
        out.append((f"破坏性变更：{reason}" if reason else "破坏性变更") if zh else
                   (f"Breaking: {reason}" if reason else "Breaking change"))
    if reverted_by:
        out.append(f"已被 #{reverted_by} 回滚" if zh else f"Reverted by #{reverted_by}")
    if measured:  # "据描述实测提速 2.81×" / "Measured: 2.81× faster"
        out.append(measured)
    for kind in ("dependency_pin", "todo_left", "revert"):
        detail = next((r.detail for r in risks if r.kind == kind), "")
        if kind == "todo_left":  # how many; the marker's line (code, cut mid-span in a cell) is the appendix's
            detail = re.split(r"，例如|, e\.g\. ", detail)[0]
        if detail and not (zh and english_prose(detail)):
            out.append(clip(detail, 70))
    if any(r.kind == "missing_tests" for r in risks):
        out.append("未改测试" if zh else "No test changes")  # the opposite of "附带测试", as short: a column of it
    if not out and (came := _came_with(kinds, zh)):
        out.append(came)
    if not said_size and not out:  # the size when nothing else is known: the table's row still says something
        out.append(f"改动 {changed_files} 个文件，新增 {additions} 行、删除 {deletions} 行" if zh else
                   f"{changed_files} file{'s' if changed_files != 1 else ''}, +{additions}/−{deletions} lines")
    return list(dict.fromkeys(out))[:POINTS]
