"""Catching a sampled run whose samples never use their sample index.

Sample ``i`` replays the ``i``-th recorded response only when its model is built with
``sample=i``. A test body (or a ``run_sampled`` function) that takes the index and never
reads it replays the same recorded response in every sample: ``n`` samples collapse
into one, and the pass rate is that one sample's, repeated. Two facts together show it:
the code never reads its index parameter (:func:`ignores_index`, from its code object),
and its samples replayed fixtures that hold more than one recorded sample
(:class:`ReplayWatch`, from the fixture hits the replay layer notes). Code whose model
is a fake or a live one replays nothing and is never flagged.
"""

from __future__ import annotations

import dis
import functools
import inspect
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from replaygate.fixtures import hits

_OPAQUE_CALLS = frozenset({"locals", "vars", "eval", "exec"})
"""Builtins through which code may read a local without naming it."""


def _function_of(fn: object) -> tuple[types.FunctionType, int] | None:
    """The plain function behind ``fn`` and the position of its index parameter, or
    None when its code cannot be read (a builtin, a class). A ``functools.partial``
    moves the index past the arguments it binds; an object is called through its
    ``__call__``."""
    target = inspect.unwrap(fn) if callable(fn) else fn
    position = 0
    while isinstance(target, functools.partial):
        position += len(target.args)
        target = inspect.unwrap(target.func)
    if callable(target) and not isinstance(target, types.FunctionType | types.MethodType | type):
        target = target.__call__
    if isinstance(target, types.MethodType):
        target, position = target.__func__, position + 1
    if not isinstance(target, types.FunctionType):
        return None
    return target, position


_ASSERT_BUILTINS = "@py_builtins"
"""What pytest's rewritten ``assert`` loads ``locals`` from, to tell a local from a global
in its message: a read of a name the assert reads itself, no read of any other."""


def _reads(code: types.CodeType, name: str) -> bool:
    """Whether ``code`` (or code nested in it) may read the local ``name``."""
    if name in code.co_cellvars:
        return True
    before = None
    for instruction in dis.get_instructions(code):
        if not instruction.opname.startswith("LOAD_"):
            continue
        value = instruction.argval
        if value == name or (isinstance(value, tuple) and name in value):
            return True
        if isinstance(value, str) and value in _OPAQUE_CALLS and before != _ASSERT_BUILTINS:
            return True
        before = value
    nested = (c for c in code.co_consts if isinstance(c, types.CodeType))
    return any(_reads(inner, name) for inner in nested)


def ignores_index(fn: object, name: str | None = None) -> bool:
    """Whether ``fn`` certainly never reads its sample index: the parameter ``name``
    (default: its first positional one). False whenever that cannot be told."""
    found = _function_of(fn)
    if found is None:
        return False
    function, position = found
    code = function.__code__
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    if name is None:
        if position < code.co_argcount:
            name = params[position]
        elif code.co_flags & inspect.CO_VARARGS:
            name = code.co_varnames[len(params)]  # def fn(*args): the index is in args
            return not _reads(code, name)
        else:
            return False
    if name not in params:
        return False
    return not _reads(code, name)


class ReplayWatch(hits.HitLog):
    """A hits log that remembers each fixture replayed while it is in use and hands every
    hit on to the log that was in use before (the session's, when one logs)."""

    def __init__(self, inner: hits.HitLog | None) -> None:
        super().__init__(Path("."), inner.run if inner is not None else "watch")
        self.inner = inner
        self.seen: set[tuple[str, str]] = set()

    def __reduce__(self) -> Any:
        """A worker process logs to the log in use before (none without one)."""
        return (_handed_on, (self.inner,))

    def note(self, store: Any, key: str) -> None:
        """Remember ``key`` of ``store``; log it where hits went before."""
        self.seen.add((str(store), key))
        if self.inner is not None:
            self.inner.note(store, key)

    def flush(self) -> None:
        """Write nothing of its own: the log in use before writes its hits."""
        if self.inner is not None:
            self.inner.flush()


def _handed_on(inner: hits.HitLog | None) -> hits.HitLog | None:
    """What a :class:`ReplayWatch` is in another process: the log it hands hits to."""
    return inner


@contextmanager
def watching_replays(active: bool) -> Iterator[ReplayWatch | None]:
    """While the block runs, a :class:`ReplayWatch` (None when not ``active``)."""
    if not active:
        yield None
        return
    watch = ReplayWatch(hits.active())
    with hits.used(watch):
        yield watch


def _sent_over_http(request: Any) -> bool:
    """Whether a fixture's request was sent through the HTTP fixtures, whose samples are
    answered in the order they send it, index or not (an HTTP envelope, not a wire body)."""
    return isinstance(request, dict) and "method" in request and "path" in request


def multi_sample_fixtures(seen: set[tuple[str, str]]) -> list[str]:
    """``key in store (k samples)`` for each fixture a model replayed that holds several
    samples (one sent through the HTTP fixtures is left out: :func:`_sent_over_http`)."""
    from replaygate.fixtures.store import FixtureStore

    found = []
    for store_path, key in sorted(seen):
        try:
            with FixtureStore.open(store_path) as store:
                held = store.get(key)
        except (OSError, ValueError):
            continue
        counts = [f.samples for _, f in held if not _sent_over_http(f.request)]
        if counts and max(counts) > 1:
            found.append(f"{key} in {store_path} ({max(counts)} samples)")
    return found


def unused_index_problem(
    case: str | None, n: int, watch: ReplayWatch | None, how: str
) -> str | None:
    """Why the ``n`` samples of ``case`` all replayed one recorded sample, or None.

    ``watch`` saw what they replayed; ``how`` says how to pass the index to the model.
    """
    if watch is None or n < 2:
        return None
    fixtures = multi_sample_fixtures(watch.seen)
    if not fixtures:
        return None
    shown = ", ".join(fixtures[:3]) + (
        f" and {len(fixtures) - 3} more" if len(fixtures) > 3 else ""
    )
    of_case = "" if case is None else f" of {case}"
    return (
        f"sample index unused: the {n} samples{of_case} never read their sample index, "
        f"yet replayed fixtures that hold several recorded samples ({shown}), so each "
        f"sample replayed the same recorded response and the pass rate counts one sample "
        f"{n} times; build the model with the index ({how})"
    )


def unused_index_watch(fn: Callable[..., Any], n: int, name: str | None = None) -> bool:
    """Whether a sampled run of ``fn`` over ``n`` samples needs its replays watched."""
    return n > 1 and ignores_index(fn, name)
