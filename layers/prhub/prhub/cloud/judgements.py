"""Judgements (issue 27) in their own table (`DynamoJudgements`), without expiry: runs and results go after
RUN_TTL_DAYS, what a maintainer said must outlive them. One item per repository (lower-case), source and PR. Only
what the flow could not read again is kept there: a `--judgements` file's, the labels the score workers saw,
`prhub judge`'s corrections (prhub.flow.judgements).
"""
from __future__ import annotations

from typing import Any

from prhub.cloud.dynamo import from_item, to_item
from prhub.cloud.tables import Tables
from prhub.core.errors import PrhubError
from prhub.core.judgements import Judgement, judgement


class DynamoJudgements(Tables):
    """The judgements table."""

    def put_judgements(self, judgements: list[Judgement]) -> None:
        """Keep each judgement, replacing the one of the same repository, source and PR (BatchWriteItem, 25 a
        request; what DynamoDB leaves unprocessed is sent again)."""
        # One item per key, the last given: BatchWriteItem refuses a request naming one key twice.
        unique = {(j.repo.lower(), j.source, j.pr): j for j in judgements}
        requests = [{"PutRequest": {"Item": to_item(_judgement_item(j))}} for j in unique.values()]
        for start in range(0, len(requests), 25):
            pending = {self.settings.judgements_table: requests[start:start + 25]}
            for _ in range(10):
                left = self.db.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not left:
                    break
                pending = left
            else:
                raise PrhubError(f"DynamoDB kept refusing to store {len(pending)} judgements")

    def forget_judgement(self, repo: str, pr: int, source: str) -> None:
        """Remove the repository's judgement of `pr` from `source` (a label taken off the PR), if there is one."""
        self.db.delete_item(TableName=self.settings.judgements_table,
                            Key=to_item({"repo": repo.lower(), "key": f"{source}#{pr}"}))

    def judgements(self, repo: str) -> list[Judgement]:
        """Every judgement kept for the repository, by source and PR."""
        out = []
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.judgements_table, KeyConditionExpression="repo = :r",
                ExpressionAttributeValues=to_item({":r": repo.lower()})):
            for raw in page.get("Items", []):
                item = from_item(raw)
                out.append(judgement(repo, int(item["pr"]), item["verdict"], item["source"], item.get("at", ""),
                                     item.get("grade")))
        return out


def _judgement_item(j: Judgement) -> dict[str, Any]:
    item: dict[str, Any] = {"repo": j.repo.lower(), "key": f"{j.source}#{j.pr}", "pr": j.pr, "verdict": j.verdict,
                            "source": j.source, "at": j.at}
    if j.grade is not None:  # only a graded judgement has one: items kept before grades read the same
        item["grade"] = j.grade
    return item

