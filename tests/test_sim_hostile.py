"""The simulator answering malformed and hostile requests over real loopback HTTP: a 4xx
naming what is wrong and where, as the real APIs do, never a 200 or a Python repr."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from replaygate.sim import Simulator
from sdks import anthropic

ANTHROPIC = {"x-api-key": "test", "content-type": "application/json"}
OPENAI = {"authorization": "Bearer test", "content-type": "application/json"}


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo") as simulator:
        yield simulator


def post(
    sim: Simulator, path: str, body: Any, headers: dict[str, str] = ANTHROPIC
) -> tuple[int, Any]:
    """POST ``body`` (JSON unless bytes); the status and the JSON body of the answer."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        conn.request("POST", path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def anthropic_message(sim: Simulator, content: Any, **fields: Any) -> tuple[int, str]:
    """The status and error message of a Messages request with one user message."""
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": content}]}
    status, answer = post(sim, "/v1/messages", {**body, **fields})
    return status, answer.get("error", {}).get("message", "")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"type": "image"}, "messages.0.content.0.image.source: Field required"),
        (
            {"type": "image", "source": "x.png"},
            "messages.0.content.0.image.source: Input should be a valid dictionary",
        ),
        ({"type": "document"}, "messages.0.content.0.document.source: Field required"),
        ({"type": "text"}, "messages.0.content.0.text.text: Field required"),
        (
            {"type": "text", "text": 5},
            "messages.0.content.0.text.text: Input should be a valid string",
        ),
        (
            {"type": "tool_result"},
            "messages.0.content.0.tool_result.tool_use_id: Field required",
        ),
        ("not a block", "messages.0.content.0: Input should be a valid dictionary or object"),
    ],
)
def test_anthropic_content_blocks_missing_their_fields_are_refused(
    sim: Simulator, block: Any, message: str
) -> None:
    assert anthropic_message(sim, [block]) == (400, message)


def test_anthropic_tool_use_without_id_name_or_input_is_refused(sim: Simulator) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}
    for missing in ("id", "name", "input"):
        partial = {k: v for k, v in call.items() if k != missing}
        messages = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [partial]},
        ]
        body = {"model": "m", "max_tokens": 10, "messages": messages}
        status, answer = post(sim, "/v1/messages", body)
        assert status == 400
        assert answer["error"] == {
            "type": "invalid_request_error",
            "message": f"messages.1.content.0.tool_use.{missing}: Field required",
        }


def test_anthropic_unknown_block_kind_is_refused(sim: Simulator) -> None:
    status, message = anthropic_message(sim, [{"type": "hologram"}])
    assert status == 400
    assert message.startswith(
        "messages.0.content.0: Input tag 'hologram' found using 'type' does not match any of "
        "the expected tags: 'text', 'image', 'document'"
    )


def test_anthropic_sdk_image_without_source_is_a_bad_request(sim: Simulator) -> None:
    client = anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="m",
            max_tokens=10,
            messages=[{"role": "user", "content": [{"type": "image"}]}],  # type: ignore[typeddict-item]
        )
    assert caught.value.status_code == 400
    assert "messages.0.content.0.image.source: Field required" in str(caught.value)
