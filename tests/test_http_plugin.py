"""The pytest plugin, run on generated test files in process (under xdist, with real
workers: tests/test_xdist_sessions.py)."""

from __future__ import annotations

import gc

import pytest

from echo_recording import ASKING, record_echoes
from nested_pytest import sessions_loading
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.models.replay import MODES
from replaygate.pytest_plugin.recording import secret_in_id
from replaygate.sim import Simulator
from run_cli import replaygate
from sdks import aiohttp, anthropic, genai, openai

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic, openai, aiohttp, "requests")


NO_CAP = """
import pytest


@pytest.fixture
def replaygate_config():
    return {"cap": None}  # recorded from a loopback simulator started by the test
"""


def test_plugin_modes_are_the_library_modes(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--replaygate-record-mode=nonsense")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*invalid choice: 'nonsense' (choose from {', '.join(map(repr, MODES))})*"]
    )


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ([], "makes live model calls"),
        (["--replaygate-simulator=echo"], "records from the loopback simulator: free, but"),
    ],
    ids=["live", "simulator"],
)
def test_recording_mode_without_approval_is_a_usage_error(
    pytester: pytest.Pytester, options: list[str], why: str
) -> None:
    pytester.makepyfile("def test_never_runs():\n    raise AssertionError('ran')\n")
    result = pytester.runpytest("--replaygate-record-mode=record-missing", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    how = "--replaygate-record-mode=record-missing needs --replaygate-approve-live"
    result.stderr.fnmatch_lines([f"*'record-missing' {why}*{how}*"])
    assert "ran" not in result.stdout.str()


def test_plugin_is_inert_for_tests_that_do_not_use_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import socket

        def test_plain():
            assert socket.socket.__dict__.get("connect") is None
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_replay_blocks_the_network_and_strict_flags_unused_fixtures(
    pytester: pytest.Pytester,
) -> None:
    record_echoes(pytester.path / "tests/fixtures/test_offline/test_uses_one.jsonl", ["one", "two"])
    record_echoes(pytester.path / "tests/fixtures/test_offline/test_uses_all.jsonl", ["one"])
    pytester.makepyfile(
        test_offline="""
        import socket

        import pytest

        from replaygate.errors import FixtureMismatchError, NetworkBlockedError

        def ask(client, content):
            return client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": content}]
            )

        def test_uses_one(anthropic_client, replaygate_mode):
            assert replaygate_mode == "replay"
            assert ask(anthropic_client(), "one").content[0].text == "echo: one"
            with pytest.raises(NetworkBlockedError):
                socket.create_connection(("192.0.2.10", 443), timeout=1)

        def test_uses_all(anthropic_client):
            assert ask(anthropic_client(), "one").content[0].text == "echo: one"

        def test_miss(anthropic_client):
            with pytest.raises(FixtureMismatchError, match="there is no store at"):
                ask(anthropic_client(max_retries=5), "never recorded")

        def test_network_blocked_for_the_whole_replaying_session():
            with pytest.raises(NetworkBlockedError):
                socket.create_connection(("192.0.2.10", 443), timeout=1)
        """
    )
    pytester.runpytest().assert_outcomes(passed=4)
    strict = pytester.runpytest("--replaygate-strict")
    strict.assert_outcomes(passed=4, errors=1)
    strict.stdout.fnmatch_lines(["*ERROR at teardown of test_uses_one*"])
    store = "tests/fixtures/test_offline/test_uses_one.jsonl"
    command = f"replaygate prune {store} --unused --runs 1"
    strict.stdout.fnmatch_lines(
        [
            "*1 recorded fixture(s)*unused*",
            "*(POST /v1/messages): never requested*",
            f"*from {pytester.path}, `{command}` lists the fixtures this run did not play*",
        ]
    )
    listed = replaygate(*command.split()[1:])  # as the test's store is, by this run's hits
    assert listed.returncode == 0 and "would delete 1 fixture(s)" in listed.stdout, listed.stdout
    assert "requested none of its fixtures" not in strict.stdout.str()  # it requested one


def test_strict_on_a_test_that_requested_none_of_its_fixtures_names_a_response_cache(
    pytester: pytest.Pytester,
) -> None:
    """A test whose code under test was answered by a response cache of its own (DSPy's,
    kept on disk between runs) sends nothing when it replays: the strict error says so
    before the prune that would delete what a replay without that cache needs."""
    record_echoes(pytester.path / "tests/fixtures/test_cached/test_cached.jsonl", ["one"])
    pytester.makepyfile(test_cached="def test_cached(anthropic_client):\n    pass\n")
    strict = pytester.runpytest("--replaygate-strict")
    strict.assert_outcomes(passed=1, errors=1)
    strict.stdout.fnmatch_lines(
        [
            "*(POST /v1/messages): never requested",
            "The test requested none of its fixtures: if its code still calls a model, a "
            "response cache of its own answered it (DSPy's, DeepEval's and ragas's, "
            "*Instructor's*; LangChain's, set_llm_cache(...) or a model's cache=; LangGraph's, "
            "a graph's compile(cache=...)): turn it off in tests "
            "(docs/frameworks.md) rather than prune what a replay without that cache needs; "
            "or a worker process it started by spawn or forkserver played them through an "
            "intercept() of its own, which the test does not see "
            "(docs/frameworks.md#background-jobs-and-worker-processes).",
            "*`replaygate prune tests/fixtures/test_cached/test_cached.jsonl --unused --runs 1`*",
        ]
    )


def test_strict_on_a_fixture_requested_fewer_times_than_recorded_names_recording_anew(
    pytester: pytest.Pytester,
) -> None:
    """A test that now sends its request once where it was recorded sending it twice (a
    loop, pytest-benchmark's rounds) played the fixture: prune keeps it, so the strict
    error names recording the test anew, not prune."""
    record_echoes(pytester.path / "tests/fixtures/test_rounds/test_rounds.jsonl", ["one"] * 2)
    pytester.makepyfile(
        test_rounds="""
        def test_rounds(anthropic_client):
            anthropic_client().messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "one"}]
            )
        """
    )
    strict = pytester.runpytest("--replaygate-strict")
    strict.assert_outcomes(passed=1, errors=1)
    strict.stdout.fnmatch_lines(
        [
            "*(POST /v1/messages): requested 1 time(s), 2 responses recorded",
            "A fixture requested fewer times than it holds responses is one the test now sends "
            "less often: * prune keeps it, since it was played: record the test anew, `pytest "
            "'test_rounds.py::test_rounds' --replaygate-record-mode=rerecord "
            "--replaygate-approve-live` (add `--replaygate-simulator=NAME` * to record from the "
            "simulator again), so that it holds as many responses as the test sends.",
        ]
    )  # the echo simulator recorded it (record_echoes)
    assert "replaygate prune" not in strict.stdout.str()


def test_strict_does_not_fail_again_a_test_that_failed_on_a_miss(
    pytester: pytest.Pytester,
) -> None:
    """A changed prompt fails its test with the miss, once: the fixtures the miss left
    unused are its consequence, not a second error. So does a miss a fallback caught,
    which fails the test at teardown."""
    for name in ("test_changed", "test_fallback"):
        record_echoes(pytester.path / f"tests/fixtures/test_changed/{name}.jsonl", ["one"])
    pytester.makepyfile(
        test_changed="""
        def ask(client, content):
            return client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": content}]
            )

        def ask_with_fallback(client, content):
            try:
                return ask(client, content).content[0].text
            except Exception:
                return "fallback"

        def test_changed(anthropic_client):
            ask(anthropic_client(), "two")

        def test_fallback(anthropic_client):
            assert ask_with_fallback(anthropic_client(), "two") == "fallback"
        """
    )
    strict = pytester.runpytest("--replaygate-strict", "-rfE")
    strict.assert_outcomes(failed=1, passed=1, errors=1)
    strict.stdout.fnmatch_lines(["*FixtureMismatchError: no fixture recorded*"])
    strict.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_fallback*",
            "*the code under test caught a replay error*",
            "*ERROR test_changed.py::test_fallback - Failed: replaygate: *",
        ]
    )
    assert "unused by this test" not in strict.stdout.str()
    assert "BaseExceptionGroup" not in strict.stdout.str()


