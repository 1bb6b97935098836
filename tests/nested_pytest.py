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

import ast
import contextlib
import gc
import importlib
import sys
import types
import warnings
import weakref
from pathlib import Path
from typing import Any

import _pytest._code.code
import _pytest._code.source
import pytest
from _pytest.fixtures import FixtureManager
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


_CHECK_FOR_WRAPPED_FIXTURE = getattr(FixtureManager, "_check_for_wrapped_fixture", None)

_PLAIN = frozenset(
    {
        *(str, bytes, int, float, bool, complex, tuple, list, dict, set, frozenset, type(None)),
        types.BuiltinFunctionType,
        types.MethodWrapperType,
        types.WrapperDescriptorType,
        types.MethodDescriptorType,
    }
)
"""Types whose instances hold no attributes of their own and whose type defines neither
``__wrapped__`` nor ``_mock_name``: none of them can hide a fixture behind a wrapper."""

_NO_HIDDEN_FIXTURE: dict[int, weakref.ref[object]] = {}
"""The objects (by id, held weakly) that :func:`remembered_wrapped_fixture_check` found
hid no fixture."""


def remembered_wrapped_fixture_check(self: FixtureManager, name: str, obj: object) -> None:
    """pytest's check that ``obj``, an attribute of a plugin, a conftest or a test module,
    is no fixture hidden behind decorators (``FixtureManager._check_for_wrapped_fixture``),
    made once per object for those that hide none (it warns about the others every time,
    as pytest does).

    Each session runs it over every attribute of every plugin it registers, pytest's own
    modules and replaygate's among them, the same objects in every session of a process:
    about 2,700 attributes and 6 ms of CPU of a session's 30. The answer for an object is
    its own (its type and ``__wrapped__`` chain), kept while it lives (a weak reference:
    an id reused by another object is checked again)."""
    if type(obj) in _PLAIN:
        return
    key = id(obj)
    known = _NO_HIDDEN_FIXTURE.get(key)
    if known is not None and known() is obj:
        return
    found = self._find_wrapped_fixture_def(obj)
    if found is not None and found is not obj:
        assert _CHECK_FOR_WRAPPED_FIXTURE is not None
        _CHECK_FOR_WRAPPED_FIXTURE(self, name, obj)  # warns
        return

    def forget(ref: weakref.ref[object], key: int = key) -> None:
        if _NO_HIDDEN_FIXTURE.get(key) is ref:
            del _NO_HIDDEN_FIXTURE[key]

    with contextlib.suppress(TypeError):  # an object held no weakly is checked every time
        _NO_HIDDEN_FIXTURE[key] = weakref.ref(obj, forget)


_STATEMENT_RANGE = getattr(_pytest._code.code, "getstatementrange_ast", None)
_STATEMENT_LINES = getattr(_pytest._code.source, "_statement_linenos", None)

_PARSED: dict[str, ast.AST] = {}
"""The sources of a traceback's frames last parsed, by their text (the last
:data:`PARSED_KEPT`), each as an empty tree holding the lines of the source's statements
(all pytest reads of it), for :func:`statement_range_parsed_once`."""

PARSED_KEPT = 64


def statement_range_parsed_once(
    lineno: int, source: Any, assertion: bool = False, astnode: ast.AST | None = None
) -> Any:
    """pytest's ``getstatementrange_ast``, the lines of the statements of a source it was
    given before taken again.

    A traceback in pytest's long form (a failure's, and the one a session interrupted by
    Ctrl-C, ``pytest.exit`` or a collection error keeps whatever ``--tb`` says) parses the
    whole file of each frame and walks its tree for the lines of its statements: pytest's
    and pluggy's own files, the same in every session, about 0.15 s of CPU for an
    interrupted session's traceback. Those lines are of the text: a file changed between
    sessions is parsed anew. What is kept is the lines alone, on an empty tree, as pytest
    keeps them on the tree it parsed (a parsed file's tree holds thousands of objects that
    each full garbage collection would walk)."""
    assert _STATEMENT_RANGE is not None and _STATEMENT_LINES is not None
    if astnode is None:
        content = str(source)
        astnode = _PARSED.pop(content, None)
        if astnode is None:
            with warnings.catch_warnings():  # as pytest parses it (its #4260)
                warnings.simplefilter("ignore")
                parsed = ast.parse(content, "source", "exec")
            lines = _STATEMENT_LINES(parsed)
            astnode = ast.Module(body=[], type_ignores=[])
            astnode._pytest_statement_linenos = lines  # type: ignore[attr-defined]
            if _STATEMENT_LINES(astnode) is not lines:  # pytest keeps them otherwise
                return _STATEMENT_RANGE(lineno, source, assertion, parsed)
        _PARSED[content] = astnode
        while len(_PARSED) > PARSED_KEPT:
            del _PARSED[next(iter(_PARSED))]
    return _STATEMENT_RANGE(lineno, source, assertion, astnode)


def remembering_across_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sessions run in this process check each object for a hidden fixture once
    (:func:`remembered_wrapped_fixture_check`), and parse each source a traceback shows
    once (:func:`statement_range_parsed_once`), where pytest has those steps."""
    if _CHECK_FOR_WRAPPED_FIXTURE is not None and hasattr(
        FixtureManager, "_find_wrapped_fixture_def"
    ):
        monkeypatch.setattr(
            FixtureManager, "_check_for_wrapped_fixture", remembered_wrapped_fixture_check
        )
    if _STATEMENT_RANGE is not None and _STATEMENT_LINES is not None:
        monkeypatch.setattr(
            _pytest._code.code, "getstatementrange_ast", statement_range_parsed_once
        )


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
    each test of a user's session does after the first.

    What a call imports is then frozen out of the garbage collector's reach, as what
    collection made is (``pytest_collection_finish`` in tests/conftest.py), the garbage
    of earlier tests collected first (none is frozen, so any finalizer still runs): every
    full collection after it walked an SDK's objects again (about 0.15 s each, a test
    collecting its garbage, the collection as a session ends)."""
    names = [
        *PLUGIN_IMPORTS,
        *(
            name
            for module in also
            for name in (
                [module]
                if isinstance(module, str)
                else [module_name(module), *SDK_IMPORTS.get(module_name(module), ())]
            )
        ),
    ]
    if all(name in sys.modules for name in names):
        return
    gc.collect()
    for name in PLUGIN_IMPORTS:
        importlib.import_module(name)
    for module in also:
        if isinstance(module, str):
            importlib.import_module(module)
            continue
        imported(module_name(module))
        for name in SDK_IMPORTS.get(module_name(module), ()):
            importlib.import_module(name)
    gc.freeze()


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
