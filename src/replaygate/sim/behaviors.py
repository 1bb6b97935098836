"""What the simulated model says: behaviours that answer a conversation.

A behaviour has the shape of a policy, ``respond(messages, tools) -> ModelResponse``;
the server renders its answer in the wire format of the request.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from replaygate import strict_json
from replaygate.errors import (
    LocatedError,
    ScriptExhaustedError,
    checked_out_link,
    kind_of,
    line_encoding_reason,
    undecodable_byte,
)
from replaygate.exact_json import INT_MAX
from replaygate.jsondoc import FieldError, count_field, shown
from replaygate.jsonfields import lone_surrogate
from replaygate.models.types import (
    STOP_REASONS,
    Message,
    ModelResponse,
    ToolCall,
    ToolSpec,
    Usage,
    as_stop_reason,
)
from replaygate.regular import is_blank, read_regular_bytes
from replaygate.sim.draws import Draws
from replaygate.sim.research_policy import ResearchPolicy

BEHAVIOR_NAMES = ("research-copilot", "echo", "script:FILE")


@runtime_checkable
class Behavior(Protocol):
    """Anything that answers a conversation with a :class:`ModelResponse`."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The model's next turn."""
        ...


class ScriptFormatError(LocatedError, ValueError):
    """A script file holds a line that is not a valid response (names file and line), or
    cannot be read (names the file)."""


class EchoBehavior:
    """Answers ``echo: <text of the last user message>``."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The echo of the last user turn."""
        text = next((m.content for m in reversed(messages) if m.role == "user"), "")
        return ModelResponse(text=f"echo: {text}")


SCRIPT_FIELDS = ("text", "tool_calls", "stop_reason", "usage")
TOOL_CALL_FIELDS = ("id", "name", "arguments")
USAGE_FIELDS = ("input_tokens", "output_tokens")


def _object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise FieldError(field, f"expected an object, got {kind_of(value)}")
    return value


def _string(obj: Mapping[str, Any], field: str, path: str) -> str:
    value = obj.get(field)
    if not isinstance(value, str):
        raise FieldError(path, f"expected a string, got {kind_of(value)}")
    return value


def _known(obj: Mapping[str, Any], fields: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(obj) - set(fields))
    if unknown:
        at = f"{where}: " if where else ""
        raise ValueError(f"{at}unknown field(s) {unknown} (allowed: {', '.join(fields)})")


NO_CALL_ID = (
    "expected a string, got null: a call needs an id; for a Gemini function call without "
    "one, as Gemini 2.5 gives them, give the tool's name, which is sent as no id"
)
"""What a script's tool call without an ``id`` is told: Gemini's calls have none."""


def _tool_call(call: Any, where: str) -> ToolCall:
    call = _object(call, where)
    _known(call, TOOL_CALL_FIELDS, where)
    if call.get("id") is None:
        raise FieldError(f"{where}.id", NO_CALL_ID)
    call_id, name = _string(call, "id", f"{where}.id"), _string(call, "name", f"{where}.name")
    if not call_id or not name:
        raise FieldError(where, "id and name must not be empty")
    arguments = _object(call.get("arguments", {}), f"{where}.arguments")
    return ToolCall(id=call_id, name=name, arguments=dict(arguments))


def _usage(value: Any) -> Usage:
    usage = _object(value, "usage")
    _known(usage, USAGE_FIELDS, "usage")
    counts = {}
    for field in USAGE_FIELDS:
        try:
            counts[field] = count_field(usage, field, 0, INT_MAX) if field in usage else 0
        except FieldError as err:
            raise FieldError(f"usage.{err.field}", str(err)) from None
    return Usage(**counts)


def parse_script_line(obj: Any) -> ModelResponse:
    """One scripted response from its JSON object.

    Fields: ``text``, ``tool_calls`` (``[{"id", "name", "arguments"}]``), ``stop_reason``
    (``tool_use`` when there are tool calls, else ``end_turn``, by default) and ``usage``
    (``input_tokens``, ``output_tokens``); a field given as null is left out. A field of
    the wrong kind raises :class:`ValueError` naming its path (a
    :class:`~replaygate.jsondoc.FieldError` holds it in ``field``).
    """
    obj = _object(obj, "")
    _known(obj, SCRIPT_FIELDS, "")
    given = {key: value for key, value in obj.items() if value is not None}
    text = _string(given, "text", "text") if "text" in given else ""
    calls = given.get("tool_calls", [])
    if not isinstance(calls, list):
        raise FieldError("tool_calls", f"expected a list, got {kind_of(calls)}")
    tool_calls = tuple(_tool_call(call, f"tool_calls[{i}]") for i, call in enumerate(calls))
    stop = given.get("stop_reason", "tool_use" if tool_calls else "end_turn")
    reason = as_stop_reason(stop)
    if reason is None:
        raise FieldError("stop_reason", f"{shown(stop)} is not one of {', '.join(STOP_REASONS)}")
    usage = _usage(given["usage"]) if "usage" in given else Usage()
    return ModelResponse(text=text, tool_calls=tool_calls, stop_reason=reason, usage=usage)


