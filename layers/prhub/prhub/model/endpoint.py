"""Where and how to call the model: the one value prhub.model.scorers chooses and prhub.model.client calls.

A module of its own so choosing an endpoint (every score worker does, the engine's too) loads no client.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call the model. `repr` hides the key so it never reaches a log."""

    base_url: str | None
    model: str
    api_key: str
    temperature: float = 0.2
    timeout: float = 60.0
    max_retries: int = 3

    def __repr__(self) -> str:
        return f"Endpoint(base_url={self.base_url!r}, model={self.model!r})"
