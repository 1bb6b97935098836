"""A file a command produces is written in one step: a failed write keeps the old one."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.evals import History
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures
from replaygate.outputs import NO_READER, atomic_write, close_fifos, open_fifo, write_text
from unplotted_reports import unplot


def test_a_write_that_fails_keeps_the_old_file_whole_and_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "results.json"
    out.write_text('{"old": true}\n')

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError) as caught:
        write_text(out, '{"new": true}\n' * 1000)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(out)
    assert out.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


@pytest.mark.skipif(
    not hasattr(os, "pathconf") or os.pathconf(".", "PC_NAME_MAX") != 255,
    reason="needs a file system of 255-byte names",
)
def test_a_file_whose_temporary_file_name_is_too_long_is_named_and_kept(tmp_path: Path) -> None:
    # Its own name fits; ".<name>.<pid>.tmp" does not: the system's error names no file.
    out = tmp_path / ("s" * 243 + ".jsonl")
    out.write_bytes(b"old\n")
    with pytest.raises(OSError) as caught:
        atomic_write(out, b"new\n")
    tmp = f".{out.name}.{os.getpid()}.tmp"
    assert caught.value.filename == str(out)
    assert caught.value.strerror == (
        f"File name too long: the temporary file it is rewritten through, {tmp!r} is "
        f"{len(tmp)} bytes, more than the 255 a file name may have there: shorten the name it "
        "is made from by 7 byte(s)"
    )
    assert out.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_a_write_into_a_folder_that_is_not_there_names_the_path_given(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "results.json"
    with pytest.raises(FileNotFoundError) as caught:
        write_text(out, "{}\n")
    assert caught.value.filename == str(out)  # not the temporary file it would have moved


def test_a_write_through_a_link_replaces_the_file_it_links_to(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_file_written_again_keeps_its_permissions(tmp_path: Path) -> None:
    # A private report came out world-readable (0644): the file written beside it and
    # renamed over it took the process's defaults.
    out = tmp_path / "report.html"
    out.write_text("old\n")
    out.chmod(0o600)
    write_text(out, "new\n")
    assert (out.read_text(), oct(out.stat().st_mode & 0o777)) == ("new\n", oct(0o600))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="root gives files")
def test_a_file_replaced_by_root_keeps_its_owner(tmp_path: Path) -> None:
    # A CI container running as root rewrote a store of the runner's checkout (compact,
    # prune, a baseline update) as root's own: the runner could no longer write it.
    out = tmp_path / "s.jsonl"
    out.write_text("old\n")
    os.chown(out, 65534, 65534)
    write_text(out, "new\n")
    assert (out.read_text(), out.stat().st_uid, out.stat().st_gid) == ("new\n", 65534, 65534)


def test_a_read_only_file_is_refused_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Renamed over, a 0444 file was replaced (and came out 0644) where writing it in
    # place is refused; a command now says permission denied and leaves it.
    out = tmp_path / "report.html"
    out.write_text("kept\n")
    out.chmod(0o444)
    with pytest.raises(PermissionError) as caught:
        write_text(out, "new\n")
    assert caught.value.filename == str(out)
    assert out.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    history = tmp_path / "history.db"
    History.open(history).close()
    # The page is refused as it is written, after its plots (drawn and checked in
    # test_report.py), which hold nothing of the file: they are left out here.
    unplot(monkeypatch)
    done = CliRunner().invoke(main, ["report", "--history", str(history), "--out", str(out)])
    assert done.exit_code == 2, done.output
    assert f"{out}: permission denied" in done.output and out.read_text() == "kept\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_directly_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_text(fifo, "streamed\n")
        assert os.read(reader, 100) == b"streamed\n"
    finally:
        os.close(reader)
    assert fifo.is_fifo()


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO no process reads; a test that would wait on it gets a reader after 5 s
    that leaves at once, so that it fails instead of waiting for ever."""
    path = tmp_path / "out.fifo"
    os.mkfifo(path)
    rescue = threading.Timer(5, lambda: os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK)))
    rescue.start()
    yield path
    rescue.cancel()
    close_fifos()


def test_a_fifo_no_process_reads_is_refused_at_once(fifo: Path) -> None:
    with pytest.raises(OSError) as caught:
        open_fifo(fifo)
    assert (caught.value.errno, caught.value.filename) == (errno.ENXIO, str(fifo))
    assert caught.value.strerror == NO_READER


def test_a_fifo_a_process_reads_gets_the_output_as_a_stream(fifo: Path) -> None:
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        open_fifo(fifo)
        with pytest.raises(BlockingIOError):  # the writer is there, the output not yet
            os.read(reader, 100)
        write_text(fifo, "streamed\n")
        assert os.read(reader, 100) == b"streamed\n"
        assert os.read(reader, 100) == b""  # and the end: no writer left
    finally:
        os.close(reader)


@pytest.mark.parametrize(
    "args",
    [
        ["history", "export", "--history", "{history}", "--out", "{fifo}"],
        ["report", "--history", "{history}", "--out", "{fifo}"],
        ["eval", "--cases", str(shipped_eval_cases()), "--fixtures", str(shipped_fixtures()),
         "--agent", "replaygate.examples.research_copilot:copilot", "--no-history",
         "--out", "{fifo}"],
    ],
    ids=["history export", "report", "eval"],
)  # fmt: skip
@pytest.mark.slow  # a real git repository
def test_an_output_option_naming_a_fifo_no_process_reads_is_refused_first(
    fifo: Path, tmp_path: Path, args: list[str]
) -> None:
    # The command ran to its end, then waited for ever for a reader.
    history = tmp_path / "history.db"
    History.open(history).close()
    given = [arg.format(history=history, fifo=fifo) for arg in args]
    result = CliRunner().invoke(main, given)
    assert result.exit_code == 2, result.output
    assert f"Error: {fifo}: is a FIFO that no process reads: start its reader first" in (
        result.output
    )


def test_a_file_whose_folder_makes_no_file_is_named_with_that_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file may be writable, its folder not: "Operation not permitted" named the file.
    out = tmp_path / "rc.jsonl"
    out.write_bytes(b"old\n")
    real_open = Path.open

    def immutable_folder(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name.endswith(".tmp"):
            raise PermissionError(errno.EPERM, "Operation not permitted", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", immutable_folder)
    with pytest.raises(OSError) as caught:
        atomic_write(out, b"new\n")
    assert caught.value.filename == str(out)
    assert caught.value.strerror == (
        "Operation not permitted: the temporary file it is written through cannot be made in "
        f"{tmp_path}"
    )
    assert out.read_bytes() == b"old\n"
