"""A live body that is not a stream, cut before its end while recording, is not recorded:
the client got the library's error, and a replay handed it the part read as a whole
answer of status 200."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import httpx
import httpx2
import pytest

from loopback import Handler, serving
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_client, intercept

ANSWER = json.dumps({"id": "msg_1", "text": "a whole answer " * 20}).encode()


class CutsFirst(Handler):
    """Sends half of its first answer's body, then closes; answers every other whole."""

    served: ClassVar[list[int]] = [0]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        CutsFirst.served[0] += 1
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        if CutsFirst.served[0] == 1:
            self.wfile.write(ANSWER[: len(ANSWER) // 2])
            self.close_connection = True
        else:
            self.wfile.write(ANSWER)


def test_a_cut_body_is_not_recorded_and_the_next_send_is(tmp_path: Path) -> None:
    store, body = tmp_path / "cut.jsonl", {"model": "m"}
    CutsFirst.served[0] = 0
    with serving(CutsFirst) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        with pytest.raises(httpx2.RemoteProtocolError):
            c.post(f"{base}/v1/messages", json=body)
        assert not store.exists()
        assert c.post(f"{base}/v1/messages", json=body).content == ANSWER  # sent again
    assert len(FixtureStore.open(store)) == 1
    with block_network(), httpx2_client(Exchange(store)) as client:
        assert client.post(f"{base}/v1/messages", json=body).json() == json.loads(ANSWER)


def test_a_cut_body_read_through_intercept_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "cut.jsonl"
    CutsFirst.served[0] = 0
    with (
        serving(CutsFirst) as base,
        httpx.Client() as client,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(httpx.RemoteProtocolError),
    ):
        client.post(f"{base}/v1/messages", json={"model": "m"})
    assert not store.exists()
