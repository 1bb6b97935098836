"""A recording model writes no fixture its replay would refuse to serve.

An answer without its content (a wire model's ``{}``) or its token counts was
written, then refused at every replay: the store was damaged by the recording itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate import Message, ModelResponse, RecordingModel, WireFormatError

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 100}


class Answers:
    """A wire model whose answer is ``body``."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.body

    def complete(self, messages: object, tools: object) -> ModelResponse:
        raise AssertionError("the wire is asked")


@pytest.mark.parametrize(
    ("live", "path"),
    [
        (Answers({}), "response.content"),
        (Answers({"content": [], "usage": {"output_tokens": 1}}), "response.usage.input_tokens"),
    ],
    ids=["empty", "uncounted"],
)
def test_an_answer_its_replay_would_refuse_is_not_recorded(
    tmp_path: Path, live: Any, path: str
) -> None:
    store = tmp_path / "s.jsonl"
    model = RecordingModel(live, store, approve_live=True, **SETTINGS)
    with pytest.raises(WireFormatError, match="the answer was not recorded") as err:
        model.complete([Message.user("q")], [])
    assert err.value.path == path
    assert not store.exists() or store.read_bytes() == b""
