"""Nothing leaves the process in replay (law 3): every escape refused in every blocking context.

Each context (``block_network``, ``intercept`` in replay mode, the replaying CLI
commands, a pytest session in replay mode) runs every escape of
:mod:`network_escapes` and must refuse all of them, by class, while loopback still
works. A replay object alone opens no socket and patches nothing.
"""

from __future__ import annotations

import _socket
import asyncio
import contextlib
import functools
import ipaddress
import multiprocessing
import os
import re
import socket
import subprocess
import tempfile
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import network_escapes
from audited import socket_events
from conftest import REPLAYGATE_PLUGINS
from forked_cli import Forker
from nested_pytest import UNUSED_PLUGINS
from network_escapes import RAW_SOCKET
from replaygate import network
from replaygate.addresses import is_loopback
from replaygate.cli import main
from replaygate.errors import (
    FixtureMismatchError,
    NetworkBlockedError,
    NothingRecordedWarning,
    ReplayErrorCaughtWarning,
)
from replaygate.http import httpx2_client, intercept
from replaygate.http.active import live_call
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message, Usage
from replaygate.network import block_network, refusals
from replaygate.sim import Simulator
from sdks import anthropic
from unicode_text import UTF8_CHARACTERS

SHIPPED = Path(__file__).parents[1] / "src/replaygate/examples/research_copilot/data"
ALL = sum(network_escapes.expected().values())
LOOPBACK_V4 = ipaddress.ip_network("127.0.0.0/8")
LOOPBACK_V6 = ipaddress.ip_address("::1")


def depth() -> int:
    """How many blocks are active (a context must add one of its own)."""
    return len(network._levels)


def test_block_network_refuses_every_escape_and_names_the_caller() -> None:
    before = len(refusals())
    with block_network():
        assert network_escapes.try_all() == network_escapes.expected()
    made = refusals()[before:]
    assert len(made) >= ALL
    assert {r.caller for r in made if " in thread " not in r.caller} == {"network_escapes"}
    assert any(r.target == "192.0.2.1:443" and r.what == "connect" for r in made)
    assert any(r.target == "'api.example.invalid'" for r in made)


def test_an_attempt_of_a_task_of_the_standard_library_names_who_awaits_it() -> None:
    """``asyncio.wait_for(asyncio.open_connection(...))`` connects from a task whose
    coroutines are all asyncio's: the refusal named the module that ran the event loop
    (pytest-asyncio's plugin, under it), as if it had tried to connect, not the code
    awaiting that task (through ``wait_for``, ``asyncio.wait`` or a ``TaskGroup``, which
    named the task alone); a task nobody of the application awaits is named itself."""
    connect = functools.partial(asyncio.open_connection, "192.0.2.1", 443)

    async def waited() -> None:
        (done,), _ = await asyncio.wait([asyncio.ensure_future(connect())])
        assert isinstance(done.exception(), NetworkBlockedError)

    async def grouped() -> None:
        with contextlib.suppress(ExceptionGroup):
            async with asyncio.TaskGroup() as group:
                group.create_task(connect())

    async def alone() -> None:
        task = asyncio.ensure_future(connect())
        while not task.done():
            await asyncio.sleep(0)
        assert isinstance(task.exception(), NetworkBlockedError)

    before = len(refusals())
    with block_network():
        with pytest.raises(NetworkBlockedError):
            asyncio.run(network_escapes._open_connection())  # run from here, awaited there
        for run in (waited, grouped, alone):
            asyncio.run(run())
    *awaited, alone_ = (r.caller for r in refusals()[before:])
    assert awaited == ["network_escapes", __name__, __name__]
    assert re.fullmatch(r"asyncio\.\S+ in asyncio task \S+ \(open_connection\)", alone_)


def test_intercept_in_replay_mode_blocks_every_escape(tmp_path: Path) -> None:
    outside = depth()
    with (
        pytest.warns(ReplayErrorCaughtWarning, match="did not leave it"),  # try_all catches
        intercept(tmp_path / "none.jsonl", mode="replay"),
    ):
        assert depth() == outside + 1
        assert network_escapes.try_all() == network_escapes.expected()
    assert depth() == outside


def test_a_refusal_inside_intercept_names_the_ways_it_does_not_answer(tmp_path: Path) -> None:
    """A websocket (the Agents SDK's) is refused inside intercept(): the message says
    intercept() does not answer it, not to wire the client to intercept(); a live send
    refused (recording, to a host other than the live origin) keeps every remedy."""

    def refused() -> str:
        with pytest.raises(NetworkBlockedError) as error:
            socket.getaddrinfo("api.example.invalid", 443)
        return str(error.value)

    with intercept(tmp_path / "none.jsonl"):
        assert "this connection came another way: a websocket" in refused()
        with live_call():
            assert refused().endswith(network.HOW_TO_FIX)
    with block_network():
        assert refused().endswith(network.HOW_TO_FIX)
        with block_network(remedy=network.SIMULATOR_BLOCK):  # recording from the simulator
            assert refused().endswith(network.SIMULATOR_BLOCK)
            with block_network():  # an inner block given none keeps the outer one's
                assert refused().endswith(network.SIMULATOR_BLOCK)
        assert refused().endswith(network.HOW_TO_FIX)


