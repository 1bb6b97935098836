"""Readers of JSON and TOML that recurse do not collect garbage near Python's recursion
limit: a collection there would fail the finalizers of unrelated objects ("Exception
ignored in ..."), which pytest reports as a failure of whichever test was running."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from replaygate.config import TomlFileError, read_toml
from replaygate.strict_json import loads, plain_loads

NEAR = 40
"""Calls short of the recursion limit that count as near it: a probe of as many calls
raises ``RecursionError`` there, and stays within the 50 calls Python allows past the
limit while it raises one."""


def near_the_limit() -> bool:
    """Whether the stack here is within :data:`NEAR` calls of Python's recursion limit."""

    def deeper(calls: int) -> None:
        if calls:
            deeper(calls - 1)

    try:
        deeper(NEAR)
    except RecursionError:
        return True
    return False


@contextmanager
def collections_watched() -> Iterator[list[bool]]:
    """For each collection started in the block, whether it ran near the recursion limit
    (:func:`near_the_limit`), the collector made to run at every allocation of a tracked
    object."""
    seen: list[bool] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":  # the probe runs with no collection of its own
            gc.disable()
            seen.append(near_the_limit())
            gc.enable()

    threshold = gc.get_threshold()
    gc.callbacks.append(note)
    gc.set_threshold(1)
    try:
        yield seen
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(note)


@pytest.mark.parametrize("read", [loads, plain_loads], ids=["loads", "plain_loads"])
def test_json_nested_near_the_limit_is_parsed_with_no_collection(
    read: Callable[[str], object],
) -> None:
    deep = "[" * 1_000 + "]" * 1_000  # within orjson's limit: parsed, as far as it goes
    with collections_watched() as seen, suppress(RecursionError):
        read(deep)
    assert seen and not any(seen)


def test_toml_nested_too_deeply_is_parsed_with_no_collection(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("zz = " + "[" * 2_000 + "]" * 2_000 + "\n")
    with collections_watched() as seen, pytest.raises(TomlFileError, match="too deeply"):
        read_toml(config)
    assert seen and not any(seen)
