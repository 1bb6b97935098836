"""A note on a miss in a run where pytest-randomly seeds ``random`` before each test.

pytest-randomly, once installed, seeds ``random`` (and Faker, NumPy, ...) before each test
from the run's seed and the test's id, and picks a new seed for every run unless
``--randomly-seed`` gives one. A request holding a value drawn from them (a random example
in a prompt) was recorded under one seed and is sent under another by the next run: it
misses in every run, and recording it again, as the miss advises for a change that was
meant, only adds a fixture the next run misses too. A miss whose every difference is a
value of the body that changed (none added or removed) gets a note naming the run's seed
and how to hold it, unless the run was given its seed, as the note advises: every run then
draws the same values, and a recording made with that seed replays.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from replaygate.errors import FixtureMismatchError, exception_chain
from replaygate.pytest_plugin.offline import uses_replaygate

PLUGIN = "replaygate-randomly-note"


def reseeds_random(config: pytest.Config) -> bool:
    """Whether pytest-randomly sets ``random``'s seed before each test, to one value per test
    (it does, once installed, unless ``-p no:randomly`` or ``--randomly-dont-reset-seed``)."""
    if not config.pluginmanager.hasplugin("randomly"):
        return False
    return bool(config.getoption("randomly_reset_seed", True))


def seed_given(config: pytest.Config) -> bool:
    """Whether the run was given its seed as a number (``--randomly-seed=N`` on the command
    line, in the ini file's ``addopts`` or in ``PYTEST_ADDOPTS``), as pytest parsed its
    arguments, before pytest-randomly put a new seed in place of none (or of ``last``)."""
    return isinstance(getattr(config.known_args_namespace, "randomly_seed", None), int)


def values_changed(error: FixtureMismatchError) -> bool:
    """Whether ``error`` compared its request with a recorded one whose body differs only in
    values, none added or removed: what a value drawn at random makes of a request."""
    lines = error.differences
    return (
        error.kind == "changed"
        and bool(lines)
        and all(line.startswith("body.") and "<missing>" not in line for line in lines)
    )


def randomly_note(seed: object) -> str:
    """What a miss of a run seeded with ``seed`` by pytest-randomly adds."""
    return (
        f"replaygate: pytest-randomly seeded random (and Faker, NumPy) before this test from "
        f"this run's seed, {seed} (--randomly-seed={seed}), new in every run unless given: "
        "if the value that differs was drawn from one of them, every run sends another, and "
        "recording it again does not help. Draw it from a generator of the test's own with a "
        "fixed seed (random.Random(0)), or record and replay with one seed "
        "(--randomly-seed=N in the ini file's addopts: each test's is drawn from it and the "
        "test's id)."
    )


class RandomlyNote:
    """Adds :func:`randomly_note` to the miss a replaygate test fails with."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Note the run's seed on the error before its report is made."""
        error = None if call.excinfo is None else call.excinfo.value
        if error is not None and uses_replaygate(item) and not seed_given(item.config):
            miss = next(
                (e for e in exception_chain(error) if isinstance(e, FixtureMismatchError)), None
            )
            if miss is not None and values_changed(miss):
                note = randomly_note(item.config.getoption("randomly_seed", None))
                if note not in getattr(error, "__notes__", ()):  # a fixture's, raised again
                    error.add_note(note)
        return (yield)
