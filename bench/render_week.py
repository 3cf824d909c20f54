"""Rendering one real week: time and size of report.md, index.html and report.pdf for verl's 2026-05-04..10.

The report is built as the ReportFunction builds it (engine scores, compose.report with
the previous four weeks as history and narrator.model_narrative, the engine's text without a model), from the verl
export in ../shared/data; then each rendering runs REPEAT times. Reported: median wall
and CPU seconds per rendering, output sizes, PDF pages and the embedded font (pdffonts).
Target (issue 6): a 34-PR week's PDF in about a second, and small.

    python -m bench.render_week
"""
from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
SINCE, UNTIL, TZ = "2026-05-04", "2026-05-10", "Asia/Shanghai"
REPEAT = 3


def build_week(lang: str = "zh") -> dict[str, Any]:
    """verl's week as report.json (engine scoring, no model)."""
    return scored_week(lang)[0]


def scored_week(lang: str = "zh") -> tuple[dict[str, Any], list[Any]]:
    """verl's week as report.json in `lang`, and its ScoredPRs (what the PR pages read besides the report)."""
    from prhub.core.config import RepoConfig
    from prhub.core.period import Period
    from prhub.engine.scoring import score_pull
    from prhub.model import narrator
    from prhub.report import compose

    config = RepoConfig("verl-project/verl", tz=TZ, scorer="heuristic", language=lang)
    period = Period.parse(SINCE, UNTIL, TZ)
    rows = _rows()
    week = [pr for pr in rows if period.contains(pr.merged_at)]
    scored = [score_pull(pr, config) for pr in week]
    scorer = {"kind": "heuristic", "model": None, "prompt_version": "bench"}
    report = compose.report(scored, [], period, config, week_history(rows), "2026-05-11T00:00:00Z", scorer,
                            narrator=lambda draft: narrator.model_narrative(draft, config))
    return report, scored


def _rows() -> list[Any]:
    from prhub.core.models import PullRequest

    return [PullRequest.from_export(json.loads(line)) for line in DATA.read_text(encoding="utf-8").splitlines()]


def week_history(rows: list[Any] | None = None) -> Any:
    """The History the week's run holds: the export's four weeks before it, as History.of reads them."""
    from prhub.core.history import History
    from prhub.core.period import Period

    period = Period.parse(SINCE, UNTIL, TZ)
    start = period.start_utc - timedelta(days=28)
    entries = [{**pr.ref.to_dict()} for pr in rows or _rows() if start <= pr.merged_at < period.end_utc]
    return History.of(entries, period)


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def run() -> dict[str, Any]:
    if not DATA.is_file():
        return {"rows": [["render week", "skipped", f"{DATA} is missing"]], "skipped": True}
    from prhub.site.render.html import render_html
    from prhub.site.render.markdown import render_markdown
    from prhub.site.render.pdf import render_pdf

    report = build_week()
    renderers = {"report.md": lambda: render_markdown(report).encode(),
                 "index.html": lambda: render_html(report).encode(), "report.pdf": lambda: render_pdf(report)}
    figures: dict[str, Any] = {"prs": len(report["prs"]), "period": [SINCE, UNTIL]}
    rows = []
    for name, fn in renderers.items():
        runs = [_timed(fn) for _ in range(REPEAT)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        size = len(runs[-1][2])
        figures[name] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "bytes": size}
        rows.append([f"render {name} ({len(report['prs'])} PRs)", f"{wall:.2f} s",
                     f"cpu {cpu:.2f} s, {size / 1024:.0f} KiB, median of {REPEAT}"])
        if name == "report.pdf":
            pdf = runs[-1][2]
    if shutil.which("pdfinfo") and shutil.which("pdffonts"):
        with tempfile.NamedTemporaryFile(suffix=".pdf") as tmp:
            tmp.write(pdf)
            tmp.flush()
            info = subprocess.run(["pdfinfo", tmp.name], capture_output=True, text=True).stdout
            fonts = subprocess.run(["pdffonts", tmp.name], capture_output=True, text=True).stdout.splitlines()[2:]
        pages = next((line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")), "?")
        figures["pdf_pages"] = pages
        figures["pdf_fonts"] = [" ".join(f.split()[:1] + f.split()[-5:-2]) for f in fonts]
        rows.append(["render report.pdf pages / fonts", pages, "; ".join(figures["pdf_fonts"]) + " (emb sub uni)"])
    return {"rows": rows, **figures}


def main() -> None:
    result = run()
    for name, value, note in result["rows"]:
        print(f"{name:<36} {value:>10}  {note}")


if __name__ == "__main__":
    main()
