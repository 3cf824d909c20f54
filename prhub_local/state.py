"""The embedded AWS's state between runs: tables as JSON lines, buckets as packs (prhub_local.packs), queued messages.

`prhub run` and `prhub invoke` restore a `--state` directory into a fresh
stack at start and save it at the end, so the score cache, the run history
and the site accumulate as they do in a deployed stack. The directory:

    lock              flock'ed by the run using the state; names its holder
    CURRENT           the name of the last complete generation (replaced atomically)
    gen-.../          a complete generation: tables/, buckets/ (manifests and packs), queues/ (every message,
                      with when it is due)
    journal.jsonl     score-cache items written since that generation (header: its name)

A save writes a fresh generation beside the current one, fsyncs it, then
switches CURRENT with `os.replace`; only then are the old generation and the
journal removed. Killed at any instant, the directory holds the old or the new
state, complete, and what a killed save left behind is removed at the next
start. While a run works, the score cache (what paid model calls bought) is
appended to the journal every few seconds, so a killed run keeps it.
"""
from __future__ import annotations

import base64
import contextlib
import ctypes
import errno
import fcntl
import functools
import json
import math
import os
import shlex
import shutil
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from prhub.cloud import cache
from prhub.cloud.queue import MAX_DELAY
from prhub.core.errors import InputError, PrhubError
from prhub.notify import ledger
from prhub.site.publish import TYPES

from prhub_local import packs
from prhub_local.embedded import client, queued, restore_items, restore_objects, stored, table_items
from prhub_local.template import Stack

CURRENT, LOCK, JOURNAL = "CURRENT", "lock", "journal.jsonl"
JOURNALED = ("CacheTable",)  # what a killed run keeps: scores and narratives the model was paid for. A killed
#                              run's own runs/results are left out: restored, its open run would be swept.
# The delivery ledger is journaled as it is written (prhub.notify.ledger.writes), before the send it allows.
LEGACY = ("tables", "buckets", "queues")  # the layout before generations: the state directory itself
Step = Callable[[str], None]


class StateBusy(PrhubError):
    """Another process holds the state directory's lock."""


# -- encoding items -------------------------------------------------------------------------------------

def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"__b64__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _wire(value: Any) -> Any:
    """A saved item as DynamoDB's JSON on the wire: binary values stay the base64 text they were saved as."""
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return value["__b64__"]
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


def _line(item: dict[str, Any]) -> str:
    return json.dumps(_encode(item), ensure_ascii=False, sort_keys=True)


# -- durable files --------------------------------------------------------------------------------------

def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _write(path: Path, data: bytes) -> None:
    """A generation's file, written without its own fsync: _sync_tree makes the whole generation durable at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _syncfs() -> Callable[[int], int] | None:
    """Linux's syncfs(2): one call flushes a filesystem, where an fsync per file forced a journal commit each (a
    year's 10,000 site files took minutes)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return cast(Callable[[int], int], libc.syncfs)
    except (OSError, AttributeError):
        return None


def _sync_tree(path: Path) -> None:
    """Every file and folder under `path` durable: one syncfs of its filesystem, else an fsync of each."""
    sync = _syncfs()
    if sync is not None:
        fd = os.open(path, os.O_RDONLY)
        try:
            if sync(fd) == 0:
                return
        finally:
            os.close(fd)
    for directory, _, files in os.walk(path):
        for name in files:
            with open(Path(directory) / name, "rb") as f:
                os.fsync(f.fileno())
        _fsync_dir(Path(directory))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


# -- the directory ---------------------------------------------------------------------------------------

def generation(state: Path) -> Path | None:
    """The directory holding the last complete save of `state` (None: nothing saved yet)."""
    try:
        name = (state / CURRENT).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return state if any((state / part).is_dir() for part in LEGACY) else None
    return state / name


