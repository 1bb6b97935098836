"""A reader of a command's output that goes away (``replaygate verify --json | head -c 10``)
ends only the printing: the command still writes its files, prints nothing more and ends
with its own exit status, saying nothing of it (no traceback, no "Exception ignored" line).

Each command runs as a process whose stdout (and stderr) is a pipe whose reader has gone,
so every write to it is a broken pipe, as after ``head`` has read its fill (a process forked
from one interpreter that imported the command line once: tests/forked_cli.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from forked_cli import Forker
from replaygate.examples.research_copilot import shipped_fixtures

pytestmark = pytest.mark.slow  # each test runs replaygate in a process of its own


def replaygate(
    forker: Forker,
    *args: str | Path,
    cwd: Path,
    stderr_too: bool = False,
    stdout: int | None = None,
) -> tuple[int, str]:
    """Run ``replaygate ARGS`` with its stdout (and with ``stderr_too`` its stderr, as
    ``2>&1 | head``) closed by its reader, or ``stdout`` (a file descriptor, closed here
    after): the exit status and what stderr said."""
    if stdout is None:
        read, stdout = os.pipe()
        os.close(read)
    with os.fdopen(stdout, "wb") as out, tempfile.TemporaryFile() as err:
        stderr = out.fileno() if stderr_too else err.fileno()
        status = forker.run([str(arg) for arg in args], stdout=out.fileno(), stderr=stderr, cwd=cwd)
        err.seek(0)
        return status, err.read().decode()


@pytest.mark.parametrize(
    "args",
    [["verify", "--json"], ["checksum"], ["patrol"]],
    ids=["verify", "checksum", "patrol"],
)
def test_a_command_whose_reader_leaves_ends_as_it_would_saying_nothing(
    forker: Forker, tmp_path: Path, args: list[str]
) -> None:
    # a copy: patrol would look for references to the shipped store in the whole project
    store = shutil.copy(shipped_fixtures(), tmp_path)
    status, said = replaygate(forker, *args, store, cwd=tmp_path)
    assert (status, said) == (0, "")


@pytest.mark.parametrize("as_json", [False, True], ids=["lines", "json"])
def test_a_repair_whose_reader_leaves_repairs_every_file(
    forker: Forker, tmp_path: Path, as_json: bool
) -> None:
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
        forker, "verify", "--repair", *(["--json"] if as_json else []), store,
        cwd=tmp_path, stderr_too=as_json,
    )  # fmt: skip
    assert (status, said) == (0, "")
    for name in names:
        assert (store / name).read_bytes() == shipped_fixtures().read_bytes()
        assert (store / f"{name}.bak").read_bytes().endswith(b'{"key": "abc", "req')


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_stdout_on_a_full_disk_is_named(forker: Forker, tmp_path: Path) -> None:
    # "Error: no space left on device", naming nothing: not the file it was given
    full = os.open("/dev/full", os.O_WRONLY)
    said = replaygate(forker, "verify", shipped_fixtures(), cwd=tmp_path, stdout=full)
    assert said == (2, "Error: stdout: no space left on device\n")
