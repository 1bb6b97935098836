"""The ResearchCopilot agent loop: call the model, run its tools, repeat until it answers.

The loop is deterministic code. Given the same model responses it produces the same
steps, messages and final answer, byte for byte, which is what lets it be tested
exactly with a scripted, rule-based or replayed model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from replaygate.examples.research_copilot.errors import StepLimitExceeded
from replaygate.examples.research_copilot.tools import ToolRegistry
from replaygate.fixtures.diff import text_change
from replaygate.models.replay import settings_of, with_system
from replaygate.models.types import Message, Model, ToolCall, Usage


@dataclass(frozen=True)
class Step:
    """One entry of a run's trace.

    A ``tool`` step holds the call, its result text and whether it failed; its
    ``detail`` reads ``search_corpus({'q': 'RAG'}) -> {"hits": [...]}``. An
    ``answer`` step's ``detail`` is the final answer.
    """

    kind: Literal["tool", "answer"]
    detail: str
    tool_call: ToolCall | None = None
    result: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class RunResult:
    """The outcome of :func:`run`.

    ``final`` is the answer, ``steps`` the trace, ``messages`` the whole conversation
    (the question, every assistant turn, every tool result), ``usage`` the tokens
    summed over all model calls and ``system`` the system prompt the run was made with,
    when known.
    """

    final: str
    steps: tuple[Step, ...]
    messages: tuple[Message, ...]
    usage: Usage
    system: str | None = None


def step_detail(call: ToolCall, result: str) -> str:
    """The trace line of a tool step: ``name(repr(arguments)) -> result``."""
    arguments = dict(call.arguments) if isinstance(call.arguments, Mapping) else call.arguments
    return f"{call.name}({arguments!r}) -> {result}"


SHOWN_WHOLE = 200
"""Prompts up to this long (as ``repr``) are shown whole in an error; longer ones as a
window around where they differ."""


def _model_system(model: Model) -> str | None:
    """The system prompt ``model`` sends or declares: its request settings' or its own."""
    settings = settings_of(model)
    value = settings.system if settings else getattr(model, "system", None)
    return value if isinstance(value, str) else None


def _sending(model: Model, system: str | None) -> tuple[Model, str | None]:
    """``model`` set to send ``system``, and the system prompt of the run.

    A model with request settings and no system prompt of its own is copied to send
    ``system``; one with another prompt is refused, since the recorded prompt would
    not be the one sent.
    """
    own = _model_system(model)
    if system is None or system == own:
        return model, own
    if own is not None:
        if max(len(repr(system)), len(repr(own))) <= SHOWN_WHOLE:
            differs = f"run(system={system!r}) differs from the model's system setting {own!r}"
        else:  # two long prompts: where they part, not both whole
            differs = (
                "run(system=...) differs from the model's system setting, "
                f"{text_change(own, system)} (the model's != run's)"
            )
        raise ValueError(
            f"{differs}; the system prompt is sent by the model, so set it in one place"
        )
    return (with_system(model, system) if settings_of(model) else model), system


def run(
    model: Model,
    registry: ToolRegistry,
    question: str,
    *,
    system: str | None = None,
    max_steps: int = 8,
) -> RunResult:
    """Answer ``question`` with ``model`` and the tools of ``registry``.

    Each model call gets the conversation so far and ``registry.specs``. Every tool
    call in a response is executed for real, in order; the assistant turn and one tool
    result per call are appended, and the loop goes on until a response has no tool
    calls: its text is the final answer.

    The system prompt is a request setting of the model, not a message: the
    :class:`~replaygate.models.types.Model` protocol has no system parameter. Every
    argument that changes what is sent is in the request: given ``system``, a model with
    request settings (a replaying, recording or live model) sends it in every request,
    so a changed prompt misses its fixtures; a model without them (a scripted fake)
    sends nothing, and the prompt is only recorded on the result. Left ``None``, the
    model's own prompt (its settings' ``system``, or a string ``system`` attribute) is
    the run's. Given while the model has a different prompt of its own, it raises
    ``ValueError``, since the recorded prompt would not be the one sent.

    Raises :class:`StepLimitExceeded` after ``max_steps`` model calls without a final
    answer.
    """
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, got {max_steps}")
    model, run_system = _sending(model, system)
    messages: list[Message] = [Message.user(question)]
    steps: list[Step] = []
    input_tokens = output_tokens = 0
    last_call: ToolCall | None = None
    for _ in range(max_steps):
        response = model.complete(tuple(messages), registry.specs)
        input_tokens += response.usage.input_tokens
        output_tokens += response.usage.output_tokens
        messages.append(response.as_message())
        if not response.tool_calls:
            steps.append(Step(kind="answer", detail=response.text))
            return RunResult(
                final=response.text,
                steps=tuple(steps),
                messages=tuple(messages),
                usage=Usage(input_tokens, output_tokens),
                system=run_system,
            )
        for call in response.tool_calls:
            result = registry.execute(call)
            steps.append(
                Step(
                    kind="tool",
                    detail=step_detail(call, result.content),
                    tool_call=call,
                    result=result.content,
                    is_error=result.is_error,
                )
            )
            messages.append(Message.tool_result(call.id, result.content, is_error=result.is_error))
            last_call = call
    raise StepLimitExceeded(max_steps, question, last_call)
