"""Sampled runs without pytest: ``run_sampled(fn, n, floor, checks)``."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from replaygate.assertions.kinds import Check, require_unique_names
from replaygate.errors import has_control
from replaygate.sampling.advice import (
    SamplingWarning,
    sample_count_advice,
    signals_only_advice,
)
from replaygate.sampling.index_use import (
    unused_index_problem,
    unused_index_watch,
    watching_replays,
)
from replaygate.sampling.recorder import refuse_read_once, refuse_unawaited
from replaygate.sampling.results import (
    SampledResult,
    SampleResult,
    jsonable,
    refuse_plain_assert_name,
)
from replaygate.sampling.verdict import SampleSpec
from replaygate.type_names import a_type

T = TypeVar("T")


def run_sampled(
    fn: Callable[[int], T],
    n: int,
    floor: int,
    checks: Sequence[Check[T]],
    *,
    case: str | None = None,
) -> SampledResult:
    """Call ``fn(i)`` for each sample index ``i`` in ``0..n-1`` and evaluate ``checks``.

    ``fn`` builds its model for sample ``i`` (``ReplayModel(..., sample=i)``) and
    returns the output the checks look at. An :class:`AssertionError` from ``fn``
    fails that sample; any other exception, from ``fn`` or a check, propagates with a
    note naming the case, the sample (and the check): a broken sample is an error, not
    a failed one. No sample is ever retried. No checks at all is a ValueError (every
    sample would pass), and so is an ``fn`` that never reads its index yet replays
    fixtures holding several samples (every sample replayed the same one). Warns
    (:class:`SamplingWarning`) when ``n`` does not suit the checks, and when every check
    is a signal (the case gates nothing). ``case`` names the case in these and in the
    result (``"case"`` when None).
    """
    __tracebackhide__ = True
    SampleSpec(n, floor)
    _check_case(case)
    checks = _check_list(checks, case)
    if not checks:
        raise ValueError(
            f"{_named(case)}no checks given, so every sample would pass having checked "
            "nothing; give at least one gate or signal"
        )
    require_unique_names(checks)
    refuse_plain_assert_name(checks)
    for advice in (
        sample_count_advice(case, n, [c.category for c in checks]),
        signals_only_advice(case, [c.kind for c in checks]),
    ):
        if advice:
            warnings.warn(advice, SamplingWarning, stacklevel=2)
    with watching_replays(unused_index_watch(fn, n)) as watch:
        samples = _samples(fn, n, checks, case)
    problem = unused_index_problem(
        case, n, watch, "ReplayModel(..., sample=i) in fn(i), or a RuleStub's Rule(..., sample=i)"
    )
    if problem is not None:
        raise ValueError(problem)
    descriptions: dict[str, Any] = {c.name: c.description for c in checks}
    return SampledResult(case or "case", n, floor, tuple(samples), descriptions)


def _named(case: str | None) -> str:
    """``case X: `` leading an error about case ``X``; nothing when no case was named."""
    return "" if case is None else f"case {case}: "


def _check_case(case: object) -> None:
    """Refuse a ``case`` that names nothing (empty, which stood for ``"case"``, or only
    spaces, which no results file holds), or that holds a control character, which
    :func:`write_results` refuses, before any sample runs."""
    if case is None:
        return
    if not isinstance(case, str):
        raise TypeError(f"case must be text (str) or None, got {a_type(case)}")
    if not case.strip():
        raise ValueError(f"case must name the case, got {case!r}; leave it out for 'case'")
    if has_control(case):
        raise ValueError(
            f"case must hold no control character (a newline, a tab, an escape): it is "
            f"printed on terminals and pages, and no results file holds it, got {case!r}"
        )


def _check_list(checks: Any, case: str | None) -> tuple[Check[Any], ...]:
    """``checks`` as a tuple of :class:`Check`; a TypeError naming what was given instead
    (one check not in a list, a name, a list nested in the list)."""
    if isinstance(checks, Check | str) or not isinstance(checks, Iterable):
        raise TypeError(
            f"{_named(case)}checks must be a list of Check objects, got a "
            f"{type(checks).__name__}: give one check as [check]"
        )
    given = tuple(checks)  # read once: a generator is empty the second time
    for position, check in enumerate(given):
        if not isinstance(check, Check):
            raise TypeError(
                f"{_named(case)}checks[{position}] is {a_type(check)}, not a Check: "
                "make each with a check factory (citations_check, contains_check, ...)"
            )
    return given


def _samples(
    fn: Callable[[int], T], n: int, checks: tuple[Check[T], ...], case: str | None
) -> list[SampleResult]:
    """Each sample's result, in index order; an exception names its sample and case."""
    __tracebackhide__ = True
    samples: list[SampleResult] = []
    for index in range(n):
        try:
            samples.append(_sample(fn, index, checks))
        except Exception as err:  # from fn or a check (which names itself): say where
            of_case = "" if case is None else f" of case {case}"
            err.add_note(f"raised in sample {index} of {n}{of_case}")
            raise
    return samples


def _sample(fn: Callable[[int], T], index: int, checks: tuple[Check[T], ...]) -> SampleResult:
    """Sample ``index``: ``fn``'s output and the checks' outcomes on it; an
    :class:`AssertionError` from ``fn`` fails the sample."""
    __tracebackhide__ = True
    try:
        value = fn(index)
    except AssertionError as err:
        return SampleResult(index, failure=str(err) or "assertion failed")
    refuse_unawaited(
        value,
        "fn returned",
        "run_sampled calls fn(i) without await",
        "Give a plain function (def) that returns the output, running the agent's coroutine "
        "to its end inside it",
    )
    refuse_read_once(
        value,
        "fn returned",
        "Return its items as a list (list(...)), or the text they make up joined",
    )
    return SampleResult(index, tuple(check.evaluate(value) for check in checks), jsonable(value))
