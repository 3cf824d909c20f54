"""Per-PR results on the results table (`DynamoResults`): each stored once, counted on its run in the same write.

A result is stored and counted in ONE transaction whose Put carries `attribute_not_exists(number)`, so a
redelivered message changes nothing; a batch of one run's results shares a transaction (MAX_TRANSACT_PUTS at
most), and the tokens the PRs' model calls cost beyond their reservations are settled in it too
(prhub.cloud.budget.RunBudget). Results are packed (prhub.cloud.dynamo's codec), as the cache's entries are.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from prhub.cloud.dynamo import from_item, pack, refused_by_condition, to_item, unpack
from prhub.cloud.tables import Tables, expires, won
from prhub.core.models import ScoredPR

MAX_TRANSACT_PUTS = 99  # TransactWriteItems takes at most 100 actions: the results and their run's counter


@dataclass
class Result:
    number: int
    status: str  # scored | failed
    scored: ScoredPR | None
    reason: str = ""
    cached: bool = False


class DynamoResults(Tables):
    """Results on the results table, each counted on its run item (`done` or `failed`)."""

    def _count_in_run(self, run_id: str, counter: str, now: int, tokens: int = 0, count: int = 1) -> dict[str, Any]:
        # `tokens`: what the PRs' model calls cost beyond (or below) their reservations, settled with the results.
        spent = ", tokens_used :t" if tokens else ""
        return {"Update": {
            "TableName": self.settings.runs_table, "Key": self.run_key(run_id),
            "UpdateExpression": f"ADD {counter} :n{spent} SET updated_at = :now",
            # ADD would create a ghost run item for an unknown (expired) run id.
            "ConditionExpression": "attribute_exists(run_id)",
            "ExpressionAttributeValues": to_item({":n": count, ":now": now, **({":t": tokens} if tokens else {})})}}

    def _put(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"Put": {"TableName": self.settings.results_table, "Item": to_item(item),
                        "ConditionExpression": "attribute_not_exists(#n)",
                        "ExpressionAttributeNames": {"#n": "number"}}}

    def _put_once(self, item: dict[str, Any], run_id: str, counter: str, now: int, tokens: int = 0) -> bool:
        return won(lambda: self.db.transact_write_items(
            TransactItems=[self._put(item), self._count_in_run(run_id, counter, now, tokens)]))

    def _put_together(self, run_id: str, entries: list[tuple[dict[str, Any], int]], now: int) -> list[bool]:
        """Results of one run (item, tokens) put in one transaction with the run's `done` ADDed by as many: the
        puts DynamoDB refuses as duplicates (CancellationReasons) are left out and the rest written again. Which
        ones were stored; all False when the run does not exist."""
        pending = list(range(len(entries)))
        while pending:
            try:
                self.db.transact_write_items(TransactItems=[self._put(entries[i][0]) for i in pending] + [
                    self._count_in_run(run_id, "done", now, sum(entries[i][1] for i in pending), len(pending))])
            except ClientError as exc:
                refused = refused_by_condition(exc, len(pending) + 1)
                if refused is None:
                    raise
                if refused[-1]:  # the run's own condition: it does not exist (expired), nothing can be stored
                    return [False] * len(entries)
                if not any(refused):  # a condition failed, the reasons do not say which: one transaction each
                    stored = [False] * len(entries)
                    for i in pending:
                        stored[i] = self._put_once(entries[i][0], run_id, "done", now, entries[i][1])
                    return stored
                pending = [i for i, no in zip(pending, refused, strict=False) if not no]
                continue
            break
        kept = set(pending)
        return [i in kept for i in range(len(entries))]

    def put_results(self, results: Sequence[tuple[str, ScoredPR, bool, int]], now: int) -> list[bool]:
        """Store each (run_id, scored, cached, tokens) once, ADDing done (and its tokens to tokens_used:
        RunBudget's unsettled difference) atomically with it: one transaction per run and MAX_TRANSACT_PUTS
        results, not one per result. Which were stored; False (and nothing changed) for a duplicate, a PR given
        twice included."""
        stored = [False] * len(results)
        runs: dict[str, list[int]] = {}
        seen: set[tuple[str, int]] = set()
        for i, (run_id, scored, _, _) in enumerate(results):
            if (run_id, scored.number) not in seen:  # a transaction may not write one item twice
                seen.add((run_id, scored.number))
                runs.setdefault(run_id, []).append(i)
        for run_id, indexes in runs.items():
            for start in range(0, len(indexes), MAX_TRANSACT_PUTS):
                chunk = indexes[start:start + MAX_TRANSACT_PUTS]
                entries = [(self._result_item(run_id, results[i][1], now, results[i][2]), results[i][3])
                           for i in chunk]
                for i, ok in zip(chunk, self._put_together(run_id, entries, now), strict=True):
                    stored[i] = ok
        return stored

    def _result_item(self, run_id: str, scored: ScoredPR, now: int, cached: bool) -> dict[str, Any]:
        return {"run_id": run_id, "number": scored.number, "status": "scored", "data": pack(scored.to_dict()),
                "scored_by": scored.scored_by, "cached": cached, "expires_at": expires(now)}

    def put_result(self, run_id: str, scored: ScoredPR, now: int, cached: bool = False, tokens: int = 0) -> bool:
        """Store the result and ADD done 1 (and `tokens` to tokens_used) atomically; False (and nothing changed)
        for a duplicate."""
        return self.put_results([(run_id, scored, cached, tokens)], now)[0]

    def put_failure(self, run_id: str, number: int, reason: str, now: int) -> bool:
        """Record a PR that cannot be scored and ADD failed 1 atomically; False for a duplicate."""
        item = {"run_id": run_id, "number": number, "status": "failed", "reason": reason[:1000],
                "expires_at": expires(now)}
        return self._put_once(item, run_id, "failed", now)

    def results(self, run_id: str) -> list[Result]:
        out = []
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.results_table, KeyConditionExpression="run_id = :r",
                ExpressionAttributeValues=to_item({":r": run_id}), ConsistentRead=True):
            for raw in page.get("Items", []):
                item = from_item(raw)
                scored = ScoredPR.from_dict(unpack(item["data"])) if item.get("data") else None
                out.append(Result(int(item["number"]), item["status"], scored, item.get("reason", ""),
                                  bool(item.get("cached", False))))
        return out

