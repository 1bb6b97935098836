"""Errors that cross the official SDKs and the frameworks built on them unwrapped.

The ``anthropic`` and ``openai`` SDKs turn any exception raised by the transport
into ``APIConnectionError`` and retry it, except their own errors
(``anthropic.AnthropicError``, ``openai.OpenAIError``), which they re-raise as they
are. :func:`passthrough` gives a replaygate error the base classes of
:data:`SDK_BASES` that are loaded in the process (a base already implied by another
one is left out), so a replay miss reaches the test at once, unwrapped and without a
retry sleep; ``except FixtureMismatchError`` still catches it. None of these bases
is a status or connection error, so the retry policies of pydantic-ai, LangChain and
the OpenAI Agents SDK (which retry those) let it through too; Instructor re-raises
any error that is not a validation error as ``InstructorRetryException``, with the
miss as its cause and its message, after one attempt.

LiteLLM needs two more steps. Its OpenAI client re-raises its own
``litellm.llms.openai.common_utils.OpenAIError`` as is, and its error mapping returns
its own types (``litellm.exceptions.OpenAIError`` among them) as they are, and its
``num_retries`` wrapper retries only ``openai.APIError``: with those two bases the
miss crosses it unwrapped and once. Its Anthropic client and its async OpenAI
client, though, wrap *every* transport error as a 500 that the wrapper retries, so
no base class helps there: :func:`passthrough` also tells LiteLLM, in the current
context, that a failure caused by a replaygate error is not to be retried
(:func:`_litellm_never_retries` sets the predicate LiteLLM's wrapper consults,
``litellm._internal_context._resent_on``: no retry, no failure logged). That hook
is LiteLLM's own, not a public API: tests_frameworks/test_litellm.py checks it at
the tested version. The error the test gets is then LiteLLM's ``InternalServerError``
carrying the miss's message (key, store, the field paths that differ), raised once,
and a ``RuntimeError`` as the miss is (:func:`as_runtime_error`), which LangGraph's
default retry policy leaves alone. Its Gemini client reads ``status_code`` and
``message`` of any LiteLLM error it catches: a passthrough error has them
(:func:`_as_litellm_error`), and reaches the test as itself. Among them its headers
say, as the APIs' answers do, that the failure is not to be retried (``x-should-retry:
false``): the OpenAI Agents SDK's runner, which reads the status and the headers of
every error in a failure's chain, takes the status for a server error, its
``provider_suggested()`` policy the header for a veto.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from replaygate.errors import ReplaygateError, exception_chain

E = TypeVar("E", bound=BaseException)

SDK_BASES: tuple[tuple[str, str], ...] = (
    ("anthropic", "AnthropicError"),
    ("openai", "OpenAIError"),
    ("litellm.exceptions", "OpenAIError"),
    ("litellm.llms.openai.common_utils", "OpenAIError"),
)
"""(module, class) of each base error a passthrough error takes when the module is loaded."""

_classes: dict[tuple[type[BaseException], tuple[type[BaseException], ...]], type] = {}
_lock = threading.Lock()


def sdk_bases() -> tuple[type[BaseException], ...]:
    """The base error classes of the SDKs already imported in this process, each one
    left out when another of them derives from it (so the bases have an order)."""
    bases: list[type[BaseException]] = []
    for module_name, class_name in SDK_BASES:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and issubclass(cls, BaseException):
            bases.append(cls)
    return tuple(b for b in bases if not any(o is not b and issubclass(o, b) for o in bases))


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


def caused_by_replaygate(error: BaseException) -> bool:
    """Whether ``error`` is a replaygate error or was raised while handling one."""
    return any(isinstance(e, ReplaygateError) for e in exception_chain(error))


def _litellm_never_retries() -> None:
    """Make LiteLLM, if loaded, neither retry nor log as failed a failure caused by a
    replaygate error, in the current context (kept for the rest of it: the predicate
    only ever matches replaygate's errors, and any predicate already set still holds)."""
    module = sys.modules.get("litellm._internal_context")
    var = getattr(module, "_resent_on", None)
    if not isinstance(var, ContextVar):
        return
    previous: Callable[[Exception], bool] | None = var.get()
    if getattr(previous, "replaygate", False):
        return

    def rejection(error: Exception) -> bool:
        if caused_by_replaygate(error):
            as_runtime_error(error)
            return True
        return previous is not None and previous(error)

    marked: Any = rejection
    marked.replaygate = True
    var.set(rejection)


_runtime_classes: dict[type[BaseException], type[BaseException]] = {}


def as_runtime_error(error: BaseException) -> None:
    """Make ``error``, an error of LiteLLM's that carries a miss, a ``RuntimeError`` too,
    as the miss is (its class is kept, with ``RuntimeError`` added, under the same name).
    Retry policies that leave programming errors alone then leave it alone: LangGraph's
    default ``RetryPolicy`` (``default_retry_on``) sent a miss again twice, with its
    backoff, through a node calling LiteLLM's Anthropic client, whose
    ``InternalServerError`` it takes for a server's. A builtin class (LiteLLM's bare
    ``Exception`` of a fallback) cannot be changed and is left as it is."""
    cls = type(error)
    if isinstance(error, RuntimeError):
        return
    namespace = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__reduce__": _reduced_as(cls),
    }
    try:
        with _lock:
            made = _runtime_classes.get(cls)
            if made is None:
                made = _runtime_classes[cls] = type(cls.__name__, (cls, RuntimeError), namespace)
        error.__class__ = made
    except TypeError:  # a builtin class (no order of bases, no class to change)
        return


