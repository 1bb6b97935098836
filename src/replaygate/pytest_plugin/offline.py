"""The pytest plugin's network block: a replaying session stays offline to its end.

When a session in replay mode, or recording from the simulator, collects a test that
uses replaygate (one of its fixtures or the ``replaygate`` marker),
:func:`~replaygate.network.block_network` holds from the end of collection to the end
of the session: fixture setup and
teardown, every test, background threads. At the end the block is handed to the
interpreter's exit, from the moment it starts: the threads it waits for (a tracing
client's, such as LangSmith's, sending what it holds once the main thread ends) and
the handlers registered with :mod:`atexit` during the session (a telemetry exporter
flushing its spans, for one) run blocked too, and each attempt they make is told on
stderr, naming the module that tried.

Every attempt refused during the session is listed in the terminal summary with the
module that made it and the test it happened in (or "after the last test"), those of
pytest-xdist workers included: an exporter that swallows the error cannot pass
unnoticed. The summary, and the failure of a test that does not use replaygate refused
in such a session (:mod:`.blocked`), say why the session is offline: the tests using
replaygate it runs. A session that would go offline while pytest-recording rewrites
cassettes is refused before any test runs (:mod:`.vcr_rewrite`).
"""

from __future__ import annotations

import atexit
import re
import sys
import threading
from contextlib import AbstractContextManager, ExitStack
from types import FrameType
from typing import Any

import pytest

# Loaded before this module, not on first use: at interpreter exit module globals are
# cleared in reverse order of loading, so the hold below ends while network's are intact.
from replaygate.errors import first_few
from replaygate.http.side_request import refusal_told, refused_host, sender_remedy, tell_once
from replaygate.http.token_fetch import metadata_server
from replaygate.network import Refusal, block_network, refusals

OFFLINE = "replaygate-offline"
"""The name the session's block is registered under with pytest's plugin manager."""
USES_REPLAYGATE = "replaygate_store"
"""The fixture every replaygate fixture that touches a store depends on."""
WORKER_OUTPUT = "replaygate_refused"
"""Where a pytest-xdist worker hands its refusals to the controller."""
WORKER_USERS = "replaygate_offline_for"
"""Where a pytest-xdist worker hands the tests that took it offline to the controller."""

_exit_hold: list[AbstractContextManager[None]] = []


def _tell_at_exit(refusal: Refusal) -> None:
    tell_once(
        refusal_told(
            refusal,
            "at interpreter exit",
            "replaygate keeps the network blocked after the session",
            "turn it off in tests",
        )
    )


def hold_at_exit() -> None:
    """Block the network for the rest of the interpreter's life (an :mod:`atexit` handler)."""
    if not _exit_hold:
        hold = block_network(on_refusal=_tell_at_exit)
        hold.__enter__()
        _exit_hold.append(hold)


def hold_from_exit() -> None:
    """Make :func:`hold_at_exit` the first thing the interpreter's exit does: before it
    waits for the threads still running (CPython's threading exit hooks, called before
    those threads are joined, the last registered first), and before the other
    :mod:`atexit` handlers (which run after the threads are joined)."""
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        register(hold_at_exit)
    atexit.unregister(hold_at_exit)
    atexit.register(hold_at_exit)  # last registered, so it runs before the others


def process_ends_with_session() -> bool:
    """Whether the interpreter exits as the running session's pytest returns: pytest was
    started from its command line (its ``console_main``: the ``pytest`` script, ``python
    -m pytest``), and the session is that run's, not one run inside it (pytester's
    in-process runs, a ``pytest.main`` called by a test)."""
    entries = sessions = 0
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        module, name = frame.f_globals.get("__name__"), frame.f_code.co_name
        entries += module == "_pytest.config" and name in ("console_main", "_console_main")
        sessions += module == "_pytest.main" and name == "wrap_session"
        frame = frame.f_back
    return entries == 1 and sessions == 1


