"""The report's path stays short (issue 49): from ReportFunction's handler, compose -> publish -> announce reaches
the renderers in few stops and few climbs back to a higher layer, counted by scripts/report_path.py (a static walk
of the work tree)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("report_path", ROOT / "scripts" / "report_path.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["report_path"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_the_report_reaches_its_renderers_through_three_steps_in_few_stops() -> None:
    path = script()
    done = path.walk("functions/report/app.py", None)
    stops = done.path(setup=False)
    at = path.renderers_at(stops)
    names = [s.name for s in stops[:at]]
    # the three steps, in their order, with the pure compose a stop of the domain the walk does not enter
    steps = ["prhub.flow.publish.publish_run", "prhub.report.results.compose", "prhub.flow.publish.publish",
             "prhub.site.render.render_all"]
    assert [n for n in names if n in steps] == steps
    assert "prhub.flow.announce.announce" not in names  # the announcement comes after the site
    # 21 stops and 3 climbs when measured (2026-12-06, the CHANGELOG's and the watch list's judgements read in
    # prhub.sources.judgements; before: 29 and 7, and 37 and 11 before issue 49); a little room for growth
    assert at is not None and at <= 23, at
    assert done.climbs(stops[:at]) < 10


def test_the_walk_reads_the_layers_ladder_from_the_layering_test() -> None:
    done = script().walk("functions/report/app.py", None)
    rank = done.walker.rank
    assert rank["core"] < rank["engine"] < rank["report"] < rank["site"] < rank["notify"] < rank["flow"]
    assert rank["functions"] == max(rank.values())
    assert 5 <= len(done.setup) < len(done.stops)  # Deps.from_env's stops, counted apart
