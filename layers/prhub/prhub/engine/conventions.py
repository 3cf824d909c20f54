"""A repository's own conventions, learned from its history's titles (issue 48): the repository's word first.

    emoji(title) -> (str, int)                    the emoji a title opens with (gitmoji, a :shortcode:), and its end
    words(title) -> list[str]                     what a title opens with: its emoji, [tags], then a `word:` prefix
    bare_type_word(text) -> (str, int)            a type word in capitals without a colon ("FIX ..."), and its end
    learn(given, titles) -> Conventions           `given` (the watch list's) with what the titles show added
    marks_breaking(title) -> bool                 whether a title marks a breaking change ([BREAKING], `feat!:`)
    minor_marker(title, labels, conv) -> str      the repository's "not worth noting" marker the PR carries, or ""
    said_type(title, labels, conv) -> str | None  the type the repository's own word gives the PR

What is learned, and why so little. The plan holds only the titles of the repository's earlier PRs (a listing
and its history entries carry no sizes or labels), so a marker is learned by use, not by co-occurrence with tiny
diffs: a word of MINOR_WORDS (the vocabulary projects use for "leave this out of the notes") counts as this
repository's marker once at least MIN_USES earlier titles open with it. One stray `minor:` in a repository that
never writes so changes nothing. Types: a form of saying a type counts once the repository uses it consistently.
A conventional prefix (`fix:`, `feat(x):`) in at least CONSISTENT of its titles makes every type word it writes
there its word as a prefix ("chore:": a declared chore stays a chore, where the engine alone reads "chore: Fix ..."
as a fix); its tags name areas (verl's `[ci]`, `[doc]` beside `fix:`), not types. A repository with fewer has its
type-word tags (`[Bugfix]`, `[Doc]`) decide once it writes each MIN_USES times. Gitmoji (GITMOJI, gitmoji.dev's
list) opening at least CONSISTENT of the titles decide too; a repository that opens titles with an emoji now and
then (trl's 🐯, 🎀) is not ruled by them.
The words and thresholds are not tuned on any repository's figures: a form must be the repository's habit to
count. Only the type shown follows the repository's word: the importance rules read what a PR declaring a
conventional type does (prhub.engine.scoring.facts), since scoring "chore: Fix the precision of ..." as a chore
lowered verl's judged panel.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from prhub.core.config import PR_TYPES, Conventions

# numpy's commit acronyms (its development workflow's list; scikit-learn's MNT) as types: written upper case, with a
# colon or without one ("ENH: ...", peft's "FIX Resolve ..."). API, BENCH, DEP, DEV and TYP name no type of ours.
ACRONYMS = {"enh": "feat", "maint": "chore", "mnt": "chore", "tst": "test", "bld": "ci", "sty": "chore",
            "rev": "revert", "rel": "chore"}
# Words projects open a title with, or label a PR with, to say it is not worth a reader's time. `chore` is not
# here: the rules read a declared chore already (prhub.engine.rules, cap_chore); `misc` names a catch-all area.
MINOR_WORDS = frozenset({"minor", "internal", "nit", "nits", "trivial", "typo", "typos", "skip-changelog",
                         "skip changelog", "no-changelog", "no changelog", "changelog-skip", "not notable"})
TYPE_WORDS = {**{t: t for t in PR_TYPES}, "feature": "feat", "feats": "feat", "bugfix": "fix", "bug fix": "fix",
              "bug": "fix", "hotfix": "fix", "fixes": "fix", "doc": "docs", "documentation": "docs", "tests": "test",
              "testing": "test", "build": "ci", "performance": "perf", "optim": "perf", "refactoring": "refactor",
              "refact": "refactor", "style": "chore", "deps": "chore", "release": "chore",
              # arrow-rs' "bench(parquet):": a benchmark measures the code and ships to no user, as a test
              "bench": "test", "benches": "test", "benchmark": "test", "benchmarks": "test",
              # polars' "depr:" (a deprecation changes no behaviour yet; its removal is the break): had been a
              # module named "depr"
              "depr": "refactor", "deprecation": "refactor", **ACRONYMS}
# gitmoji.dev's emoji as types (and their :shortcodes:), the standard list, not tuned on any repository: what a
# repository that opens its titles with them (fastapi: ✨ 🐛 ♻️ ⬆️ 📝 🌐 🔧 👷) says a PR is. Keys are without
# the U+FE0F variation selector, which repositories write and leave out at random.
GITMOJI = {
    "✨": "feat", "🎉": "feat", "💥": "feat", "♿": "feat", "🚸": "feat", "📱": "feat", "🚩": "feat", "💫": "feat",
    "🛂": "feat", "👔": "feat", "🩺": "feat", "🦺": "feat", "🥚": "feat", "🧵": "feat", "💄": "feat",
    "🐛": "fix", "🚑": "fix", "🔒": "fix", "🩹": "fix", "🥅": "fix",
    "⚡": "perf",
    "📝": "docs", "🌐": "docs", "✏": "docs", "💡": "docs", "📄": "docs",
    "♻": "refactor", "🎨": "refactor", "🔥": "refactor", "🚚": "refactor", "🏗": "refactor", "🗑": "refactor",
    "⚰": "refactor", "🏷": "refactor",
    "✅": "test", "🧪": "test", "🤡": "test", "📸": "test",
    "👷": "ci", "💚": "ci", "🚀": "ci", "🧱": "ci",
    "⬆": "chore", "⬇": "chore", "📌": "chore", "➕": "chore", "➖": "chore", "🔧": "chore", "🔨": "chore",
    "🔖": "chore", "🚨": "chore", "🚧": "chore", "📦": "chore", "🙈": "chore", "🔐": "chore", "👥": "chore",
    "🍱": "chore", "🔊": "chore", "🔇": "chore", "🗃": "chore", "💬": "chore", "🌱": "chore", "⚗": "chore",
    "🧑\u200d💻": "chore", "💸": "chore", "📈": "chore", "🔍": "chore", "🧐": "chore", "🔀": "chore",
    "💩": "chore", "🍻": "chore", "👽": "chore",
    "⏪": "revert",
}
SHORTCODES = {
    "sparkles": "✨", "tada": "🎉", "boom": "💥", "wheelchair": "♿", "children_crossing": "🚸", "iphone": "📱",
    "triangular_flag_on_post": "🚩", "dizzy": "💫", "passport_control": "🛂", "necktie": "👔", "stethoscope": "🩺",
    "safety_vest": "🦺", "egg": "🥚", "thread": "🧵", "lipstick": "💄", "bug": "🐛", "ambulance": "🚑",
    "lock": "🔒", "adhesive_bandage": "🩹", "goal_net": "🥅", "zap": "⚡", "memo": "📝", "globe_with_meridians": "🌐",
    "pencil2": "✏", "bulb": "💡", "page_facing_up": "📄", "recycle": "♻", "art": "🎨", "fire": "🔥", "truck": "🚚",
    "building_construction": "🏗", "wastebasket": "🗑", "coffin": "⚰", "label": "🏷", "white_check_mark": "✅",
    "test_tube": "🧪", "clown_face": "🤡", "camera_flash": "📸", "construction_worker": "👷", "green_heart": "💚",
    "rocket": "🚀", "bricks": "🧱", "arrow_up": "⬆", "arrow_down": "⬇", "pushpin": "📌", "heavy_plus_sign": "➕",
    "heavy_minus_sign": "➖", "wrench": "🔧", "hammer": "🔨", "bookmark": "🔖", "rotating_light": "🚨",
    "construction": "🚧", "package": "📦", "see_no_evil": "🙈", "closed_lock_with_key": "🔐",
    "busts_in_silhouette": "👥", "bento": "🍱", "loud_sound": "🔊", "mute": "🔇", "card_file_box": "🗃",
    "speech_balloon": "💬", "seedling": "🌱",
    "alembic": "⚗", "technologist": "🧑\u200d💻", "money_with_wings": "💸", "chart_with_upwards_trend": "📈",
    "mag": "🔍", "monocle_face": "🧐", "twisted_rightwards_arrows": "🔀", "poop": "💩", "beers": "🍻", "alien": "👽",
    "rewind": "⏪",
}
MIN_USES = 3
CONSISTENT = 0.5
SEEN = 50  # titles without one mark of a breaking change that say the repository does not mark them

_TAGS = re.compile(r"^\s*((?:\[[^\]]{1,60}\]\s*)+)")
_PREFIX = re.compile(r"^\s*\(?([A-Za-z][\w -]{0,30}?)\)?(?:\([^)]{0,60}\))?!?\s*[:：]")
_BANG = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*\(?[A-Za-z][\w-]{0,30}\)?(?:\([^)]{0,60}\))?!\s*[:：]")
# A title written as a branch's name: "Feat/minimax m2.5 support", "Fix/qwen3 5 mtp bridge".
BRANCH_TYPE = re.compile(r"^(feat|feature|fix|bugfix|hotfix)/(?=[A-Za-z][\w.-]*\s)", re.IGNORECASE)
# A type word in capitals without a colon, before a capital or a quote (peft: "FIX Resolve regex ...", "DOC Improve
# ..."); "CI fails on ..." is a sentence about CI.
_BARE = re.compile(r"^\s*([A-Z]{2,8})\s+(?=[A-Z`'\"])")
# A title's opening emoji: a :shortcode:, or a run of symbols outside ASCII that are not letters, digits or quotes.
_EMOJI = re.compile(r"^\s*(?::([a-z0-9_+-]{2,40}):|([^\w\s\x00-\x7f“”‘’「」『』【】（）《》]+))\s*", re.IGNORECASE)


def emoji(title: str) -> tuple[str, int]:
    """The emoji a title opens with, and where the title goes on after it (("", 0) for none). A :shortcode: reads
    as its emoji, U+FE0F is dropped, and of a run of symbols the longest gitmoji it starts with is the word."""
    match = _EMOJI.match(title)
    if not match:
        return "", 0
    if match.group(1):
        known = SHORTCODES.get(match.group(1).lower(), "")
        return (known, match.end()) if known else ("", 0)
    run = re.sub(r"[\ufe0f\s]", "", match.group(2))
    return next((run[:n] for n in range(len(run), 0, -1) if run[:n] in GITMOJI), run), match.end()


def bare_type_word(text: str) -> tuple[str, int]:
    """The type word `text` opens with in capitals and without a colon ("FIX Resolve ...", "ENH Refactor ..."), lower
    case, and where the text goes on after it; ("", 0) for none. Where the rest opens with a `word:` prefix of its
    own ("CI hotfix: ...", "FIX CI: ...") that prefix is the form the title is written in, so none."""
    match = _BARE.match(text)
    if not match or match.group(1).lower() not in TYPE_WORDS or _PREFIX.match(text[match.end():]):
        return "", 0
    return match.group(1).lower(), match.end()


def _parts(title: str) -> tuple[str, list[str], str | None]:
    """(the opening emoji or "", each [tag]'s words, the conventional `word:` / `word(scope):` prefix after them),
    lower case."""
    mark, rest = emoji(title)[0], title[emoji(title)[1]:]
    tagged: list[str] = []
    if tags := _TAGS.match(rest):
        for tag in re.findall(r"\[([^\]]*)\]", tags.group(1)):
            tagged += [w.strip().lower() for w in re.split(r"[,，/()]", tag) if w.strip()]  # "[Bugfix (rlhf)]"
        rest = rest[tags.end():]
    prefix = _PREFIX.match(rest)
    return mark, tagged, prefix.group(1).strip().lower() if prefix else bare_type_word(rest)[0] or None


def words(title: str) -> list[str]:
    """What a title opens with: its emoji, each [tag]'s words (`[Bugfix]`, `[ci, docs]`), then a conventional
    `word:` / `word(scope):` prefix after them (lower case)."""
    mark, tagged, prefix = _parts(title)
    return [*([mark] if mark else []), *tagged, *([prefix] if prefix else [])]


def marks_breaking(title: str) -> bool:
    """Whether a title marks a breaking change: a [BREAKING] tag or `breaking:` prefix, or a conventional `type!:`."""
    _, tagged, prefix = _parts(title)
    return "breaking" in (*tagged, prefix) or bool(_BANG.match(title[emoji(title)[1]:]))


def learn(given: Conventions, titles: Iterable[str]) -> Conventions:
    """`given` with what the repository's titles show: its minor markers (MINOR_WORDS it opens MIN_USES titles
    with), and the forms it declares types in consistently (at least CONSISTENT of its titles): conventional
    prefixes, gitmoji; type-word tags used MIN_USES times count where prefixes are not consistent. The given
    markers and types stay, and a given type wins over a learned one. Nothing when `learn` is off."""
    if not given.learn:
        return given
    titles = list(titles)
    if not titles:
        return given
    parts = [_parts(t) for t in titles]
    used = Counter(w for t in titles for w in set(words(t)))
    typed = Counter(p for _, _, p in parts if p in TYPE_WORDS)
    marks = Counter(m for m, _, _ in parts if m in GITMOJI)
    markers = {w for w in MINOR_WORDS if used[w] >= MIN_USES}
    types: dict[str, str] = {}
    if typed.total() >= CONSISTENT * len(titles):
        # The prefix is how this repository says what a PR is: each type word it writes there decides, as a prefix
        # only ("fix:"): its tags name areas.
        types.update({f"{w}:": TYPE_WORDS[w] for w in typed})
    else:
        types.update({w: TYPE_WORDS[w] for _, tagged, _ in parts for w in tagged
                      if w in TYPE_WORDS and used[w] >= MIN_USES})
    if marks.total() >= max(MIN_USES, CONSISTENT * len(titles)):
        types.update({m: GITMOJI[m] for m in marks})  # gitmoji is this repository's habit: each one it writes
    types.update(dict(given.types))
    # One title marking a break shows the habit (cargo writes `feat!:` 7 times in 1,252); many with none, its absence.
    marked = any(marks_breaking(t) for t in titles)
    breaking = given.breaking_marker if given.breaking_marker is not None else (
        True if marked else False if len(titles) >= SEEN else None)
    return replace(given, minor_markers=tuple(sorted(markers | set(given.minor_markers))),
                   types=tuple(sorted(types.items())), breaking_marker=breaking)


def minor_marker(title: str, labels: Iterable[str], conv: Conventions) -> str:
    """The first of the repository's minor markers the PR's title opens with or its labels carry ("" for none)."""
    if not conv.minor_markers:
        return ""
    marks = set(conv.minor_markers)
    return next((w for w in [*words(title), *(label.strip().lower() for label in labels)] if w in marks), "")


def said_type(title: str, labels: Iterable[str], conv: Conventions) -> str | None:
    """The type the repository's own words give the PR, by its `types` map: the title's prefix (a word ending in ":"
    counts only there), its opening emoji, its tags, then its labels."""
    if not conv.types:
        return None
    mark, tagged, prefix = _parts(title)
    # The prefix first: in "[doc] fix: ..." the tag may name an area, the prefix says what the PR is.
    for word in [*([f"{prefix}:", prefix] if prefix else []), *([mark] if mark else []), *tagged,
                 *(label.strip().lower() for label in labels)]:
        if kind := conv.type_of(word):
            return kind
    return None
