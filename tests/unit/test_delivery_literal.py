"""A delivery message never carries a literal channel URL or signing secret (issue 46, item 7): DeliveryQueue, its
DLQ and the local state saved from them hold a reference to the channel in the watch list, and the delivery finds
it there again; the stack, which takes no literal URL, says why it drops such a message."""
from __future__ import annotations

import json

import pytest
from prhub.cloud import redaction
from prhub.core.config import WatchList
from prhub.core.errors import InputError
from prhub.flow.deliver import channel_id, request_channels
from prhub.flow.delivery_deps import literal_channels
from prhub.flow.messages import DeliveryMessage

from tests.fakes.memory import MemoryQueue

WECOM = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"
FEISHU = "https://open.feishu.cn/open-apis/bot/v2/hook/3f2c1e0a-8b7d-4c55-9e0f-1a2b3c4d5e6f"
SIGN = "feishu-signing-key-0123456789"


def watchlist() -> WatchList:
    return WatchList.parse(json.dumps({"repos": [{"repo": "acme/rocket", "notify": [
        {"channel": "wecom", "url": WECOM},
        {"channel": "feishu", "url": FEISHU, "secret": SIGN},
        {"channel": "slack", "url_secret": "prhub/notify/slack-eng"}]}]}))


def test_a_literal_channel_is_queued_by_reference_and_found_in_the_watch_list_again() -> None:
    channels = watchlist().get("acme/rocket").notify
    queue = MemoryQueue()
    assert request_channels(channels, "en", "acme/rocket/reports/w/", "run-1", queue, "q") == 3
    bodies = [json.dumps(m.body) for m in queue.messages["q"]]
    for value in (WECOM, FEISHU, SIGN, "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa", "3f2c1e0a-8b7d-4c55"):
        assert not any(value in b for b in bodies), "a literal channel value is in a delivery message"
    # the named channel is carried as it is; the literal ones by reference, found again with their values
    lookup = literal_channels(watchlist)
    jobs = [DeliveryMessage.parse(b, lookup) for b in bodies]
    assert [j.channel for j in jobs] == list(channels)
    assert [channel_id(j.channel) for j in jobs] == [channel_id(c) for c in channels]  # one ledger entry each


def test_a_reference_the_watch_list_lost_or_the_stack_cannot_follow_is_refused_with_the_reason() -> None:
    queue = MemoryQueue()
    request_channels(watchlist().get("acme/rocket").notify[:1], "en", "k/", "run-1", queue, "q")
    body = json.dumps(queue.messages["q"][0].body)
    with pytest.raises(InputError, match="for the local runner only"):
        DeliveryMessage.parse(body)
    empty = WatchList.parse('{"repos": ["acme/rocket"]}')
    with pytest.raises(InputError, match="no longer in the watch list"):
        DeliveryMessage.parse(body, literal_channels(lambda: empty))


def test_the_watch_lists_literal_values_are_the_logs_to_hide() -> None:
    redaction.known_channels(watchlist().channels())
    line = "PutParameter body " + json.dumps({"Value": WECOM, "sign": SIGN, "hook": FEISHU})
    shown = redaction.redact(line)
    for value in (WECOM, SIGN, FEISHU, "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"):
        assert value not in shown
