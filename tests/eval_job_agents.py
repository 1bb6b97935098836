"""Agents that go wrong in the processes of ``replaygate eval --jobs`` (by question)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from replaygate.evals.agents import AgentEntry
from replaygate.evals.output import RunLike
from replaygate.examples.research_copilot import SETTINGS, copilot
from replaygate.models.types import Model


def _go_wrong(model: Model, question: str) -> RunLike:
    """Answer as ResearchCopilot does, but divide by zero, end the process, act as if
    Ctrl-C was pressed, or hang on cue (``wait:MARKER``; ``stubborn:MARKER`` ignores
    SIGTERM too), after writing its process id to ``MARKER``."""
    if question == "divide":
        return 1 // 0  # type: ignore[return-value]
    if question == "exit":
        os._exit(3)
    if question == "interrupt":
        raise KeyboardInterrupt
    cue, _, marker = question.partition(":")
    if cue in ("wait", "stubborn"):
        if cue == "stubborn":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
        time.sleep(600)
    return copilot(model, question)


troubled = AgentEntry(_go_wrong, settings=SETTINGS)
"""ResearchCopilot with the cues above."""
