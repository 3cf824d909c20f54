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


def test_the_site_is_copied_from_a_saved_generation_file_by_file_and_never_linked(tmp_path):
    # GIVEN a saved bucket's files, and a site folder holding an older copy of one of them and a file of its own
    source, site = tmp_path / "gen" / "buckets" / "SiteBucket", tmp_path / "site"
    _tree(source)
    (source / "a" / "b" / "z").write_bytes("周报".encode())
    (site / "a" / "b").mkdir(parents=True)
    (site / "a" / "b" / "z").write_bytes(b"old")
    (site / "mine.txt").write_bytes(b"kept")
    # WHEN the site is copied from them
    assert state.copy_files(source, site) == 3
    # THEN every file is there with the saved bytes, the old one replaced, the folder's own file kept
    assert (site / "x.json").read_bytes() == b"1" and (site / "a" / "y").read_bytes() == b"1"
    assert (site / "a" / "b" / "z").read_bytes() == "周报".encode()
    assert (site / "mine.txt").read_bytes() == b"kept"
    # and editing the site never reaches the state: copies, not hard links
    (site / "x.json").write_bytes(b"edited")
    assert (source / "x.json").read_bytes() == b"1" and os.stat(source / "x.json").st_nlink == 1


def test_copying_the_site_again_skips_what_it_copied_and_replaces_what_changed_on_either_side(tmp_path):
    # GIVEN a site folder copied from a saved bucket
    source, site = tmp_path / "gen", tmp_path / "site"
    _tree(source)
    assert state.copy_files(source, site) == 3
    # WHEN it is copied again unchanged: nothing is copied
    assert state.copy_files(source, site) == 0
    # WHEN the save rewrote one file (same size, a new write) and a person edited another in the site folder
    (source / "a" / "y").write_bytes(b"2")
    os.utime(source / "a" / "y", ns=(0, os.stat(source / "a" / "y").st_mtime_ns + 1_000_000))
    (site / "x.json").write_bytes(b"edited")
    # THEN exactly those two are copied, and the site holds the saved bytes again
    assert state.copy_files(source, site) == 2
    assert (site / "a" / "y").read_bytes() == b"2" and (site / "x.json").read_bytes() == b"1"
    assert state.copy_files(source, site) == 0


def test_a_saved_bucket_keeps_keys_that_would_leave_its_folder_out(tmp_path):
    keys = ["ok/index.html", "../escape", "a/../../escape", "/abs", "./x", "a//b", "dir/"]
    assert [k for k in keys if state._safe_key(k)] == ["ok/index.html"]
