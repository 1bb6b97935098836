"""For the pytest sessions tests start in other processes (xdist workers, a
``python -m pytest``): the installed plugins no generated project uses stay unloaded,
and a generated project's clients may share one TLS context.

Hypothesis, anyio and pytest-recording load in every pytest process, about 0.2 to
0.3 s of CPU each; a session with two xdist workers pays them three times. The tests
of pytest-recording beside replaygate keep it (tests/test_pytest_coexist.py).
"""

from pathlib import Path

UNUSED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:recording")

SHARED_TLS = Path(__file__).with_name("shared_tls.py")


def conftest_sharing_tls(conftest: str = "") -> str:
    """A generated project's ``conftest`` after the code of the plugin in shared_tls.py,
    so that its clients share one default TLS context in every process of the session."""
    return f"{SHARED_TLS.read_text(encoding='utf-8')}\n\n{conftest}"
