"""The head of the pytest-timeout stand-ins of the tests' pytest sessions: its settings,
the hooks it declares, and its limit set as each test starts and cancelled as it ends
(pytest-timeout 2.x); each stand-in adds how its clock runs out."""

TIMEOUT_HOOKS = """
import collections

import pytest

Settings = collections.namedtuple(
    "Settings", ["timeout", "method", "func_only", "disable_debugger_detection"]
)


class TimeoutHooks:
    @pytest.hookspec(firstresult=True)
    def pytest_timeout_set_timer(item, settings): ...

    @pytest.hookspec(firstresult=True)
    def pytest_timeout_cancel_timer(item): ...


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(TimeoutHooks)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):  # the limit of the test's whole run, set once
    hook = item.config.pluginmanager.hook
    hook.pytest_timeout_set_timer(item=item, settings=Settings(1.0, "signal", False, False))
    yield
    hook.pytest_timeout_cancel_timer(item=item)
"""
