"""A miss on the date of a version or beta header (``anthropic-beta:
token-efficient-tools-2025-02-19`` sent as ``...-2026-01-01``) is told as another version
named, not as a date the clock writes into a prompt, which it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.diff import FieldDifference
from replaygate.fixtures.mismatch import CLOCK_LEAD, text_file_notes
from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic

BETA = "token-efficient-tools-2025-02-19"


@pytest.mark.parametrize(
    "path", ["headers.anthropic-beta", "headers.anthropic-version", "headers.openai-beta"]
)
def test_a_version_headers_date_is_told_as_a_version_not_the_clock(path: str) -> None:
    notes = text_file_notes([FieldDifference(path, "x-2025-02-19", "x-2026-01-01")])
    assert len(notes) == 1 and CLOCK_LEAD not in notes[0]
    assert notes[0].startswith(f"{path} differs only in a date: the version of the API")


def test_a_prompts_date_is_still_told_as_the_clocks() -> None:
    changed = [FieldDifference("body.system", "Today is 2025-02-19.", "Today is 2026-01-01.")]
    assert CLOCK_LEAD in text_file_notes(changed)[0]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_replay_sending_another_betas_date_misses_naming_the_version(tmp_path: Path) -> None:
    store = tmp_path / "beta.jsonl"
    messages = [{"role": "user", "content": "hi"}]
    ask = {"model": "claude-sonnet-4-6", "max_tokens": 16, "messages": messages}
    with (
        Simulator(behavior="echo") as sim,
        anthropic.Anthropic(
            api_key="sk-sim",
            base_url=sim.url,
            default_headers={"anthropic-beta": BETA},
            http_client=httpx2_client(store, "record-missing", approve_live=True),
        ) as recorder,
    ):
        recorder.messages.create(**ask)  # type: ignore[call-overload]
    with (
        anthropic.Anthropic(
            api_key="sk-test",
            max_retries=0,
            default_headers={"anthropic-beta": BETA.replace("2025-02-19", "2026-01-01")},
            http_client=httpx2_client(store),
        ) as client,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        client.messages.create(**ask)  # type: ignore[call-overload]
    said = str(caught.value)
    assert "headers.anthropic-beta differs only in a date: the version of the API" in said
    assert CLOCK_LEAD not in said
