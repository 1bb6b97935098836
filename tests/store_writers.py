"""Writers that run in processes of their own, for tests/test_store_concurrency.py.

They are forked from one server process that imported replaygate once
(:func:`writer_context`), so each writer is a separate process with its own file
handles and locks, without paying an interpreter's start and imports.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.context import ForkServerContext
from pathlib import Path

from replaygate import Fixture, FixtureStore, Message, to_anthropic_request


def writer_context() -> ForkServerContext:
    """The ``forkserver`` context whose server has this module (and replaygate) imported."""
    context = multiprocessing.get_context("forkserver")
    assert isinstance(context, ForkServerContext)
    context.set_forkserver_preload([__name__])
    return context


def request(question: str) -> dict[str, object]:
    """The Anthropic request asking ``question``."""
    return to_anthropic_request([Message.user(question)], [], model="m", max_tokens=64, system="s")


def fixture(question: str, answer: str) -> Fixture:
    """A fixture answering ``question`` with ``answer``."""
    response = {"content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}
    return Fixture.create(request(question), [response], {"source": "hand"})


def concurrent_writer(worker: int, ready: Path, go: Path, jsonl: Path, folder: Path) -> None:
    """Open both stores, say so in ``ready``, wait for ``go``, then put 50 fixtures in each."""
    stores = FixtureStore.open(jsonl), FixtureStore.open(folder)
    ready.touch()
    while not go.exists():
        time.sleep(0.001)
    for i in range(50):
        f = fixture(f"worker {worker} question {i}", f"answer {worker}.{i} " + "x" * (i * 40))
        for store in stores:
            store.put(f)


def looping_writer(path: Path) -> None:
    """Put fixtures, some of them large, until killed."""
    store = FixtureStore.open(path)
    i = 0
    while True:
        store.put(fixture(f"question {i}", "y" * (i % 7 * 20_000)))
        i += 1


def torn_writer(path: Path, count: int) -> None:
    """Put ``count`` fixtures, then die by SIGKILL half way through writing one more line,
    holding the store's lock."""
    store = FixtureStore.open(path)
    for i in range(count):
        store.put(fixture(f"question {i}", f"answer {i}"))
    line = fixture("the interrupted one", "never finished").to_line()
    with store.lock():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, line[: len(line) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