def test_strict_does_not_fail_again_a_recording_that_sent_nothing(
    pytester: pytest.Pytester,
) -> None:
    # its teardown failed twice, as one BaseExceptionGroup the summary line named
    record_echoes(pytester.path / "tests/fixtures/test_quiet/test_sends_nothing.jsonl", ["one"])
    pytester.makepyfile(test_quiet="def test_sends_nothing(anthropic_client):\n    pass\n")
    result = pytester.runpytest(
        "--replaygate-strict",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
        "-rE",
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ERROR test_quiet.py::test_sends_nothing - Failed: nothing*"])
    assert "unused by this test" not in result.stdout.str()
    assert "BaseExceptionGroup" not in result.stdout.str()


def test_intercept_fixture_and_marker_folder_store(pytester: pytest.Pytester) -> None:
    store = pytester.path / "tests/fixtures/agent"
    record_echoes(store, ["hello"])
    pytester.makepyfile(
        test_agent="""
        import anthropic
        import pytest

        def agent():
            client = anthropic.Anthropic(api_key="anything")
            message = client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "hello"}]
            )
            return message.content[0].text

        @pytest.mark.replaygate(fixtures="agent")
        def test_agent(replaygate_intercept):
            assert agent() == "echo: hello"
            assert replaygate_intercept.replays == 1
        """
    )
    pytester.runpytest("--replaygate-strict").assert_outcomes(passed=1)


def test_openai_and_async_factories_replay_from_the_per_test_store(
    pytester: pytest.Pytester,
) -> None:
    store = pytester.path / "tests/fixtures/test_factories/test_both.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        httpx2_client(store, "record-missing", approve_live=True) as http,
        openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http) as client,
        anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as claude,
    ):
        client.chat.completions.create(model="g", messages=[{"role": "user", "content": "sync"}])
        client.chat.completions.create(model="g", messages=[{"role": "user", "content": "async"}])
        claude.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "a"}])
    pytester.makepyfile(
        test_factories="""
        import asyncio

        def test_both(openai_client, async_openai_client, async_anthropic_client):
            sync = openai_client().chat.completions.create(
                model="g", messages=[{"role": "user", "content": "sync"}]
            )
            assert sync.choices[0].message.content == "echo: sync"
            other = asyncio.run(
                async_openai_client().chat.completions.create(
                    model="g", messages=[{"role": "user", "content": "async"}]
                )
            )
            assert other.choices[0].message.content == "echo: async"
            claude = asyncio.run(
                async_anthropic_client().messages.create(
                    model="m", max_tokens=8, messages=[{"role": "user", "content": "a"}]
                )
            )
            assert claude.content[0].text == "echo: a"
        """
    )
    pytester.runpytest("--replaygate-strict").assert_outcomes(passed=1)


