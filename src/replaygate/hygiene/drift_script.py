"""Which line of a simulator's script answers each request drift re-sends.

A script answers in order, whatever the request; drift re-sends a draw of the fixtures,
so in order the n-th request drawn would get line n, whatever line its fixture was
recorded from, and a request recorded with a text line would be compared with a tool
call. Each re-sent request is answered instead with the line its recorded answer says
(the same text and tool calls, by name and arguments; ids may have been made stable),
the simulator's script moved to that line before it is sent. A fixture whose recorded
answer no line says (the script changed since, or a stream cut before its end) is not
re-sent, and named.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeAlias

from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.hygiene.drift_answers import compared_answer
from replaygate.hygiene.fieldset import interface_of_fixture
from replaygate.models.providers import INTERFACES
from replaygate.models.types import ModelResponse
from replaygate.sim.behaviors import Behavior, ScriptBehavior
from replaygate.stream_answers import event_objects, messages_answer, responses_answer
from replaygate.strict_json import plain_loads

Said: TypeAlias = tuple[str, tuple[tuple[str, str], ...]]
"""What an answer says: its text, and its tool calls' names and arguments (as JSON)."""


def _said(text: str, calls: Sequence[tuple[str, Any]]) -> Said:
    return text, tuple((name, json.dumps(args, sort_keys=True)) for name, args in calls)


def _of_response(response: ModelResponse) -> Said:
    return _said(response.text, [(call.name, dict(call.arguments)) for call in response.tool_calls])


def _chat_stream(events: Sequence[Any]) -> Said:
    """A Chat Completions stream's text and tool calls (arguments joined per call), a
    deprecated ``delta.function_call`` among them."""
    text, calls = "", dict[Any, tuple[str, str]]()
    for _, chunk in event_objects(events):
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            pieces = [
                (call.get("index"), call.get("function")) for call in delta.get("tool_calls") or []
            ]
            if delta.get("function_call"):
                pieces.append(("function_call", delta["function_call"]))
            for index, function in pieces:
                name, args = calls.get(index, ("", ""))
                function = function or {}
                calls[index] = (
                    name + (function.get("name") or ""),
                    args + (function.get("arguments") or ""),
                )
    return _said(text, [(name, plain_loads(args or "{}")) for name, args in calls.values()])


def _gemini_stream(events: Sequence[Any]) -> Said:
    """A Gemini stream's text and function calls, its chunks' parts joined."""
    text, calls = "", []
    for _, chunk in event_objects(events):
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                text += part.get("text") or ""
                call = part.get("functionCall")
                if isinstance(call, dict):
                    calls.append((call.get("name") or "", call.get("args") or {}))
    return _said(text, calls)


def recorded_said(fixture: Fixture) -> Said | None:
    """What ``fixture``'s compared answer says, or None when it cannot be read whole."""
    interface = interface_of_fixture(fixture)
    known = INTERFACES.get(interface)
    answer = compared_answer(fixture)
    if known is None or not isinstance(answer, dict):
        return None
    body = answer.get("body") if is_envelope(fixture.request) else answer
    events = answer.get("events") if is_envelope(fixture.request) else None
    try:
        if isinstance(events, list):
            if answer.get("stream_end", "complete") != "complete":
                return None
            if interface == "openai.chat.completions":
                return _chat_stream(events)
            if interface == "google.generate_content":
                return _gemini_stream(events)
            assemble = messages_answer if interface == "anthropic.messages" else responses_answer
            body = assemble(events)
        return None if not isinstance(body, dict) else _of_response(known.from_response(body))
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
        return None


class ScriptLines:
    """Moves a script to the line each re-sent request was recorded from."""

    def __init__(self, script: ScriptBehavior) -> None:
        self.script = script
        self._lines = {
            _of_response(line): i for i, line in reversed(list(enumerate(script.responses)))
        }

    def line_of(self, fixture: Fixture) -> int | None:
        """The index of the script line ``fixture``'s recorded answer says, or None."""
        said = recorded_said(fixture)
        return None if said is None else self._lines.get(said)

    def unanswered(self, fixture: Fixture) -> str | None:
        """Why no line of the script answers ``fixture`` as it was recorded, or None."""
        if self.line_of(fixture) is not None:
            return None
        return f"no line of the script {self.script.source} says what its recorded answer says"

    def before(self, fixture: Fixture) -> None:
        """Move the script to ``fixture``'s line, for the request about to be re-sent."""
        line = self.line_of(fixture)
        if line is not None:
            self.script.seek(line)


def script_lines(behavior: Behavior | None) -> ScriptLines | None:
    """The :class:`ScriptLines` of a simulator answering from a script, else None."""
    return ScriptLines(behavior) if isinstance(behavior, ScriptBehavior) else None
