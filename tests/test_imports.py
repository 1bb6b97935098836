"""The shape of the package: no import cycles, the library never imports its example, and
no docstring holds what a Python the package supports cannot compile.

The import graph is read from the source (every ``import`` statement, including those
inside functions and ``TYPE_CHECKING`` blocks: a deferred import is still a
dependency). Cycles are refused between modules and between the top-level packages
(``replaygate.fixtures``, ``replaygate.models``, ...), so data flows one way: agent ->
model or SDK client -> layer adapter -> fixture core -> store.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import replaygate

SRC = Path(replaygate.__file__).parent
EXAMPLE = "replaygate.examples"
MAY_RUN_THE_EXAMPLE = frozenset({"replaygate.cli.demo", "replaygate.demo"})
"""The demo command exists to run the shipped example; nothing else may import it."""


def module_names() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    found = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements. An import is a statement, and no expression holds
one, so the walk below visits only statements: a fraction of a module's nodes."""


def every_statement(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every statement of ``body`` and of the blocks nested in it, at any depth (function
    and class bodies, ``if``/``try``/``with``/``match`` blocks and handlers)."""
    for node in body:
        yield node
        for field in _STATEMENT_LISTS:
            yield from every_statement(getattr(node, field, ()))


RawImport = tuple[int, str | None, tuple[str, ...]]
"""One import statement as written: its level (-1 for ``import a.b``, else the dots of
``from``), the module after ``from`` (None for ``import``) and the names it imports."""


def raw_imports(source: bytes) -> list[RawImport]:
    """Every import statement of a module's source, at any depth."""
    found: list[RawImport] = []
    for node in every_statement(ast.parse(source).body):
        if isinstance(node, ast.Import):
            found.append((-1, None, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(alias.name for alias in node.names)))
    return found


def imports_of(
    name: str, path: Path, statements: list[RawImport], modules: dict[str, Path]
) -> Iterator[str]:
    """The package modules ``name`` imports (a ``from pkg import mod`` counts as ``pkg.mod``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for level, module, names in statements:
        if level < 0:
            yield from (alias for alias in names if alias in modules)
            continue
        if level:
            base = package.split(".")[: len(package.split(".")) - level + 1]
            target = ".".join([*base, module] if module else base)
        else:
            target = module or ""
        for alias in names:
            submodule = f"{target}.{alias}"
            if submodule in modules:
                yield submodule
            elif target in modules:
                yield target


def statements_by_module(
    modules: dict[str, Path], cache: pytest.Cache | None
) -> dict[str, list[RawImport]]:
    """Each module's import statements (:func:`raw_imports`), parsed again only where its
    source changed since a run that kept them in pytest's cache (parsing every module took
    0.4 s of each run of the inner loop). The statements are kept by the digest of each
    source, with that of the code that reads them: a change to either reads them again."""
    reader = inspect.getsource(every_statement) + inspect.getsource(raw_imports)
    version = hashlib.sha256(f"{sys.version}\n{_STATEMENT_LISTS}\n{reader}".encode()).hexdigest()
    kept = cache.get(STATEMENTS_CACHE, None) if cache is not None else None
    known: dict[str, list[list[Any]]] = {}
    if isinstance(kept, dict) and kept.get("version") == version:
        known = kept["sources"]
    found: dict[str, list[RawImport]] = {}
    sources: dict[str, list[list[Any]]] = {}
    for name, path in modules.items():
        source = path.read_bytes()
        digest = hashlib.sha256(source).hexdigest()
        if digest in known:
            found[name] = [(level, module, tuple(names)) for level, module, names in known[digest]]
        else:
            found[name] = raw_imports(source)
        sources[digest] = [[level, module, list(names)] for level, module, names in found[name]]
    if cache is not None and sources != known:
        cache.set(STATEMENTS_CACHE, {"version": version, "sources": sources})
    return found


STATEMENTS_CACHE = "replaygate-tests/import-statements"
"""The key of :func:`statements_by_module`'s statements in pytest's cache."""


@pytest.fixture(scope="module")
def graph(request: pytest.FixtureRequest) -> dict[str, set[str]]:
    """Module -> the package modules it imports (read once; the tests only read it)."""
    modules = module_names()
    statements = statements_by_module(modules, getattr(request.config, "cache", None))
    return {
        name: {
            target for target in imports_of(name, path, statements[name], modules) if target != name
        }
        for name, path in modules.items()
    }


def test_the_statements_kept_are_those_read_from_the_sources(
    graph: dict[str, set[str]], request: pytest.FixtureRequest
) -> None:
    modules = module_names()
    cache = getattr(request.config, "cache", None)
    kept = statements_by_module(modules, cache)
    assert set(kept) == set(modules)
    sample = sorted(modules)[:: max(1, len(modules) // 20)]  # a few, parsed anew
    assert {n: kept[n] for n in sample} == {n: raw_imports(modules[n].read_bytes()) for n in sample}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def package_of(module: str) -> str:
    """The top-level unit a module belongs to: ``replaygate.fixtures.store.index`` ->
    ``replaygate.fixtures``; a top-level module is its own unit."""
    return ".".join(module.split(".")[:2])


def library(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the shipped example (a user of the library, checked apart)."""
    return {
        name: {t for t in targets if not t.startswith(EXAMPLE)}
        for name, targets in edges.items()
        if not name.startswith(EXAMPLE)
    }


