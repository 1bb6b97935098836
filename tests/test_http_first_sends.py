"""Threads sharing one recording client whose first sends race make one live client: each
made its own, and all but the one kept were never closed, their sockets left open
(``ResourceWarning: unclosed <socket ...>``)."""

from __future__ import annotations

import gc
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic

pytestmark = pytest.mark.slow  # threads racing for one live client

THREADS = 12


def test_racing_first_sends_leave_no_socket_open(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    gc.collect()  # what earlier tests left is collected outside the warnings caught here
    with warnings.catch_warnings(record=True) as caught, Simulator(behavior="echo") as sim:
        warnings.simplefilter("always", ResourceWarning)
        port = urlsplit(sim.url).port
        http = httpx2_client(store, "record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http) as client:
            start = threading.Barrier(THREADS)

            def ask(i: int) -> str:
                start.wait()
                content = [{"role": "user", "content": f"q{i}"}]
                answer = client.messages.create(model="m", max_tokens=8, messages=content)
                return str(answer.content[0].text)

            with ThreadPoolExecutor(THREADS) as pool:
                answers = list(pool.map(ask, range(THREADS)))
        gc.collect()
    assert answers == [f"echo: q{i}" for i in range(THREADS)]
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert [m for m in unclosed if f"raddr=('127.0.0.1', {port})" in m] == []
