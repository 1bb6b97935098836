"""A fixture holding an object key that is no string is refused naming the key and its field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.errors import CanonicalFormError, UnstorableValueError
from replaygate.fixtures.fixture import make_meta

ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 9, "output_tokens": 1},
}


def _request(metadata: dict[Any, Any]) -> dict[str, Any]:
    question = [{"role": "user", "content": "hi"}]
    return {"model": "m", "max_tokens": 8, "messages": question, "metadata": metadata}


@pytest.mark.parametrize(("metadata", "key"), [({1: "a"}, "1"), ({True: 1}, "True")])
def test_a_key_that_is_no_string_is_named_and_nothing_is_written(
    tmp_path: Path, metadata: dict[Any, Any], key: str
) -> None:
    path = tmp_path / "s.jsonl"
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(_request({"a": 1}), [ANSWER], meta))
    kept = path.read_bytes()
    with FixtureStore.open(path) as store, pytest.raises(UnstorableValueError) as caught:
        store.put(Fixture.create(_request(metadata), [ANSWER], meta))
    assert str(caught.value) == (
        f"refusing to write fixture: key {key} is not a string (a JSON object's keys are "
        "strings) at request.metadata; nothing was written"
    )
    assert path.read_bytes() == kept


def test_a_key_beside_string_keys_is_named_when_the_fixture_is_made() -> None:
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with pytest.raises(CanonicalFormError) as caught:
        Fixture.create(_request({"b": 2, 7: 1}), [ANSWER], meta)
    assert str(caught.value) == (
        "cannot fingerprint request: key 7 is not a string (a JSON object's keys are strings) "
        "at metadata"
    )
