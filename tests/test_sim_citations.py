"""Citations from the simulator, through the official Anthropic SDK over loopback HTTP.

A request giving documents or search results with citations turned on was answered
with plain text, so the code of an agent reading ``block.citations`` (a RAG answer's
sources) never met a citation in a recording made from the simulator. Its final answer
now cites each source of the latest message giving any, as the API cites: by
characters in a plain-text document, by blocks in a document of custom content or a
search result, plain and streamed, and a recording of it replays offline.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.http import httpx2_client
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.network import block_network
from replaygate.sim import Simulator
from replaygate.sim.streaming import anthropic_events
from replaygate.stream_answers import messages_answer
from sdks import anthropic

MODEL = "claude-sonnet-4-6"
ON = {"enabled": True}
TEXT_DATA = "\n  The grass is green. The sky is blue."
TEXT_DOC = {
    "type": "document",
    "source": {"type": "text", "media_type": "text/plain", "data": TEXT_DATA},
    "title": "Nature",
    "citations": ON,
}
UNCITED_DOC = {  # counted among the documents, never cited
    "type": "document",
    "source": {"type": "text", "media_type": "text/plain", "data": "Not to be cited."},
}
CONTENT_DOC = {
    "type": "document",
    "source": {
        "type": "content",
        "content": [{"type": "text", "text": " "}, {"type": "text", "text": "Rain falls."}],
    },
    "citations": ON,
}
PDF_DOC = {
    "type": "document",
    "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
    "citations": ON,
}
SEARCH_RESULT = {
    "type": "search_result",
    "source": "https://docs.example/rag",
    "title": "RAG",
    "content": [{"type": "text", "text": "RAG grounds answers in documents."}],
    "citations": ON,
}
LOOKUP = {"name": "lookup", "input_schema": {"type": "object", "properties": {}}}


class SearchesOnce:
    """Calls the first tool offered on the first turn, then answers in words."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if tools and messages[-1].role != "tool":
            call = ToolCall(id="toolu_sim_1", name=tools[0].name, arguments={})
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        return ModelResponse(text="Here is what the sources say.")


@pytest.fixture(scope="module")
def claude() -> Iterator[Any]:
    with Simulator(behavior=SearchesOnce()) as sim:
        yield anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)


def _user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": [*blocks, {"type": "text", "text": "What do they say?"}]}


def _citations(message: Any) -> list[dict[str, Any]]:
    blocks = [b for b in message.content if b.type == "text"]
    return [c.model_dump() for b in blocks for c in (b.citations or [])]


def test_each_kind_of_source_is_cited_where_its_passage_stands(claude: Any) -> None:
    message = claude.messages.create(
        model=MODEL,
        max_tokens=300,
        messages=[_user(UNCITED_DOC, TEXT_DOC, CONTENT_DOC, SEARCH_RESULT)],
    )
    char, block, result = _citations(message)
    assert char["type"] == "char_location"
    assert char["document_index"] == 1 and char["document_title"] == "Nature"
    assert char["cited_text"] == "The grass is green."
    assert TEXT_DATA[char["start_char_index"] : char["end_char_index"]] == char["cited_text"]
    assert block["type"] == "content_block_location"
    assert (block["document_index"], block["start_block_index"], block["end_block_index"]) == (
        2,
        1,
        2,
    )
    assert block["cited_text"] == "Rain falls."
    assert result["type"] == "search_result_location" and result["search_result_index"] == 0
    assert (result["source"], result["title"]) == ("https://docs.example/rag", "RAG")
    assert result["cited_text"] == "RAG grounds answers in documents."


def test_a_streamed_answer_holds_the_same_citations_each_as_an_event(claude: Any) -> None:
    asked = {"model": MODEL, "max_tokens": 300, "messages": [_user(TEXT_DOC, SEARCH_RESULT)]}
    whole = claude.messages.create(**asked)
    with claude.messages.stream(**asked) as stream:
        events = [event.citation.type for event in stream if event.type == "citation"]
        streamed = stream.get_final_message()
    assert events == ["char_location", "search_result_location"]
    assert _citations(streamed) == _citations(whole)
    assert streamed.content[0].text == whole.content[0].text


def test_the_stream_s_events_put_back_together_give_the_cited_message() -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": "x" * 60, "citations": [{"type": "char_location"}]}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    events = [{"event": e.event, "data": e.data} for e in anthropic_events(message)]
    assert messages_answer(events) == message


def test_search_results_in_a_tool_s_result_are_cited_in_the_answer(claude: Any) -> None:
    asked = [{"role": "user", "content": "Look it up."}]
    first = claude.messages.create(model=MODEL, max_tokens=300, messages=asked, tools=[LOOKUP])
    assert first.stop_reason == "tool_use" and not _citations(first)  # a call cites nothing
    result = {"type": "tool_result", "tool_use_id": first.content[0].id, "content": [SEARCH_RESULT]}
    answer = claude.messages.create(
        model=MODEL,
        max_tokens=300,
        tools=[LOOKUP],
        messages=[
            *asked,
            {"role": "assistant", "content": first.to_dict()["content"]},
            {"role": "user", "content": [result]},
        ],
    )
    assert [c["cited_text"] for c in _citations(answer)] == ["RAG grounds answers in documents."]


def test_the_latest_message_giving_sources_is_the_one_cited(claude: Any) -> None:
    first = claude.messages.create(model=MODEL, max_tokens=300, messages=[_user(TEXT_DOC)])
    then = [_user(TEXT_DOC), {"role": "assistant", "content": first.to_dict()["content"]}]
    follow_up = claude.messages.create(
        model=MODEL, max_tokens=300, messages=[*then, {"role": "user", "content": "And?"}]
    )
    assert [c["cited_text"] for c in _citations(follow_up)] == ["The grass is green."]
    newer = claude.messages.create(
        model=MODEL, max_tokens=300, messages=[*then, _user(SEARCH_RESULT)]
    )
    assert [c["type"] for c in _citations(newer)] == ["search_result_location"]


def test_no_citation_without_a_source_turned_on_or_one_the_simulator_reads(claude: Any) -> None:
    for given in (UNCITED_DOC, PDF_DOC):
        message = claude.messages.create(model=MODEL, max_tokens=300, messages=[_user(given)])
        assert message.content[0].citations is None


def test_citations_beside_structured_output_are_refused(claude: Any) -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    output = {"format": {"type": "json_schema", "schema": schema}}
    with pytest.raises(anthropic.BadRequestError, match="structured output"):
        claude.messages.create(
            model=MODEL, max_tokens=300, messages=[_user(TEXT_DOC)], output_config=output
        )
    claude.messages.create(
        model=MODEL, max_tokens=300, messages=[_user(UNCITED_DOC)], output_config=output
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_cited_answer_records_from_the_simulator_and_replays_offline(tmp_path: Path) -> None:
    store = tmp_path / "cited.jsonl"
    asked = {"model": MODEL, "max_tokens": 300, "messages": [_user(TEXT_DOC, CONTENT_DOC)]}

    def both(client: Any) -> list[list[dict[str, Any]]]:
        with client.messages.stream(**asked) as stream:
            streamed = stream.get_final_message()
        return [_citations(client.messages.create(**asked)), _citations(streamed)]

    with Simulator(behavior=SearchesOnce()) as sim:
        recording = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        recorded = both(anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=recording))
    assert recorded[0] and recorded[0] == recorded[1]
    with block_network():
        replayed = both(anthropic.Anthropic(api_key="k", http_client=httpx2_client(store)))
    assert replayed == recorded
