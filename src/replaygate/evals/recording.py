"""Recording eval samples from several worker threads into one store.

Workers share one :class:`~replaygate.fixtures.store.FixtureStore`; a :class:`StoreGuard`
lets one worker at a time touch it, and is let go during the live call itself, so
workers wait for each other only on the store, never on the model.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence

from replaygate.models.replay import RecordingModel
from replaygate.models.types import Message, ModelResponse, ToolSpec


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
    """A :class:`~replaygate.models.replay.RecordingModel` whose store calls hold ``guard``."""

    def __init__(self, recorder: RecordingModel, guard: StoreGuard) -> None:
        self.recorder = recorder
        self.guard = guard

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Record (or, in ``record-missing``, replay) this sample's response."""
        with self.guard:
            return self.recorder.complete(messages, tools)
