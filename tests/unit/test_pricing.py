"""The money budget: llm.max_cost_per_run_usd validated, and turned into the run's token ceiling."""
from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest
from prhub.cloud.store import RunBudget
from prhub.core.config import LlmConfig, RepoConfig, WatchList
from prhub.core.errors import InputError
from prhub.core.history import History
from prhub.core.models import FileChange, PullRequest
from prhub.core.period import Period
from prhub.engine.scoring import score_pull
from prhub.flow.deps import model_settings
from prhub.flow.score import run_budget
from prhub.model import narrator
from prhub.model.pricing import Prices, token_limit
from prhub.model.scorers import ModelSettings, Scorers
from prhub.report import compose

from tests.fakes.memory import memory_stack

PRICES = Prices({"cheap": (0.5, 2.0), "local": (0.0, 0.0)}, "2026-11-30")


def make_pr(number: int) -> PullRequest:
    return PullRequest(number=number, title=f"[trainer] fix: scale {number}", body="Fixes it.", author="bob",
                       merged_at=datetime(2026, 5, 5, tzinfo=UTC), url=f"https://github.com/acme/rocket/pull/{number}",
                       additions=40, deletions=5, changed_files=1,
                       files=[FileChange("verl/trainer/loss.py", additions=40, deletions=5)])


def test_no_money_budget_leaves_the_token_budget() -> None:
    assert token_limit(LlmConfig(max_tokens_per_run=9000), PRICES, "cheap")[0] == 9000


def test_the_money_budget_buys_tokens_at_the_dearer_price_and_the_smaller_limit_wins() -> None:
    # $0.01 at $2 per million (output, the dearer): 5,000 tokens, fewer than the 400,000 of the token budget
    limit, why = token_limit(LlmConfig(max_cost_per_run_usd=0.01), PRICES, "cheap")
    assert limit == 5000 and why.startswith("the run's money budget is spent") and "$0.01" in why
    # whatever the mix of input and output, 5,000 tokens never cost more than the budget
    assert max(PRICES.cost("cheap", n, 5000 - n) or 0 for n in range(0, 5001, 250)) <= 0.01
    # a generous money budget: the token budget is the smaller limit, and says so
    limit, why = token_limit(LlmConfig(max_tokens_per_run=9000, max_cost_per_run_usd=100.0), PRICES, "cheap")
    assert limit == 9000 and "llm.max_tokens_per_run 9,000" in why


def test_a_free_model_is_limited_by_tokens_only_and_an_unpriced_one_gets_no_tokens() -> None:
    assert token_limit(LlmConfig(max_cost_per_run_usd=0.01), PRICES, "local")[0] == 400_000
    limit, why = token_limit(LlmConfig(max_cost_per_run_usd=0.01), PRICES, "mystery-model")
    assert limit == 0 and "mystery-model has no price" in why and "PRHUB_LLM_PRICES" in why


@pytest.mark.parametrize("bad", [0, -1, "1.5", True, float("inf"), float("nan"), [1]])
def test_a_bad_money_budget_is_refused_naming_the_setting(bad: object) -> None:
    with pytest.raises(InputError, match="llm.max_cost_per_run_usd must be a positive number of US dollars"):
        RepoConfig.from_dict({"repo": "acme/rocket", "llm": {"max_cost_per_run_usd": bad}})


def test_a_money_budget_survives_the_run_items_round_trip() -> None:
    config = RepoConfig.from_dict({"repo": "acme/rocket", "llm": {"max_cost_per_run_usd": 2}})
    assert RepoConfig.from_dict(config.to_dict()).llm.max_cost_per_run_usd == 2


def test_each_pr_that_spent_model_tokens_is_priced_by_the_runs_table() -> None:
    # GIVEN a week of two PRs: one the model scored (1,000 in, 200 out), one the engine did (no tokens)
    config = RepoConfig(repo="acme/rocket", language="en", scorer="llm")
    period = Period.parse("2026-05-04", "2026-05-10", "UTC")
    paid, free = (score_pull(make_pr(n), config) for n in (7, 8))
    paid = dataclasses.replace(paid, scored_by="llm", tokens_in=1000, tokens_out=200)
    prices = Prices({"cheap": (0.5, 2.0)}, "2026-11-30")
    # WHEN the report is put together by the model's narrator (no narrative call: no chat model)
    report = compose.report([paid, free], [], period, config, History.of([], period), "2026-05-11T00:00:00Z",
                            {"kind": "llm", "model": "cheap", "prompt_version": "p", "tokens_in": 1000,
                             "tokens_out": 200, "llm_prs": 1, "heuristic_prs": 1},
                            narrator=lambda draft: narrator.model_narrative(draft, config, None, None, prices),
                            prices=prices)
    by_number = {p["number"]: p for p in report["prs"]}
    # THEN the model's PR carries its tokens and their cost; the engine's carries none
    assert {k: by_number[7].get(k) for k in ("tokens_in", "tokens_out", "cost_usd")} == {
        "tokens_in": 1000, "tokens_out": 200, "cost_usd": 0.0009}
    assert not {"tokens_in", "tokens_out", "cost_usd"} & set(by_number[8])
    # and the run's cost is the same table's price of the run's tokens
    assert report["scorer"]["cost"]["usd"] == 0.0009 and report["scorer"]["cost"]["prices_as_of"] == "2026-11-30"


