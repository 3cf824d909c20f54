"""A saved bucket as packs and a manifest (prhub_local.packs): what changed is appended, what did not is linked,
mostly dead packs are repacked, and the site folder is written from them as files."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from prhub_local import packs


def objects(bodies: dict[str, bytes]):
    """(key, ETag, body) as the embedded S3 lists them: an MD5 ETag, the body when asked."""
    return iter([(k, f'"{hashlib.md5(b).hexdigest()}"', lambda b=b: b) for k, b in sorted(bodies.items())])


def saved(folder: Path) -> dict[str, bytes]:
    return dict(packs.bodies(folder, "SiteBucket"))


def save(folder: Path, bodies: dict[str, bytes], previous: Path | None = None) -> Path:
    packs.save(objects(bodies), folder, "SiteBucket", previous, f"{folder.parent.name}.pack")
    return folder


def pack_files(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in (folder / "SiteBucket.packs").iterdir()}


BIG = b"<feed>" + b"x" * 4000 + b"</feed>"


def test_a_save_appends_what_changed_and_links_the_pack_it_still_reads(tmp_path):
    # GIVEN a bucket saved once
    a = save(tmp_path / "gen-a" / "buckets", {"o/feed.xml": BIG, "o/index.html": b"<p>A</p>", "o/old.md": b"gone"})
    # WHEN the next save has one object changed, one removed and the big one unchanged
    b = save(tmp_path / "gen-b" / "buckets", {"o/feed.xml": BIG, "o/index.html": b"<p>B</p>"}, previous=a)
    # THEN it reads back exactly, and the first generation reads back as it was
    assert saved(b) == {"o/feed.xml": BIG, "o/index.html": b"<p>B</p>"}
    assert saved(a) == {"o/feed.xml": BIG, "o/index.html": b"<p>A</p>", "o/old.md": b"gone"}
    # AND the old pack, still mostly read, is the same file in both (a hard link); the new one holds only the change
    first, second = pack_files(a), pack_files(b)
    assert first["gen-a.pack"] == second["gen-a.pack"]
    assert (b / "SiteBucket.packs" / "gen-b.pack").read_bytes() == b"<p>B</p>"
    manifest = {e["key"]: e for e in packs.entries(b, "SiteBucket")}
    assert manifest["o/feed.xml"]["pack"] == "gen-a.pack" and manifest["o/index.html"]["pack"] == "gen-b.pack"


def test_a_pack_mostly_dead_is_repacked_keeping_its_objects_mtimes(tmp_path):
    # GIVEN a save whose pack is mostly the big object, then a save without it
    a = save(tmp_path / "gen-a" / "buckets", {"o/feed.xml": BIG, "o/index.html": b"<p>A</p>"})
    mtime = {e["key"]: e["mtime"] for e in packs.entries(a, "SiteBucket")}["o/index.html"]
    b = save(tmp_path / "gen-b" / "buckets", {"o/index.html": b"<p>A</p>"}, previous=a)
    # THEN the old pack is not kept: its one live object moved into the new pack, with its first mtime
    assert set(pack_files(b)) == {"gen-b.pack"}
    assert saved(b) == {"o/index.html": b"<p>A</p>"}
    [entry] = packs.entries(b, "SiteBucket")
    assert entry["pack"] == "gen-b.pack" and entry["mtime"] == mtime


def test_a_bucket_saved_again_unchanged_writes_an_empty_pack_and_links_the_rest(tmp_path):
    bodies = {"a.json": b"1" * 100, "b/c.html": b"2" * 100}
    a = save(tmp_path / "gen-a" / "buckets", bodies)
    b = save(tmp_path / "gen-b" / "buckets", bodies, previous=a)
    assert saved(b) == bodies and (b / "SiteBucket.packs" / "gen-b.pack").stat().st_size == 0
    assert pack_files(b)["gen-a.pack"] == pack_files(a)["gen-a.pack"]


def test_keys_that_would_leave_the_folder_are_never_saved_nor_written(tmp_path):
    keys = ["ok/index.html", "../escape", "a/../../escape", "/abs", "./x", "a//b", "dir/"]
    assert [k for k in keys if packs.safe_key(k)] == ["ok/index.html"]
    folder = save(tmp_path / "gen" / "buckets", {k: b"x" for k in keys})
    assert [e["key"] for e in packs.entries(folder, "SiteBucket")] == ["ok/index.html"]
    # AND a damaged manifest naming one is skipped when the site is written
    manifest = packs.manifest_path(folder, "SiteBucket")
    [line] = manifest.read_text().splitlines()
    manifest.write_text(line + "\n" + json.dumps({**json.loads(line), "key": "../escape"}) + "\n")
    site = tmp_path / "deep" / "site"
    assert packs.copy_out(folder, "SiteBucket", site) == 1
    assert not (tmp_path / "deep" / "escape").exists() and (site / "ok" / "index.html").read_bytes() == b"x"


def test_the_site_is_written_as_files_never_links_and_the_folder_keeps_its_own(tmp_path):
    # GIVEN a saved bucket, and a site folder with an older copy of one object and a file of its own
    folder = save(tmp_path / "gen" / "buckets", {"x.json": b"1", "a/y": b"1", "a/b/z": "周报".encode()})
    site = tmp_path / "site"
    (site / "a" / "b").mkdir(parents=True)
    (site / "a" / "b" / "z").write_bytes(b"old")
    (site / "mine.txt").write_bytes(b"kept")
    # WHEN the site is written from it
    assert packs.copy_out(folder, "SiteBucket", site) == 3
    # THEN every object is a file with its bytes, the old one replaced, the folder's own file kept
    assert (site / "x.json").read_bytes() == b"1" and (site / "a" / "y").read_bytes() == b"1"
    assert (site / "a" / "b" / "z").read_bytes() == "周报".encode() and (site / "mine.txt").read_bytes() == b"kept"
    assert os.stat(site / "x.json").st_nlink == 1


def test_writing_the_site_again_skips_what_it_wrote_and_replaces_what_changed_on_either_side(tmp_path):
    # GIVEN a site folder written from a save
    a = save(tmp_path / "gen-a" / "buckets", {"x.json": b"1", "a/y": b"1", "a/z": b"1"})
    site = tmp_path / "site"
    assert packs.copy_out(a, "SiteBucket", site) == 3
    # WHEN it is written again unchanged: nothing is written
    assert packs.copy_out(a, "SiteBucket", site) == 0
    # WHEN the next save changed one object (same size) and a person edited another in the site folder
    b = save(tmp_path / "gen-b" / "buckets", {"x.json": b"1", "a/y": b"2", "a/z": b"1"}, previous=a)
    (site / "x.json").write_bytes(b"edited")
    # THEN exactly those two are written, and the site holds the saved bytes again
    assert packs.copy_out(b, "SiteBucket", site) == 2
    assert (site / "a" / "y").read_bytes() == b"2" and (site / "x.json").read_bytes() == b"1"
    assert packs.copy_out(b, "SiteBucket", site) == 0


def test_a_missing_or_cut_pack_is_named_as_damage_not_a_traceback(tmp_path):
    import pytest
    from prhub.core.errors import PrhubError

    folder = save(tmp_path / "gen" / "buckets", {"a.json": b"1" * 100, "b.html": b"2" * 100})
    pack = folder / "SiteBucket.packs" / "gen.pack"
    pack.write_bytes(pack.read_bytes()[:150])  # cut inside the second body
    with pytest.raises(PrhubError, match="damaged: .*gen.pack ends before 'b.html'"):
        saved(folder)
    pack.unlink()
    with pytest.raises(PrhubError, match="damaged: .*gen.pack is missing"):
        saved(folder)
    with pytest.raises(PrhubError, match="is missing"):  # a save over it says the same
        save(tmp_path / "next" / "buckets", {"a.json": b"1" * 100}, previous=folder)


def test_the_site_is_never_written_through_a_link_that_leaves_the_folder(tmp_path, caplog):
    # GIVEN a site folder whose `acme` is a link to a folder elsewhere, and whose feed.xml links to a file elsewhere
    folder = save(tmp_path / "gen" / "buckets", {"index.html": b"home", "feed.xml": b"<feed/>",
                                                  "acme/rocket/pull/1/index.html": b"pr 1",
                                                  "acme/rocket/pull/2/index.html": b"pr 2"})
    outside = tmp_path / "outside"
    (outside / "rocket").mkdir(parents=True)
    (outside / "theirs.xml").write_bytes(b"theirs")
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme").symlink_to(outside, target_is_directory=True)
    (site / "feed.xml").symlink_to(outside / "theirs.xml")
    # WHEN the site is written
    written = packs.copy_out(folder, "SiteBucket", site)
    # THEN nothing was written outside it: the PR folders under the link are left out, and said so
    assert sorted(str(p.relative_to(outside)) for p in outside.rglob("*")) == ["rocket", "theirs.xml"]
    assert (outside / "theirs.xml").read_bytes() == b"theirs"
    assert "2 site file(s) not written" in caplog.text and str(site / "acme") in caplog.text
    # AND the files inside are written, the linked file replaced by a file of the site's own
    assert written == 2 and (site / "index.html").read_bytes() == b"home"
    assert not (site / "feed.xml").is_symlink() and (site / "feed.xml").read_bytes() == b"<feed/>"


def test_a_site_downloaded_from_a_bucket_is_never_written_through_a_link_out_of_the_folder(tmp_path):
    from prhub_local.state import download_bucket

    class Bucket:  # S3's listing and reads (prhub invoke --out downloads the bucket of an endpoint of the caller's)
        bodies = {"index.html": b"home", "acme/rocket/pull/1/index.html": b"pr 1"}

        def get_paginator(self, name):
            assert name == "list_objects_v2"
            return self

        def paginate(self, Bucket):  # noqa: N803 - boto3's name
            return [{"Contents": [{"Key": k, "ETag": '"e"'} for k in self.bodies]}]

        def get_object(self, Bucket, Key):  # noqa: N803
            import io
            return {"Body": io.BytesIO(self.bodies[Key])}

    outside, site = tmp_path / "outside", tmp_path / "site"
    outside.mkdir()
    site.mkdir()
    (site / "acme").symlink_to(outside, target_is_directory=True)
    download_bucket(Bucket(), "prhub-site-bucket-that-moto-does-not-hold", site)
    assert list(outside.iterdir()) == [] and (site / "index.html").read_bytes() == b"home"
