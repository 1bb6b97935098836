"""A ``sampled`` mark declared twice where one was read is refused (law 7).

Two marks on one test (``@sampled(n=10, floor=10)`` over ``@sampled(n=1, floor=1)``)
ran the test once, on the closest one, and it passed where ten samples would have
blocked; ``@sampled(5, 4, floor=2)`` took the floor by name over the floor by
position, without a word. A mark on the test over one on its class or module is an
override, as for every pytest mark.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own

TWICE = """
import pytest


@pytest.mark.sampled(n=10, floor=10)
@pytest.mark.sampled(n=1, floor=1)
def test_stacked(replaygate_sample):
    assert replaygate_sample == 0


@pytest.mark.sampled(5, 4, floor=2)
def test_floor_twice(replaygate_sample):
    pass
"""
MODULE_TWICE = """
import pytest

pytestmark = [pytest.mark.sampled(n=3, floor=3), pytest.mark.sampled(n=5, floor=4)]


def test_module(replaygate_sample):
    pass
"""
OVERRIDES = """
import pytest

pytestmark = pytest.mark.sampled(n=3, floor=3)


@pytest.mark.sampled(n=1, floor=1)
def test_own(replaygate_sample):
    assert replaygate_sample == 0


def test_from_the_module(replaygate_sample):
    assert replaygate_sample < 3


@pytest.mark.sampled(n=2, floor=2)
class TestClass:
    def test_from_the_class(self, replaygate_sample):
        assert replaygate_sample < 2


SEEN = {}


@pytest.mark.sampled(n=4, floor=4)
class TestStricter(TestClass):  # its own mark wins over the one it inherits
    def test_from_the_class(self, replaygate_sample):
        SEEN.setdefault("stricter", set()).add(replaygate_sample)


class TestInheriting(TestClass):  # the nearest class declaring one
    def test_from_the_class(self, replaygate_sample):
        SEEN.setdefault("inheriting", set()).add(replaygate_sample)


def test_the_samples_each_class_ran(replaygate_sample):
    assert SEEN == {"stricter": {0, 1, 2, 3}, "inheriting": {0, 1}}
"""


def test_a_sampled_mark_given_twice_is_refused_before_anything_runs(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_twice=TWICE, test_module_twice=MODULE_TWICE)
    result = pytester.runpytest("-p", "no:recording")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert (
        "test_twice.py::test_stacked: @pytest.mark.sampled is declared 2 times on the test "
        "(() {'n': 1, 'floor': 1}, () {'n': 10, 'floor': 10}): declare the sample count and "
        "floor once (law 7)"
    ) in errors
    assert (
        "test_twice.py::test_floor_twice: @pytest.mark.sampled gives floor twice, by position "
        "and by name: (5, 4) {'floor': 2}; give each once"
    ) in errors
    assert "test_module_twice.py::test_module: @pytest.mark.sampled is declared 2 times on " in (
        errors
    )


def test_the_closest_of_marks_on_the_test_class_and_module_is_the_declaration(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_overrides=OVERRIDES)
    result = pytester.runpytest("-p", "no:recording", "-W", "ignore::UserWarning")
    result.assert_outcomes(passed=6)  # each on its own count: a larger one would fail it
