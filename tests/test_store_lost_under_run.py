"""A store that loses, while a recording runs, the fixture of a request the run sent
before (``git stash -u`` or a checkout taking the file away): the answer to its next send
is refused, where it was stored in the first send's place, a green recording whose store
no longer replayed the run ("recorded 1 time and sent 2 times")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import StoreWriteError
from replaygate.fixtures.session import FixtureSession, Repeat
from replaygate.fixtures.store import FixtureStore

REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "Pick a number."}],
}


def answer(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": REQUEST["model"],
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2},
    }  # fmt: skip


def record(session: FixtureSession, send: int, text: str) -> None:
    meta = session.meta("anthropic.messages", "2023-06-01", "sim")
    session.record(REQUEST, answer(text), Repeat(send), interface="anthropic.messages", meta=meta)


@pytest.mark.parametrize("mode", ["record-missing", "rerecord"])
def test_the_next_send_of_a_request_whose_fixture_the_store_lost_is_refused(
    tmp_path: Path, mode: str
) -> None:
    store = tmp_path / "t.jsonl"
    session = FixtureSession(store, mode=mode, approve_live=True, source="sim")
    record(session, 0, "number 1")
    store.unlink()  # git stash -u, while the test runs
    with pytest.raises(StoreWriteError) as caught:
        record(session, 1, "number 2")
    assert "cannot record the answer to send 2 of this request" in str(caught.value)
    assert "are no longer in the store, which was changed under the run" in str(caught.value)
    assert not store.exists()  # nothing written in the first send's place


def test_a_later_send_whose_earlier_one_was_never_stored_takes_the_first_place(
    tmp_path: Path,
) -> None:
    # an earlier send abandoned before its answer ended left nothing in the store
    store = tmp_path / "t.jsonl"
    record(FixtureSession(store, mode="record-missing", approve_live=True, source="sim"), 1, "x")
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1


def test_the_next_send_after_a_store_went_back_to_fewer_answers_is_refused(
    tmp_path: Path,
) -> None:
    # git stash took away the line of send 2: the store holds send 1's answer alone
    store = tmp_path / "t.jsonl"
    session = FixtureSession(store, mode="record-missing", approve_live=True, source="sim")
    record(session, 0, "number 1")
    committed = store.read_bytes()
    record(session, 1, "number 2")
    store.write_bytes(committed)
    with pytest.raises(StoreWriteError, match="cannot record the answer to send 3 of this"):
        record(session, 2, "number 3")
    assert store.read_bytes() == committed
