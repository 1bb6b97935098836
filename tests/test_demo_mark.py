"""The demo's mark vouches only for files whose digest it holds, and the demo looks at its
folder once.

A run marked every file as being written (a ``None`` digest) until it ended: after a run
that stopped, a ``results.json`` or ``report.html`` a person put there was taken for the
demo's own and replaced by the next run. Each file is now marked by its digest as soon
as it is written; the one being written when a run stopped is refused. The folder was
also looked at, and each file hashed, four times a run (twice by the command, twice by
its eval loop): once now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audited import opened
from replaygate.demo import (
    HISTORY,
    REPORT,
    RESULTS,
    STORE,
    WRITTEN,
    DemoOutError,
    claim_out,
    digest,
    foreign_files,
    mark,
)

STOPPED = "(a demo stopped while writing it, or a file put there since: remove it)"


def vouch(out: Path) -> None:
    """Mark the files of the demo's names in ``out`` as an earlier demo wrote them."""
    mark(out, {name: digest(out / name) for name in WRITTEN if (out / name).is_file()})


class Stopped(Exception):
    """A demo run stopped midway."""


def _stop_while_writing(out: Path, done: tuple[str, ...], stopped_in: str) -> None:
    """A demo run in ``out`` that writes the files ``done``, then stops writing another."""
    with pytest.raises(Stopped), claim_out(out) as claim:
        for name in done:
            with claim.writing(name) as path:
                path.write_text(f"the demo's {name}\n")
        with claim.writing(stopped_in) as path:
            path.write_text("half of it")
            raise Stopped


@pytest.mark.parametrize("name", [RESULTS, REPORT])
def test_a_file_put_there_after_a_run_stopped_is_refused_and_kept(
    tmp_path: Path, name: str
) -> None:
    _stop_while_writing(tmp_path, (STORE,), name)
    (tmp_path / name).write_text("mine, put here since\n")
    with pytest.raises(DemoOutError) as refused, claim_out(tmp_path):
        pass
    assert f"holds files the demo did not write ('{name}' {STOPPED})" in str(refused.value)
    assert (tmp_path / name).read_text() == "mine, put here since\n"


def test_what_a_stopped_run_wrote_whole_stays_the_demos(tmp_path: Path) -> None:
    _stop_while_writing(tmp_path, (STORE, RESULTS), HISTORY)
    assert foreign_files(tmp_path) == [f"'{HISTORY}' {STOPPED}"]
    (tmp_path / HISTORY).unlink()  # the person removes what the run left half written
    with claim_out(tmp_path) as claim:
        assert claim.files == {name: digest(tmp_path / name) for name in (STORE, RESULTS)}


def test_the_folder_is_looked_at_once_and_each_file_hashed_once(tmp_path: Path) -> None:
    for name in WRITTEN:
        (tmp_path / name).write_text(f"what the demo wrote in {name}\n")
    vouch(tmp_path)
    with opened() as files, claim_out(tmp_path) as claim:
        pass
    assert sorted(Path(f).name for f in files if Path(f).name in WRITTEN) == sorted(WRITTEN)
    assert claim.files == {name: digest(tmp_path / name) for name in WRITTEN}


def test_a_refused_folder_gets_no_lock_file(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("mine\n")
    with pytest.raises(DemoOutError, match=r"\('notes\.md'\)"), claim_out(tmp_path):
        pass
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]
