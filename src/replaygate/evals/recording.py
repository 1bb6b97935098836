"""How an eval run records: the plan, the recipe each process follows, the store guard.

A :class:`RecordPlan` records with a live model already open. A :class:`RecordRecipe`
says how to open one, so every process of a parallel run opens its own and spends its
share of the rate limit and of the spending cap. Worker threads share one
:class:`~replaygate.fixtures.store.FixtureStore`; a :class:`StoreGuard` lets one
worker at a time touch it, and is let go during the live call itself, so workers wait
for each other only on the store, never on the model.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from replaygate.evals.cap_share import process_cap
from replaygate.evals.ratelimit import check_rate_limit
from replaygate.fixtures.spending import Prices, SpendingCap
from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec
from replaygate.network import SIMULATOR_BLOCK, block_network


def check_concurrency(concurrency: object) -> None:
    """Refuse a concurrency that is no whole number of 1 or more (``ValueError``): a NaN
    passed ``< 1`` and started no recording thread, and the run waited for ever."""
    if type(concurrency) is not int or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number of at least 1, got {concurrency!r}")


@dataclass(frozen=True)
class RecordPlan:
    """How to record: the live model, the mode, the approval and the parallelism."""

    live: Model
    approve_live: bool
    mode: str = "record-missing"
    source: str | None = None
    concurrency: int = 1
    rate_limit: float | None = None
    cap: SpendingCap | None = None
    """What the recording may spend (:class:`~replaygate.fixtures.spending.SpendingCap`)."""

    def __post_init__(self) -> None:
        check_concurrency(self.concurrency)
        if self.rate_limit is not None:
            check_rate_limit(self.rate_limit)


@dataclass(frozen=True)
class RecordRecipe:
    """How to record, for a process that opens its own live model with ``open_live``.

    ``open_live`` must survive pickling (a module-level function, or a
    :func:`functools.partial` of one) to reach other processes. ``rate_limit`` (calls/s)
    and ``max_cost`` bound the whole run; each of ``jobs`` processes gets an equal share.
    """

    open_live: Callable[[], AbstractContextManager[Model]]
    approve_live: bool
    mode: str = "record-missing"
    source: str | None = None
    concurrency: int = 1
    rate_limit: float | None = None
    max_cost: float | None = None
    simulator: bool = False
    """``open_live`` opens the embedded loopback simulator: the run is :func:`offline`.
    ``source="sim"`` alone says only what the fixtures' ``meta.source`` is (a simulator
    of the user's own, anywhere)."""
    preload: tuple[str, ...] = ()
    """The modules ``open_live`` imports (its SDK): the fork server of a parallel run
    loads them once, before it forks the processes, where each process imported them
    itself (``anthropic``: about 1.4 s of CPU a process)."""

    def __post_init__(self) -> None:
        check_concurrency(self.concurrency)  # refused before any process starts
        if self.rate_limit is not None:
            check_rate_limit(self.rate_limit)

    @contextlib.contextmanager
    def plan(self, prices: Prices | None, jobs: int = 1) -> Iterator[RecordPlan]:
        """A plan with a live model opened here, for one of ``jobs`` processes."""
        cap = None
        if self.max_cost is not None:
            if prices is None:
                raise ValueError("a spending cap needs a price table")
            cap = process_cap(self.max_cost, prices, jobs)
        rate = self.rate_limit / jobs if self.rate_limit else None
        with self.open_live() as live:
            yield RecordPlan(
                live, self.approve_live, self.mode, self.source, self.concurrency, rate, cap
            )


def offline_block(recording: RecordRecipe | None) -> AbstractContextManager[None]:
    """The network block of a run that keeps every way out beyond loopback closed, as the
    pytest plugin does (law 3): it replays (no ``recording``), or records from the
    embedded loopback simulator (``recording.simulator``, whose refusals say so); else
    nothing."""
    if recording is None:
        return block_network()
    return (
        block_network(remedy=SIMULATOR_BLOCK) if recording.simulator else contextlib.nullcontext()
    )


class StoreGuard:
    """Held around each recorder call; :meth:`released` lets it go for a live call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> StoreGuard:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        """Let other workers use the store while the body (a live call) runs."""
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()


class SampleRecorder:
    """A :class:`~replaygate.models.replay.RecordingModel` whose store calls hold ``guard``;
    ``answered`` is told each response it hands the agent."""

    def __init__(
        self,
        recorder: RecordingModel,
        guard: StoreGuard,
        answered: Callable[[ModelResponse], None],
    ) -> None:
        self.recorder = recorder
        self.guard = guard
        self.answered = answered

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Record (or, in ``record-missing``, replay) this sample's response."""
        with self.guard:
            response = self.recorder.complete(messages, tools)
        self.answered(response)
        return response