def test_a_miss_is_reported_at_the_call_without_replaygates_frames(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_misses="""
        import asyncio

        import httpx2

        def ask(client):
            return client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "never recorded"}]
            )

        def test_sync(anthropic_client):
            ask(anthropic_client())

        def test_async(async_openai_client):
            asyncio.run(
                async_openai_client().chat.completions.create(
                    model="g", messages=[{"role": "user", "content": "never recorded"}]
                )
            )

        def test_intercepted(replaygate_intercept):
            with httpx2.Client() as client:
                client.post("https://api.anthropic.com/v1/messages", json={"model": "m"})
        """
    )
    result = pytester.runpytest("--tb=long", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=3)
    report = result.stdout.str()
    raised = [line for line in report.splitlines() if line.startswith("E ")]
    assert sum("FixtureMismatchError: no fixture recorded" in line for line in raised) == 3
    # the last frame shown is the client's sending call; none is replaygate's own
    assert "replaygate/http/" not in report and "replaygate/fixtures/" not in report


ASYNC_RECORDING = """
import asyncio
import gc


def test_records_with_async_clients(async_anthropic_client, async_openai_client):
    anthropic, openai = async_anthropic_client(), async_openai_client()
    # each knows its platform: a task's first call sends at once, not from a worker thread
    assert anthropic._platform is not None and openai._platform is not None

    async def both():
        claude = await anthropic.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "a"}]
        )
        stream = await openai.chat.completions.create(
            model="g", stream=True, messages=[{"role": "user", "content": "b"}]
        )
        return claude.content[0].text, [chunk async for chunk in stream]

    text, chunks = asyncio.run(both())  # the clients are left open, as a test leaves them
    assert text == "echo: a" and chunks


def test_collects_what_the_last_one_left():
    gc.collect()
"""


def test_recording_with_async_factories_leaves_no_connection_open(
    pytester: pytest.Pytester,
) -> None:
    """An async client's connections belong to the test's event loop, gone before the
    factory's teardown: the live transport keeps none open between calls."""
    pytester.makepyfile(test_async=ASYNC_RECORDING)
    gc.collect()  # what earlier tests in this process left is not this run's
    result = pytester.runpytest(
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
        "-W",
        "always::ResourceWarning",
    )
    result.assert_outcomes(passed=2)
    assert "unclosed" not in result.stdout.str()
    store = pytester.path / "tests/fixtures/test_async/test_records_with_async_clients.jsonl"
    assert len(FixtureStore.open(store)) == 2


NOTHING_RECORDED_TESTS = """
import asyncio
import json
import os
import urllib.request

import aiohttp
import pytest

URL = os.environ["REPLAYGATE_TEST_SIM_URL"]
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}


def body(content):
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": content}]}


def test_sends_through_urllib(replaygate_intercept):
    data = json.dumps(body("urllib")).encode()
    request = urllib.request.Request(f"{URL}/v1/messages", data=data, headers=HEADERS)
    with urllib.request.urlopen(request, timeout=5) as answer:
        assert answer.status == 200


def test_sends_through_aiohttp(replaygate_intercept):
    async def ask():
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{URL}/v1/messages", json=body("aio"), headers=HEADERS) as r:
                return (await r.json())["content"][0]["text"]

    assert asyncio.run(ask()) == "echo: aio"
    assert replaygate_intercept.sent == 1


@pytest.mark.replaygate(expect_requests=False)
def test_may_send_nothing(anthropic_client):
    anthropic_client(api_key="unused")
    # the call forgotten: the fixture says to call it, not 'function' has no 'messages'
    with pytest.raises(AttributeError, match=r"^anthropic_client is a factory of clients, no"):
        anthropic_client.messages


def test_only_reads_its_store(replaygate_store):
    assert len(replaygate_store) == 0


@pytest.mark.replaygate
def test_calls_no_model_api():
    assert sum([1, 1]) == 2
"""


