"""The start-up check of the embedded AWS: every moto symbol a patch replaces must exist, or it fails plainly."""
from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from typing import Any

import pytest

from prhub_local.moto_patches import MotoPatchError, check_moto


def test_the_installed_moto_has_every_symbol_the_patches_replace() -> None:
    check_moto()  # raises if the pinned range in pyproject.toml no longer matches the patches


def test_a_moto_without_a_patched_symbol_fails_naming_the_version_and_the_symbol() -> None:
    # GIVEN a moto whose SQS models lost unix_time_millis, and whose SQSResponse lost call_action
    responses = types.ModuleType("moto.sqs.responses")
    responses.SQSResponse = type("SQSResponse", (), {})  # type: ignore[attr-defined]
    fakes = {"moto.sqs.models": types.ModuleType("moto.sqs.models"), "moto.sqs.responses": responses}
    symbols = [("moto.sqs.models", "unix_time_millis"), ("moto.sqs.responses", "SQSResponse.call_action")]
    # WHEN the check runs
    with pytest.raises(MotoPatchError) as raised:
        check_moto(symbols, load=fakes.__getitem__, version="9.9.9")
    # THEN it names the version and both missing symbols
    message = str(raised.value)
    assert "moto 9.9.9" in message
    assert "moto.sqs.models.unix_time_millis" in message and "moto.sqs.responses.SQSResponse.call_action" in message


def test_a_missing_module_is_named_and_the_installed_version_by_default() -> None:
    def load(name: str) -> types.ModuleType:
        raise ModuleNotFoundError(name)

    with pytest.raises(MotoPatchError, match=rf"moto {metadata.version('moto')} lacks moto\.dynamodb\.models\b"):
        check_moto([("moto.dynamodb.models", "copy")], load=load)



def test_the_embedded_ssm_answers_without_loading_moto_ec2() -> None:
    # GIVEN a fresh interpreter (moto keeps its modules per process) with the embedded AWS in-process
    import subprocess
    import sys

    code = ("import sys, boto3\n"
            "from prhub_local.embedded import EmbeddedAws, aws_env\n"
            "import os; os.environ.update(aws_env(None, True))\n"
            "with EmbeddedAws(in_process=True):\n"
            "    ssm = boto3.client('ssm', region_name='us-east-1')\n"
            "    ssm.put_parameter(Name='/p', Value='v', Type='String')\n"
            "    print(ssm.get_parameter(Name='/p')['Parameter']['Value'], 'moto.ec2' in sys.modules)\n")
    # WHEN a parameter is put and read back
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    # THEN SSM answers and moto's EC2 (1.35 s of imports) was never loaded
    assert out == ["v", "False"]


def test_s3_calls_reload_moto_s3_urls_only_when_its_endpoints_setting_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the embedded S3 with a bucket, and moto's reload of its URL module counted
    import os

    import boto3
    import moto.s3.models as s3_models

    from prhub_local.embedded import EmbeddedAws, aws_env

    reloads: list[str] = []
    real_reload = s3_models.reload
    monkeypatch.setattr(s3_models, "reload", lambda module: reloads.append(module.__name__) or real_reload(module))
    monkeypatch.delenv("MOTO_S3_CUSTOM_ENDPOINTS", raising=False)
    for key, value in aws_env(None, True).items():
        monkeypatch.setenv(key, value)
    with EmbeddedAws(in_process=True):
        s3 = boto3.client("s3", region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
        s3.create_bucket(Bucket="urls-once")
        # WHEN objects are put and read, then the custom-endpoints setting changes and one more is read
        for i in range(5):
            s3.put_object(Bucket="urls-once", Key=f"k{i}", Body=b"x")
            assert s3.get_object(Bucket="urls-once", Key=f"k{i}")["Body"].read() == b"x"
        before = len(reloads)
        monkeypatch.setenv("MOTO_S3_CUSTOM_ENDPOINTS", "http://custom.example:4566")
        s3.get_object(Bucket="urls-once", Key="k0")
    # THEN the URL module was reloaded at most once for the ten calls (moto reloaded it twice a call), and again
    # once when the setting changed
    assert before <= 1 and len(reloads) == before + 1


@contextmanager
def _embedded(monkeypatch: pytest.MonkeyPatch, service: str = "sqs") -> Iterator[Any]:
    """A client of the embedded AWS's `service`, in this process."""
    import os

    import boto3

    from prhub_local.embedded import EmbeddedAws, aws_env

    for key, value in aws_env(None, True).items():
        monkeypatch.setenv(key, value)
    with EmbeddedAws(in_process=True):
        yield boto3.client(service, region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


def _counted(monkeypatch: pytest.MonkeyPatch, prop: str) -> list[int]:
    """One entry for each time moto computes the queue property `prop`."""
    import moto.sqs.models as sqs_models

    calls: list[int] = []
    real = getattr(sqs_models.Queue, prop)
    monkeypatch.setattr(sqs_models.Queue, prop, property(lambda q: calls.append(1) or real.fget(q)))
    return calls


def test_sqs_receives_without_computing_the_queue_s_attributes_and_still_drops_expired_messages(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the embedded SQS with a queue that keeps messages 60 s, and moto's queue attributes counted
    import moto.sqs.models as sqs_models

    computed = _counted(monkeypatch, "attributes")
    with _embedded(monkeypatch) as sqs:
        url = sqs.create_queue(QueueName="retention", Attributes={"MessageRetentionPeriod": "60"})["QueueUrl"]
        sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(5)])
        computed.clear()
        # WHEN the messages are received while fresh
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        assert sorted(m["Body"] for m in got) == [f"m{i}" for i in range(5)]
        # THEN no attribute of the queue was computed for them (moto did so once per message)
        assert computed == []
        # AND a message older than the retention period is not received
        sqs.send_message(QueueUrl=url, MessageBody="old")
        monkeypatch.setattr(sqs_models, "unix_time", lambda *_: __import__("time").time() + 61)
        assert "Messages" not in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)


