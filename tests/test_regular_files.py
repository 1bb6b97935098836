"""Every file a user names is refused at once, by name, when it is not a regular file.

A FIFO where a results file, a baseline, the eval cases, a history export, a
calibration sidecar, a cassette, ``pyproject.toml`` or a simulator script is expected
used to block its reader forever (opening a FIFO for reading waits for a writer). Each
reader now opens non-blocking and checks what it opened. Each check runs on a thread
with a deadline (``deadline.finishes``), so a reader that blocks fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from deadline import finishes
from replaygate.cli import main
from replaygate.config import read_toml
from replaygate.evals.cases import load_eval_cases
from replaygate.evals.results import load_eval_results
from replaygate.hygiene.refs import find_references
from replaygate.migrate.cassettes import read_cassette
from replaygate.regular import (
    NotRegularFileError,
    read_regular_bytes,
    read_regular_text,
    unreadable,
)
from replaygate.sampling.calibration import score_sheet
from replaygate.sim.behaviors import ScriptBehavior


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "results.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("read", [read_regular_bytes, read_regular_text])
def test_a_fifo_a_folder_and_a_device_are_refused_saying_what_they_are(
    read: Callable[[Path], Any], fifo: Path, tmp_path: Path
) -> None:
    for path, kind in [(fifo, "a FIFO"), (tmp_path, "a folder"), (Path("/dev/null"), "a device")]:
        err = finishes(functools.partial(read, path))
        assert isinstance(err, NotRegularFileError) and isinstance(err, OSError)
        assert err.strerror == f"is {kind}, where a file is expected"
        assert err.filename == str(path)
    regular = tmp_path / "ok.json"
    regular.write_bytes('{"é": 1}'.encode())
    assert read(regular) in (b'{"\xc3\xa9": 1}', '{"é": 1}')


READERS: dict[str, Callable[[Path], Any]] = {
    "results": load_eval_results,
    "eval cases": load_eval_cases,
    "pyproject.toml": read_toml,
    "simulator script": ScriptBehavior.from_file,
    "cassette": read_cassette,
    "calibration sidecar": lambda path: _score_beside(path),
}


def _score_beside(sidecar: Path) -> object:
    """Score a sheet of no row against the automatic verdicts ``sidecar``."""
    sheet = sidecar.with_suffix(".csv")
    sheet.write_text("item,label\n", encoding="utf-8")
    return score_sheet(sheet, sidecar)


@pytest.mark.parametrize("what", READERS)
def test_each_reader_refuses_a_fifo_naming_it(what: str, fifo: Path) -> None:
    err = finishes(lambda: READERS[what](fifo))
    assert isinstance(err, Exception) and not isinstance(err, NotRegularFileError)
    expected = "a cassette file" if what == "cassette" else "a file"
    assert str(fifo) in str(err) and f"is a FIFO, where {expected} is expected" in str(err)


def test_a_fifo_in_the_tree_is_no_reference_and_does_not_stop_the_scan(
    fifo: Path, tmp_path: Path
) -> None:
    (tmp_path / "test_uses.py").write_text("STORE = 'kept.jsonl'\n", encoding="utf-8")
    refs = finishes(lambda: find_references([tmp_path], {"kept.jsonl"}, set(), set()))
    assert set(refs.by_name["kept.jsonl"]) == {tmp_path / "test_uses.py"}


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--results", "{ok}", "--baseline", "{fifo}"],
        ["upgrade", "--baseline", "{fifo}", "--candidate", "{ok}"],
        ["eval", "merge", "{fifo}", "--out", "{out}"],
        ["history", "merge", "{fifo}"],
    ],
    ids=["gate", "upgrade", "eval-merge", "history-merge"],
)
def test_the_commands_end_with_an_error_naming_the_fifo(
    args: list[str], fifo: Path, tmp_path: Path
) -> None:
    ok = tmp_path / "ok.json"
    ok.write_text("{}", encoding="utf-8")
    filled = [a.format(fifo=fifo, ok=ok, out=tmp_path / "out.json") for a in args]
    result = finishes(lambda: CliRunner().invoke(main, filled))
    assert result.exit_code == 2, result.output
    assert f"Error: {fifo}: cannot read" in result.output
    assert "is a FIFO, where a file is expected" in result.output


def test_text_that_is_not_utf8_is_named_as_such(tmp_path: Path) -> None:
    latin = tmp_path / "baseline.json"
    latin.write_bytes(b'{"format": "caf\xe9"}')
    result = CliRunner().invoke(main, ["gate", "--results", str(latin), "--baseline", str(latin)])
    assert result.exit_code == 2
    assert f"Error: {latin}: not UTF-8 text (byte 0xe9 at column 16)" in (result.output)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (os.mkfifo, "is a FIFO, where a cassette file is expected"),
        (os.mkdir, "is a folder, where a cassette file is expected"),
        (
            lambda path: path.symlink_to(path.name),
            "is a symlink loop, where a cassette file is expected",
        ),
        (
            lambda path: path.symlink_to("gone.yaml"),
            "is a symlink to 'gone.yaml', which does not exist, where a cassette file is expected",
        ),
        (lambda path: None, "cannot read this cassette file: No such file or directory"),
    ],
    ids=["FIFO", "folder", "symlink loop", "symlink to nothing", "absent"],
)
def test_a_file_that_cannot_be_read_is_named_by_what_it_is(
    tmp_path: Path, make: Callable[[Path], object], reason: str
) -> None:
    path = tmp_path / "c.yaml"
    make(path)
    err = finishes(lambda: read_regular_bytes(path))
    assert isinstance(err, OSError)
    assert unreadable(path, err, "cassette file") == reason


def test_a_file_opened_past_descriptor_1023_is_read(tmp_path: Path) -> None:
    # the check that a file is ready to read takes any descriptor number (select takes
    # none past 1023: a process holding many stores open failed there)
    import resource

    from replaygate.regular import read_regular_bytes

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1100:
        pytest.skip("this process may not hold 1,100 descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1030)]
    try:
        (tmp_path / "a.txt").write_bytes(b"held")
        assert read_regular_bytes(tmp_path / "a.txt") == b"held"
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize(
    "command", [["verify"], ["checksum"], ["show", "265288aeb827", "--fixtures"]]
)
def test_a_store_under_what_is_no_folder_is_refused_naming_that(
    tmp_path: Path, command: list[str]
) -> None:
    # The file's own name was given the fault ("is a symlink loop", "Not a directory").
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    os.mkfifo(tmp_path / "fifo")
    for above, kind in [("loop", "a symlink loop"), ("fifo", "a FIFO")]:
        store = tmp_path / above / "rc.jsonl"
        done = CliRunner().invoke(main, [*command, str(store)])
        assert done.exit_code == 2
        assert done.output.splitlines()[-1] == (
            f"Error: {store}: {tmp_path / above} is {kind}, where a folder is expected"
        )
