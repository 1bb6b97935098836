"""What part of the suite a pytest session runs, as the plugin's messages name it."""

from __future__ import annotations

import pytest


def whole_suite_of_one(session: pytest.Session) -> bool:
    """Whether ``session`` ran the whole suite, and it is one test: no path or test named,
    none chosen by ``-k``, ``-m``, ``--deselect`` or ``--lf``, one collected (a project's
    first test, as in docs/quickstart-own-project.md)."""
    config = session.config
    chosen = any(config.getoption(name, None) for name in ("keyword", "markexpr", "deselect", "lf"))
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    return len(session.items) == 1 and not chosen and not named
