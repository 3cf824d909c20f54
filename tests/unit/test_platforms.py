"""One table of platforms (prhub.core.platforms) for the watch list's validation, the senders, the logs' redaction
and the tests: a name added to the table without a sender, or a sender without a name, fails here, not at send
time with a KeyError."""
from __future__ import annotations

from typing import Any

import pytest
from prhub.cloud import redaction
from prhub.core.channels import parse_channel
from prhub.core.errors import InputError
from prhub.core.platforms import PLATFORMS, names, signed
from prhub.notify import delivery

# A hook URL of each platform that holds its credential, as the platform hands it out (the credential: SECRET).
SECRET = "Zq8sEcReT0ken4"
HOOKS = {
    "slack": f"https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/{SECRET}",
    "feishu": f"https://open.feishu.cn/open-apis/bot/v2/hook/{SECRET}",
    "dingtalk": f"https://oapi.dingtalk.com/robot/send?access_token={SECRET}",
    "wecom": f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={SECRET}",
    "teams": f"https://acme.webhook.office.com/webhookb2/{SECRET}@tenant/IncomingWebhook/abc/def",
}


def item(name: str, **settings: Any) -> dict[str, Any]:
    """The least a watch list says for a channel of `name`."""
    address: dict[str, dict[str, Any]] = {"url": {"url_secret": f"prhub/notify/{name}"},
                                          "email": {"to": ["ops@example.org"]}, "github": {}}
    return {"channel": name, **address[PLATFORMS[name].address], **settings}


def test_every_platform_has_a_sender_and_every_sender_a_platform() -> None:
    assert sorted(delivery.SENDERS) == sorted(PLATFORMS)


@pytest.mark.parametrize("name", list(PLATFORMS))
def test_each_sender_sends_the_way_its_platform_is_addressed(name: str) -> None:
    module = delivery.SENDERS[name]
    address = PLATFORMS[name].address
    if address == "url":
        assert callable(module.build) and callable(module.classify) and delivery.url_sender(name) is module
        return
    with pytest.raises(ValueError, match="not sent to a URL"):
        delivery.url_sender(name)
    assert callable(module.send if address == "email" else module.publish)


def test_the_watch_list_takes_every_platform_and_no_other_name() -> None:
    assert [parse_channel(item(name)).channel for name in PLATFORMS] == list(PLATFORMS)
    with pytest.raises(InputError, match="channel must be one of " + ", ".join(names())):
        parse_channel({"channel": "discord", "url_secret": "prhub/notify/discord"})


@pytest.mark.parametrize("name", names("url"))
def test_only_a_signing_platform_takes_a_signing_secret(name: str) -> None:
    settings = item(name, secret_name=f"prhub/notify/{name}-sign")
    if name in signed():
        assert parse_channel(settings).secret_name == settings["secret_name"]
    else:
        with pytest.raises(InputError, match="does not sign requests"):
            parse_channel(settings)


@pytest.mark.parametrize("name", list(PLATFORMS))
def test_an_idempotent_platform_is_always_resent_and_so_refuses_the_opt_in(name: str) -> None:
    assert delivery.idempotent(name) is PLATFORMS[name].idempotent
    if PLATFORMS[name].idempotent:
        with pytest.raises(InputError, match="always resent after a timeout"):
            parse_channel(item(name, resend_on_timeout=True))
    else:
        assert parse_channel(item(name, resend_on_timeout=True)).resend_on_timeout is True


def test_the_logs_mask_the_credential_in_each_platforms_hook_url() -> None:
    assert sorted(HOOKS) == sorted(name for name, p in PLATFORMS.items() if p.credential)
    for name, url in HOOKS.items():
        shown = redaction.redact(f"https://{url.split('://')[1].split('/')[0]}:443 \"POST {url} HTTP/1.1\" 200 2")
        assert SECRET not in shown and redaction.MASK in shown, (name, shown)