def test_sqs_sends_without_counting_the_queue_s_messages_and_get_queue_attributes_still_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the embedded SQS, and moto's message counts watched
    counted = _counted(monkeypatch, "approximate_number_of_messages")
    with _embedded(monkeypatch) as sqs:
        url = sqs.create_queue(QueueName="sends", Attributes={"DelaySeconds": "0"})["QueueUrl"]
        # WHEN 25 messages are sent, one by one and in batches
        sqs.send_message(QueueUrl=url, MessageBody="one")
        for start in (0, 10, 20):
            sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{start + i}"}
                                                          for i in range(min(10, 24 - start))])
        # THEN no send counted the queue's messages (moto counted them at every send)
        assert counted == []
        # AND the queue's attributes still count all of them, and name every attribute as before
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert attrs["ApproximateNumberOfMessages"] == "25" and counted
        named = {"ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessagesNotVisible", "DelaySeconds"}
        assert named <= set(attrs)


def test_dynamodb_item_reads_are_written_as_moto_s_serializer_writes_them_for_every_attribute_type(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN the embedded DynamoDB, and every answer of an item read written both ways
    import json

    from moto.dynamodb.responses import DynamoResult

    from prhub_local.moto_patches import READS

    compared: list[str] = []
    with _embedded(monkeypatch, "dynamodb") as ddb:
        plain = DynamoResult.execute_result
        assert getattr(plain, "plain", False)

        def both(self: Any, context: Any) -> Any:
            theirs, ours = plain.__wrapped__(self, context), plain(self, context)  # type: ignore[attr-defined]
            if context.operation_model.name in READS:
                assert (ours[0], json.loads(ours[2])) == (theirs[0], json.loads(theirs[2]))
                assert ours[1]["Content-Type"] == theirs[1]["Content-Type"]
                compared.append(context.operation_model.name)
            return ours

        monkeypatch.setattr(DynamoResult, "execute_result", both)
        ddb.create_table(TableName="t", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                    {"AttributeName": "sk", "KeyType": "RANGE"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                               {"AttributeName": "sk", "AttributeType": "N"}])
        every = {"s": {"S": "周报 <a>"}, "n": {"N": "-1.50"}, "b": {"B": b"\x00\xffgz"}, "t": {"BOOL": True},
                 "z": {"NULL": True}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2.5"]},
                 "bs": {"BS": [b"\x01", b"\x02"]}, "l": {"L": [{"S": "x"}, {"N": "3"}, {"B": b"\x03"}]},
                 "m": {"M": {"in": {"M": {"deep": {"L": [{"BOOL": False}]}}}, "e": {"M": {}}, "el": {"L": []}}}}
        for sk in range(3):
            ddb.put_item(TableName="t", Item={"pk": {"S": "a"}, "sk": {"N": str(sk)}, **every})
        # WHEN every kind of item read is made
        key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
        ddb.get_item(TableName="t", Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
        ddb.get_item(TableName="t", Key={"pk": {"S": "none"}, "sk": {"N": "1"}})
        ddb.get_item(TableName="t", Key=key, ProjectionExpression="#m.#i, bs", ExpressionAttributeNames={
            "#m": "m", "#i": "in"})
        page = ddb.query(TableName="t", KeyConditionExpression="pk = :p", ExpressionAttributeValues={
            ":p": {"S": "a"}}, Limit=2, ReturnConsumedCapacity="TOTAL")
        ddb.query(TableName="t", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "a"}},
                  ExclusiveStartKey=page["LastEvaluatedKey"], Select="COUNT")
        ddb.scan(TableName="t", FilterExpression="sk > :z", ExpressionAttributeValues={":z": {"N": "0"}})
        got = ddb.batch_get_item(RequestItems={"t": {"Keys": [key, {"pk": {"S": "none"}, "sk": {"N": "9"}}]}},
                                 ReturnConsumedCapacity="TOTAL")
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": "t", "Key": key}}])
        # THEN both wrote the same document for each, and the client reads the values back unchanged
        assert set(compared) == READS and len(compared) == 8
        [item] = got["Responses"]["t"]
        assert item["b"] == {"B": b"\x00\xffgz"} and item["bs"] == {"BS": [b"\x01", b"\x02"]}
        assert item["m"]["M"]["in"] == {"M": {"deep": {"L": [{"BOOL": False}]}}} and item["n"] == {"N": "-1.50"}


