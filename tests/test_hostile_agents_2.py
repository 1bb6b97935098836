"""An agent that raises a BaseException other than an end of the process or Ctrl-C.

``GeneratorExit`` or ``asyncio.CancelledError`` (a BaseException since Python 3.8: an
async agent whose task was cancelled) went past every handler and ended ``eval`` and
``run`` in a traceback.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from replaygate.evals.agents import call_agent, run_agent
from replaygate.evals.errors import AgentRunError
from replaygate.evals.jobs import describe_failure
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


def test_what_the_agent_raised_is_said_with_a_key_it_quotes_masked() -> None:
    # eval and run printed the error an agent raised whole, with the key an API's error
    # quoted in it, to the terminal and the CI log
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"

    def agent(model: Model, question: str) -> Any:
        raise RuntimeError(f"upstream said: invalid token {token}")

    with pytest.raises(AgentRunError) as ran:
        run_agent(agent, ScriptedModel([]), "q")
    with pytest.raises(RuntimeError) as evaluated:
        call_agent(agent, ScriptedModel([]), "q")
    for said in (str(ran.value), describe_failure(evaluated.value)):
        assert "RuntimeError: upstream said: invalid token <GitHub token #1, 40" in said
        assert token not in said


def test_an_agent_written_for_an_sdk_client_is_told_what_an_eval_gives_it() -> None:
    # plan_trip(client, city) named as the agent: "'RecordingModel' object has no
    # attribute 'messages'" named a class of replaygate and said nothing of what to do
    def agent(model: Any, question: str) -> Any:
        return model.messages.create(messages=[{"role": "user", "content": question}])

    def elsewhere(model: Model, question: str) -> Any:
        return question.messages  # an attribute missing from another object: no advice

    with pytest.raises(AttributeError) as evaluated:
        call_agent(agent, ScriptedModel([]), "q")
    said = describe_failure(evaluated.value)
    assert "asked the Model it was given for `.messages`, as of an SDK client" in said
    assert "complete(messages, tools)" in said and "@pytest.mark.sampled" in said
    with pytest.raises(AgentRunError, match=r"for `\.messages`, as of an SDK client"):
        run_agent(agent, ScriptedModel([]), "q")
    with pytest.raises(AttributeError) as other:
        call_agent(elsewhere, ScriptedModel([]), "q")
    assert "SDK client" not in describe_failure(other.value)
