"""The engine's text over verl, cargo and trl (issue 23): how Chinese its zh prose is, which clauses it repeats
beside many PRs, how many checklist titles the translator gets right, and what the fact guard finds in it.

For each range (five verl weeks, a verl month, a cargo week, a trl week), the zh report is built as the
ReportFunction builds it without a model (bench.zh_share.build), and it prints:

- the Chinese share of its prose (bench.zh_share.share: CJK / (CJK + Latin letters), titles and URLs cut out);
  target at least 0.55 for each range;
- repeated clauses: clauses of six or more Chinese characters (numbers masked) in the summary, highlights, key
  changes and trends that stand beside three or more different PRs of one report; target 0 beside the fixed
  labels of FIXED (the words that name a section's figures, not what a PR does);
- the fact guard (prhub.model.factguard.check_narrative) over the engine's narrative: errors, target 0;
- the engine sentences that carry their evidence, of all of them.

And once: the translated-title checklist (bench/title_checklist.json, written before the translator was tuned):
right when the translation equals the team's Chinese up to spaces and the width of punctuation; target 54 of 60.

    python -m bench.zh_text
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench.zh_share import CJK, EXPORTS, build, export_path, export_rows, prose, share

DATA = EXPORTS
CHECKLIST = Path(__file__).with_name("title_checklist.json")
RANGES = [("verl-project/verl", "Asia/Shanghai", since, until) for since, until in (
    ("2026-05-04", "2026-05-10"), ("2026-05-18", "2026-05-24"), ("2026-06-15", "2026-06-21"),
    ("2026-07-13", "2026-07-19"), ("2026-08-03", "2026-08-09"), ("2026-07-01", "2026-07-31"))] + [
    ("rust-lang/cargo", "UTC", "2026-06-08", "2026-06-14"), ("huggingface/trl", "UTC", "2026-06-08", "2026-06-14")]
SHARE_TARGET = 0.55
CHECKLIST_TARGET = 54
# Fixed labels: words that introduce a figure or a section's part, the same in every report by design.
FIXED = ("平均重要度", "平均洞察度", "关键 PR 最多的模块是", "最值得先读的是", "需要留意的有", "平均每周", "平均每月")
CLAUSE = re.compile(r"[，。；：、（）()\n！？]|#\d+")


def repeated(report: dict[str, Any]) -> dict[str, set[int]]:
    """Clauses of 6+ Chinese characters in the summary, highlights, key changes and trends, with the PRs of the
    sentences they stand in, those beside 3 or more PRs and not a fixed label."""
    sentences: list[tuple[str, set[int]]] = []
    for paragraph in str(report.get("summary") or "").split("\n"):
        sentences.append((paragraph, {int(n) for n in re.findall(r"#(\d+)", paragraph)}))
    for section in ("highlights", "key_changes", "trend_notes"):
        for item in report.get(section) or []:
            text = item.get("text", "")
            cited = {int(n) for n in re.findall(r"#(\d+)", text)} or set(item.get("prs") or [])
            sentences.append((text, cited))
    beside: dict[str, set[int]] = {}
    for text, cited in sentences:
        for sentence in re.split(r"(?<=[。；;])|\n", text):
            # A clause stands beside the PR cited last before it in its sentence, else beside all the sentence's.
            here = {int(n) for n in re.findall(r"#(\d+)", sentence)} or cited
            current: set[int] = here
            for piece in re.split(r"(#\d+)", sentence):
                if re.fullmatch(r"#\d+", piece):
                    current = {int(piece[1:])}
                    continue
                for clause in CLAUSE.split(piece):
                    key = re.sub(r"\d+(?:\.\d+)?", "N", clause.strip())
                    if len(CJK.findall(key)) >= 6 and not any(label in key for label in FIXED):
                        beside.setdefault(key, set()).update(current)
    return {k: v for k, v in beside.items() if len(v) >= 3}


def evidence(report: dict[str, Any]) -> tuple[int, int]:
    """(engine sentences with evidence, engine sentences) over the items of the narrative's lists."""
    items = [i for s in ("highlights", "key_changes", "trend_notes", "risk_notes", "relation_notes")
             for i in report.get(s) or []]
    return sum(1 for i in items if i.get("evidence")), len(items)


def checklist() -> tuple[int, int, list[str]]:
    """(right, total, the wrong ones) of the translated-title checklist."""
    from prhub.engine import translate
    from prhub.engine.scoring import parse_title

    wanted = json.loads(CHECKLIST.read_text(encoding="utf-8"))["titles"]
    titles: dict[tuple[str, int], str] = {}
    for repo in {w["repo"] for w in wanted}:
        path = DATA / repo / "pulls.jsonl"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                titles[(repo, row["number"])] = row["title"]
    wrong = []
    for w in wanted:
        title = titles.get((w["repo"], w["number"]))
        got = translate.title(title, parse_title(title)[1] or "") if title else ""
        if _norm(got) != _norm(w["zh"]):
            wrong.append(f"{w['repo']}#{w['number']}: {got!r} (judged right: {w['zh']!r})")
    return len(wanted) - len(wrong), len(wanted), wrong


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).translate(str.maketrans("，；：（）", ",;:()"))


def run() -> dict[str, Any]:
    from prhub.model.factguard import check_narrative

    table, figures = [], {}
    ok = True
    for repo, tz, since, until in RANGES:
        rows = export_rows(repo)
        if rows is None:
            table.append([f"{repo} {since}..{until}", "skipped", f"{export_path(repo)} is missing"])
            continue
        report = build(rows, since, until, repo, tz)
        value, again, errors = share(prose(report)), repeated(report), check_narrative(report)
        cited, sentences = evidence(report)
        good = value >= SHARE_TARGET and not again and not errors and cited == sentences
        ok &= good
        figures[f"{repo} {since}..{until}"] = {"prs": len(report["prs"]), "share": round(value, 3),
                                               "repeated": {k: sorted(v) for k, v in again.items()},
                                               "guard_errors": errors[:5], "evidence": [cited, sentences]}
        table.append([f"{repo} {since}..{until} ({len(report['prs'])} PRs)", f"zh {value:.1%}",
                      f"repeated {len(again)}", f"guard {len(errors)}", f"evidence {cited}/{sentences}",
                      "ok" if good else "below target"])
    right, total, wrong = checklist()
    ok &= right >= CHECKLIST_TARGET
    table.append([f"title checklist {right}/{total}", "ok" if right >= CHECKLIST_TARGET else "below target"])
    table.append([f"fixed labels: {'、'.join(FIXED)}"])
    return {"rows": table, "figures": figures, "checklist_wrong": wrong, "ok": ok}


if __name__ == "__main__":
    result = run()
    for row in result["rows"]:
        print("  ".join(str(c) for c in row))
    for name, figure in result["figures"].items():
        for clause, prs in figure["repeated"].items():
            print(f"  repeated in {name}: {clause} beside {prs[:6]}")
        for error in figure["guard_errors"]:
            print(f"  guard in {name}: {error}")
    for line in result["checklist_wrong"]:
        print(f"  checklist: {line}")
