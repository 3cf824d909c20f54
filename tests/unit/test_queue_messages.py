"""Every queue body is built as a typed message by its producer and parsed once, by that type, at its handler
(issue 49): the services behind a handler get the typed message, never a dict, and a malformed body is refused
where it is parsed (its handler acknowledges it: tests/functional/test_malformed_records.py), not retried.

Read from the source (ast), so a producer writing a dict of its own, or a service parsing a body again, fails here.
"""
from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prhub.core.channels import parse_channel
from prhub.core.config import RepoConfig
from prhub.core.errors import InputError
from prhub.core.judgements import Judgement
from prhub.core.models import PullRef
from prhub.core.period import Period
from prhub.flow.messages import DeliveryMessage, PagesMessage, ReportMessage
from prhub.flow.plan import Continuation, PlanMessage, PlanRequest
from prhub.flow.score import ScoreMessage

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layers" / "prhub" / "prhub"
# Each SQS-fed queue of the flow: its typed message, and the one file that parses its bodies. ScoreFunction hands
# its whole batch to the score worker (prhub.flow.score.score_batch), which parses each record as it takes it;
# PlanFunction hands PlanQueue's records to prhub.flow.plan.continue_listing, its other events being no queue's.
PARSED_AT = {"ScoreMessage": "layers/prhub/prhub/flow/score.py", "ReportMessage": "functions/report/app.py",
             "PagesMessage": "functions/pages/app.py", "DeliveryMessage": "functions/deliver/app.py",
             "PlanMessage": "layers/prhub/prhub/flow/plan.py"}
QUEUE_URLS = {"score_queue_url", "report_queue_url", "pages_queue_url", "delivery_queue_url", "plan_queue_url"}


def sources() -> dict[str, ast.Module]:
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "functions").glob("*/app.py")]
    return {str(p.relative_to(ROOT)): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(files)}


def calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def parses(tree: ast.AST) -> list[str]:
    """The typed messages `tree` parses a body with: Message.parse(...) and Message.of(...) calls."""
    return [c.func.value.id for c in calls(tree) if isinstance(c.func, ast.Attribute)
            and c.func.attr in ("parse", "of") and isinstance(c.func.value, ast.Name) and c.func.value.id in PARSED_AT]


def test_each_queue_body_is_parsed_by_its_typed_message_in_one_place() -> None:
    found: dict[str, set[str]] = {}
    for path, tree in sources().items():
        for name in parses(tree):
            found.setdefault(name, set()).add(path)
    assert found == {name: {path} for name, path in PARSED_AT.items()}


def test_nothing_else_reads_a_record_body() -> None:
    # A record's body is read only as the argument of its message's parse: no json.loads of it, no dict parser.
    # Powertools' records give it as record.body, a raw SQS event's as record["body"] or record.get("body").
    wrong = []
    for path, tree in sources().items():
        parsed = {id(arg) for c in calls(tree) if isinstance(c.func, ast.Attribute) and c.func.attr == "parse"
                  for arg in c.args}
        for node in ast.walk(tree):
            if id(node) not in parsed and _reads_body(node):
                wrong.append(f"{path}:{node.lineno}")
    assert wrong == []


def _reads_body(node: ast.AST) -> bool:
    """record.body, record["body"] or record.get("body")."""
    if isinstance(node, ast.Attribute):
        return node.attr == "body" and isinstance(node.value, ast.Name) and node.value.id == "record"
    if isinstance(node, ast.Subscript):
        key = node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args:
        key, node = node.args[0], node.func
    else:
        return False
    return isinstance(key, ast.Constant) and key.value == "body" and isinstance(node.value, ast.Name) \
        and node.value.id == "record"


def _queue(url: ast.expr) -> str | None:
    """The queue a send names: deps.settings.<x>_queue_url, or a variable or parameter named for one."""
    name = url.attr if isinstance(url, ast.Attribute) else url.id if isinstance(url, ast.Name) else None
    return name if name in QUEUE_URLS or name in ("queue_url", "url") else None


def _serialised(body: ast.expr) -> bool:
    """A typed message's own serialisation: message.body() (body_after for a score message sent again), or a list
    of them."""
    if isinstance(body, ast.ListComp):
        body = body.elt
    return (isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute)
            and body.func.attr in ("body", "body_after"))


def test_every_producer_sends_a_typed_message_it_serialised() -> None:
    sends, wrong = [], []
    for path, tree in sources().items():
        for call in calls(tree):
            if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("send", "send_batch")
                    and len(call.args) >= 2 and _queue(call.args[0])):
                continue
            sends.append(f"{path}:{call.lineno}")
            if not _serialised(call.args[1]):
                wrong.append(f"{path}:{call.lineno}: {ast.unparse(call.args[1])[:80]}")
    assert wrong == []
    # the plan's score and report messages and its own retries and continuations, the score worker's, the
    # revisions', the PR pages' and the channels'
    assert len(sends) >= 12, sends


REF = PullRef(7, "fix: a title", "dev", datetime(2026, 6, 2, tzinfo=UTC), "https://github.com/acme/rocket/pull/7")
PLAN = PlanRequest(RepoConfig("acme/rocket", tz="Asia/Shanghai"), Period.parse("2026-06-01", "2026-06-07", "UTC"),
                   "acme/rocket/2026-06-01_2026-06-07/r1",
                   (Judgement("acme/rocket", 7, "key", "file", "2026-06-08T00:00:00Z"),))