def test_a_condition_is_parsed_once_and_still_judges_each_item_by_its_own_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from botocore.exceptions import ClientError
    from moto.dynamodb.comparisons import ConditionExpressionParser

    parses: list[str | None] = []
    real = ConditionExpressionParser._make_op_condition
    monkeypatch.setattr(ConditionExpressionParser, "_make_op_condition",
                        lambda self, node: parses.append(self.condition_expression) or real(self, node))
    with _embedded(monkeypatch, "dynamodb") as ddb:
        ddb.create_table(TableName="t", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
        once = "attribute_not_exists(k)"
        # GIVEN twenty transactions of five puts under one condition (with names and values it does not use)
        for t in range(20):
            ddb.transact_write_items(TransactItems=[{"Put": {
                "TableName": "t", "Item": {"k": {"S": f"{t}-{i}"}, "n": {"N": str(i)}}, "ConditionExpression": once}}
                for i in range(5)])
        # THEN it was parsed once, not 200 times, and still refuses a duplicate, naming the put
        assert parses.count(once) == 1
        with pytest.raises(ClientError) as refused:
            ddb.transact_write_items(TransactItems=[
                {"Put": {"TableName": "t", "Item": {"k": {"S": "new"}}, "ConditionExpression": once}},
                {"Put": {"TableName": "t", "Item": {"k": {"S": "0-0"}}, "ConditionExpression": once}}])
        reasons = [r["Code"] for r in refused.value.response["CancellationReasons"]]
        assert reasons == ["None", "ConditionalCheckFailed"]
        assert "Item" not in ddb.get_item(TableName="t", Key={"k": {"S": "new"}})  # the transaction was undone
        # AND one expression with other values is judged by its own: #n < :max, where the item's n is 3
        cap = "#n < :max"
        ddb.put_item(TableName="t", Item={"k": {"S": "c"}, "n": {"N": "3"}})
        for limit, allowed in (("5", True), ("2", False), ("5", True), ("3", False)):
            try:
                ddb.update_item(TableName="t", Key={"k": {"S": "c"}}, UpdateExpression="SET m = :max",
                                ConditionExpression=cap, ExpressionAttributeNames={"#n": "n"},
                                ExpressionAttributeValues={":max": {"N": limit}})
                assert allowed, limit
            except ClientError as exc:
                assert not allowed and exc.response["Error"]["Code"] == "ConditionalCheckFailedException", limit
        assert parses.count(cap) == 3  # once for each of its three values
        # AND an expression that does not parse is refused every time, never kept
        for _ in range(2):
            with pytest.raises((ClientError, ValueError)):  # moto's own answer to it: a ValueError
                ddb.put_item(TableName="t", Item={"k": {"S": "x"}}, ConditionExpression="attribute_not_exists(")