def test_recording_a_test_whose_session_sees_no_request_fails_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_nothing=NOTHING_RECORDED_TESTS)
    pytester.makeconftest(NO_CAP)
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("REPLAYGATE_TEST_SIM_URL", sim.url)
        result = pytester.runpytest(
            "--replaygate-record-mode=record-missing", "--replaygate-approve-live"
        )
        assert len(sim.requests) == 2
    result.assert_outcomes(passed=5, errors=2)
    nothing = (
        "nothing was recorded: the test sent no request replaygate saw. Its client may use a "
        "transport replaygate does not intercept (intercepted: httpx2, httpx, aiohttp, "
        "requests, botocore, aiobotocore); a response cache of the code under test may have "
        "answered (DSPy's, on by default and kept on disk between runs: "
        "dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False); "
        "LiteLLM's litellm.cache; DeepEval's, kept in .deepeval/ "
        "between runs: no cache_config=CacheConfig(use_cache=True) given to evaluate(), no -c "
        "given to deepeval test run; ragas's, kept in .cache/: no cache=DiskCacheBackend() "
        "given to its LLM's wrapper; LangChain's, set by set_llm_cache(InMemoryCache()) or "
        "SQLiteCache, used by each model not given cache=False, or given to a model's cache=: "
        "set_llm_cache(None), no cache= given; LangGraph's, given to a graph's "
        "compile(cache=...) (InMemoryCache, or SqliteCache, kept on disk between runs) for the "
        "nodes given a cache_policy: no cache= given to compile(); Instructor's, given to its "
        "client's cache= "
        "(AutoCache, or DiskCache, kept on disk between runs): no cache= given): "
        "turn it off in tests, since a replay without it has "
        "nothing to answer with; a job it queued may have sent after "
        "it returned (a task queue's worker thread: wait for the job in the test, else its "
        "request is recorded into the next test's store); or the test calls no model API (a "
        "local model, such as pydantic-ai's TestModel or FunctionModel, a fake, the SDK method "
        "it would call patched: pytest-mock's mocker.patch, unittest.mock.patch; an OpenAI "
        "Agents SDK input guardrail checked without a model, whose tripwire stopped the run "
        "before the agent's model call was sent): mark such a test "
        "@pytest.mark.replaygate(expect_requests=False), which keeps the fixtures= of a "
        "mark on its class or module"
    )
    for test in ("test_sends_through_urllib", "test_calls_no_model_api"):
        result.stdout.fnmatch_lines([f"*ERROR at teardown of {test}*", nothing])
    assert "NothingRecordedWarning" not in result.stdout.str()
    stores = pytester.path / "tests/fixtures/test_nothing"
    assert [p.name for p in stores.glob("*.jsonl")] == ["test_sends_through_aiohttp.jsonl"]
    # replaying offline, the aiohttp test is answered from what it recorded
    pytester.runpytest("-k", "aiohttp").assert_outcomes(passed=1)


CACHED_TESTS = f"""
import anthropic
import pytest
{ASKING}
CACHE = {{}}


def cached(question):
    if question not in CACHE:  # a response cache, as LiteLLM's litellm.cache
        CACHE[question] = ask(question)
    return CACHE[question]


@pytest.mark.replaygate(fixtures="first.jsonl")
def test_first():
    assert cached("one") == "echo: one"


@pytest.mark.replaygate(fixtures="second.jsonl")
def test_second():
    assert cached("one") == "echo: one"


@pytest.mark.replaygate(fixtures="second.jsonl", expect_requests=False)
def test_said_to_send_nothing():
    assert cached("one") == "echo: one"
"""


def test_a_replayed_test_answered_by_a_cache_from_an_empty_store_fails(
    pytester: pytest.Pytester,
) -> None:
    """Replaying under --replaygate-strict, a test whose store holds no fixture and that
    sent nothing was never recorded: it passed only on what a cache an earlier test warmed
    answered, and would miss run alone. It fails at teardown, as a recording that sent
    nothing does."""
    record_echoes(pytester.path / "tests/fixtures/first.jsonl", ["one"])
    pytester.makepyfile(test_cached=CACHED_TESTS)
    result = pytester.runpytest("-p", "no:randomly", "--replaygate-strict")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_second*",
            "nothing was replayed: the test sent no request replaygate saw, and its store "
            "*second.jsonl holds no fixture, so it passed on no recorded answer and was never "
            "recorded (run alone, or before the test that warmed a cache, it misses). *"
            "LiteLLM's litellm.cache*",
        ]
    )


