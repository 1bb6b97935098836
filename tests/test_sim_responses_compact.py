"""The Responses API's compaction (``POST /v1/responses/compact``), which the Agents SDK's
``OpenAIResponsesCompactionSession`` calls after a turn: the simulator answered it 404
(``Invalid URL``), so recording such a session stopped with ``UnservedRouteError``.

A compacted response holds the conversation's user messages, then one ``compaction`` item
standing for the rest; a later request gives them back as its input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate.http import intercept
from replaygate.sim import Simulator
from sdks import openai

MODEL = "gpt-4.1"


def compacted_then_continued(base_url: str | None) -> dict[str, Any]:
    client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=0)
    first = client.responses.create(model=MODEL, input="My name is Ada.")
    compacted = client.responses.compact(model=MODEL, previous_response_id=first.id)
    given = [item.model_dump(exclude_none=True, warnings=False) for item in compacted.output]
    also = client.responses.compact(model=MODEL, input=[*given, _user("Thanks.")])
    after = client.responses.create(model=MODEL, input=[*given, _user("Who am I?")])
    return {
        "object": compacted.object,
        "kinds": [item.type for item in compacted.output],
        "users": [item.content[0].text for item in compacted.output if item.type == "message"],
        "again": [item.type for item in also.output],
        "usage": compacted.usage.input_tokens > 0,
        "after": after.output_text,
    }


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_compaction_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = compacted_then_continued(sim.openai_base_url)
    assert recorded == {
        "object": "response.compaction",
        "kinds": ["message", "compaction"],
        "users": ["My name is Ada."],
        "again": ["message", "message", "compaction"],
        "usage": True,
        "after": "echo: Who am I?",
    }
    with intercept(store) as exchange:
        assert compacted_then_continued(None) == recorded
    assert exchange.replays == 4


def test_a_compaction_is_refused_as_the_api_refuses_it() -> None:
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
        with pytest.raises(openai.BadRequestError, match="resp_gone"):
            client.responses.compact(model=MODEL, previous_response_id="resp_gone")
        with pytest.raises(openai.BadRequestError, match="model"):
            client.post("/responses/compact", body={"input": "hi"}, cast_to=object)
        with pytest.raises(openai.BadRequestError, match="encrypted_content"):
            client.responses.create(model=MODEL, input=[{"type": "compaction", "id": "cmp_1"}])
