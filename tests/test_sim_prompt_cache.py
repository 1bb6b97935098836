"""The simulator answers a Messages request's usage with the prompt cache's counts the API
sends, at 0 (it keeps no cache), and refuses more than four ``cache_control`` blocks as
the API does. Its usage had input and output tokens only: code summing
``usage.cache_read_input_tokens`` got None from a recording made from it, where the live
API gives a number, and a request the API refuses for its breakpoints was recorded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from replaygate.sim import Simulator
from sdks import anthropic

CACHED = {"type": "ephemeral"}


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with Simulator(behavior="echo") as sim:
        yield anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)


def _ask(marked: int) -> dict[str, Any]:
    """A request with ``marked`` blocks holding ``cache_control``: system blocks, then a
    tool result's inner block, then a tool."""
    system = [{"type": "text", "text": f"rule {i}", "cache_control": CACHED} for i in range(3)]
    tool = {"name": "look", "description": "Look.", "input_schema": {"type": "object"},
            "cache_control": CACHED}  # fmt: skip
    inner = {"type": "text", "text": "found", "cache_control": CACHED}
    call = {"type": "tool_use", "id": "t1", "name": "look", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [inner]}
    messages = [
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]
    marks = [*system, inner, tool]
    for block in marks[marked:]:
        block.pop("cache_control", None)
    return {"model": "m", "max_tokens": 64, "system": system, "tools": [tool], "messages": messages}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_the_usage_holds_the_cache_s_counts_at_zero(client: Any, stream: bool) -> None:
    if stream:
        with client.messages.stream(**_ask(4)) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**_ask(4))
    usage = message.usage
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)
    assert usage.cache_creation.ephemeral_5m_input_tokens == 0
    assert usage.cache_creation.ephemeral_1h_input_tokens == 0
    assert usage.input_tokens > 0 and usage.output_tokens > 0


def test_a_stream_s_last_usage_holds_the_input_and_cache_counts(client: Any) -> None:
    # the message_delta event held output_tokens alone: LangChain's ChatAnthropic, which
    # reads that event's usage and not message_start's, streamed input_tokens 0
    whole = client.messages.create(**_ask(1))
    with client.messages.create(**_ask(1), stream=True) as events:
        (last,) = [event for event in events if event.type == "message_delta"]
    usage = last.usage
    assert (usage.input_tokens, usage.output_tokens) == (
        whole.usage.input_tokens,
        whole.usage.output_tokens,
    )
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)


@pytest.mark.parametrize("count", [False, True], ids=["create", "count_tokens"])
def test_a_fifth_cache_control_block_is_refused_as_the_api_refuses_it(
    client: Any, count: bool
) -> None:
    call = client.messages.count_tokens if count else client.messages.create
    request = _ask(5)
    if count:
        request.pop("max_tokens")
    with pytest.raises(anthropic.BadRequestError) as refused:
        call(**request)
    assert refused.value.status_code == 400
    assert refused.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    }


def _marked_ttls(*ttls: str | None) -> dict[str, Any]:
    """A request whose tool, system block and user text are marked with ``ttls`` in turn
    (``None``: no ``ttl``, the API's 5 minutes)."""
    tool, system, text = (
        {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl} for ttl in ttls
    )
    return {
        "model": "m",
        "max_tokens": 64,
        "tools": [{"name": "look", "input_schema": {"type": "object"}, "cache_control": tool}],
        "system": [{"type": "text", "text": "rule", "cache_control": system}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": text}]}
        ],
    }


def test_a_cache_ttl_the_api_refuses_is_refused_not_answered(client: Any) -> None:
    """A ttl the API does not know ('2h', '1hr'), or a 1h mark after a 5m one, was answered
    and recorded, and the recording failed on its first live request."""
    client.messages.create(**_marked_ttls("1h", "1h", None))  # longest first: taken
    with pytest.raises(anthropic.BadRequestError) as unknown:
        client.messages.create(**_marked_ttls(None, "2h", None))
    error = unknown.value.body
    assert error["replaygate_simulator_refusal"] is True
    assert error["error"]["message"].startswith(
        "system.0.cache_control.ttl: '2h' is not a lifetime the Messages API takes ('1h' or '5m')"
    )
    with pytest.raises(anthropic.BadRequestError) as automatic:
        client.messages.create(**{**_marked_ttls("1h", None, None), "cache_control": {
            "type": "ephemeral", "ttl": "1hr"}})  # fmt: skip
    assert automatic.value.body["error"]["message"].startswith("cache_control.ttl: '1hr' is not")
    counted = _marked_ttls("5m", None, "1h")
    counted.pop("max_tokens")
    with pytest.raises(anthropic.BadRequestError) as late:
        client.messages.count_tokens(**counted)
    assert late.value.body["error"]["message"].startswith(
        "messages.0.content.0.cache_control.ttl: '1h' comes after the shorter '5m' of tools.0;"
    )


@pytest.mark.parametrize(
    ("mark", "said"),
    [
        ("ephemeral", "system.0.cache_control: 'ephemeral' is not an object;"),
        ({"type": "persistent"}, "system.0.cache_control.type: 'persistent' is not a cache"),
        ({"ttl": "1h"}, "system.0.cache_control.type: None is not a cache_control type"),
    ],
    ids=["text", "other-type", "no-type"],
)
def test_a_cache_mark_of_no_type_the_api_takes_is_refused(
    client: Any, mark: Any, said: str
) -> None:
    """A mark given as the text "ephemeral", or of another type, was answered as if cached
    and recorded, and the recording failed on its first live request."""
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(**{**_marked_ttls(None, None, None), "system": [
            {"type": "text", "text": "rule", "cache_control": mark}]})  # fmt: skip
    assert refused.value.body["replaygate_simulator_refusal"] is True
    assert refused.value.body["error"]["message"].startswith(said)
