"""A stdout or stderr the process was started without (``replaygate ... >&-``: Python's
``None``) is, once :func:`~replaygate.cli.closed_stdout.reader_may_leave` runs, a stream
that writes nowhere: code that writes to it, flushes it or asks whether it is a terminal
goes on (it ended in a traceback, ``'NoneType' object has no attribute 'flush'``).
The closed file descriptor itself is tested in a process of its own
(test_cli_entry_points.py)."""

from __future__ import annotations

import io
import os
import sys

import pytest

from replaygate.cli import main
from replaygate.cli.closed_stdout import _leaving_allowed, reader_may_leave


def test_a_stream_the_process_was_started_without_writes_nowhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    reader_may_leave()
    stdout, stderr = sys.stdout, sys.stderr
    try:
        assert stdout is not None and stderr is not None
        print("listening", flush=True)
        print("Error: nowhere", file=sys.stderr, flush=True)
        assert (stdout.isatty(), stderr.isatty()) == (False, False)
    finally:
        stdout.close()
        stderr.close()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_buffered_stream_that_failed_a_write_does_not_fail_again_at_exit() -> None:
    # without PYTHONUNBUFFERED, `replaygate verify store > /dev/full` said its Error:, then
    # a traceback ("Exception ignored") as Python flushed stdout at exit, exit status 120
    fd = os.open("/dev/full", os.O_WRONLY)
    stream = io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "wb")), encoding="utf-8")
    wrapped = _leaving_allowed(stream)
    try:
        assert wrapped is not None
        wrapped.write("a line\n")
        with pytest.raises(OSError, match="No space left on device") as caught:
            wrapped.flush()
        assert caught.value.filename == f"file descriptor {fd}"
        wrapped.flush()  # as Python does at exit: what was left goes nowhere
    finally:
        stream.close()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("option", ["--version", "--help"])
def test_the_group_s_own_options_to_a_full_disk_end_with_error(
    option: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `replaygate --version > /dev/full` ended in a traceback and exit status 1, where every
    # command says Error: and exits 2
    stream = io.TextIOWrapper(io.FileIO("/dev/full", "wb"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", _leaving_allowed(stream))
    try:
        with pytest.raises(SystemExit) as ended:
            main.main([option], prog_name="replaygate")
    finally:
        stream.close()
    assert ended.value.code == 2
    assert "Error: file descriptor" in capsys.readouterr().err
