"""A stream in a server's format of its own is read joined too: Ollama's NDJSON lines
(``application/x-ndjson``, each line a JSON object) and SSE events of JSON shapes no
provider sends. A key split over their pieces is refused, each field path's values read
joined in order, and found by verify in a stored one; clean pieces with ids of their own
(a new value in every event) are no finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from loopback import ChunkedEvents, Handler, serving
from replaygate.errors import SecretInFixtureError
from replaygate.http import Exchange, httpx2_client
from replaygate.hygiene.verify import verify_store

KEY = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
KEY_PARTS = ["the token: ", KEY[:10], KEY[10:25], KEY[25:]]
CLEAN_PARTS = ["the token: ", "Q_Q", "Q_Q", "Q_Q"]
_IDS = ["4f1c9a7be2d05836", "a9e07c3d5b1f2468", "7d2b6e0f9c4a1835", "c3a8f5e1b7d90264"]


def _ndjson(parts: list[str]) -> bytes:
    lines = [
        {"model": "llama3", "id": i, "message": {"content": p}}
        for i, p in zip(_IDS, parts, strict=True)
    ]
    return "".join(json.dumps(line) + "\n" for line in [*lines, {"done": True}]).encode()


def _sse(parts: list[str]) -> list[bytes]:
    return [
        f"event: token\ndata: {json.dumps({'id': i, 'token': p})}\n\n".encode()
        for i, p in zip(_IDS, parts, strict=True)
    ]


class _Lines(Handler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        parts = KEY_PARTS if self.path.startswith("/key") else CLEAN_PARTS
        self.answer_bytes(_ndjson(parts), "application/x-ndjson")


class _Events(ChunkedEvents):
    PAUSE = 0.0
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        "/key/api/chat": _sse(KEY_PARTS),
        "/clean/api/chat": _sse(CLEAN_PARTS),
    }


SERVERS = {"ndjson": _Lines, "sse": _Events}
WHERE = {"ndjson": r"response\.text \(lines 1\.\.4\)", "sse": r"response\.events\[0\.\.3\]\.data"}


def _send(base: str, name: str, store: Path) -> None:
    exchange = Exchange(store, mode="record-missing", approve_live=True)
    with (
        httpx2_client(exchange) as http,
        http.stream("POST", f"{base}/{name}/api/chat", json={"model": "llama3"}) as answer,
    ):
        answer.read()


@pytest.mark.parametrize("shape", list(SERVERS))
def test_a_key_split_over_a_stream_of_its_own_is_refused(tmp_path: Path, shape: str) -> None:
    store = tmp_path / "s.jsonl"
    with (
        serving(SERVERS[shape]) as base,
        pytest.raises(SecretInFixtureError, match=rf"GitHub token found at {WHERE[shape]}"),
    ):
        _send(base, "key", store)
    assert not store.exists() or store.read_bytes() == b""


@pytest.mark.parametrize("shape", list(SERVERS))
def test_verify_finds_a_key_split_over_a_stored_stream_of_its_own(
    tmp_path: Path, shape: str
) -> None:
    store = tmp_path / "s.jsonl"
    with serving(SERVERS[shape]) as base:
        _send(base, "clean", store)
    assert verify_store(store)[1] == []
    line = store.read_text()
    for part in KEY_PARTS[1:]:  # a hand edit
        line = line.replace("Q_Q", part, 1)
    store.write_text(line)
    problems = [str(problem) for problem in verify_store(store)[1]]
    assert len(problems) == 1, problems
    assert "GitHub token at " + WHERE[shape].replace("\\", "") in problems[0]
