"""What the simulated model says: behaviours that answer a conversation.

A behaviour has the shape of a policy, ``respond(messages, tools) -> ModelResponse``;
the server renders its answer in the wire format of the request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import orjson

from replaygate.errors import ReplaygateError, ScriptExhaustedError
from replaygate.models.types import (
    STOP_REASONS,
    Message,
    ModelResponse,
    ToolCall,
    ToolSpec,
    Usage,
    as_stop_reason,
)
from replaygate.regular import read_regular_bytes
from replaygate.sim.draws import Draws
from replaygate.sim.research_policy import ResearchPolicy

BEHAVIOR_NAMES = ("research-copilot", "echo", "script:FILE")


@runtime_checkable
class Behavior(Protocol):
    """Anything that answers a conversation with a :class:`ModelResponse`."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The model's next turn."""
        ...


class ScriptFormatError(ReplaygateError, ValueError):
    """A script file holds a line that is not a valid response (names file and line)."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        super().__init__(f"{file}:{line}: {reason}")


class EchoBehavior:
    """Answers ``echo: <text of the last user message>``."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The echo of the last user turn."""
        text = next((m.content for m in reversed(messages) if m.role == "user"), "")
        return ModelResponse(text=f"echo: {text}")


def parse_script_line(obj: Any) -> ModelResponse:
    """One scripted response from its JSON object.

    Fields: ``text``, ``tool_calls`` (``[{"id", "name", "arguments"}]``), ``stop_reason``
    (``tool_use`` when there are tool calls, else ``end_turn``, by default) and ``usage``.
    """
    if not isinstance(obj, Mapping):
        raise ValueError("expected a JSON object")
    unknown = set(obj) - {"text", "tool_calls", "stop_reason", "usage"}
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}")
    text = obj.get("text") or ""
    if not isinstance(text, str):
        raise ValueError("text: expected a string")
    calls: list[ToolCall] = []
    for i, call in enumerate(obj.get("tool_calls") or []):
        if not isinstance(call, Mapping):
            raise ValueError(f"tool_calls[{i}]: expected an object")
        call_id, name, arguments = call.get("id"), call.get("name"), call.get("arguments", {})
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise ValueError(f"tool_calls[{i}]: id and name must be strings")
        if not isinstance(arguments, Mapping):
            raise ValueError(f"tool_calls[{i}].arguments: expected an object")
        calls.append(ToolCall(id=call_id, name=name, arguments=dict(arguments)))
    stop = obj.get("stop_reason") or ("tool_use" if calls else "end_turn")
    reason = as_stop_reason(stop)
    if reason is None:
        raise ValueError(f"stop_reason: {stop!r} is not one of {', '.join(STOP_REASONS)}")
    usage = obj.get("usage") or {}
    if not isinstance(usage, Mapping):
        raise ValueError("usage: expected an object")
    return ModelResponse(
        text=text,
        tool_calls=tuple(calls),
        stop_reason=reason,
        usage=Usage(
            input_tokens=int(usage.get("input_tokens", 0)),
            output_tokens=int(usage.get("output_tokens", 0)),
        ),
    )


class ScriptBehavior:
    """Plays scripted responses in order, whatever the request; raises when they run out."""

    def __init__(self, responses: Sequence[ModelResponse], source: str = "<script>") -> None:
        self.responses = tuple(responses)
        self.source = source
        self._next = 0

    @staticmethod
    def from_file(path: str | Path) -> ScriptBehavior:
        """Load a JSONL script: one response per line, blank lines ignored."""
        file = str(path)
        try:
            lines = read_regular_bytes(path).splitlines()
        except OSError as err:
            raise ScriptFormatError(file, 0, f"cannot read script: {err.strerror}") from None
        responses = []
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                responses.append(parse_script_line(orjson.loads(raw)))
            except (orjson.JSONDecodeError, ValueError, TypeError) as err:
                raise ScriptFormatError(file, number, str(err)) from None
        return ScriptBehavior(responses, file)

    @property
    def remaining(self) -> int:
        """How many scripted responses are left."""
        return len(self.responses) - self._next

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The next scripted response."""
        if self._next >= len(self.responses):
            raise ScriptExhaustedError(
                f"simulator script {self.source} is exhausted: all {len(self.responses)} "
                f"scripted response(s) were used and request #{self._next + 1} came in; "
                "add lines to the script or make fewer calls"
            )
        response = self.responses[self._next]
        self._next += 1
        return response


class SeededResearch:
    """The research agent's policy, stochastic under ``seed``, one answer at a time.

    Each answer draws from a random stream of its own, derived from the seed, the
    conversation and how often that conversation was answered before
    (:mod:`replaygate.sim.draws`), so the answers do not depend on the order in which
    concurrent requests arrive.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._draws = Draws()

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The policy's next turn, drawn for this conversation."""
        rng = self._draws.next(messages, tools).rng(self.seed)
        return ResearchPolicy(rng=rng).respond(messages, tools)


def research_copilot(seed: int) -> Behavior:
    """The research agent's policy, stochastic under ``seed`` (:class:`SeededResearch`)."""
    return SeededResearch(seed)


def make_behavior(spec: str | Behavior, *, seed: int = 0) -> Behavior:
    """A behaviour from its name: ``research-copilot``, ``echo`` or ``script:FILE``."""
    if not isinstance(spec, str):
        return spec
    if spec == "echo":
        return EchoBehavior()
    if spec == "research-copilot":
        return research_copilot(seed)
    if spec.startswith("script:") and spec[len("script:") :]:
        return ScriptBehavior.from_file(spec[len("script:") :])
    raise ValueError(f"unknown behavior {spec!r}; expected one of {', '.join(BEHAVIOR_NAMES)}")
