"""A miss in a run where pytest-randomly seeds ``random`` before each test. A request
holding a value drawn at random, recorded under one run's seed, misses under the next
one's: the miss told to re-record it if the change was meant, which only added a fixture
the next run missed again, and said nothing of the seed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.pytest_plugin.offline import USES_REPLAYGATE
from replaygate.pytest_plugin.randomly_note import RandomlyNote, values_changed


def _miss(*differences: str, kind: Any = "changed") -> FixtureMismatchError:
    return FixtureMismatchError("no fixture", key="k", differences=differences, kind=kind)


def _noted(error: BaseException, given: object = "default") -> list[str]:
    """The notes the plugin adds to ``error``, the error a test failed with, in a run given
    ``given`` as ``--randomly-seed`` (``default`` when none is given)."""
    options = {"randomly_seed": 1234}
    item = SimpleNamespace(
        fixturenames=[USES_REPLAYGATE],
        get_closest_marker=lambda name: None,
        config=SimpleNamespace(
            getoption=lambda name, default=None: options.get(name, default),
            known_args_namespace=SimpleNamespace(randomly_seed=given),
        ),
    )
    call = SimpleNamespace(excinfo=SimpleNamespace(value=error))
    hook = RandomlyNote().pytest_runtest_makereport(item, call)  # type: ignore[arg-type]
    next(hook)
    with pytest.raises(StopIteration):
        hook.send(SimpleNamespace())  # type: ignore[arg-type]
    return list(getattr(error, "__notes__", ()))


def test_a_miss_of_changed_body_values_names_the_runs_seed() -> None:
    error = _miss("body.messages[0].content: 'number 204189' != 'number 741576'")
    (note,) = _noted(error)
    assert note.startswith(
        "replaygate: pytest-randomly seeded random (and Faker, NumPy) before this test from "
        "this run's seed, 1234 (--randomly-seed=1234), new in every run unless given"
    )
    wrapped = RuntimeError("the agent failed")  # a framework's error over the miss
    wrapped.__cause__ = _miss("body.temperature: 0.25 != 0.75")
    assert len(_noted(wrapped)) == 1


@pytest.mark.parametrize(
    "miss",
    [
        _miss("body.service_tier: <missing> != 'auto'"),  # a field the SDK added
        _miss("headers.anthropic-version: '2023-06-01' != '2026-10-21'"),
        _miss(kind="not-recorded"),
    ],
)
def test_a_miss_no_random_value_makes_gets_no_note(miss: FixtureMismatchError) -> None:
    assert not values_changed(miss)
    assert _noted(miss) == []


@pytest.mark.parametrize("given", ["default", "last"])
def test_a_seed_not_given_as_a_number_gets_the_note(given: str) -> None:
    assert len(_noted(_miss("body.system: 'Be brief.' != 'Be brief!'"), given)) == 1


def test_a_run_given_its_seed_gets_no_note() -> None:
    """With ``--randomly-seed=N`` (the note's own advice, in the ini file's ``addopts``) each
    run draws the same values, and a recording made with that seed replays: the note said
    every run sends another value and recording again does not help, on every edited
    prompt."""
    assert _noted(_miss("body.system: 'Be brief.' != 'Be brief!'"), given=1234) == []
