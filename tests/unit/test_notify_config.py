"""The watch list's `notify` setting: what is accepted, what is refused (with a message saying why)."""
from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from prhub.core import channels, config, platforms
from prhub.core.channels import Channel, parse_channels, resolve
from prhub.core.config import RepoConfig, WatchList
from prhub.core.errors import InputError


def watchlist(defaults: dict[str, Any], *repos: Any) -> WatchList:
    return WatchList.parse(json.dumps({"defaults": defaults, "repos": list(repos)}))


def test_defaults_apply_to_every_repository_and_a_repository_replaces_them() -> None:
    wl = watchlist({"notify": [{"channel": "slack", "url_secret": "prhub/slack"}]},
                   "acme/rocket", {"repo": "acme/engine", "notify": [{"channel": "email", "to": ["a@b.org"]}]})
    assert wl.get("acme/rocket").notify == (Channel("slack", url_secret="prhub/slack"),)
    assert wl.get("acme/engine").notify == (Channel("email", to=("a@b.org",)),)
    assert wl.get("acme/unlisted").notify == (Channel("slack", url_secret="prhub/slack"),)


def test_settings_round_trip_through_to_dict() -> None:
    cfg = RepoConfig.from_dict({"repo": "acme/rocket", "notify": [
        {"channel": "feishu", "url_secret": "u", "secret_name": "s", "lang": "en"},
        {"channel": "email", "to": ["x@example.org"]}]})
    assert RepoConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert RepoConfig.from_dict({"repo": "acme/rocket"}).notify == ()


def test_every_channel_kind_is_accepted() -> None:
    items = [{"channel": c, "url_secret": f"prhub/{c}"} for c in platforms.names("url")]
    items.append({"channel": "email", "to": "ops@example.org"})
    items.append({"channel": "github"})
    assert sorted(c.channel for c in parse_channels(items)) == sorted(platforms.PLATFORMS)


def test_a_github_channel_takes_its_settings_and_keeps_its_id_settings_only_when_set() -> None:
    [issue, discussion] = parse_channels([
        {"channel": "github", "labels": ["weekly", "report"], "close_previous": True, "lang": "en"},
        {"channel": "github", "mode": "discussion", "repo": "acme/forum", "category": "Announcements",
         "skip_empty": True, "token_secret": "prhub/notify/forum-token"}])
    assert (issue.mode, issue.repo, issue.labels, issue.close_previous, issue.skip_empty) == (
        "issue", None, ("weekly", "report"), True, False)
    assert (discussion.mode, discussion.repo, discussion.category, discussion.token_secret) == (
        "discussion", "acme/forum", "Announcements", "prhub/notify/forum-token")
    for channel in (issue, discussion):  # the queue message carries it: it must come back the same
        assert parse_channels([json.loads(json.dumps(channel.to_dict()))]) == (channel,)
    assert issue.to_dict() == {"channel": "github", "mode": "issue", "labels": ["weekly", "report"],
                               "close_previous": True, "lang": "en"}
    assert discussion.label == "github:discussion:acme/forum"


