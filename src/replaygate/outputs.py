"""Writing a file a command was asked to produce (a report, an export, a results file).

A failed write names the file: an error found when the data is flushed (a full disk)
carries no file name of its own, so :func:`write_text` gives it the path, and the
commands print ``Error: <path>: <reason>``.
"""

from __future__ import annotations

from pathlib import Path


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8; an :class:`OSError` names ``path``."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        if err.filename is not None or err.errno is None:
            raise
        raise type(err)(err.errno, err.strerror, str(path)) from None
