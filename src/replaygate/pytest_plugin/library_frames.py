"""A replay error's failure report ends at the call of the code under test.

A miss is raised by replaygate's transport, below the provider SDK and the HTTP client
the code under test called, and below the agent framework between (pydantic-ai, LangChain):
a dozen to forty frames of ``anthropic``, ``httpx2``, ``pydantic_ai``... pytest reads and
parses the source file of each frame it shows (seconds per failing test through
pydantic-ai, minutes for a prompt change that fails forty tests), and the miss's message,
which names the fields that changed, comes under a screen of library code ending in
``_send_single_request``. replaygate's own frames are hidden already
(``__tracebackhide__``). For a failure that is a replay error raised through an SDK or an
HTTP client (:data:`LIBRARIES`), the report leaves out the frames after the last one of the
application's own code (:func:`replaygate.caller.in_library`: none of replaygate's, the
standard library's or an installed package's), under pytest's default traceback styles
(``auto``, ``short``, ``line``): it ends at the application's call, and a note names the
packages left out. ``--tb=long`` shows them, ``--tb=native`` and ``--full-trace`` every
frame. Any other error's report is pytest's. The exception's own traceback is put back once
the report is made: pytest's debugger (``--pdb``), which comes after, walks it all.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from types import TracebackType

import pytest

from replaygate.caller import HTTP_CLIENT_PACKAGES, in_library
from replaygate.errors import ReplaygateError

PLUGIN = "replaygate-library-frames"

LIBRARIES = ("anthropic", "openai", "google.genai", "botocore", "boto3", *HTTP_CLIENT_PACKAGES)
"""The provider SDKs and HTTP clients between the code under test and replaygate's
transport: a replay error raised through one of them has its report cut."""

FULL = ("long", "native")
"""The traceback styles that show every frame pytest does not hide."""


def library_of(module: object) -> str | None:
    """The package of :data:`LIBRARIES` that ``module`` (a frame's ``__name__``) is in, or
    None."""
    if not isinstance(module, str):
        return None
    return next((p for p in LIBRARIES if module == p or module.startswith(f"{p}.")), None)


def _module(tb: TracebackType) -> str:
    """The name of the module whose code the traceback entry ``tb`` runs ('' if none)."""
    name = tb.tb_frame.f_globals.get("__name__")
    return name if isinstance(name, str) else ""


def _chain(tb: TracebackType | None) -> list[TracebackType]:
    """``tb`` and the entries after it, outermost first."""
    chain = []
    while tb is not None:
        chain.append(tb)
        tb = tb.tb_next
    return chain


def leave_out_library_frames(
    config: pytest.Config, excinfo: pytest.ExceptionInfo[BaseException]
) -> tuple[str, Callable[[], None]] | None:
    """Cut the traceback of ``excinfo`` after the application's last frame when it is a
    replay error raised through a package of :data:`LIBRARIES` and reported in a short
    style: the note saying so, and what puts the frames back; None when nothing was cut.

    pytest cuts a test's traceback at the test function by building it again from the
    raw entries (``tb_next``): the application's last one is ended there, for the report."""
    if not isinstance(excinfo.value, ReplaygateError):
        return None
    if config.getoption("fulltrace", False) or config.getoption("tbstyle", "auto") in FULL:
        return None
    chain = _chain(excinfo.tb)
    own = [i for i, tb in enumerate(chain) if not in_library(tb.tb_frame.f_code.co_filename)]
    if not own:
        return None
    last = chain[own[-1]]
    tail = chain[own[-1] + 1 :]
    if not any(library_of(_module(tb)) for tb in tail):
        return None
    after, shown = last.tb_next, excinfo.traceback
    last.tb_next = None
    cut = {id(tb.tb_frame) for tb in tail}
    excinfo.traceback = shown.filter(lambda entry: id(entry.frame.raw) not in cut)

    def put_back() -> None:
        last.tb_next = after
        excinfo.traceback = shown

    modules = [_module(tb) for tb in tail if not _module(tb).startswith("replaygate")]
    packages = list(dict.fromkeys(m.split(".", 1)[0] for m in modules))
    named = ", ".join(packages[:-1]) + f" and {packages[-1]}" if len(packages) > 1 else packages[0]
    frames = f"{len(modules)} frames" if len(modules) > 1 else "frame"
    note = (
        f"replaygate: this report leaves out the {frames} of {named} after the call "
        "(--tb=long shows them)"
    )
    return note, put_back


class LibraryFrames:
    """Cuts the report of a test failing on a replay error at the application's call
    (:func:`leave_out_library_frames`), and puts the frames back once it is made."""

    def __init__(self) -> None:
        self._put_back: list[Callable[[], None]] = []

    @pytest.hookimpl
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        """Cut before pytest makes the report: a plain hook, called after the ``tryfirst``
        ones (unittest's, which hands pytest a ``TestCase``'s error there) and before
        pytest's own, which makes it."""
        if call.excinfo is None:
            return
        cut = leave_out_library_frames(item.config, call.excinfo)
        if cut is None:
            return
        note, put_back = cut
        self._put_back.append(put_back)
        if note not in getattr(call.excinfo.value, "__notes__", ()):
            call.excinfo.value.add_note(note)

    @pytest.hookimpl(wrapper=True, specname="pytest_runtest_makereport")
    def pytest_runtest_makereport_put_back(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Put the frames left out back once the report is made."""
        try:
            return (yield)
        finally:
            while self._put_back:
                self._put_back.pop()()
