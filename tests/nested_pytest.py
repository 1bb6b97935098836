"""Options for the pytest sessions tests start in other processes (xdist workers, a
``python -m pytest``): the installed plugins no generated project uses stay unloaded.

Hypothesis, anyio and pytest-recording load in every pytest process, about 0.2 to
0.3 s of CPU each; a session with two xdist workers pays them three times. The tests
of pytest-recording beside replaygate keep it (tests/test_pytest_coexist.py).
"""

UNUSED_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:recording")
