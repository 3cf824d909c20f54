"""A page renderer (prhub_local/render_pool.py) ends when its `prhub run` does: a run killed outright (SIGKILL,
a test's kill) never shuts its pool down, and its idle workers would wait on their queue for good."""
from __future__ import annotations

import os
import threading
import time


def _watch(parent: int, every: float) -> None:
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(0)  # re-parented: the run is gone, and no page of it is left to render


def exit_with_parent(every: float = 1.0) -> None:
    """In a worker: exit within `every` seconds of the parent's death (a daemon thread polling getppid)."""
    threading.Thread(target=_watch, args=(os.getppid(), every), daemon=True, name="exit-with-parent").start()
