"""OpenAI's moderations (``POST /v1/moderations``), which agents call beside the model to
screen what a user or the model said: the simulator answered them 404 (``Invalid URL``),
so recording from it stopped with ``UnservedRouteError``.

The simulator scores each input low in every category, the same for the same input, and
flags a text holding ``[replaygate:flag CATEGORY]`` in that category."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate.http import intercept
from replaygate.sim import Simulator
from sdks import openai

FLAGGED = "I will find you [replaygate:flag harassment/threatening]"
IMAGE = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}


def moderated(base_url: str | None) -> list[Any]:
    client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=0)
    texts = client.moderations.create(model="omni-moderation-latest", input=["hello", FLAGGED])
    parts = client.moderations.create(input=[{"type": "text", "text": "look"}, IMAGE])
    again = client.moderations.create(model="omni-moderation-latest", input=["hello", FLAGGED])
    return [m.model_dump(by_alias=True) for m in (texts, parts, again)]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_moderations_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = moderated(sim.openai_base_url)
    texts, parts, again = recorded
    calm, threat = texts["results"]
    assert not calm["flagged"] and not any(calm["categories"].values())
    assert max(calm["category_scores"].values()) < 0.01
    assert threat["flagged"] and threat["category_scores"]["harassment/threatening"] == 0.9
    assert [k for k, v in threat["categories"].items() if v] == ["harassment/threatening"]
    assert parts["model"] == "omni-moderation-latest" and len(parts["results"]) == 1
    applied = parts["results"][0]["category_applied_input_types"]
    assert applied["violence"] == ["text", "image"] and applied["hate"] == ["text"]
    assert again["results"] == texts["results"] and again["id"] != texts["id"]
    with intercept(store) as exchange:
        assert moderated(None) == recorded
    assert exchange.replays == 3
    grown = tmp_path / "grown.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(grown, "record-missing", approve_live=True, source="sim"),
    ):
        openai.OpenAI(api_key="test", base_url=sim.openai_base_url).moderations.create(
            model="omni-moderation-latest", input=["hello", FLAGGED]
        )
    with (
        Simulator(behavior="echo") as sim,
        intercept(grown, "record-missing", approve_live=True, source="sim"),
    ):  # the first answer replayed counts as the simulator's: the third is a new id
        assert moderated(sim.openai_base_url) == recorded


@pytest.mark.parametrize(
    ("body", "param", "own"),
    [
        ({"model": "omni-moderation-latest"}, "input", False),
        ({"input": []}, "input", False),
        ({"input": 3}, "input", False),
        ({"input": [{"type": "audio"}]}, "input[0]", False),
        ({"input": [{"type": "image_url", "image_url": "x"}]}, "input[0].image_url", False),
        ({"model": "text-moderation-latest", "input": [IMAGE]}, "input", True),
    ],
)
def test_a_moderation_request_is_refused_as_the_api_refuses_it(
    sim: Simulator, body: dict[str, object], param: str, own: bool
) -> None:
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        client.post("/moderations", body=body, cast_to=object)
    assert refused.value.param == param, refused.value.body
    assert refused.value.response.json().get("replaygate_simulator_refusal", False) is own
