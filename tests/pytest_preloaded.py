"""Imported by the interpreter the tests' ``pytest`` processes are forked from
(tests/forked_cli.py, tests/test_pytest_coexist.py): pytest and every installed plugin
loaded once, as a ``pytest`` process loads them, with the libraries the generated
projects use.

The plugins are loaded by a ``pytest --version --version`` run in an empty folder:
through their entry points, with the modules pytest rewrites the asserts of rewritten,
and vcrpy (which pytest-recording imports as its first cassette is used) imported there
too, its matchers' asserts rewritten as pytest-recording asks, and Hypothesis (which its
plugin imports as every session ends, its asserts rewritten as the plugin's distribution
asks: about 0.3 s of CPU a session); and nothing configured:
no plugin's ``pytest_configure`` runs, no session starts, so each forked ``pytest``
starts from a process no session has run in. A fresh ``pytest`` process that loads
pytest-recording and vcrpy costs about 1 s of CPU; a fork, little. What was loaded is
then frozen out of the garbage collector's reach (``gc.freeze``, as Python's
documentation advises before a fork): each fork's collections, and those of its exit,
walked all of it again.
"""

import contextlib
import gc
import io
import os
import sys
import tempfile
from pathlib import Path

import pytest


class _WhileLoaded:
    """Imports vcrpy as pytest-recording does, and Hypothesis as its plugin does, while
    pytest rewrites the asserts they asked for."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        import hypothesis.internal.observability  # noqa: F401
        import pytest_recording._vcr  # noqa: F401


def _load_plugins() -> None:
    for name in ("PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_PLUGINS"):
        os.environ.pop(name, None)  # every installed plugin, through its entry point
    before = os.getcwd()
    said = io.StringIO()
    with (
        tempfile.TemporaryDirectory() as empty,
        contextlib.redirect_stdout(said),
        contextlib.redirect_stderr(said),
    ):
        os.chdir(empty)  # no project's configuration read
        try:
            # the plugins listed: every one loaded
            code = pytest.main(["--version", "--version"], plugins=[_WhileLoaded()])
        finally:
            os.chdir(before)
    assert code == 0, said.getvalue()


_load_plugins()
import httpx2  # noqa: E402  # what the generated projects use
import requests  # noqa: E402

import replaygate.http  # noqa: E402
import replaygate.sim  # noqa: E402

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]
gc.freeze()

__all__ = ["httpx2", "replaygate", "requests"]