def test_the_report_accounts_for_the_narratives_tokens_and_prices_them_with_the_prs() -> None:
    # GIVEN a draft whose PRs spent 1,000 + 200 tokens, and a narration whose narrative spent 300 + 100 more
    config = RepoConfig(repo="acme/rocket", language="en", scorer="llm")
    period = Period.parse("2026-05-04", "2026-05-10", "UTC")
    paid = dataclasses.replace(score_pull(make_pr(7), config), scored_by="llm", tokens_in=1000, tokens_out=200)
    draft = compose.draft([paid], [], period, config, History.of([], period), "2026-05-11T00:00:00Z",
                          {"kind": "llm", "model": "cheap", "prompt_version": "p", "tokens_in": 1000,
                           "tokens_out": 200, "llm_prs": 1, "heuristic_prs": 0})
    narration = narrator.model_narrative(draft, config, None, None, PRICES)
    narration["scorer"].update({"narrative_model": "local", "narrative_tokens_in": 300, "narrative_tokens_out": 100})
    # WHEN the report accounts for it
    scorer = compose.accounted(draft, narration, PRICES)["scorer"]
    # THEN the run's tokens are the PRs' and the narrative's, priced at the narrative's model (free here)
    assert (scorer["tokens_in"], scorer["tokens_out"]) == (1300, 300)
    assert scorer["cost"] == {"usd": 0.0, "prices_as_of": "2026-11-30", "usd_per_million_in": 0.0,
                              "usd_per_million_out": 0.0}
    assert narration["scorer"]["tokens_in"] == 1000  # the narration itself is left as it was
    # and a run without a model has tokens to add up but nothing to price
    engine = {**narration, "scorer": {"kind": "heuristic", "model": None, "prompt_version": "p"}}
    assert compose.accounted(draft, engine, PRICES) == {  # type: ignore[arg-type]
        **engine, "scorer": {"kind": "heuristic", "model": None, "prompt_version": "p", "tokens_in": 0,
                             "tokens_out": 0}}


def test_a_pr_of_an_unpriced_model_says_so_and_is_not_guessed() -> None:
    prs = [{"number": 1, "tokens_in": 10, "tokens_out": 5}, {"number": 2}]
    assert compose.priced(prs, Prices(), "mystery-model") == [
        {"number": 1, "tokens_in": 10, "tokens_out": 5, "cost_usd": None}, {"number": 2}]


def test_a_malformed_price_table_stops_only_the_runs_with_a_money_budget() -> None:
    stack = memory_stack(WatchList(()))
    deps = dataclasses.replace(stack.deps, scorers=Scorers(ModelSettings(prices="{not json"), None))
    period = Period.parse("2026-05-04", "2026-05-10", "UTC")

    def budget(**llm_settings: object) -> RunBudget:
        config = RepoConfig(repo="acme/rocket", llm=LlmConfig(**llm_settings))  # type: ignore[arg-type]
        stack.store.create_run("r", config, period, "github", [], 0, "")
        return run_budget(stack.store.runs["r"], deps, "gpt-4o-mini")

    assert budget().limit == 400_000  # no money budget: the table is not read
    stack.store.runs.clear()
    stopped = budget(max_cost_per_run_usd=1.0)
    assert stopped.limit == 0 and not stopped.reserve(1)
    assert stopped.exhausted.startswith("llm.max_cost_per_run_usd cannot be kept: PRHUB_LLM_PRICES must be")


def test_a_money_budget_that_cannot_be_kept_is_said_when_the_run_is_planned() -> None:
    from prhub.flow.plan import plan

    from prhub_local.sample import sample_settings

    def warnings(env: dict[str, str], **llm_settings: object) -> list[str]:
        repo = {**sample_settings()["config"], "scorer": "llm", "llm": llm_settings}
        stack = memory_stack(WatchList.parse(json.dumps({"repos": [repo]})))
        # no key: planning reads none
        deps = dataclasses.replace(stack.deps, scorers=Scorers(model_settings(env), None))
        [run] = plan({"repo": repo["repo"], "since": "2026-06-01", "until": "2026-06-07"}, deps)
        assert run["expected"] > 0  # planned all the same: the engine scores
        return list(run.get("warnings", []))

    # a model with no price: named, with what to do
    [said] = warnings({"PRHUB_LLM_MODEL": "mystery-model"}, max_cost_per_run_usd=1.0)
    assert said.startswith("the model will not be called, the engine scores every PR: llm.max_cost_per_run_usd")
    assert "mystery-model has no price" in said and "PRHUB_LLM_PRICES" in said
    # an unreadable price table
    [said] = warnings({"PRHUB_LLM_PRICES": "{not json"}, max_cost_per_run_usd=1.0)
    assert "cannot be kept: PRHUB_LLM_PRICES must be" in said
    # nothing to say: a priced model, no money budget, or the engine by choice
    assert warnings({"PRHUB_LLM_MODEL": "gpt-4o-mini"}, max_cost_per_run_usd=1.0) == []
    assert warnings({"PRHUB_LLM_MODEL": "mystery-model"}) == []
