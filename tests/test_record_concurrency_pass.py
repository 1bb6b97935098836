"""Recording into one store from several processes at once, with ``compact`` and
``verify --repair`` run against it meanwhile, loses and corrupts nothing (law 5): the
store ends as a serial recording of the same cases under the same seed leaves it."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import sys
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.store import FixtureStore
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

pytestmark = pytest.mark.slow  # races recording processes
AGENT = "replaygate.examples.research_copilot:copilot"
RECORD = ("--agent", AGENT, "--record-mode", "record-missing", "--approve-live",
          "--simulator", "--seed", "7", "--no-history")  # fmt: skip
RECORDED_AT = re.compile(r'"recorded_at": ?"[^"]*"')


def _cases(root: Path, name: str, samples: int, suffix: str = "") -> Path:
    lines = shipped_eval_cases().read_text("utf-8").splitlines()[:3]
    shipped = [json.loads(line) for line in lines]
    cases = [{**c, "id": c["id"] + suffix, "samples": samples, "floor": 1} for c in shipped]
    path = root / name
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), "utf-8")
    return path


def _recording(cases: Path, store: Path) -> multiprocessing.process.BaseProcess:
    """A process of its own recording ``cases`` into ``store`` (forked: it starts with what
    this one imported, as a fresh interpreter would after its imports)."""
    process = multiprocessing.get_context("fork").Process(target=_record_alone, args=(cases, store))
    process.start()
    return process


def _record_alone(cases: Path, store: Path) -> None:
    done = replaygate("eval", "--cases", str(cases), "--fixtures", str(store), *RECORD)
    sys.stderr.write(done.stderr)
    os._exit(done.returncode)


def _record_here(cases: Path, store: Path) -> None:
    """Record ``cases`` into ``store`` in this process, one after another."""
    done = replaygate("eval", "--cases", str(cases), "--fixtures", str(store), *RECORD)
    assert done.returncode == 0, done.stderr


def _fixtures(store: Path) -> dict[str, str]:
    with FixtureStore.open(store) as opened:
        return {f.key: RECORDED_AT.sub("", json.dumps(f.to_json(), sort_keys=True)) for f in opened}


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The fixtures a serial recording of the three cases files leaves, made once: each
    is compared by its key and contents, the same in either layout (as
    test_eval_seeded_recording.py checks)."""
    root = tmp_path_factory.mktemp("serial")
    store = root / "store.jsonl"
    one = _cases(root, "one.jsonl", 1)
    two = _cases(root, "two.jsonl", 2)
    again = _cases(root, "again.jsonl", 2, "-again")  # the same questions, other ids
    for cases in (one, two, again):
        _record_here(cases, store)
    assert replaygate("compact", str(store)).returncode == 0
    return _fixtures(store)


@pytest.mark.parametrize("layout", ["store.jsonl", "folder"])
def test_two_recordings_at_once_beside_compact_and_repair_equal_a_serial_one(
    tmp_path: Path, layout: str, serial: dict[str, str]
) -> None:
    one = _cases(tmp_path, "one.jsonl", 1)
    two = _cases(tmp_path, "two.jsonl", 2)
    again = _cases(tmp_path, "again.jsonl", 2, "-again")  # the same questions, other ids
    raced = tmp_path / "raced" / layout
    raced.parent.mkdir()
    _record_here(one, raced)
    running = [_recording(two, raced), _recording(again, raced)]
    while any(p.is_alive() for p in running):
        for command in (("compact",), ("verify", "--repair")):
            done = replaygate(*command, str(raced))
            assert done.returncode == 0, done.stdout + done.stderr
    for process in running:
        process.join()
    assert [p.exitcode for p in running] == [0, 0]
    assert replaygate("verify", str(raced)).returncode == 0
    assert replaygate("compact", str(raced)).returncode == 0
    assert _fixtures(raced) == serial
