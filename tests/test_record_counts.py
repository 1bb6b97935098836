"""A recording counts only the answers it stored: one another recording stored first
for the same request is used, and counted as fetched but not kept."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate import Message, ModelResponse, RecordingModel, ReplayModel
from replaygate.models.fakes import ScriptedModel
from replaygate.models.types import ToolSpec
from replaygate.sanitize import SanitizeConfig

SETTINGS: dict[str, Any] = {"model": "claude-x", "max_tokens": 32, "sanitize": SanitizeConfig()}
QUESTION = [Message.user("What is RAG?")]


class _Overtaken:
    """A live model whose answer comes after another recording stored its own."""

    def __init__(self, store: Path) -> None:
        self.store = store

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        other = RecordingModel(
            ScriptedModel([ModelResponse(text="first")]), self.store, approve_live=True, **SETTINGS
        )
        other.complete(messages, tools)
        assert (other.recorded, other.not_kept) == (1, 0)
        return ModelResponse(text="second")


def test_an_answer_stored_first_by_another_recording_is_not_counted(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    recorder = RecordingModel(_Overtaken(store), store, approve_live=True, **SETTINGS)
    assert recorder.complete(QUESTION, []).text == "first"
    assert (recorder.recorded, recorder.not_kept) == (0, 1)
    assert len(store.read_bytes().splitlines()) == 1


class _FailsFirst:
    """A live model whose first call fails (``error``), then answers."""

    def __init__(self, error: BaseException) -> None:
        self.error: BaseException | None = error

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        error, self.error = self.error, None
        if error is not None:
            raise error
        return ModelResponse(text="answered")


@pytest.mark.parametrize("error", [ConnectionError("refused"), KeyboardInterrupt()])
def test_a_live_call_that_got_no_answer_gives_its_place_to_the_next_send(
    tmp_path: Path, error: BaseException
) -> None:
    # A notebook cell interrupted during the live call, then run again (or an agent retrying
    # a live error) on the same model: the answer of the next send was stored as the first,
    # then the call failed with a bare "IndexError: tuple index out of range".
    store = tmp_path / "rc.jsonl"
    recorder = RecordingModel(_FailsFirst(error), store, approve_live=True, **SETTINGS)
    with pytest.raises(type(error)):
        recorder.complete(QUESTION, [])
    # an error, not an interrupt: an agent that gives up on it records green what replay misses
    assert recorder.failed_live == (
        [
            "the live send of an anthropic.messages call to 'claude-x' failed (ConnectionError: "
            "refused), so nothing was recorded for it: its replay misses the request, or, where "
            "a retry of it was answered, sends it once less than this recording did. Record it "
            "again once the live API answers it."
        ]
        if isinstance(error, Exception)
        else []
    )
    assert recorder.complete(QUESTION, []).text == "answered"
    assert recorder.recorded == 1
    assert ReplayModel(store, **SETTINGS).complete(QUESTION, []).text == "answered"