def _script_line(raw: bytes) -> ModelResponse:
    """The response of one script line; :class:`ValueError` says what is wrong with it:
    a key named twice (it would be read as its last value), NaN, half of a surrogate
    pair; a count beyond 64 bits stays one, for the fields to refuse."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(undecodable_byte(raw, err.start)[1]) from None
    try:
        obj = strict_json.loads(text)
    except strict_json.DuplicateKeyError:
        raise
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as err:
        raise ValueError(f"invalid JSON: {err}") from None
    problem = lone_surrogate(obj)
    if problem is not None:
        raise ValueError(problem)
    try:
        return parse_script_line(obj)
    except FieldError as err:
        raise ValueError(f"{err.field}: {err}" if err.field else str(err)) from None


class ScriptBehavior:
    """Plays scripted responses in order, whatever the request; raises when they run out.

    A request a recording answered from a fixture takes its line too (:meth:`replayed`):
    the n-th request gets the n-th line whether the requests before it were sent here or
    replayed, so recording only what a store is missing answers it as recording it all
    would."""

    def __init__(self, responses: Sequence[ModelResponse], source: str = "<script>") -> None:
        self.responses = tuple(responses)
        self.source = source
        self._next = 0

    @staticmethod
    def from_file(path: str | Path) -> ScriptBehavior:
        """Load a JSONL script: one response per line, blank lines ignored; a script of
        none is refused (every request would get the simulator's 500). Lines end at a
        newline (LF), as the store's do: lone CR line ends are refused as the store
        refuses them (:func:`~replaygate.errors.line_encoding_reason`)."""
        file = str(path)
        try:
            data = read_regular_bytes(path)
        except OSError as err:
            raise ScriptFormatError(file, 0, f"cannot read script: {err.strerror}") from None
        link = checked_out_link(data)
        if link is not None:
            raise ScriptFormatError(file, 1, link)
        lines = data.split(b"\n")
        responses = []
        for number, raw in enumerate(lines, start=1):
            if is_blank(raw):
                continue
            try:
                responses.append(_script_line(raw))
            except ValueError as err:  # UTF-16, a byte order mark: named as the store does
                reason = line_encoding_reason(raw, file, number) or str(err)
                raise ScriptFormatError(file, number, reason) from None
        if not responses:
            raise ScriptFormatError(file, 0, "no responses: the script holds no JSON line")
        return ScriptBehavior(responses, file)

    def seek(self, index: int) -> None:
        """Answer the next request with response ``index`` (from 0), and go on from there."""
        if not 0 <= index < len(self.responses):
            raise IndexError(f"simulator script {self.source} has no response {index}")
        self._next = index

    @property
    def remaining(self) -> int:
        """How many scripted responses are left."""
        return max(0, len(self.responses) - self._next)

    def replayed(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> None:
        """Count an answer a recording replayed from a fixture
        (:meth:`~replaygate.sim.app.SimApp.learn`) as one played here: its line is taken,
        and the next request gets the line after it."""
        self._next += 1

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
    concurrent requests arrive. Its tool calls' ids are the answer's own
    (``toolu_sim_<tag>_<n>``, :meth:`~replaygate.sim.draws.Draw.tag`), as a real API's
    are, begun as the API answering begins its own (:func:`made_calls`). An answer a
    recording replayed from a fixture counts (:meth:`replayed`). Its usage is left to
    the server, which counts the whole request, system prompt included, as it answers
    ``count_tokens``: a longer prompt costs more here too.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._draws = Draws()

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The policy's next turn, drawn for this conversation."""
        draw = self._draws.next(messages, tools)
        answer = ResearchPolicy(rng=draw.rng(self.seed)).respond(messages, tools)
        tag = draw.tag(self.seed)
        calls = tuple(
            dataclasses.replace(call, id=f"toolu_sim_{tag}_{n}")
            for n, call in enumerate(answer.tool_calls, start=1)
        )
        return dataclasses.replace(answer, tool_calls=calls, usage=Usage())

    def replayed(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> None:
        """Count an answer to this conversation that a recording replayed from a fixture
        (:meth:`~replaygate.sim.app.SimApp.learn`) as drawn here: the next answer to it
        is the one that follows the replayed one, not a repeat of the first."""
        self._draws.next(messages, tools)


_MADE_CALL = re.compile(r"(?:toolu|call)_(sim_\d{4,}_[0-9a-f]{12}(?:_\d+)?)")
"""The id of a tool call the simulator made (:class:`SeededResearch`'s, a forced call's),
the part after its prefix grouped."""


def made_calls(answer: ModelResponse, prefix: str | None) -> ModelResponse:
    """``answer`` with the ids of the tool calls the simulator made begun with ``prefix``,
    as the API answering begins its own (``call_`` for OpenAI's, ``toolu_`` for
    Anthropic's); a script's ids, and every id when ``prefix`` is None, as they are."""
    if prefix is None:
        return answer
    calls = []
    for call in answer.tool_calls:
        made = _MADE_CALL.fullmatch(call.id)
        calls.append(call if made is None else dataclasses.replace(call, id=prefix + made[1]))
    return dataclasses.replace(answer, tool_calls=tuple(calls))


def research_copilot(seed: int) -> Behavior:
    """The research agent's policy, stochastic under ``seed`` (:class:`SeededResearch`)."""
    return SeededResearch(seed)


def make_behavior(spec: str | Behavior, *, seed: int = 0) -> Behavior:
    """A behaviour from its name: ``research-copilot``, ``echo`` or ``script:FILE``; an
    object with a ``respond`` method as it is."""
    if not isinstance(spec, str):
        if not isinstance(spec, Behavior):
            raise TypeError(
                f"behavior: expected one of {', '.join(BEHAVIOR_NAMES)} or an object with "
                f"respond(messages, tools), got {type(spec).__name__}"
            )
        return spec
    if spec == "echo":
        return EchoBehavior()
    if spec == "research-copilot":
        return research_copilot(seed)
    if spec.startswith("script:") and spec[len("script:") :]:
        return ScriptBehavior.from_file(spec[len("script:") :])
    raise ValueError(f"unknown behavior {spec!r}; expected one of {', '.join(BEHAVIOR_NAMES)}")
