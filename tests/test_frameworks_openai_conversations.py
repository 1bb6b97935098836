"""The OpenAI Conversations API (``/v1/conversations``), as the Agents SDK's
``OpenAIConversationsSession`` uses it to keep a conversation's items on the server:
served by the simulator, recorded from it and replayed offline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.http import intercept
from replaygate.http.envelope import is_model_api
from replaygate.sim import Simulator
from sdks import openai

QUESTION = "Name one benefit of keep-alive connections."
CHANGED = "Name one benefit of persistent connections."


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def session(base_url: str | None, question: str = QUESTION) -> dict[str, Any]:
    """What the session does in one run: make a conversation, add the turn's items, read
    them back (newest first, a page at a time, as the session reads), remove the last,
    update its metadata, delete the conversation; and a response that continues the
    conversation by its id."""

    async def main() -> dict[str, Any]:
        client = openai.AsyncOpenAI(api_key="test", base_url=base_url, max_retries=2)
        conversation = await client.conversations.create(items=[user(question)])
        await client.conversations.items.create(
            conversation.id, items=[user("And another?"), user("One more.")]
        )
        texts = [
            item.content[0].text
            async for item in client.conversations.items.list(
                conversation.id, limit=2, order="desc"
            )
        ]
        reply = await client.responses.create(
            model="gpt-sim-1", input="Go on.", conversation=conversation.id
        )
        listed = await client.conversations.items.list(conversation.id, order="asc")
        kinds = [(item.type, getattr(item, "role", None)) for item in listed.data]
        last = listed.data[-1].id
        await client.conversations.items.delete(last, conversation_id=conversation.id)
        after = await client.conversations.items.list(conversation.id)
        await client.conversations.update(conversation.id, metadata={"topic": "http"})
        kept = await client.conversations.retrieve(conversation.id)
        deleted = await client.conversations.delete(conversation.id)
        return {
            "metadata": kept.metadata,
            "texts": texts,
            "reply": reply.output_text,
            "kinds": kinds,
            "after_delete": len(after.data),
            "deleted": deleted.deleted,
        }

    return asyncio.run(main())


@pytest.mark.slow  # a whole flow: recorded from the simulator, then replayed
def test_a_conversation_s_items_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    """The simulator answered every ``/v1/conversations`` route 404 (``Invalid URL``),
    so recording stopped with ``UnservedRouteError``; a response naming a conversation
    was answered as if it had none."""
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = session(sim.openai_base_url)
    assert recorded == {
        "metadata": {"topic": "http"},  # an update was answered 405, and stored so
        "texts": ["One more.", "And another?", QUESTION],
        "reply": "echo: Go on.",
        "kinds": [("message", "user")] * 4 + [("message", "assistant")],
        "after_delete": 4,
        "deleted": True,
    }
    with intercept(store):
        assert session(None) == recorded
    with intercept(store) as exchange, pytest.raises(FixtureMismatchError, match="persistent"):
        session(None, CHANGED)
    assert exchange.sent == 1


def test_an_unknown_conversation_is_not_found() -> None:
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
        with pytest.raises(openai.NotFoundError, match="conv_unknown"):
            client.responses.create(model="gpt-sim-1", input="hi", conversation="conv_unknown")
        with pytest.raises(openai.NotFoundError, match="conv_unknown"):
            client.conversations.items.list("conv_unknown")


def test_a_conversation_and_a_previous_response_together_are_refused() -> None:
    # answered, the turn took the previous response's history and was added to the
    # conversation, two histories the API never lets one request name
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
        conversation = client.conversations.create()
        first = client.responses.create(model="gpt-sim-1", input="hi")
        for named in (conversation.id, "conv_unknown"):  # refused before it is looked up
            with pytest.raises(openai.BadRequestError, match="Mutually exclusive") as refused:
                client.responses.create(
                    model="gpt-sim-1",
                    input="again",
                    conversation=named,
                    previous_response_id=first.id,
                )
            assert refused.value.param is None


def test_a_null_conversation_is_none_and_a_conversation_of_another_type_is_refused() -> None:
    """The SDK's ``conversation`` is ``Optional``: ``conversation=None`` sends
    ``"conversation": null``, which the API reads as no conversation (the simulator refused
    it as a conversation of the wrong type, and let JSON mode pass without the word "json"
    as if the conversation held it)."""
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
        first = client.responses.create(model="gpt-sim-1", input="hi", conversation=None)
        later = client.responses.create(
            model="gpt-sim-1", input="again", conversation=None, previous_response_id=first.id
        )
        assert (first.output_text, later.output_text) == ("echo: hi", "echo: again")
        assert later.conversation is None
        with pytest.raises(openai.BadRequestError, match="json"):
            client.responses.create(
                model="gpt-sim-1",
                input="hi",
                conversation=None,
                text={"format": {"type": "json_object"}},
            )
        with pytest.raises(openai.BadRequestError, match="Invalid type for 'conversation'"):
            client.responses.create(model="gpt-sim-1", input="hi", conversation=42)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/conversations",
        "/v1/conversations/conv_1",
        "/v1/conversations/conv_1/items?limit=2&order=desc",
        "/v1/conversations/conv_1/items/item_1",
    ],
)
def test_the_conversations_api_is_a_model_api_the_simulator_answers(path: str) -> None:
    """Recording with ``--replaygate-simulator``, a client built for api.openai.com sends
    a model API's paths to the simulator: the Conversations API's went to the real host
    (refused, the network blocked), so an Agents SDK session could not record."""
    assert is_model_api(path)
    assert not is_model_api("/v1/conversationsx")


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_conversation_not_found_records_and_replays(tmp_path: Path) -> None:
    """The 404 of a conversation the server does not hold is an API error about a
    resource, as a previous response's is: recording it stopped with
    ``UnservedRouteError`` (read as the 404 of a route no server serves), so a test of
    what the code does with a deleted conversation could not record."""
    store = tmp_path / "fixtures.jsonl"

    def missing(base_url: str | None) -> list[str]:
        client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=0)
        said = []
        for call in (
            lambda: client.conversations.retrieve("conv_gone"),
            lambda: client.conversations.items.list("conv_gone"),
        ):
            with pytest.raises(openai.NotFoundError) as caught:
                call()
            said.append(str(caught.value))
        return said

    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = missing(sim.openai_base_url)
    assert all("conv_gone" in text for text in recorded), recorded
    with intercept(store) as exchange:
        assert missing(None) == recorded
    assert exchange.replays == 2