KEYLESS_TESTS = """
def test_answer(anthropic_client):
    client = anthropic_client()
    client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "q"}])


def test_fails_before_sending(replaygate_intercept):
    assert 1 == 2, "failed before any request"
"""


def test_recording_live_without_a_key_says_so_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_keyless=KEYLESS_TESTS)
    pytester.makeconftest(NO_CAP)
    result = pytester.runpytest(  # the long form: no word "Traceback" but in what is said
        "--replaygate-record-mode=record-missing", "--replaygate-approve-live", "--tb=long"
    )
    result.assert_outcomes(failed=2)  # and no error at teardown for sending nothing
    result.stdout.fnmatch_lines(
        [
            "*replaygate: recording from the live API needs ANTHROPIC_API_KEY or "
            "ANTHROPIC_AUTH_TOKEN (or api_key=...);"
            " record from the loopback simulator instead with --replaygate-simulator",
            "*failed before any request*",
        ]
    )
    assert "nothing was recorded" not in result.stdout.str()
    assert "Could not resolve authentication method" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str() and "LiveAPIError" not in result.stdout.str()


LOOPBACK_SERVER_TESTS = """
import os


def test_given(openai_client):
    client = openai_client(base_url=os.environ["SERVER_URL"])
    assert client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])


def test_from_environment(openai_client):
    client = openai_client()
    assert client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
"""


def test_recording_from_a_loopback_server_needs_no_key(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it failed: "recording from the live API needs OPENAI_API_KEY", of a server of the
    # test's own at 127.0.0.1, which the CLI sends the key `loopback-key`
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makepyfile(test_loopback=LOOPBACK_SERVER_TESTS)
    pytester.makeconftest(NO_CAP)
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("SERVER_URL", sim.openai_base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", sim.openai_base_url)
        recorded = pytester.runpytest(
            "--replaygate-record-mode=record-missing", "--replaygate-approve-live"
        )
        recorded.assert_outcomes(passed=2)
        assert {r.headers.get("authorization") for r in sim.requests} == {"Bearer loopback-key"}
    pytester.runpytest().assert_outcomes(passed=2)


OWN_CLIENTS_WITHOUT_KEY = """
import anthropic
import openai
import pytest

ASK = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "q"}]}


@pytest.mark.replaygate
def test_anthropic():
    anthropic.Anthropic().messages.create(**ASK)


@pytest.mark.replaygate
def test_openai():
    openai.OpenAI().chat.completions.create(**ASK)
"""


def test_a_client_of_the_test_s_own_without_a_key_is_told_which_key_to_set(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the SDK's error, raised before any request reaches replaygate, said nothing of replay
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_own=OWN_CLIENTS_WITHOUT_KEY)
    pytester.makeconftest(NO_CAP)
    replayed = pytester.runpytest("-p", "no:cacheprovider")
    replayed.assert_outcomes(failed=2)
    replayed.stdout.fnmatch_lines_random(
        [
            f"*replaygate: the SDK found no API key. In this run a replay, which sends "
            f"nothing, takes any key, and keys are neither stored nor matched: set {name}=test "
            f'in the environment (or pass api_key="test" to the client)'
            for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
        ]
    )
    recorded = pytester.runpytest(
        "-p", "no:cacheprovider", "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live", "-k", "anthropic",
    )  # fmt: skip
    recorded.assert_outcomes(failed=1)
    needs = (
        "*replaygate: recording sends live requests, so it needs the real key in ANTHROPIC_API_KEY*"
    )
    recorded.stdout.fnmatch_lines([needs])


def test_google_genai_s_error_for_a_missing_key_is_told_which_key_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # google-genai 3.x words it otherwise than before: the test failed with no note
    from replaygate.pytest_plugin.key_note import missing_key

    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError) as caught:
        genai.Client()
    assert missing_key(caught.value) == "GEMINI_API_KEY"


def test_a_framework_s_error_over_the_sdk_s_missing_key_is_told_which_key_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LiteLLM raises its own InternalServerError over openai's error: the test got no note
    from replaygate.pytest_plugin.key_note import missing_key

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RuntimeError) as caught:
        try:
            openai.OpenAI()
        except openai.OpenAIError as error:
            raise RuntimeError(f"litellm.InternalServerError: OpenAIException - {error}") from None
    assert missing_key(caught.value) == "OPENAI_API_KEY"
    worded = "litellm.AuthenticationError: Missing Anthropic API Key - A call is being made"
    assert missing_key(RuntimeError(worded)) == "ANTHROPIC_API_KEY"
    assert missing_key(RuntimeError(f"prompt: {worded}")) is None