def uses_replaygate(item: pytest.Item) -> bool:
    """Whether a collected test uses a replaygate fixture or the ``replaygate`` marker."""
    names = getattr(item, "fixturenames", ())
    return USES_REPLAYGATE in names or item.get_closest_marker("replaygate") is not None


RUN_MODE = "replaygate_mode"
"""The fixture giving a test the run's mode, for a session or model the test builds."""


def takes_offline(item: pytest.Item) -> bool:
    """Whether a collected test takes its session offline: it uses replaygate
    (:func:`uses_replaygate`), or records a session or model of its own in the run's mode
    (``replaygate_mode``), which in a run from the simulator would otherwise go to the
    real API whatever the run was asked."""
    return uses_replaygate(item) or RUN_MODE in getattr(item, "fixturenames", ())


def _pytest_recording(fixturedef: pytest.FixtureDef[Any]) -> bool:
    """Whether ``fixturedef`` is pytest-recording's, not a fixture of the same name of
    another plugin or project."""
    return getattr(fixturedef.func, "__module__", "").startswith("pytest_recording")


CREDENTIAL_LOOKUP = (
    "A cloud metadata server (169.254.169.254, metadata.google.internal) is where an SDK "
    "looks for credentials it was not given (botocore for anthropic.AnthropicBedrock and "
    "LiteLLM's bedrock/ models, google-auth for AnthropicVertex and google-genai's "
    "Client(vertexai=True)): give the client credentials in tests, which are not matched "
    '(AnthropicBedrock(aws_access_key="test", aws_secret_key="test", aws_region=...), '
    'litellm.completion(..., aws_access_key_id="test", aws_secret_access_key="test"), '
    'AnthropicVertex(access_token="test", ...), genai.Client(vertexai=True, '
    'credentials=google.oauth2.credentials.Credentials("test"), ...)).'
)
"""What the list of refused attempts adds when one was to a metadata server."""


_REFUSED_BY = re.compile(r" \(from ([^\s)]+)\)")
"""The module that made a refusal's line's attempt (``... (from agents.tracing.processors)``)."""


def senders_told(lines: list[str]) -> str | None:
    """How to turn off the known senders (:func:`~replaygate.http.side_request.sender_remedy`)
    of the refused attempts ``lines``, each once, or None when none is known."""
    remedies = dict.fromkeys(
        remedy
        for line in lines
        if (found := _REFUSED_BY.search(line)) is not None
        and (remedy := sender_remedy(found.group(1), refused_host(line))) is not None
    )
    return f"Turn off in tests: {'; '.join(remedies)}." if remedies else None


def _looked_for_credentials(lines: list[str]) -> bool:
    """Whether one of the refused attempts ``lines`` was to a cloud metadata server."""
    return any(metadata_server(refused_host(line)) for line in lines)


LET_THROUGH = (
    "let a service the tests own through for the session (the project's database or "
    "cache at a host of CI's, reached by a Python client: an autouse session-scoped "
    "fixture in conftest.py entering replaygate.http.block_network(allow=['HOST']))"
)
"""The remedy of a refused connection to a service of the project's own beyond loopback."""


