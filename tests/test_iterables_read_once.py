"""Pieces, ids and tags given as any iterable are read once, and a lone string is refused.

A generator given as the pieces a text must contain was read up by the check of the
arguments: every text then contained all "0 required pieces", and each check passed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from replaygate.assertions import assert_contains, contains_check, measure_contains
from replaygate.evals import EvalCase


def pieces() -> Iterator[str]:
    yield "zzz"


def test_a_generator_of_required_pieces_is_required_in_full() -> None:
    with pytest.raises(AssertionError, match="missing 1 of 1 required piece"):
        assert_contains("abc", pieces())
    check = contains_check(pieces(), kind="gate")
    for _ in range(2):  # each sample's text is measured against every piece
        assert not check.evaluate("abc").passed
    assert check.evaluate("has zzz").passed


@pytest.mark.parametrize(("given", "kind"), [("zzz", "one string"), (b"zzz", "bytes")])
def test_one_string_or_bytes_as_the_pieces_is_refused(given: object, kind: str) -> None:
    with pytest.raises(TypeError, match=f"required must be a sequence of strings, not {kind}"):
        measure_contains("abc", given)  # type: ignore[arg-type]


def test_an_eval_case_keeps_its_iterables_as_tuples_and_refuses_a_string() -> None:
    case = EvalCase("c", "q?", 1, 1, must_contain=pieces(), tags=iter(["t"]))  # type: ignore[arg-type]
    assert (case.must_contain, case.tags) == (("zzz",), ("t",))
    with pytest.raises(TypeError, match=r"EvalCase\.signals: a list of strings, got .contains."):
        EvalCase("c", "q?", 1, 1, must_contain=("x",), signals="contains")  # type: ignore[arg-type]
