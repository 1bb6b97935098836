"""Upload recording benchmark: a file uploaded through the OpenAI SDK, recorded.

Run: ``.venv/bin/python bench/bench_upload_recording.py [--sizes 262144 1048576 4194304]
[--repeat R]`` (prints a markdown table).

A recording scans a request's body for secrets before it is sent, as its fixture is made
and as the store writes it; an uploaded file (``client.files.create``) is one body of
base64 (random bytes here, as a compressed PDF or an image are). Each size is recorded
through ``intercept(store, "record-missing")`` from a loopback server answering as the
Files API does, into a new store, with the scan's verdicts on long texts kept between
the three scans (``secret_scan._Verdicts``, as replaygate runs) and with none kept (each
scan reads the body anew, as before they were kept), in turns, best of R runs each. CPU
time of this process; the ratio kept / none is the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openai

from replaygate.http import intercept
from replaygate.sanitize import secret_scan


class FilesAPI(BaseHTTPRequestHandler):
    """Answers an upload as ``POST /v1/files`` does."""

    def do_POST(self) -> None:
        size = int(self.headers["content-length"])
        self.rfile.read(size)
        body = json.dumps(
            {"id": "file-1", "object": "file", "bytes": size, "created_at": 1,
             "filename": "upload.bin", "purpose": "assistants"}
        ).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@contextmanager
def files_api() -> Iterator[str]:
    """The base URL of a loopback server answering uploads."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), FilesAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def record(base_url: str, data: bytes, folder: Path, kept: int) -> float:
    """CPU seconds to record one upload of ``data`` into a new store, ``kept`` verdicts kept."""
    secret_scan._VERDICTS = secret_scan._Verdicts(size=kept)
    client = openai.OpenAI(api_key="sk-bench", base_url=base_url, max_retries=0)
    store = Path(tempfile.mkdtemp(dir=folder)) / "uploads.jsonl"
    started = time.process_time()
    with intercept(store, "record-missing", approve_live=True, cap=None):
        client.files.create(file=("upload.bin", data), purpose="assistants")
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1 << 18, 1 << 20, 1 << 22])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    print("| upload | kept verdicts, s CPU | none kept, s CPU | kept / none |")
    print("| ---: | ---: | ---: | ---: |")
    with files_api() as base_url, tempfile.TemporaryDirectory() as folder:
        for size in options.sizes:
            data = os.urandom(size)
            best = {16: float("inf"), 0: float("inf")}
            for _ in range(options.repeat):
                for kept in best:
                    best[kept] = min(best[kept], record(base_url, data, Path(folder), kept))
            print(
                f"| {size / (1 << 20):.2f} MiB | {best[16]:.2f} | {best[0]:.2f} "
                f"| {best[16] / best[0]:.2f}x |"
            )


if __name__ == "__main__":
    main()
