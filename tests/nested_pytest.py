"""For the pytest sessions tests start in other processes (xdist workers, a
``python -m pytest``): the installed plugins no generated project uses stay unloaded,
and a generated project's clients may share one TLS context. For those a test runs in
its own process (``pytest.main``): no collection of the whole process's garbage as each
ends (:class:`NoClosingCollection`).

Hypothesis, anyio and pytest-recording load in every pytest process, about 0.2 to
0.3 s of CPU each; a session with two xdist workers pays them three times. The tests
of pytest-recording beside replaygate keep it (tests/test_pytest_coexist.py).
"""

from pathlib import Path

import pytest
from _pytest.unraisableexception import gc_collect_iterations_key

UNUSED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:recording")

SHARED_TLS = Path(__file__).with_name("shared_tls.py")


def conftest_sharing_tls(conftest: str = "") -> str:
    """A generated project's ``conftest`` after the code of the plugin in shared_tls.py,
    so that its clients share one default TLS context in every process of the session."""
    return f"{SHARED_TLS.read_text(encoding='utf-8')}\n\n{conftest}"


class NoClosingCollection:
    """A plugin of a pytest session run in the test's own process: as it ends, pytest's
    unraisable-exception plugin collects the garbage of the whole process, about 0.15 s
    of CPU in a worker that has imported the SDKs. Pytester turns that off for the
    sessions it runs in process, as this does: what the nested session left is collected
    later, and an unraisable exception in it is reported by the enclosing session."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[gc_collect_iterations_key] = 0