def test_a_refused_websocket_says_it_is_neither_recorded_nor_replayed(tmp_path: Path) -> None:
    """A WebSocket connection (the OpenAI Realtime API's, Gemini Live's) is refused saying
    no fixture answers it and how to test it, not to wire the client to replaygate or
    record it: inside intercept(), under a bare block, while recording from the
    simulator, opened in a thread or by a coroutine."""
    from websockets.asyncio.client import connect as connect_async
    from websockets.sync.client import connect

    async def opened_async() -> None:
        async with connect_async("wss://api.example.invalid/v1/realtime"):
            pass

    def refused(open_it: Callable[[], object]) -> NetworkBlockedError:
        with pytest.raises(NetworkBlockedError) as error:
            open_it()
        return error.value

    opened = functools.partial(connect, "wss://api.example.invalid/v1/realtime")
    before = len(refusals())
    with intercept(tmp_path / "none.jsonl"):
        errors = [refused(opened), refused(lambda: asyncio.run(opened_async()))]
    with block_network(remedy=network.SIMULATOR_BLOCK):
        errors.append(refused(opened))
    for error in errors:
        assert str(error).endswith(network.WEBSOCKET)
        assert error.unintercepted
    listed = [r.caller for r in refusals()[before:]]  # what a run's summary lists
    assert listed == [f"{__name__}, a WebSocket, which replaygate neither records nor replays"] * 3
    with block_network(), pytest.raises(NetworkBlockedError) as error:  # a server's handler
        exec(
            "socket.getaddrinfo('api.example.invalid', 443)",
            {"__name__": "websockets.server", "socket": socket},
        )
    assert not str(error.value).endswith(network.WEBSOCKET)


