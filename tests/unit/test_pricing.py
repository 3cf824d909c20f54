"""The money budget: llm.max_cost_per_run_usd validated, and turned into the run's token ceiling."""
from __future__ import annotations

import pytest
from prhub.config import LlmConfig, RepoConfig
from prhub.errors import InputError
from prhub.pricing import Prices, token_limit

PRICES = Prices({"cheap": (0.5, 2.0), "local": (0.0, 0.0)}, "2026-11-30")


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
