"""`prhub serve`: a site directory on localhost, as CloudFront serves the bucket.

The same `/path/ -> /path/index.html` rewrite as the stack's CloudFront
Function (prhub.site.rewrite), the site's content types, `nosniff`, and never
a directory listing.
"""
from __future__ import annotations

import contextlib
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from prhub.site import TYPES, rewrite


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files with the site's content types and rewrite; never a directory listing."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES, "": "application/octet-stream"}

    def _rewrite(self) -> None:
        parts = urlsplit(self.path)
        self.path = rewrite(parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._rewrite()
        super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        self._rewrite()
        super().do_HEAD()

    def list_directory(self, path: Any) -> None:
        self.send_error(404, "Not found")
        return None

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def make_server(directory: str | Path, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server for `directory` (port 0 picks a free port: see server.server_address)."""
    root = str(Path(directory).resolve())

    class Handler(SiteHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=root, **kwargs)

    return ThreadingHTTPServer((host, port), Handler)


def serve(directory: str | Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve a site directory on localhost until interrupted, as CloudFront would."""
    with make_server(directory, host, port) as server:
        print(f"serving {Path(directory).resolve()} at http://{host}:{server.server_address[1]}/ (Ctrl-C stops)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
