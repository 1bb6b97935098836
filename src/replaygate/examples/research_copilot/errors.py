"""Errors raised by the ResearchCopilot reference agent."""

from __future__ import annotations

from replaygate.errors import LocatedError, ReplaygateError
from replaygate.models.types import ToolCall


class StepLimitExceeded(ReplaygateError, RuntimeError):
    """The agent loop made ``max_steps`` model calls without reaching a final answer.

    Carries the limit, the question and the last tool call so the loop can be read
    without rerunning it.
    """

    def __init__(self, max_steps: int, question: str, last_call: ToolCall | None) -> None:
        self.max_steps = max_steps
        self.question = question
        self.last_call = last_call
        if last_call is None:
            last = "none"
        else:
            last = f"{last_call.name}({_arguments_repr(last_call)}) [id {last_call.id}]"
        super().__init__(
            f"no final answer after {max_steps} model calls (max_steps={max_steps}) "
            f"for question {question!r}; last tool call: {last}. "
            "The model keeps calling tools: check it for a loop, or raise max_steps."
        )


class DataFormatError(LocatedError, ValueError):
    """A JSONL data file (corpus or cases) holds a line that is not a valid record.

    Names the file, the line (1-based) and the reason.
    """


def _arguments_repr(call: ToolCall) -> str:
    try:
        return repr(dict(call.arguments))
    except (TypeError, ValueError):
        return repr(call.arguments)
