"""One store shared by threads (one re-records, others replay); leftovers of interrupted writes."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.fixtures.store.leftovers import LeftoverTempWarning
from replaygate.hygiene.verify import verify_store

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")


VERSIONS = 5
"""How many times the writer records every request anew while the readers read: each
rewrite of a fixture is a window for a reader to see half of it."""


def _request(i: int) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": f"q{i}"}]}


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["store.jsonl", "store"])
def test_readers_see_the_old_or_the_new_fixture_while_one_thread_rerecords(
    tmp_path: Path, layout: str
) -> None:
    store = FixtureStore.open(tmp_path / layout)
    requests = [_request(i) for i in range(8)]
    for i, request in enumerate(requests):
        store.put(Fixture.create(request, [{"v": 0, "i": i}], META))
    stop = threading.Event()
    failures: list[str] = []
    reads = [0]

    def rerecord() -> None:
        for version in range(1, VERSIONS + 1):
            for i, request in enumerate(requests):
                record_response(store, request, {"v": version, "i": i}, meta=META)
        stop.set()

    def replay(seed: int) -> None:
        n = seed
        while not stop.is_set():
            n += 1
            i = n % len(requests)
            try:
                found = store.find(requests[i])
            except Exception as err:  # any error at all is what this test looks for
                failures.append(f"{type(err).__name__}: {err}")
                return
            if found is None or found[1].response["i"] != i:
                failures.append(f"request {i}: {found}")
                return
            reads[0] += 1

    threads = [threading.Thread(target=rerecord)]
    threads += [threading.Thread(target=replay, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    assert reads[0] > 100
    final = FixtureStore.open(tmp_path / layout)
    assert len(final) == len(requests)


def _leftovers(path: Path) -> list[tuple[str, int]]:
    return [(p.file, p.line) for p in verify_store(path)[1] if "interrupted write" in p.reason]


@pytest.mark.parametrize("layout", ["store.jsonl", "store"])
def test_temporary_files_of_an_interrupted_write_are_reported_and_removed_at_open(
    tmp_path: Path, layout: str
) -> None:
    path = tmp_path / layout
    FixtureStore.open(path).put(Fixture.create(_request(0), [{"v": 0}], META))
    folder = path if path.is_dir() else path.parent
    written = next(p for p in sorted(folder.rglob("*")) if p.suffix in (".jsonl", ".json"))
    left = written.with_name(f".{written.name}.4242.tmp")
    left.write_bytes(b'{"key": "half a fix')
    before = written.read_bytes()
    assert _leftovers(path) == [(str(left), 0)]
    with pytest.warns(LeftoverTempWarning, match="removed 1 temporary file"):
        store = FixtureStore.open(path)
    assert not left.exists() and written.read_bytes() == before
    assert store.lookup(_request(0)) is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FixtureStore.open(path)
    assert _leftovers(path) == []
