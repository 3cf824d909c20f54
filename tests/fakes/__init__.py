"""Fakes of the services Prhub talks to: HTTP servers on 127.0.0.1 (GitHub, OpenAI, registries) and in-memory
stand-ins for the flow's AWS adapters (memory.py)."""
from __future__ import annotations

from tests.fakes.github_server import FakeGitHub, load_export

__all__ = ["FakeGitHub", "load_export"]
