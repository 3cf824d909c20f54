"""The embedded AWS: moto in this process, either in-process (`mock_aws`: boto3's requests never leave the
process) or in server mode on 127.0.0.1, and the environment that points boto3 (and the handlers) at it.

`prhub run` uses it in-process: half of a run's time went to the server's HTTP path (werkzeug, a socket, and
botocore parsing the answers twice), 3.6 ms a DynamoDB call against 1.8 ms in-process. The server mode is for
callers that need a URL (tests' shared endpoint). The two share moto's state in one process: use one at a time.
"""
from __future__ import annotations

import base64
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from prhub.cloud import aws
from prhub.cloud.aws import JSON_MEMO_BYTES, JsonMemo

from prhub_local.moto_patches import apply_patches, sqs_lock

REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedAws:
    """moto patched for concurrent workers: in server mode on 127.0.0.1 (a free port, `url`), or `in_process`
    (`url` None: boto3 clients made meanwhile, on AWS's own endpoints, are answered by moto without a socket).

    `fresh` empties moto's backends first: moto keeps them per process, so a second embedded AWS in one process
    (a library caller, a test) would otherwise see the first one's tables (`mock_aws` always starts empty)."""

    def __init__(self, fresh: bool = False, in_process: bool = False) -> None:
        apply_patches()  # fails with the moto version and the missing symbol if moto changed
        self.fresh, self.in_process = fresh, in_process
        self.url: str | None = None
        if in_process:
            from moto import mock_aws

            self.mock = mock_aws()
        else:
            from moto.server import ThreadedMotoServer

            self.port = free_port()
            self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
            self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> EmbeddedAws:
        if self.in_process:
            self.mock.start(reset=True)
            return self
        # One access-log line per AWS call would drown the progress lines.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server.start()
        if self.fresh:
            import requests

            requests.post(f"{self.url}/moto-api/reset", timeout=10).raise_for_status()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.in_process:
            self.mock.stop(remove_data=False)  # as the server's stop: the caller may still read moto's backends
        else:
            self.server.stop()


def aws_env(endpoint_url: str | None, fake_credentials: bool) -> dict[str, str]:
    """AWS_* variables for an endpoint; moto accepts any credentials, so fake ones keep real ones unused."""
    env = {"AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", REGION)}
    if endpoint_url:
        env["AWS_ENDPOINT_URL"] = endpoint_url
    if fake_credentials:
        env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_SESSION_TOKEN="testing",
                   AWS_DEFAULT_REGION=REGION)
    return env


@contextmanager
def patched_env(values: Mapping[str, str | None]) -> Iterator[None]:
    """Set environment variables for the handlers (they read Settings.from_env; None unsets one), then put things
    back."""
    saved = {k: os.environ.get(k) for k in values}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    aws.reset()
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        aws.reset()


def client(service: str) -> Any:
    """This thread's boto3 client (prhub.cloud.aws keeps one per thread and service, reset by patched_env)."""
    return aws.client(service)


def queue_account_and_name(url: str) -> tuple[str, str]:
    """(account id, queue name) of a queue's URL, …/<account id>/<queue name> (moto's, LocalStack's and SQS's)."""
    account, name = urlparse(url).path.strip("/").split("/")[:2]
    return account, name


def _sqs_queue(url: str) -> tuple[Any, Any, str] | None:
    """(moto's SQS backend, the queue, its name) for the queue at `url` in this process's moto; None when it holds
    no such queue (an endpoint of the caller's)."""
    if "moto.sqs.models" not in sys.modules:
        return None
    from moto.sqs.models import sqs_backends

    account, name = queue_account_and_name(url)
    backend = sqs_backends[account][os.environ.get("AWS_DEFAULT_REGION", REGION)]
    queue = backend.queues.get(name)
    return None if queue is None else (backend, queue, name)


