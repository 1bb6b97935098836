"""ResearchCopilot's own errors say what is wrong in a line a person reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate import ReplayModel
from replaygate.examples.research_copilot import build_registry, run


def test_two_long_system_prompts_are_shown_where_they_part(tmp_path: Path) -> None:
    recorded = "Be careful. " * 300
    given = "Be careful. " * 150 + "Be NOT careful. " + "Be careful. " * 149
    model = ReplayModel(tmp_path / "rc.jsonl", model="m", max_tokens=8, system=recorded)
    with pytest.raises(ValueError) as raised:
        run(model, build_registry(), "What is RAG?", system=given)
    message = str(raised.value)
    assert "at offset 1803 (lengths 3600, 3604)" in message and "Be NOT careful" in message
    assert len(message) < 400  # a window, not two prompts of 3,600 characters


def test_two_short_system_prompts_are_shown_whole(tmp_path: Path) -> None:
    model = ReplayModel(tmp_path / "rc.jsonl", model="m", max_tokens=8, system="A")
    with pytest.raises(ValueError, match="run\\(system='B'\\) differs from the model's system"):
        run(model, build_registry(), "What is RAG?", system="B")