def test_a_missing_aws_key_is_told_both_variables_and_the_clients_keys() -> None:
    # LiteLLM's bedrock/ models and AnthropicBedrock, given no AWS keys in a replay, failed
    # with no note: neither error was known
    from replaygate.pytest_plugin.key_note import KeyNote, missing_key

    litellm_s = (
        "litellm.AuthenticationError: BedrockException Invalid Authentication - Unable to "
        "locate credentials"
    )
    for said in (litellm_s, "Could not resolve AWS credentials from session"):
        assert missing_key(RuntimeError(said)) == "AWS_ACCESS_KEY_ID"
    note = KeyNote("replay").note("AWS_ACCESS_KEY_ID")
    assert "set AWS_ACCESS_KEY_ID=test and AWS_SECRET_ACCESS_KEY=test" in note
    assert 'aws_access_key_id="test"' in note and "api_key" not in note
    live = KeyNote("live").note("AWS_ACCESS_KEY_ID")
    assert "the real key in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in live


def test_a_malformed_base_url_fails_the_test_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the test failed with the SDK's raw httpx2.InvalidURL: Invalid port: 'abc'
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://ci:{token}@127.0.0.1:abc")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://[::1/v1")
    pytester.makepyfile(
        test_urls="""
def test_from_the_environment(anthropic_client):
    anthropic_client()


def test_from_the_environment_of_openai(openai_client):
    openai_client()


def test_given(anthropic_client):
    anthropic_client(base_url="http://[zz]:1")
"""
    )
    result = pytester.runpytest("--tb=long")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    assert (
        "\nreplaygate: ANTHROPIC_BASE_URL 'http://<user and password, 43 characters>"
        "@127.0.0.1:abc' is not a URL a model API can be reached at: its port 'abc' is "
        "not a number from 0 to 65535; correct or unset ANTHROPIC_BASE_URL\n"
    ) in out
    assert (
        "\nreplaygate: OPENAI_BASE_URL 'http://[::1/v1' is not a URL a model API can be "
        "reached at: its host opens '[' and never closes it (an IPv6 address: "
        "http://[::1]:8765); correct or unset OPENAI_BASE_URL\n"
    ) in out
    assert (
        "\nreplaygate: base_url 'http://[zz]:1' is not a URL a model API can be reached "
        "at: [zz] is not an IPv6 address; correct the base_url given\n"
    ) in out
    assert "InvalidURL" not in out and "Traceback" not in out and token not in out


def test_a_factory_given_a_client_of_the_tests_own_refuses_it(pytester: pytest.Pytester) -> None:
    # the test recording from the simulator passed and then failed with "nothing was
    # recorded ... a transport replaygate does not intercept", its client being httpx2's
    pytester.makepyfile(
        test_own="""
import httpx2
import replaygate.http


def test_own(anthropic_client):
    anthropic_client(http_client=httpx2.Client(event_hooks={"request": []}))


def test_own_async(async_openai_client):
    async_openai_client(http_client=httpx2.AsyncClient())


def test_wired(anthropic_client, replaygate_exchange):
    anthropic_client(http_client=replaygate.http.httpx2_client(replaygate_exchange))


def test_intercepted(openai_client, replaygate_intercept):
    openai_client(http_client=httpx2.Client())


def test_in_an_intercept_block(anthropic_client, replaygate_exchange):
    with replaygate.http.intercept(replaygate_exchange):  # it answers the client: not refused
        anthropic_client(http_client=httpx2.Client(event_hooks={"request": []}))


def test_mounted(anthropic_client, replaygate_exchange):
    wired = replaygate.http.httpx2_client(replaygate_exchange)._transport
    anthropic_client(http_client=httpx2.Client(mounts={"all://": wired}))
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(
        [
            "replaygate: anthropic_client(http_client=...) was given a client of the test's "
            "own, which answers nothing from the test's store: * Build it with "
            "replaygate.http.httpx2_client(replaygate_exchange, ...), * or add "
            "replaygate_intercept to the test's arguments, *",
            "replaygate: async_openai_client(http_client=...) * "
            "replaygate.http.httpx2_async_client(replaygate_exchange, ...)*",
        ]
    )


MARKER_ONLY_TESTS = """
import anthropic
import openai
import os
import pytest

URL = os.environ.get("REPLAYGATE_TEST_SIM_URL", "http://127.0.0.1:9")
pytestmark = pytest.mark.replaygate(note="marked module")


def agent(question):
    # the code under test builds its own client, as a framework does
    client = anthropic.Anthropic(api_key="k", base_url=URL, max_retries=0)
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
    )
    return reply.content[0].text


def test_from_the_module_mark():
    assert agent("module") == "echo: module"


@pytest.mark.replaygate(fixtures="shared/marked.jsonl", note="by the marker")
def test_own_marker_and_store():
    client = openai.OpenAI(api_key="k", base_url=f"{URL}/v1", max_retries=0)
    reply = client.chat.completions.create(
        model="g", messages=[{"role": "user", "content": "shared"}]
    )
    assert reply.choices[0].message.content == "echo: shared"


@pytest.mark.replaygate
def test_sends_nothing():
    assert agent.__name__ == "agent"
