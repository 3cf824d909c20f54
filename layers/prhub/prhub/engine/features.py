"""What a PR shows where its repository says nothing (issue 48): facts beside the rules for the learned importance.

    of(f) -> dict[str, float]    the PR's features of this module (`x:` names; absent when 0)

The table of rules (prhub.engine.rules) reads what a PR does; its points and caps are hand-set. These features are
what the model learned across many repositories' maintainers (prhub.engine.prior, bench/train_importance.py)
weighs besides: who opened it (a bot), how it is described (length, a linked issue, "breaking" or "deprecat"),
where its changed lines fall (source, tests, docs, CI, config) and the verb its title opens with (adds, fixes,
updates, removes, refactors, documents). They move no reason a report prints, only the learned points, and were
kept by leave-one-repository-out ROC AUC on the training repositories (docs/importance-model.md), never on the
held-out ones or on verl's panel. Each is read from the PullRequest alone, as an export holds it: no patch, no
label, no history is needed.
"""
from __future__ import annotations

import math
import re
from collections import Counter

from prhub.engine import rules

# Accounts that open PRs for a schedule, not a person: GitHub Apps end in [bot]; the common ones by name besides.
BOT = re.compile(r"\[bot\]$|^(dependabot|renovate|pre-commit-ci|github-actions|allcontributors)\b", re.I)
# The verb a title's description opens with, in this order (the first that matches).
VERBS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rf"^(?:{words})\b", re.I)) for name, words in (
    ("add", r"add\w*|support\w*|implement\w*|introduc\w*|allow\w*|enabl\w*|new|expos\w*|creat\w*|extend\w*|"
            r"accept\w*|infer\w*|recogni[sz]e\w*|detect\w*|warn\w*|report\w*|respect\w*|stabili[sz]\w*|promot\w*"),
    ("fix", r"fix\w*|correct\w*|resolv\w*|handl\w*|avoid\w*|prevent\w*|don'?t|do not|ensure\w*|preserve\w*|"
            r"restor\w*|skip\w*|ignor\w*"),
    ("update", r"updat\w*|bump\w*|upgrad\w*|pin\w*|sync\w*|unpin\w*|regenerat\w*"),
    ("remove", r"remov\w*|drop\w*|delet\w*|deprecat\w*"),
    ("refactor", r"refactor\w*|mov\w*|renam\w*|clean\w*|simplif\w*|use|reorgani[sz]\w*|split\w*|extract\w*|"
                 r"replac\w*|consolidat\w*|tidy"),
    ("docs", r"docs?|document\w*|clarif\w*|mention\w*|explain\w*|typo\w*"),
    ("test", r"tests?|testing"),
    ("perf", r"speed\w*|optimi[sz]\w*|faster|improve performance|reduce"),
    ("improve", r"improv\w*|better|make\w*|change\w*|tweak\w*|adjust\w*|polish\w*"),
))
PREFIX = "x:"  # every feature's name starts so: the rules' own features never do
# prhub.engine.changes.file_kind's kinds but source: the shares sum to 1, so the source files' is what the others
# are weighed against (with it, the shares would add a constant the fit cannot tell from the types').
SHARES = ("test", "docs", "ci", "config", "other", "example", "deps")
BREAKING = re.compile(r"\bbreak(?:ing)?\b", re.I)
DEPRECATES = re.compile(r"deprecat", re.I)
ISSUE_REF = re.compile(r"#\d+")
CLI_FLAG = re.compile(r"(?<!\w)--?[a-z][\w-]+")

# What each feature is, for the model's training report (docs/importance-model.md).
MEANINGS = {
    "x:bot": "opened by a bot account (`[bot]`, dependabot, renovate, pre-commit-ci)",
    "x:body_len": "per unit of log10(1 + the description's characters) / 4",
    "x:issue": "says it fixes or closes an issue",
    "x:ref": "its description names a `#number`",
    "x:breaking_word": "its title or description says \"break\"/\"breaking\"",
    "x:deprecat": "its title or description says \"deprecat…\"",
    "x:title_words": "per unit of log10(1 + the title's words) − 1 (0 at ten words)",
    "x:backtick": "its title quotes code in backticks",
    "x:cli_flag": "its title names a `--flag`",
    "x:declared": "its title declares a conventional type (`fix:`)",
    **{f"x:share_{kind}": f"the share of its changed lines in {kind} files (source files' the rest)"
       for kind in SHARES},
    **{f"x:verb_{name}": f"its title opens with a verb of the `{name}` kind" for name, _ in VERBS},
}


def of(f: rules.Facts) -> dict[str, float]:
    """The PR's features (see the module docstring); a feature that is 0 is left out."""
    pr = f.pr
    lines: Counter[str] = Counter()
    for change, kind in f.pairs:  # generated files aside, as the rules count lines
        lines[kind] += change.changes
    total = sum(lines.values())
    title = f.title.strip()
    verb = next((name for name, pattern in VERBS if pattern.search(title)), "")
    values = {
        "x:bot": float(bool(BOT.search(pr.author))),
        "x:body_len": math.log10(1 + len(pr.body)) / 4,
        "x:issue": float(bool(rules.FIXES_ISSUE.search(f.text))),
        "x:ref": float(bool(ISSUE_REF.search(pr.body))),
        "x:breaking_word": float(bool(BREAKING.search(f.text))),
        "x:deprecat": float(bool(DEPRECATES.search(f.text))),
        **{f"x:share_{kind}": lines[kind] / total if total else 0.0 for kind in SHARES},
        **({f"x:verb_{verb}": 1.0} if verb else {}),
        # Centred at a ten-word title: every PR has a title, and a constant would shift the types' points.
        "x:title_words": math.log10(1 + len(title.split())) - 1,
        "x:backtick": float("`" in pr.title),
        "x:cli_flag": float(bool(CLI_FLAG.search(pr.title))),
        "x:declared": float(f.declared is not None),
    }
    return {name: value for name, value in values.items() if value}
