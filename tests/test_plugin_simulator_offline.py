"""Recording from the plugin's simulator keeps the whole session within loopback, as
replay does: what a module- or session-scoped fixture, or a fixture set up before the
test's store, sends is refused instead of reaching a real host. A marked test's
intercept is set up before the test's own fixtures, so what they send (in setup and
in teardown) is recorded and replayed. A test whose name is longer than a file name
can be gets a store of a bounded name."""

from __future__ import annotations

import pytest

from nested_pytest import sessions_loading
from replaygate.fixtures.store import FixtureStore
from sdks import anthropic, openai

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic, openai, "requests")


RECORD = (
    "-p",
    "no:cacheprovider",
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)

# Each probe looks a name up only when the network is blocked: never a real lookup.
PROBES = """
import anthropic
import pytest

from replaygate.errors import NetworkBlockedError
from replaygate.network import network_blocked


def probe():
    if not network_blocked():
        return "open"
    client = anthropic.Anthropic(api_key="k", max_retries=0)
    try:
        client.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}])
    except anthropic.APIConnectionError as err:
        cause = err.__cause__
        while cause is not None and not isinstance(cause, NetworkBlockedError):
            cause = cause.__cause__ or cause.__context__
        return "refused" if cause is not None else repr(err)
    return "answered"


@pytest.fixture(scope="session")
def session_probe():
    return probe()


@pytest.fixture(scope="module")
def module_probe():
    return probe()


@pytest.fixture
def early_probe():
    return probe()


def test_fixtures_before_the_store(session_probe, module_probe, early_probe, anthropic_client):
    assert (session_probe, module_probe, early_probe) == ("refused",) * 3
    reply = anthropic_client().messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.content[0].text == "echo: hi"
"""


def test_recording_from_the_simulator_blocks_what_is_set_up_before_the_store(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_probes=PROBES)
    result = pytester.runpytest(*RECORD)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: network attempts refused while recording from the simulator*",
            "*lookup of 'api.anthropic.com' (from anthropic._base_client) during "
            "test_probes.py::test_fixtures_before_the_store",
        ]
    )


FIXTURE_CALLS = """
import anthropic
import pytest

from replaygate.http.active import answering

pytestmark = pytest.mark.replaygate


def ask(words):
    assert answering() is not None, f"{words!r} asked outside the intercept"
    client = anthropic.Anthropic(api_key="k", max_retries=0)
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": words}]
    )
    return reply.content[0].text


@pytest.fixture(scope="module")
def shared():
    return "shared"


@pytest.fixture
def warm():
    yield ask("warm")
    assert ask("cleanup") == "echo: cleanup"


def test_agent(shared, warm):
    assert warm == "echo: warm"
    assert ask("turn") == "echo: turn"
"""


def test_the_marker_intercepts_what_the_test_s_fixtures_send(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_calls=FIXTURE_CALLS)
    pytester.runpytest(*RECORD).assert_outcomes(passed=1)
    store = FixtureStore.open(pytester.path / "tests/fixtures/test_calls/test_agent.jsonl")
    asked = [f.request["body"]["messages"][0]["content"] for f in store]
    assert asked == ["warm", "turn", "cleanup"]
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


LONG_ID = """
import pytest


@pytest.mark.parametrize("city", ["x" * 300], ids=["x" * 300])
def test_city(anthropic_client, city):
    reply = anthropic_client().messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": city[:5]}]
    )
    assert reply.content[0].text == "echo: xxxxx"
"""


def test_a_test_id_longer_than_a_file_name_records_and_replays(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_long=LONG_ID)
    pytester.runpytest(*RECORD).assert_outcomes(passed=1)
    (store,) = (pytester.path / "tests/fixtures/test_long").glob("*.jsonl")
    assert len(store.name) < 255 and store.name.startswith("test_city[xxx")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


FACTORY_AND_OWN = """
import anthropic
import pytest

judge = anthropic.Anthropic(api_key="k", max_retries=0)


@pytest.mark.replaygate
def test_agent_and_judge(openai_client):
    answer = openai_client().chat.completions.create(
        model="g", messages=[{"role": "user", "content": "hi"}]
    )
    judge.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "grade"}]
    )
"""