"""


def test_the_marker_alone_records_and_replays_every_client_like_vcr(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_marked=MARKER_ONLY_TESTS)
    pytester.makeconftest(NO_CAP)
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("REPLAYGATE_TEST_SIM_URL", sim.url)
        recorded = pytester.runpytest(
            "--replaygate-record-mode=record-missing", "--replaygate-approve-live"
        )
        assert len(sim.requests) == 2
    recorded.assert_outcomes(passed=3, errors=1)
    recorded.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_sends_nothing*", "*nothing was recorded*"]
    )
    folder = pytester.path / "tests/fixtures"
    (own,) = FixtureStore.open(folder / "test_marked/test_from_the_module_mark.jsonl")
    assert own.meta is not None and own.meta["note"] == "marked module"
    (shared,) = FixtureStore.open(folder / "shared/marked.jsonl")
    assert shared.meta is not None and shared.meta["note"] == "by the marker"
    # replaying offline (the simulator is gone), each marked test is answered from its store
    replayed = pytester.runpytest("--replaygate-strict", "-k", "not nothing")
    replayed.assert_outcomes(passed=2)


def test_a_marked_test_that_asks_for_its_store_is_left_to_handle_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.replaygate(fixtures="own.jsonl")
        def test_reads_its_store(request, replaygate_store):
            assert replaygate_store.path.name == "own.jsonl"
            assert "replaygate_intercept" not in request.fixturenames

        @pytest.mark.replaygate(fixtures="own.jsonl")
        def test_marker_only(request):
            assert "replaygate_intercept" in request.fixturenames
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)


REPEAT_TESTS = """
import pytest

from replaygate.errors import FixtureMismatchError


def ask(client):
    return client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "again"}]
    ).content[0].text


@pytest.mark.replaygate(fixtures="once.jsonl", repeat_last=True)
def test_asks_twice_with_repeat_last(anthropic_client):
    client = anthropic_client()
    assert [ask(client), ask(client)] == ["echo: again", "echo: again"]


@pytest.mark.replaygate(fixtures="once.jsonl")
def test_asks_twice_without(anthropic_client):
    client = anthropic_client()
    assert ask(client) == "echo: again"
    with pytest.raises(FixtureMismatchError, match="recorded 1 time and sent 2 times"):
        ask(client)


@pytest.mark.replaygate(fixtures="once.jsonl", repeat_lats=True)
def test_misspelled(anthropic_client):
    pass


@pytest.mark.replaygate(fixtures="once.jsonl", repeat_last="yes")
def test_not_a_flag(anthropic_client):
    pass
"""


def test_marker_repeat_last_answers_further_sends_with_the_last(
    pytester: pytest.Pytester,
) -> None:
    record_echoes(pytester.path / "tests/fixtures/once.jsonl", ["again"])
    pytester.makepyfile(test_repeat=REPEAT_TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.replaygate on test_repeat.py::test_misspelled: unknown argument(s) "
            "repeat_lats (it takes fixtures, interface, source, repeat_last, expect_requests, "
            "expect_caught_errors, match_host, note)",
            "*test_repeat.py::test_not_a_flag: repeat_last must be True or False*",
        ]
    )


STORE_MISTAKES = """
import pytest


@pytest.mark.replaygate("a.jsonl", "b.jsonl")
def test_two_stores(anthropic_client):
    pass


@pytest.mark.replaygate("a.jsonl", fixtures="b.jsonl")
def test_store_twice(anthropic_client):
    pass


@pytest.mark.replaygate(fixtures="")
def test_empty_store(anthropic_client):
    pass


@pytest.mark.replaygate(fixtures="notes.txt")
def test_not_a_store(anthropic_client):
    pass


@pytest.mark.replaygate(fixtures="a\\x00b.jsonl")
def test_nul_store(anthropic_client):
    pass


@pytest.mark.replaygate(fixtures="shared/\\nanswers.jsonl")
def test_newline_store(anthropic_client):
    pass
