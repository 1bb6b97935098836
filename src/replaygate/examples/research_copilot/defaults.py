"""Request settings ResearchCopilot is recorded and replayed with, and its data files."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DEFAULT_SYSTEM = (
    "You are a careful research assistant. Search the corpus, fetch the documents "
    "you rely on, and cite them as [doc-id]."
)
"""The system prompt of ResearchCopilot."""

DEFAULT_MODEL = "claude-sonnet-4-6"
"""The model id ResearchCopilot's fixtures are recorded against."""

DEFAULT_MAX_TOKENS = 1024
"""The ``max_tokens`` of every ResearchCopilot request."""


def _data(name: str) -> Path:
    return Path(str(files("replaygate.examples.research_copilot").joinpath("data", name)))


def shipped_fixtures() -> Path:
    """Every sample of each eval case, recorded from the loopback simulator with seed 7.

    ``make example-fixtures``: each case's question once (``replaygate record --cases``:
    sample 0, which ``replaygate run`` replays), then the cases' other samples as the demo's
    eval loop records them, so ``replaygate eval`` of the shipped cases replays here
    without recording and scores what :func:`shipped_baseline` holds.
    """
    return _data("fixtures.jsonl")


def shipped_eval_cases() -> Path:
    """The eval cases shipped with ResearchCopilot (``replaygate eval --cases``)."""
    return _data("eval_cases.jsonl")


def shipped_baseline() -> Path:
    """The eval baseline shipped for those cases (``replaygate gate --baseline``)."""
    return _data("baseline.json")
