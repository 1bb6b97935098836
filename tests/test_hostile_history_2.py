"""Two processes writing one eval history: the second waits for the first, never fails at once.

A command opening the history (``eval``, ``history merge``) read its schema in a
transaction that then wrote: when another process held the history for writing at
that moment, SQLite refused the write at once, without waiting (it cannot wait for a
lock while holding a read lock another writer waits on), and the run that had just
finished was lost with "locked by another process, still after 30 seconds", said
before a second had passed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from replaygate.evals import History
from run_cli import replaygate
from test_history import run


def test_opening_a_history_another_process_is_writing_waits_for_it(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with History.open(path) as history:
        history.append(run("2026-11-30T00:00:00Z", 5))
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another eval, storing its run
    holder.execute("INSERT INTO meta VALUES ('other', 'writer')")
    done = threading.Timer(0.1, holder.execute, ("COMMIT",))
    done.start()
    try:
        started = time.monotonic()
        with History.open(path) as history:
            waited = time.monotonic() - started
            history.append(run("2026-12-01T00:00:00Z", 4))
            assert len(history) == 2
    finally:
        done.join()
        holder.close()
    assert waited >= 0.075  # it waited for the other writer, and then stored its run


def test_merging_a_run_that_differs_from_the_one_stored_under_its_id_says_so(
    tmp_path: Path,
) -> None:
    # "1 already there" and nothing more: the export's version was dropped without a word
    history = tmp_path / "history.db"
    with History.open(history) as opened:
        opened.append(run("2026-12-01T00:00:00Z", 4), run_id="r1")
    exported = replaygate("history", "export", "--history", str(history), "--json")
    document = json.loads(exported.stdout)
    (tmp_path / "same.json").write_text(exported.stdout)
    document["runs"][0]["commit"] = "0123abcd"
    (tmp_path / "edited.json").write_text(json.dumps(document))
    same = replaygate("history", "merge", "--history", str(history), "same.json", cwd=tmp_path)
    assert same.returncode == 0 and same.stderr == "", same
    done = replaygate("history", "merge", "--history", str(history), "edited.json", cwd=tmp_path)
    assert done.returncode == 0, done
    assert done.stdout.endswith("0 run(s) added, 1 already there\n")
    assert done.stderr.startswith("note: 1 run(s) already there differ from the export's (r1)")


def test_results_that_would_not_read_back_are_not_written(tmp_path: Path) -> None:
    # a fixture's usage of 9e18 tokens made a cost past what a results file holds: eval
    # wrote the file, and gate then refused to read it
    from dataclasses import replace

    import pytest

    from replaygate.evals import EvalResults
    from replaygate.evals.errors import ResultsError

    good = run("2026-12-01T00:00:00Z", 4)
    (case,) = good.cases
    huge = replace(case, counts=replace(case.counts, cost=2.7e15))
    with pytest.raises(ResultsError, match=r"results\.json: not written: the results: cases\[0\]"):
        EvalResults((huge,), good.info).write(tmp_path / "results.json")
    assert not (tmp_path / "results.json").exists()
    good.write(tmp_path / "results.json")  # the same run within bounds is written
