"""ResearchCopilot as replaygate's commands run it.

``--agent replaygate.examples.research_copilot:copilot`` names :data:`copilot`, which
declares the request settings the shipped fixtures are recorded with, and that
:class:`StepLimitExceeded` means the agent gave up on a run.
"""

from __future__ import annotations

from replaygate.evals.agents import AgentEntry
from replaygate.examples.research_copilot.agent import RunResult, run
from replaygate.examples.research_copilot.defaults import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
)
from replaygate.examples.research_copilot.errors import StepLimitExceeded
from replaygate.examples.research_copilot.tools import build_registry
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Model

SETTINGS = RequestSettings(DEFAULT_MODEL, DEFAULT_MAX_TOKENS, DEFAULT_SYSTEM)
"""The request settings of every ResearchCopilot fixture."""


def answer(model: Model, question: str) -> RunResult:
    """ResearchCopilot's loop with its packaged tools."""
    return run(model, build_registry(), question)


copilot = AgentEntry(answer, settings=SETTINGS, failures=(StepLimitExceeded,))
"""The agent entry point: ``--agent replaygate.examples.research_copilot:copilot``."""
