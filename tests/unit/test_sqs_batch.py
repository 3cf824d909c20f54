"""prhub.cloud.batch: an SQS event's records handled one by one, the failed ones listed for SQS (and a batch that
failed whole raising, unless asked not to); Powertools' batch module loaded only when a batch comes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

LAYER = Path(__file__).resolve().parents[2] / "layers" / "prhub"


def event(*bodies: str) -> dict[str, Any]:
    return {"Records": [{"messageId": f"m{i}", "receiptHandle": "h", "body": body, "attributes": {},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:1:q", "awsRegion": "us-east-1"}
                        for i, body in enumerate(bodies)]}


def handler(record: Any) -> str:
    if record.body == "bad":
        raise ValueError("a failing record")
    return str(record.body)


def test_the_records_that_raise_are_listed_for_sqs_and_the_others_done() -> None:
    from prhub.cloud.batch import sqs_batch

    seen: list[str] = []

    def keep(record: Any) -> None:  # Powertools hands the record by name
        seen.append(handler(record))

    answer = sqs_batch(event("a", "bad", "b"), None, keep)
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m1"}]} and seen == ["a", "b"]
    assert sqs_batch(event("a"), None, handler) == {"batchItemFailures": []}


def test_a_batch_that_failed_whole_raises_unless_told_to_list_it() -> None:
    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
    from prhub.cloud.batch import sqs_batch

    with pytest.raises(BatchProcessingError):
        sqs_batch(event("bad"), None, handler)
    listed = sqs_batch(event("bad", "bad"), None, handler, raise_on_entire_batch_failure=False)
    assert listed == {"batchItemFailures": [{"itemIdentifier": "m0"}, {"itemIdentifier": "m1"}]}


def test_powertools_batch_module_comes_with_the_first_batch_not_the_import() -> None:
    code = ("import json, sys; import prhub.cloud.batch; "
            "print(json.dumps([m for m in sys.modules if m.startswith('aws_lambda_powertools.utilities.batch')]))")
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(LAYER)}, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert json.loads(out) == []
