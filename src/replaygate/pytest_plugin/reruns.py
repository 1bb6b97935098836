"""Detecting pytest-rerunfailures' reruns and pytest-retry's retries, which sampled tests
refuse (law 7)."""

from __future__ import annotations

from typing import Any

import pytest

RERUNS_REFUSED = (
    "no automatic retries (law 7): a rerun turns a failing sample into noise and hides "
    "the distribution the floor is about. A sampled test already declares how many "
    "samples it takes and how many must pass; drop the option that reruns it (--reruns, "
    "--retries, --force-flaky) and its flaky marker or decorator, or lower its floor after "
    "measuring."
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


RETRY_PLUGIN = "pytest-retry"
"""The name pytest-retry is registered under (its ``pytest11`` entry point)."""


def session_retries(config: pytest.Config) -> int:
    """The retries pytest-retry gives every test (``--retries``, or the ``retries`` ini
    value), which it adds to each test as a ``flaky`` marker."""
    if not config.pluginmanager.hasplugin(RETRY_PLUGIN):
        return 0
    option = config.getoption("retries", None)
    if option is not None:
        return _as_int(option)
    try:
        return _as_int(config.getini("retries"))
    except ValueError:
        return 0


FLAKY_PLUGIN = "flaky"
"""The name the ``flaky`` package's pytest plugin is registered under."""


def flaky_reruns(item: pytest.Item) -> int:
    """The reruns the ``flaky`` package would give ``item``: its ``@flaky(max_runs=N)``
    decorator, its ``flaky`` marker, or the session's ``--force-flaky`` (``--max-runs``),
    each run after the first (``max_runs`` 2 by default)."""
    config = item.config
    if not config.pluginmanager.hasplugin(FLAKY_PLUGIN):
        return 0
    runs = getattr(getattr(item, "obj", None), "_flaky_max_runs", None)
    marker = item.get_closest_marker("flaky")
    if runs is None and marker is not None:
        runs = marker.kwargs.get("max_runs", marker.args[0] if marker.args else 2)
    if runs is None and config.getoption("force_flaky", False):
        runs = config.getoption("max_runs", None) or 2
    return max(0, _as_int(runs) - 1)


def item_retries(item: pytest.Item) -> tuple[str, int]:
    """The plugin that would run ``item`` again after it fails and how often it would:
    pytest-rerunfailures' reruns, the ``flaky`` package's (:func:`flaky_reruns`), or
    pytest-retry's retries (its ``flaky`` marker, whose retries default to the session's
    or 1, unless its ``condition`` is false; or the session's ``--retries``); ``("", 0)``
    when none would."""
    reruns = item_reruns(item)
    if reruns:
        return "pytest-rerunfailures", reruns
    reruns = flaky_reruns(item)
    if reruns:
        return "the flaky plugin", reruns
    config = item.config
    if not config.pluginmanager.hasplugin(RETRY_PLUGIN):
        return "", 0
    marker = item.get_closest_marker("flaky")
    if marker is None:
        retries = session_retries(config)
    elif marker.kwargs.get("condition", True) is False:
        retries = 0
    else:
        retries = _as_int(marker.kwargs.get("retries", session_retries(config) or 1))
    return (RETRY_PLUGIN, retries) if retries else ("", 0)


def without_retries(item: pytest.Item) -> None:
    """Keep pytest-retry from retrying ``item`` in this session: a ``flaky`` marker whose
    ``condition`` is false, closest to the test, is one it does not act on. Its retries run
    inside each run (in the report hook), where a flaky run of ``--flaky-runs`` that
    failed was retried until it passed, and the flaky test was never listed."""
    item.add_marker(pytest.mark.flaky(condition=False), append=False)
