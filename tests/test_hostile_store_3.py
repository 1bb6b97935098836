"""Hostile changes to a store while it is in use, through real HTTP on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback import Handler, serving
from replaygate.errors import FixtureFormatError, FixtureMismatchError
from replaygate.fixtures.store.compact import compact
from replaygate.http import httpx2_client
from test_hostile_http_3 import _Echo


@pytest.fixture
def server() -> Iterator[str]:
    with serving(_Echo) as url:
        yield url


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


class _Counter(Handler):
    """Each answer a new number, some late: the order calls end differs from the order
    they were sent."""

    lock = threading.Lock()
    count = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.lock:
            _Counter.count += 1
            n = _Counter.count
        if n % 3 == 0:
            time.sleep(0.01)
        self.answer_json({"n": n})


@pytest.mark.slow  # racing writer threads
@pytest.mark.filterwarnings("ignore::replaygate.errors.SentAtOnceWarning")  # on purpose
def test_threads_sending_one_request_over_one_recording_client_lose_no_answer(
    tmp_path: Path,
) -> None:
    store = tmp_path / "same.jsonl"
    answers: list[int] = []
    with serving(_Counter) as base:
        url = f"{base}/v1/x"
        with httpx2_client(store, mode="record-missing", approve_live=True) as client:

            def send() -> None:
                for _ in range(6):
                    answers.append(client.post(url, content=b'{"same": 1}').json()["n"])

            threads = [threading.Thread(target=send) for _ in range(5)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    assert sorted(answers) == list(range(1, 31))  # each send had its own live answer
    with httpx2_client(store) as client:
        replayed = [client.post(url, content=b'{"same": 1}').json()["n"] for _ in range(30)]
        assert sorted(replayed) == list(range(1, 31))  # every answer was written
        with pytest.raises(FixtureMismatchError, match="recorded 30 times and sent 31 times"):
            client.post(url, content=b'{"same": 1}')


def test_a_replay_opened_before_compact_rewrote_its_file_still_answers(
    tmp_path: Path, server: str
) -> None:
    store = tmp_path / "compacted.jsonl"
    bodies = [b'{"j": 0}', b'{"j": 0}', b'{"j": 1}', b'{"j": 2}']
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        recorded = [client.post(f"{server}/v1/x", content=body).json() for body in bodies]
    assert len(store.read_text().splitlines()) == 4  # the second answer is a sample line
    with httpx2_client(store) as client:  # indexed now, before the rewrite
        assert [(c.fixtures, c.sample_lines) for c in compact(store)] == [(1, 1)]
        assert len(store.read_text().splitlines()) == 3
        replayed = [client.post(f"{server}/v1/x", content=body).json() for body in bodies[::-1]]
    assert replayed == recorded[::-1]
