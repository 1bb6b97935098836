"""Chat Completions' ``n``: the real API answers ``n`` choices (indexes 0 to n-1, each a
draw of its own, streamed under their indexes, their tokens counted together); the
simulator answered one whatever ``n`` asked, so LangChain's ``ChatOpenAI(n=3)`` or
LiteLLM's ``n=3`` got one generation recorded where the API gives three."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.sim import Simulator
from sdks import openai

ASK = [{"role": "user", "content": "Name a colour."}]


class Counting:
    """Answers with how many answers it gave before (a stand-in for a sampled model)."""

    def __init__(self) -> None:
        self.given = 0

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.given += 1
        return ModelResponse(text=f"colour number {self.given}")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=Counting()) as running:
        yield running


def _client(sim: Simulator) -> Any:
    return openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)


def test_n_choices_are_answered_each_a_draw_of_its_own(sim: Simulator) -> None:
    one = _client(sim).chat.completions.create(model="gpt-4o", messages=ASK)
    three = _client(sim).chat.completions.create(model="gpt-4o", messages=ASK, n=3)
    assert [c.index for c in three.choices] == [0, 1, 2]
    assert len({c.message.content for c in three.choices}) == 3
    assert three.usage.prompt_tokens == one.usage.prompt_tokens
    outputs = sum(len(c.message.content or "") for c in three.choices)
    assert three.usage.completion_tokens >= outputs // 4 > one.usage.completion_tokens


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_n_choices_stream_under_their_indexes_and_record(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"

    def streamed(base_url: str | None) -> dict[int, str]:
        client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=0)
        texts: dict[int, str] = {}
        for chunk in client.chat.completions.create(model="gpt-4o", messages=ASK, n=2, stream=True):
            for choice in chunk.choices:
                texts[choice.index] = texts.get(choice.index, "") + (choice.delta.content or "")
        return texts

    with (
        Simulator(behavior="echo") as echo,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = streamed(echo.openai_base_url)
    assert recorded == {0: "echo: Name a colour.", 1: "echo: Name a colour."}
    with intercept(store):
        assert streamed(None) == recorded


@pytest.mark.parametrize("n", [0, 129, "2", True])
def test_an_n_out_of_range_is_refused(sim: Simulator, n: object) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _client(sim).post(
            "/chat/completions", body={"model": "gpt-4o", "messages": ASK, "n": n}, cast_to=object
        )
    assert refused.value.param == "n"
