"""`prhub serve`: a site directory on localhost, as CloudFront serves the bucket.

The same `/path/ -> /path/index.html` rewrite as the stack's CloudFront
Function (prhub.site.publish.rewrite), the site's content types, `nosniff`, and never
a directory listing. A malformed path (bad percent-encoding, not UTF-8, a
control character such as %00) is answered 400 and a `..` segment 404, never
with a traceback.
"""
from __future__ import annotations

import contextlib
import re
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from prhub.site.publish import TYPES, rewrite

_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files with the site's content types and rewrite; never a directory listing."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES, "": "application/octet-stream"}

    def _rewrite(self) -> bool:
        """Point self.path at the file CloudFront would serve; False (answered) when the path is refused."""
        parts = urlsplit(self.path)
        raw = parts.path or "/"
        try:
            decoded = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            decoded = None
        if decoded is None or _BAD_ESCAPE.search(raw) or _CONTROL.search(decoded):
            self.send_error(400, "Bad request", "malformed path")
            return False
        if ".." in decoded.replace("\\", "/").split("/"):
            self.send_error(404, "Not found")
            return False
        self.path = rewrite(raw) + (f"?{parts.query}" if parts.query else "")
        return True

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self._rewrite():
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if self._rewrite():
            super().do_HEAD()

    def send_head(self) -> Any:
        try:
            return super().send_head()
        except ValueError:  # a path open() refuses: answered, not a traceback
            self.send_error(400, "Bad request", "malformed path")
            return None

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