def test_a_refused_client_of_a_marked_test_asking_for_a_factory_is_told_the_cause(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_mix=FACTORY_AND_OWN)
    cause = (
        "*replaygate: the marker intercepts no client of test_mix.py::test_agent_and_judge, "
        "since it asks for openai_client: *Add replaygate_intercept to the test's arguments*"
    )
    recorded = pytester.runpytest(*RECORD)
    recorded.assert_outcomes(failed=1)
    recorded.stdout.fnmatch_lines(
        ["*this run records from the simulator, with approval: recording again does not*", cause]
    )
    replayed = pytester.runpytest("-p", "no:cacheprovider")
    replayed.assert_outcomes(failed=1)
    replayed.stdout.fnmatch_lines([cause])
    assert "this run records" not in replayed.stdout.str()


SIDE_FILE = """
import pytest
import requests


@pytest.mark.replaygate
def test_agent_counts_tokens():
    requests.get("https://files.example.com/encodings/o200k_base.tiktoken", timeout=5)
"""


def test_a_request_to_no_model_api_the_intercept_sent_is_told_so(
    pytester: pytest.Pytester,
) -> None:
    """A marked test's own request to no provider's API (a tokenizer file tiktoken fetches)
    goes through its intercept where it is addressed, and is refused there: the note says
    so and to stop it at its source, not that its client was built outside the intercept."""
    pytester.makepyfile(test_side=SIDE_FILE)
    recorded = pytester.runpytest(*RECORD)
    recorded.assert_outcomes(failed=1)
    recorded.stdout.fnmatch_lines(
        [
            "*replaygate: the test's intercept sent GET /encodings/o200k_base.tiktoken where it"
            " is addressed: it calls no provider's API*stop it at its source*TIKTOKEN_CACHE_DIR*"
        ]
    )
    assert "built outside the test's intercept" not in recorded.stdout.str()
    assert "recording again does not reach" not in recorded.stdout.str()


def test_a_client_the_intercept_does_not_answer_is_not_said_to_be_built_outside_it(
    pytester: pytest.Pytester,
) -> None:
    """A marked test whose client sends through a transport intercept() does not answer
    (urllib here; DSPy's lm15 engine) is refused while its intercept is open: the note
    says recording again does not reach it, not that it was built outside the intercept."""
    pytester.makepyfile(
        test_urllib="""
        import urllib.request

        import pytest


        @pytest.mark.replaygate
        def test_agent():
            urllib.request.urlopen("https://api.openai.com/v1/models", timeout=5)
        """
    )
    recorded = pytester.runpytest(*RECORD)
    recorded.assert_outcomes(failed=1)
    recorded.stdout.fnmatch_lines(["*recording again does not reach a client replaygate does*"])
    assert "built outside the test's intercept" not in recorded.stdout.str()


SOCKETS_REFUSED = """
import pytest

from replaygate.sim import Simulator


class SocketBlockedError(RuntimeError):
    "As pytest-socket's --disable-socket raises it where the simulator makes its socket."


SocketBlockedError.__module__ = "pytest_socket"
tries = []


def refused(self):
    tries.append(self)
    raise SocketBlockedError("A test tried to use socket.socket.")


@pytest.fixture(autouse=True)
def sockets_refused(monkeypatch):  # undone after each test: the run shares this process
    monkeypatch.setattr(Simulator, "start", refused)


@pytest.mark.parametrize("n", [1, 2])
def test_agent(openai_client, n):
    openai_client()


def test_tried_once():
    assert len(tries) == 1
"""


def test_a_simulator_pytest_socket_refuses_fails_each_test_with_one_line_naming_the_remedy(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_refused=SOCKETS_REFUSED)
    result = pytester.runpytest(*RECORD)
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "replaygate: the simulator could not start its server on 127.0.0.1 (SocketBlockedError:"
            " A test tried to use socket.socket.); pytest-socket's --disable-socket (or its "
            "disable_socket marker) refuses every socket, the simulator's own too: add "
            "--allow-hosts=127.0.0.1, which lets sockets be made and connect to loopback only"
        ]
        * 2
    )
    assert "Traceback" not in result.stdout.str()
