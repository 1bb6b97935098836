"""The folder ``replaygate demo --out`` writes in is the demo's own, and one demo's at a time.

The eval loop deletes its ``eval_fixtures.jsonl`` there, replaces its ``results.json``
and ``report.html`` and adds a run to its ``history.db``: a folder holding a user's
store, page or history under those names lost them with exit status 0. Each run leaves
a mark with the digest of each file it wrote, and a file under those names that the
mark does not vouch for is refused. Two demos on one folder deleted each other's store
midway (a traceback, replay misses, wrong scores in the history): a demo holds the
folder's lock for its whole run and a second one is refused.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from replaygate.demo import LOCK, MARK, RESULTS, WRITTEN, claim_out, foreign_files, mark
from replaygate.evals import History
from replaygate.examples.research_copilot import shipped_eval_cases
from run_cli import replaygate
from test_demo_mark import STOPPED, vouch
from test_history import run

# Its tests draw the report's plots through replaygate (the demo).

# Each runs the demo, or a second process holding its folder's lock: end to end.
pytestmark = pytest.mark.slow


def _a_store(file: Path) -> None:
    shutil.copyfile(shipped_eval_cases().with_name("fixtures.jsonl"), file)


def _a_page(file: Path) -> None:
    file.write_text("<html>my own page</html>\n")


def _a_history(file: Path) -> None:
    with History.open(file) as history:
        for day in range(1, 6):
            history.append(run(f"2026-11-0{day}T00:00:00Z", 4))


@pytest.mark.parametrize(
    ("name", "write"),
    [("eval_fixtures.jsonl", _a_store), ("report.html", _a_page), ("history.db", _a_history)],
    ids=["a fixture store", "a page", "a history of another suite"],
)
def test_a_file_of_the_users_under_a_name_the_demo_writes_is_refused_and_kept(
    tmp_path: Path, name: str, write: Callable[[Path], None]
) -> None:
    out = tmp_path / "proj"
    out.mkdir()
    write(out / name)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    done = replaygate("demo", "--out", str(out))
    assert done.returncode == 2, done
    assert done.stderr.startswith(
        f"Error: --out {out}: holds files the demo did not write ({name!r}); it deletes its "
        "eval_fixtures.jsonl there"
    ), done.stderr
    assert "(nothing was written)" in done.stderr and "Recording" not in done.stdout
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_folder_an_earlier_demo_marked_is_the_demos_until_a_file_changes(
    tmp_path: Path,
) -> None:
    for name in WRITTEN:
        (tmp_path / name).write_text(f"what the demo wrote in {name}\n")
    assert foreign_files(tmp_path) == [repr(name) for name in sorted(WRITTEN)]
    vouch(tmp_path)
    assert foreign_files(tmp_path) == []
    (tmp_path / "history.db").write_text("runs of another suite\n")
    (tmp_path / "report.html").unlink()
    (tmp_path / "report.html").mkdir()
    assert foreign_files(tmp_path) == [
        "'history.db' (changed since the demo wrote it)",
        "'report.html'",
    ]
    # a file a stopped run was writing is vouched for by no digest: it may be one put there
    (tmp_path / "report.html").rmdir()
    vouch(tmp_path)
    mark(tmp_path, {**_read(tmp_path), "history.db": None})
    assert foreign_files(tmp_path) == [f"'history.db' {STOPPED}"]
    (tmp_path / MARK).write_text('{"format": "mine"}\n')
    assert foreign_files(tmp_path)[0] == repr(MARK)


def test_a_second_demo_on_a_folder_another_demo_holds_is_refused_before_it_runs(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cc"
    # the lock is held by another process: a child forked from this one, which imported it
    heard, told = multiprocessing.Pipe()
    holder = multiprocessing.get_context("fork").Process(target=_hold, args=(out, told))
    holder.start()
    try:
        assert heard.poll(60) and heard.recv() == "held"
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        done = replaygate("demo", "--out", str(out))
        assert done.returncode == 2, done
        assert done.stderr == (
            f"Error: --out {out}: another replaygate demo is writing there (it holds {LOCK}); "
            "wait for it to end, or give another folder (nothing was written)\n"
        )
        assert "Recording" not in done.stdout
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    finally:
        heard.send("done")
        holder.join(60)
    assert holder.exitcode == 0
    with claim_out(out):  # the first demo has ended: the folder is free
        pass


def _hold(out: Path, told: Connection) -> None:
    """A demo midway through its run: it holds ``out`` and writes its results (marked as
    being written), says ``held`` on ``told``, and keeps them until told it is done."""
    with claim_out(out) as claim, claim.writing(RESULTS) as results:
        results.write_text("{}")
        told.send("held")
        told.recv()


def test_a_mark_file_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    # Read with a plain read, the demo waited for ever for a writer of the FIFO.
    out = tmp_path / "proj"
    out.mkdir()
    os.mkfifo(out / ".replaygate-demo.json")
    done = replaygate("demo", "--out", str(out))
    assert done.returncode == 2, done
    assert "holds files the demo did not write ('.replaygate-demo.json')" in done.stderr


def _read(out: Path) -> dict[str, str | None]:
    """The digests the demo's mark in ``out`` holds, by file name."""
    files: dict[str, str | None] = json.loads((out / MARK).read_text())["files"]
    return files