class EmbeddedQueue:
    """What Lambda's event source mapping does to a queue (receive a batch, delete what succeeded, make failures
    visible again) on the embedded moto's SQS backend in this process, under the lock its requests take
    (moto_patches.serialize_moto); `of` gives None when the queue is not there. The functions' own SQS calls stay
    boto3's. Through boto3 a year's 519 receives and 331 deletes took 3.8 s of the one interpreter's GIL, of which
    moto's own work was under a third: the rest signing, serializing and parsing requests no function makes."""

    # The system attributes a record of Lambda's SQS event carries (runner.sqs_event).
    ATTRIBUTES = ("ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp")

    def __init__(self, backend: Any, name: str, lock: Any) -> None:
        self.backend, self.name, self.lock = backend, name, lock

    @classmethod
    def of(cls, url: str) -> EmbeddedQueue | None:
        """The queue at `url` when boto3 would be answered by this process's moto (no AWS_ENDPOINT_URL: the
        in-process mock), else None."""
        found = None if os.environ.get("AWS_ENDPOINT_URL") else _sqs_queue(url)
        if found is None:
            return None
        from moto.sqs.responses import SQSResponse

        return cls(found[0], found[2], sqs_lock(SQSResponse))

    def receive(self, count: int, visibility: int) -> list[dict[str, Any]]:
        """Up to `count` visible messages, hidden for `visibility` s, as ReceiveMessage with AttributeNames All
        answers them (moto's backend moves those past the redrive policy's maxReceiveCount to the DLQ, as there)."""
        with self.lock:
            got = self.backend.receive_message(self.name, count, 0, visibility, [])
        return [{"MessageId": m.id, "ReceiptHandle": m.receipt_handle, "MD5OfBody": m.body_md5, "Body": m.body,
                 "Attributes": {"SenderId": m.sender_id, "SentTimestamp": str(m.sent_timestamp),
                                "ApproximateReceiveCount": str(m.approximate_receive_count),
                                "ApproximateFirstReceiveTimestamp": str(m.approximate_first_receive_timestamp)}}
                for m in got]

    def delete(self, handles: list[str]) -> None:
        with self.lock:
            self.backend.delete_message_batch(self.name, [{"Id": str(i), "ReceiptHandle": h}
                                                          for i, h in enumerate(handles)])

    def change_visibility(self, handles: list[str], timeout: int) -> None:
        with self.lock:
            self.backend.change_message_visibility_batch(self.name, [
                {"Id": str(i), "ReceiptHandle": h, "VisibilityTimeout": timeout} for i, h in enumerate(handles)])

    def depth(self) -> int:
        """Its messages, visible, delayed or in flight (the three ApproximateNumberOfMessages* summed). Read
        without the lock: moto replaces the list whole when it deletes, and len() of a list is atomic."""
        return len(self.backend.queues[self.name]._messages)


def queued(url: str) -> list[tuple[str, str, float]]:
    """Every message the embedded SQS holds in the queue at `url`, visible, delayed or in flight, as (message id,
    body, due): `due` the epoch second from which it can be received.

    SQS's API receives only visible messages: a rate-limited PR waiting as a delayed copy, or a retried one hidden
    until its retry, cannot be read through it, so the state reads moto's queue itself (this process's server)."""
    found = _sqs_queue(url)
    if found is None:
        raise KeyError(f"the embedded SQS holds no queue at {url}")
    queue = found[1]
    with queue._messages_lock:  # the workers may still be sending or deleting
        messages = list(queue._messages)
    return [(m.id, m.body, max(m.visible_at, m.delayed_until) / 1000) for m in messages]


def stored(bucket: str) -> list[tuple[str, str, Callable[[], bytes]]] | None:
    """Every object of the embedded S3's `bucket` as (key, ETag as S3 lists it, its body when called), read from
    moto's backend in this process; None when this process's moto has no such bucket (an endpoint of the caller's).

    A state save and the site copy read every object: through boto3 each was a request moto parsed and answered
    (a year's 13,000 reads were most of its 28 s of copy and save). Bodies are read one at a time, when asked: moto
    copies each out of its buffer, and a month's site at once would double what the run holds."""
    backend = _s3_backend()
    found = backend.buckets.get(bucket) if backend is not None else None
    if found is None:
        return None
    return [(name, key.etag, _reader(key)) for name, key in sorted(found.keys.items())]


def _reader(key: Any) -> Callable[[], bytes]:
    return lambda: bytes(key.value)


def restore_objects(bucket: str, objects: Iterable[tuple[str, bytes, str]]) -> bool:
    """Put (key, body, content type) objects in the embedded S3's `bucket` through moto's backend, as a PutObject
    would leave them; False (nothing put) when this process's moto has no such bucket. A year's state holds about
    7,000 objects: through boto3 each was a request moto parsed and answered, most of a restore's 17 s."""
    backend = _s3_backend()
    if backend is None or bucket not in backend.buckets:
        return False
    for key, body, content_type in objects:
        _put_object(backend, bucket, key, body, {"Content-Type": content_type})
    return True


def _put_object(backend: Any, bucket: str, key: str, body: bytes, headers: dict[str, str]) -> None:
    """An object put in moto's S3 backend with the metadata a PutObject with these `headers` leaves."""
    from moto.s3.utils import metadata_from_headers

    backend.put_object(bucket, key, bytes(body)).set_metadata(metadata_from_headers(headers))


def restore_items(table: str, items: Iterable[dict[str, Any]]) -> bool:
    """Put items (DynamoDB's JSON, binary values as base64 text, as on the wire) in the embedded DynamoDB's
    `table` through moto's backend; False (nothing put) when this process's moto has no such table."""
    backend = _dynamodb_backend()
    if backend is None or table not in backend.tables:
        return False
    for item in items:
        backend.put_item(table, item)
    return True


