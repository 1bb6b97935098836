"""``--replaygate-strict`` covers a store the marker names and tests share: a fixture that
none of them replayed, in a run that ran them all, fails the run, named in the summary.
It was not checked at all: a test that stopped sending its request passed in silence."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from echo_recording import record_echoes
from nested_pytest import loaded_for_sessions
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.uses import unused_http_lines
from replaygate.http import httpx2_client
from replaygate.pytest_plugin.strict_shared import _SENT, STALE_SHARED, SharedStrict, unused_lines
from replaygate.sim import Simulator
from sdks import anthropic

SHARED = """
import os

import pytest

pytestmark = pytest.mark.replaygate(fixtures="shared.jsonl")


def ask(client, text):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": text}]
    ).content[0].text


def test_first(anthropic_client):
    assert ask(anthropic_client(), "first") == "echo: first"


def test_second(anthropic_client):
    if os.environ.get("DROP"):
        return  # the code under test no longer sends its request
    assert ask(anthropic_client(), "second") == "echo: second"
"""
OTHER = """
import pytest


@pytest.mark.replaygate(fixtures="shared.jsonl")
def test_third(anthropic_client):
    reply = anthropic_client().messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "first"}]
    )
    assert reply.content[0].text == "echo: first"
"""
RECORD = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)
STRICT = "--replaygate-strict"


@pytest.fixture(scope="module")
def sdks_loaded() -> None:
    """The SDK the nested runs use, and what the plugin imports as a session needs it,
    imported in this process first: each nested run would import them again (pytester
    forgets the modules a run imported)."""
    loaded_for_sessions(anthropic)


def record_then_drop(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, passed: int
) -> pytest.RunResult:
    """Record the tests, see a strict replay of them pass in silence, then replay them
    strictly with the request of the test reading DROP no longer sent: that run's result."""
    pytester.runpytest(*RECORD).assert_outcomes(passed=passed)
    clean = pytester.runpytest(STRICT)
    clean.assert_outcomes(passed=passed)
    assert clean.ret == pytest.ExitCode.OK and "shared stores" not in clean.stdout.str()
    monkeypatch.setenv("DROP", "1")
    result = pytester.runpytest(STRICT)
    result.assert_outcomes(passed=passed)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    return result


@pytest.mark.slow  # pytest sessions of the plugin, recording and replaying
def test_a_shared_fixture_no_test_of_a_whole_run_replayed_fails_the_run(
    pytester: pytest.Pytester, sdks_loaded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_shared=SHARED, test_other=OTHER)
    store = pytester.path / "tests/fixtures/shared.jsonl"
    result = record_then_drop(pytester, monkeypatch, passed=3)
    result.stdout.fnmatch_lines(
        [
            "*replaygate strict: shared stores*",
            f"--replaygate-strict: 1 recorded fixture(s) of the shared store {store} unused by "
            "all 3 test(s) naming it (test_other.py::test_third, test_shared.py::test_first, "
            "test_shared.py::test_second):",
            "  * (POST /v1/messages): never requested",
        ]
    )
    assert "echo: second" not in result.stdout.str()
    # the last lines say it, where the counts alone say "3 passed"
    assert re.fullmatch(
        r"!+ --replaygate-strict: 1 shared store\(s\) hold fixtures no test used \(replaygate "
        r"strict: shared stores, above\) !+",
        result.outlines[-2],
    ), result.outlines[-2:]
    # without --replaygate-strict nothing is said
    assert pytester.runpytest().ret == pytest.ExitCode.OK

    # a run that did not run every test naming the store cannot tell: it says so
    for args, why in [
        (("-k", "not third"), "1 of the 3 test(s) naming it did not run and pass"),
        (("test_shared.py",), "the run was given particular tests (test_shared.py)"),
    ]:
        partial = pytester.runpytest(STRICT, *args)
        assert partial.ret == pytest.ExitCode.OK, args
        partial.stdout.fnmatch_lines([f"not checked: {store}: {why}*"])
    assert "shared stores" not in pytester.runpytest(STRICT, "--collect-only").stdout.str()
    # the files the suite's testpaths name are its whole: checked
    pytester.makeini("[pytest]\ntestpaths = test_other.py test_shared.py\n")
    whole = pytester.runpytest(STRICT)
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    whole.stdout.fnmatch_lines(["*1 recorded fixture(s) of the shared store*"])
    # no prune command is named: prune keeps every fixture of a file a marker names
    assert "replaygate prune" not in whole.stdout.str()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_shared_fixture_counts_the_most_one_test_took_and_workers_add_up(
    tmp_path: Path,
) -> None:
    # the same request sent twice in one test holds two responses; two tests that send
    # it once each use one of them (each test's n-th identical request gets the n-th)
    store = tmp_path / "shared.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
        for _ in range(2):
            headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
            http.post(f"{sim.url}/v1/messages", json=body, headers=headers)
        http.close()
    (fixture,) = FixtureStore.open(store)
    assert fixture.samples == 2
    worker = SharedStrict()
    worker.used_by_test(store, {}, {fixture.key: 1})  # one test: once
    worker.used_by_test(store, {fixture.key: 1}, {fixture.key: 2})  # another: once
    assert unused_lines(os.fspath(store), worker.used[os.fspath(store)]) == [
        f"{fixture.key} (POST /v1/messages): requested at most 1 time(s) by one test, "
        "2 responses recorded"
    ]
    # the controller takes the most any worker's test took
    controller = SharedStrict()
    for counts in ({fixture.key: 1}, {fixture.key: 2}, {}):
        sent = {"naming": {os.fspath(store): ["t.py::a"]}, "used": {os.fspath(store): counts}}
        controller.pytest_testnodedown(SimpleNamespace(workeroutput={_SENT: sent}), None)
    assert unused_lines(os.fspath(store), controller.used[os.fspath(store)]) == []
    assert controller.naming == {os.fspath(store): {"t.py::a"}}
    # a test's own store counts every request of the test: the same words without "at most"
    assert unused_http_lines(FixtureStore.open(store), {fixture.key: 1}) == [
        f"{fixture.key} (POST /v1/messages): requested 1 time(s), 2 responses recorded"
    ]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_shared_store_none_of_whose_fixtures_was_requested_names_a_response_cache(
    tmp_path: Path,
) -> None:
    # the tests naming it answered from a cache an earlier test warmed (litellm.cache)
    store = tmp_path / "shared.jsonl"
    record_echoes(store, ["one", "two"])
    strict = SharedStrict()
    strict.naming[os.fspath(store)] = {"t.py::a"}
    strict.passed.add("t.py::a")
    strict._check(os.fspath(store), None)
    (problem,) = strict.problems
    assert "unused by all 1 test(s) naming it (t.py::a):" in problem
    assert problem.endswith(
        "\nThe tests naming it requested none of its fixtures: if their code still calls a "
        "model, a response cache of its own answered it (DSPy's, DeepEval's and ragas's, kept "
        "on disk between runs; LiteLLM's litellm.cache; Instructor's, given to its client's "
        "cache=; LangChain's, set_llm_cache(...) or a model's cache=; LangGraph's, a graph's "
        "compile(cache=...)): turn it off in tests (docs/frameworks.md) rather than prune what "
        "a replay without that cache needs; or a worker process it started by spawn or "
        "forkserver played them through an intercept() of its own, which the test does not "
        "see (docs/frameworks.md#background-jobs-and-worker-processes)."
    )
    # one of its fixtures requested: the others were not left by a cache
    strict.problems.clear()
    (first, _) = FixtureStore.open(store)
    strict.used_by_test(store, {}, {first.key: 1})
    strict._check(os.fspath(store), None)
    (problem,) = strict.problems
    assert "requested none" not in problem


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_shared_store_partly_used_says_how_to_drop_what_prune_keeps(tmp_path: Path) -> None:
    """A prompt edited, then recorded again: the old request's fixture stays in the store a
    marker names, which prune keeps; the strict error said so and nothing to do next."""
    store = tmp_path / "shared.jsonl"
    record_echoes(store, ["old prompt", "new prompt"])
    strict = SharedStrict()
    strict.naming[os.fspath(store)] = {"t.py::a"}
    strict.passed.add("t.py::a")
    (_, new) = FixtureStore.open(store)
    strict.used_by_test(store, {}, {new.key: 1})
    strict._check(os.fspath(store), None)
    (problem,) = strict.problems
    assert problem.endswith(STALE_SHARED)
    assert "Move the store aside and record every test naming it again, in one run" in problem


