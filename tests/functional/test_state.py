"""The local state (prhub_local.state): saved atomically, locked for one run, journaled as a run works.

Against the session's moto server: each stack is a fresh set of resources made from template.yaml.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from prhub.cloud import aws
from prhub.cloud.cache import DynamoCache
from prhub.core.errors import PrhubError

from prhub_local import cli, runner
from prhub_local.state import CURRENT, JOURNAL, LOCK, Journal, generation, locked, restore_state, save_state
from prhub_local.template import Stack, create_stack


class Killed(BaseException):
    """Stands for a kill: save_state has no handler that could clean up after it, as after a SIGKILL."""


@pytest.fixture
def new_stack(aws_endpoint: str, template: dict[str, Any]) -> Any:
    def make() -> Stack:
        return create_stack(template, "s" + uuid.uuid4().hex[:12], json.dumps({"repos": []}), visibility_timeout=1)
    return make


def fill(stack: Stack, version: str) -> None:
    """What a run leaves: cache entries (B adds some and changes one), a run, site objects, a dead letter."""
    ddb, s3, sqs = aws.client("dynamodb"), aws.client("s3"), aws.client("sqs")
    count = 3 if version == "A" else 5
    for i in range(count):
        ddb.put_item(TableName=stack.tables["CacheTable"], Item={
            "key": {"S": f"k{i}"}, "data": {"B": f"{version if i == 0 else 'same'}{i}".encode()}})
    ddb.put_item(TableName=stack.tables["RunsTable"], Item={"run_id": {"S": "o/r/w/1"}, "status": {"S": version}})
    bucket = stack.buckets["SiteBucket"]
    s3.put_object(Bucket=bucket, Key="o/r/index.html", Body=f"<p>{version}</p>".encode())
    s3.put_object(Bucket=bucket, Key="o/r/feed.xml", Body=FEED)  # unchanged, most of A's pack: its pack is linked
    if version == "A":
        s3.put_object(Bucket=bucket, Key="o/r/old.md", Body=b"gone in B")
    sqs.send_message(QueueUrl=stack.queues["ScoreDLQ"], MessageBody=json.dumps({"version": version}))


FEED = b"<feed>" + b" " * 2000 + b"</feed>"


def snapshot(stack: Stack) -> dict[str, Any]:
    """Everything the stack holds (read once: received messages stay hidden)."""
    ddb, s3, sqs = aws.client("dynamodb"), aws.client("s3"), aws.client("sqs")
    tables = {logical: sorted(json.dumps(i, sort_keys=True, default=repr) for i in ddb.scan(TableName=name)["Items"])
              for logical, name in stack.tables.items()}
    bucket = stack.buckets["SiteBucket"]
    objects = {o["Key"]: s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
               for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])}
    queues = {logical: sorted(m["Body"] for m in sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600).get("Messages", []))
        for logical, url in stack.queues.items()}
    return {"tables": tables, "objects": objects, "queues": queues}


def restored(new_stack: Any, state: Path) -> tuple[dict[str, Any], list[str]]:
    """What the next run starts from: the leftovers it removes, and the state it restores."""
    stack = new_stack()
    with locked(state) as held:
        removed = held.recover()
        restore_state(stack, held)
    return snapshot(stack), removed


def save(stack: Stack, state: Path, step: Any = lambda _: None) -> None:
    with locked(state) as held:
        save_state(stack, held, step)


@pytest.mark.slow
def test_a_kill_at_every_step_of_a_save_leaves_the_old_or_the_new_state(new_stack: Any, tmp_path: Path) -> None:
    # GIVEN a saved state A, and the steps of saving state B over it
    base = tmp_path / "base"
    a = new_stack()
    fill(a, "A")
    save(a, base)
    old, _ = restored(new_stack, base)
    steps: list[str] = []
    full = tmp_path / "full"
    shutil.copytree(base, full)
    b = new_stack()
    fill(b, "B")
    save(b, full, steps.append)
    new, _ = restored(new_stack, full)
    assert old != new and old["objects"]["o/r/old.md"] == b"gone in B" and "o/r/old.md" not in new["objects"]
    assert "switched" in steps and steps[-1].startswith("removed gen-")
    for i, name in enumerate(steps):
        # WHEN the save of B is killed right after step `name`
        state = tmp_path / f"killed-{i}"
        shutil.copytree(base, state)
        b = new_stack()
        fill(b, "B")

        def kill(done: str, at: str = name) -> None:
            if done == at:
                raise Killed(at)

        with pytest.raises(Killed):
            save(b, state, kill)
        if name == "switched":  # both generations are there: A's pack, still mostly read, linked into B's
            gens = sorted(state.glob("gen-*"), key=lambda g: g.name != generation(state).name)
            packs = [{p.name: p.stat().st_ino for p in (g / "buckets" / "SiteBucket.packs").iterdir()} for g in gens]
            assert len(gens) == 2 and len(packs[0]) == 2 and packs[1].items() <= packs[0].items()
        # THEN the next run restores A (before the switch) or B (after it), complete
        got, removed = restored(new_stack, state)
        switched = i >= steps.index("switched")
        assert got == (new if switched else old), name
        # AND what the killed save left is removed at that start: one generation remains
        assert bool(removed) == (name != steps[-1]), (name, removed)
        left = sorted(p.name for p in state.iterdir())
        assert left == sorted([CURRENT, LOCK, generation(state).name]), name


@pytest.mark.slow
def test_a_second_run_on_a_held_state_exits_3_naming_the_holder(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    state, out = tmp_path / "state", tmp_path / "site"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pathlib import Path\nfrom prhub_local.state import locked\n"
         "with locked(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(120)\n", str(state)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        # WHEN `prhub run` is started on the state another process holds
        code = cli.main(["run", "--state", str(state), "--out", str(out)])
        # THEN it exits 3 (busy, not bad input's 2) naming the holder, and writes nothing
        err = capsys.readouterr().err
        assert code == 3
        assert f"the state {state} is in use by pid {holder.pid} on " in err and ", started 20" in err
        assert "Traceback" not in err and not out.exists() and sorted(p.name for p in state.iterdir()) == [LOCK]
    finally:
        holder.kill()
        holder.wait()
    # WHEN the holder is gone (killed: the kernel drops its lock), the same command runs
    # (in a process of its own: moto's backends are per process, and this one has served other tests' stacks)
    done = subprocess.run([sys.executable, "-m", "prhub_local.cli", "run", "--state", str(state), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert (generation(state) / "tables" / "CacheTable.jsonl").read_text().count("\n") == 32


@pytest.mark.parametrize(("bad", "says"), [
    (["--since", "2026-06-10", "--until", "2026-06-01"], "is after until"),
    (["--tz", "Mars/Olympus_Mons"], "unknown time zone"),
    (["--tz", "UTC+8"], "unknown time zone"),
    (["--repo", "verl"], "owner/name"),
    (["--repo", "https://github.com/verl-project/verl"], "owner/name"),
    (["--since", "2024-01-01", "--until", "2026-01-01"], "exceeds the maximum"),
    (["--repo", "acme/rocket", "--source", "jsonl:no-such-export.jsonl"], "no export file at no-such-export.jsonl"),
])
def test_bad_input_exits_2_at_once_and_creates_nothing(tmp_path: Path, bad: list[str], says: str,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Refused before the embedded AWS starts (its start is what took 7-13 s), so nothing can have been created.
    def never(*args: Any) -> None:
        raise AssertionError("the embedded AWS was started for input that is refused")

    monkeypatch.setattr(runner.EmbeddedAws, "__enter__", never)
    state = tmp_path / "deep" / "er" / "state"
    code = cli.main(["run", *bad, "--state", str(state), "--out", str(tmp_path / "site")])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err[-1].startswith("prhub: ") and says in err[-1]
    assert sorted(tmp_path.iterdir()) == []  # no --state, not even its parent folders, and no site


def test_a_journal_left_by_a_killed_run_is_restored_on_top_of_its_generation(new_stack: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    a = new_stack()
    fill(a, "A")
    save(a, state)
    gen = generation(state)
    # GIVEN a journal a killed run appended to, its last line torn by the kill
    item = {"key": {"S": "paid"}, "data": {"B": {"__b64__": "cGFpZA=="}}}
    (state / JOURNAL).write_text(json.dumps({"base": gen.name}) + "\n"
                                 + json.dumps({"table": "CacheTable", "item": item}) + "\n" + '{"table": "Cach')
    got, removed = restored(new_stack, state)
    # THEN the paid entry is back with the generation's, and the journal is kept until the next save
    keys = {json.loads(i)["key"]["S"] for i in got["tables"]["CacheTable"]}
    assert keys == {"k0", "k1", "k2", "paid"} and removed == []
    # AND the next run's journal goes on after the torn line without losing its own first entry
    stack = new_stack()
    with locked(state) as held:
        restore_state(stack, held)
        journal = Journal(stack, held, every=3600)
        journal.start()
        cache = DynamoCache(aws.client("dynamodb"), stack.tables["CacheTable"])  # as the flow writes the cache
        cache.put("more", {"paid": True})
        assert journal.flush() == 1 and journal.flush() == 0
        # an item not written through the cache (a restore puts items back so) is not journaled again
        aws.client("dynamodb").put_item(TableName=stack.tables["CacheTable"], Item={
            "key": {"S": "old"}, "data": {"B": b"x"}, "expires_at": {"N": str(int(time.time()) + 3600)}})
        assert journal.flush() == 0
        journal.stop()
    keys = {json.loads(i)["key"]["S"] for i in restored(new_stack, state)[0]["tables"]["CacheTable"]}
    assert keys == {"k0", "k1", "k2", "paid", "more"}
    # AND a journal built on another generation (a save completed after it) is stale: removed, not applied
    (state / JOURNAL).write_text(json.dumps({"base": "gen-older"}) + "\n"
                                 + json.dumps({"table": "CacheTable", "item": item}) + "\n")
    got, removed = restored(new_stack, state)
    assert removed == [JOURNAL] and {json.loads(i)["key"]["S"] for i in got["tables"]["CacheTable"]} == {
        "k0", "k1", "k2"}


def test_a_state_in_the_old_flat_layout_is_restored_then_saved_as_a_generation(new_stack: Any,
                                                                               tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "tables").mkdir(parents=True)
    (state / "tables" / "CacheTable.jsonl").write_text(json.dumps({"key": {"S": "legacy"}}) + "\n")
    (state / "buckets" / "SiteBucket" / "o").mkdir(parents=True)
    (state / "buckets" / "SiteBucket" / "o" / "index.html").write_text("<p>old</p>")
    got, _ = restored(new_stack, state)
    assert got["objects"] == {"o/index.html": b"<p>old</p>"} and len(got["tables"]["CacheTable"]) == 1
    steps: list[str] = []
    stack = new_stack()
    with locked(state) as held:
        restore_state(stack, held)
        save_state(stack, held, steps.append)
    assert steps[-2:] == ["removed tables", "removed buckets"]
    assert sorted(p.name for p in state.iterdir()) == sorted([CURRENT, LOCK, generation(state).name])
    assert restored(new_stack, state)[0] == got
    # AND a migration killed before the old layout is gone leaves no stray directories behind
    (state / "tables").mkdir()
    assert restored(new_stack, state) == (got, ["tables"])


def test_a_generation_saved_with_a_file_per_object_is_restored_then_saved_as_packs(new_stack: Any,
                                                                                   tmp_path: Path) -> None:
    # GIVEN a generation as states were saved before packs: the site bucket as a folder of files
    state, gen = tmp_path / "state", tmp_path / "state" / "gen-20260101T000000000000Z-1"
    (gen / "buckets" / "SiteBucket" / "o" / "r").mkdir(parents=True)
    (gen / "buckets" / "SiteBucket" / "o" / "r" / "index.html").write_text("<p>files</p>")
    (gen / "buckets" / "SiteBucket" / "o" / "r" / "report.json").write_text("{}")
    (state / CURRENT).write_text(gen.name + "\n")
    # WHEN it is restored and saved again
    got, _ = restored(new_stack, state)
    assert got["objects"] == {"o/r/index.html": b"<p>files</p>", "o/r/report.json": b"{}"}
    stack = new_stack()
    with locked(state) as held:
        restore_state(stack, held)
        save_state(stack, held)
    # THEN the new generation holds it as a manifest and a pack, and restores the same objects
    buckets = generation(state) / "buckets"
    assert sorted(p.name for p in buckets.iterdir() if p.name.startswith("SiteBucket")) == [
        "SiteBucket.objects.jsonl", "SiteBucket.packs"]
    assert restored(new_stack, state)[0] == got


@pytest.mark.parametrize("pointer", ["gen-20260101T000000000000Z-1\n", "\n", "../elsewhere\n"])
def test_a_pointer_to_no_generation_is_reported_not_taken_for_an_empty_state(new_stack: Any, tmp_path: Path,
                                                                            pointer: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / CURRENT).write_text(pointer)
    with pytest.raises(PrhubError, match="is damaged"):
        restored(new_stack, state)
    assert sorted(p.name for p in state.iterdir()) == [CURRENT, LOCK]


def test_the_delivery_ledger_survives_a_kill_between_a_send_and_the_save(new_stack: Any, tmp_path: Path) -> None:
    from prhub.notify.ledger import Ledger

    state = tmp_path / "state"
    # GIVEN a run that claimed six channels, told five and was killed while sending the sixth (no save, and no
    # journal pass since: the journal's clock never ticks)
    stack = new_stack()
    with locked(state) as held:
        restore_state(stack, held)
        journal = Journal(stack, held, every=3600)
        journal.start()
        ledger = Ledger(aws.client("dynamodb"), stack.tables["DeliveriesTable"])
        now = int(time.time())
        claims = [ledger.claim("o/r/reports/w/", f"ch{i}", run_id="run-1", label=f"ch{i}", digest="d",
                               updates=False, now=now) for i in range(6)]
        for claim in claims[:5]:
            ledger.finish(claim, status="delivered", run_id="run-1", digest="d", attempts=1, detail="HTTP 200",
                          at="2026-06-08T00:00:00Z", now=now)
        journal.stop()  # killed: no final pass (stop makes none), no save
    # WHEN the re-run restores the state
    stack = new_stack()
    with locked(state) as held:
        restore_state(stack, held)
        ledger = Ledger(aws.client("dynamodb"), stack.tables["DeliveriesTable"])
        again = [ledger.claim("o/r/reports/w/", f"ch{i}", run_id="run-2", label=f"ch{i}", digest="d",
                              updates=False, now=now + 1) for i in range(6)]
    # THEN the five told are not told again, and the one being sent is known to be under way
    assert [c.reason for c in again[:5]] == ["already delivered"] * 5
    assert not again[5].send and again[5].busy


def test_delayed_and_in_flight_messages_are_saved_with_their_remaining_delay(new_stack: Any, tmp_path: Path) -> None:
    """A PR handed back for a rate limit waits as a delayed copy, a retried one as an invisible one: a save that
    took only the visible messages lost them (issue 24, item 2), and with them the run's work."""
    stack, sqs, state = new_stack(), aws.client("sqs"), tmp_path / "state"
    url = stack.queues["ScoreQueue"]
    sqs.send_message(QueueUrl=url, MessageBody='{"n": "visible"}')
    sqs.send_message(QueueUrl=url, MessageBody='{"n": "delayed"}', DelaySeconds=120)
    sqs.send_message(QueueUrl=url, MessageBody='{"n": "in flight"}')
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=300)["Messages"]
    sqs.send_message(QueueUrl=url, MessageBody='{"n": "visible"}')  # a second, equal body: both are kept
    assert sorted(m["Body"] for m in got) == ['{"n": "in flight"}', '{"n": "visible"}']
    sqs.delete_message(QueueUrl=url, ReceiptHandle=next(m for m in got if "visible" in m["Body"])["ReceiptHandle"])
    save(stack, state)

    fresh = new_stack()
    with locked(state) as held:
        restore_state(fresh, held)
    fresh_url = fresh.queues["ScoreQueue"]
    attrs = sqs.get_queue_attributes(QueueUrl=fresh_url, AttributeNames=["All"])["Attributes"]
    assert (attrs["ApproximateNumberOfMessages"], attrs["ApproximateNumberOfMessagesDelayed"]) == ("1", "2")
    now = sqs.receive_message(QueueUrl=fresh_url, MaxNumberOfMessages=10, VisibilityTimeout=600)["Messages"]
    assert [m["Body"] for m in now] == ['{"n": "visible"}'], "the waiting ones still wait"
    lines = [json.loads(line) for line in
             (generation(state) / "queues" / "ScoreQueue.messages.jsonl").read_text("utf-8").splitlines()]
    waits = {line["body"]: line["due"] - time.time() for line in lines}
    assert 100 < waits['{"n": "delayed"}'] <= 120 and 280 < waits['{"n": "in flight"}'] <= 300