def table_items(table: str) -> list[dict[str, Any]] | None:
    """Every item of the embedded DynamoDB's `table` as a Scan through boto3 gives it (binary values as
    {"__b64__": base64}, the state's form: prhub_local.state._encode), read from moto's backend in this process;
    None when this process's moto has no such table. A save scanned every table through boto3 and moto's
    serializer: 2.7 s of a year's re-run for its 6,600 items."""
    backend = _dynamodb_backend()
    if backend is None or table not in backend.tables:
        return None
    return [{name: _attribute(value) for name, value in item.attrs.items()}
            for item in backend.tables[table].all_items()]


def _attribute(value: Any) -> dict[str, Any]:
    """A moto DynamoType as an attribute value in the state's form."""
    kind, held = value.type, value.value
    if kind == "B":
        return {"B": _b64(held)}
    if kind == "BS":
        return {"BS": [_b64(v) for v in held]}
    if kind == "M":
        return {"M": {k: _attribute(v) for k, v in held.items()}}
    if kind == "L":
        return {"L": [_attribute(v) for v in held]}
    return {kind: held}


def _b64(held: Any) -> dict[str, str]:
    return {"__b64__": base64.b64encode(held).decode() if isinstance(held, bytes | bytearray) else str(held)}


def _dynamodb_backend() -> Any | None:
    if "moto.dynamodb.models" not in sys.modules:
        return None
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    return dynamodb_backends[os.environ.get("MOTO_ACCOUNT_ID", DEFAULT_ACCOUNT_ID)][
        os.environ.get("AWS_DEFAULT_REGION", REGION)]


# Parsed documents, one memo for the process as a Lambda's (aws.S3Bucket's) is: each worker thread's handlers have an
# EmbeddedBucket of their own, so the report's fan-out and then the pages' messages parsed a year's 1,649 PR pages
# and 54 pulls.json twice and three times (1,711 parses more, 0.5 s of the GIL).
_memo = JsonMemo(JSON_MEMO_BYTES)


def _s3_backend() -> Any | None:
    if "moto.s3.models" not in sys.modules:  # moto never started here: the bucket is elsewhere
        return None
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    account = os.environ.get("MOTO_ACCOUNT_ID", DEFAULT_ACCOUNT_ID)
    # Looked up as the plain dicts they are once made: moto's own lookup takes its global backend lock and lists
    # the accounts each time, a fifth of a relisted PR page's GIL time (a year's pages look it up 15,000 times).
    per_account = dict.get(s3_backends, account) or s3_backends[account]
    return dict.get(per_account, "aws") or per_account["global"]  # S3 is one backend per partition: "aws"


class EmbeddedBucket:
    """prhub.site.publish.Bucket over the embedded moto's S3 backend in this process, for `prhub run`'s handlers:
    what aws.S3Bucket does through boto3, without a request per call. A year's 1,649 PR pages made about 13,000
    such calls (four puts and three reads a page), each signed by botocore, parsed and answered by moto and parsed
    again: 33 s of the 76 s the run's one interpreter held the GIL for. The objects, their ETags and metadata
    are moto's own, as a PutObject leaves them; S3Bucket itself is tested against moto on its own."""

    def __init__(self, s3: Any, name: str) -> None:
        del s3  # the client aws.S3Bucket would use: not needed in this process
        self.name = name
        self.memo = _memo

    def _backend(self) -> Any:
        backend = _s3_backend()
        if backend is None:
            raise RuntimeError("the embedded S3 is not running in this process")
        return backend

    def put(self, key: str, body: bytes, content_type: str, cache_control: str) -> None:
        _put_object(self._backend(), self.name, key, body, {"Content-Type": content_type,
                                                            "Cache-Control": cache_control})

    def get(self, key: str) -> bytes | None:
        found = self._backend().get_object(self.name, key)
        return None if found is None else bytes(found.value)

    def get_json(self, key: str) -> Any | None:
        """As aws.S3Bucket.get_json: parsed once while the object's ETag stays the same, read-only."""
        found = self._backend().get_object(self.name, key)
        if found is None:
            self.memo.drop((self.name, key))
            return None
        held = self.memo.get((self.name, key))
        if held is not None and held[0] == found.etag:  # unchanged: not even copied out of moto's buffer
            return held[1]
        return self.memo.parse((self.name, key), found.etag, bytes(found.value))

    def folders(self, prefix: str) -> Iterator[str]:
        """S3's ListObjectsV2 with a "/" delimiter: the distinct next path segments under `prefix`, in order."""
        names = sorted(self._backend().get_bucket(self.name).keys.keys())
        yield from dict.fromkeys(prefix + name[len(prefix):].split("/", 1)[0] + "/"
                                 for name in names if name.startswith(prefix) and "/" in name[len(prefix):])
