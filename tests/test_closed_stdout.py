"""A reader of a command's output that goes away (``replaygate verify --json | head -c 10``)
ends only the printing: the command still writes its files, prints nothing more and ends
with its own exit status, saying nothing of it (no traceback, no "Exception ignored" line).

Each command runs as a process whose stdout (and stderr) is a pipe whose reader has gone,
so every write to it is a broken pipe, as after ``head`` has read its fill.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_fixtures

pytestmark = pytest.mark.slow  # each test starts replaygate in a process of its own


def replaygate(*args: str | Path, cwd: Path, stderr_too: bool = False) -> tuple[int, str]:
    """Run ``replaygate ARGS`` with its stdout (and with ``stderr_too`` its stderr, as
    ``2>&1 | head``) closed by its reader: the exit status and what stderr said."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "wb") as closed:
        done = subprocess.run(
            [sys.executable, "-m", "replaygate", *map(str, args)],
            stdout=closed, stderr=closed if stderr_too else subprocess.PIPE,
            cwd=cwd, timeout=60, check=False,
        )  # fmt: skip
    return done.returncode, (done.stderr or b"").decode()


@pytest.mark.parametrize(
    "args",
    [["verify", "--json"], ["checksum"], ["patrol"]],
    ids=["verify", "checksum", "patrol"],
)
def test_a_command_whose_reader_leaves_ends_as_it_would_saying_nothing(
    tmp_path: Path, args: list[str]
) -> None:
    status, said = replaygate(*args, shipped_fixtures(), cwd=tmp_path)
    assert (status, said) == (0, "")


@pytest.mark.parametrize("as_json", [False, True], ids=["lines", "json"])
def test_a_repair_whose_reader_leaves_repairs_every_file(tmp_path: Path, as_json: bool) -> None:
    """``verify --repair`` prints a line for each file it repaired as it goes: the reader
    gone at the first, the others are repaired all the same; with ``--json`` those lines
    go to stderr, closed too here (``2>&1 | head``)."""
    store = tmp_path / "fixtures"
    store.mkdir()
    names = ["a.jsonl", "b.jsonl", "c.jsonl"]
    for name in names:
        shutil.copy(shipped_fixtures(), store / name)
        with (store / name).open("ab") as tail:
            tail.write(b'{"key": "abc", "req')
    status, said = replaygate(
        "verify", "--repair", *(["--json"] if as_json else []), store,
        cwd=tmp_path, stderr_too=as_json,
    )  # fmt: skip
    assert (status, said) == (0, "")
    for name in names:
        assert (store / name).read_bytes() == shipped_fixtures().read_bytes()
        assert (store / f"{name}.bak").read_bytes().endswith(b'{"key": "abc", "req')


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_stdout_on_a_full_disk_is_named(tmp_path: Path) -> None:
    # "Error: no space left on device", naming nothing: not the file it was given
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "replaygate", "verify", str(shipped_fixtures())],
            stdout=full, stderr=subprocess.PIPE, cwd=tmp_path, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.decode() == "Error: stdout: no space left on device\n"