class OfflineSession:
    """The session-wide block of a session that replays (``why`` ``"in replay"``) or
    records from the simulator, and its report."""

    def __init__(self, why: str = "in replay") -> None:
        self.why = why
        self.block = ExitStack()
        self.blocked = False
        self.first = 0
        self.after_tests: int | None = None
        self.starts: list[tuple[int, str]] = []
        self.from_workers: list[str] = []
        self.users: dict[str, None] = {}
        """The node ids of the session's tests using replaygate: why it is offline."""
        self.refused = False
        """Whether a pytest-xdist worker refused the session (:mod:`.vcr_rewrite`)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Start the block when a collected test replays, unless pytest-recording would
        rewrite cassettes (:func:`~.vcr_rewrite.refuse_rewrite`)."""
        self.users = {item.nodeid: None for item in session.items if takes_offline(item)}
        if self.users:
            from replaygate.pytest_plugin.vcr_rewrite import refuse_rewrite

            try:
                refuse_rewrite(session.config, session.items, self.because())
            except pytest.UsageError as err:
                session.shouldstop = str(err)  # said by pytest-xdist's controller
                raise
            self.first = len(refusals())
            self.block.enter_context(block_network())
            self.blocked = True

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
    ) -> Any:
        """Fail a test whose ``vcr_config`` says ``rewrite``
        (:func:`~.vcr_rewrite.refuse_configured_rewrite`) as its ``vcr_markers`` are set
        up, which pytest-recording's ``vcr`` fixture, that deletes the cassette, depends
        on: the failure of a fixture it needs stops it before it starts."""
        value = yield
        if self.blocked and fixturedef.argname == "vcr_markers" and _pytest_recording(fixturedef):
            from replaygate.pytest_plugin.vcr_rewrite import refuse_configured_rewrite

            refuse_configured_rewrite(request, self.because())
        return value

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """Remember where the attempts made during this test begin."""
        self.starts.append((len(refusals()), nodeid))

    def pytest_runtest_logfinish(self) -> None:
        """Remember where the attempts made after the last test begin."""
        self.after_tests = len(refusals())

    def _when(self, index: int) -> str:
        if self.after_tests is not None and index >= self.after_tests:
            return "after the last test"
        during = [nodeid for start, nodeid in self.starts if start <= index]
        return f"during {during[-1]}" if during else "before the first test"

    def because(self) -> str:
        """Why the session is offline: how, and the tests using replaygate it runs."""
        users = list(self.users)
        tests = f"{len(users)} test(s) using replaygate ({first_few(users, 3)})"
        return f"{self.why}, since it runs {tests}"

    def lines(self) -> list[str]:
        """One line per attempt refused in this process during the session."""
        if not self.blocked:
            return []
        refused = refusals()[self.first :]
        return [
            f"{refusal} {self._when(index)}" for index, refusal in enumerate(refused, self.first)
        ]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """On a pytest-xdist worker, send this worker's lines to the controller; on the
        controller, end a session a worker refused as a usage error."""
        if self.refused:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[WORKER_OUTPUT] = self.lines()
            output[WORKER_USERS] = list(self.users)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the pytest-xdist controller, keep what a finished worker refused, and
        whether it refused the session."""
        worker = getattr(node, "gateway", None)
        name = getattr(worker, "id", "worker")
        sent = getattr(node, "workeroutput", {})
        self.refused |= sent.get("exitstatus") == pytest.ExitCode.USAGE_ERROR
        for line in sent.get(WORKER_OUTPUT, []):
            self.from_workers.append(f"[{name}] {line}")
        self.users.update(dict.fromkeys(sent.get(WORKER_USERS, [])))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """List the attempts refused during the session, with the module that tried."""
        lines = self.lines() + self.from_workers
        if not lines:
            return
        terminalreporter.section(f"replaygate: network attempts refused {self.why}")
        for line in lines:
            terminalreporter.line(line)
        terminalreporter.line(
            f"{len(lines)} attempt(s) refused: the session is offline {self.because()}; wire the "
            f"client to replaygate, turn the sender off in tests, or {LET_THROUGH}"
        )
        if (senders := senders_told(lines)) is not None:
            terminalreporter.line(senders)
        if _looked_for_credentials(lines):
            terminalreporter.line(CREDENTIAL_LOOKUP)

    def pytest_unconfigure(self) -> None:
        """Hand the block over to the interpreter's exit: at once when the interpreter
        exits as this session's pytest returns (:func:`process_ends_with_session`), so no
        background thread sends in between; else as the exit starts, so a program that
        runs pytest and goes on (pytester's in-process runs) keeps its network."""
        if self.blocked and process_ends_with_session():
            hold_at_exit()
        self.block.close()
        if self.blocked:
            hold_from_exit()
