"""A ``RecordingModel`` shared by threads records every answer it paid for, each where
replay looks for it: in parallel, identical sends' answers were stored out of place
(an ``IndexError`` for their callers), lost, or counted as another recorder's."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from replaygate import Message, ModelResponse, RecordingModel, ReplayModel
from replaygate.errors import FixtureMismatchError
from replaygate.models.fakes import FunctionModel

THREADS, SENDS = 4, 5


@pytest.fixture
def switching_often() -> Iterator[None]:
    """Threads switched every microsecond, so that they interleave within a send."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_threads_sharing_a_recording_model_lose_no_answer(
    tmp_path: Path, switching_often: None
) -> None:
    store = tmp_path / "rep.jsonl"
    counted = iter(range(THREADS * SENDS))
    live = FunctionModel(lambda messages, tools: ModelResponse(text=f"answer {next(counted)}"))
    recorder = RecordingModel(live, store, approve_live=True, model="m", max_tokens=8)
    failures: list[BaseException] = []

    def sends() -> None:
        for _ in range(SENDS):
            try:
                recorder.complete([Message.user("same question")], [])
            except Exception as err:  # each is asserted on below
                failures.append(err)

    threads = [threading.Thread(target=sends) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert (recorder.recorded, recorder.not_kept, len(live.calls)) == (20, 0, 20)
    replay = ReplayModel(store, model="m", max_tokens=8)
    answers = [replay.complete([Message.user("same question")], []).text for _ in range(20)]
    assert answers == [f"answer {i}" for i in range(20)]  # in the order the sends were made
    with pytest.raises(FixtureMismatchError):
        replay.complete([Message.user("same question")], [])
