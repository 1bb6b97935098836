"""A failed operation said for a person: its message and notes, or ``<path>: <reason>`` for
a failed file operation, never a class name or a traceback. The commands and the pytest
plugin word their errors the same way."""

from __future__ import annotations

import errno
import os

from replaygate.missing import CWD_GONE, cwd_gone, missing


def describe(err: Exception) -> str:
    """What went wrong, for a person: the message and its notes (where it was raised, that
    an agent caught it), never a class name or a traceback."""
    if isinstance(err, OSError) and err.errno is not None:
        return _file_error(err)
    return "\n".join([str(err), *getattr(err, "__notes__", ())])


def _file_error(err: OSError) -> str:
    """``<path>: <reason>`` of a failed file operation: the path it names (a rename's
    target; an output file, :func:`replaygate.outputs.write_text`)."""
    name = err.filename2 if err.filename2 is not None else err.filename
    reason = err.strerror or str(err)
    reason = reason[:1].lower() + reason[1:]  # "No such file" in a sentence; "a FIFO" kept
    if name is None:
        return CWD_GONE if err.errno == errno.ENOENT and cwd_gone() else reason
    if err.errno == errno.ENOENT and isinstance(name, str):
        reason = missing(name, reason)  # a relative path, the current folder removed
    elif err.errno == errno.EEXIST and not os.path.isdir(name):
        reason = "not a folder"  # a file where a folder was to be made
    return f"{name}: {reason}"
