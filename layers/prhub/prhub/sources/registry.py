"""Package registries (PyPI, npm): does a pinned version exist?

Used by the `dependency_pin` risk when `check_registry` is on. Base URLs are
injectable so tests point them at a fake server; answers are cached per
package for the life of the client (one scoring run).
"""
from __future__ import annotations

import re
from typing import Any

import requests

PYPI_URL = "https://pypi.org/pypi"  # {base}/{name}/json
NPM_URL = "https://registry.npmjs.org"  # {base}/{name}


class Registry:
    """Version look-ups; `None` means the registry could not say (network, 5xx), never a guess."""

    def __init__(self, pypi_url: str = PYPI_URL, npm_url: str = NPM_URL, session: Any = None,
                 timeout: float = 5.0) -> None:
        self.pypi_url = pypi_url.rstrip("/")
        self.npm_url = npm_url.rstrip("/")
        self.session = session if session is not None else requests.Session()
        self.timeout = timeout
        self._versions: dict[tuple[str, str], set[str] | None] = {}

    def versions(self, ecosystem: str, name: str) -> set[str] | None:
        """Every published version of the package; empty when the package does not exist; None if unknown."""
        key = (ecosystem, name.lower())
        if key not in self._versions:
            self._versions[key] = self._fetch(ecosystem, name)
        return self._versions[key]

    def _fetch(self, ecosystem: str, name: str) -> set[str] | None:
        if ecosystem == "pypi":
            url, field = f"{self.pypi_url}/{name}/json", "releases"
        elif ecosystem == "npm":
            url, field = f"{self.npm_url}/{name.replace('/', '%2F')}", "versions"
        else:
            return None
        try:
            response = self.session.get(url, timeout=self.timeout, headers={"Accept": "application/json"})
            if response.status_code == 404:
                return set()
            if response.status_code != 200:
                return None
            return {str(v) for v in (response.json().get(field) or {})}
        except (requests.RequestException, ValueError):
            return None

    def exists(self, ecosystem: str, name: str, version: str) -> bool | None:
        """Whether `name==version` is published; None when the registry did not answer."""
        known = self.versions(ecosystem, name)
        if known is None:
            return None
        if ecosystem == "pypi":  # PEP 440: ==2.6 matches 2.6.0, V1.0 is 1.0
            return _pep440(version) in {_pep440(v) for v in known}
        return version in known


def _pep440(version: str) -> str:
    """Enough of PEP 440 normalisation to compare release numbers: case, a leading v, trailing .0 segments."""
    text = version.strip().lower().removeprefix("v")
    release, sep, rest = text.partition("-")
    head = re.match(r"^[\d.]+", release)
    if head:
        numbers = head.group(0).rstrip(".").split(".")
        while len(numbers) > 1 and numbers[-1] == "0":
            numbers.pop()
        release = ".".join(numbers) + release[head.end():]
    return release + sep + rest
