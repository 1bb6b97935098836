"""Writers in separate processes: concurrent appends lose nothing, a killed writer harms nothing."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from multiprocessing.context import ForkServerProcess
from pathlib import Path

import orjson
import pytest

from replaygate import Fixture, FixtureStore
from replaygate.fixtures.store import PartialTailError, repair_partial_tail
from store_writers import concurrent_writer, looping_writer, request, torn_writer, writer_context

pytestmark = pytest.mark.slow
CONTEXT = writer_context()


def start(target: Callable[..., None], *args: object) -> ForkServerProcess:
    process = CONTEXT.Process(target=target, args=args)
    process.start()
    return process


def complete_lines(path: Path) -> list[dict[str, object]]:
    data = path.read_bytes()
    return [orjson.loads(raw) for raw in data[: data.rfind(b"\n") + 1].splitlines()]


def test_eight_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    jsonl, folder, go = tmp_path / "store.jsonl", tmp_path / "folder", tmp_path / "go"
    ready = [tmp_path / f"ready-{w}" for w in range(8)]
    workers = [start(concurrent_writer, w, ready[w], go, jsonl, folder) for w in range(8)]
    deadline = time.monotonic() + 60
    while not all(r.exists() for r in ready):  # every writer has both stores open
        assert all(w.exitcode is None for w in workers), "a writer ended before it was told to go"
        assert time.monotonic() < deadline, "the writers did not start"
        time.sleep(0.005)
    go.touch()
    for worker in workers:
        worker.join(timeout=240)
        assert worker.exitcode == 0, "a writer failed (its traceback is on stderr)"

    lines = jsonl.read_bytes().splitlines(keepends=True)
    assert len(lines) == 400
    assert all(raw.endswith(b"\n") for raw in lines)
    parsed = [orjson.loads(raw) for raw in lines]
    assert len({p["key"] for p in parsed}) == 400
    files = sorted(folder.rglob("*.json"))
    assert len(files) == 400
    assert all(orjson.loads(f.read_bytes())["request"] for f in files)
    assert not list(tmp_path.rglob("*.tmp"))

    for store in (FixtureStore.open(jsonl), FixtureStore.open(folder)):
        assert len(store) == 400
        for w in range(8):
            for i in (0, 17, 49):
                found = store.lookup(request(f"worker {w} question {i}"))
                assert found is not None
                assert found.response["content"][0]["text"].startswith(f"answer {w}.{i} ")


def test_sigkill_at_a_random_moment_leaves_earlier_fixtures_intact(tmp_path: Path) -> None:
    seed = random.randrange(2**32)
    delay = random.Random(seed).uniform(0.0, 0.3)
    path = tmp_path / "store.jsonl"
    writer = start(looping_writer, path)
    try:
        deadline = time.monotonic() + 60
        while len(complete_lines(path) if path.exists() else []) < 10:
            assert writer.exitcode is None, "the writer died on its own"
            assert time.monotonic() < deadline, "the writer made no progress"
            time.sleep(0.01)
        time.sleep(delay)
    finally:
        writer.kill()
        writer.join(timeout=30)
    assert writer.exitcode == -signal.SIGKILL, f"seed {seed}"

    intact = complete_lines(path)
    assert len(intact) >= 10, f"seed {seed}"
    try:
        store = FixtureStore.open(path)
    except PartialTailError as err:
        assert err.line == len(intact) + 1, f"seed {seed}"
        assert repair_partial_tail(path) is not None
        store = FixtureStore.open(path)
    assert len(store) == len(intact), f"seed {seed}"
    for i in range(len(intact)):
        assert store.lookup(request(f"question {i}")) is not None, f"seed {seed}, fixture {i}"


def test_a_writer_killed_mid_line_leaves_a_partial_tail_that_is_reported_and_repaired(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.jsonl"
    writer = start(torn_writer, path, 12)
    writer.join(timeout=60)
    assert writer.exitcode == -signal.SIGKILL, "the writer did not die as planned (see stderr)"

    intact = complete_lines(path)
    assert len(intact) == 12
    assert not path.read_bytes().endswith(b"\n")
    with pytest.raises(PartialTailError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 13
    assert caught.value.offset == len(path.read_bytes()[: path.read_bytes().rfind(b"\n") + 1])
    assert "truncated last line" in str(caught.value)

    damaged = path.read_bytes()
    repaired = repair_partial_tail(path)
    assert repaired is not None
    backup, removed = repaired
    assert backup.read_bytes() == damaged
    assert path.read_bytes() == damaged[: len(damaged) - removed]
    store = FixtureStore.open(path)
    assert len(store) == 12
    assert all(store.lookup(request(f"question {i}")) for i in range(12))
    # The lock the killed writer held was released with it: writing goes on.
    store.put(
        Fixture.create(request("after the crash"), [{"content": [], "stop_reason": "end_turn"}])
    )
    assert len(FixtureStore.open(path)) == 13
    assert os.path.getsize(path) > len(damaged) - removed
