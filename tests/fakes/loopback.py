"""What every fake server shares: a ThreadingHTTPServer on 127.0.0.1 (a free port) in a daemon thread."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: a burst of concurrent clients (a batch's model calls) overflows
    # it, and each dropped SYN costs the client a 1 s retransmission, which no real endpoint would cost.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out (a "slow" fault) hangs up before the answer: expected, not news.
        pass


class LoopbackServer:
    """Start/stop and `with` support; a subclass's start() builds its handler class and calls serve()."""

    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> Self:
        self._server = QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start the server first"
        return int(self._server.server_address[1])


@contextmanager
def running(server: ThreadingHTTPServer) -> Iterator[str]:
    """Serve `server` (bound to 127.0.0.1) from a daemon thread; yields its base URL, shuts it down after."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
