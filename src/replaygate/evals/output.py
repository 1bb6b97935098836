"""What one agent run yields for scoring: the answer, its citations, what it fetched.

The agent returns a run result (``final``, ``steps``, ``usage``: any object shaped
like :class:`RunLike`). :func:`output_of` reduces it to a plain JSON object, the
``output`` of a sample in the results file, so scorers, gates and reports read
results, never the run; :func:`trace_lines` is the trace a person reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from replaygate.assertions import extract_citations
from replaygate.evals.errors import AgentRunError
from replaygate.models.types import ToolCall, Usage
from replaygate.sanitize.secret_mask import masked_error
from replaygate.strict_json import plain_loads
from replaygate.type_names import a_type


class StepLike(Protocol):
    """A trace step: a tool call with its result, or the answer."""

    @property
    def kind(self) -> str:
        """``tool`` or ``answer``."""
        ...

    @property
    def tool_call(self) -> ToolCall | None:
        """The call of a tool step."""
        ...

    @property
    def result(self) -> str | None:
        """The result text of a tool step."""
        ...

    @property
    def is_error(self) -> bool:
        """Whether the tool failed."""
        ...


class RunLike(Protocol):
    """What an agent entry point returns."""

    @property
    def final(self) -> str:
        """The final answer."""
        ...

    @property
    def steps(self) -> Sequence[StepLike]:
        """The trace."""
        ...

    @property
    def usage(self) -> Usage:
        """Tokens summed over every model call."""
        ...


def fetched_ids(steps: Sequence[StepLike]) -> list[str]:
    """Doc ids the run fetched: successful tool results that are objects with a ``doc_id``."""
    seen: dict[str, None] = {}
    for step in steps:
        if step.kind != "tool" or step.is_error or not step.result:
            continue
        try:
            value = plain_loads(step.result)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to be a doc
            continue
        if isinstance(value, dict) and isinstance(value.get("doc_id"), str):
            seen.setdefault(value["doc_id"], None)
    return list(seen)


def trace_lines(result: RunLike) -> list[str]:
    """One line per step: ``name({arguments}) -> result`` for a tool, the answer for the answer."""
    lines: list[str] = []
    for step in result.steps:
        call = step.tool_call
        if step.kind == "tool" and call is not None:
            lines.append(f"{call.name}({dict(call.arguments)!r}) -> {step.result}")
        else:
            lines.append(result.final)
    return lines


STEP = (
    "a trace step is an object with kind ('tool' or 'answer'), tool_call (the ToolCall of "
    "a tool step, else None), result (the tool's result text, else None) and is_error "
    "(True when the tool failed), like ResearchCopilot's Step"
)
"""What a step of a run result must be, as an error says it."""


_MISSING = object()

RUN_FIELDS = {
    "final": "the answer, a string",
    "steps": (
        "the trace, a list (or tuple) of its steps, read more than once (a generator or "
        "an iterator is used up by one read: return list(...) of it)"
    ),
    "usage": (
        "the tokens of the run, an object with input_tokens and output_tokens, counts of "
        "tokens (int, 0 or more), like the usage of a ModelResponse: a "
        "replaygate.models.types.Usage, Usage(input_tokens=..., output_tokens=...) summed "
        "over the run's model calls (Usage() for a run that made none); a dict of the two "
        "counts is not one: return Usage(**counts)"
    ),
}
"""Each field of a run result and what it must be, as an error says it."""


def _count(value: object) -> bool:
    """Whether ``value`` is a count of tokens (an int, not a bool, 0 or more)."""
    return type(value) is int and value >= 0


def _field_problem(name: str, value: Any) -> str | None:
    """What keeps ``value`` from being the field ``name`` of a run result; None when
    nothing does."""
    if value is _MISSING:
        return f"it has no {name}"
    if name == "final":
        wrong = not isinstance(value, str)
    elif name == "steps":
        wrong = not hasattr(value, "__iter__") or isinstance(value, Iterator | str | Mapping)
    else:
        counts = [getattr(value, count, _MISSING) for count in ("input_tokens", "output_tokens")]
        wrong = isinstance(value, Mapping) or not all(_count(count) for count in counts)
    return f"{name} is {_short(value)}" if wrong else None


def checked_run(result: Any, agent: str = "") -> RunLike:
    """``result``, or :class:`AgentRunError` when it is not shaped like a run result (one
    with some of its fields names each wrong one, what it holds and what it must be), or
    a step of its ``steps`` is no trace step (``agent`` names the agent that returned it)."""
    who = f"the agent {agent}" if agent else "the agent"
    fields = {name: getattr(result, name, _MISSING) for name in RUN_FIELDS}
    if all(value is _MISSING for value in fields.values()):
        raise AgentRunError(
            f"the agent returned {_short(result)}: expected a run result, an object with "
            "final (the answer, a string), steps (the trace: a list of its steps) and usage "
            "(input_tokens and output_tokens), like ResearchCopilot's RunResult"
        )
    problems = {name: _field_problem(name, value) for name, value in fields.items()}
    wrong = {name: problem for name, problem in problems.items() if problem is not None}
    if wrong:
        musts = "; ".join(f"{name} must be {RUN_FIELDS[name]}" for name in wrong)
        raise AgentRunError(
            f"{who} returned {_short(result)}, not a run result "
            f"({', '.join(wrong.values())}): {musts}"
        )
    for index, step in enumerate(result.steps):
        problem = _step_problem(step)
        if problem is not None:
            raise AgentRunError(
                f"{who} returned a run result whose steps[{index}] is "
                f"{_short(step)}, not a trace step ({problem}): {STEP}"
            )
    run: RunLike = result
    return run


def _step_problem(step: Any) -> str | None:
    """What keeps ``step`` from being a trace step (:data:`STEP`); None when nothing does."""
    fields = {name: getattr(step, name, _MISSING) for name in ("kind", "tool_call", "result")}
    fields["is_error"] = getattr(step, "is_error", _MISSING)
    missing = [name for name, value in fields.items() if value is _MISSING]
    if missing:
        return f"it has no {', no '.join(missing)}"
    if fields["kind"] not in ("tool", "answer"):
        return f"its kind is {fields['kind']!r}"
    if not (fields["tool_call"] is None or isinstance(fields["tool_call"], ToolCall)):
        return f"its tool_call is {_short(fields['tool_call'])}"
    if not (fields["result"] is None or isinstance(fields["result"], str)):
        return f"its result is {_short(fields['result'])}"
    if not isinstance(fields["is_error"], bool):
        return f"its is_error is {_short(fields['is_error'])}"
    return None


def output_of(result: RunLike, agent: str = "") -> dict[str, Any]:
    """The JSON object a sample records: answer, citations, fetched ids, steps, tokens.

    :class:`AgentRunError` when ``result`` is not shaped like a run result.
    """
    steps = list(checked_run(result, agent).steps)
    tokens = (result.usage.input_tokens, result.usage.output_tokens)
    return {
        "final": result.final,
        "citations": list(extract_citations(result.final)),
        "fetched": fetched_ids(steps),
        "steps": len(steps),
        "tool_errors": sum(1 for s in steps if s.kind == "tool" and s.is_error),
        "input_tokens": tokens[0],
        "output_tokens": tokens[1],
        "error": None,
    }


def _short(value: object) -> str:
    """``value`` for a message: its type and a short repr."""
    text = repr(value)
    text = text if len(text) <= 80 else text[:77] + "..."
    return text if value is None else f"{a_type(value)} ({text})"


def failed_output(error: BaseException) -> dict[str, Any]:
    """The output of a run the agent gave up on (its checks then fail); a key its error
    message holds (an API error echoing one) is masked, since results and history are
    written to disk."""
    return {
        "final": "",
        "citations": [],
        "fetched": [],
        "steps": 0,
        "tool_errors": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "error": masked_error(error),
    }