def test_a_websocket_opened_by_an_http_client_is_sent_as_it_is(tmp_path: Path) -> None:
    """A WebSocket handshake of aiohttp (ws_connect) or httpx (httpx-ws) inside
    intercept() reaches a server of the test's own on loopback, where it missed as an HTTP
    request no fixture answered; beyond loopback it is refused as a WebSocket."""
    import aiohttp
    import httpx
    from websockets.asyncio.server import ServerConnection, serve

    handshake = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13"}
    handshake["Sec-WebSocket-Key"] = "dGhlIHNhbXBsZSBub25jZQ=="

    async def echo(ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async def talk(url: str) -> object:
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
            await ws.send_str("hi")
            return (await ws.receive()).data

    async def served() -> tuple[object, int]:
        async with serve(echo, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            url = f"ws://127.0.0.1:{port}/v1/realtime"
            async with httpx.AsyncClient() as client:
                upgraded = await client.get(url.replace("ws:", "http:"), headers=handshake)
            return await talk(url), upgraded.status_code

    with intercept(tmp_path / "none.jsonl"):
        assert asyncio.run(served()) == ("hi", 101)
        with pytest.raises(aiohttp.ClientConnectorError) as error:
            asyncio.run(talk("wss://api.example.invalid/v1/realtime"))
    assert str(error.value).endswith(f"{network.WEBSOCKET}]")


def test_a_refusal_of_dspy_s_own_transport_names_the_engine_that_is_intercepted(
    tmp_path: Path,
) -> None:
    """DSPy's default engine (lm15) sends through sockets of its own, which intercept()
    does not answer: its refusal says to give dspy.LM engine='litellm', and is marked as
    made by a client the block does not intercept, wherever that client was built."""
    sender = {"__name__": "dspy._vendor.lm15.transports._sync", "socket": socket}
    with intercept(tmp_path / "none.jsonl"), pytest.raises(NetworkBlockedError) as error:
        exec("socket.getaddrinfo('api.openai.com', 443)", sender)
    assert str(error.value).endswith(
        "(the Agents SDK's default transport), or let the host through with "
        "block_network(allow=[...]). DSPy's lm15 engine, which dspy.LM picks by default "
        "(engine='auto'), sends through sockets of its own: give the tests' models "
        "dspy.LM(..., engine='litellm'), which sends through LiteLLM's httpx clients."
    )
    assert error.value.unintercepted
    with block_network(), pytest.raises(NetworkBlockedError) as other:
        socket.getaddrinfo("api.openai.com", 443)
    assert not other.value.unintercepted
    assert "DSPy" not in str(other.value)


def test_a_refusal_of_botocore_says_where_its_calls_are_answered() -> None:
    """A refusal of botocore's connection (an agent's tool calling S3, a Bedrock call
    outside intercept()) said replaygate neither recorded nor replayed boto3 and to give
    the agents another model, where boto3's Bedrock calls are recorded and replayed."""
    sender = {"__name__": "botocore.httpsession", "socket": socket}
    with block_network(), pytest.raises(NetworkBlockedError) as error:
        exec("socket.getaddrinfo('s3.amazonaws.com', 443)", sender)
    assert str(error.value).endswith(
        "boto3's calls of Amazon Bedrock are recorded and replayed inside intercept() and in "
        "tests using replaygate (its marker), not outside them; a call of another AWS "
        "service (S3, STS: a tool of the agent) goes where it is addressed: give that tool "
        "a fake in tests."
    )


def test_a_lookup_of_pytest_socket_s_allowed_host_names_says_to_give_addresses() -> None:
    """pytest-socket looks up the host names of its --allow-hosts as each test is set up,
    which an offline session refuses for every test: the refusal says to give addresses."""
    sender = {"__name__": "pytest_socket", "socket": socket}
    with block_network(), pytest.raises(NetworkBlockedError) as error:
        exec("socket.gethostbyname('db.example.com')", sender)
    assert str(error.value).endswith(
        "pytest-socket looks up each host name its --allow-hosts gives as every test is set "
        "up, a lookup this offline session refuses: give it addresses "
        "(--allow-hosts=127.0.0.1,10.0.0.5), which need no lookup."
    )


@pytest.mark.parametrize("remedy", ["HOW_TO_FIX", "SIMULATOR_BLOCK"])
def test_a_refusal_of_tiktoken_s_download_says_to_fill_its_cache(remedy: str) -> None:
    """tiktoken's download of its encoding (a LlamaIndex or LangChain token count inside an
    intercept() block recording from the simulator) is no model call: its refusal said to
    record from the live API or let the host through; it says to fill tiktoken's cache."""
    sender = {"__name__": "tiktoken.load", "socket": socket}
    blocked = block_network(remedy=getattr(network, remedy))
    with blocked, pytest.raises(NetworkBlockedError) as error:
        exec("socket.getaddrinfo('openaipublic.blob.core.windows.net', 443)", sender)
    assert str(error.value).endswith(
        "refused (from tiktoken.load): replaygate blocks the network here, and tiktoken.load "
        "sends this of its own, no model call to record: stop it at its source (tiktoken: "
        "fill TIKTOKEN_CACHE_DIR beforehand; see docs/frameworks.md)."
    )


def test_a_refusal_of_a_model_call_litellm_sends_names_no_switch_of_its_price_file() -> None:
    """A model call LiteLLM's client sends where no block answers (a module-scoped fixture
    of the test's) was told as LiteLLM's own fetch of its price file, 'no model call to
    record', to be stopped by LITELLM_OFFLINE_MODE=true, which leaves it refused."""
    sender = {"__name__": "litellm.llms.custom_httpx.aiohttp_transport", "socket": socket}
    with block_network(), pytest.raises(NetworkBlockedError) as error:
        exec("socket.getaddrinfo('api.openai.com', 443)", sender)
    said = str(error.value)
    assert "LITELLM_OFFLINE_MODE" not in said and "no model call" not in said, said
    with block_network(), pytest.raises(NetworkBlockedError) as fetch:
        exec("socket.getaddrinfo('raw.githubusercontent.com', 443)", sender)
    assert "(LiteLLM: LITELLM_OFFLINE_MODE=true" in str(fetch.value)


@pytest.mark.parametrize(
    ("sender", "word", "remedy"),
    [
        (
            "pydantic_ai._utils",
            " pydantic-ai looks up the host of a file it downloads for the model",
            "give the tests' agent the file's bytes instead (BinaryContent(data=..., "
            "media_type=...)).",
        ),
        (
            "instructor.v2.core.remote",
            " Instructor looks up the host of a file it downloads for the model",
            "give the tests' messages the file's bytes instead (Image.from_path(...), "
            "Image.from_base64('data:image/png;base64,...')).",
        ),
    ],
)
def test_a_lookup_before_a_download_says_to_give_the_file_s_bytes(
    tmp_path: Path, sender: str, word: str, remedy: str
) -> None:
    """pydantic-ai looks up the host of a DocumentUrl it downloads for an OpenAI chat model
    (from a thread of ``pydantic_ai._utils``), Instructor that of an ``Image.from_url`` it
    downloads for Claude, before they send: the refusal said only that the connection came
    another way than an intercepted client (a websocket, gRPC, ...)."""
    module = {"__name__": sender, "socket": socket}
    with intercept(tmp_path / "none.jsonl"), pytest.raises(NetworkBlockedError) as error:
        exec("socket.getaddrinfo('example.com', None)", module)
    said = str(error.value)
    assert f"refused (from {sender}): an intercept() block is open, and answers what " in said
    assert "came another way" not in said  # not a websocket, gRPC or a raw socket
    assert word in said
    assert said.endswith(remedy)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_worker_started_afresh_inside_a_block_runs_its_work_blocked(method: str) -> None:
    # a spawn or forkserver worker began with no block, and reached the network as
    # addressed from a replaying run (law 3); its refusals say why no block answers there
    context = multiprocessing.get_context(method)
    with (
        block_network(remedy=network.SIMULATOR_BLOCK),
        ProcessPoolExecutor(1, mp_context=context) as pool,
    ):
        refused = pool.submit(network_escapes.looked_up).result(timeout=120)
    assert refused == f"refused: ...{network.started_afresh(method)[-60:]}"
    assert network_escapes.looked_up().startswith("not refused")  # the block is gone


def test_intercept_while_recording_leaves_the_network_alone(tmp_path: Path) -> None:
    outside = depth()
    with (
        pytest.warns(NothingRecordedWarning),  # it sends nothing
        intercept(tmp_path / "s.jsonl", mode="record-missing", approve_live=True),
    ):
        assert depth() == outside


@dataclass
class Tally:
    """What the escaping agent saw: the block depth inside, and the escapes refused."""

    depths: list[int] = field(default_factory=list)
    blocked: Counter[str] = field(default_factory=Counter)


TALLY = Tally()


@dataclass(frozen=True)
class Answer:
    final: str
    steps: tuple[object, ...] = ()
    usage: Usage = field(default_factory=Usage)


def escaping_agent(model: object, question: str) -> Answer:
    """An agent that tries every way out once, then answers without the model."""
    TALLY.depths.append(depth())
    if not TALLY.blocked:
        TALLY.blocked.update(network_escapes.try_all())
    return Answer(final="ok")


@pytest.fixture
def tally() -> Iterator[Tally]:
    TALLY.depths.clear()
    TALLY.blocked.clear()
    yield TALLY


@pytest.mark.slow  # a real git repository
def test_the_replaying_cli_commands_block_every_escape(tmp_path: Path, tally: Tally) -> None:
    agent = f"{__name__}:escaping_agent"
    store = str(SHIPPED / "fixtures.jsonl")
    outside = depth()
    common = ["--agent", agent, "--fixtures", store, "--model", "gpt-4o-mini", "--max-tokens", "8"]
    done = CliRunner().invoke(main, ["run", *common, "hi"])
    assert done.exit_code == 0, done.output
    assert tally.depths == [outside + 1] and tally.blocked == network_escapes.expected()
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"id": "one", "question": "hi", "must_contain": ["ok"], "samples": 3, "floor": 3}\n'
    )
    tally.blocked.clear()
    done = CliRunner().invoke(main, ["eval", *common, "--cases", str(cases), "--no-history"])
    assert "one" in done.output, done.output
    assert tally.depths[1:] and set(tally.depths[1:]) == {outside + 1}
    assert tally.blocked == network_escapes.expected()
    assert depth() == outside