"""


def test_a_marker_store_that_is_ambiguous_or_not_a_store_fails_naming_it(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "tests/fixtures").mkdir(parents=True)
    (pytester.path / "tests/fixtures/notes.txt").write_text("my notes\n")
    pytester.makepyfile(test_stores=STORE_MISTAKES)
    result = pytester.runpytest()
    result.assert_outcomes(errors=6)
    result.stdout.fnmatch_lines_random(
        [
            "*test_stores.py::test_nul_store: fixtures holds a NUL character, which no file's "
            "name holds: 'a\\x00b.jsonl'*",
            "*test_stores.py::test_newline_store: fixtures holds a control character '\\n', "
            "which no file's name holds on Windows: 'shared/\\nanswers.jsonl'*",
            "*test_stores.py::test_two_stores: 2 positional arguments ('a.jsonl', 'b.jsonl') "
            "(it takes one, the store)*",
            "*test_stores.py::test_store_twice: the store is given twice: 'a.jsonl' and "
            "fixtures='b.jsonl'*",
            "*test_stores.py::test_empty_store: fixtures is empty (name a store, or leave it "
            "out for the test's own)*",
            "replaygate: cannot set up test_stores.py::test_not_a_store: "
            "*tests/fixtures/notes.txt:1: malformed JSON*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "pytest_plugin/" not in result.stdout.str()  # the reason only, no plugin frames


def test_a_broken_sanitize_table_fails_each_test_with_its_file_and_key(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.replaygate.sanitize]\nrules = "x"\n')
    pytester.makepyfile("def test_x(anthropic_client):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "replaygate: cannot set up test_a_broken_sanitize_table*::test_x: *pyproject.toml:2: "
            "tool.replaygate.sanitize.rules: expected an array of tables, got 'x'"
        ]
    )
    assert "pytest_plugin/" not in result.stdout.str()


@pytest.mark.parametrize(
    ("marker", "option", "refusal"),
    [
        (
            'fixtures="answer.json"',
            "--replaygate-dir=tests/fixtures",
            "*tests/fixtures/answer.json: a one-fixture .json file cannot be recorded into; "
            "record into a .jsonl file or a folder (nothing was sent)",
        ),
        (
            "",
            "--replaygate-dir=notes.txt",
            "*notes.txt/test_*/test_into_store.jsonl: cannot record here: *notes.txt is a file, "
            "where a folder is expected (nothing was sent)",
        ),
        (
            'fixtures="cassettes/answer.yaml"',
            "--replaygate-dir=tests/fixtures",
            "*tests/fixtures/cassettes/answer.yaml: is named as a cassette, not a fixture store*"
            "replaygate import-cassettes*",
        ),
    ],
)
def test_recording_into_a_store_that_cannot_be_written_is_refused_before_anything_is_sent(
    pytester: pytest.Pytester, marker: str, option: str, refusal: str
) -> None:
    pytester.makeconftest(NO_CAP)
    pytester.path.joinpath("notes.txt").write_text("my notes\n")
    with Simulator(behavior="echo") as sim:
        pytester.makepyfile(
            f"""
            import pytest

            @pytest.mark.replaygate({marker})
            def test_into_store(anthropic_client):
                anthropic_client(base_url={sim.url!r}).messages.create(
                    model="m", max_tokens=8, messages=[{{"role": "user", "content": "hi"}}]
                )
            """
        )
        result = pytester.runpytest(
            "--replaygate-record-mode=record-missing", "--replaygate-approve-live", option
        )
        assert sim.requests == []  # nothing paid for, to be refused once answered
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([refusal])
    assert not (pytester.path / "tests/fixtures/answer.json").exists()
    assert not (pytester.path / "tests/fixtures/cassettes").exists()


def test_a_test_whose_id_holds_a_secret_is_refused_before_any_file_is_named_by_it(
    pytester: pytest.Pytester,
) -> None:
    # the id named the test's store file and was written to the hits log
    token = "ghp_" + "Qw7eRt9Yu1IoPa3sDf5gHj7kLz9xCv1bNm2Q"
    pytester.makepyfile(
        test_keyed=f"""
        import pytest

        @pytest.mark.parametrize("key", [{token!r}, "plain"])
        def test_keyed(anthropic_client, key):
            anthropic_client().messages.create(
                model="m", max_tokens=8, messages=[{{"role": "user", "content": "hi"}}]
            )
        """
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",  # pytest's own cache keeps the ids
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["replaygate: this test's id holds a secret-looking value (GitHub token), and would *"]
    )
    written = [
        p
        for p in pytester.path.rglob("*")
        if p.is_file() and p.name != "test_keyed.py" and p.parent.name != "__pycache__"
    ]  # what replaygate wrote: not the test's own source, nor pytest's compiled one
    assert (pytester.path / "tests/fixtures/test_keyed/test_keyed[plain].jsonl") in written
    assert not [p for p in written if token in p.name or token in p.read_text(errors="ignore")]


def test_a_file_named_for_an_auth_word_is_no_secret_in_a_test_s_id() -> None:
    # tests/test_tokens.py::test_tokens_anthropic read as "token: :test_tokens_anthropic",
    # a credential written after its name, and its setup was refused
    for plain in (
        "tests/test_tokens.py::test_tokens_anthropic",
        "tests/test_auth.py::TestLogin::test_password_reset_email[en]",
    ):
        assert secret_in_id(plain) is None
    keyed = "tests/test_a.py::test_keyed[password=Qw7eRt9Yu1IoPa3sDf5gHj7kLz9x]"
    assert secret_in_id(keyed) == "high-entropy value in an auth-like field"
    assert secret_in_id("tests/test_a.py::test_keyed[x::token: Qw7eRt9Yu1IoPa3sDf5gHj7kLz9x]")
