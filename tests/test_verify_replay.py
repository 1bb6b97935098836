"""verify reads a plain Messages API response without its converter, and finds exactly
what the converter finds in any response."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replaygate.errors import WireFormatError
from replaygate.hygiene.verify_replay import ANTHROPIC_READER, plain_anthropic, response_problems
from replaygate.models.providers import INTERFACES, to_anthropic_response
from replaygate.models.types import ModelResponse, ToolCall, Usage
from unicode_text import unicode_text

_CONVERTER = INTERFACES["anthropic.messages"]
_odd = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False),
    unicode_text(max_size=3),
    st.lists(st.none(), max_size=1),
    st.dictionaries(st.just("a"), st.none(), max_size=1),
)
_block = st.one_of(
    st.builds(lambda text: {"type": "text", "text": text}, unicode_text(max_size=5)),
    st.builds(
        lambda name, args: {"type": "tool_use", "id": "toolu_1", "name": name, "input": args},
        unicode_text(max_size=3),
        st.dictionaries(unicode_text(max_size=2), st.integers(), max_size=2),
    ),
    st.sampled_from([{"type": "thinking", "thinking": "..."}, {"type": ""}]).map(dict),
)
_STOPS = ["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn", "x"]


@st.composite
def _response(draw: st.DrawFn) -> dict[str, Any]:
    """A Messages API response, then up to three of its fields replaced or left out."""
    response: dict[str, Any] = {
        "id": "msg_1",
        "content": draw(st.lists(_block, max_size=4)),
        "stop_reason": draw(st.sampled_from(_STOPS)),
        "usage": {"input_tokens": draw(st.integers(0, 9)), "output_tokens": 3},
    }
    for _ in range(draw(st.integers(0, 3))):
        blocks = response.get("content")
        places = [response, response.get("usage"), *(blocks if isinstance(blocks, list) else ())]
        place = draw(st.sampled_from([p for p in places if isinstance(p, dict) and p]))
        name = draw(st.sampled_from(sorted(place)))
        if draw(st.booleans()):
            del place[name]
        else:
            place[name] = draw(_odd)
    return response


def _converter_problems(response: dict[str, Any]) -> list[str]:
    try:
        _CONVERTER.from_response(response)
    except WireFormatError as err:
        return [f"response is not a valid anthropic.messages response: {err.path}: {err.reason}"]
    return []


@settings(deadline=None)
@given(_response())
def test_the_plain_path_finds_what_the_converter_finds(response: dict[str, Any]) -> None:
    found = list(response_problems(response, "response", ANTHROPIC_READER))
    assert found == _converter_problems(response)
    if plain_anthropic(response):
        assert not found


def test_a_recorded_response_takes_the_plain_path() -> None:
    answer = ModelResponse(
        text="An answer.",
        tool_calls=(ToolCall("toolu_1", "search", {"q": "x"}),),
        stop_reason="tool_use",
        usage=Usage(5, 7),
    )
    assert plain_anthropic(to_anthropic_response(answer, model="claude-x"))
    assert not plain_anthropic({"content": [{"type": "text", "text": 1}]})
