"""OpenAI's embeddings (``POST /v1/embeddings``), which agents that retrieve call beside
the model (LangChain's ``OpenAIEmbeddings``, LiteLLM's ``embedding``): the simulator
answered them 404 (``Invalid URL``), so recording stopped with ``UnservedRouteError``.

The simulator's vectors are unit length, of the model's size (or ``dimensions``), the same
for the same text, and as floats or base64 as asked (the openai SDK asks for base64)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from replaygate.http import intercept
from replaygate.sim import Simulator
from sdks import openai

TEXTS = ["keep-alive connections", "persistent connections", "keep-alive connections"]


@dataclass(frozen=True)
class Embedded:
    sizes: list[int]
    indexes: list[int]
    vectors: list[list[float]]
    short: list[float]
    usage: tuple[int, int]


def embedded(base_url: str | None) -> Embedded:
    client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=0)
    default = client.embeddings.create(model="text-embedding-3-small", input=TEXTS)
    floats = client.embeddings.create(
        model="text-embedding-3-small", input="one", encoding_format="float", dimensions=8
    )
    return Embedded(
        sizes=[len(e.embedding) for e in default.data],
        indexes=[e.index for e in default.data],
        vectors=[e.embedding for e in default.data],
        short=floats.data[0].embedding,
        usage=(default.usage.prompt_tokens, default.usage.total_tokens),
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_embeddings_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    """The openai SDK asks for base64 vectors, which the secret scan also refused as a
    high-entropy token (``response.body.data[0].embedding``): recording embeddings from
    the real API failed the same way."""
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = embedded(sim.openai_base_url)
    assert recorded.sizes == [1536, 1536, 1536]
    assert recorded.indexes == [0, 1, 2]
    first, other, same = recorded.vectors
    assert first == same and first != other
    assert math.isclose(sum(x * x for x in first), 1.0, rel_tol=1e-5)
    assert len(recorded.short) == 8
    assert recorded.usage[0] == recorded.usage[1] > 0
    with intercept(store) as exchange:
        assert embedded(None) == recorded
    assert exchange.replays == 2


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"input": "x"}, "model"),
        ({"model": "text-embedding-3-small"}, "input"),
        ({"model": "text-embedding-3-small", "input": ""}, "input"),
        ({"model": "text-embedding-3-small", "input": [""]}, "input"),
        (
            {"model": "text-embedding-3-small", "input": "x", "encoding_format": "hex"},
            "encoding_format",
        ),
        ({"model": "text-embedding-3-small", "input": "x", "dimensions": 0}, "dimensions"),
        ({"model": "text-embedding-ada-002", "input": "x", "dimensions": 8}, "dimensions"),
        ({"model": "text-embedding-3-small", "input": "x", "dimensions": 2_000_000}, "dimensions"),
    ],
)
def test_an_embeddings_request_is_refused_as_the_api_refuses_it(
    sim: Simulator, body: dict[str, object], param: str | None
) -> None:
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        client.post("/embeddings", body=body, cast_to=object)
    assert refused.value.status_code == 400
    assert refused.value.param == param, refused.value.body
