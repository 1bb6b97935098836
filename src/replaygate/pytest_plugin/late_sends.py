"""Requests sent through a test's session after the test ended.

Where the event loop outlives the test (pytest-asyncio's ``loop_scope="module"`` or
``"session"``, a module-scoped anyio runner), a task the test started and left running
(a call it did not await, a poller, the rest of an ``asyncio.gather`` after its first
error) sends into the tests after it. Its clients are the ended test's (an
``async_anthropic_client`` factory's): answered from that test's store, or recorded into
it, at a moment that depends on the tests that followed, its miss reached no test. Such a
send now gets :class:`~replaygate.errors.SessionEndedError`, and the run lists it at its
end and fails, as a miss nothing reported would otherwise pass (law 2). So does a stream
the test left open, recorded as closed where its reader stopped as the test ended, read
further then: its replay would end there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replaygate.errors import SessionEndedError

PLUGIN = "replaygate-late-sends"
WORKER_OUTPUT = "replaygate_late_sends"
"""The key of a pytest-xdist worker's lines in what it sends its controller."""


class LateSends:
    """The requests sent through ended tests' sessions during the run, one line each."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def refusal(self, nodeid: str) -> Callable[[str, str], SessionEndedError]:
        """What the session of the test ``nodeid`` does with a request sent (or its stream
        read further) after the test ended: note it for the run's end and give the error
        it raises."""

        def refuse(request: str, done: str) -> SessionEndedError:
            self.lines.append(f"{nodeid}: {request} {done}")
            return SessionEndedError(
                f"replaygate: {request} was {done} after the test whose session it went "
                f"through, {nodeid}, had ended: a task or a stream the test left behind, "
                "which an event loop of module or session scope keeps into the next tests. "
                "Neither replayed nor recorded. Await or cancel such a task, and read such a "
                "stream to its end or close it, before the test returns."
            )

        return refuse

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Fail a run that passed with a late send; a pytest-xdist worker sends its lines to
        the controller."""
        if self.lines and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[WORKER_OUTPUT] = list(self.lines)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the pytest-xdist controller, keep a finished worker's lines."""
        self.lines += getattr(node, "workeroutput", {}).get(WORKER_OUTPUT, [])

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """List the late sends, each with the test whose session it went through."""
        if not self.lines:
            return
        terminalreporter.section("replaygate: requests sent after their test ended", red=True)
        for line in self.lines:
            terminalreporter.line(line)
        terminalreporter.line(
            f"{len(self.lines)} request(s) sent, or streams read, after their test ended, "
            "neither replayed nor recorded: await or cancel each task, and finish or close "
            "each stream, before its test returns",
            red=True,
        )
