"""A run's publications on the runs table (`DynamoPublications`): which revision of its report is published, at
which folder, and whether a better run's report there must stay.

- `claim_revision` sets `revision_requested` to the next revision only while that revision is unclaimed and the
  one before it is published, so a result that arrives after a publication asks for exactly one new revision;
- `mark_reported` records a revision only over an older one;
- a run publishes at a report's URL only while no newer or more complete run of the same range and language has
  published there (`superseding`, a Query of ReportKeyIndex), so a late sweep of an orphaned run is recorded,
  never published over a better report (`better`).
"""
from __future__ import annotations

from datetime import datetime

from prhub.cloud.dynamo import from_item, pack, to_item
from prhub.cloud.runs import Run
from prhub.cloud.tables import Tables, won

REPORT_KEY_INDEX = "ReportKeyIndex"  # the runs table's index by report folder (template.yaml)


class DynamoPublications(Tables):
    """The report's bookkeeping on the run item: revisions claimed and published, the folder, supersession."""

    def claim_revision(self, run_id: str, revision: int, now: int) -> bool:
        """Exactly one caller wins revision N: only while revision N-1 is the published one and N is unclaimed."""
        published = "revision = :prev" if revision > 2 else "(revision = :prev OR attribute_not_exists(revision))"
        return won(lambda: self.db.update_item(
            TableName=self.settings.runs_table, Key=self.run_key(run_id),
            UpdateExpression="SET revision_requested = :n",
            ConditionExpression=f"#s = :reported AND {published} "
                                "AND (attribute_not_exists(revision_requested) OR revision_requested < :n)",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues=to_item({":n": revision, ":prev": revision - 1, ":reported": "reported"})))

    def superseding(self, folder: str, run: Run, results: int) -> str | None:
        """The run whose published report at `folder` must stay, this run's revision with `results` results being
        stale: one planned later, or one more complete (a larger share of its listed PRs with a result); None when
        this one may publish. Runs as new and as complete, and the run's own earlier revisions, give way.

        A Query of the runs table's ReportKeyIndex (report_key, set when a run is marked reported, with what the
        check reads projected): the runs published at one folder, not every run. The index is eventually
        consistent: two publishers racing within one publication can both pass; the sweep's case (an orphan
        reported long after) cannot."""
        planned = planned_at(run, 0)
        for page in self.db.get_paginator("query").paginate(
                TableName=self.settings.runs_table, IndexName=REPORT_KEY_INDEX,
                KeyConditionExpression="report_key = :k",
                FilterExpression="#s = :r AND run_id <> :me "
                                 "AND (attribute_not_exists(superseded_by) OR superseded_by = :none)",
                ProjectionExpression="run_id, created_at, published_results, expected",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":k": folder, ":r": "reported", ":me": run.run_id, ":none": ""})):
            for raw in page.get("Items", []):
                other = from_item(raw)
                if better(str(other.get("created_at", "")), int(other.get("published_results", 0)),
                          int(other.get("expected", 0)), planned, results, run.expected):
                    return str(other["run_id"])
        return None

    def mark_reported(self, run_id: str, report_key: str, reported_at: str, now: int, revision: int = 1,
                      results: int = 0, pending: list[int] | None = None, superseded_by: str = "") -> bool:
        """Record revision `revision` as published, with the results it included and the PRs it had none for;
        False (nothing changed) when this or a newer revision is already recorded. `pending` is packed: a sweep
        of a year's run may leave thousands. `superseded_by`: the revision was made but not published, the
        report at its URL being that run's (superseding)."""
        return won(lambda: self.db.update_item(
            TableName=self.settings.runs_table, Key=self.run_key(run_id),
            UpdateExpression="SET #s = :s, report_key = :k, reported_at = :t, updated_at = :now, revision = :v, "
                             "published_results = :n, published_pending = :p, superseded_by = :by",
            ConditionExpression="attribute_not_exists(revision) OR revision < :v",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues=to_item({":s": "reported", ":k": report_key, ":t": reported_at,
                                               ":now": now, ":v": revision, ":n": results,
                                               ":p": pack(sorted(pending or [])), ":by": superseded_by})))


def planned_at(run: Run, default: int) -> int:
    """When the run was planned (epoch seconds); `default` for an item without a readable time."""
    return _epoch(run.created_at, default)


def _epoch(stamp: str, default: int) -> int:
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return default


def better(created_at: str, results: int, expected: int, planned: int, mine: int, my_expected: int,
           default: int = 0) -> bool:
    """A published run (planned at `created_at`, `results` of its `expected` PRs with a result) is newer or more
    complete than one planned at `planned` with `mine` of `my_expected`: its report must not be replaced."""
    newer = _epoch(created_at, default) > planned
    share, my_share = (results, max(expected, 1)), (mine, max(my_expected, 1))
    return newer or share[0] * my_share[1] > my_share[0] * share[1]