class StateDir:
    """A state directory held under its lock for one run (see `locked`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def current(self) -> Path | None:
        return generation(self.path)

    def base(self) -> str:
        """What a journal written now builds on: the current generation's name ("" none, "." the old layout)."""
        current = self.current()
        return "" if current is None else "." if current == self.path else current.name

    def recover(self) -> list[str]:
        """Remove what an interrupted save or run left (a half-written generation, a stale pointer or
        journal); returns the names removed. PrhubError if CURRENT names a generation that is gone."""
        current = self.current()
        if (self.path / CURRENT).exists() and not (
                current is not None and current.parent == self.path and current.name.startswith("gen-")
                and current.is_dir()):
            raise PrhubError(f"the state {self.path} is damaged: {CURRENT} names no generation directory "
                             "beside it; move the directory aside to start afresh")
        removed = []
        for entry in sorted(self.path.iterdir()):
            stale = (entry.name.startswith("gen-") and entry != current) or entry.name == CURRENT + ".tmp" or (
                entry.name == JOURNAL and _journal_base(entry) != self.base()) or (
                entry.name in LEGACY and current != self.path)  # the old layout, once migrated
            if stale:
                _remove(entry)
                removed.append(entry.name)
        if removed:
            _fsync_dir(self.path)
        return removed

    def stray(self) -> Path | None:
        """What an older prhub's save left beside an empty state when killed mid-way (it may be incomplete)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        return tmp if self.current() is None and (tmp / "tables").is_dir() else None


def _holder() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"), "command": shlex.join(sys.argv)}


def _describe(text: str) -> str:
    try:
        who = json.loads(text)
        return f"pid {who['pid']} on {who['host']}, started {who['started']}: {who['command']}"
    except (ValueError, KeyError, TypeError):
        return "a process that has not written its name yet"


@contextlib.contextmanager
def locked(state: Path) -> Iterator[StateDir]:
    """Hold `state`'s lock (made if need be) until the block ends; StateBusy when another run holds it.

    flock is released by the kernel when the holder dies, so a killed run never leaves the state locked."""
    try:
        state.mkdir(parents=True, exist_ok=True)
        handle: IO[str] = open(state / LOCK, "a+", encoding="utf-8")  # noqa: SIM115 - held for the whole block
    except OSError as exc:
        raise InputError(f"cannot use --state {state}: {exc.strerror or exc}") from exc
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            handle.seek(0)
            raise StateBusy(f"the state {state} is in use by {_describe(handle.read())}; wait for it to finish "
                            "or give another --state") from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(_holder()) + "\n")
        handle.flush()
        yield StateDir(state)
    finally:
        handle.close()


# -- saving ---------------------------------------------------------------------------------------------

def download_bucket(s3: Any, bucket: str, target: Path) -> None:
    """Copy the bucket's objects as files under `target` (a site folder), over what is there; never through a
    link that leads out of it (packs.Inside)."""
    made: set[Path] = set()
    inside = packs.Inside(target)
    for key, _etag, body in _objects(s3, bucket):
        if not packs.safe_key(key) or not inside(target / key):
            continue  # a key like ../x, or a folder linked elsewhere, must not escape the directory
        path = target / key
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        packs.prepare(path)
        path.write_bytes(body())
    inside.warn()


def _objects(s3: Any, bucket: str) -> Iterator[tuple[str, str, Callable[[], bytes]]]:
    """The bucket's objects as (key, ETag, body when asked): from the embedded moto's backend when it is in this
    process (embedded.stored), else listed and downloaded through `s3`."""
    held = stored(bucket)
    if held is not None:
        yield from held
        return

    def download(key: str) -> bytes:
        return cast(bytes, s3.get_object(Bucket=bucket, Key=key)["Body"].read())

    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            yield obj["Key"], obj.get("ETag", ""), functools.partial(download, obj["Key"])


def copy_site(saved: Path, target: Path) -> int:
    """The site bucket of the generation `saved` copied to the site folder `target` (packs.copy_out): read from
    the save's packs, not downloaded from the embedded S3 a second time (a year's 7,000 objects took seconds
    through boto3 and moto); returns how many files were written."""
    return packs.copy_out(saved / "buckets", "SiteBucket", target)


def _messages(url: str, in_hand: set[str]) -> bytes:
    """The queue's messages as JSON lines {"body", "due"}: delayed and in-flight ones too, with the epoch second
    they come due. A message in `in_hand` was in a batch whose invocation the stop cut off: due at once, as Lambda
    would retry it when its worker died, not after the long visibility timeout the worker's receive gave it."""
    return "".join(json.dumps({"body": body, "due": 0 if mid in in_hand else round(due, 3)}, ensure_ascii=False)
                   + "\n" for mid, body, due in queued(url)).encode()


def save_state(stack: Stack, state: StateDir, step: Step = lambda _: None,
               in_hand: Callable[[], set[str]] = set) -> Path:
    """Write the stack as a new generation, switch CURRENT to it, then drop the old one; returns it.

    `in_hand` names the messages the run's workers were processing when it stopped (see _messages). `step` is
    called after each step (tests interrupt the save there: nothing here cleans up after an
    exception, as nothing would after a kill)."""
    ddb, s3 = client("dynamodb"), client("s3")
    old = state.current()
    new = state.path / f"gen-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{os.getpid()}"
    (new / "tables").mkdir(parents=True)
    step("begun")
    for logical, name in stack.tables.items():
        items = table_items(name)  # the embedded moto's, read in place; else a Scan
        if items is None:
            items = [item for page in ddb.get_paginator("scan").paginate(TableName=name)
                     for item in page.get("Items", [])]
        lines = [_line(item) + "\n" for item in items]
        _write(new / "tables" / f"{logical}.jsonl", "".join(lines).encode())
        step(f"table {logical}")
    for logical, name in stack.buckets.items():
        packs.save(_objects(s3, name), new / "buckets", logical, old / "buckets" if old is not None else None,
                   f"{new.name}.pack")
        step(f"bucket {logical}")
    (new / "queues").mkdir()
    cut_off = in_hand()
    for logical, url in stack.queues.items():
        if messages := _messages(url, cut_off):
            _write(new / "queues" / f"{logical}.messages.jsonl", messages)
    step("queues")
    _sync_tree(new)  # the whole generation, before CURRENT can name it
    _fsync_dir(state.path)
    step("synced")
    pointer = state.path / (CURRENT + ".tmp")
    _write_durably(pointer, new.name.encode() + b"\n")
    step("pointer written")
    os.replace(pointer, state.path / CURRENT)
    _fsync_dir(state.path)
    step("switched")
    obsolete = [state.path / JOURNAL]
    if old is not None:
        obsolete += [old / part for part in LEGACY] if old == state.path else [old]
    for path in obsolete:
        if path.exists():
            _remove(path)
            step(f"removed {path.name}")
    return new


