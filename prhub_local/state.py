"""The embedded AWS's state between runs: tables as JSON lines, bucket objects as files, queued messages.

`prhub run` and `prhub invoke` restore a `--state` directory into a fresh
stack at start and save it at the end, so the score cache, the run history
and the site accumulate as they do in a deployed stack.
"""
from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

from prhub.site import TYPES

from prhub_local.embedded import client
from prhub_local.template import Stack


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


def download_bucket(s3: Any, bucket: str, target: Path) -> int:
    count = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            path = target / obj["Key"]
            if not path.resolve().is_relative_to(target.resolve()):
                continue  # a key like ../x must not escape the directory
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read())
            count += 1
    return count


def save_state(stack: Stack, state: Path) -> None:
    """Tables as JSON lines, bucket objects as files, messages left in queues (normally only DLQs)."""
    ddb, s3, sqs = client("dynamodb"), client("s3"), client("sqs")
    tmp = state.with_name(state.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "tables").mkdir(parents=True)
    for logical, name in stack.tables.items():
        with open(tmp / "tables" / f"{logical}.jsonl", "w", encoding="utf-8") as out:
            for page in ddb.get_paginator("scan").paginate(TableName=name):
                for item in page.get("Items", []):
                    out.write(json.dumps(_encode(item), ensure_ascii=False) + "\n")
    for logical, name in stack.buckets.items():
        download_bucket(s3, name, tmp / "buckets" / logical)
    (tmp / "queues").mkdir()
    for logical, url in stack.queues.items():
        bodies: list[str] = []
        while True:
            # Received messages stay invisible for the rest of this process, so each is read once.
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600,
                                      WaitTimeSeconds=0).get("Messages", [])
            if not got:
                break
            bodies.extend(m["Body"] for m in got)
        if bodies:
            (tmp / "queues" / f"{logical}.jsonl").write_text("".join(b + "\n" for b in bodies), encoding="utf-8")
    if state.exists():
        shutil.rmtree(state)
    state.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(state)


def restore_state(stack: Stack, state: Path) -> dict[str, int]:
    """Load a saved state into the (fresh) stack; returns item counts per table."""
    counts: dict[str, int] = {}
    if not state.is_dir():
        return counts
    ddb, s3, sqs = client("dynamodb"), client("s3"), client("sqs")
    for logical, name in stack.tables.items():
        path = state / "tables" / f"{logical}.jsonl"
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as handle:
            items = [_decode(json.loads(line)) for line in handle if line.strip()]
        for start in range(0, len(items), 25):
            pending: dict[str, Any] = {name: [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
            while pending:
                pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        counts[logical] = len(items)
    for logical, name in stack.buckets.items():
        root = state / "buckets" / logical
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file():
                key = path.relative_to(root).as_posix()
                s3.put_object(Bucket=name, Key=key, Body=path.read_bytes(),
                              ContentType=TYPES.get(path.suffix, "application/octet-stream"))
    for logical, url in stack.queues.items():
        path = state / "queues" / f"{logical}.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    sqs.send_message(QueueUrl=url, MessageBody=line)
    return counts

