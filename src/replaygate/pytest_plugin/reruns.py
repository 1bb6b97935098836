"""Detecting pytest-rerunfailures' reruns, which sampled tests refuse (law 7)."""

from __future__ import annotations

from typing import Any

import pytest

RERUNS_REFUSED = (
    "no automatic retries (law 7): a rerun turns a failing sample into noise and hides "
    "the distribution the floor is about. A sampled test already declares how many "
    "samples it takes and how many must pass; drop --reruns and the flaky marker "
    "for it, or lower its floor after measuring."
)


def _as_int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def session_reruns(config: pytest.Config) -> int:
    """The reruns pytest-rerunfailures would give every test (``--reruns``, ini, forced)."""
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return 0
    forced = _as_int(config.getoption("force_reruns", None))
    if forced:
        return forced
    option = config.getoption("reruns", None)
    if option is not None:
        return _as_int(option)
    try:
        return _as_int(config.getini("reruns"))
    except ValueError:
        return 0


def item_reruns(item: pytest.Item) -> int:
    """The reruns pytest-rerunfailures would give ``item`` (its ``flaky`` marker or global)."""
    config = item.config
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return 0
    marker = item.get_closest_marker("flaky")
    if marker is not None:
        if "reruns" in marker.kwargs:
            return _as_int(marker.kwargs["reruns"])
        return _as_int(marker.args[0]) if marker.args else 1
    return session_reruns(config)
