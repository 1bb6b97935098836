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