LITERAL = parse_channel({"channel": "slack", "url": "https://hooks.example/T1"})
SAMPLES: list[Any] = [
    ScoreMessage("acme/rocket/2026-06-01_2026-06-07/r1", 7, REF),
    ScoreMessage("acme/rocket/2026-06-01_2026-06-07/r1", 7, REF, handbacks=2, spent=(120, 30)),
    ReportMessage("acme/rocket/2026-06-01_2026-06-07/r1"),
    ReportMessage("acme/rocket/2026-06-01_2026-06-07/r1", revision=3),
    ReportMessage(sweep=True, older_than_minutes=15.0),
    PagesMessage("acme/rocket", "2026-06-01-to-2026-06-07", "zh", "zh", (7, 8)),
    PagesMessage("acme/rocket", "2026-06-01-to-2026-06-07", "en", "zh", (7,), slice="docs"),
    DeliveryMessage("r1", "acme/rocket/reports/2026-06-01-to-2026-06-07/", "zh",
                    parse_channel({"channel": "slack", "url_secret": "prhub/notify/eng"})),
    DeliveryMessage("r1", "acme/rocket/reports/2026-06-01-to-2026-06-07/", "en", LITERAL, ref="slack-0123"),
    PLAN,
    Continuation(PLAN, {"cursor": "Y3Vyc29yOjQy"}, 3, ["only part of the week"]),
]


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: f"{type(m).__name__}")
def test_what_a_producer_sends_its_handler_reads_back_the_same(message: Any) -> None:
    text = json.dumps(message.body())
    if isinstance(message, DeliveryMessage):
        parsed = DeliveryMessage.parse(text, lambda ref: LITERAL if ref == "slack-0123" else None)
    elif isinstance(message, PlanRequest | Continuation):
        parsed = PlanMessage.parse(text)
    else:
        parsed = type(message).parse(text)
    assert parsed == message


MALFORMED = [
    (ReportMessage, {"run_id": "r1", "revision": 0}, "revision must be a whole number"),
    (ReportMessage, {"run_id": "r1", "revision": "2"}, "revision must be a whole number"),
    (ReportMessage, {"run_id": ""}, "needs a run_id"),
    (ReportMessage, {"sweep": True, "older_than_minutes": "nan"}, "older_than_minutes must be a number"),
    (ReportMessage, {"sweep": True, "older_than_minutes": -1}, "older_than_minutes must be a number"),
    (PagesMessage, {"repo": "acme/rocket", "slug": "s", "lang": "zh", "home": "zh", "numbers": ["seven"]},
     "numbers must be a list of PR numbers"),
    (PagesMessage, {"repo": "acme/rocket", "slug": "s", "lang": "zh", "home": "zh", "numbers": [True]},
     "numbers must be a list of PR numbers"),
    (PagesMessage, {"repo": "acme/rocket", "slug": "s", "lang": "zh", "home": "zh", "numbers": "7"},
     "numbers must be a list of PR numbers"),
    (PagesMessage, {"repo": 7, "slug": "s", "lang": "zh", "home": "zh", "numbers": [7]}, "repo must be"),
    (PagesMessage, {"repo": "acme/rocket", "slug": "s", "lang": "zh", "home": "zh", "numbers": [7], "slice": 3},
     "slice must be"),
    (DeliveryMessage, {"run_id": "r1", "report_key": "k/", "channel": {"channel": "pager"}}, "channel must be"),
    (DeliveryMessage, {"run_id": "r1", "channel": {"channel": "slack"}}, "malformed delivery message"),
    (DeliveryMessage, {"run_id": "r1", "report_key": "k/", "channel_ref": "slack-0123"}, "local runner only"),
    (ScoreMessage, {"run_id": "r1", "number": "twelve", "ref": REF.to_dict()}, "malformed score message"),
    (PlanMessage, {"plan": {"run_id": 7, "config": {}, "period": {}}}, "not a plan request"),
    (PlanMessage, {"continue": PLAN.to_dict(), "resume": "page 2", "chunks": 1}, "not a plan continuation"),
    (PlanMessage, {"continue": PLAN.to_dict(), "resume": None, "chunks": "many"}, "not a plan continuation"),
]


@pytest.mark.parametrize(("kind", "body", "words"), MALFORMED, ids=[f"{k.__name__}-{w}" for k, _, w in MALFORMED])
def test_a_malformed_body_is_refused_where_it_is_parsed(kind: Any, body: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError, match=words):
        kind.parse(json.dumps(body))


@pytest.mark.parametrize("kind", [ScoreMessage, ReportMessage, PagesMessage, DeliveryMessage, PlanMessage],
                         ids=lambda k: k.__name__)
@pytest.mark.parametrize("text", ["Hello from SQS!", "[1, 2]", "", '{"hello": 1}'])
def test_a_body_that_is_no_message_is_refused_by_every_kind(kind: Any, text: str) -> None:
    with pytest.raises(InputError):
        kind.parse(text)