SESSION = """
    import threading

    import pytest

    import network_escapes
    from replaygate import network

    COLLECTED_AT = len(network._levels)

    @pytest.fixture(scope="session")
    def telemetry():
        assert len(network._levels) == COLLECTED_AT + 1  # blocked from session setup
        yield
        worker = threading.Thread(target=network_escapes.send_telemetry)
        worker.start()
        worker.join()

    def test_uses_replaygate(replaygate_store, telemetry):
        assert network_escapes.try_all() == network_escapes.expected()

    def test_plain(telemetry):
        assert network_escapes.try_all() == network_escapes.expected()
"""


@pytest.mark.slow
def test_a_replaying_pytest_session_blocks_every_escape_and_reports_late_senders(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_session=textwrap.dedent(SESSION))
    pytester.makeconftest("from network_escapes import send_telemetry as pytest_sessionfinish")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: network attempts refused in replay*",
            "connect 192.0.2.1:443 (from network_escapes) during test_session.py::test_uses_*",
            "connect 192.0.2.1:443 (from network_escapes) during test_session.py::test_plain",
            "lookup of '192.0.2.1' (from network_escapes) during test_session.py::test_plain",
            "lookup of '192.0.2.1' (from network_escapes) after the last test",
            "* attempt(s) refused*",
        ]
    )


