"""A case whose samples or floor changed is weakened by the pass rate its floor demands.

4 of 5 asks a lower share of passing samples than 1 of 1, but more samples are stronger
evidence: an agent that passes half its samples meets 1 of 1 half the time and 4 of 5
one time in five. The gate called 1 of 1 moved to 4 of 5 "expects less" and failed.
"""

from __future__ import annotations

import pytest

from replaygate.evals import GateConfig, run_gate
from replaygate.evals.demanded_rate import demanded_rate
from test_gate import case, reference, results


@pytest.mark.parametrize(
    ("samples", "floor", "rate"),
    [(1, 1, 0.5), (5, 4, 0.6862), (6, 4, 0.5786), (6, 5, 0.7356), (5, 1, 0.1294), (3, 2, 0.5)],
)
def test_the_rate_a_floor_demands_is_met_half_the_time(
    samples: int, floor: int, rate: float
) -> None:
    assert demanded_rate(samples, floor) == pytest.approx(rate, abs=1e-4)


def test_a_large_case_is_weighed_at_once() -> None:
    assert demanded_rate(10_000, 5_000) == pytest.approx(0.49995, abs=1e-5)
    assert demanded_rate(10_000, 1) == pytest.approx(6.93e-5, rel=1e-3)


@pytest.mark.parametrize(
    ("n", "floor", "weakened"),
    [
        (5, 4, False),  # a lower share of more samples, demanding more
        (3, 2, False),  # as much demanded: 0.5
        (5, 1, True),  # one pass of five is met by luck
        (2, 1, True),
    ],
)
def test_a_case_moved_from_one_sample_is_weakened_only_when_its_floor_demands_less(
    n: int, floor: int, weakened: bool
) -> None:
    base = results(case("a", 5), case("b", 1, n=1, floor=1))
    now = results(case("a", 5), case("b", n, n=n, floor=floor))
    report = run_gate(reference(base), reference(now), GateConfig())
    change = f"samples 1 -> {n}" + (f", floor 1 -> {floor}" if floor != 1 else "")
    if weakened:
        assert report.problems[0].startswith(f"case b expects less than in the baseline ({change})")
    else:
        assert report.passed, report.problems
        assert report.notes == (f"case b expects otherwise than in the baseline ({change})",)


def test_fewer_samples_weaken_a_case_whatever_its_floor() -> None:
    base = results(case("a", 5), case("b", 5, n=10, floor=5))
    now = results(case("a", 5), case("b", 5, n=5, floor=5))  # demands 0.87, from 0.47
    report = run_gate(reference(base), reference(now), GateConfig())
    assert report.problems[0].startswith("case b expects less than in the baseline (samples 10")