@pytest.mark.parametrize("item, message", [
    ({"channel": "github", "url_secret": "n"}, "posts with a GitHub token"),
    ({"channel": "github", "mode": "pr"}, "mode must be one of issue, discussion"),
    ({"channel": "github", "mode": "discussion"}, "needs `category`"),
    ({"channel": "github", "mode": "discussion", "category": "A", "labels": ["x"]}, "labels are for issues"),
    ({"channel": "github", "category": "A"}, "category is for discussions"),
    ({"channel": "github", "repo": "not a repo"}, "repo must look like owner/name"),
    ({"channel": "github", "labels": "weekly"}, "labels must be a list"),
    ({"channel": "github", "close_previous": "yes"}, "close_previous must be true or false"),
    ({"channel": "github", "updates": True}, "edits its post on every new revision"),
    ({"channel": "slack", "url_secret": "n", "labels": ["x"]}, "settings of a github channel"),
])
def test_bad_github_channels_are_refused(item: Any, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        watchlist({}, {"repo": "acme/rocket", "notify": [item]})


def test_a_digest_github_channel_names_its_repository() -> None:
    with pytest.raises(InputError, match=re.escape("digest.notify[0]: a github channel of the digest needs `repo`")):
        WatchList.parse(json.dumps({"repos": ["acme/rocket"], "digest": {"notify": [{"channel": "github"}]}}))
    parsed = WatchList.parse(json.dumps({"repos": ["acme/rocket"],
                                         "digest": {"notify": [{"channel": "github", "repo": "acme/.github"}]}}))
    assert parsed.digest is not None and parsed.digest.notify[0].repo == "acme/.github"


@pytest.mark.parametrize("item, message", [
    ({"channel": "irc", "url": "https://x"}, "notify[0].channel must be one of slack, feishu"),
    ({"channel": "slack", "url_secret": "n", "token": "t"}, "unknown notify[0] settings: token"),
    ({"channel": "slack"}, "needs exactly one of url_secret"),
    ({"channel": "slack", "url": "https://a", "url_secret": "n"}, "needs exactly one of url_secret"),
    ({"channel": "slack", "url_secret": "n", "secret": "s"}, "slack does not sign requests"),
    ({"channel": "teams", "url_secret": "n", "secret_name": "s"}, "teams does not sign requests"),
    ({"channel": "feishu", "url_secret": "n", "secret": "s", "secret_name": "t"}, "not both"),
    ({"channel": "webhook", "url": "ftp://host/x"}, "must be an http(s) URL"),
    ({"channel": "wecom", "url_secret": "n", "to": ["a@b.org"]}, "`to` is for email channels only"),
    ({"channel": "email"}, "needs `to`"),
    ({"channel": "email", "to": ["not an address"]}, "not e-mail addresses"),
    ({"channel": "email", "to": [f"u{i}@example.org" for i in range(51)]}, "at most 50"),
    ({"channel": "email", "to": ["a@b.org"], "url_secret": "n"}, "takes `to`, not url_secret"),
    ({"channel": "slack", "url_secret": "n", "lang": "fr"}, "lang must be one of zh, en"),
    ({"channel": "slack", "url_secret": ""}, "url_secret must be a non-empty string"),
    ("slack", "must be an object"),
])
def test_bad_channels_are_refused_with_a_clear_message(item: Any, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        watchlist({}, {"repo": "acme/rocket", "notify": [item]})


def test_notify_must_be_a_list() -> None:
    with pytest.raises(InputError, match="notify must be a list"):
        RepoConfig.from_dict({"repo": "acme/rocket", "notify": {"channel": "slack"}})


def test_languages_agree_with_config() -> None:
    assert channels.LANGUAGES == config.LANGUAGES


def test_the_stack_reads_url_and_secret_by_name() -> None:
    store = {"prhub/ding-url": " https://oapi.example/robot/send?access_token=t \n", "prhub/ding-sign": "SECx"}
    target = resolve(Channel("dingtalk", url_secret="prhub/ding-url", secret_name="prhub/ding-sign"),
                     store.__getitem__)
    assert (target.url, target.secret, target.label) == (
        "https://oapi.example/robot/send?access_token=t", "SECx", "dingtalk:prhub/ding-url")


def test_a_literal_url_is_for_the_local_runner_only(caplog: pytest.LogCaptureFixture) -> None:
    channel = Channel("webhook", url="https://hooks.example/x", secret="literal-secret")
    with pytest.raises(InputError, match="local runner only"):
        resolve(channel, {}.__getitem__)
    with caplog.at_level(logging.WARNING, logger="prhub.notify"):
        target = resolve(channel, {}.__getitem__, allow_literal=True)
    assert target.url == "https://hooks.example/x" and target.secret == "literal-secret"
    assert "literal url/secret" in caplog.text and "literal-secret" not in caplog.text
    assert "hooks.example" not in caplog.text


def test_a_secret_that_is_not_a_url_is_refused() -> None:
    with pytest.raises(InputError, match="not an http"):
        resolve(Channel("slack", url_secret="prhub/slack"), {"prhub/slack": "T000/B000/xyz"}.__getitem__)


def test_resend_on_timeout_is_a_per_channel_opt_in_the_webhook_does_not_need() -> None:
    # A chat platform or SES cannot drop a copy: resending after a timeout is the channel's choice, off by default
    slack = parse_channels([{"channel": "slack", "url_secret": "prhub/notify/s"}])[0]
    opted = parse_channels([{"channel": "feishu", "url_secret": "prhub/notify/f", "resend_on_timeout": True}])[0]
    assert slack.resend_on_timeout is False and "resend_on_timeout" not in slack.to_dict()
    assert opted.resend_on_timeout is True and parse_channels([opted.to_dict()])[0] == opted
    with pytest.raises(InputError, match=r"notify\[0\]\.resend_on_timeout must be true or false"):
        parse_channels([{"channel": "slack", "url_secret": "prhub/notify/s", "resend_on_timeout": "yes"}])
    # the generic webhook is always resent under one X-Prhub-Delivery id: the option would mean nothing there
    with pytest.raises(InputError, match="always resent after a timeout"):
        parse_channels([{"channel": "webhook", "url_secret": "prhub/notify/h", "resend_on_timeout": True}])
