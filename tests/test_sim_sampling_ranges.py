"""The simulator refuses a sampling setting out of the range the API takes it in, as the API
does: OpenAI's ``temperature`` above 2, ``top_p`` above 1, a penalty beyond 2, each a
``400`` naming the parameter with the API's code; and the Messages API's ``temperature``
or ``top_p`` above 1, which OpenAI takes, refused as the simulator's own error. It answered
them all, so a recording made from it passed and the same code failed live."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from replaygate.http.routes import simulator_refusal
from replaygate.sim import Simulator

OPENAI = {"authorization": "Bearer k"}
ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
CHAT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
RESPONSES = {"model": "gpt-4o", "input": "hi"}
MESSAGES = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


def _post(sim: Simulator, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return httpx2.post(f"{sim.url}{path}", json=body, headers=headers)


@pytest.mark.parametrize(
    ("path", "body", "name", "value", "message", "code"),
    [
        ("/v1/chat/completions", CHAT, "temperature", 2.5,
         "decimal above maximum value. Expected a value <= 2, but got 2.5", "above_max"),
        ("/v1/chat/completions", CHAT, "top_p", -0.5,
         "decimal below minimum value. Expected a value >= 0, but got -0.5", "below_min"),
        ("/v1/chat/completions", CHAT, "presence_penalty", 3,
         "decimal above maximum value. Expected a value <= 2, but got 3", "above_max"),
        ("/v1/chat/completions", CHAT, "frequency_penalty", -2.5,
         "decimal below minimum value. Expected a value >= -2, but got -2.5", "below_min"),
        ("/v1/responses", RESPONSES, "temperature", 2.5,
         "decimal above maximum value. Expected a value <= 2, but got 2.5", "above_max"),
        ("/v1/responses", RESPONSES, "top_p", 1.5,
         "decimal above maximum value. Expected a value <= 1, but got 1.5", "above_max"),
    ],
)  # fmt: skip
def test_an_openai_setting_out_of_its_range_is_refused_naming_it(
    sim: Simulator,
    path: str,
    body: dict[str, Any],
    name: str,
    value: float,
    message: str,
    code: str,
) -> None:
    refused = _post(sim, path, {**body, name: value}, OPENAI)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == {
        "message": f"Invalid '{name}': {message} instead.",
        "type": "invalid_request_error",
        "param": name,
        "code": f"decimal_{code}_value",
    }


def test_a_setting_that_is_no_number_is_refused_with_its_type(sim: Simulator) -> None:
    refused = _post(sim, "/v1/chat/completions", {**CHAT, "temperature": "hot"}, OPENAI)
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["param"], error["code"]) == ("temperature", "invalid_type")
    assert error["message"] == (
        "Invalid type for 'temperature': expected a decimal, but got a string instead."
    )


def test_the_ends_of_each_range_are_answered(sim: Simulator) -> None:
    for path, body in (("/v1/chat/completions", CHAT), ("/v1/responses", RESPONSES)):
        for settings in ({"temperature": 2, "top_p": 0}, {"temperature": 0, "top_p": 1}):
            answered = _post(sim, path, {**body, **settings}, OPENAI)
            assert answered.status_code == 200, (path, settings, answered.text)
    edges = {"frequency_penalty": -2, "presence_penalty": 2}
    assert _post(sim, "/v1/chat/completions", {**CHAT, **edges}, OPENAI).status_code == 200
    for settings in ({"temperature": 1, "top_p": 0}, {"temperature": 0.0, "top_p": 1.0}):
        answered = _post(sim, "/v1/messages", {**MESSAGES, **settings}, ANTHROPIC)
        assert answered.status_code == 200, (settings, answered.text)


@pytest.mark.parametrize(("name", "value"), [("temperature", 1.5), ("top_p", -0.1)])
def test_a_messages_setting_out_of_0_to_1_is_the_simulators_own_refusal(
    sim: Simulator, name: str, value: float
) -> None:
    refused = _post(sim, "/v1/messages", {**MESSAGES, name: value}, ANTHROPIC)
    assert refused.status_code == 400 and refused.headers["x-should-retry"] == "false"
    said = simulator_refusal({"body": refused.json()})
    assert said == (
        f"{name}: {value} is outside the range the Messages API takes, 0 to 1 (the "
        "simulator's wording: the API refuses it with its own)"
    )
