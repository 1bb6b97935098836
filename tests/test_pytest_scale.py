"""The plugin over many tests: one store shared by them (under pytest-xdist, a request
sent by two workers at once is one fixture and none is lost; each process opens the
store once and sees what was added to it between two tests), and clients made per test
that record through live transports sharing one TLS context."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.sim import Simulator

SHARED = """
import os

import pytest

from replaygate.http import httpx2_client

pytestmark = pytest.mark.replaygate(fixtures="shared.jsonl")
URL = os.environ.get("REPLAYGATE_TEST_SIM_URL", "https://api.anthropic.com")


@pytest.mark.parametrize("n", range({tests}))
def test_ask(replaygate_exchange, n):
    text = f"q{{n % {distinct}}}"  # each request is sent by two tests, often at once
    body = {{"model": "m", "max_tokens": 8, "messages": [{{"role": "user", "content": text}}]}}
    reply = httpx2_client(replaygate_exchange, base_url=URL).post(
        "/v1/messages", json=body, headers={{"x-api-key": "k"}}
    )
    assert reply.json()["content"][0]["text"] == f"echo: {{text}}"
"""

NO_CAP = """
import pytest


@pytest.fixture
def replaygate_config():
    return {"cap": None}  # recorded from a loopback simulator started by the test
"""


@pytest.mark.slow
def test_workers_recording_one_store_lose_nothing_and_write_each_request_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    distinct = 12
    pytester.makepyfile(test_shared=SHARED.format(tests=2 * distinct, distinct=distinct))
    pytester.makeconftest(NO_CAP)
    options = ("-p", "no:cacheprovider", "-p", "no:randomly")
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("REPLAYGATE_TEST_SIM_URL", sim.url)
        result = pytester.runpytest_inprocess(
            "-n",
            "2",
            "--replaygate-record-mode=record-missing",
            "--replaygate-approve-live",
            *options,
        )
        result.assert_outcomes(passed=2 * distinct)
    with FixtureStore.open(pytester.path / "tests/fixtures/shared.jsonl") as store:
        assert len(store) == len(set(store.keys())) == distinct
        assert all(fixture.samples == 1 for fixture in store)
    monkeypatch.delenv("REPLAYGATE_TEST_SIM_URL")
    # the simulator is stopped: replay offline, in one process
    pytester.runpytest_inprocess("-p", "no:xdist", *options).assert_outcomes(passed=2 * distinct)


def _record(store: Path, content: str) -> None:
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(store, "record-missing", approve_live=True)
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http)
        client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": content}]
        )


def test_a_fixture_added_to_a_shared_store_between_tests_is_replayed(
    pytester: pytest.Pytester,
) -> None:
    fixtures = pytester.path / "tests/fixtures"
    _record(fixtures / "shared.jsonl", "first")
    _record(fixtures / "later.jsonl", "second")
    pytester.makepyfile(
        test_later="""
        from pathlib import Path

        import pytest

        pytestmark = pytest.mark.replaygate(fixtures="shared.jsonl")

        def ask(client, content):
            reply = client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": content}]
            )
            return reply.content[0].text

        def test_1_first(anthropic_client, replaygate_store):
            assert ask(anthropic_client(), "first") == "echo: first"
            later = Path(replaygate_store.path).with_name("later.jsonl").read_bytes()
            with open(replaygate_store.path, "ab") as shared:
                shared.write(later)

        def test_2_second(anthropic_client):
            assert ask(anthropic_client(), "second") == "echo: second"
        """
    )
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=2)


def test_sync_and_async_clients_made_per_test_record_then_replay(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_clients="""
        import asyncio

        import pytest

        def ask(client, content):
            return client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": content}]
            )

        @pytest.mark.parametrize("content", ["one", "two"])
        def test_sync(anthropic_client, content):
            assert ask(anthropic_client(), content).content[0].text == f"echo: {content}"

        def test_async(async_anthropic_client):
            reply = asyncio.run(ask(async_anthropic_client(), "three"))
            assert reply.content[0].text == "echo: three"
        """
    )
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest(*record, "--replaygate-simulator=echo").assert_outcomes(passed=3)
    pytester.runpytest("--replaygate-strict").assert_outcomes(passed=3)