def _reduced_as(cls: type[BaseException]) -> Callable[[BaseException], Any]:
    """A ``__reduce__`` that pickles an error of a class :func:`as_runtime_error` made as one
    of ``cls``, the class its name reaches (pickle refuses a class its name does not)."""

    def __reduce__(self: BaseException) -> Any:
        reduced = cls.__reduce__(self)
        if isinstance(reduced, tuple) and reduced and reduced[0] is type(self):
            return (cls, *reduced[1:])
        return reduced

    return __reduce__


LITELLM_BASE = ("litellm.llms.base_llm.chat.transformation", "BaseLLMException")
"""(module, class) of the base of LiteLLM's provider errors, which its handlers read
``status_code`` and ``message`` of."""
LITELLM_STATUS = 500
"""The status a passthrough error shows LiteLLM: the one its own clients give a transport
error they wrap (never retried here, see :func:`_litellm_never_retries`), which its error
mapping turns into its ``InternalServerError``."""
NO_RETRY_HEADERS = {"x-should-retry": "false"}
"""The headers a passthrough error shows LiteLLM: the APIs' own word that a failure is
not to be retried. The OpenAI Agents SDK's runner reads the status of every error in a
failure's chain, so it took a miss for a server error, with LiteLLM loaded that of any
model (an ``OpenAIResponsesModel``'s too, which carries these fields), and always that of
``LitellmModel``, which LiteLLM raises as its ``InternalServerError``; its
``provider_suggested()`` policy reads this header in the same chain and vetoes the retry."""


def _as_litellm_error(copy: BaseException) -> None:
    """Give ``copy`` the fields of a LiteLLM provider error when it is one (it derives from
    ``litellm.llms.openai.common_utils.OpenAIError``): LiteLLM's Gemini client reads
    ``status_code`` and ``message`` of any such error it catches, and without them the
    miss ended as ``'FixtureMismatchError' object has no attribute 'status_code'``. Its
    headers say it is not to be retried (:data:`NO_RETRY_HEADERS`)."""
    module = sys.modules.get(LITELLM_BASE[0])
    base = getattr(module, LITELLM_BASE[1], None) if module is not None else None
    if not isinstance(base, type) or not isinstance(copy, base):
        return
    fields = {
        "status_code": LITELLM_STATUS,
        "status_code_is_synthesized": True,
        "message": str(copy),
        "headers": dict(NO_RETRY_HEADERS),
        "body": None,
    }
    for name, value in fields.items():
        copy.__dict__.setdefault(name, value)


def passthrough(error: E) -> E:
    """A copy of ``error`` (same message and attributes) that the SDKs re-raise as is."""
    _litellm_never_retries()
    cls = passthrough_class(type(error))
    if cls is type(error):
        return error
    copy = cls.__new__(cls, *error.args)
    copy.args = error.args
    copy.__dict__.update(error.__dict__)
    _as_litellm_error(copy)
    return copy
