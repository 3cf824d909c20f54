"""The registry check of dependency pins, against a fake PyPI/npm server on 127.0.0.1."""
from __future__ import annotations

import pytest
from prhub.engine.scoring import HeuristicScorer, score_pull
from prhub.sources.registry import Registry

from tests.fakes.registry_server import FakeRegistry
from tests.unit.engine_support import CONFIG, change, make_pr

PINS = change("requirements.txt", 3, 0, patch="@@ -1 +1,4 @@\n+vllm==0.9.2\n+vllm-ext==0.99.0\n+torch>=2.6\n")
NPM = change("web/package.json", 2, 0, patch='@@ -3 +3,3 @@\n+    "@scope/ui": "1.4.0",\n+    "left-pad": "^9.9.9",\n')


@pytest.fixture
def registry():
    with FakeRegistry(pypi={"vllm": ["0.9.1", "0.9.2"], "torch": ["2.6.0"]},
                      npm={"@scope/ui": ["1.4.0"], "left-pad": ["1.3.0"]}) as fake:
        yield fake


def test_exists_answers_true_false_and_unknown(registry):
    client = Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url)
    assert client.exists("pypi", "vllm", "0.9.2") is True
    assert client.exists("pypi", "vllm", "9.9.9") is False
    assert client.exists("pypi", "no-such-package", "1.0") is False
    assert client.exists("npm", "@scope/ui", "1.4.0") is True
    registry.fail = ("/pypi/flaky",)
    assert client.exists("pypi", "flaky", "1.0") is None
    assert client.exists("pypi", "vllm", "0.9.1") is True
    assert registry.requests.count("/pypi/vllm/json") == 1  # answers are cached per package


def test_unreachable_registry_is_unknown_not_missing():
    client = Registry(pypi_url="http://127.0.0.1:9", timeout=0.5)
    assert client.exists("pypi", "vllm", "0.9.2") is None


def test_pins_that_do_not_exist_are_reported(registry):
    config = CONFIG.with_overrides(check_registry=True)
    client = Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url)
    detail = {r.kind: r.detail for r in score_pull(make_pr("chore: pins", [PINS, NPM]), config, client).risks}
    pin = detail["dependency_pin"]
    assert "vllm-ext==0.99.0 does not exist on PyPI" in pin
    assert "left-pad^9.9.9 does not exist on npm" in pin
    assert "vllm==0.9.2 does not" not in pin and "@scope/ui" in pin and "@scope/ui1.4.0 does not" not in pin
    assert "/pypi/torch/json" not in registry.requests  # a range is not an exact version: nothing to look up


def test_no_lookups_unless_the_repo_turns_the_check_on(registry):
    client = Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url)
    scorer = HeuristicScorer(client)
    scored = scorer.score(make_pr("chore: pins", [PINS]), CONFIG, budget=None)  # type: ignore[arg-type]
    assert "does not exist" not in {r.kind: r.detail for r in scored.risks}["dependency_pin"]
    assert registry.requests == []
    checked = scorer.score(make_pr("chore: pins", [PINS]), CONFIG.with_overrides(check_registry=True), None)  # type: ignore[arg-type]
    assert "vllm-ext==0.99.0 does not exist on PyPI" in {r.kind: r.detail for r in checked.risks}["dependency_pin"]


def test_pypi_versions_compare_by_release_number(registry):
    client = Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url)
    assert client.exists("pypi", "torch", "2.6") is True  # torch==2.6 installs 2.6.0
    assert client.exists("pypi", "torch", "2.6.0.0") is True
    assert client.exists("pypi", "torch", "2.60") is False


def test_exact_versions_named_in_the_description_are_checked_and_prose_names_are_not(registry):
    config = CONFIG.with_overrides(check_registry=True)
    client = Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url)
    pr = make_pr("[docker] chore: bump trtllm to 1.3.0rc14", [change("docker/Dockerfile.stable.trtllm", 2, 2)],
                 body="Pin vllm==0.9.9 and torch==2.6.0 in the image.")
    pin = {r.kind: r.detail for r in score_pull(pr, config, client).risks}["dependency_pin"]
    assert pin.startswith("vllm==0.9.9 does not exist on PyPI")
    assert "torch==2.6.0 does not" not in pin and "trtllm 1.3.0rc14" in pin
    assert "/pypi/trtllm/json" not in registry.requests  # a nickname in prose is not a package name


def test_the_stack_s_scorers_hand_the_engine_one_registry_client_only_where_a_repo_checks(registry):
    from prhub.model.scorers import ModelSettings, Scorers

    made: list[Registry] = []

    def client() -> Registry:
        made.append(Registry(pypi_url=registry.pypi_url, npm_url=registry.npm_url))
        return made[-1]

    scorers = Scorers(ModelSettings(), None, registry=client)
    assert scorers.engine(CONFIG).registry is None and made == []  # no check: no client, no session
    checking = CONFIG.with_overrides(check_registry=True, scorer="heuristic")
    engine = scorers.engine(checking)
    scored = engine.score(make_pr("chore: pins", [PINS]), checking, None)  # type: ignore[arg-type]
    assert "vllm-ext==0.99.0 does not exist on PyPI" in {r.kind: r.detail for r in scored.risks}["dependency_pin"]
    assert scorers.scorer(checking).registry is engine.registry and len(made) == 1  # one client per process
