"""Agent entry points: any function ``(model, question) -> run result``.

``--agent package.module:function`` names one; ResearchCopilot is the default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from replaygate.evals.errors import AgentLoadError
from replaygate.evals.output import RunLike
from replaygate.examples.research_copilot import StepLimitExceeded, build_registry, run
from replaygate.models.types import Model

Agent = Callable[[Model, str], RunLike]
DEFAULT_AGENT = "replaygate.evals.agents:research_copilot"

AGENT_FAILURES: tuple[type[BaseException], ...] = (StepLimitExceeded,)
"""Exceptions that mean the agent failed the sample (its checks fail), not the harness."""


def research_copilot(model: Model, question: str) -> RunLike:
    """ResearchCopilot's loop with its packaged tools."""
    return run(model, build_registry(), question)


def load_agent(spec: str | None) -> Agent:
    """The function named ``module:function`` (``None``: ResearchCopilot)."""
    target = spec or DEFAULT_AGENT
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise AgentLoadError(f"--agent {target!r}: expected 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise AgentLoadError(f"--agent {target!r}: cannot import {module_name!r}: {err}") from None
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise AgentLoadError(
                f"--agent {target!r}: {module_name} has no attribute {attribute!r}"
            )
    if not callable(found):
        raise AgentLoadError(f"--agent {target!r}: {attribute} is not callable")
    agent: Agent = found
    return agent
