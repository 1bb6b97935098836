"""Replay errors that did not reach the test (law 2).

A miss must reach the test once. A framework's fallback (LangChain's
``with_fallbacks``, an agent's error handler) or an ``except`` clause in the code
under test can catch it and go on with something else: the test may then pass on an
answer no fixture gave. So can the test itself, with a clause meant for the API's
errors (``pytest.raises(anthropic.AnthropicError)``, ``except Exception``). The test's
session remembers every error its sends raised; at teardown, when none of them reached
the test, the first fails the test. One reached it when the test caught it with a clause
that names it (``pytest.raises(FixtureMismatchError)``, ``except ReplaygateError``, in
the test function or a function defined in it, or ``pytest.raises`` given the function
to call), when pytest reported it (a fixture's teardown), or when it is what the test's
setup or call failed with (the error, its cause, or its message; a skip is no failure).
A test whose source cannot be read counts any catch of its own as naming the error.
When one did reach it, the others that did not are named in a note on the error the test
fails with: the failure may be their consequence (a tool whose miss became its output).
A test that did not fail (it caught its miss by name) still fails at teardown with a caught
error of another request than those that reached it; one of the same request is a retry.

A replay error is never the failure an ``xfail`` mark expects, unless its ``raises=``
names it: :func:`replay_failure` finds one behind a failure (the teardown failure of a
caught one, :class:`CaughtReplayError`, included), :func:`xfail_expects` reads the marks.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import linecache
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import TYPE_CHECKING

import pytest
from _pytest.outcomes import Failed

from replaygate.code_objects import code_within
from replaygate.errors import (
    FixtureMismatchError,
    ReplaygateError,
    carried_in,
    carrier_of,
    exception_chain,
    request_of,
)
from replaygate.unittest_parts import unittest_took

if TYPE_CHECKING:
    from replaygate.http.exchange import Exchange

ALLOW_FLAG = "expect_caught_errors"
"""The marker flag of a test whose code under test (or the test itself, with a clause
that does not name it) is meant to catch a replay error."""

_NO_FAILURE = (pytest.skip.Exception, pytest.xfail.Exception)
"""What a test that skips, or calls ``pytest.xfail``, ends with: no failure anyone sees."""

_RAISES_CODE = getattr(inspect.unwrap(pytest.raises), "__code__", None)
"""The code of ``pytest.raises``, whose frame catches what a function given to it raises."""

_RAISES = tuple(m for m in (pytest.raises, getattr(pytest, "RaisesExc", None)) if m is not None)
"""What ``with`` calls to expect an exception (``pytest.RaisesExc`` from pytest 8.4)."""

_UNKNOWN = object()
"""What a name the test's code uses stands for, when it cannot be told."""

CHECKED: pytest.StashKey[Exchange] = pytest.StashKey()
"""The test's session while it runs, when its caught errors are checked (not marked
``expect_caught_errors=True``)."""


def checked_raised(item: pytest.Item) -> list[ReplaygateError]:
    """The replay errors the checked session of ``item`` has raised so far (none when it
    is not checked, or has ended)."""
    exchange = item.stash.get(CHECKED, None)
    return exchange.raised if exchange is not None else []


def test_code(function: object) -> frozenset[CodeType]:
    """The code of a test ``function`` (unwrapped) and of the functions defined in it (a
    coroutine run with ``asyncio.run``, a helper closure): where the test catches."""
    code = getattr(inspect.unwrap(function), "__code__", None)  # type: ignore[arg-type]
    return code_within(code) if isinstance(code, CodeType) else frozenset()


@dataclass(frozen=True)
class _Clause:
    """An ``except`` clause (``expr`` its type, None when bare) or a ``with`` item's
    context expression (``expr`` the call) of a test function, where it is written."""

    expr: ast.expr | None
    handler: bool
    line: int
    text: str


@dataclass(frozen=True)
class _Site:
    """A ``try`` or ``with`` statement: the lines of its body, and its clauses that may
    catch what the body raises, the first to try first."""

    first: int
    last: int
    clauses: tuple[_Clause, ...]


