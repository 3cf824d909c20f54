"""A run's model-token budget: the run item's `tokens_used` counter (`DynamoBudget`), and what a worker holds of it
for its PRs' model calls (`RunBudget`, which reads and writes the counter through the `TokenBudget` port)."""
from __future__ import annotations

from typing import Protocol

from prhub.cloud.dynamo import to_item
from prhub.cloud.tables import Tables, won


class TokenBudget(Protocol):
    """The run's token counter, shared by every worker of the run (prhub.flow.ports lists it among the store's)."""

    def reserve_tokens(self, run_id: str, tokens: int, limit: int) -> bool: ...

    def spend_tokens(self, run_id: str, tokens: int) -> None: ...


class DynamoBudget(Tables):
    """The counter on the run item."""

    def reserve_tokens(self, run_id: str, tokens: int, limit: int) -> bool:
        """ADD `tokens` to the run's tokens_used only while the sum stays within `limit`; False (nothing added)
        when it would not. One conditional update, so workers reserving together never pass the limit between
        them. DynamoDB conditions have no arithmetic: the ceiling the counter may have is limit - tokens."""
        ceiling = limit - tokens
        if ceiling < 0:
            return False
        return won(lambda: self.db.update_item(
            TableName=self.settings.runs_table, Key=self.run_key(run_id),
            UpdateExpression="ADD tokens_used :n",
            ConditionExpression="attribute_exists(run_id) AND "
                                "(attribute_not_exists(tokens_used) OR tokens_used <= :ceiling)",
            ExpressionAttributeValues=to_item({":n": tokens, ":ceiling": ceiling})))

    def spend_tokens(self, run_id: str, tokens: int) -> None:
        """ADD `tokens` (negative: a reservation handed back) to the run's tokens_used, unconditionally."""
        # Not won: an expired run, nothing to count against (and no ghost item).
        won(lambda: self.db.update_item(TableName=self.settings.runs_table, Key=self.run_key(run_id),
                                        UpdateExpression="ADD tokens_used :n",
                                        ConditionExpression="attribute_exists(run_id)",
                                        ExpressionAttributeValues=to_item({":n": tokens})))


class RunBudget:
    """A run's model-token budget, shared by every worker through the run item's `tokens_used` counter.

    A call reserves its estimate before it is sent (one conditional ADD: workers reserving at once never pass the
    limit together) and settles for what it really cost (the difference ADDed), so tokens_used ends as the run's
    real spending. `limit` is the smaller of the token and the money budget (prhub.model.pricing.token_limit);
    `exhausted` says which stops the model, for the PRs the engine then scores."""

    def __init__(self, store: TokenBudget, run_id: str, limit: int, exhausted: str = "") -> None:
        self.store = store
        self.run_id = run_id
        self.limit = limit
        self.exhausted = exhausted or "the run's token budget is spent"
        self.unsettled = 0  # reserved beyond what the calls cost (<= 0), not yet handed back

    def reserve(self, tokens: int) -> bool:
        """Hold `tokens` of the budget for a call about to be sent; False when they do not fit."""
        return bool(self.store.reserve_tokens(self.run_id, int(tokens), self.limit))

    def settle(self, reserved: int, spent: int) -> None:
        """Replace a reservation by what the call cost. A call that cost more is counted at once (the next
        reservation, this PR's repair or another worker's, must see it); one that cost less, the usual case, hands
        its rest back with the PR's result (Store.put_result's `tokens`, one write for both) or flush(). Meanwhile
        the counter holds more than was spent, never less: no worker sees room that is not there."""
        difference = int(spent) - int(reserved)
        if difference > 0:
            self.store.spend_tokens(self.run_id, difference)
        else:
            self.unsettled += difference

    def take(self) -> int:
        """The unsettled difference, handed to whoever writes it (and forgotten here)."""
        tokens, self.unsettled = self.unsettled, 0
        return tokens

    def flush(self) -> None:
        """Write the unsettled difference on its own (no result is stored with it)."""
        if tokens := self.take():
            self.store.spend_tokens(self.run_id, tokens)
