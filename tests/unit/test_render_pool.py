"""prhub_local.render_pool: PR pages rendered in spawned worker processes are the pages rendered in turn."""
from __future__ import annotations

import multiprocessing
import os

from prhub.flow import pages
from prhub.site import pulls

from prhub_local import render_pool
from tests.golden.cases import load
from tests.unit.render_support import pdf_text

SLUG = "2026-05-04-to-2026-05-10"


def _jobs() -> list[pages.PageJob]:
    report = load("zh-week")
    return [(pulls.pull_page(report, SLUG, pr["number"]), "../../", "") for pr in report["prs"][:3]]


def _pid(*_: object) -> int:
    return os.getpid()


def test_pool_renders_the_same_pages_in_order_in_other_processes(tmp_path, monkeypatch):
    jobs = _jobs()
    in_turn = list(pages.render_in_turn(jobs))
    with render_pool.renderer(1, in_turn=0) as render:
        assert render is not None
        pooled = list(render(iter(jobs)))
        # the work runs in a spawned worker, not here
        monkeypatch.setattr(render_pool, "RENDER", _pid)
        [pid] = set(render(iter(jobs)))
    assert pid != os.getpid()
    assert len(pooled) == len(jobs)
    for mine, theirs, (page, _, _) in zip(in_turn, pooled, jobs, strict=True):
        assert {k: v for k, v in theirs.items() if k != "report.pdf"} == \
            {k: v for k, v in mine.items() if k != "report.pdf"}
        assert str(page["pr"]["number"]) in pdf_text(theirs["report.pdf"], tmp_path)


def _die(*_: object) -> dict[str, bytes]:
    os._exit(1)


def test_pages_are_rendered_here_when_a_worker_dies(monkeypatch):
    jobs = _jobs()
    with render_pool.renderer(1, in_turn=0) as render:
        monkeypatch.setattr(render_pool, "RENDER", _die)
        rendered = list(render(iter(jobs)))
    assert [files["report.md"] for files in rendered] == \
        [files["report.md"] for files in pages.render_in_turn(jobs)]


def test_a_message_without_pages_renders_nothing():
    with render_pool.renderer(1, in_turn=0) as render:
        assert list(render(iter(()))) == []


def test_a_run_spawns_no_renderer_until_its_pages_outnumber_what_is_rendered_here(monkeypatch):
    jobs = _jobs()  # 3 pages a message
    with render_pool.renderer(1, in_turn=5) as render:
        monkeypatch.setattr(pages, "render_in_turn", lambda todo: iter([os.getpid()] * len(list(todo))))
        monkeypatch.setattr(render_pool, "RENDER", _pid)
        here = [*render(iter(jobs)), *render(iter(jobs[:2]))]  # 5 pages: still here
        assert here == [os.getpid()] * 5
        assert not multiprocessing.active_children(), "no renderer was spawned for them"
        [pid] = set(render(iter(jobs)))  # the sixth page on: in the workers, for the rest of the run
        [again] = set(render(iter(jobs[:1])))
    assert pid == again != os.getpid()
    assert not multiprocessing.active_children(), "the workers are shut down with the block"


def test_a_run_whose_queue_holds_more_pages_than_are_rendered_here_spawns_the_renderers_at_once(monkeypatch):
    jobs = _jobs()  # 3 pages: alone, rendered here (in_turn 5)
    queued = [1]  # messages still queued: one more holds up to PAGES_PER_MESSAGE (10) pages
    with render_pool.renderer(1, in_turn=5, backlog=lambda: queued[0]) as render:
        monkeypatch.setattr(render_pool, "RENDER", _pid)
        [pid] = set(render(iter(jobs)))
    assert pid != os.getpid()
    with render_pool.renderer(1, in_turn=20, backlog=lambda: queued[0]) as render:  # 3 + 10 of 20: still here
        monkeypatch.setattr(pages, "render_in_turn", lambda todo: iter([os.getpid()] * len(list(todo))))
        assert set(render(iter(jobs))) == {os.getpid()}


def test_no_processes_renders_in_turn():
    with render_pool.renderer(0) as render:
        assert render is None  # Deps.render_pages None: pages_message renders in turn


def test_a_renderer_exits_when_its_run_is_killed():
    import subprocess
    import sys
    import time

    # a parent that starts its renderers, prints their ids, then dies without shutting them down
    script = ("import os\nfrom prhub_local import render_pool\n"
              "from prhub.flow import pages\nfrom tests.unit.test_render_pool import _jobs\n"
              "pool = render_pool.renderer(1, in_turn=0)\nrender = pool.__enter__()\nlist(render(_jobs()))\n"
              "kids = [d for d in os.listdir('/proc') if d.isdigit() and "
              "open(f'/proc/{d}/stat').read().rsplit(')', 1)[1].split()[1] == str(os.getpid())]\n"
              "print(*kids, flush=True)\n"
              "os._exit(9)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    workers = [int(pid) for pid in proc.stdout.split()]
    assert workers, proc.stderr
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in workers):
        time.sleep(0.2)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in workers)
