"""template.yaml, read and provisioned: the local stack cannot drift from what is deployed.

`load_template` reads the SAM template with CloudFormation's short tags kept;
`create_stack` makes its tables, queues (with their redrive policies), bucket
and SSM parameter from the resources' own Properties under a name prefix, and
the functions' environment from its Globals.
"""
from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from prhub_local.embedded import client, queue_account_and_name

LOCAL_VISIBILITY_TIMEOUT = 2  # s: the queues' timeout and the retry delay of failed records, so retries and
#                              DLQ moves happen within a run, with SQS's real semantics


def default_root() -> Path:
    """The project checkout holding template.yaml and functions/ (this package sits at its top)."""
    return Path(__file__).resolve().parents[1]


# -- loading ------------------------------------------------------------------------------------

# libyaml's parser where PyYAML was built with it (its wheels are): the same documents, a tenth of the CPU. Every
# local run and invoke reads the template (0.16 s of CPU in pure Python, 0.016 s in C), and the suite hundreds of times.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CfnLoader(_SafeLoader):  # type: ignore[misc]
    """YAML loader that keeps CloudFormation's short tags (!Ref, !GetAtt, !Sub, ...) as their long forms."""


def _cfn_tag(loader: Any, suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def load_template(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_CfnLoader)  # noqa: S506 - a (C)SafeLoader subclass


# -- the stack ------------------------------------------------------------------------------------------

@dataclass
class Stack:
    """The local resources made from template.yaml: physical names by logical id, and the functions' env."""

    template: dict[str, Any]
    prefix: str
    tables: dict[str, str] = field(default_factory=dict)
    queues: dict[str, str] = field(default_factory=dict)  # logical id -> URL
    queue_arns: dict[str, str] = field(default_factory=dict)
    buckets: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def resources(self, kind: str) -> dict[str, dict[str, Any]]:
        return {k: v.get("Properties") or {} for k, v in self.template["Resources"].items() if v["Type"] == kind}

    def function_env(self) -> dict[str, str]:
        """The functions' environment for a local run. Secrets are referenced by name and are not part of
        the stack, so the names are left out: the ecosystem's GITHUB_TOKEN / OPENAI_API_KEY stand in. A local
        run reads export files on this machine (the stack may not) and sends no traces. The price table the
        template leaves empty is the shell's PRHUB_LLM_PRICES, if any, and the site's address (CloudFront's, which
        has no local stand-in) the shell's SITE_URL: where a GitHub Action publishes the site, so that the posts
        and feeds link to it."""
        return {**{k: v for k, v in self.env.items()
                   if not k.endswith("_SECRET") and not (k.startswith(("PRHUB_LLM_PRICES", "SITE_URL")) and not v)},
                "LOCAL_EXPORTS": "true", "POWERTOOLS_TRACE_DISABLED": "true"}

    def physical(self, logical: str) -> str | None:
        for names in (self.tables, self.queues, self.buckets, self.parameters):
            if logical in names:
                return names[logical]
        return None


def _add_missing_indexes(ddb: Any, name: str, spec: dict[str, Any]) -> None:
    """Add to an existing table the template's global secondary indexes it lacks (a table made before the index):
    DynamoDB (and moto) index its existing items, so the code may query the index at once."""
    wanted = spec.get("GlobalSecondaryIndexes") or []
    if not wanted:
        return
    have = {i["IndexName"] for i in ddb.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes", [])}
    for index in wanted:
        if index["IndexName"] not in have:  # one index a call: DynamoDB creates one at a time
            ddb.update_table(TableName=name, AttributeDefinitions=spec["AttributeDefinitions"],
                             GlobalSecondaryIndexUpdates=[{"Create": index}])


def create_stack(template: dict[str, Any], prefix: str, watchlist: str | None = None,
                 visibility_timeout: int | None = LOCAL_VISIBILITY_TIMEOUT) -> Stack:
    """Create (or reuse) the template's tables, queues, bucket and parameter under `prefix`."""
    stack = Stack(template, prefix)
    ddb, sqs, s3, ssm = client("dynamodb"), client("sqs"), client("s3"), client("ssm")
    for logical, props in stack.resources("AWS::DynamoDB::Table").items():
        name = f"{prefix}-{logical}"
        spec: dict[str, Any] = {"TableName": name, "KeySchema": props["KeySchema"],
                                "AttributeDefinitions": props["AttributeDefinitions"],
                                "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST")}
        if props.get("GlobalSecondaryIndexes"):
            spec["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
        try:
            ddb.create_table(**spec)
            ttl = props.get("TimeToLiveSpecification")
            if ttl and ttl.get("Enabled"):
                ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                    "AttributeName": ttl["AttributeName"], "Enabled": True})
        except ddb.exceptions.ResourceInUseException:
            _add_missing_indexes(ddb, name, spec)  # an existing endpoint already has it, perhaps from before an index
        stack.tables[logical] = name
    queues = stack.resources("AWS::SQS::Queue")
    # Dead-letter queues first: the others' redrive policies name them.
    for logical, props in sorted(queues.items(), key=lambda kv: "RedrivePolicy" in kv[1]):
        attributes: dict[str, str] = {}
        if "MessageRetentionPeriod" in props:
            attributes["MessageRetentionPeriod"] = str(props["MessageRetentionPeriod"])
        timeout = visibility_timeout if visibility_timeout is not None else props.get("VisibilityTimeout")
        if timeout is not None:
            attributes["VisibilityTimeout"] = str(timeout)
        redrive = props.get("RedrivePolicy")
        if redrive:
            target = redrive["deadLetterTargetArn"]
            dlq = target["Fn::GetAtt"][0] if isinstance(target, dict) else None
            attributes["RedrivePolicy"] = json.dumps({
                "deadLetterTargetArn": stack.queue_arns[dlq] if dlq else target,
                "maxReceiveCount": int(redrive["maxReceiveCount"])})
        url = sqs.create_queue(QueueName=f"{prefix}-{logical}", Attributes=attributes)["QueueUrl"]
        stack.queues[logical] = url
        stack.queue_arns[logical] = queue_arn(url, sqs.meta.region_name)
    for logical in stack.resources("AWS::S3::Bucket"):
        name = f"{prefix}-{logical}".lower()
        with suppress(s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
            s3.create_bucket(Bucket=name)
        stack.buckets[logical] = name
    for logical, props in stack.resources("AWS::SSM::Parameter").items():
        name = f"{prefix}-{logical}"
        value = watchlist if watchlist is not None else _resolve(props.get("Value"), stack)
        ssm.put_parameter(Name=name, Value=value or "{}", Type=props.get("Type", "String"), Overwrite=True)
        stack.parameters[logical] = name
    variables = ((template.get("Globals") or {}).get("Function") or {}).get("Environment", {}).get("Variables", {})
    stack.env = {k: _resolve(v, stack) for k, v in variables.items()}
    return stack


def queue_arn(url: str, region: str) -> str:
    """A queue's ARN from its URL (…/<account>/<name>), as SQS forms both: a third of the calls a stack took was
    GetQueueAttributes asking for it."""
    account, name = queue_account_and_name(url)
    return f"arn:aws:sqs:{region}:{account}:{name}"


def _resolve(value: Any, stack: Stack) -> str:
    """A template value as the local stack sees it: !Ref of a resource or parameter; other intrinsics are ''."""
    if isinstance(value, dict) and "Ref" in value:
        name = value["Ref"]
        physical = stack.physical(name)
        if physical is not None:
            return physical
        return str((stack.template.get("Parameters") or {}).get(name, {}).get("Default", ""))
    if isinstance(value, dict):
        return ""  # e.g. the CloudFront domain: nothing local stands for it
    return "" if value is None else str(value)