def test_no_module_import_cycles(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_no_package_import_cycles(graph: dict[str, set[str]]) -> None:
    packages: dict[str, set[str]] = {}
    for name, targets in library(graph).items():
        unit = package_of(name)
        packages.setdefault(unit, set()).update(
            package_of(t) for t in targets if package_of(t) != unit
        )
    assert cycles(packages) == []


def test_only_the_demo_imports_the_example(graph: dict[str, set[str]]) -> None:
    importers = sorted(
        name
        for name, targets in graph.items()
        if not name.startswith(EXAMPLE) and any(t.startswith(EXAMPLE) for t in targets)
    )
    assert set(importers) <= MAY_RUN_THE_EXAMPLE, importers


def test_the_walk_finds_an_import_at_any_depth() -> None:
    source = """
import a
def f():
    import b
    class C:
        import c
    async def g():
        async with x:
            import d
if x:
    import e
elif y:
    import f
else:
    for i in x:
        import g
    else:
        import h
while x:
    from . import i
else:
    import j
try:
    import k
except A:
    import l
else:
    import m
finally:
    with x:
        import n
try:
    pass
except* B:
    import o
match x:
    case 1:
        import p
    case _:
        if y: import q
x = [lambda: __import__("not_a_statement")]
"""
    found = raw_imports(source.encode())
    assert sorted(name for _, _, names in found for name in names) == [*"abcdefghijklmnopq"]
    everywhere = [
        n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    assert len(found) == len(everywhere)


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


_SURROGATE_ESCAPE = re.compile(rb"(\\+)(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")
"""An escape of half a surrogate pair (``\\ud800``) with the backslashes before it (an
even number is backslashes written as escapes)."""

_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def surrogate_docstrings(source: bytes) -> list[int]:
    """The lines of the docstrings of ``source`` holding half of a surrogate pair, which
    Python 3.13 refuses as it compiles the module ("surrogates not allowed"): it cleans a
    docstring's indentation as UTF-8. A source with no such escape is not parsed."""
    if not any(len(m.group(1)) % 2 for m in _SURROGATE_ESCAPE.finditer(source)):
        return []
    return [
        node.body[0].lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, _DOCUMENTED)
        and any(0xD800 <= ord(c) <= 0xDFFF for c in ast.get_docstring(node, clean=False) or "")
    ]


def test_no_docstring_holds_half_a_surrogate_pair() -> None:
    # a file name's byte \udcc3 written in a docstring as an escape, not as its text: on
    # Python 3.13 every import of replaygate failed with UnicodeEncodeError
    sources = SRC.rglob("*.py")
    found = [f"{p}:{line}" for p in sources for line in surrogate_docstrings(p.read_bytes())]
    assert found == []


def test_the_docstring_check_finds_only_an_escape_a_docstring_holds() -> None:
    source = rb'''"""a module"""
class C:
    """\\ud800 is written as its text"""
    pattern = "[\ud800-\udfff]"
    def f():
        """a name's byte \udcc3"""
async def g():
    r"""raw: \udcc3"""
'''
    assert surrogate_docstrings(source) == [6]


def run_probe(statements: str, absent: tuple[str, ...], then: str = "") -> None:
    """Run ``statements`` in a fresh interpreter; none of ``absent`` may be imported by
    then; ``then`` runs after that check."""
    probe = (
        f"import sys\n{statements}\n"
        f"heavy = [m for m in {absent!r} if m in sys.modules]\n"
        f"assert not heavy, heavy\n{then}"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # a fresh interpreter
def test_importing_the_package_loads_its_public_names_on_first_use() -> None:
    run_probe(
        "import replaygate",
        ("replaygate.fixtures.store", "replaygate.models.replay", "orjson", "filelock"),
        "assert replaygate.FixtureStore.__name__ == 'FixtureStore'\n"
        "assert 'replaygate.fixtures.store' in sys.modules\n"
        "assert replaygate.http.intercept and replaygate.sampling.run_sampled\n",
    )
    assert set(replaygate.__all__) <= set(dir(replaygate))
    assert all(getattr(replaygate, name) is not None for name in replaygate.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = replaygate.nothing_here


@pytest.mark.slow  # a fresh interpreter
def test_the_pytest_plugins_load_no_store_converter_or_schema_library() -> None:
    # every pytest process of a project with replaygate installed imports both plugins
    run_probe(
        "import pytest, replaygate.pytest_plugin.recording, replaygate.pytest_plugin.sampling",
        ("jsonschema", "replaygate.fixtures.store", "replaygate.assertions.structure",
         "replaygate.models.replay", "httpx2"),
    )  # fmt: skip


@pytest.mark.parametrize(
    "package",
    [
        "replaygate",
        "replaygate.assertions",
        "replaygate.evals",
        "replaygate.sampling",
        "replaygate.sim",
    ],
)
def test_a_lazy_package_names_every_public_name_it_exports(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) - {"__version__"} == set(module._EXPORTS)
    assert all(getattr(module, name) is not None for name in module.__all__)


@pytest.mark.slow  # a fresh interpreter
def test_importing_replaygate_http_loads_its_public_names_on_first_use() -> None:
    run_probe(
        "import replaygate.http",
        ("replaygate.fixtures.store", "replaygate.http.exchange", "replaygate.sanitize",
         "replaygate.network", "orjson", "httpx2", "httpx"),
        "assert replaygate.http.intercept.__name__ == 'intercept'\n"
        "assert 'replaygate.http.exchange' in sys.modules and 'httpx2' not in sys.modules\n"
        "assert replaygate.http.httpx2_client and 'httpx2' in sys.modules\n",
    )  # fmt: skip


def test_replaygate_http_names_every_public_name_and_keeps_its_functions() -> None:
    package = importlib.import_module("replaygate.http")
    assert set(package.__all__) == set(package._EXPORTS) | set(package._BOUND)
    assert set(package.__all__) <= set(dir(package))
    for name in ("envelope", "intercept", "passthrough"):  # each a submodule's name too
        importlib.import_module(f"replaygate.http.{name}")  # as the package's modules do
        assert callable(getattr(package, name)), name
        assert getattr(package, name).__module__ == f"replaygate.http.{name}"
    assert all(getattr(package, name) is not None for name in package.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = package.nothing_here


@pytest.mark.parametrize("missing", ["httpx", "httpx2"])
def test_a_star_import_of_replaygate_http_gives_the_adapters_of_the_libraries_installed(
    missing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Neither library is a dependency: with one of them not installed, every name of
    # __all__ was taken and the star import failed with "No module named 'httpx'".
    import replaygate.http as installed

    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    monkeypatch.delitem(sys.modules, "replaygate.http")  # a fresh package module
    monkeypatch.setattr(replaygate, "http", installed)
    names: dict[str, object] = {}
    exec("from replaygate.http import *", names)
    package = sys.modules["replaygate.http"]
    assert package is not installed
    prefix = "Httpx2" if missing == "httpx2" else "Httpx"
    gone = {f"{prefix}Transport", f"Async{prefix}Transport"}
    gone |= {f"{missing}_client", f"{missing}_async_client"}
    assert set(package.__all__) == set(installed.__all__) - gone
    assert set(package.__all__) <= names.keys() and not gone & names.keys()
    assert not gone & set(dir(package))
    with pytest.raises(ModuleNotFoundError) as raised:
        getattr(package, f"{missing}_client")
    assert str(raised.value) == (
        f"replaygate.http.{missing}_client needs {missing}, which is not installed: "
        f"pip install 'replaygate[{missing}]'"
    )
    assert raised.value.name == missing


def test_a_library_imported_without_a_spec_counts_as_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # find_spec refuses a module in sys.modules whose __spec__ is None (one made in code)
    import replaygate.http

    monkeypatch.setitem(sys.modules, "httpx", ModuleType("httpx"))
    assert replaygate.http._installed("httpx")
    monkeypatch.setitem(sys.modules, "httpx", None)
    assert not replaygate.http._installed("httpx")
