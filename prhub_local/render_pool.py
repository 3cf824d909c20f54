"""PR pages rendered in worker processes while `prhub run` publishes them: the local stack is one interpreter
(the embedded AWS, the pollers, the handlers) under one GIL, and a year's 1,649 PR pages, their PDFs above all,
were 78 % of its time on one core of two.

    with renderer(processes) as render: ...   render(jobs): a message's pages rendered by a spawned process pool,
                                              handed to PagesFunction in its Deps (Deps.render_pages); None: in turn

Only the rendering moves (render_pull_all: a PullPage in, its four files out); the page is built, and its files
published, by PagesFunction in this process, so the workers need no AWS. Spawned, not forked: the parent's threads
(moto's locks among them) would be copied mid-held into a forked child. A message's pages (at most
PAGES_PER_MESSAGE) are all that is in flight, so memory stays bounded. Lambda keeps rendering in turn.

The workers start only once a run has rendered, or has queued, more than IN_TURN_PAGES pages: two spawned
interpreters cost about 4.5 s of CPU and 250 MB before their first page, more than a week's or a month's pages take
in turn (a verl week: 9.6 s with them, 7.3 s without; its April: 26.6 s against 25.1 s, on two cores). A year's
1,649 pages start them at once: its first 300 in turn were 10 s of the run's one GIL.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from prhub.flow import pages
from prhub.site.render.pull import render_pull_all

from prhub_local import orphan

# What a worker runs, named by reference: a worker imports its module alone (the renderers, not this module's
# AWS-side imports), about 25 MB less a worker.
RENDER: Callable[..., dict[str, bytes]] = render_pull_all
IN_TURN_PAGES = 300  # pages rendered here before the workers are worth spawning: a busy month's, not a year's


def default_processes() -> int:
    """One per core, at most two: the parent keeps publishing (and the score workers scoring) beside them."""
    return max(1, min(2, os.cpu_count() or 1))


Render = Callable[[Iterable[pages.PageJob]], Iterator[dict[str, bytes]]]


@contextmanager
def renderer(processes: int | None = None, in_turn: int = IN_TURN_PAGES,
             backlog: Callable[[], int] = lambda: 0) -> Iterator[Render | None]:
    """What renders a message's pages (Deps.render_pages) until the block ends: `processes` spawned workers, once
    the pages rendered here, with those `backlog()` messages still queued hold (asked until the workers start), are
    more than `in_turn`; None (in turn) for no processes."""
    count = default_processes() if processes is None else processes
    if count < 1:
        yield None
        return
    lock = threading.Lock()  # the pages poller may run invocations side by side
    pool: ProcessPoolExecutor | None = None
    rendered = 0

    def workers(pages_now: int) -> ProcessPoolExecutor | None:
        nonlocal pool, rendered
        with lock:
            if pool is None and rendered + pages_now + backlog() * pages.PAGES_PER_MESSAGE > in_turn:
                pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=orphan.exit_with_parent)
            rendered += pages_now
            return pool

    def render(jobs: Iterable[pages.PageJob]) -> Iterator[dict[str, bytes]]:
        todo = list(jobs)  # a message's pages: at most PAGES_PER_MESSAGE
        running = workers(len(todo)) if todo else None
        if running is None:
            yield from pages.render_in_turn(todo)
            return
        done = 0
        try:
            for files in running.map(RENDER, *zip(*todo, strict=True)):
                yield files
                done += 1
        except BrokenProcessPool:  # a worker died (killed, out of memory): the pages still get rendered, here
            yield from pages.render_in_turn(todo[done:])

    try:
        yield render
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
