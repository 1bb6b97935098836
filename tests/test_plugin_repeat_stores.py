"""pytest-repeat's repetitions of a test (``--count 3``: ``test_x[1-3]``, ``test_x[2-3]``,
...) replay the test's own store. Each repetition was given a store of its own, named
after its id: a suite recorded without ``--count`` missed in every repetition, the miss
told to ``git mv`` the test's store as if the test had been renamed, and the command it
named to record (``pytest 'test_x.py::test_x[1-3]' ...``) selected no test without
``--count``."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nested_pytest import sessions_loading
from replaygate.pytest_plugin.repeats import REPEAT_PARAM, unrepeated
from replaygate.pytest_plugin.store_paths import default_store
from sdks import anthropic

# what the slow test's session imports, loaded before it: a store class or an SDK a session
# loaded anew was not the one the plugin, loaded before, checked a store or a client against
sessions_find_their_modules = sessions_loading(anthropic, slow_only=True)


def _item(name: str, step: int | None, count: int, cls: type | None = None) -> Any:
    """A test item as pytest-repeat leaves it (``step`` None: one it does not repeat)."""
    params = {} if step is None else {REPEAT_PARAM: step}
    options = {"count": count}
    config = SimpleNamespace(rootpath=Path("/p"), getoption=lambda n, d=None: options.get(n, d))
    return SimpleNamespace(
        name=name,
        nodeid=f"tests/test_a.py::{name}",
        path=Path("/p/tests/test_a.py"),
        cls=cls,
        callspec=SimpleNamespace(params=params),
        config=config,
        get_closest_marker=lambda name: None,
    )


@pytest.mark.parametrize(
    ("name", "step", "expected"),
    [
        ("test_x[2-3]", 1, "test_x.jsonl"),
        ("test_x[alpha-3-3]", 2, "test_x[alpha].jsonl"),
        ("test_x[2-3]", None, "test_x[2-3].jsonl"),  # a parameter of the test's own
    ],
)
def test_a_repetition_replays_the_store_of_the_test_it_repeats(
    name: str, step: int | None, expected: str
) -> None:
    item = _item(name, step, 3)
    store = default_store(item.config, item)
    assert store == Path("/p/tests/fixtures/test_a") / expected


def test_a_repetition_of_a_method_and_its_node_id_name_the_test() -> None:
    class TestC:
        pass

    item = _item("test_m[1-2]", 0, 2, cls=TestC)
    assert default_store(item.config, item).name == "TestC.test_m.jsonl"
    assert unrepeated(item, item.nodeid) == "tests/test_a.py::test_m"


REPEAT_CONFTEST = """
import pytest

@pytest.fixture
def __pytest_repeat_step_number(request):
    return request.param

@pytest.hookimpl(trylast=True)
def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("repeat")
    if marker is not None:
        count = marker.args[0]
        metafunc.fixturenames.append("__pytest_repeat_step_number")
        metafunc.parametrize("__pytest_repeat_step_number", range(count), indirect=True,
                             ids=lambda i: f"{i + 1}-{count}")
"""

REPEATED = """
import pytest

@pytest.mark.repeat(2)
def test_ask(anthropic_client):
    anthropic_client(max_retries=0).messages.create(
        model="claude-sonnet-4-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
"""


@pytest.mark.slow  # pytest runs on a project of its own (pytester)
@pytest.mark.native_tracebacks  # the misses' words, not the SDK's source
def test_repetitions_share_their_test_s_store_and_its_miss_names_the_test(
    pytester: pytest.Pytester,
) -> None:
    """Not refused as tests sharing a store by accident; the record command selects the
    test run without pytest-repeat (its stand-in here: the plugin's ids, its hook)."""
    pytester.makeconftest(REPEAT_CONFTEST)
    pytester.makeini("[pytest]\nmarkers = repeat")
    pytester.makepyfile(test_r=REPEATED)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "is also that of" not in out
    store = pytester.path / "tests" / "fixtures" / "test_r" / "test_ask.jsonl"
    command = "`pytest 'test_r.py::test_ask' --replaygate-record-mode=record-missing"
    assert f"there is no store at {store}: record it first ({command} " in out
    assert f"Record them all in one run: {command} " in out


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_strict_judges_a_repeated_tests_store_by_all_its_repetitions(tmp_path: Path) -> None:
    """``--replaygate-strict`` judged each repetition alone at its teardown: a test whose
    repetitions send requests of their own (pytest-randomly seeds ``random`` from each
    one's id) failed every repetition on the fixtures the others played, and named
    ``prune``, which had nothing to remove."""
    from echo_recording import record_echoes
    from replaygate.fixtures.store import FixtureStore
    from replaygate.pytest_plugin.offline import USES_REPLAYGATE
    from replaygate.pytest_plugin.recording import _named_stores
    from replaygate.pytest_plugin.strict_shared import SharedStrict

    items = [_item(f"test_x[{step + 1}-2]", step, 2) for step in range(2)]
    for item in items:
        item.config.rootpath = tmp_path
        item.fixturenames = [USES_REPLAYGATE]
        item.iter_markers = lambda name: iter(())
        item.stash = pytest.Stash()
    pairs, repeated = _named_stores(items[0].config, items)
    store = tmp_path / "tests/fixtures/test_a/test_x.jsonl"
    assert pairs == [(item, store) for item in items] and repeated == {store}
    record_echoes(store, ["one", "two", "three"])
    one, two, _ = FixtureStore.open(store)
    strict = SharedStrict()
    strict.collected(pairs, repeated)
    strict._check(os.fspath(store), None)  # none of them ran (-k left the test out)
    assert strict.problems == [] and strict.unchecked == []
    strict.passed = {item.nodeid for item in items}
    strict.used_by_test(store, {}, {one.key: 1})  # each repetition its own request
    strict.used_by_test(store, {}, {two.key: 1})
    strict._check(os.fspath(store), "the run was given particular tests (t.py)")
    (problem,) = strict.problems  # checked though the run was given the test alone
    assert problem.startswith(
        f"--replaygate-strict: 1 recorded fixture(s) of {store} unused by all 2 repetition(s) "
        "of its test (tests/test_a.py::test_x[1-2], tests/test_a.py::test_x[2-2]):"
    )
    assert one.key not in problem and two.key not in problem