# -- restoring ------------------------------------------------------------------------------------------

def _read_lines(path: Path) -> list[Any]:
    """JSON lines; a torn last line (a kill mid-append) is dropped."""
    values = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                values.append(json.loads(line))
            except ValueError:
                continue
    return values


def _journal_base(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return str(json.loads(handle.readline()).get("base"))
    except (FileNotFoundError, ValueError, AttributeError):
        return None


def _put_items(ddb: Any, table: str, saved: list[dict[str, Any]]) -> None:
    """Saved items (_encode's form) into `table`: straight into the embedded moto when it holds the table."""
    if restore_items(table, [_wire(item) for item in saved]):
        return
    items = [_decode(item) for item in saved]
    for start in range(0, len(items), 25):
        pending: dict[str, Any] = {table: [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
        while pending:
            pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}


def _in_progress(item: dict[str, Any]) -> bool:
    """An idempotency record of an invocation still running when the state was saved. No invocation outlives
    the process, so it is stale in a restored state; kept, it would turn the resumed run's report (or page, or
    digest) away as "already in progress" until the function's timeout had passed."""
    return (item.get("status") or {}).get("S") == "INPROGRESS"


def _restore_tables(stack: Stack, gen: Path, ddb: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for logical, name in stack.tables.items():
        path = gen / "tables" / f"{logical}.jsonl"
        if path.exists():
            items = _read_lines(path)
            if logical == "IdempotencyTable":
                items = [i for i in items if not _in_progress(i)]
            _put_items(ddb, name, items)
            counts[logical] = len(items)
    return counts


def _restore_buckets(stack: Stack, gen: Path, s3: Any) -> None:
    for logical, name in stack.buckets.items():
        objects = ((key, body, TYPES.get(Path(key).suffix, "application/octet-stream"))
                   for key, body in _saved_objects(gen / "buckets", logical))
        if not restore_objects(name, objects):
            for key, body, content_type in objects:
                s3.put_object(Bucket=name, Key=key, Body=body, ContentType=content_type)


def _saved_objects(folder: Path, logical: str) -> Iterator[tuple[str, bytes]]:
    """A saved bucket's objects as (key, body): from its packs, or from a file each as states were saved before
    (and the flat layout before generations)."""
    listed = packs.entries(folder, logical)
    if listed is not None:
        yield from packs.bodies(folder, logical, listed)
        return
    root = folder / logical
    for path in sorted(root.rglob("*")) if root.is_dir() else []:
        if path.is_file():
            yield path.relative_to(root).as_posix(), path.read_bytes()


def _queued_lines(gen: Path, logical: str) -> list[tuple[str, float]]:
    """A queue's saved messages as (body, due); a state saved before delays were kept has bodies only (due now)."""
    path = gen / "queues" / f"{logical}.messages.jsonl"
    if path.exists():
        return [(str(m["body"]), float(m.get("due", 0))) for m in _read_lines(path) if isinstance(m, dict)]
    old = gen / "queues" / f"{logical}.jsonl"
    if not old.exists():
        return []
    return [(line, 0.0) for line in old.read_text(encoding="utf-8").splitlines() if line.strip()]


def _restore_queues(stack: Stack, gen: Path, sqs: Any) -> None:
    """Each saved message queued again, hidden for what is left of its wait (SQS delays a message at most
    MAX_DELAY: one that waited longer comes back early, and its worker meets the limit again and defers it)."""
    now = time.time()
    for logical, url in stack.queues.items():
        entries = [{"MessageBody": body, "DelaySeconds": min(MAX_DELAY, max(0, math.ceil(due - now)))}
                   for body, due in _queued_lines(gen, logical)]
        for start in range(0, len(entries), 10):
            batch = [{"Id": str(i), **e} for i, e in enumerate(entries[start:start + 10])]
            if failed := sqs.send_message_batch(QueueUrl=url, Entries=batch).get("Failed"):
                raise PrhubError(f"could not restore {logical}'s messages: {failed[0].get('Message', failed[0])}")


def _restore_journal(stack: Stack, state: StateDir, ddb: Any) -> int:
    """The journal's items, when it builds on the generation just restored; returns how many."""
    journal = state.path / JOURNAL
    if not journal.exists() or _journal_base(journal) != state.base():
        return 0
    entries = [e for e in _read_lines(journal)[1:] if isinstance(e, dict) and e.get("table") in stack.tables]
    for logical in {e["table"] for e in entries} & set(JOURNALED):
        _put_items(ddb, stack.tables[logical], [e["item"] for e in entries if e["table"] == logical])
    for e in entries:  # the ledger's writes, one item's states in order: the last one stands
        if e["table"] not in JOURNALED:
            ddb.put_item(TableName=stack.tables[e["table"]], Item=_decode(e["item"]))
    return len(entries)


def restore_state(stack: Stack, state: StateDir) -> dict[str, int]:
    """Load the last complete save, then the journal of a run killed since, into the (fresh) stack; returns
    item counts per table, and "journal" for the journal's items."""
    gen = state.current() or state.path / "none"  # nothing saved yet: only a journal may hold something
    ddb, s3, sqs = client("dynamodb"), client("s3"), client("sqs")
    counts = _restore_tables(stack, gen, ddb)
    _restore_buckets(stack, gen, s3)
    _restore_queues(stack, gen, sqs)
    if journaled := _restore_journal(stack, state, ddb):
        counts["journal"] = journaled
    return counts


# -- progress saves -------------------------------------------------------------------------------------

class Journal(threading.Thread):
    """Appends the journaled tables' writes to the journal every `every` seconds while a run works, so a killed run
    keeps its paid scores.

    The writes are those the cache tells of (prhub.cloud.cache.writes), kept until the next pass appends them,
    fsynced; the delivery ledger's are appended at once. Told, not looked for: a pass that scanned the table for
    recent items cost moto a filter over every entry, 12 s of a year's 140 s under the one GIL. Its header names
    the generation it builds on: restored only on top of that one."""

    def __init__(self, stack: Stack, state: StateDir, every: float) -> None:
        super().__init__(daemon=True, name="state-journal")
        self.stack, self.state, self.every = stack, state, every
        self.stopped = threading.Event()
        self.error: BaseException | None = None
        self.pending: list[dict[str, Any]] = []  # cache writes since the last pass
        self.pending_lock = threading.Lock()  # apart from the file's: a score worker never waits for an fsync
        self.path = state.path / JOURNAL
        self.lock = threading.Lock()  # passes and the ledger's writes append from different threads

    def start(self) -> None:
        if _journal_base(self.path) != self.state.base():
            _write_durably(self.path, json.dumps({"base": self.state.base()}).encode() + b"\n")
            _fsync_dir(self.state.path)
        else:
            with open(self.path, "rb+") as out:  # a line torn by a kill must not swallow the next one
                out.seek(-1, os.SEEK_END)
                if out.read(1) != b"\n":
                    out.write(b"\n")
        cache.writes.observe(self.cache_write)
        ledger.writes.observe(self.ledger_write)
        super().start()

    def _logical(self, table: str) -> str | None:
        return next((k for k, v in self.stack.tables.items() if v == table), None)

    def cache_write(self, table: str, item: dict[str, Any]) -> None:
        """A cache entry written: appended by the next pass."""
        if (logical := self._logical(table)) in JOURNALED:
            with self.pending_lock:
                self.pending.append({"table": logical, "item": item})

    def ledger_write(self, table: str, item: dict[str, Any]) -> None:
        """A delivery ledger write, appended fsynced before the send it allows (a kill after it keeps it)."""
        if (logical := self._logical(table)) is not None:
            self._append([{"table": logical, "item": item}])

    def flush(self) -> int:
        """Append the cache writes told of since the last pass; returns how many."""
        with self.pending_lock:
            new, self.pending = self.pending, []
        if new:
            self._append(new)
        return len(new)

    def _append(self, entries: list[dict[str, Any]]) -> None:
        with self.lock, open(self.path, "a", encoding="utf-8") as out:
            out.write("".join(_line(entry) + "\n" for entry in entries))
            out.flush()
            os.fsync(out.fileno())

    def run(self) -> None:
        try:
            while not self.stopped.wait(self.every):
                self.flush()
        except BaseException as exc:  # reported by stop(): the final save still runs
            self.error = exc

    def stop(self) -> None:
        cache.writes.unobserve(self.cache_write)
        ledger.writes.unobserve(self.ledger_write)
        self.stopped.set()
        if self.is_alive():
            self.join()

