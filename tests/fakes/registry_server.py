"""A fake PyPI JSON API and npm registry on 127.0.0.1.

    GET /pypi/<name>/json   -> {"info": {...}, "releases": {version: [...]}} or 404
    GET /npm/<name>         -> {"name": ..., "versions": {version: {...}}} or 404 (scoped names %2F-encoded)
    any path in `fail`      -> 503 (a registry that cannot answer)

    with FakeRegistry(pypi={"vllm": ["0.8.4"]}, npm={"left-pad": ["1.3.0"]}) as reg:
        Registry(pypi_url=reg.pypi_url, npm_url=reg.npm_url)
"""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.fakes.loopback import LoopbackServer


class FakeRegistry(LoopbackServer):
    def __init__(self, pypi: dict[str, list[str]] | None = None, npm: dict[str, list[str]] | None = None,
                 fail: tuple[str, ...] = ()) -> None:
        self.pypi = {k.lower(): list(v) for k, v in (pypi or {}).items()}
        self.npm = {k.lower(): list(v) for k, v in (npm or {}).items()}
        self.fail = fail
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def pypi_url(self) -> str:
        return f"{self.url}/pypi"

    @property
    def npm_url(self) -> str:
        return f"{self.url}/npm"

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        self.requests.append(path)
        if any(path.startswith(f) for f in self.fail):
            return 503, {"message": "unavailable"}
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if len(parts) == 3 and parts[0] == "pypi" and parts[2] == "json":
            versions = self.pypi.get(parts[1].lower())
            if versions is None:
                return 404, {"message": "Not Found"}
            return 200, {"info": {"name": parts[1]}, "releases": {v: [] for v in versions}}
        if len(parts) == 2 and parts[0] == "npm":
            versions = self.npm.get(parts[1].lower())
            if versions is None:
                return 404, {"error": "Not found"}
            return 200, {"name": parts[1], "versions": {v: {"version": v} for v in versions}}
        return 404, {"message": "unknown path"}

    def start(self) -> FakeRegistry:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                status, body = fake.answer(urlsplit(self.path).path)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

        return self.serve(Handler)

