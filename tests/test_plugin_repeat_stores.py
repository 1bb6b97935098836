"""pytest-repeat's repetitions of a test (``--count 3``: ``test_x[1-3]``, ``test_x[2-3]``,
...) replay the test's own store. Each repetition was given a store of its own, named
after its id: a suite recorded without ``--count`` missed in every repetition, the miss
told to ``git mv`` the test's store as if the test had been renamed, and the command it
named to record (``pytest 'test_x.py::test_x[1-3]' ...``) selected no test without
``--count``."""

from __future__ import annotations

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
