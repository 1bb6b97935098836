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
    """One run of each eval case's question, recorded from the loopback simulator.

    Sample 0 only (``make example-fixtures``: ``replaygate record --cases``), for
    ``replaygate run`` and rule stubs; an eval of the cases' samples records its own
    (``replaygate eval --record-mode record-missing --approve-live --simulator``).
    """
    return _data("fixtures.jsonl")


def shipped_eval_cases() -> Path:
    """The eval cases shipped with ResearchCopilot (``replaygate eval --cases``)."""
    return _data("eval_cases.jsonl")


def shipped_baseline() -> Path:
    """The eval baseline shipped for those cases (``replaygate gate --baseline``)."""
    return _data("baseline.json")
