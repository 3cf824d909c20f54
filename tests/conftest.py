"""Shared fixtures: one moto server per test process, fresh resources per test, the shared data files.

Every test that uses `stack` gets its own tables, queues, bucket and parameter (a unique name prefix), made
from template.yaml like the local runner does, on moto in process (`mock_aws`): the handler tests call the
functions directly, and moto without its HTTP server costs half as much a call. `moto_server` (session-scoped:
starting moto costs about a second) is for what only speaks to an endpoint: the local runner and the CLI
(`aws_endpoint` points boto3 at it, for the test only).
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import moto.backends
import pytest
from moto import mock_aws
from prhub.cloud import aws, metrics
from prhub.core.period import Period
from prhub.site.render import pull as pull_render
from prhub.sources.source import JsonlSource

from prhub_local.embedded import EmbeddedAws, aws_env
from prhub_local.moto_patches import apply_patches
from prhub_local.sample import sample_settings
from prhub_local.template import Stack, create_stack, load_template
from tests.fakes import FakeGitHub

ROOT = Path(__file__).resolve().parents[1]
VERL = "verl-project/verl"
VERL_EXPORT = ROOT.parent / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"
EVENTS = ROOT / "events"
TEST_VISIBILITY_TIMEOUT = 1  # seconds: redeliveries within a test, with SQS's real semantics


# moto's server dispatches every request by asking whether the host names a moto module, and answers by listing
# its package directory and stat-ing each entry (about 150) under the dispatcher's lock: a sixth of the CPU of
# each request to the embedded AWS. The package does not change while the tests run, so it is listed once
# (the servers the tests start in this process; a subprocess's moto is untouched).
_MOTO_MODULES = tuple(moto.backends.list_of_moto_modules())
moto.backends.list_of_moto_modules = lambda: _MOTO_MODULES

# The least-privilege test runs these files' tests again, in full, in its recording subprocess
# (tests/functional/test_iam_least_privilege.py, RECORDED_TESTS): when it is collected too, running them here as
# well would only make their pipeline run twice.
RUN_BY_THE_IAM_TEST = ("tests/functional/test_logs_no_secrets.py",)
IAM_TEST = "tests/functional/test_iam_least_privilege.py"


DURATIONS = "prhub/file-seconds"  # pytest's cache: the seconds each test file took when it last ran
# A clean clone (CI, `make test` on a fresh machine) has no cache: without these seconds the slow files would run
# in collection order and a long one could start last and run alone. Measured by a whole `make test`; refresh it
# from the cache (.pytest_cache/v/prhub/file-seconds) when the order drifts. The cache wins where it knows a file.
FILE_SECONDS = Path(__file__).with_name("file_seconds.json")
_spent: dict[str, float] = {}


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


@pytest.hookimpl(trylast=True)  # after -k/-m have deselected: the IAM test must be really running to take over
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules with a slow test first, the longest of them (as last measured) first, collection order otherwise.

    `make test` runs `-n 4 --dist loadfile --no-loadscope-reorder`: each worker takes whole files in this order, so
    the long runs start at once on every worker and the quick files fill in after them (instead of a long file
    starting last and running alone), and a module-scoped fixture (a pipeline run, a recording) is set up once,
    not on every worker that gets one of its tests. (`--dist loadgroup` would group finer, but pytest-xdist 3.8
    marks a group by rewriting `item._nodeid`, which pytest 9 no longer reads: its groups are silently ignored.)
    Every worker reads the same cached seconds, so all collect the same order."""
    if any(_file(item) == IAM_TEST and "recorded" in getattr(item, "fixturenames", ()) for item in items):
        recorded = [item for item in items if _file(item) in RUN_BY_THE_IAM_TEST]
        if recorded:
            config.hook.pytest_deselected(items=recorded)
            items[:] = [item for item in items if item not in recorded]
    slow = {_file(item) for item in items if item.get_closest_marker("slow")}
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    seed: dict[str, float] = json.loads(FILE_SECONDS.read_text()) if FILE_SECONDS.exists() else {}
    seconds: dict[str, float] = seed | (cache.get(DURATIONS, {}) if cache is not None else {})
    # stable: a module's tests stay together
    items.sort(key=lambda item: (_file(item) not in slow, -seconds.get(_file(item), 0.0)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _spent[report.nodeid.split("::")[0]] = _spent.get(report.nodeid.split("::")[0], 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller (or a run without xdist) keeps what each file took, for the next run's order."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _spent:
        return
    cache.set(DURATIONS, {**cache.get(DURATIONS, {}), **{f: round(s, 1) for f, s in _spent.items()}})


# A PR page's PDF is a third of a pipeline run's CPU (fontTools subsets the CJK font for each), and the suite renders
# the same pages over and over: a second run on a state, the GitHub run beside the export's, a re-run after a
# fault. The PDF is a function of the page (and the font setting), so outside the unit tier (which tests the
# renderer itself) each distinct page is rendered once per test process (an xdist worker) and its bytes served
# again.
_PULL_PDFS: dict[tuple[str, str], bytes] = {}  # (the page as JSON, the font it was asked in)
_RENDER_PULL_PDF = pull_render.render_pull_pdf


def _pull_pdf_once(page: Any, font: str = "") -> bytes:
    key = (json.dumps(page, sort_keys=True, ensure_ascii=False, default=str), font)
    pdf = _PULL_PDFS.get(key)
    if pdf is None:
        pdf = _PULL_PDFS[key] = _RENDER_PULL_PDF(page, font)
    return pdf


@pytest.fixture(autouse=True)
def _pull_pdfs_rendered_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if not request.node.nodeid.startswith("tests/unit/"):
        monkeypatch.setattr(pull_render, "render_pull_pdf", _pull_pdf_once)


def load_event(name: str) -> Any:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def no_metrics_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without one: a Deps built from an environment naming one (the stack's) sets it for the
    process (prhub.cloud.metrics.configure), and later tests must not print its metrics."""
    monkeypatch.setattr(metrics, "namespace", None)


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    with EmbeddedAws() as server:
        yield server.url


@pytest.fixture
def aws_endpoint(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """boto3 (and prhub.cloud.aws) talk to the session's moto server for this test."""
    for key, value in aws_env(moto_server, fake_credentials=True).items():
        monkeypatch.setenv(key, value)
    aws.reset()
    yield moto_server
    aws.reset()


@pytest.fixture
def aws_in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """boto3 (and prhub.cloud.aws) talk to moto in this process for this test, with no endpoint set; moto is
    patched for concurrent callers as the embedded AWS is (the handlers' batches use threads)."""
    apply_patches()
    for key, value in aws_env(None, fake_credentials=True).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    aws.reset()
    with mock_aws():
        yield
    aws.reset()


@pytest.fixture(scope="session")
def template() -> dict[str, Any]:
    return load_template(ROOT / "template.yaml")


@pytest.fixture
def prefix() -> str:
    return "t" + uuid.uuid4().hex[:12]


@pytest.fixture
def watchlist() -> dict[str, Any]:
    """The watch list a test's stack stores: the bundled sample repository."""
    return {"defaults": {"language": "en"}, "repos": [sample_settings()["config"]]}


def _stack(template: dict[str, Any], prefix: str, watchlist: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Stack:
    made = create_stack(template, prefix, json.dumps(watchlist), visibility_timeout=TEST_VISIBILITY_TIMEOUT)
    for key, value in made.function_env().items():
        monkeypatch.setenv(key, value)
    return made


@pytest.fixture
def stack(aws_in_process: None, template: dict[str, Any], prefix: str, watchlist: dict[str, Any],
          monkeypatch: pytest.MonkeyPatch) -> Stack:
    """Fresh resources from template.yaml on moto in process, and the functions' environment set as Lambda would."""
    return _stack(template, prefix, watchlist, monkeypatch)


@pytest.fixture
def served_stack(aws_endpoint: str, template: dict[str, Any], prefix: str, watchlist: dict[str, Any],
                 monkeypatch: pytest.MonkeyPatch) -> Stack:
    """The same on the session's moto server: for a subprocess or the local runner, which reach AWS by endpoint."""
    return _stack(template, prefix, watchlist, monkeypatch)


@pytest.fixture
def verl_export() -> Path:
    if not VERL_EXPORT.exists():
        pytest.skip(f"shared data not present: {VERL_EXPORT}")
    return VERL_EXPORT


@pytest.fixture(scope="module")
def verl_jsonl() -> JsonlSource:
    """verl's export as the jsonl source reads it."""
    if not VERL_EXPORT.exists():
        pytest.skip(f"shared data not present: {VERL_EXPORT}")
    return JsonlSource.from_path(str(VERL_EXPORT))


@pytest.fixture(scope="module")
def verl_github(verl_jsonl: JsonlSource) -> Iterator[FakeGitHub]:
    """The fake GitHub (REST and GraphQL) serving every PR of verl's export; faults a test injects it serves."""
    everything = Period(date(2000, 1, 1), date(2100, 1, 1), "UTC")  # past MAX_DAYS on purpose: the whole file
    pulls = [verl_jsonl.get(VERL, ref) for ref in verl_jsonl.list_merged(VERL, everything)]
    assert len(pulls) == len(VERL_EXPORT.read_text(encoding="utf-8").splitlines())
    with FakeGitHub(pulls, VERL) as gh:
        yield gh
