"""Writers in separate processes: concurrent appends lose nothing, a killed writer harms nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from replaygate import Fixture, FixtureStore, Message, to_anthropic_request
from replaygate.fixtures.store import PartialTailError, repair_partial_tail

pytestmark = pytest.mark.slow

PRELUDE = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    from replaygate import Fixture, FixtureStore, Message, to_anthropic_request

    def request(question):
        return to_anthropic_request(
            [Message.user(question)], [], model="m", max_tokens=64, system="s"
        )

    def fixture(question, answer):
        response = {"content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}
        return Fixture.create(request(question), [response], {"source": "hand"})
    """
)

CONCURRENT_WRITER = PRELUDE + textwrap.dedent(
    """
    worker, go = int(sys.argv[1]), Path(sys.argv[2])
    jsonl = FixtureStore.open(sys.argv[3])
    folder = FixtureStore.open(sys.argv[4])
    while not go.exists():
        time.sleep(0.001)
    for i in range(50):
        f = fixture(f"worker {worker} question {i}", f"answer {worker}.{i} " + "x" * (i * 40))
        jsonl.put(f)
        folder.put(f)
    """
)

LOOPING_WRITER = PRELUDE + textwrap.dedent(
    """
    store = FixtureStore.open(sys.argv[1])
    i = 0
    while True:
        store.put(fixture(f"question {i}", "y" * (i % 7 * 20_000)))
        i += 1
    """
)

TORN_WRITER = PRELUDE + textwrap.dedent(
    """
    path = Path(sys.argv[1])
    store = FixtureStore.open(path)
    for i in range(int(sys.argv[2])):
        store.put(fixture(f"question {i}", f"answer {i}"))
    line = fixture("the interrupted one", "never finished").to_line()
    with store.lock():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, line[: len(line) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    """
)


def request(question: str) -> dict[str, object]:
    return to_anthropic_request([Message.user(question)], [], model="m", max_tokens=64, system="s")


def spawn(script: str, *args: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def complete_lines(path: Path) -> list[dict[str, object]]:
    data = path.read_bytes()
    return [orjson.loads(raw) for raw in data[: data.rfind(b"\n") + 1].splitlines()]


def test_eight_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    jsonl, folder, go = tmp_path / "store.jsonl", tmp_path / "folder", tmp_path / "go"
    workers = [spawn(CONCURRENT_WRITER, w, go, jsonl, folder) for w in range(8)]
    time.sleep(0.5)
    go.touch()
    for worker in workers:
        _, err = worker.communicate(timeout=240)
        assert worker.returncode == 0, err.decode()

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
    writer = spawn(LOOPING_WRITER, path)
    try:
        deadline = time.monotonic() + 60
        while len(complete_lines(path) if path.exists() else []) < 10:
            assert writer.poll() is None, "the writer died on its own"
            assert time.monotonic() < deadline, "the writer made no progress"
            time.sleep(0.01)
        time.sleep(delay)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL, f"seed {seed}"

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
    writer = spawn(TORN_WRITER, path, 12)
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == -signal.SIGKILL, err.decode()

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
