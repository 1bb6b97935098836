"""What a block of code does, as the interpreter's audit hook sees it: the sockets it
makes and the files it opens."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

Keep = Callable[[str, tuple[Any, ...]], str | None]
"""What a block keeps of an audit event (its name and arguments); None: passed over."""

_BLOCKS: list[tuple[Keep, list[str]]] = []
"""What each block running :func:`audited` now keeps, and where."""
_HOOKED: list[bool] = []
"""Whether the hook is installed: it stays for the process, so it is added once."""


def _note(event: str, args: tuple[Any, ...]) -> None:
    for keep, found in _BLOCKS:
        kept = keep(event, args)
        if kept is not None:
            found.append(kept)


@contextlib.contextmanager
def audited(keep: Keep) -> Iterator[list[str]]:
    """What ``keep`` makes of each audit event raised in the block, in order."""
    if not _HOOKED:
        sys.addaudithook(_note)
        _HOOKED.append(True)
    block: tuple[Keep, list[str]] = (keep, [])
    _BLOCKS.append(block)
    try:
        yield block[1]
    finally:
        _BLOCKS.remove(block)


def _opened(event: str, args: tuple[Any, ...]) -> str | None:
    if event == "open" and isinstance(args[0], str | os.PathLike):
        return os.fspath(args[0])
    return None


def _socket(event: str, _args: tuple[Any, ...]) -> str | None:
    return event if event.startswith("socket.") else None


def opened() -> contextlib.AbstractContextManager[list[str]]:
    """The paths opened in the block (by ``open`` and ``os.open`` alike), as given."""
    return audited(_opened)


def socket_events() -> contextlib.AbstractContextManager[list[str]]:
    """The socket events raised in the block (sockets made, connects, lookups)."""
    return audited(_socket)
