"""The start-up check of the embedded AWS: every moto symbol a patch replaces must exist, or it fails plainly."""
from __future__ import annotations

import types
from importlib import metadata

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
