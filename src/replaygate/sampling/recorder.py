"""Checks evaluated inside a pytest test body, one recorder per sample."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any, TypeVar

from replaygate.assertions.kinds import Check, Outcome
from replaygate.sampling.results import (
    SampleResult,
    jsonable,
    refuse_plain_assert_name,
    same_output,
)
from replaygate.type_names import a_type

T = TypeVar("T")
_UNSET: Any = object()


def _require_checks(value: Any, checks: tuple[Any, ...], index: int) -> None:
    """Refuse, naming what was given, a check that is no :class:`Check`: a list of checks
    (``evaluate(output, [CITES])``) or the output and a check swapped."""
    for position, check in enumerate(checks, start=1):
        if isinstance(check, Check):
            continue
        if isinstance(check, list | tuple | set | frozenset):
            how = "pass each as its own argument: evaluate(output, *checks)"
        elif isinstance(value, Check):
            how = "the output comes first: evaluate(output, check, ...)"
        else:
            how = "make one with a check factory (citations_check, contains_check, ...)"
        raise TypeError(
            f"evaluate in sample {index}: argument {position} after the output is a "
            f"{type(check).__name__}, not a Check; checks are Check objects given as "
            f"separate arguments ({how})"
        )


def _take_name(named: dict[str, Check[Any]], check: Check[Any], index: int) -> None:
    """Add ``check`` to ``named``, the checks of sample ``index`` by name; refuse a name
    taken already, by this check (evaluated twice: the same kind, category and
    description, built once or anew) or by another (two checks left with a factory's
    default name, say)."""
    earlier = named.get(check.name)
    if earlier is None:
        named[check.name] = check
        return
    if (earlier.kind, earlier.category, earlier.description) == (
        check.kind,
        check.category,
        check.description,
    ):
        raise ValueError(
            f"check {check.name!r} was evaluated twice in sample {index}; "
            "give each evaluation its own name"
        )
    raise ValueError(
        f"two checks are named {check.name!r} in sample {index}, a {earlier.kind} "
        f"({earlier.description or 'no description'}) and a {check.kind} "
        f"({check.description or 'no description'}): their outcomes would be counted as "
        "one assertion; give each its own name (name=...; a factory names each check it "
        "makes alike by default)"
    )


def refuse_unawaited(value: object, given: str, why: str, fix: str) -> None:
    """A :class:`TypeError` for an output never awaited (an ``async def``'s coroutine, a
    task) or never iterated (an async generator, a streaming agent's ``async def`` with
    ``yield``), which the checks would judge in place of what it gives: ``given`` says
    where it came from, ``why`` why it was not awaited, ``fix`` what to do. A coroutine is
    closed first, so no "never awaited" warning follows."""
    if not (inspect.isawaitable(value) or inspect.isasyncgen(value)):
        return
    if inspect.iscoroutine(value):
        value.close()
    raise TypeError(
        f"{given} {a_type(value)}, not its output: {why}, so its checks would judge that "
        f"{type(value).__name__} itself, never awaited. {fix}"
    )


def refuse_read_once(value: object, given: str, fix: str) -> None:
    """A :class:`TypeError` for an output that can be read once only (a generator, a
    ``map``, an iterator): the first check reads it all and every other check sees nothing,
    so a gate such as "no secret in the answer" passed on what was left, and the results
    keep no output. ``given`` says where it came from, ``fix`` what to do."""
    if isinstance(value, Iterator):
        raise TypeError(
            f"{given} {a_type(value)}, which is read once: the first check would read it all "
            f"and the others see nothing (a gate that nothing is in it passes). {fix}"
        )


class SampleChecks:
    """Evaluates checks on an output and keeps their outcomes for this sample.

    The ``replaygate_checks`` fixture: ``replaygate_checks.evaluate(answer, gate1,
    signal1)`` runs every check, records each outcome, and then raises
    :class:`AssertionError` listing the failed gates (signals never raise).

    The sample's output is the one the first ``evaluate`` looked at; an outcome of a
    later ``evaluate`` on another output (a second turn, a field of the first) keeps the
    output its check looked at (:attr:`SampleResult.outputs`).
    """

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.outcomes: list[Outcome] = []
        self.descriptions: dict[str, str] = {}
        self.output: Any = _UNSET
        self.outputs: dict[int, Any] = {}
        """The output each outcome (by its position) looked at, where it is not ``output``."""
        self.named: dict[str, Check[Any]] = {}
        """The check evaluated under each name in this sample."""

    def evaluate(self, value: T, *checks: Check[T]) -> tuple[Outcome, ...]:
        """Evaluate ``checks`` on ``value``; raise if a gate failed."""
        if not checks:
            raise ValueError(
                f"evaluate got no check in sample {self.index}: the sample would pass having "
                "checked nothing; pass at least one gate or signal"
            )
        _require_checks(value, checks, self.index)
        refuse_unawaited(
            value,
            "evaluate got",
            "evaluate does not await it",
            "Run the agent's coroutine to its end (asyncio.run(...)) and evaluate what it returns",
        )
        refuse_read_once(
            value,
            "evaluate got",
            "Give its items as a list (list(output)), or the text they make up joined",
        )
        refuse_plain_assert_name(checks)
        named = dict(self.named)
        for check in checks:
            _take_name(named, check, self.index)
        kept = jsonable(value)
        if self.output is _UNSET:
            self.output = kept
        outcomes = tuple(check.evaluate(value) for check in checks)
        if not same_output(kept, self.output):
            first = len(self.outcomes)
            self.outputs.update((first + i, kept) for i in range(len(outcomes)))
        self.outcomes.extend(outcomes)
        self.named = named
        self.descriptions.update((c.name, c.description) for c in checks)
        failed = [o for o in outcomes if o.blocks]
        if failed:
            raise AssertionError("\n".join(f"gate {o.name!r} failed: {o.message}" for o in failed))
        return outcomes

    def unchecked(self, case: str, *, sampled: bool = True) -> str | None:
        """Why this sample of ``case`` checked nothing (it evaluated no check), or None.

        The failure of a sample of a test that asks for ``replaygate_checks`` and ended
        without evaluating one and without a failed assertion: counted as passed, it
        would meet the floor having looked at nothing (a guard such as ``if answer:``
        around ``evaluate``). An unsampled test (``sampled=False``) fails alike: it
        asked for the checks and ran none, and would pass green.
        """
        if self.outcomes:
            return None
        if not sampled:
            return (
                f"checked nothing: {case} asks for replaygate_checks but evaluated no check "
                "(replaygate_checks.evaluate was not called) and failed no assertion, so it "
                "does not pass; evaluate a gate or signal, or take replaygate_checks out of "
                "the test's arguments"
            )
        return (
            f"checked nothing: sample {self.index} of {case} evaluated no check "
            "(replaygate_checks.evaluate was not called) and failed no assertion, so it "
            "is not counted as passed; evaluate a gate or signal in every sample"
        )

    def result(self, failure: str | None = None) -> SampleResult:
        """This sample's result; ``failure`` is why it failed outside its checks (a
        plain assertion's message, a skip, a sample that checked nothing)."""
        gate_failed = any(o.blocks for o in self.outcomes)
        output = None if self.output is _UNSET else self.output
        # a failed gate already raised: its AssertionError is not a separate failure
        plain = None if gate_failed else failure
        return SampleResult(self.index, tuple(self.outcomes), output, plain, dict(self.outputs))
