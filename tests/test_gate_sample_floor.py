"""A case whose samples or floor changed expects less unless it is at least as strict
for every pass rate per sample.

A new (samples, floor) may be passed by luck more often than the old at some pass rate
though its median rate is no lower: 1 of 1 moved to 50 of 99 demands the same median
rate, 0.5, but an agent passing 70% of its samples meets the old floor 70% of the time
and the new one nearly always. The gate called it "expects otherwise" and passed.
"""

from __future__ import annotations

import math

import pytest

from replaygate.evals import GateConfig, run_gate
from replaygate.evals.case_changes import as_strict
from test_gate import case, reference, results

GRID = [i / 1000 for i in range(1001)]


def meets(samples: int, floor: int, p: float) -> float:
    """``P(Binomial(samples, p) >= floor)``."""
    return math.fsum(
        math.comb(samples, j) * p**j * (1 - p) ** (samples - j) for j in range(floor, samples + 1)
    )


def test_as_strict_is_passed_no_more_often_at_any_pass_rate() -> None:
    pairs = [(n, k) for n in range(1, 9) for k in range(1, n + 1)]
    curves = {pair: [meets(*pair, p) for p in GRID] for pair in pairs}
    for old in pairs:
        for new in pairs:
            on_grid = all(a <= b + 1e-12 for a, b in zip(curves[new], curves[old], strict=True))
            assert as_strict(old, new) == on_grid, (old, new)


@pytest.mark.parametrize(
    ("n", "floor", "weakened"),
    [
        (99, 50, True),  # the same median rate, passed nearly always at p = 0.7
        (3, 2, True),  # 0.70 -> 0.78 at p = 0.7
        (5, 4, True),  # 0.90 -> 0.92 at p = 0.9
        (5, 1, True),  # one pass of five is met by luck
        (2, 1, True),
        (2, 2, False),  # every sample of two
        (5, 5, False),
    ],
)
def test_a_case_moved_from_one_sample_is_weakened_unless_as_strict_at_every_rate(
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


def test_a_higher_floor_of_as_many_samples_is_noted() -> None:
    base = results(case("a", 5), case("b", 5, n=5, floor=3))
    now = results(case("a", 5), case("b", 5, n=5, floor=4))
    report = run_gate(reference(base), reference(now), GateConfig())
    assert report.passed, report.problems
    assert report.notes == ("case b expects otherwise than in the baseline (floor 3 -> 4)",)


def test_fewer_samples_weaken_a_case_whatever_its_floor() -> None:
    base = results(case("a", 5), case("b", 5, n=10, floor=5))
    now = results(case("a", 5), case("b", 5, n=5, floor=5))
    report = run_gate(reference(base), reference(now), GateConfig())
    assert report.problems[0].startswith("case b expects less than in the baseline (samples 10")
