"""Errors that cross the official SDKs unwrapped.

The ``anthropic`` and ``openai`` SDKs turn any exception raised by the transport
into ``APIConnectionError`` and retry it, except their own errors
(``anthropic.AnthropicError``, ``openai.OpenAIError``), which they re-raise as they
are. :func:`passthrough` gives a replaygate error the SDK bases of every SDK loaded
in the process, so a replay miss reaches the test at once, unwrapped and without a
retry sleep; ``except FixtureMismatchError`` still catches it.
"""

from __future__ import annotations

import sys
import threading
from typing import TypeVar

E = TypeVar("E", bound=BaseException)

SDK_BASES: tuple[tuple[str, str], ...] = (
    ("anthropic", "AnthropicError"),
    ("openai", "OpenAIError"),
)

_classes: dict[tuple[type[BaseException], tuple[type[BaseException], ...]], type] = {}
_lock = threading.Lock()


def sdk_bases() -> tuple[type[BaseException], ...]:
    """The base error classes of the SDKs already imported in this process."""
    bases: list[type[BaseException]] = []
    for module_name, class_name in SDK_BASES:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and issubclass(cls, BaseException):
            bases.append(cls)
    return tuple(bases)


def passthrough_class(cls: type[E]) -> type[E]:
    """``cls`` also deriving from the loaded SDK base errors (built once per combination)."""
    bases = tuple(b for b in sdk_bases() if not issubclass(cls, b))
    if not bases:
        return cls
    with _lock:
        made = _classes.get((cls, bases))
        if made is None:
            made = type(cls.__name__, (cls, *bases), {"__module__": cls.__module__})
            made.__qualname__ = cls.__qualname__
            made.__doc__ = cls.__doc__
            _classes[(cls, bases)] = made
    return made


def passthrough(error: E) -> E:
    """A copy of ``error`` (same message and attributes) that the SDKs re-raise as is."""
    cls = passthrough_class(type(error))
    if cls is type(error):
        return error
    copy = cls.__new__(cls, *error.args)
    copy.args = error.args
    copy.__dict__.update(error.__dict__)
    return copy
