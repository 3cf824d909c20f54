"""What model tokens cost: a price table per model, in US dollars per million tokens (input, output).

The defaults are the providers' published list prices as read on PRICES_AS_OF, for a few common models; they
change, so a deployment names its own with PRHUB_LLM_PRICES, a JSON object
`{"model": [usd_per_million_in, usd_per_million_out], ...}` (entries replace the defaults of the same name; its
date is PRHUB_LLM_PRICES_AS_OF, else "configured"). A model in no table has no cost (None), never a guess.

A run's money budget (llm.max_cost_per_run_usd) becomes a token ceiling here (token_limit), so the one token
reservation on the run item (prhub.cloud.store.RunBudget) enforces both budgets. What a run and each of its PRs
cost is priced where the report is put together (prhub.report.compose.accounted).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prhub.core.config import LlmConfig

PRICES_AS_OF = "2025-06-01"
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "deepseek-chat": (0.27, 1.10),
    "deepseek-reasoner": (0.55, 2.19),
    "qwen-plus": (0.40, 1.20),
    "qwen-turbo": (0.05, 0.20),
    "qwen-max": (1.60, 6.40),
}


@dataclass(frozen=True)
class Prices:
    table: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    as_of: str = PRICES_AS_OF

    @classmethod
    def parse(cls, given: str, as_of: str = "") -> Prices:
        """The defaults, with `given` (PRHUB_LLM_PRICES, as prhub.flow.deps reads it) over them, dated `as_of`
        (else "configured"); a malformed value raises ValueError naming it."""
        if not given:
            return cls()
        try:
            table = {str(k): (float(v[0]), float(v[1])) for k, v in json.loads(given).items()}
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ValueError(f'PRHUB_LLM_PRICES must be {{"model": [usd_in, usd_out], ...}} per million tokens: '
                             f"{exc}") from None
        return cls({**DEFAULT_PRICES, **table}, as_of or "configured")

    def rate(self, model: str | None) -> tuple[float, float] | None:
        """The model's prices; a dated name ("gpt-4o-mini-2024-07-18") takes its family's."""
        if not model:
            return None
        name = model.lower().rsplit("/", 1)[-1]  # "openai/gpt-4o" as gateways name it
        if name in self.table:
            return self.table[name]
        family = max((k for k in self.table if name.startswith(k + "-")), key=len, default=None)
        return self.table[family] if family else None

    def cost(self, model: str | None, tokens_in: int, tokens_out: int) -> float | None:
        """US dollars for the tokens, or None when the model is not priced."""
        rate = self.rate(model)
        if rate is None:
            return None
        return round((tokens_in * rate[0] + tokens_out * rate[1]) / 1_000_000, 6)


def token_limit(llm: LlmConfig, prices: Prices, model: str | None) -> tuple[int, str]:
    """The run's model-token limit, the smaller of llm.max_tokens_per_run and what llm.max_cost_per_run_usd buys
    of `model`, with what the engine's stand-in PRs say once it is reached ("budget exhausted: <this>").

    The run's counter adds input and output tokens together, so the money is turned into tokens at the model's
    dearer price (output, for every listed model): whatever the mix, the tokens the ceiling allows never cost
    more than the budget. The input price would be the closer estimate (most tokens are the prompt) but lets a
    run overspend by its output's share. A money budget for a model with no price cannot be kept: the ceiling
    is then 0, so the engine scores every PR and says why, rather than the model spending an unknown sum."""
    tokens = llm.max_tokens_per_run
    usd = llm.max_cost_per_run_usd
    if usd is None or not model:
        return tokens, f"the run's token budget is spent (llm.max_tokens_per_run {tokens:,})"
    rate = prices.rate(model)
    if rate is None:
        return 0, (f"llm.max_cost_per_run_usd is set but model {model} has no price (prices of {prices.as_of}); "
                   "name its price in PRHUB_LLM_PRICES")
    bought = int(usd * 1_000_000 / max(rate)) if max(rate) > 0 else tokens  # a model priced 0 (local) is free
    if bought < tokens:
        return bought, (f"the run's money budget is spent (llm.max_cost_per_run_usd ${usd:g}: {bought:,} tokens "
                        f"at {model}'s ${max(rate):g} per million, prices of {prices.as_of})")
    return tokens, f"the run's token budget is spent (llm.max_tokens_per_run {tokens:,})"
