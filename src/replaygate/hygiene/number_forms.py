"""Integers that were written as floats when a request was recorded (``1.0``, now ``1``).

A tool that reads and writes JSON with doubles may write a float whose value is whole as an
integer: jq 1.6 writes ``"temperature": 1.0`` as ``1``. The request then looks unchanged,
but its canonical form, and so its key, is not the one recorded. :func:`floats_written_whole`
finds the integers that, written as floats again, give the request its stored key.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from replaygate.fixtures.fingerprint import digest
from replaygate.json_paths import path_step

__all__ = ["floats_written_whole"]

_MOST = 16
"""The most integers a request may hold to be searched: a digest for each one, pair of
them, and all of them together, on the path of an error only."""
_EXACT = 2**53
"""Beyond it a double holds not every integer, so a float there was no such rewrite."""

Step = str | int


def floats_written_whole(request: Any, key: str) -> list[str] | None:
    """The paths (``body.temperature``) of the integers of ``request`` that were floats
    when its stored ``key`` was computed, or None when no such set (one integer, two, or
    all of them) gives that key."""
    found = list(_integers(request, ()))
    if not found or len(found) > _MOST:
        return None
    sets = [*combinations(found, 1), *combinations(found, 2), tuple(found)]
    for chosen in sets:
        if digest(_as_floats(request, set(chosen), ())).startswith(key):
            return [_shown(path) for path in chosen]
    return None


def _integers(value: Any, path: tuple[Step, ...]) -> Iterator[tuple[Step, ...]]:
    """The paths of the integers (no booleans) a double holds exactly in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _integers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _integers(item, (*path, index))
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _EXACT:
        yield path


def _as_floats(value: Any, paths: set[tuple[Step, ...]], path: tuple[Step, ...]) -> Any:
    """``value`` with the integers at ``paths`` made floats."""
    if path in paths:
        return float(value)
    if isinstance(value, dict):
        return {key: _as_floats(item, paths, (*path, key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_floats(item, paths, (*path, index)) for index, item in enumerate(value)]
    return value


def _shown(path: tuple[Step, ...]) -> str:
    """``path`` as replaygate writes a field path: ``body.messages[0].n``."""
    shown = ""
    for step in path:
        shown = f"{shown}[{step}]" if isinstance(step, int) else path_step(shown, step)
    return shown
