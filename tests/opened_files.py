"""The files a block of code opens, as the interpreter's audit hook sees them."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

_LISTENING: list[list[str]] = []
"""The lists of the blocks running :func:`opened` now."""
_HOOKED: list[bool] = []
"""Whether the hook is installed: it stays for the process, so it is added once."""


def _note(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _LISTENING and isinstance(args[0], str | os.PathLike):
        for found in _LISTENING:
            found.append(os.fspath(args[0]))


@contextlib.contextmanager
def opened() -> Iterator[list[str]]:
    """The paths opened in the block (by ``open`` and ``os.open`` alike), as given."""
    if not _HOOKED:
        sys.addaudithook(_note)
        _HOOKED.append(True)
    found: list[str] = []
    _LISTENING.append(found)
    try:
        yield found
    finally:
        _LISTENING.remove(found)
