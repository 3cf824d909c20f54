"""A state save makes its generation durable with one syncfs, not an fsync per file (prhub_local.state)."""
from __future__ import annotations

import os

from prhub_local import state


def _tree(root):
    (root / "a" / "b").mkdir(parents=True)
    for path in (root / "x.json", root / "a" / "y", root / "a" / "b" / "z"):
        path.write_bytes(b"1")


def test_one_syncfs_for_the_whole_generation(tmp_path, monkeypatch):
    _tree(tmp_path)
    calls, fsyncs = [], []
    monkeypatch.setattr(state, "_syncfs", lambda: lambda fd: calls.append(fd) or 0)
    monkeypatch.setattr(os, "fsync", fsyncs.append)
    state._sync_tree(tmp_path)
    assert len(calls) == 1 and fsyncs == []


def test_without_syncfs_every_file_and_folder_is_fsynced(tmp_path, monkeypatch):
    _tree(tmp_path)
    fsyncs = []
    monkeypatch.setattr(state, "_syncfs", lambda: None)
    monkeypatch.setattr(os, "fsync", fsyncs.append)
    state._sync_tree(tmp_path)
    assert len(fsyncs) == 3 + 3  # three files, three folders


def test_a_failing_syncfs_falls_back_to_fsyncs(tmp_path, monkeypatch):
    _tree(tmp_path)
    fsyncs = []
    monkeypatch.setattr(state, "_syncfs", lambda: lambda fd: -1)
    monkeypatch.setattr(os, "fsync", fsyncs.append)
    state._sync_tree(tmp_path)
    assert len(fsyncs) == 6


def test_syncfs_is_found_on_linux():
    assert state._syncfs() is not None or os.uname().sysname != "Linux"
