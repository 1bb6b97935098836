"""Gemini as a team using the ``google-genai`` SDK meets it: every finish reason the API
sends is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Message
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import make_meta
from replaygate.models.providers import from_gemini_response, get_interface, to_gemini_request
from replaygate.models.replay import ReplayModel
from run_cli import replaygate
from sdks import genai

INTERFACE = "google.generate_content"
SETTINGS: dict[str, Any] = {"model": "gemini-2.5-flash", "max_tokens": 64}
ASK = (Message.user("Weather in Paris?"),)


def _answer(finish: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": finish}],
        "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5},
    }


@pytest.mark.parametrize("finish", [reason.value for reason in genai.types.FinishReason])
def test_every_finish_reason_of_the_api_is_read(finish: str) -> None:
    """A block, and an answer that ended without one the loop can use, is a refusal."""
    expected = {
        "STOP": "end_turn",
        "FINISH_REASON_UNSPECIFIED": "end_turn",
        "MAX_TOKENS": "max_tokens",
        "CONTINUATION": "max_tokens",
    }
    assert from_gemini_response(_answer(finish)).stop_reason == expected.get(finish, "refusal")


def test_a_malformed_function_call_verifies_and_replays_as_a_refusal(tmp_path: Path) -> None:
    """The answer Gemini gives when the model's call could not be parsed: recorded, it was
    refused by verify and by replay as an unknown finishReason."""
    request = to_gemini_request(ASK, (), **SETTINGS)
    meta = make_meta(INTERFACE, get_interface(INTERFACE).version, "hand", None)
    fixture = {"key": fixture_key(request), "request": request, "meta": meta}
    store = tmp_path / "malformed.jsonl"
    answer = _answer("MALFORMED_FUNCTION_CALL")
    store.write_bytes(orjson.dumps({**fixture, "response": answer}) + b"\n")
    assert replaygate("verify", str(store)).returncode == 0
    replayed = ReplayModel(store, interface=INTERFACE, **SETTINGS).complete(ASK, ())
    assert (replayed.text, replayed.stop_reason) == ("", "refusal")
    store.write_bytes(orjson.dumps({**fixture, "response": _answer("NOT_A_REASON")}) + b"\n")
    checked = replaygate("verify", str(store))
    assert checked.returncode == 1
    assert "finishReason: unknown value 'NOT_A_REASON'" in checked.stdout
