"""The settings of a test's record/replay session: the run's, ``replaygate_config``'s, the
marker's, each overriding the one before.

``replaygate_config`` is a fixture returning a dict, overridden in a ``conftest.py`` or a
test module the way pytest-recording's ``vcr_config`` is. Its keys are those of
:class:`~replaygate.http.exchange.SessionOptions` but the approval, which is given on
the command line of a run and nowhere else (law 3).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pytest

from replaygate.errors import kind_of
from replaygate.fixtures.spending import SpendingCap
from replaygate.regular import backslashed

CONFIG_KEYS = ("match_host", "source", "interface", "note", "sanitize", "repeat_last", "cap")
"""What ``replaygate_config`` may set."""
MARKER_ARGUMENTS = (
    "fixtures",
    "interface",
    "source",
    "repeat_last",
    "expect_requests",
    "expect_caught_errors",
    "match_host",
    "note",
)
FLAGS = ("repeat_last", "expect_requests", "expect_caught_errors", "match_host")
"""Arguments that must be ``True`` or ``False``."""
TEXTS = ("interface", "source", "note")
"""Arguments that must be a string."""


def _wrong_types(given: Mapping[str, Any]) -> list[str]:
    """What is wrong with the types of ``given``'s values, one phrase each."""
    wrong = [
        f"{name} must be True or False"
        for name in FLAGS
        if name in given and not isinstance(given[name], bool)
    ]
    wrong += [f"{name} must be a string" for name in TEXTS if _given(given, name, str)]
    if _given(given, "fixtures", (str, os.PathLike)):
        wrong.append(
            f"fixtures must be a path (a string or a Path), not {kind_of(given['fixtures'])}"
        )
    return wrong


def _given(given: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> bool:
    """Whether ``name`` is given with a value that is not ``kind`` (``None`` is not given)."""
    return given.get(name) is not None and not isinstance(given[name], kind)


def config_settings(config: object, nodeid: str) -> dict[str, Any]:
    """``replaygate_config``'s value, checked; a wrong one fails the test naming the key."""
    where = f"replaygate_config (used by {nodeid})"
    if not isinstance(config, Mapping):
        got = "None (it returned nothing: a `return` left out?)" if config is None else None
        pytest.fail(f"{where} must return a dict, not {got or kind_of(config)}", pytrace=False)
    problems = []
    if "approve_live" in config:
        problems.append(
            "approve_live cannot be configured: approve a recording on the command line "
            "of that run (--replaygate-approve-live)"
        )
    unknown = sorted(str(k) for k in config if k not in CONFIG_KEYS and k != "approve_live")
    if unknown:
        problems.append(f"unknown key(s) {', '.join(unknown)} (it takes {', '.join(CONFIG_KEYS)})")
    problems.extend(_wrong_types(config))
    if config.get("cap") is not None and not isinstance(config["cap"], SpendingCap):
        problems.append("cap must be a SpendingCap (replaygate.fixtures.spending) or None")
    if config.get("sanitize") is not None:
        from replaygate.sanitize import SanitizeConfig, Sanitizer

        if not isinstance(config["sanitize"], SanitizeConfig | Sanitizer):
            problems.append(
                "sanitize must be a SanitizeConfig or a Sanitizer (replaygate.sanitize) or "
                f"None, not {kind_of(config['sanitize'])}: a table of [tool.replaygate.sanitize]"
                " is SanitizeConfig.from_mapping({...})"
            )
    if problems:
        pytest.fail(f"{where}: " + "; ".join(problems), pytrace=False)
    return dict(config)


def _control_character(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot name a store for its first control character, or None: NUL no
    file's name holds; the others (a newline, a tab) no Windows file's name holds, and a
    listing shows them as nothing or as an escape."""
    control = next((c for c in str(os.fspath(path)) if c < " " or c == "\x7f"), None)
    if control is None:
        return None
    if control == "\0":
        return "holds a NUL character, which no file's name holds"
    return f"holds a control character {control!r}, which no file's name holds on Windows"


def marker_arguments(marker: pytest.Mark | None, nodeid: str) -> dict[str, Any]:
    """The arguments given to the ``replaygate`` marker, checked; a wrong one fails the test."""
    if marker is None:
        return {}
    given = dict(marker.kwargs)
    problems = []
    if len(marker.args) > 1:
        problems.append(
            f"{len(marker.args)} positional arguments {marker.args!r} (it takes one, the store)"
        )
    if marker.args and "fixtures" in given:
        problems.append(
            f"the store is given twice: {marker.args[0]!r} and fixtures={given['fixtures']!r}"
        )
    if marker.args:
        given.setdefault("fixtures", marker.args[0])
    unknown = sorted(set(given) - set(MARKER_ARGUMENTS))
    problems += [f"unknown argument(s) {', '.join(unknown)}"] if unknown else []
    problems += _wrong_types(given)
    chosen = given.get("fixtures")
    if isinstance(chosen, str | os.PathLike) and not os.fspath(chosen):
        problems.append("fixtures is empty (name a store, or leave it out for the test's own)")
    control = _control_character(chosen) if isinstance(chosen, str | os.PathLike) else None
    if control is not None:
        problems.append(f"fixtures {control}: {chosen!r}")
    slashed = backslashed(chosen) if isinstance(chosen, str) else None
    if slashed is not None:
        problems.append(f"fixtures {slashed}")
    if problems:
        pytest.fail(
            f"@pytest.mark.replaygate on {nodeid}: {'; '.join(problems)} "
            f"(it takes {', '.join(MARKER_ARGUMENTS)})",
            pytrace=False,
        )
    return given


def session_settings(
    run: Mapping[str, Any], configured: Mapping[str, Any], marker: Mapping[str, Any]
) -> dict[str, Any]:
    """The session's settings: the run's, overridden by the config's, then the marker's."""
    from_marker = {k: v for k, v in marker.items() if k in CONFIG_KEYS}
    return {**run, **configured, **from_marker}
