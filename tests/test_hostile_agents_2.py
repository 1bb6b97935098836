"""An agent that raises a BaseException other than an end of the process or Ctrl-C.

``GeneratorExit`` or ``asyncio.CancelledError`` (a BaseException since Python 3.8: an
async agent whose task was cancelled) went past every handler and ended ``eval`` and
``run`` in a traceback.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from replaygate.evals.agents import call_agent
from replaygate.evals.errors import AgentRunError
from replaygate.models.fakes import ScriptedModel
from replaygate.models.types import Model


@pytest.mark.parametrize("raised", [GeneratorExit(), asyncio.CancelledError()])
def test_such_an_exception_is_an_agent_error_naming_it(raised: BaseException) -> None:
    def agent(model: Model, question: str) -> Any:
        raise raised

    with pytest.raises(AgentRunError, match=rf"the agent raised {type(raised).__name__} at "):
        call_agent(agent, ScriptedModel([]), "q")


def test_ctrl_c_in_the_agent_still_stops_the_command() -> None:
    def agent(model: Model, question: str) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_agent(agent, ScriptedModel([]), "q")
