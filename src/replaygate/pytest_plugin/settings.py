"""The settings of a test's record/replay session: the run's, ``replaygate_config``'s, the
marker's, each overriding the one before.

``replaygate_config`` is a fixture returning a dict, overridden in a ``conftest.py`` or a
test module the way pytest-recording's ``vcr_config`` is. Its keys are those of
:class:`~replaygate.http.exchange.SessionOptions` but the approval, which is given on
the command line of a run and nowhere else (law 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from replaygate.fixtures.spending import SpendingCap
from replaygate.jsondoc import kind_of

CONFIG_KEYS = ("match_host", "source", "interface", "note", "sanitize", "repeat_last", "cap")
"""What ``replaygate_config`` may set."""
MARKER_ARGUMENTS = (
    "fixtures",
    "interface",
    "source",
    "repeat_last",
    "expect_requests",
    "match_host",
    "note",
)
FLAGS = ("repeat_last", "expect_requests", "match_host")
"""Arguments that must be ``True`` or ``False``."""


def _wrong_flags(given: Mapping[str, Any]) -> list[str]:
    return sorted(name for name in FLAGS if name in given and not isinstance(given[name], bool))


def config_settings(config: object, nodeid: str) -> dict[str, Any]:
    """``replaygate_config``'s value, checked; a wrong one fails the test naming the key."""
    where = f"replaygate_config (used by {nodeid})"
    if not isinstance(config, Mapping):
        pytest.fail(f"{where} must return a dict, not {kind_of(config)}", pytrace=False)
    problems = []
    if "approve_live" in config:
        problems.append(
            "approve_live cannot be configured: approve a recording on the command line "
            "of that run (--replaygate-approve-live)"
        )
    unknown = sorted(str(k) for k in config if k not in CONFIG_KEYS and k != "approve_live")
    if unknown:
        problems.append(f"unknown key(s) {', '.join(unknown)} (it takes {', '.join(CONFIG_KEYS)})")
    problems.extend(f"{name} must be True or False" for name in _wrong_flags(config))
    if config.get("cap") is not None and not isinstance(config["cap"], SpendingCap):
        problems.append("cap must be a SpendingCap (replaygate.fixtures.spending) or None")
    if problems:
        pytest.fail(f"{where}: " + "; ".join(problems), pytrace=False)
    return dict(config)


def marker_arguments(marker: pytest.Mark | None, nodeid: str) -> dict[str, Any]:
    """The arguments given to the ``replaygate`` marker, checked; a wrong one fails the test."""
    if marker is None:
        return {}
    given = dict(marker.kwargs)
    if marker.args:
        given.setdefault("fixtures", marker.args[0])
    unknown = sorted(set(given) - set(MARKER_ARGUMENTS))
    wrong = _wrong_flags(given)
    if unknown or wrong:
        what = f"unknown argument(s) {', '.join(unknown)}" if unknown else ""
        what += "; " if unknown and wrong else ""
        what += f"{', '.join(wrong)} must be True or False" if wrong else ""
        pytest.fail(
            f"@pytest.mark.replaygate on {nodeid}: {what} (it takes {', '.join(MARKER_ARGUMENTS)})",
            pytrace=False,
        )
    return given


def session_settings(
    run: Mapping[str, Any], configured: Mapping[str, Any], marker: Mapping[str, Any]
) -> dict[str, Any]:
    """The session's settings: the run's, overridden by the config's, then the marker's."""
    from_marker = {k: v for k, v in marker.items() if k in CONFIG_KEYS}
    return {**run, **configured, **from_marker}
