"""The plugin over many tests: a store shared by them is opened once per process and
sees what was added to it between two tests, and clients made per test record through
live transports sharing one TLS context. (Workers of pytest-xdist recording one shared
store: ``test_http_plugin.py``.)"""

from __future__ import annotations

import pytest

from echo_recording import record_echoes
from nested_pytest import UNUSED_PLUGINS
from replaygate.sim import Simulator

# Each test runs a pytest session of its own.
pytestmark = pytest.mark.slow


def test_a_fixture_added_to_a_shared_store_between_tests_is_replayed(
    pytester: pytest.Pytester,
) -> None:
    fixtures = pytester.path / "tests/fixtures"
    with Simulator(behavior="echo") as sim:
        record_echoes(fixtures / "shared.jsonl", ["first"], sim.url)
        record_echoes(fixtures / "later.jsonl", ["second"], sim.url)
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
    pytester.runpytest_inprocess("-p", "no:randomly", *UNUSED_PLUGINS).assert_outcomes(passed=2)


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
    pytester.runpytest(*record, "--replaygate-simulator=echo", *UNUSED_PLUGINS).assert_outcomes(
        passed=3
    )
    pytester.runpytest("--replaygate-strict", *UNUSED_PLUGINS).assert_outcomes(passed=3)
