"""What replaygate's pytest plugins add to every test of a suite, the tests not using them
included.

Run: ``.venv/bin/python bench/bench_plugin_overhead.py [--tests N] [--repeat R]``
(prints a markdown table; about two minutes with the defaults, 3,000 tests and 3 rounds).

A generated project of N trivial tests (``assert i >= 0``, parametrized) is run by
``python -m pytest -q -p no:cacheprovider`` in a fresh process, three ways taking turns
round by round: with replaygate's two plugins disabled (``-p no:replaygate -p
no:replaygate_sampling``), with them loaded (the tests use nothing of theirs), and with
them loaded in a run that also replays one recorded call (a first test through the
``anthropic_client`` fixture, so the run writes its hits and every test's outcome line).
The other plugins installed beside replaygate (pytest-recording, rerunfailures, anyio)
are disabled in every run, as this project's own suite disables them. Each way is run
with the N tests and without them (one trivial test instead, beside the replaying test
where there is one): the difference over N is what a test costs that way, start-up,
imports and the replayed call left out. A figure is the best of R rounds of CPU time
(user + sys).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

OTHERS = ("-p", "no:recording", "-p", "no:rerunfailures", "-p", "no:anyio")
WITHOUT = ("-p", "no:replaygate", "-p", "no:replaygate_sampling")
TRIVIAL = """import pytest


@pytest.mark.parametrize("i", range({n}))
def test_trivial(i):
    assert i >= 0
"""
PLAYS = """def test_plays(anthropic_client):
    anthropic_client().messages.create(
        model="claude-sonnet-4-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
    )
"""


def _cpu_of(folder: Path, *args: str) -> float:
    """The CPU seconds (user + sys) of one ``python -m pytest`` run in ``folder``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *OTHERS, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {folder} ({' '.join(args)}):\n{done.stdout}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _project(root: Path, tests: int, *, plays: bool) -> Path:
    """A project of ``tests`` trivial tests (``test_trivial.py``) and one more
    (``test_one.py``); with ``plays``, first a test replaying one call, recorded here
    from the simulator."""
    folder = root / ("plays" if plays else "trivial")
    folder.mkdir()
    (folder / "test_trivial.py").write_text(TRIVIAL.format(n=tests))
    (folder / "test_one.py").write_text(TRIVIAL.format(n=1))
    if plays:
        (folder / "test_a_plays.py").write_text(PLAYS)
        _cpu_of(
            folder,
            "test_a_plays.py",
            "--replaygate-record-mode=record-missing",
            "--replaygate-approve-live",
            "--replaygate-simulator=echo",
        )
    return folder


def main() -> int:
    """Run the three ways in turns and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=3000, help="trivial tests (3000)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; best kept (3)")
    options = parser.parse_args()
    os.environ.pop("PYTEST_ADDOPTS", None)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        trivial = _project(root, options.tests, plays=False)
        plays = _project(root, options.tests, plays=True)
        ways = {
            "replaygate's plugins disabled": (trivial, WITHOUT, ("test_one.py",)),
            "loaded, nothing played": (trivial, (), ("test_one.py",)),
            "loaded, one call replayed (outcomes written)": (
                plays,
                (),
                ("test_a_plays.py", "test_one.py"),
            ),
        }
        best = {name: [float("inf"), float("inf")] for name in ways}
        for _ in range(options.repeat):
            for name, (folder, args, alone) in ways.items():
                kept = best[name]
                kept[0] = min(kept[0], _cpu_of(folder, *args, *alone))
                kept[1] = min(kept[1], _cpu_of(folder, *args))
    per_test = {name: (whole - part) / options.tests for name, (part, whole) in best.items()}
    floor = per_test["replaygate's plugins disabled"]
    print(f"{options.tests:,} trivial tests, best of {options.repeat} rounds (CPU time)\n")
    print("| run | CPU s, with the tests | without them | per test, µs | / plugins disabled |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, (without, whole) in best.items():
        cost = per_test[name]
        print(f"| {name} | {whole:.2f} | {without:.2f} | {cost * 1e6:,.0f} | {cost / floor:.3f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
