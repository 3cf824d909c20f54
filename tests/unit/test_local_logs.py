"""The local harness's stderr: a handler's Powertools record is one readable line, never JSON with fake ARNs."""
from __future__ import annotations

import json

import pytest

from prhub_local.runner import readable

RECORD = {"level": "WARNING", "location": "deliver_one:133", "message": "channel cannot be resolved",
          "timestamp": "2026-12-02 04:29:10,998+0000", "service": "prhub", "cold_start": False,
          "function_name": "DeliveryFunction", "function_memory_size": 512,
          "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:DeliveryFunction",
          "function_request_id": "6b1c", "channel": "slack-1a2b", "error": "secret prhub/x\nnot found"}


def test_a_powertools_record_is_one_line_with_its_own_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_LOG_LEVEL", raising=False)
    line = readable(json.dumps(RECORD) + "\n")
    assert line == ("warning: DeliveryFunction: channel cannot be resolved "
                    "(channel=slack-1a2b, error=secret prhub/x not found)\n")


def test_records_below_the_log_level_are_left_out_and_other_text_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_LOG_LEVEL", raising=False)
    assert readable(json.dumps({**RECORD, "level": "INFO"}) + "\n") == ""
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "INFO")  # asked for: shown, still one line
    assert readable(json.dumps({**RECORD, "level": "INFO"})).startswith("info: DeliveryFunction: channel")
    assert readable("Traceback (most recent call last):\n") == "Traceback (most recent call last):\n"
    assert readable('{"not": "a record"}') == '{"not": "a record"}'
    long = readable(json.dumps({**RECORD, "error": "x" * 1000}))
    assert len(long) < 400 and long.endswith("…)\n")
