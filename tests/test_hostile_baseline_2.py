"""Two ``baseline update`` at once: the history keeps the reason of each (law 9).

Each update read the baseline, appended its entry to the history it read and replaced
the file: the update written last dropped the entry of the other, so a change of the
baseline lost the reason given for it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from replaygate.evals import baseline as baseline_module
from replaygate.evals import update_baseline
from run_cli import replaygate
from test_history import run


@pytest.mark.slow  # racing writer threads
def test_updates_at_once_keep_every_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_commit(_repo: Path) -> str:
        time.sleep(0.03)  # between reading the baseline and writing it: git takes a while
        return "abc123"

    monkeypatch.setattr(baseline_module, "head_commit", slow_commit)
    monkeypatch.setattr(baseline_module, "is_dirty", lambda _repo: False)
    target = tmp_path / "evals" / "baseline.json"
    update_baseline(target, run("2026-11-30T00:00:00Z", 5), reason="first")
    reasons = [f"update {i}" for i in range(4)]
    errors: list[BaseException] = []

    def update(reason: str) -> None:
        try:
            update_baseline(target, run("2026-12-01T00:00:00Z", 4), reason=reason)
        except BaseException as err:  # shown by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=update, args=(reason,)) for reason in reasons]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    history = json.loads(target.read_text())["history"]
    assert history[0]["reason"] == "first"
    assert sorted(entry["reason"] for entry in history[1:]) == reasons


def test_a_baseline_that_is_a_symlink_loop_is_named_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "one.json").symlink_to("two.json")
    (tmp_path / "two.json").symlink_to("one.json")
    results = run("2026-12-01T00:00:00Z", 4).write(tmp_path / "results.json")
    done = replaygate(
        "baseline", "update", "--results", str(results), "--reason", "r",
        "--baseline", "one.json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert done.stderr == (
        "Error: one.json: cannot read baseline: Too many levels of symbolic links\n"
    )
    assert (tmp_path / "one.json").is_symlink()  # left as it was


def test_a_baseline_that_is_no_file_is_named_before_a_lock_is_made_beside_it(
    tmp_path: Path,
) -> None:
    os.mkfifo(tmp_path / "baseline.fifo")
    results = run("2026-12-01T00:00:00Z", 4).write(tmp_path / "results.json")
    done = replaygate(
        "baseline", "update", "--results", str(results), "--reason", "r",
        "--baseline", "baseline.fifo", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done
    assert (
        done.stderr
        == "Error: baseline.fifo: cannot read baseline: is a FIFO, where a file is expected\n"
    )
    assert not (tmp_path / "baseline.fifo.lock").exists()  # as /dev/null.lock was made
