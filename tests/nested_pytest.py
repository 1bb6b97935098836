"""For the pytest sessions tests start in other processes (xdist workers, a
``python -m pytest``): the installed plugins no generated project uses stay unloaded,
and a generated project's clients may share one TLS context. For those a test runs in
its own process (``pytest.main``): no collection of the whole process's garbage as each
ends (:class:`NoClosingCollection`). For those pytester runs in the test's process: what
they import loaded once, before the first (:func:`loaded_for_sessions`,
:func:`sessions_loading`).

Hypothesis, anyio and pytest-recording load in every pytest process, about 0.2 to
0.3 s of CPU each; a session with two xdist workers pays them three times. The tests
of pytest-recording beside replaygate keep it (tests/test_pytest_coexist.py).
"""

import importlib
from pathlib import Path
from typing import Any

import pytest
from _pytest.unraisableexception import gc_collect_iterations_key

from sdks import Sdk, imported, module_name

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


PLUGIN_IMPORTS = (
    "configparser",  # by the rootdir check, for a setup.cfg or tox.ini
    "replaygate.base_url",
    "replaygate.evals.config",
    "replaygate.evals.preflight",
    "replaygate.evals.prices",
    "replaygate.fixtures.hits",
    "replaygate.fixtures.mismatch",
    "replaygate.fixtures.spending",
    "replaygate.fixtures.store",
    "replaygate.http",
    "replaygate.http.adapter",
    "replaygate.http.bindings",
    "replaygate.http.intercept",
    "replaygate.http.wire",
    "replaygate.models.live",
    "replaygate.pytest_plugin.offline",
    "replaygate.pytest_plugin.rootdirs",
    "replaygate.pytest_plugin.settings",
    "replaygate.pytest_plugin.strict_shared",
    "replaygate.pytest_plugin.vcr_rewrite",
    "replaygate.regular",
    "replaygate.sampling.recorder",
    "replaygate.sampling.results",
    "replaygate.sampling.verdict",
    "replaygate.sanitize",
    "replaygate.sim.server",
)
"""The modules replaygate's pytest plugins import as a session needs them (the rootdir and
base-URL checks, a test's store, the exchange, the sanitizer, the simulator, the spending
cap's prices, the output options' checks, the sampled tests' results)."""

SDK_IMPORTS = {
    "anthropic": ("httpcore2",),  # its clients' connection pool
    "openai": ("openai.resources.chat.completions",),  # loaded at client.chat's first use
}
"""What an SDK's clients import on first use, beyond the SDK itself."""


def loaded_for_sessions(*also: Sdk | str) -> None:
    """Import in this process what the pytest sessions pytester runs in it import: the
    modules of :data:`PLUGIN_IMPORTS`, and those of ``also`` (the stand-ins of
    :mod:`sdks`, with what their clients import on first use, :data:`SDK_IMPORTS`, or
    the names of other modules the generated tests import).

    pytester forgets the modules each of its sessions imported, and the next imports
    them again: about 0.4 s of CPU a session recording from the simulator, and seconds
    for an SDK (anthropic 2.8 s). Loaded here first, every session finds them loaded, as
    each test of a user's session does after the first."""
    for name in PLUGIN_IMPORTS:
        importlib.import_module(name)
    for module in also:
        if isinstance(module, str):
            importlib.import_module(module)
            continue
        imported(module_name(module))
        for name in SDK_IMPORTS.get(module_name(module), ()):
            importlib.import_module(name)


def sessions_loading(*also: Sdk | str, slow_only: bool = False) -> Any:
    """The fixture ``sessions_find_their_modules`` of a module whose nested sessions
    import ``also``: :func:`loaded_for_sessions`, autouse, once for the module before
    its first test and before pytester (which forgets what is imported after it), or,
    ``slow_only``, before each test marked slow (the module's others run no session)::

        sessions_find_their_modules = sessions_loading(anthropic)
    """
    if slow_only:

        @pytest.fixture(autouse=True, name="sessions_find_their_modules")
        def for_slow_tests(request: pytest.FixtureRequest) -> None:
            if request.node.get_closest_marker("slow") is not None:
                loaded_for_sessions(*also)

        return for_slow_tests

    @pytest.fixture(scope="module", autouse=True, name="sessions_find_their_modules")
    def for_the_module() -> None:
        loaded_for_sessions(*also)

    return for_the_module
