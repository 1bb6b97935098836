"""The line of the application that called into replaygate, through the libraries between:
where a warning about what that call did points.

A warning of a send (its live answer failed, say) is raised below the SDK, the HTTP
client and replaygate's own frames, a number of them that changes with the SDK, its
version and whether it is sync or async: a fixed ``stacklevel`` pointed into one of them.
:func:`application_level` walks out of those frames instead.
"""

from __future__ import annotations

import functools
import os
import site
import sys
import sysconfig
from collections.abc import Iterator
from types import FrameType

HTTP_CLIENT_PACKAGES = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "h11",
    "h2",
    "aiohttp",
    "requests",
    "urllib3",
)
"""The HTTP clients (and their layers) an SDK's request passes through between the
application and a socket or replaygate's transport."""


@functools.cache
def _library_folders() -> tuple[str, ...]:
    """The folders whose code is no application's: replaygate's, the standard library's
    and the installed packages'."""
    paths = sysconfig.get_paths()
    folders = {os.path.dirname(__file__)}
    folders.update(paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib"))
    folders.update(site.getsitepackages())
    folders.add(site.getusersitepackages())
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders if folder)


def in_library(filename: str) -> bool:
    """Whether the code of ``filename`` is no application's (:func:`_library_folders`)."""
    if filename.startswith("<"):  # <frozen importlib._bootstrap>, a function made by exec
        return filename.startswith("<frozen ")
    return os.path.realpath(filename).startswith(_library_folders())


def application_level(default: int) -> int:
    """The ``stacklevel`` that points a warning raised by the caller of this function at
    the innermost frame of the application's own code (none of replaygate's, the
    standard library's or an installed package's); ``default`` where every frame is one
    of theirs (a worker thread of a library)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None:
        if not in_library(frame.f_code.co_filename):
            return level
        frame, level = frame.f_back, level + 1
    return default


def frames_out(frame: FrameType | None) -> Iterator[FrameType]:
    """``frame`` and its callers, innermost first (a running coroutine's awaiting
    callers too: they are its ``f_back``)."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def application_frame(frame: FrameType | None) -> FrameType | None:
    """The innermost frame of the application's own code from ``frame`` outwards, or None
    where every frame is a library's (:func:`in_library`)."""
    return next((f for f in frames_out(frame) if not in_library(f.f_code.co_filename)), None)


def waiting_application_frame(thread: int) -> FrameType | None:
    """The innermost frame of the application's own code that ``thread`` (an ident) runs
    now, or None: where a worker thread of a library, none of whose frames is the
    application's, was set to work from, while ``thread`` waits for it (LangChain's
    ``batch`` waiting on its thread pool inside the test's call)."""
    return application_frame(sys._current_frames().get(thread))
