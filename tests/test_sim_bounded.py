"""The simulator's server-held state is bounded: each store keeps its most recent
entries and forgets the oldest first (a long-running simulator does not grow)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.models.types import Message
from replaygate.sim.bounded import Bounded, beside
from replaygate.sim.conversations import Conversations
from replaygate.sim.endpoints import Threads
from replaygate.sim.openai_conversations import ConversationStore


def _thread_body(previous: str | None = None) -> dict[str, object]:
    thread = (
        {"type": "continue", "previous_message_id": previous} if previous else {"type": "create"}
    )
    return {
        "model": "m",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "hi"}],
        "thread": thread,
    }


_SERVED = itertools.count(1)


def _hold(threads: Threads, previous: str | None = None) -> str:
    body = _thread_body(previous)
    wire = {
        "id": f"msg_sim_thread_{next(_SERVED):04d}",
        "content": [{"type": "text", "text": "ok"}],
    }
    threads.hold(body, wire)
    return str(wire["id"])


def test_threads_forget_the_oldest_beyond_their_limit() -> None:
    threads = Threads(limit=2)
    first, second, third = _hold(threads), _hold(threads), _hold(threads)
    _, problem = threads.resolve(_thread_body(first))
    assert problem is not None and problem.status == 404
    assert first in problem.message
    for kept in (second, third):
        whole, problem = threads.resolve(_thread_body(kept))
        assert problem is None
        assert len(whole["messages"]) == 3  # the held turn, its answer, the new turn


def test_a_forgotten_thread_is_no_longer_counted_as_continued() -> None:
    threads = Threads(limit=1)
    first = _hold(threads)
    second = _hold(threads, previous=first)  # continues the first, then forgets it
    _, problem = threads.resolve(_thread_body(first))
    assert problem is not None and problem.code == "thread_not_found"
    _, problem = threads.resolve(_thread_body(second))
    assert problem is None


def test_conversation_store_forgets_the_least_recently_added_to() -> None:
    kept = ConversationStore(limit=2)
    a = kept.create([], None)["id"]
    b = kept.create([], None)["id"]
    kept.add(a, [{"role": "user", "content": "again"}])  # a is now the most recent
    c = kept.create([], None)["id"]
    assert not kept.held(b)
    assert kept.held(a) and kept.held(c)
    assert [i["content"][0]["text"] for i in kept.items(a)] == ["again"]
    status, body = kept.answer("GET", f"/v1/conversations/{b}", "", None)
    assert status == 404 and b in body["error"]["message"]


def test_conversations_refresh_a_response_remembered_again() -> None:
    kept = Conversations(limit=2)
    kept.remember("resp_0", [Message.user("0")])
    kept.remember("resp_1", [Message.user("1")])
    kept.remember("resp_0", [Message.user("0 again")])
    kept.remember("resp_2", [Message.user("2")])
    assert kept.history("resp_1") is None
    assert kept.history("resp_0") == (Message.user("0 again"),)


@pytest.mark.parametrize("limit", [0, -1])
@pytest.mark.parametrize("kind", [Conversations, Threads, ConversationStore])
def test_a_limit_below_one_is_refused(kind: type[object], limit: int) -> None:
    with pytest.raises(ValueError, match=f"limit must be at least 1, not {limit}"):
        kind(limit=limit)  # type: ignore[call-arg]


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=30))
def test_a_cursor_deleted_since_still_places_the_page_after_it(
    steps: list[tuple[bool, int]],
) -> None:
    """A list's cursor naming an entry deleted since (a loop deleting each entry of a page
    before asking for the next) was a page of nothing: the entries put before it, kept,
    are the page after it, as an API's list pages on."""
    kept: Bounded[dict[str, str]] = Bounded(limit=4)
    order: list[str] = []  # the keys put and not forgotten, in the order put
    for deleting, n in steps:
        key = f"k{n}"
        if deleting and key in kept:
            del kept[key]
        elif not deleting and key not in kept:
            kept.put(key, {"id": key})
            order = [k for k in order if k != key] + [key]
    held = [k for k in order if k in kept]
    for cursor in order:
        if kept.place(cursor) is None:
            continue  # forgotten beyond the limit
        at = order.index(cursor)
        newest = [{"id": k} for k in reversed(held)]
        older = [item["id"] for item in beside(newest, kept.place, cursor, newer=False)]
        assert older == [k for k in reversed(order[:at]) if k in kept]
        newer = [item["id"] for item in beside(newest, kept.place, cursor, newer=True)]
        assert newer == [k for k in reversed(order[at + 1 :]) if k in kept]
    assert beside([{"id": "k0"}], kept.place, "never", newer=False) == []
