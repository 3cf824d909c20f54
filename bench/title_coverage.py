"""How many PR titles the rule-based translator carries whole, and which English words make the rest fall back.

A zh report says a PR's title in Chinese only when prhub.engine.translate.title leaves no English grammar or
known verb in it (translate.leftover(...) == 0, the test gist.doing applies); otherwise the brief falls back to
a facts-only headline ("修复：涉及 `seq_len`"). Over every title of the three exports
(../shared/data/{verl-project-verl,rust-lang-cargo,huggingface-trl}/pulls.jsonl), the title prepared as the
headline prepares it (tags, conventional prefix and "(#N)" removed; the type as the scorer reads it from the
title alone), this prints:

- per repository: titles, the share carried (leftover == 0), and the share that is also free of the prose words
  headline.english_prose refuses (what the brief's headline itself accepts);
- HELD OUT apart: the PRs merged in verl 2026-07-27..2026-08-02 (Asia/Shanghai) and trl 2026-07-06..2026-07-12
  (UTC), the held-out weeks of bench/brief_panel.json. They are left out of the per-repository rows above and of
  the word list: never choose a glossary word or a rule by looking at them;
- the most frequent English words left in the translations that fall back (tuning titles only, all three
  repositories), each with how many fallen titles hold it and one such title: "+word" is grammar or a verb the
  translator met where its rules did not expect one (a structure it does not parse); a bare word is one the
  glossary does not know (a word to add). Terms the glossary keeps in English (rollout, token) are not listed.

    python -m bench.title_coverage [--top N] [--json FILE] [--examples WORD]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from bench.zh_share import export_rows

REPOS = ("verl-project/verl", "rust-lang/cargo", "huggingface/trl")
# (repo, time zone, first day, last day): the held-out weeks of bench/brief_panel.json.
HELD_OUT = (("verl-project/verl", "Asia/Shanghai", "2026-07-27", "2026-08-02"),
            ("huggingface/trl", "UTC", "2026-07-06", "2026-07-12"))
WORD = re.compile(r"(?<![\w`'/.-])[A-Za-z][a-z'-]*(?![\w`/.-])")


def held_out(repo: str, merged_at: datetime) -> bool:
    """Whether a PR merged at `merged_at` falls in one of `repo`'s held-out weeks (in that week's time zone)."""
    for name, tz, since, until in HELD_OUT:
        if name == repo and date.fromisoformat(since) <= merged_at.astimezone(ZoneInfo(tz)).date() <= \
                date.fromisoformat(until):
            return True
    return False


def prepared(title: str) -> tuple[str, str]:
    """(description, kind) as headline._action_zh hands a title to gist.doing."""
    from prhub.engine.scoring import PR_SUFFIX, _type, parse_title

    description, declared, _, _ = parse_title(title)
    description = PR_SUFFIX.sub("", description or title)
    return description, _type(description, declared, [])


def culprits(said: str) -> list[str]:
    """The English words of a fallen translation that make it fall: grammar and verbs (lexicon.GRAMMAR, a known
    verb), marked "+", and words the glossary does not know; not the terms it keeps in English (rollout, token)."""
    from prhub.engine import lexicon

    out = []
    for word in WORD.findall(re.sub(r"`[^`]*`|“[^”]*”", "", said)):
        w = word.lower()
        if w in lexicon.GRAMMAR or lexicon.verb([w]) is not None:
            out.append(f"+{w}")
        elif lexicon.known([w], 0, False)[0] is None:
            out.append(w)
    return list(dict.fromkeys(out))


def measure(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """Carried shares and left-over words of (repo, title) rows."""
    from prhub.engine import translate
    from prhub.engine.gist import REVERTED
    from prhub.engine.headline import english_prose

    carried = clean = 0
    words: Counter[str] = Counter()
    example: dict[str, str] = {}
    for _, raw in rows:
        description, kind = prepared(raw)
        if REVERTED.match(description.strip()):  # a revert quotes the reverted title by design
            carried += 1
            clean += 1
            continue
        said = translate.title(description, kind)
        if said and not translate.leftover(said):
            carried += 1
            clean += not english_prose(said)
            continue
        for word in culprits(said):
            words[word] += 1
            example.setdefault(word, f"{raw}  →  {said}")
    n = len(rows)
    return {"titles": n, "carried": carried / n if n else 0.0, "clean": clean / n if n else 0.0,
            "words": words, "example": example}


def collect() -> dict[str, list[tuple[str, str]]]:
    """Titles per repository (tuning) and of the held-out weeks, the PRs of each export."""
    out: dict[str, list[tuple[str, str]]] = {}
    for repo in REPOS:
        rows = export_rows(repo)
        if rows is None:
            continue
        for pr in rows:
            key = f"HELD OUT {repo}" if held_out(repo, pr.merged_at) else repo
            out.setdefault(key, []).append((repo, pr.title))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=40, help="how many left-over words to list")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--examples", help="list every fallen tuning title that leaves this word")
    args = parser.parse_args(argv)
    groups = collect()
    if not groups:
        print("no export found under ../shared/data", file=sys.stderr)
        return 1
    tuning = [row for key, rows in groups.items() if not key.startswith("HELD") for row in rows]
    if args.examples:
        from prhub.engine import translate

        for _, raw in tuning:
            said = translate.title(*prepared(raw))
            if translate.leftover(said) and args.examples.lstrip("+") in culprits(said) + [
                    c.lstrip("+") for c in culprits(said)]:
                print(f"{raw}  →  {said}")
        return 0
    figures: dict[str, Any] = {}
    print(f"{'titles':<36}{'n':>6}{'carried':>10}{'clean':>8}")
    for key in [*REPOS, "all tuning", *(f"HELD OUT {r}" for r in REPOS)]:
        rows = tuning if key == "all tuning" else groups.get(key)
        if not rows:
            continue
        m = measure(rows)
        figures[key] = {"titles": m["titles"], "carried": round(m["carried"], 4), "clean": round(m["clean"], 4)}
        print(f"{key:<36}{m['titles']:>6}{m['carried']:>10.1%}{m['clean']:>8.1%}")
    m = measure(tuning)  # the word list: tuning titles only, never the held-out weeks
    print("\nWords left in fallen titles (tuning titles of all three repositories; held-out weeks excluded)")
    for word, count in m["words"].most_common(args.top):
        print(f"{count:>5}  {word:<18}{m['example'][word][:150]}")
    figures["words"] = m["words"].most_common(args.top)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
