"""Record/replay for clients the code under test builds itself, by patching the clients.

Inside ``with intercept(store, mode=...)`` every request sent by an ``httpx2`` or
``httpx`` client (``Client.send``, ``AsyncClient.send``, whatever the client's
transport), an ``aiohttp.ClientSession`` or a ``requests.Session`` (whichever are
installed; :mod:`replaygate.http.seams`) is answered by one shared
:class:`~replaygate.http.exchange.Exchange`, as pytest-httpx and vcrpy do. The patch is
process-wide (every thread), removed when the last block exits; nested intercepts
stack, the innermost one answering. In replay mode the network is blocked too
(:func:`~replaygate.network.block_network`): nothing else leaves the process while
inside, whatever library or socket it tries; so it is in a recording block given a
simulator's ``live_origin``, which records what the code sends to the real API from the
simulator. A recording block that sees no request at all warns
(:class:`~replaygate.errors.NothingRecordedWarning`): the client may send through a
library that is not intercepted, or a response cache of the code under test (DSPy's)
answered without sending.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import inspect
import linecache
import sys
import warnings
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from contextvars import Context
from dataclasses import dataclass
from types import CodeType, FrameType, FunctionType
from typing import Any, ParamSpec, TypeVar, Unpack, cast
from urllib.parse import urlsplit

from replaygate import held_blocks
from replaygate.addresses import is_loopback
from replaygate.code_objects import code_within
from replaygate.errors import (
    NothingRecordedWarning,
    ReplayErrorCaughtWarning,
    ReplaygateError,
    TaskOutlivesBlockWarning,
    carried_in,
    carrier_of,
    exception_chain,
    request_of,
)
from replaygate.held_blocks import HeldBlock
from replaygate.http.active import answering_with, entered_in
from replaygate.http.exchange import Exchange, SessionOptions, StoreArg
from replaygate.http.learners import learner_at
from replaygate.http.seams import installed, patched
from replaygate.http.side_request import side_request_told
from replaygate.network import SIMULATOR_BLOCK, block_network
from replaygate.unittest_parts import unittest_took


def loopback_origin(url: str) -> str:
    """``scheme://host:port`` of ``url``, a loopback HTTP URL (its path left out, so
    ``sim.openai_base_url`` names the simulator as ``sim.url`` does); a ``ValueError``
    names any other."""
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port
    except (TypeError, ValueError, AttributeError):
        host = None
    if host is None or parts.scheme not in ("http", "https") or not is_loopback(host):
        raise ValueError(
            f"live_origin: expected a loopback URL (a simulator's sim.url, "
            f"http://127.0.0.1:PORT), got {url!r}: live sends go there instead of the "
            "real API, and nowhere else"
        )
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def simulator_at(origin: str) -> bool:
    """Whether a simulator of this process listens at ``origin`` (``scheme://host:port``):
    one registered to learn what a recording replays (:mod:`~replaygate.http.learners`)."""
    parts = urlsplit(origin)
    return learner_at(parts.hostname, parts.port) is not None


RESPONSE_CACHE = (
    "a response cache of the code under test may have answered (DSPy's, on by default and "
    "kept on disk between runs: dspy.configure_cache(enable_disk_cache=False, "
    "enable_memory_cache=False); LiteLLM's litellm.cache; DeepEval's, kept in .deepeval/ "
    "between runs: no cache_config=CacheConfig(use_cache=True) given to evaluate(), no -c "
    "given to deepeval test run; ragas's, kept in .cache/: no cache=DiskCacheBackend() given "
    "to its LLM's wrapper; LangChain's, set by set_llm_cache(InMemoryCache()) or "
    "SQLiteCache, used by each model not given cache=False, or given to a model's cache=: "
    "set_llm_cache(None), no cache= given; LangGraph's, given to a graph's compile(cache=...) "
    "(InMemoryCache, or SqliteCache, kept on disk between runs) for the nodes given a "
    "cache_policy: no cache= given to compile(); Instructor's, given to its client's cache= "
    "(AutoCache, or DiskCache, kept on disk between runs): no cache= given): "
    "turn it off in tests, since a replay without it has nothing to "
    "answer with"
)
"""The cause of a recording that saw no request other than a client it does not see."""


def nothing_recorded() -> str:
    """What a recording that saw no request says, naming the libraries intercepted."""
    return (
        "nothing was recorded: this client may use a transport replaygate does not "
        f"intercept (intercepted: {', '.join(installed())}), or {RESPONSE_CACHE}"
    )


def _reached(error: ReplaygateError, inside: frozenset[CodeType]) -> bool:
    """Whether ``error`` reached the code of the ``with`` block (``inside``:
    :func:`_block_code`, where an ``except`` or ``pytest.raises`` of the block is) or the
    top level of a module (a notebook cell, or a script, run in a block another cell or
    line entered, whose errors are shown, not caught by the code under test). One caught
    deeper, by the code under test, never passed through that code."""
    at = carrier_of(error).__traceback__
    while at is not None:
        code = at.tb_frame.f_code
        if code in inside or code.co_name == "<module>":
            return True
        at = at.tb_next
    return False


def _unreached(raised: list[ReplaygateError], inside: frozenset[CodeType]) -> list[ReplaygateError]:
    """Of ``raised``, those unittest did not report as a test's error that reached
    neither the block's own code nor a module's top level (:func:`_reached`), less those of
    a request whose error reached it (that request sent again: a framework's retry); one
    of another request, a fallback answered, is among them, as the pytest plugin tells it."""
    unreported = [error for error in raised if unittest_took(error) != "error"]
    shown = [error for error in unreported if _reached(error, inside)]
    seen = {request_of(error) for error in shown}
    return [
        error
        for error in unreported
        if not any(error is e for e in shown) and request_of(error) not in seen
    ]


@dataclass(frozen=True)
class _Entry:
    """Where :func:`intercept`'s block was entered: the code and line, and its module's
    globals (a warning of the block is shown at that line, filtered by that module)."""

    code: CodeType
    line: int
    module: dict[str, Any]

    def warn(self, message: str, category: type[Warning]) -> None:
        """Warn at the line that entered the block, as ``warnings.warn`` would there: a
        block a ``setUp`` entered ends in unittest's cleanup, which names no code of the test's."""
        module = self.module
        warnings.warn_explicit(
            message,
            category,
            self.code.co_filename,
            self.line,
            # a module of None drops the warning: code run by exec() in globals of no name
            module=module.get("__name__") or self.code.co_filename,
            registry=module.setdefault("__warningregistry__", {}),
            module_globals=_loader_globals(module),
        )


def _loader_globals(module: dict[str, Any]) -> dict[str, Any] | None:
    """``module``, for ``warnings`` to read the warned line through its loader, where its
    ``__spec__`` names that loader; else none, and the line is read from the file. From
    Python 3.12 ``warn_explicit`` refuses globals whose ``__spec__`` names no loader: a
    ``ValueError`` for those ``runpy.run_path`` runs a script with, a
    ``DeprecationWarning`` for a script's ``__main__``."""
    loader = getattr(module.get("__spec__"), "loader", None)
    if loader is None or module.get("__loader__", loader) != loader:
        return None
    return module


P = ParamSpec("P")
R = TypeVar("R")


def _entered_from() -> _Entry:
    """Where :func:`intercept`'s block was entered: the first frame out of it, of
    contextlib (its ``__enter__``, an ``ExitStack.enter_context``) and of unittest's
    ``enterContext``, ``enterClassContext`` and ``enterModuleContext``; or, for a block
    decorating a function (``@intercept(store)`` on a test), that function, from the line
    of its first decorator."""
    case = sys.modules.get("unittest.case")
    unittest_file = getattr(case, "__file__", contextlib.__file__)
    passed = {contextlib.__file__, __file__, held_blocks.__file__, unittest_file}
    frame = sys._getframe(2)  # this function's caller is intercept's generator
    while frame.f_back is not None and frame.f_code.co_filename in passed:
        decorated = _decorated(frame)
        if decorated is not None:
            return _Entry(
                decorated.__code__, decorated.__code__.co_firstlineno, decorated.__globals__
            )
        frame = frame.f_back
    return _Entry(frame.f_code, frame.f_lineno, frame.f_globals)


def _decorated(frame: FrameType) -> FunctionType | None:
    """The function ``frame`` runs inside the block, when it is the call of a function a
    context manager decorates (``ContextDecorator``'s ``inner``, or
    :class:`InterceptBlock`'s), or None."""
    code = frame.f_code
    if code.co_name not in ("inner", "inner_sync", "inner_gen") or code.co_filename not in (
        contextlib.__file__,
        __file__,
    ):
        return None
    function = inspect.unwrap(frame.f_locals.get("func"))  # type: ignore[arg-type]
    return function if isinstance(function, FunctionType) else None


def _block_code(code: CodeType, line: int) -> frozenset[CodeType]:
    """The code of the block a ``with`` at ``line`` of ``code`` runs: ``code`` itself and
    the functions defined between the statement's first and last lines (a closure, a
    lambda, a comprehension). A function defined elsewhere in ``code`` (one of a module
    whose top level holds the block) is code under test, whose ``except`` hides a miss.
    A module's top level that entered the block by hand (``block.__enter__()``, an
    ``ExitStack``) is the block's code alone. Where the statement is not found otherwise
    (no source, an ``ExitStack`` of a function), every function defined in ``code``."""
    span = with_statement_lines(code.co_filename, line)
    if span is None:
        if code.co_name == "<module>" and linecache.getlines(code.co_filename):
            return frozenset((code,))
        return code_within(code)
    first, last = span
    defined = (c for c in code_within(code) if first <= c.co_firstlineno <= last)
    return frozenset((code, *defined))


def with_statement_lines(filename: str, line: int) -> tuple[int, int] | None:
    """The first and last lines of the innermost ``with`` statement of the source file
    ``filename`` whose head holds ``line``, or None."""
    statements = _with_statements("".join(linecache.getlines(filename)))
    heads = [(first, last) for first, body, last in statements if first <= line < body]
    return max(heads, default=None)


@functools.lru_cache(maxsize=32)
def _with_statements(source: str) -> tuple[tuple[int, int, int], ...]:
    """Each ``with`` statement of ``source``: its first line, its body's first line and
    its last line. Parsed once per source: a test module entering a block in each test."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # a file changed since it was imported
        return ()
    return tuple(
        (node.lineno, node.body[0].lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.With | ast.AsyncWith)
    )


_OUTLIVED = {
    "asyncio": "enter it around asyncio.run(...), which cancels them before it returns",
    "trio": "open the nursery (task group) that runs them inside the block, or enter it "
    "around trio.run(...) or anyio.run(...)",
}
"""How to keep the tasks of each event loop's library inside the block."""


def running_tasks() -> set[Any] | None:
    """The tasks of the event loop running in this thread, asyncio's or trio's (every task
    of the run), or None where none runs (a process that imported neither has none)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None:
        try:
            return set(asyncio.all_tasks(asyncio.get_running_loop()))
        except RuntimeError:  # no asyncio loop runs in this thread
            pass
    trio = sys.modules.get("trio")
    if trio is None:
        return None
    try:
        root = trio.lowlevel.current_root_task()
    except RuntimeError:  # no trio run in this thread
        return None
    tasks: set[Any] = set()
    parents = [root]
    while parents:  # a trio task is in its nursery's child_tasks until it has ended
        task = parents.pop()
        tasks.add(task)
        parents.extend(child for n in task.child_nurseries for child in n.child_tasks)
    return tasks


def _is_trio(task: Any) -> bool:
    return type(task).__module__.startswith("trio")


def _coro(task: Any) -> Any:
    return task.coro if _is_trio(task) else task.get_coro()


def _running(task: Any) -> bool:
    """Whether ``task`` still runs: a trio task found in its run's tree of tasks does."""
    return _is_trio(task) or not task.done()


def _closing(task: Any) -> bool:
    """Whether ``task`` is the loop closing a dropped async generator (``aclose()``)."""
    return type(_coro(task)).__name__ == "async_generator_athrow"


def _task_context(task: Any) -> Context | None:
    """The context ``task`` runs in: a trio task's ``context``, an asyncio task's
    ``get_context()`` from Python 3.12. Python 3.11's asyncio task does not tell it, but
    refers to it before any other context (those of the callbacks awaiting the task come
    after it, in the order CPython 3.11 visits them)."""
    if _is_trio(task):
        return cast(Context, task.context)
    if hasattr(task, "get_context"):
        return cast(Context, task.get_context())
    held = (ref for ref in gc.get_referents(task) if isinstance(ref, Context))
    return next(held, None)


def _started_inside(task: Any, exchange: Exchange) -> bool:
    """Whether ``task`` was started inside the block of ``exchange``: its context holds the
    block's session. A task another block open at once started (``asyncio.gather`` of two
    runs, each in its own block) is that block's, not this one's. A task whose context
    cannot be read counts as this block's."""
    context = _task_context(task)
    return context is None or entered_in(context, exchange)


def _task_label(task: Any) -> str:
    """``task``'s name and the function it runs, with its module (``Task-7:
    litellm.litellm_core_utils.logging_worker.LoggingWorker._worker_loop``): a name given
    by asyncio says nothing of whose task it is. A trio task's name is its function's."""
    coro = _coro(task)
    name = getattr(coro, "__qualname__", type(coro).__name__)
    frame = getattr(coro, "cr_frame", None)
    module = frame.f_globals.get("__name__") if frame is not None else None
    given = task.name if _is_trio(task) else task.get_name()
    return f"{given}: {module}.{name}" if module else f"{given}: {name}"


def tasks_left(before: set[Any] | None, exchange: Exchange) -> str | None:
    """What the block of ``exchange`` says of the tasks started inside it (not in
    ``before``, the tasks running as it was entered, and started in its context) that
    still run as it ends, or None. The loop's own closing of an async generator the code
    dropped (an SDK stream's iterator left by a ``break``) is no task of the code's: it
    sends nothing, and nothing could await it."""
    after = running_tasks()
    if before is None or after is None:
        return None
    left = [
        task
        for task in after - before
        if _running(task) and not _closing(task) and _started_inside(task, exchange)
    ]
    if not left:
        return None
    names = ", ".join(sorted(_task_label(task) for task in left)[:3])
    kind = "trio" if _is_trio(left[0]) else "asyncio"
    return (
        f"{len(left)} {kind} task(s) started inside this intercept() block still run as it "
        f"ends ({names}): what they send after it is neither answered from the store nor "
        "recorded, and goes to the network as the code addresses it. Await them (or "
        f"cancel them) inside the block, or {_OUTLIVED[kind]}"
    )


def caught_inside(caught: list[ReplaygateError]) -> str:
    """What a block that ended normally after raising replay errors says of them; of a
    first one to no model API (a framework's telemetry), how to stop it at its source."""
    said = str(caught[0])
    first = said.splitlines()[0]
    side = side_request_told(said)
    went_on = (
        f"the code under test caught them and went on. The first: {first} {side}"
        if side
        else "the code under test caught them and went on (a framework's fallback model or "
        f"retry), so what it returned is not what was recorded. The first: {first}"
    )
    return (
        f"{len(caught)} replay error(s) raised inside this intercept() block did not leave "
        f"it: {went_on} Call `raise_caught()` on the block's session (`with intercept(...) "
        "as session`) once the code returned to fail there; under pytest, the "
        "replaygate_intercept fixture fails the test"
    )


def caught_beside(
    error: BaseException, raised: list[ReplaygateError], inside: frozenset[CodeType]
) -> str | None:
    """The note of ``error``, leaving an intercept() block, naming the replay errors
    raised inside it (``raised``) that the code under test caught before (often the first
    miss, a fallback's send then missing too), or None; not those ``error`` carries (in its
    chain, or by their text: a framework's own error raised again for a miss, such as
    LiteLLM's ``InternalServerError``, or the bare ``Exception`` its ``fallbacks`` raise
    for the last fallback's miss), nor those the block's own code caught (a
    ``pytest.raises`` or ``except`` of its own), nor one shown at a module's top level
    (:func:`_reached`), nor one of a request ``error`` carries the miss of (a framework's
    retry, LiteLLM Router's ``num_retries``: the same miss sent again)."""
    chain = list(exception_chain(error))
    texts = "\n".join(str(e) for e in chain)
    carried = [e for e in raised if carried_in(e, chain, texts)]
    own = {request_of(e) for e in carried}
    hidden = [
        e
        for e in raised
        if not any(e is c for c in carried) and not _reached(e, inside) and request_of(e) not in own
    ]
    if not hidden:
        return None
    first = str(hidden[0]).splitlines()[0]
    other = "other " if carried or isinstance(error, ReplaygateError) else ""
    return (
        f"{len(hidden)} {other}replay error(s) raised inside this intercept() block were "
        f"caught by the code under test before this {'one' if other else 'error'}. "
        f"The first: {first}"
    )


@contextmanager
def intercepting(exchange: Exchange) -> Iterator[None]:
    """``exchange`` answers the intercepted clients while inside; nothing else (the network
    is not blocked, an empty recording does not warn): the part the pytest plugin uses."""
    with patched(), answering_with(exchange):
        yield


AFTER_INTERCEPT = "what is sent after it is neither answered from the store nor recorded"
"""What runs after an intercept() block ends."""


class InterceptBlock(HeldBlock[Exchange]):
    """The block :func:`intercept` returns: a context manager (entered by hand too,
    :class:`~replaygate.held_blocks.HeldBlock`), and a decorator of a function, a coroutine
    function included (its block lasts while the coroutine runs, not only while it is
    made), entered anew for each call, as vcrpy's ``use_cassette``."""

    def __init__(self, make: Callable[[], AbstractContextManager[Exchange]]) -> None:
        super().__init__(make, "intercept(store)", AFTER_INTERCEPT)

    def __call__(self, func: Callable[P, R]) -> Callable[P, R]:
        """``func`` run inside a block of its own at each call; a generator function's
        block lasts while the generator runs (a pytest yield fixture's, until its teardown
        ends). An async generator function is refused: its body would run outside."""
        if inspect.isasyncgenfunction(func):
            raise TypeError(
                f"intercept() cannot decorate {func.__qualname__}, an async generator "
                "function: its body runs after the call returns, outside the block; enter "
                "`with intercept(...)` inside it instead"
            )
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def inner_gen(*args: P.args, **kwargs: P.kwargs) -> Generator[Any, Any, Any]:
                with self._make():
                    return (yield from func(*args, **kwargs))

            return cast(Callable[P, R], inner_gen)
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def inner(*args: P.args, **kwargs: P.kwargs) -> Any:
                with self._make():
                    return await func(*args, **kwargs)

            return cast(Callable[P, R], inner)

        @functools.wraps(func)
        def inner_sync(*args: P.args, **kwargs: P.kwargs) -> R:
            with self._make():
                return func(*args, **kwargs)

        return inner_sync


def intercept(
    store: StoreArg | Exchange,
    mode: str = "replay",
    *,
    live_origin: str | None = None,
    **options: Unpack[SessionOptions],
) -> InterceptBlock:
    """Answer every request of the intercepted HTTP clients from ``store`` while inside: a
    ``with`` block, or a decorator of a function or coroutine function
    (:class:`InterceptBlock`).

    ``options`` are those of the transports
    (:class:`~replaygate.http.adapter.FixtureTransportBase`); a recording mode
    without ``approve_live=True`` raises before anything is patched. ``store`` may
    be an :class:`~replaygate.http.exchange.Exchange` to share a session. Entered,
    it gives the session's exchange (counters, store). A replaying session blocks the network
    while inside; a recording one that saw no request (none answered, none refused)
    warns when the block ends.

    ``live_origin``, a loopback URL (a simulator's ``sim.url``), is where a live send to
    a provider's API (a model API's path, any path of its host) goes instead of the host
    it names, recorded as addressed (:meth:`~replaygate.http.exchange.Exchange.live_url`):
    the code records with the clients it replays with, built for the real API, so a
    framework that shapes its requests by host sends the same ones both times. The
    network beyond loopback is then blocked while inside, as in replay. What a simulator
    of this process answers there is recorded as its (``meta.source: "sim"``) unless
    ``source`` says otherwise.
    """
    return InterceptBlock(
        functools.partial(_intercepted, store, mode, live_origin=live_origin, **options)
    )


@contextmanager
def _intercepted(
    store: StoreArg | Exchange,
    mode: str = "replay",
    *,
    live_origin: str | None = None,
    **options: Unpack[SessionOptions],
) -> Iterator[Exchange]:
    """The block of :func:`intercept`, entered once."""
    origin = None if live_origin is None else loopback_origin(live_origin)
    entry = _entered_from()
    block = _block_code(entry.code, entry.line)
    tasks = running_tasks()
    exchange = Exchange.of(store, mode, **options)
    before = (exchange.sent, len(exchange.raised))
    with ExitStack() as stack:
        if not exchange.recording:
            stack.enter_context(block_network())
        elif origin is not None:  # recording from a loopback origin: nothing else leaves
            stack.enter_context(block_network(remedy=SIMULATOR_BLOCK))
        if origin is not None:
            stack.callback(setattr, exchange, "live_origin", exchange.live_origin)
            exchange.live_origin = origin
            if exchange.session.source is None and simulator_at(origin):
                stack.callback(setattr, exchange.session, "source", None)
                exchange.session.source = "sim"
        stack.callback(setattr, exchange, "shown", exchange.shown)
        exchange.shown = functools.partial(_reached, inside=block)
        stack.enter_context(intercepting(exchange))
        stack.callback(exchange.finish_open, warn=entry.warn)  # what readers left open
        try:
            yield exchange
        except BaseException as err:
            hidden = None
            if isinstance(err, Exception):  # not a skip, an exit or an interrupt
                hidden = caught_beside(err, exchange.raised[before[1] :], block)
            # an error ending the block (asyncio.gather raising the first miss while other
            # tasks wait their turn) leaves tasks that send past it: said on the error
            left = tasks_left(tasks, exchange)
            for note in (hidden, left and f"replaygate: {left}."):
                if note:
                    err.add_note(note)
            raise
    if exchange.recording and (exchange.sent, len(exchange.raised)) == before:
        # a request refused before it was counted (a body that cannot be decoded) was seen
        entry.warn(nothing_recorded(), NothingRecordedWarning)
    caught = _unreached(exchange.raised[before[1] :], block)
    if caught:
        entry.warn(caught_inside(caught), ReplayErrorCaughtWarning)
    left = tasks_left(tasks, exchange)
    if left is not None:
        entry.warn(left, TaskOutlivesBlockWarning)
