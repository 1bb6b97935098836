"""The plugin reads which fixtures a test uses, and what each requests, from pytest's
fixture definitions: a fixture of the project's own over the store (built on one of the
plugin's) is named as the plugin's are, and a fixture overriding one that requests the
sample index is refused as that one is."""

from __future__ import annotations

import pytest

# Loaded here once: a store class that a nested session loads anew is not the one a later
# nested session's plugin (loaded before) checks a store against.
import replaygate.fixtures.store  # noqa: F401

# each test runs a pytest session of its own, whose failures are read for the plugin's words
pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]

# Each test runs pytest itself on a project of its own (pytester).

OWN_FIXTURE_OVER_THE_STORE = """
import httpx
import pytest

@pytest.fixture
def gemini_client(replaygate_exchange):
    return replaygate_exchange

@pytest.mark.replaygate
def test_agent(gemini_client):
    httpx.get("http://192.0.2.1/v1/models", timeout=0.5)  # a client the test builds itself
"""


def test_a_refused_client_of_a_test_asking_for_a_fixture_over_its_store_names_that_fixture(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_own=OWN_FIXTURE_OVER_THE_STORE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: the marker intercepts no client of test_own.py::test_agent, since it "
            "asks for gemini_client: *Add replaygate_intercept to the test's arguments*"
        ]
    )


def test_a_refused_websocket_of_a_test_asking_for_a_client_factory_is_not_sent_to_intercept(
    pytester: pytest.Pytester,
) -> None:
    """A Realtime API session of a marked test that asks for a client factory: no
    intercept would answer it, so the failure says what a WebSocket is owed, not to add
    replaygate_intercept."""
    pytester.makepyfile(
        test_voice=OWN_FIXTURE_OVER_THE_STORE.replace(
            'httpx.get("http://192.0.2.1/v1/models", timeout=0.5)',
            'connect("ws://192.0.2.1/v1/realtime", open_timeout=0.5)',
        ).replace("import httpx", "from websockets.sync.client import connect")
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*this is a WebSocket connection*neither records nor replays*"])
    result.stdout.no_fnmatch_line("*Add replaygate_intercept*")


OVERRIDING_A_SAMPLED_FIXTURE = """
import pytest

@pytest.fixture
def model(model):
    return model

@pytest.mark.sampled(n=2, floor=1)
def test_x(model, replaygate_sample):
    pass
"""


def test_a_fixture_overriding_one_that_requests_the_sample_index_is_refused(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef model(replaygate_sample):\n"
        "    return replaygate_sample\n"
    )
    pytester.makepyfile(test_override=OVERRIDING_A_SAMPLED_FIXTURE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*test_override.py::test_x (sampled n=2, floor=1): fixture(s) model request "
            "replaygate_sample, but fixtures are set up once per test*"
        ]
    )
