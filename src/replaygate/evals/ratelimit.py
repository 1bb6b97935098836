"""Live calls of concurrent eval workers: a shared rate limit, and call wrappers.

Calls are spaced at least ``1 / per_second`` apart across every thread that shares
the limiter. Only live calls wait: replayed responses never touch it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from replaygate.evals.errors import RateLimitError
from replaygate.models.replay import WireModel
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec

Around = Callable[[], AbstractContextManager[object]]


def check_rate_limit(per_second: float) -> float:
    """The wait between two calls at ``per_second`` calls a second;
    :class:`~replaygate.evals.errors.RateLimitError` for a rate that is no rate (NaN,
    zero or below) or one whose wait is longer than a thread can sleep."""
    if not per_second > 0:
        raise RateLimitError(
            f"the rate limit must be a positive number of calls per second, got {per_second}"
        )
    interval = 1.0 / per_second
    if interval > threading.TIMEOUT_MAX:
        raise RateLimitError(
            f"the rate limit of {per_second:g} calls per second waits {interval:g} seconds "
            f"between calls, more than can be waited ({threading.TIMEOUT_MAX:g} at most)"
        )
    return interval


class RateLimiter:
    """Spaces calls ``1 / per_second`` apart; thread-safe."""

    def __init__(
        self,
        per_second: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = check_rate_limit(per_second)
        self._clock = clock
        self._sleep = sleep
        self._next = float("-inf")
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Wait for this call's slot; returns how long it waited."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        wait = slot - now
        if wait > 0:
            self._sleep(wait)
        return wait

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Wait for a slot, then run the body."""
        self.acquire()
        yield


class WrappedModel:
    """A live model whose every call runs inside ``around()``."""

    def __init__(self, live: Model, around: Around) -> None:
        self.live = live
        self.around = around

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Call the live model inside ``around()``."""
        with self.around():
            return self.live.complete(messages, tools)

    def replayed(self, request: dict[str, Any], response: Any) -> None:
        """Tell the live model of an answer a recording replayed instead of sending
        ``request`` (no call: not inside ``around()``), if it listens."""
        told = getattr(self.live, "replayed", None)
        if callable(told):
            told(request, response)


class WrappedWireModel(WrappedModel):
    """A :class:`WrappedModel` over a live model that sends wire requests as they are."""

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request`` inside ``around()``."""
        live: Any = self.live
        with self.around():
            response: dict[str, Any] = live.complete_wire(request)
        return response

    @property
    def simulated(self) -> bool:
        """Whether the live model's last answer came from replaygate's simulator."""
        return getattr(self.live, "simulated", False) is True


def wrap_calls(live: Model, around: Around) -> Model:
    """``live`` with each call inside ``around()``, keeping its wire method."""
    if isinstance(live, WireModel):
        return WrappedWireModel(live, around)
    return WrappedModel(live, around)


def limited(live: Model, limiter: RateLimiter | None) -> Model:
    """``live`` behind ``limiter`` (as is without one)."""
    return live if limiter is None else wrap_calls(live, limiter.slot)
