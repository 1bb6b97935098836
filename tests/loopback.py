"""A server of the test's own on loopback, answering with a handler class, for tests of
the HTTP layer that need answers no simulator gives (a redirect, a late answer)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of a threading server answering with ``handler``,
    shut down on leaving (its loop polls every 10 ms, so shutdown returns at once)."""
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        server.request_queue_size = 64
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
