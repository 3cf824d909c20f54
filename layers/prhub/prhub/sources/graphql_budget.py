"""GraphQL's points budget (`PointsBudget`), apart from REST's: what the GraphQL source's queries
(prhub.sources.graphql_query) are checked against before they are sent, and charged with after."""
from __future__ import annotations

from typing import Any

import requests

from prhub.cloud import metrics
from prhub.core.period import parse_timestamp
from prhub.sources.http import GitHubClient, RateLimit, read_rate


class PointsBudget:
    """GraphQL's points budget, apart from REST's (`GitHubClient.rate`): read from each answer's headers and its
    `rateLimit`, and checked before each query, which waits for the reset when what is left would not pay for it."""

    def __init__(self, http: GitHubClient) -> None:
        self.http = http
        self.points: RateLimit | None = None
        self.last_cost = 1  # what the last query cost: the least the next one needs left in the budget

    def before(self) -> None:
        points = self.points
        if points is None or points.remaining >= self.last_cost:
            return
        wait = points.reset - self.http.clock()
        if wait > 0:
            self.points = None  # after the wait the budget is full again; the next answer says so
            metrics.count("RateLimitWaits")
            self.http.wait(wait, "GraphQL points budget")

    def note(self, response: requests.Response) -> None:
        rate = read_rate(response.headers)
        if rate is not None:
            self.points = rate

    def wait(self, response: requests.Response) -> float | None:
        if response.status_code == 200:
            return self._limited(response)
        return self.http.limit_wait(response) if response.status_code in (403, 429) else None

    def _limited(self, response: requests.Response) -> float | None:
        """Seconds to wait when a 200 answer is a rate-limit error (GitHub answers the primary limit,
        and sometimes a secondary one, with 200 and `errors`), else None."""
        if b"rate limit" not in response.content.lower() and b"RATE_LIMITED" not in response.content:
            return None  # the common case, without parsing a large page twice
        try:
            errors = response.json().get("errors") or []
        except (ValueError, AttributeError):
            return None
        limited = [e for e in errors if isinstance(e, dict) and (
            e.get("type") == "RATE_LIMITED" or "rate limit" in str(e.get("message", "")).lower())]
        if not limited:
            return None
        self.http.stats["rate_limited"] += 1
        return self.http.limit_wait(response) or 60.0

    def charge(self, data: Any) -> None:
        """What a query's `rateLimit` says: the points left, and what the next query needs at least."""
        rate = data.get("rateLimit") if isinstance(data, dict) else None
        if isinstance(rate, dict) and "remaining" in rate:
            self.points = RateLimit(int(rate.get("limit") or 0), int(rate["remaining"]),
                                    parse_timestamp(str(rate["resetAt"])).timestamp())
            self.http.stats["points"] += int(rate.get("cost") or 0)
            self.last_cost = max(1, int(rate.get("cost") or 1))

