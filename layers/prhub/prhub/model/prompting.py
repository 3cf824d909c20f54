"""What the model reads: versioned Jinja2 prompts (prhub/prompts/) and the inputs cut to a token budget.

Untrusted text (titles, descriptions, file names, diffs) is passed through the
`data` filter, which defuses our own delimiter tags, so a PR cannot close
<pr_description> and speak outside it; JSON blocks go through `tojson`, which
escapes <, > and &.
"""
from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prhub.core.config import RepoConfig
from prhub.core.models import FileChange, PullRequest, ScoredPR
from prhub.engine.scoring import ENGINE_VERSION
from prhub.engine.textparse import strip_template
from prhub.engine.wording import period_words

if TYPE_CHECKING:
    import jinja2

PROMPTS = Path(__file__).parent / "prompts"
TAGS = ("pr_title", "pr_description", "changed_files", "diff", "engine_features", "week_facts")
TAG = re.compile(r"<(/?)\s*(" + "|".join(TAGS) + r")\b", re.IGNORECASE)
CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
MAX_LISTED_FILES = 150
MAX_BODY_SHARE = 0.35  # of the per-PR budget; the diff is worth more than a long description
# Paths whose diff says little about the change's meaning: read them last.
LOW_SIGNAL = re.compile(r"(^|/)(tests?|docs?|examples?)/|(^|/)test_|_test\.py$"
                        r"|\.(md|rst|txt|lock|json|ya?ml|svg|ipynb)$"
                        r"|(^|/)(package-lock\.json|uv\.lock|poetry\.lock|yarn\.lock)$", re.IGNORECASE)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: about 4 characters per token for ASCII, 1 per CJK character."""
    cjk = len(CJK.findall(text))
    return math.ceil((len(text) - cjk) / 4) + cjk


def defuse(text: Any) -> str:
    """Untrusted text with our delimiter tags made inert (`<diff>` -> `‹diff>`)."""
    return TAG.sub(lambda m: "‹" + m.group(1) + m.group(2), str(text))


@cache
def _env() -> jinja2.Environment:
    import jinja2  # here, not at module level: an engine-only score worker never pays for it

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(PROMPTS)), undefined=jinja2.StrictUndefined,
                             autoescape=False, keep_trailing_newline=False)
    env.filters["data"] = defuse
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    return env


def render(name: str, lang: str, **values: Any) -> str:
    return _env().get_template(f"{name}.{lang}.j2").render(**values).strip()


@cache
def prompt_version(lang: str, extra: str = "") -> str:
    """Part of the score cache key: the prompts' declared version plus a hash of every template of `lang`,
    the engine version (its features are part of the input) and `extra` (the answer schema), so any edit
    changes it."""
    digest = hashlib.sha256()
    for path in sorted(PROMPTS.glob(f"*.{lang}.j2")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(ENGINE_VERSION.encode() + b"\0" + extra.encode())
    version = (PROMPTS / "VERSION").read_text().strip()
    return f"p{version}-{lang}-{digest.hexdigest()[:10]}"


def truncate(text: str, tokens: int) -> str:
    """`text` cut to about `tokens` (by the estimate, so CJK text is cut about four times shorter than ASCII)."""
    if estimate_tokens(text) <= tokens:
        return text
    while estimate_tokens(text) > tokens:
        text = text[: max(0, int(len(text) * tokens / estimate_tokens(text)) - 1)]
    return text + "\n[… description truncated]"


COVERAGE = "model read: "  # reason prefix of what went into the prompt (report.json's per-PR reasons)


def diff_lines(f: FileChange) -> int:
    """Changed lines of a file's patch (+ and - lines, hunk headers not counted)."""
    return sum(1 for line in (f.patch or "").splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


@dataclass
class PrPrompt:
    messages: list[dict[str, str]]
    tokens: int  # estimated prompt tokens
    left_out: list[str] = field(default_factory=list)  # files whose diff did not fit
    read: list[str] = field(default_factory=list)  # files whose diff the prompt carries
    read_lines: int = 0  # their changed lines
    left_out_lines: int = 0  # changed lines of the files left out

    def coverage(self, pr: PullRequest, lang: str) -> str:
        """What the judgement rests on, as a reason: the diffs read, those left out for the budget, and files
        whose diff the source did not give (binary, too large, beyond the listing)."""
        without = max(0, pr.changed_files - len(self.read) - len(self.left_out))
        shown = ", ".join(self.left_out[:10]) + (" …" if len(self.left_out) > 10 else "")
        if lang == "zh":
            text = f"{COVERAGE}{len(self.read)} 个文件的 diff（{self.read_lines} 行）"
            if self.left_out:
                text += f"；因预算未读 {len(self.left_out)} 个文件（{self.left_out_lines} 行）：{shown}"
            return text + (f"；{without} 个文件没有 diff" if without else "")
        text = f"{COVERAGE}the diff of {len(self.read)} files ({self.read_lines} lines)"
        if self.left_out:
            text += f"; left out for the budget: {len(self.left_out)} files ({self.left_out_lines} lines): {shown}"
        return text + (f"; {without} files without a diff" if without else "")


def _diff_order(f: FileChange) -> tuple[int, int, str]:
    """Source changes before tests, docs and data; larger before smaller."""
    return (1 if LOW_SIGNAL.search(f.filename) else 0, -f.changes, f.filename)


def choose_hunks(files: list[FileChange], budget: int) -> tuple[list[FileChange], list[str]]:
    """Diffs that fit in `budget` tokens, largest source changes first (greedy: a smaller one may fill a gap
    a larger one left), and the names of the files whose diff was left out."""
    chosen: list[FileChange] = []
    left_out: list[str] = []
    for f in sorted((f for f in files if f.patch), key=_diff_order):
        cost = estimate_tokens(f.patch or "") + estimate_tokens(f.filename) + 4
        if cost <= budget:
            chosen.append(f)
            budget -= cost
        else:
            left_out.append(f.filename)
    return chosen, left_out


def engine_features(engine: ScoredPR, pr: PullRequest) -> dict[str, Any]:
    """The engine's result as the model sees it: facts plus a baseline judgement."""
    return {
        "number": pr.number, "title": pr.title, "labels": pr.labels,
        "importance": engine.importance, "insight": engine.insight, "modules": engine.modules,
        "type": engine.type, "breaking": engine.breaking, "breaking_reason": engine.breaking_reason,
        "risks": [{"kind": r.kind, "detail": r.detail} for r in engine.risks], "reasons": engine.reasons,
        "additions": pr.additions, "deletions": pr.deletions, "changed_files": pr.changed_files,
        "files_truncated": pr.files_truncated, "refs": engine.refs, "reverts": engine.reverts,
        "reviews": len(pr.reviews), "commits": pr.commits,
    }


def pr_prompt(pr: PullRequest, engine: ScoredPR, config: RepoConfig) -> PrPrompt:
    """The per-PR messages within config.llm.max_tokens_per_pr: description first cut, then diffs."""
    lang, limit = config.language, config.llm.max_tokens_per_pr
    body = strip_template(pr.body)
    body = truncate(body, int(limit * MAX_BODY_SHARE))
    listed = pr.files[:MAX_LISTED_FILES]
    values: dict[str, Any] = {
        "repo": config.repo, "number": pr.number, "author": pr.author,
        "merged_at": pr.merged_at.strftime("%Y-%m-%d %H:%M UTC"), "title": pr.title, "body": body,
        "files": listed, "files_unlisted": max(0, pr.changed_files - len(listed)),
        "changed_files": pr.changed_files, "additions": pr.additions, "deletions": pr.deletions,
        "features": engine_features(engine, pr),
    }
    system = render("pr_system", lang, repo=config.repo)
    # Measure the prompt without diffs (but with every file name that could be left out), then fill the rest.
    base = render("pr_user", lang, hunks=[], left_out=[f.filename for f in pr.files if f.patch], **values)
    room = limit - estimate_tokens(system) - estimate_tokens(base)
    hunks, left_out = choose_hunks(pr.files, max(0, room))
    user = render("pr_user", lang, hunks=[{"filename": f.filename, "patch": f.patch} for f in hunks],
                  left_out=left_out, **values)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    by_name = {f.filename: f for f in pr.files}
    return PrPrompt(messages, estimate_tokens(system) + estimate_tokens(user), left_out,
                    read=[f.filename for f in hunks], read_lines=sum(diff_lines(f) for f in hunks),
                    left_out_lines=sum(diff_lines(by_name[n]) for n in left_out))


def narrative_messages(repo: str, lang: str, title: str, facts: dict[str, Any]) -> list[dict[str, str]]:
    """The narrative's system and user messages for the period in facts["period"], which they name as the
    report does (本周 / 本月 / 本期, this week / this month / this period): a month is never "this week"."""
    now = period_words(lang, facts.get("period"))[0]
    return [{"role": "system", "content": render("narrative_system", lang, repo=repo, now=now)},
            {"role": "user", "content": render("narrative_user", lang, title=title, facts=facts, now=now)}]


def repair_message(lang: str, errors: list[str], only: list[str] | None = None) -> dict[str, str]:
    return {"role": "user", "content": render("repair", lang, errors=errors, only=only or [])}