BORROWED = """
import os

import pytest


def ask(client, text):
    return client.messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": text}]
    ).content[0].text


def test_own(anthropic_client):
    if os.environ.get("DROP"):
        return  # the code under test no longer sends its request
    assert ask(anthropic_client(), "own") == "echo: own"


@pytest.mark.replaygate(fixtures="test_borrowed/test_own.jsonl")
def test_borrows(anthropic_client):
    assert ask(anthropic_client(), "borrowed") == "echo: borrowed"
"""


@pytest.mark.slow  # pytest sessions of the plugin, recording and replaying
def test_a_tests_own_store_named_by_another_tests_marker_is_checked_as_shared(
    pytester: pytest.Pytester, sdks_loaded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each test's fixture was reported unused: the one test_borrows recorded at
    # test_own's teardown, and test_own's by the end-of-run check of test_borrows' store
    pytester.makepyfile(test_borrowed=BORROWED)
    store = pytester.path / "tests/fixtures/test_borrowed/test_own.jsonl"
    # no error at test_own's teardown (all passed): checked with both, at the end
    result = record_then_drop(pytester, monkeypatch, passed=2)
    result.stdout.fnmatch_lines(
        [
            f"--replaygate-strict: 1 recorded fixture(s) of the shared store {store} unused by "
            "all 2 test(s) naming it (test_borrowed.py::test_borrows, "
            "test_borrowed.py::test_own):",
            "  * (POST /v1/messages): never requested",
        ]
    )
    partial = pytester.runpytest(STRICT, "-k", "borrows")
    assert partial.ret == pytest.ExitCode.OK
    partial.stdout.fnmatch_lines(
        [f"not checked: {store}: 1 of the 2 test(s) naming it did not run and pass*"]
    )


def test_a_shared_store_damaged_after_its_tests_ran_is_named_not_skipped(tmp_path: Path) -> None:
    store = tmp_path / "shared.jsonl"
    store.write_text('{"key": "cut short"\n')
    (line,) = unused_lines(os.fspath(store), {})
    assert line.startswith(f"cannot be read: {store}:1: ")


def test_a_shared_store_many_tests_name_is_reported_with_the_first_three(tmp_path: Path) -> None:
    # 84 tests sharing a store under -n 8 printed all 84 names on the line of its report
    store = os.fspath(tmp_path / "shared.jsonl")
    Path(store).write_text('{"key": "cut short"\n')  # one line reported, cheaply
    tests = [f"t.py::test_{i}" for i in range(5)]
    strict = SharedStrict()
    strict.naming = {store: set(tests)}
    strict.passed = set(tests)
    strict._check(store, None)
    (problem,) = strict.problems
    assert "unused by all 5 test(s) naming it (t.py::test_0, t.py::test_1, t.py::test_2, ...):" in (
        problem
    )
    assert "test_3" not in problem
