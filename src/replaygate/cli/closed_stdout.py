"""Printing to a stdout whose reader went away (``replaygate verify --json | head -c 10``),
or that is closed (``replaygate verify store >&-``).

Such a write fails with a broken pipe (``EPIPE``), which ended a command where it printed:
with exit status 1, a traceback or an "Exception ignored" line, and the files it was still
to write unwritten. :func:`reader_may_leave` makes stdout and stderr take such a write as
done: the command goes on, what it still prints goes nowhere, its files are written, and
it ends with its own exit status. A stdout or stderr the process was started without
(closed: Python's ``None``) is one that writes nowhere, from the start.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


def _discard(fd: int) -> None:
    """Send what is still to be written on ``fd`` nowhere, so no later write or the flush
    at exit fails again."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


class _ReaderMayLeave(io.FileIO):
    """A stream's file descriptor, written as is until its reader has gone, then
    nowhere."""

    def write(self, data: ReadableBuffer, /) -> int:
        """Write ``data``; to nowhere once the reader has gone. Another failure (a full
        disk, ``> /dev/full``) names the stream, which ``Error:`` then names, and sends
        what is still buffered nowhere: flushed again as Python ends, it failed again, with
        a traceback ("Exception ignored") and exit status 120 in place of the command's."""
        try:
            return super().write(data)
        except BrokenPipeError:
            _discard(self.fileno())
            return super().write(data)
        except OSError as err:
            if err.filename is None:
                err.filename = _STREAMS.get(self.fileno(), f"file descriptor {self.fileno()}")
            if memoryview(data).nbytes:  # not click's probe, ``write("")``, which it swallows
                _discard(self.fileno())
            raise


_STREAMS = {1: "stdout", 2: "stderr"}


def _leaving_allowed(stream: TextIO | None) -> TextIO | None:
    """``stream`` written through :class:`_ReaderMayLeave`, as it was set otherwise (its
    encoding, errors and buffering, unbuffered under ``python -u``); a stream that is no
    file descriptor as it is."""
    if not isinstance(stream, io.TextIOWrapper):
        return stream
    buffered = not isinstance(stream.buffer, io.FileIO)
    if not isinstance(stream.buffer.raw if buffered else stream.buffer, io.FileIO):
        return stream
    stream.flush()
    raw = _ReaderMayLeave(stream.fileno(), "wb", closefd=False)
    return io.TextIOWrapper(
        io.BufferedWriter(raw) if buffered else raw,
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def _nowhere(fd: int) -> TextIO:
    """A stream in place of a stdout or stderr the process was started without (``>&-``,
    Python's ``None``): it writes nowhere, so a command printing to it goes on (one that
    wrote to it directly ended in a traceback). A closed ``fd`` takes it, so no file the
    command opens gets that number, and with it what a process it starts prints."""
    if _closed(fd):
        null = os.open(os.devnull, os.O_WRONLY)  # the lowest number free: ``fd`` itself
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        return open(fd, "w", encoding="utf-8", closefd=False)
    return open(os.devnull, "w", encoding="utf-8")


def reader_may_leave() -> None:
    """From now on, a write to a stdout or stderr whose reader has gone ends neither the
    write nor the command: that stream prints nothing from then on; one the process was
    started without (closed) prints nothing from the start."""
    sys.stdout = _leaving_allowed(sys.stdout) if sys.stdout is not None else _nowhere(1)
    sys.stderr = _leaving_allowed(sys.stderr) if sys.stderr is not None else _nowhere(2)
