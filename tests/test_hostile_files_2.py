"""A regular file whose read would wait for data (``/proc/kmsg``), named where a file is read.

Files are opened without waiting (a FIFO would hang the command), so a read of such a
file returned nothing at all, not even empty bytes: every reader ended in an
AttributeError traceback (``gate --results``, ``eval --cases``, ``--config``), and
``patrol --refs`` over a folder holding one ended in a TypeError.
"""

from __future__ import annotations

import os
import select
import shutil
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import shipped_fixtures
from run_cli import replaygate

KMSG = Path("/proc/kmsg")
pytestmark = pytest.mark.skipif(
    not os.access(KMSG, os.R_OK), reason="needs a readable /proc/kmsg (root, on Linux)"
)
WAITS = "is a file that waits for something to write it (a kernel or device file)"


@pytest.fixture(autouse=True)
def _nothing_waiting_to_be_read() -> None:
    """Kernel messages waiting in /proc/kmsg make it a file with something to read: it
    does not wait then, and reading it would take them from the system's log."""
    fd = os.open(KMSG, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if poller.poll(0):
            pytest.skip("kernel messages are waiting in /proc/kmsg: it does not wait now")
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (
            ("gate", "--results", "r.json", "--baseline", str(KMSG)),
            "cannot read baseline or results",
        ),
        (("eval", "--config", str(KMSG), "--no-history"), "cannot read"),
        (("history", "merge", str(KMSG)), "cannot read history export"),
    ],
    ids=["gate --baseline", "eval --config", "history merge"],
)
def test_such_a_file_is_named_as_what_it_is(tmp_path: Path, args: tuple[str], what: str) -> None:
    done = replaygate(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr == f"Error: {KMSG}: {what}: {WAITS}, where a file is expected\n"


def test_patrol_passes_over_such_a_file_among_its_references(tmp_path: Path) -> None:
    shutil.copy(shipped_fixtures(), tmp_path / "rc.jsonl")
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "kmsg").symlink_to(KMSG)
    (tmp_path / "refs" / "test_rc.py").write_text("STORE = 'rc.jsonl'\n")
    done = replaygate("patrol", "rc.jsonl", "--refs", "refs", cwd=tmp_path)
    assert done.returncode == 0, done
    assert "unreferenced" not in done.stdout  # the references of the other file are seen


def test_checksum_names_such_a_file_instead_of_a_traceback(tmp_path: Path) -> None:
    done = replaygate("checksum", str(KMSG), cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr == f"Error: {KMSG}: {WAITS}, where a fixture file is expected\n"


def test_as_a_store_such_a_file_is_refused_not_read_as_empty(tmp_path: Path) -> None:
    # verify found "0 fixture(s) checked, 0 problem(s)"; patrol ended in an AttributeError
    verified = replaygate("verify", str(KMSG), cwd=tmp_path)
    assert verified.returncode == 2, verified  # a store that cannot be read
    assert f"{KMSG}: {WAITS}, where a fixture file is expected" in verified.stdout
    patrolled = replaygate("patrol", str(KMSG), cwd=tmp_path)
    assert patrolled.returncode == 2, patrolled
    assert patrolled.stderr.startswith(f"Error: {KMSG}: {WAITS}")
