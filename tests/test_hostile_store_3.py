"""Hostile changes to a store while it is in use, through real HTTP on loopback."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.http import httpx2_client


class _Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        out = json.dumps({"bytes": len(body)}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo) as echo:
        threading.Thread(target=echo.serve_forever, args=(0.01,), daemon=True).start()
        yield f"http://127.0.0.1:{echo.server_address[1]}"
        echo.shutdown()


def _recorded(store: Path, url: str, n: int) -> None:
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        for j in range(n):
            client.post(f"{url}/v1/x", content=json.dumps({"j": j}).encode())


@pytest.mark.parametrize("name", ["answers.jsonl", "answers"])
def test_a_store_removed_while_in_use_is_named(tmp_path: Path, server: str, name: str) -> None:
    store = tmp_path / name
    if name == "answers":
        store.mkdir()
    _recorded(store, server, 2)
    with httpx2_client(store) as client:  # indexed when built
        if store.is_dir():  # a folder's files are read one by one
            assert client.post(f"{server}/v1/x", content=b'{"j": 0}').status_code == 200
        for file in [store] if store.is_file() else list(store.rglob("*.json")):
            file.unlink()
        with pytest.raises(FixtureFormatError, match="removed from disk since the store was"):
            client.post(f"{server}/v1/x", content=b'{"j": 1}')