def test_a_message_whose_invocation_the_stop_cut_off_is_due_at_once(new_stack: Any, tmp_path: Path) -> None:
    """A batch a worker held when the run stopped: its invocation ended with the process, so the message is due
    at the next run, not after the 900 s the worker's receive hid it for."""
    stack, sqs, state = new_stack(), aws.client("sqs"), tmp_path / "state"
    url = stack.queues["ScoreQueue"]
    sqs.send_message(QueueUrl=url, MessageBody='{"n": "in hand"}')
    got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=900)["Messages"]
    with locked(state) as held:
        save_state(stack, held, in_hand=lambda: {got[0]["MessageId"]})
    fresh = new_stack()
    with locked(state) as held:
        restore_state(fresh, held)
    again = sqs.receive_message(QueueUrl=fresh.queues["ScoreQueue"], VisibilityTimeout=600).get("Messages", [])
    assert [m["Body"] for m in again] == ['{"n": "in hand"}']


def test_a_state_saved_with_bodies_only_is_still_restored(new_stack: Any, tmp_path: Path) -> None:
    stack, sqs, state = new_stack(), aws.client("sqs"), tmp_path / "state"
    save(stack, state)
    (generation(state) / "queues" / "ScoreDLQ.jsonl").write_text('{"old": 1}\n', encoding="utf-8")
    fresh = new_stack()
    with locked(state) as held:
        restore_state(fresh, held)
    got = sqs.receive_message(QueueUrl=fresh.queues["ScoreDLQ"], VisibilityTimeout=600)["Messages"]
    assert [m["Body"] for m in got] == ['{"old": 1}']