@pytest.mark.slow
def test_an_exporter_sending_at_interpreter_exit_is_refused_and_named(
    pytester: pytest.Pytester, pytest_forker: Forker
) -> None:
    pytester.makepyfile(
        test_exporter="""
        import atexit

        from network_escapes import send_telemetry

        def test_replays(replaygate_store):
            atexit.register(send_telemetry)
        """
    )
    done = forked_pytest(pytest_forker, pytester.path, {"PYTHONPATH": str(Path(__file__).parent)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "replaygate: lookup of '192.0.2.1' refused at interpreter exit (from network_escapes)"
        in done.stderr
    )


SESSION_IMPORTS = [
    "pytest",
    *REPLAYGATE_PLUGINS.split(","),
    "pdb",
    "replaygate.pytest_plugin.offline",
    "replaygate.pytest_plugin.settings",
    "replaygate.pytest_plugin.strict_shared",
    "replaygate.pytest_plugin.misses",
    "replaygate.fixtures.store",
    "replaygate.http",
    "httpx2",
]
"""What a replaying ``python -m pytest`` of the tests below imports (pytest, replaygate's
plugins and what they load as its test asks for a store; httpx2, which
:mod:`network_escapes` imports), in the order it imports them."""


@pytest.fixture(scope="module")
def pytest_forker() -> Iterator[Forker]:
    """The interpreter the pytest sessions' processes are forked from, what they import
    (:data:`SESSION_IMPORTS`) imported once and frozen out of the collector's reach: what
    the tests look at is how such a process ends (tests/forked_cli.py), not how its
    interpreter starts (a fresh one: about 0.6 s of CPU; a fork about 0.15 s)."""
    forker = Forker(SESSION_IMPORTS, freeze=True)
    yield forker
    forker.close()


PYTHON_M_PYTEST = "import runpy\nrunpy.run_module('pytest', run_name='__main__', alter_sys=True)"


def forked_pytest(
    forker: Forker, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest -p no:cacheprovider -q`` (without the plugins no session of the
    suite uses) run in ``cwd`` with ``env`` added to this process's environment, its
    process forked from ``forker``: it ends as that interpreter would."""
    args = ["-p", "no:cacheprovider", "-q", *UNUSED_PLUGINS]
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        status = forker.start(
            args, stdout=stdout.fileno(), stderr=stderr.fileno(), cwd=cwd,
            env={**os.environ, **env}, code=PYTHON_M_PYTEST,
        ).wait(60)  # fmt: skip
        stdout.seek(0)
        stderr.seek(0)
        said = stdout.read().decode(), stderr.read().decode()
    return subprocess.CompletedProcess(["python", "-m", "pytest", *args], status, *said)


@pytest.mark.slow
def test_a_replaying_command_keeps_the_network_blocked_to_the_process_s_end(
    forker: Forker, tmp_path: Path
) -> None:
    # replaygate run of a traced agent: LangSmith's thread uploaded the replayed runs once
    # the command's blocks had ended, to the real host, from a command that promises
    # nothing leaves the process
    from replaygate.examples.research_copilot import shipped_fixtures

    (tmp_path / "traced.py").write_text(
        "import atexit\n"
        "from network_escapes import send_telemetry\n"
        "from replaygate.examples.research_copilot import copilot\n"
        "atexit.register(send_telemetry)\n",
        encoding="utf-8",
    )
    store = tmp_path / "rc.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes())
    command = ["run", "--agent", "traced:copilot", "--fixtures", str(store), "What is RAG?"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}  # network_escapes
    done = forker.capture(command, cwd=tmp_path, env=env)  # `python -m replaygate`, forked
    said = done.stderr.decode()
    assert done.returncode == 0, done.stdout.decode() + said
    assert (
        "replaygate: lookup of '192.0.2.1' refused after the command (from network_escapes): "
        "replaygate keeps the network blocked until the process ends\n"
    ) in said


@pytest.mark.slow
def test_a_background_thread_finds_no_gap_between_the_session_and_the_exit(
    pytester: pytest.Pytester, pytest_forker: Forker
) -> None:
    # between the session's end (pytest_unconfigure closed its block) and the interpreter's
    # exit (where the exit's block began), a tracing exporter's thread looked names up and
    # connected unblocked. The thread is not a daemon, so the exit waits for it: it tries
    # on through the gap and the exit whatever the machine's speed (a daemon thread may not
    # run again before the process ends), until a lookup goes through or one made after
    # the main thread ended is refused (by the exit's block: the exit's hooks that begin
    # it run before the main thread is marked ended)
    pytester.makepyfile(
        test_gap="""
        import socket, sys, threading, time

        def probe(until):
            while time.monotonic() < until:
                exiting = not threading.main_thread().is_alive()
                try:
                    socket.getaddrinfo("192.0.2.1", 443)
                except OSError:
                    if exiting:
                        return
                else:
                    sys.stderr.write("LOOKED UP\\n")
                    return

        def test_replays(replaygate_store):
            threading.Thread(target=probe, args=(time.monotonic() + 30,)).start()
        """
    )
    done = forked_pytest(pytest_forker, pytester.path, {})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refused at interpreter exit" in done.stderr
    assert "LOOKED UP" not in done.stderr


@contextmanager
def listener(family: int, host: str, kind: int = socket.SOCK_STREAM) -> Iterator[int]:
    server = socket.socket(family, kind)
    server.bind((host, 0))
    if kind == socket.SOCK_STREAM:
        server.listen()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def ipv6() -> bool:
    try:
        with listener(socket.AF_INET6, "::1"):
            return True
    except OSError:
        return False


def test_loopback_still_works_inside_every_block() -> None:
    with block_network(), listener(socket.AF_INET, "127.0.0.1") as port:
        for host in ("127.0.0.1", "localhost"):
            socket.create_connection((host, port), timeout=1).close()
        assert socket.getaddrinfo("localhost", port)
        assert socket.gethostbyname("localhost").startswith("127.")
        udp = listener(socket.AF_INET, "127.0.0.1", socket.SOCK_DGRAM)
        with udp as udp_port, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"x", ("127.0.0.1", udp_port))
    if ipv6():
        with block_network(), listener(socket.AF_INET6, "::") as port:
            for host in ("::1", "::ffff:127.0.0.1"):
                with socket.socket(socket.AF_INET6) as sock:
                    sock.settimeout(1)
                    sock.connect((host, port))


def test_unix_sockets_stay_open_and_blocks_nest() -> None:
    with block_network(), tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "s.sock")
        with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as client:
            server.bind(path)
            server.listen()
            client.connect(path)
    outside = depth()
    with block_network():
        with block_network():
            assert depth() == outside + 2
        assert depth() == outside + 1 and network.network_blocked()
    assert depth() == outside
    if not outside:
        assert "connect" not in socket.socket.__dict__ and _socket.socket is RAW_SOCKET


def test_allow_lets_a_named_address_through() -> None:
    with block_network(), listener(socket.AF_INET, "127.0.0.1") as port:
        with block_network(allow=["0.0.0.0"]):
            socket.create_connection(("0.0.0.0", port), timeout=1).close()  # the local host
        with pytest.raises(NetworkBlockedError, match=r"0\.0\.0\.0"):
            socket.create_connection(("0.0.0.0", port), timeout=1)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.255.0.9", True),
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("localhost.", False),  # asked of DNS, not found in /etc/hosts
        ("LocalHost", False),
        ("localhost.localdomain", False),
        ("::ffff:8.8.8.8", False),
        ("0.0.0.0", False),
        ("::", False),
        ("localhost.example.com", False),
        ("127.0.0.1.example.com", False),
        ("foo.localhost", False),
        ("192.0.2.1", False),
    ],
)
def test_loopback_is_decided_by_the_address(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("name", ["localhost.", "LOCALHOST", "localhost.localdomain"])
def test_a_spelling_of_localhost_is_refused_before_the_resolver_sees_it(name: str) -> None:
    # glibc finds "localhost" in /etc/hosts but sends "localhost." to the name server
    with block_network():
        assert network.allowed((name, 80)) is False
        assert network.allowed(("localhost", 80)) is True


@given(st.ip_addresses(v=4))
def test_an_ipv4_address_is_loopback_exactly_in_127_8_however_written(
    ip: ipaddress.IPv4Address,
) -> None:
    inside = ip in LOOPBACK_V4
    assert is_loopback(str(ip)) is inside
    assert is_loopback(f"::ffff:{ip}") is inside
    assert is_loopback(f"[::ffff:{ip}]") is inside
    with block_network():
        assert network.allowed((str(ip), 443)) is inside
        assert network.allowed((f"::ffff:{ip}", 443, 0, 0), socket.AF_INET6) is inside


@given(st.ip_addresses(v=6))
def test_an_ipv6_address_is_loopback_only_as_1_or_mapped_loopback(
    ip: ipaddress.IPv6Address,
) -> None:
    mapped = ip.ipv4_mapped
    assert is_loopback(str(ip)) is (
        ip == LOOPBACK_V6 or (mapped is not None and mapped in LOOPBACK_V4)
    )


LABEL = st.from_regex(r"[a-z0-9][a-z0-9-]{0,10}", fullmatch=True, alphabet=UTF8_CHARACTERS)


@given(
    st.lists(st.sampled_from(["localhost", "127.0.0.1", "::1", "0", "lo"]) | LABEL, max_size=4),
    st.sampled_from(["invalid", "example.com", "localhost"]),
)
def test_a_name_that_looks_local_is_not_loopback_and_is_not_looked_up(
    labels: list[str], suffix: str
) -> None:
    name = ".".join([*labels, suffix]).replace("::1", "x")
    if name == "localhost":
        return
    assert not is_loopback(name)
    with block_network(), pytest.raises(NetworkBlockedError, match=re.escape(name)):
        socket.getaddrinfo(name, 80)


def _record(store: Path) -> None:
    with (
        Simulator(behavior="echo") as sim,
        anthropic.Anthropic(
            api_key="k",
            base_url=sim.url,
            http_client=httpx2_client(store, "record-missing", approve_live=True),
        ) as client,
    ):
        client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_bare_replay_object_opens_no_socket_and_patches_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    _record(store)
    outside = depth()
    with (
        socket_events() as seen,
        anthropic.Anthropic(api_key="k", http_client=httpx2_client(store)) as client,
    ):
        reply = client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )
        assert depth() == outside
    assert reply.content[0].text == "echo: hi"  # type: ignore[union-attr]
    assert seen == []
    replay = ReplayModel(tmp_path / "empty.jsonl", model="m", max_tokens=8)
    with socket_events() as seen, pytest.raises(FixtureMismatchError):
        replay.complete([Message(role="user", content="hi")], [])
    assert seen == [] and depth() == outside


@pytest.mark.parametrize(
    ("refused", "told"),
    [
        ("lookup of '169.254.169.254' (from botocore.awsrequest) during t.py::test_ask", True),
        ("connect metadata.google.internal:80 (from google.auth) during t.py::test_ask", True),
        ("connect 192.0.2.1:443 (from network_escapes) during t.py::test_ask", False),
    ],
)
def test_a_replay_s_refused_credential_lookup_says_to_give_the_client_credentials(
    refused: str, told: bool
) -> None:
    # anthropic.AnthropicBedrock given no keys: botocore looked on the metadata server, and
    # the list of refused attempts said only to wire the client or turn the sender off
    from types import SimpleNamespace

    from replaygate.pytest_plugin.offline import CREDENTIAL_LOOKUP, OfflineSession

    offline = OfflineSession()
    offline.from_workers, offline.users = [refused], {"t.py::test_ask": None}
    said: list[str] = []
    offline.pytest_terminal_summary(SimpleNamespace(section=said.append, line=said.append))  # type: ignore[arg-type]
    assert (said[-1] == CREDENTIAL_LOOKUP) is told and said[1] == refused
    # google-genai's Client(vertexai=True) looks there too, and was not named
    assert not told or 'credentials=google.oauth2.credentials.Credentials("test")' in said[-1]


AGENTS_TRACING_OFF = (
    "the OpenAI Agents SDK's tracing: set_tracing_disabled(True) or OPENAI_AGENTS_DISABLE_TRACING=1"
)
POSTHOG_TELEMETRY_OFF = (
    "PostHog analytics (Haystack's telemetry: HAYSTACK_TELEMETRY_ENABLED=False; DeepEval's: "
    "DEEPEVAL_TELEMETRY_OPT_OUT=1)"
)
RAGAS_TRACKING_OFF = "ragas's usage tracking: RAGAS_DO_NOT_TRACK=true"
OTEL_EXPORTER_OFF = (
    "an OpenTelemetry exporter (Semantic Kernel's spans, say): OTEL_SDK_DISABLED=true"
)
LANGFUSE_OFF = "Langfuse: LANGFUSE_TRACING_ENABLED=false"
LOGFIRE_OFF = (
    "Logfire: send_to_logfire=False in logfire.configure() (LOGFIRE_SEND_TO_LOGFIRE=false "
    "where it is not given one), and --no-logfire for its pytest plugin, on in CI when "
    "LOGFIRE_TOKEN is set"
)
CREWAI_TELEMETRY_OFF = (
    "CrewAI's telemetry: CREWAI_DISABLE_TELEMETRY=true (its traces to app.crewai.com: "
    "tracing=False on the Crew or Flow)"
)


@pytest.mark.parametrize(
    ("refused", "told"),
    [
        (
            "lookup of 'api.openai.com' (from agents.tracing.processors) during t.py::test_ask",
            f"Turn off in tests: {AGENTS_TRACING_OFF}.",
        ),
        (  # Haystack's telemetry, sent through PostHog's client
            "lookup of 'eu.i.posthog.com' (from posthog.request) during t.py::test_ask",
            f"Turn off in tests: {POSTHOG_TELEMETRY_OFF}.",
        ),
        (  # an OpenTelemetry exporter a test session set up, Semantic Kernel's spans in it
            "lookup of 'otlp.example.com' (from opentelemetry.exporter.http.transport."
            "_requests) during t.py::test_ask",
            f"Turn off in tests: {OTEL_EXPORTER_OFF}.",
        ),
        (  # Langfuse's spans, sent by an OpenTelemetry exporter: its switch, not OTEL's
            "lookup of 'cloud.langfuse.com' (from opentelemetry.exporter.http.transport."
            "_requests) during t.py::test_ask",
            f"Turn off in tests: {LANGFUSE_OFF}.",
        ),
        (  # W&B Weave's weave.init(), asking its server before it traces anything
            "lookup of 'trace.wandb.ai' (from weave.vendor.weave_server_sdk._base_client) "
            "during t.py::test_ask",
            "Turn off in tests: W&B Weave: WEAVE_DISABLED=true.",
        ),
        (  # CrewAI's install pixel, sent from a thread it starts as it is imported
            "lookup of 'api.scarf.sh' (from crewai) during t.py::test_ask",
            f"Turn off in tests: {CREWAI_TELEMETRY_OFF}.",
        ),
        (  # CrewAI's check of its latest release, as a verbose crew starts (crewai 1.15)
            "lookup of 'pypi.org' (from crewai_core.version) during t.py::test_ask",
            "Turn off in tests: CrewAI's version check (crewai_core.version, to pypi.org as a "
            "verbose crew starts): CREWAI_DISABLE_VERSION_CHECK=true.",
        ),
        ("lookup of 'pypi.org' (from pip_of_mine) during t.py::test_ask", None),
        ("connect 192.0.2.1:443 (from agents_of_mine) during t.py::test_ask", None),
        (  # a model call of LiteLLM's own client (a module-scoped fixture's): no price file
            "lookup of 'api.openai.com' (from litellm.llms.custom_httpx.aiohttp_transport) "
            "during t.py::test_ask",
            None,
        ),
    ],
)
def test_a_replay_s_refused_telemetry_names_the_switch_that_stops_it(
    refused: str, told: str | None
) -> None:
    # the Agents SDK's exporter, left on: the list named agents.tracing.processors and said
    # only to "turn the sender off in tests", not how
    from types import SimpleNamespace

    from replaygate.pytest_plugin.offline import OfflineSession

    offline = OfflineSession()
    offline.from_workers, offline.users = [refused, refused], {"t.py::test_ask": None}
    said: list[str] = []
    offline.pytest_terminal_summary(SimpleNamespace(section=said.append, line=said.append))  # type: ignore[arg-type]
    assert said[4:] == ([told] if told else [])


@pytest.mark.parametrize(
    ("host", "sender", "remedy"),
    [
        ("api.openai.com", "agents.tracing.processors", AGENTS_TRACING_OFF),
        # Haystack's telemetry, which PostHog's client flushes as the interpreter exits
        ("eu.i.posthog.com", "posthog.request", POSTHOG_TELEMETRY_OFF),
        # DeepEval's telemetry, through PostHog's client too: its switch, not Haystack's alone
        ("us.i.posthog.com", "posthog.request", POSTHOG_TELEMETRY_OFF),
        # ragas's usage tracking, flushed by its batcher as the interpreter exits
        ("t.explodinggradients.com", "ragas._analytics", RAGAS_TRACKING_OFF),
        # Agno's telemetry, flushed by its dispatcher's thread as the interpreter exits
        ("os-api.agno.com", "agno.api.api", "Agno's telemetry: AGNO_TELEMETRY=false"),
        # Langfuse's and Logfire's spans, flushed by their exporters as the interpreter exits
        ("cloud.langfuse.com", "opentelemetry.exporter.http.transport._requests", LANGFUSE_OFF),
        ("logfire-us.pydantic.dev", "logfire._internal.exporters.otlp", LOGFIRE_OFF),
        # CrewAI's telemetry, an OpenTelemetry exporter of its own: its switch, not OTEL's
        (
            "telemetry.crewai.com",
            "opentelemetry.exporter.http.transport._requests",
            CREWAI_TELEMETRY_OFF,
        ),
        # W&B Weave's error reports, which Sentry's client flushes as the interpreter exits
        (
            "o151352.ingest.us.sentry.io",
            "sentry_sdk.transport",
            "Sentry's error reports and traces (the application's: SENTRY_DSN unset or "
            'empty where sentry_sdk.init() is given no dsn, or dsn=""; W&B Weave\'s: '
            "WANDB_ERROR_REPORTING=false)",
        ),
    ],
)
def test_telemetry_refused_at_interpreter_exit_names_the_switch_that_stops_it(
    capsys: pytest.CaptureFixture[str], host: str, sender: str, remedy: str
) -> None:
    from replaygate.network import Refusal
    from replaygate.pytest_plugin.offline import _tell_at_exit

    _tell_at_exit(Refusal("lookup of", f"'{host}'", sender))
    assert capsys.readouterr().err == (
        f"replaygate: lookup of '{host}' refused at interpreter exit (from "
        f"{sender}): replaygate keeps the network blocked after the session; "
        f"turn it off in tests ({remedy})\n"
    )


def test_a_replay_s_refused_connection_says_how_to_let_a_service_of_its_own_through() -> None:
    # a Django project's database at CI's host "postgres": the list said only to wire the
    # client to replaygate or turn the sender off, neither of which a database can be
    from types import SimpleNamespace

    from replaygate.pytest_plugin.offline import OfflineSession

    offline = OfflineSession()
    offline.from_workers = ["lookup of 'postgres' (from asyncpg.connect_utils) during t.py::t"]
    offline.users = {"t.py::t": None}
    said: list[str] = []
    offline.pytest_terminal_summary(SimpleNamespace(section=said.append, line=said.append))  # type: ignore[arg-type]
    assert "block_network(allow=['HOST'])" in said[2]
