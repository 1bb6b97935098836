"""pytest-repeat's repetitions of a test (``--count``, a ``repeat`` marker).

Each repetition is the test run again, under an id of its own (``test_x[2-3]``,
``test_x[a-2-3]`` for a parametrized one): it replays the test's store, its record
command names the test, and sampled tests refuse it (law 7)."""

from __future__ import annotations

import pytest

REPEAT_PARAM = "__pytest_repeat_step_number"
"""The parameter pytest-repeat gives each repetition of a test it repeats."""


def repetitions(item: pytest.Item) -> int:
    """How many times pytest-repeat runs ``item`` (0 when it does not repeat it)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or REPEAT_PARAM not in callspec.params:
        return 0
    marker = item.get_closest_marker("repeat")
    count = marker.args[0] if marker is not None and marker.args else None
    return int(count or item.config.getoption("count", 0) or 0)


def _repeat_id(item: pytest.Item) -> str | None:
    """The part of ``item``'s id pytest-repeat adds (``2-3``), or None."""
    count = repetitions(item)
    if not count:
        return None
    step = item.callspec.params[REPEAT_PARAM]  # type: ignore[attr-defined]
    return f"{step + 1}-{count}" if isinstance(step, int) else None


def unrepeated(item: pytest.Item, name: str) -> str:
    """``name`` (the item's name or node id) without pytest-repeat's part of its id
    (``test_x[2-3]``: ``test_x``; ``test_x[a-2-3]``: ``test_x[a]``); as it is when
    pytest-repeat does not repeat the item, or wrote its id otherwise."""
    repeat = _repeat_id(item)
    if repeat is None:
        return name
    if name.endswith(f"[{repeat}]"):
        return name[: -len(repeat) - 2]
    if name.endswith(f"-{repeat}]"):
        return f"{name[: -len(repeat) - 2]}]"
    return name