def _site(node: ast.AST) -> _Site | None:
    """``node`` as a :class:`_Site`, when it is a ``try`` with handlers or a ``with``
    calling something."""
    clauses: list[_Clause] = []
    if isinstance(node, (ast.Try, ast.TryStar)):
        for h in node.handlers:
            text = "except" if h.type is None else f"except {ast.unparse(h.type)}"
            clauses.append(_Clause(h.type, True, h.lineno, text))
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in reversed(node.items):  # `with a, b:` is `with a: with b:`
            if isinstance(item.context_expr, ast.Call):
                call = item.context_expr
                clauses.append(_Clause(call, False, call.lineno, ast.unparse(call)))
    else:
        return None
    body = node.body
    return _Site(body[0].lineno, body[-1].end_lineno or body[-1].lineno, tuple(clauses))


def _sites_in(node: ast.AST) -> Iterator[_Site]:
    """The sites of a function's body, each before those nested in it; functions and
    classes defined in it have code of their own and are left out."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        site = _site(child)
        if site is not None and site.clauses:
            yield site
        yield from _sites_in(child)


@functools.lru_cache(maxsize=256)
def _sites(code: CodeType) -> tuple[_Site, ...] | None:
    """The sites of the function whose code is ``code``; None when its source cannot be
    read or found."""
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == code.co_name
            and min([node.lineno, *(d.lineno for d in node.decorator_list)]) == code.co_firstlineno
        ):
            return tuple(_sites_in(node))
    return None


def _value(expr: ast.expr, frame: FrameType) -> object:
    """What a name, dotted name or tuple of them in the code of ``frame`` stands for there;
    ``_UNKNOWN`` for any other expression, or a name the frame does not hold."""
    if isinstance(expr, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
            if expr.id in scope:
                return scope[expr.id]
        return _UNKNOWN
    if isinstance(expr, ast.Attribute):
        owner = _value(expr.value, frame)
        return _UNKNOWN if owner is _UNKNOWN else getattr(owner, expr.attr, _UNKNOWN)
    if isinstance(expr, ast.Tuple):
        items = tuple(_value(e, frame) for e in expr.elts)
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else items
    return _UNKNOWN


def _classes(value: object) -> tuple[type, ...] | None:
    """The exception classes ``value`` names (a class, a tuple of them, nested); None when
    it is anything else."""
    if isinstance(value, type):
        return (value,)
    if not isinstance(value, tuple):
        return None
    found: list[type] = []
    for item in value:
        classes = _classes(item)
        if classes is None:
            return None
        found.extend(classes)
    return tuple(found)


def _names(classes: Iterable[type], error: BaseException) -> bool:
    """Whether one of ``classes`` that ``error`` is an instance of is a replaygate class."""
    return any(issubclass(c, ReplaygateError) and isinstance(error, c) for c in classes)


def _judged(classes: tuple[type, ...] | None, error: BaseException) -> bool | None:
    """None when no class of ``classes`` catches ``error``; else whether the one that does
    names it (:func:`_names`). Classes that cannot be told catch it, unnamed."""
    if classes is None:
        return False
    if not any(isinstance(error, c) for c in classes):
        return None
    return _names(classes, error)


def _catches(clause: _Clause, error: BaseException, frame: FrameType) -> bool | None:
    """None when ``clause`` does not catch ``error``; else whether it names it. A ``with``
    item catches only when it is ``pytest.raises(...)`` (``pytest.RaisesExc(...)``) or
    ``contextlib.suppress(...)``."""
    if clause.handler:
        if clause.expr is None:
            return False
        return _judged(_classes(_value(clause.expr, frame)), error)
    if not isinstance(clause.expr, ast.Call):
        return None
    call = clause.expr
    manager = _value(call.func, frame)
    if manager is contextlib.suppress:
        return _judged(_classes(_value(ast.Tuple(elts=call.args), frame)), error)
    if not any(manager is m for m in _RAISES):
        return None
    given = call.args[:1] or [k.value for k in call.keywords if k.arg == "expected_exception"]
    return _judged(_classes(_value(given[0], frame)) if given else None, error)


def _shown(filename: str) -> str:
    """``filename`` relative to the working folder when it is inside it."""
    path = Path(filename)
    with contextlib.suppress(ValueError):
        return str(path.relative_to(Path.cwd()))
    return filename


def _where(error: BaseException, test: frozenset[CodeType]) -> tuple[bool, str | None]:
    """Whether ``error`` reached the test where it stopped (the outermost frame its
    traceback reached), and, when the test's own code caught it without naming it, how
    (said after "the test caught a replay error").

    Caught in the test's code, it reached the test when the clause that caught it names
    it (or the source cannot be read); caught by pytest, unless by ``pytest.raises``
    given the function to call and classes that do not name it (a fixture's teardown
    that raises it, pytest reports). A refused connection that a client library's error
    carried (:func:`~replaygate.errors.carrier_of`) reached the test where that error did,
    whatever the clause names: the test cannot name the refusal inside it."""
    carrier = carrier_of(error)
    traceback = carrier.__traceback__
    if traceback is None:
        return False, None
    frame = traceback.tb_frame
    if carrier is not error:
        module = frame.f_globals.get("__name__")
        pytest_took = isinstance(module, str) and module.startswith("_pytest.")
        return frame.f_code in test or frame.f_code is _RAISES_CODE or pytest_took, None
    if _debugger(frame):
        return True, None
    if frame.f_code in test:
        sites = _sites(frame.f_code)
        if sites is None:
            return True, None
        line = traceback.tb_lineno
        place = _shown(frame.f_code.co_filename)
        for site in reversed(sites):  # the innermost first
            if site.first <= line <= site.last:
                for clause in site.clauses:
                    named = _catches(clause, error, frame)
                    if named is not None:
                        how = (
                            f"with `{clause.text}` ({place}:{clause.line}), which does not name it"
                        )
                        return named, None if named else how
        return False, f"at {place}:{line} without naming it"
    if frame.f_code is _RAISES_CODE:
        classes = _classes(frame.f_locals.get("expected_exception")) or ()
        if _names(classes, error):
            return True, None
        given = ", ".join(c.__name__ for c in classes)
        return False, f"with `pytest.raises({given}, ...)`, which does not name it"
    took = unittest_took(error)
    if took is not None:  # it left a unittest test: unittest reported it, or passed it
        return took == "error", EXPECTED_FAILURE if took == "expected" else None
    module = frame.f_globals.get("__name__")
    return isinstance(module, str) and module.startswith("_pytest."), None


def _debugger(frame: FrameType) -> bool:
    """Whether ``frame``, where an error stopped, is a debugger's (a method of a ``bdb``
    debugger: pdb's, pytest's, ipdb's): one that ran a statement typed at its prompt (at a
    ``breakpoint()``, under ``--pdb`` or ``--trace``) and showed its error to the person who
    typed it, not code under test going on from it."""
    debugger = getattr(sys.modules.get("bdb"), "Bdb", None)
    return isinstance(debugger, type) and isinstance(frame.f_locals.get("self"), debugger)


EXPECTED_FAILURE = (
    "with `@unittest.expectedFailure`, which takes any error for the failure the test "
    "expects and passes it"
)
"""How a unittest test marked ``@expectedFailure`` caught a replay error that left it."""


def _carried(failed: BaseException | None) -> tuple[list[BaseException], str]:
    """The errors ``failed`` carries (itself, its causes and contexts, the members of
    exception groups among them) and their text; nothing for a skip or ``pytest.xfail``
    (no failure: a replay error behind one was not seen)."""
    if failed is None or isinstance(failed, _NO_FAILURE):
        return [], ""
    chain = list(exception_chain(failed))
    return chain, "\n".join(str(e) for e in chain)


def _unreached(
    raised: list[ReplaygateError], reached: BaseException | None, test: frozenset[CodeType]
) -> list[ReplaygateError]:
    """The errors of ``raised`` that did not reach the test (see :func:`caught_errors`)."""
    chain, texts = _carried(reached)
    return [
        error for error in raised if not (_where(error, test)[0] or carried_in(error, chain, texts))
    ]


def caught_errors(
    raised: list[ReplaygateError], reached: BaseException | None, test: frozenset[CodeType]
) -> list[ReplaygateError]:
    """The errors of ``raised`` that did not reach the test and were raised for a request
    none of those that reached it was; nothing when the test failed on one that reached it.

    An error reached the test when the test function caught it (``test``, its
    :func:`test_code`) with a clause naming it, or pytest did, or when it is what the
    test's setup or call failed with (``reached``, None when neither failed; a skip is no
    failure), that error's cause or context, or named by its message (a framework that
    re-raises a miss as its own error keeps the miss's text; a retry of the same request
    raises the same text). A caught error of a request whose error reached the test is that
    request sent again (a framework's retry) and is not reported; one of another request
    is (a fallback that answered it), unless the test failed, whose error then names it
    (:func:`hidden_errors`: the failure may be its consequence).
    """
    unreached = _unreached(raised, reached, test)
    if len(unreached) == len(raised):
        return unreached
    if _carried(reached)[0]:  # failed: its error names them (hidden_note)
        return []
    seen = {request_of(e) for e in raised if not any(e is u for u in unreached)}
    return [error for error in unreached if request_of(error) not in seen]


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


def _changes(error: BaseException) -> frozenset[str]:
    """The changes the differences of ``error`` (a miss) name, their paths left out
    (``body.input[0].content: 'a' != 'b'`` is ``'a' != 'b'``): one change of the code
    under test, sent in requests of different shapes, is the same in each."""
    differences = getattr(error, "differences", ())
    return frozenset(d.split(": ", 1)[-1] for d in differences if isinstance(d, str))


def same_change(hidden: ReplaygateError, failed: BaseException | None) -> bool:
    """Whether ``hidden`` (a miss the code under test caught) names the very changes a
    miss ``failed`` carries names, no more and no fewer: a request sent beside the failing
    one, such as a count of its prompt's tokens, with the same change. A failing miss that
    names a change more (``body.model``: a fallback model's request, sent because the
    caught miss failed the first model) is its consequence, not the same change."""
    changes = _changes(hidden)
    carried = exception_chain(failed) if failed is not None else ()
    misses = (e for e in carried if isinstance(e, FixtureMismatchError))
    return bool(changes) and any(changes == _changes(e) for e in misses)


def hidden_note(errors: list[ReplaygateError], failed: BaseException | None = None) -> str:
    """The note added to the error a test fails with (``failed``) when :func:`hidden_errors`
    found some: what the test's failure may be a consequence of, or, when each of them
    names only changes its own miss names (:func:`same_change`), that they are the same
    change in another request, named by their first line."""
    more = " (the first of several)" if len(errors) > 1 else ""
    if all(same_change(e, failed) for e in errors):
        first = str(errors[0]).split("\n", 1)[0]
        return (
            f"replaygate: beside this, the code under test caught the miss{more} of another "
            "request it sent with the same change (CrewAI 1.15's count of the prompt's "
            "tokens, say; or a run beside this one, whose error asyncio.gather drops once "
            f"it raised the first), no cause of this failure. The first: {first}"
        )
    return (
        f"replaygate: beside this, the code under test met another replay error{more} "
        "that did not reach the test: caught and gone on from (a tool's error handler, a "
        "fallback, an except clause), or raised in a task or thread whose error nobody "
        "read (asyncio.gather raises only the first error it gets); this failure may be "
        f"its consequence. The first:\n{errors[0]}"
    )


def _kind(error: ReplaygateError) -> str:
    """What ``error`` is called in the message: a miss of the store, or any other replay
    error (a live answer the recording refused, a send the network block stopped)."""
    return "miss" if isinstance(error, FixtureMismatchError) else "replay error"


WRAPPED = (
    "raised as an error of the code's own that dropped it as its cause (CrewAI 1.15's "
    "`raise e from e`; anthropic 0.73, the SDK CrewAI 1.15 pins, which sends it again on "
    "each of its retries and then raises APIConnectionError('Connection error.'))"
)
"""How a framework or an SDK can fail a test with an error that does not carry the miss
behind it."""


def _failed_with(failed: BaseException | None) -> str:
    """What the test failed with (``failed``: its setup's or call's error), as ``Type:
    first line``; empty when it did not fail (a skip is no failure)."""
    chain, _ = _carried(failed)
    if not chain:
        return ""
    first = str(chain[0]).split("\n", 1)[0]
    return f"{type(chain[0]).__qualname__}: {first}" if first else type(chain[0]).__qualname__


def caught_message(
    errors: list[ReplaygateError],
    test: frozenset[CodeType],
    failed: BaseException | None = None,
) -> str:
    """Why the test fails: the first caught error (where the test caught it, when it did),
    and whether there were more. A test that failed (``failed``) with an error carrying
    none of them is told that its failure is likely their consequence, not that it did not
    see them."""
    more = " (the first of several)" if len(errors) > 1 else ""
    how = _where(errors[0], test)[1]
    told = _failed_with(failed) if how is None else ""
    if told:
        return (
            f"replaygate: the test failed with {told}, which does not carry the replay "
            f"error{more} the code under test met before: caught and gone on from, or "
            f"{WRAPPED}. The failure is likely its consequence; a miss must reach the test "
            f"as itself. The first:\n{errors[0]}"
        )
    if how is not None:
        what, name = _kind(errors[0]), type(errors[0]).__name__
        return (
            f"replaygate: the test caught a replay error{more} {how}, so the {what} did not "
            f"fail it: a {what} must reach the test. The first:\n"
            f"{errors[0]}\n"
            f"If the {what} is what the test checks, catch it by name "
            f"(pytest.raises({name}), except {name}) or mark it "
            f"@pytest.mark.replaygate({ALLOW_FLAG}=True)."
        )
    return (
        f"replaygate: the code under test caught a replay error{more} and went on, so the "
        "test did not see it (a framework's fallback, a retry, an except clause, or a "
        "background sender such as telemetry swallowing its failure): a miss must reach "
        "the test. The first:\n"
        f"{errors[0]}\n"
        "Turn a background sender off in tests; if catching the error is what the test "
        f"checks, mark it @pytest.mark.replaygate({ALLOW_FLAG}=True)."
    )


class CaughtReplayError(Failed):
    """What a test fails with at teardown when its replay ``errors`` were all caught on
    their way: ``pytest.fail``'s exception, shown as pytest shows it (its message alone,
    ``Failed: replaygate: ...`` in the summary)."""

    __module__ = "builtins"
    __qualname__ = "Failed"

    def __init__(
        self,
        errors: list[ReplaygateError],
        test: frozenset[CodeType],
        failed: BaseException | None = None,
    ) -> None:
        super().__init__(caught_message(errors, test, failed), pytrace=False)
        self.errors = tuple(errors)


def caught_since(item: pytest.Item, since: int, reached: BaseException | None) -> str | None:
    """Why ``item`` fails (:func:`caught_message`) when the replay errors its checked
    session raised from the ``since``-th on (those of one sample of a sampled test) all
    failed to reach the test (``reached``: what the test's code ended with, or None);
    None when there were none, or one reached it."""
    raised = checked_raised(item)[since:]
    test = test_code(getattr(item, "function", None))
    caught = caught_errors(raised, reached, test) if raised else []
    return caught_message(caught, test, reached) if caught else None


def replay_failure(failed: BaseException, raised: list[ReplaygateError]) -> ReplaygateError | None:
    """The replay error ``failed`` is or carries (its cause or context, a member of an
    exception group, the first of :class:`CaughtReplayError`, or one of ``raised`` its message
    names); None when there is none, or ``failed`` is a skip or ``pytest.xfail``."""
    if isinstance(failed, CaughtReplayError):
        return failed.errors[0]
    chain, texts = _carried(failed)
    carried = (e for e in chain if isinstance(e, ReplaygateError))
    return next(carried, None) or next((e for e in raised if carried_in(e, chain, texts)), None)


def xfail_expects(marks: Iterable[pytest.Mark], error: ReplaygateError) -> bool:
    """Whether one of the ``xfail`` ``marks`` names ``error`` in its ``raises=``."""
    return any(_names(_classes(mark.kwargs.get("raises")) or (), error) for mark in marks)


def xfail_message(error: ReplaygateError) -> str:
    """Why a test marked ``xfail`` fails on ``error`` instead of xfailing."""
    return (
        "replaygate: the test is marked xfail, but it failed on a replay error, which is "
        "never the failure an xfail expects: it did not get the recorded answer the known "
        "failure is about. An xfail about the miss names it: "
        f"@pytest.mark.xfail(raises={type(error).__name__})."
    )
