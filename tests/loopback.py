"""A server of the test's own on loopback, answering with a handler class, for tests of
the HTTP layer that need answers no simulator gives (a redirect, a late answer)."""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of a threading server answering with ``handler``,
    shut down on leaving.

    Its loop takes one request at a time, waiting at most 10 ms for one, until told to
    stop; leaving tells it so and wakes it at once with a connection that sends nothing
    (a handler reads no request from it). ``serve_forever`` stopped only when its wait of
    10 ms ran out: leaving took 10 ms of waiting, a tenth of a second in a module that
    starts ten servers. Where the wake-up cannot connect (the network blocked in the
    test), the loop stops at the end of its wait, as before."""
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        server.request_queue_size = 64
        server.timeout = 0.01
        stop = threading.Event()

        def serve() -> None:
            while not stop.is_set():
                server.handle_request()

        loop = threading.Thread(target=serve, daemon=True)
        loop.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            stop.set()
            with contextlib.suppress(Exception):
                socket.create_connection(server.server_address[:2], timeout=1).close()
            loop.join()


class Handler(http.server.BaseHTTPRequestHandler):
    """A quiet HTTP/1.1 handler that can answer with JSON.

    Its socket sends each write at once (``TCP_NODELAY``): it writes an answer's head and
    its body apart, and on a connection kept alive the body waited for the client's
    delayed acknowledgement of the head, tens of milliseconds an answer."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def answer_json(self, value: Any, status: int = 200) -> None:
        """Answer ``value`` as a JSON body with ``status``."""
        self.answer_bytes(json.dumps(value).encode(), "application/json", status)

    def answer_bytes(self, out: bytes, content_type: str, status: int = 200) -> None:
        """Answer ``out`` as the body, labelled ``content_type``, with ``status``."""
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


class Counted(Handler):
    """Answers any POST with the size of its body, and counts the requests it gets (the
    size of each body, in :attr:`received`)."""

    received: ClassVar[list[int]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.received.append(len(body))
        self.answer_json({"bytes": len(body)})


class ChunkedEvents(Handler):
    """An event stream (``text/event-stream``) sent in the chunks its path names in
    :attr:`CHUNKS`, each flushed and followed by a short pause, with the status
    :meth:`status` gives it (200)."""

    CHUNKS: ClassVar[dict[str, list[bytes]]] = {}
    PAUSE = 0.01

    def status(self) -> int:
        return 200

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        chunks = self.CHUNKS[self.path]
        self.send_response(self.status())
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(sum(map(len, chunks))))
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()
            time.sleep(self.PAUSE)


class EchoesMessages(Handler):
    """Answers an Anthropic Messages request with its last user message (``echo: ...``);
    keeps the request target of each request in :attr:`targets` (the whole URL when it
    came through as a proxy's)."""

    targets: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        EchoesMessages.targets.append(self.path)
        self.answer_json(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": asked["model"],
                "content": [{"type": "text", "text": f"echo: {asked['messages'][-1]['content']}"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 2},
            }
        )
