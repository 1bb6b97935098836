"""Replay errors that the code under test caught before they reached the test (law 2).

A miss must reach the test once. A framework's fallback (LangChain's
``with_fallbacks``, an agent's error handler) or an ``except`` clause in the code
under test can catch it and go on with something else: the test may then pass on an
answer no fixture gave. The test's session remembers every error its sends raised;
at teardown, when none of them reached the test function (caught there, by
``pytest.raises`` or its own ``except``), pytest (a fixture's teardown, ``pytest.raises``
given the function to call) or what the test's setup or call failed with (the error, its
cause, or its message), the first fails the test. When one did reach it, the others
that did not are named in a note on the error the test fails with: the failure may be
their consequence (a tool whose miss became its output).
"""

from __future__ import annotations

import inspect
from types import CodeType

from replaygate.errors import ReplaygateError, exception_chain

ALLOW_FLAG = "expect_caught_errors"
"""The marker flag of a test whose code under test is meant to catch a replay error."""


def test_code(function: object) -> frozenset[CodeType]:
    """The code of a test ``function`` (unwrapped) and of the functions defined in it (a
    coroutine run with ``asyncio.run``, a helper closure): where the test catches."""
    code = getattr(inspect.unwrap(function), "__code__", None)  # type: ignore[arg-type]
    found: set[CodeType] = set()
    stack = [code] if isinstance(code, CodeType) else []
    while stack:
        current = stack.pop()
        found.add(current)
        stack.extend(c for c in current.co_consts if isinstance(c, CodeType))
    return frozenset(found)


def _caught_in(error: BaseException, test: frozenset[CodeType]) -> bool:
    """Whether ``error`` was caught in a frame running code of ``test``, or by pytest
    itself (``pytest.raises`` given the function to call, a fixture's teardown, which
    pytest reports): the outermost frame its traceback reached is where it stopped."""
    traceback = error.__traceback__
    if traceback is None:
        return False
    frame = traceback.tb_frame
    module = frame.f_globals.get("__name__")
    return frame.f_code in test or (isinstance(module, str) and module.startswith("_pytest."))


def _unreached(
    raised: list[ReplaygateError], reached: BaseException | None, test: frozenset[CodeType]
) -> list[ReplaygateError]:
    """The errors of ``raised`` that did not reach the test (see :func:`caught_errors`)."""
    chain = list(exception_chain(reached)) if reached is not None else []
    texts = "\n".join(str(e) for e in chain)
    return [
        error
        for error in raised
        if not (
            _caught_in(error, test)
            or any(error is e for e in chain)
            or str(error).split("\n", 1)[0] in texts
        )
    ]


def caught_errors(
    raised: list[ReplaygateError], reached: BaseException | None, test: frozenset[CodeType]
) -> list[ReplaygateError]:
    """``raised`` when none of its errors reached the test, else nothing.

    An error reached the test when the test function caught it (``test``, its
    :func:`test_code`) or pytest did, or when it is what the test's setup or call failed
    with (``reached``, None when neither failed), that error's cause or context, or named
    by its message (a framework that re-raises a miss as its own error keeps the miss's
    text; a retry of the same request raises the same text). Once one reached the test,
    the others are the same request sent again (a framework's retry) or its consequences.
    """
    unreached = _unreached(raised, reached, test)
    return unreached if len(unreached) == len(raised) else []


def hidden_errors(
    raised: list[ReplaygateError], failed: BaseException, test: frozenset[CodeType]
) -> list[ReplaygateError]:
    """The errors of ``raised`` the code under test caught while the test went on to fail
    with ``failed`` (a replay error of another request among them): the test fails, but
    on a consequence, such as a tool whose miss became its output, so the next request
    missed with that output in its diff. Empty unless one of ``raised`` reached the test
    (else the teardown reports them all)."""
    unreached = _unreached(raised, failed, test)
    return unreached if len(unreached) < len(raised) else []


def hidden_note(errors: list[ReplaygateError]) -> str:
    """The note added to the error a test fails with when :func:`hidden_errors` found
    some: what the test's failure may be a consequence of."""
    more = " (the first of several)" if len(errors) > 1 else ""
    return (
        f"replaygate: before this, the code under test caught a replay error{more} and "
        "went on (a tool's error handler, a fallback, an except clause); this failure may "
        f"be its consequence. The first:\n{errors[0]}"
    )


def caught_message(errors: list[ReplaygateError]) -> str:
    """Why the test fails: the first caught error, and whether there were more."""
    more = " (the first of several)" if len(errors) > 1 else ""
    return (
        f"replaygate: the code under test caught a replay error{more} and went on, so the "
        "test did not see it (a framework's fallback, a retry, an except clause, or a "
        "background sender such as telemetry swallowing its failure): a miss must reach "
        "the test. The first:\n"
        f"{errors[0]}\n"
        "Turn a background sender off in tests; if catching the error is what the test "
        f"checks, mark it @pytest.mark.replaygate({ALLOW_FLAG}=True)."
    )
