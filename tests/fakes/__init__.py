"""Fakes of the services Prhub talks to, serving real HTTP on 127.0.0.1."""
from __future__ import annotations

from tests.fakes.github_server import FakeGitHub, load_export

__all__ = ["FakeGitHub", "load_export"]
