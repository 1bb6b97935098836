"""A live response its reader leaves open as a recording block ends.

An event stream read in part and left open (breaking out of a loop over it, as a
framework's "first words" helper does) was recorded only when the garbage collector
closed it: after the block, after the store was closed, or never (at interpreter exit,
where the late write also failed on the store's lock). The block's end now records it
``closed`` where its reader stopped; a plain body neither read nor closed is named in a
warning, as it cannot be recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest

import replaygate.http
import replaygate.http.exchange as exchange_module
from forked_cli import Forker
from loopback import ChunkedEvents, serving
from replaygate.errors import (
    ResponseLeftOpenWarning,
    SessionEndedError,
    StoreWriteError,
    WireFormatError,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, intercept
from replaygate.http.streams import TeeByteStream
from replaygate.sim import Simulator
from sdks import openai

ASKED = [{"role": "user", "content": "tell me about replay"}]


def first_words(
    client: openai.OpenAI, asked: list[dict[str, str]] = ASKED
) -> tuple[openai.Stream[object], str]:
    """The stream of an answer to ``asked``, left open after its first words, and those words."""
    stream = client.chat.completions.create(model="gpt-sim-1", messages=asked, stream=True)
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:  # type: ignore[attr-defined]
            return stream, chunk.choices[0].delta.content  # type: ignore[attr-defined]
    raise AssertionError("no words in the stream")


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_left_open_is_recorded_where_its_reader_stopped(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url)
        with intercept(store, "record-missing", approve_live=True, source="sim") as session:
            stream, live = first_words(client)
            client.chat.completions.create(model="gpt-sim-1", messages=[*ASKED, *ASKED])
        assert session.recorded == 2  # before the reader closes it
        stream.close()  # late: writes nothing more
    (fixture,) = [f for f in FixtureStore.open(store) if f.request["body"].get("stream")]
    assert fixture.responses[0]["stream_end"] == "closed"
    assert len(FixtureStore.open(store)) == 2
    with block_network(), intercept(store) as replaying:
        replayed, words = first_words(openai.OpenAI(api_key="k", base_url="http://sim.invalid/v1"))
        replayed.close()
    assert (words, replaying.replays) == (live, 1)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_read_on_after_its_session_ended_is_refused(tmp_path: Path) -> None:
    """A stream a pytest test left open, recorded as closed at the test's end, read on by
    the next test (a module-scoped event loop): the recording passed with what its replay
    ends before, and the replay asked to record anew what would be recorded the same."""
    store = tmp_path / "s.jsonl"

    def ended(request: str, done: str) -> SessionEndedError:
        return SessionEndedError(f"{request} was {done}")

    read_on = "POST /v1/chat/completions was read on"
    with Simulator(behavior="echo") as sim:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url)
        with intercept(store, "record-missing", approve_live=True, source="sim") as session:
            stream, _ = first_words(client)
        session.after_end = ended
        with pytest.raises(SessionEndedError, match=read_on):
            list(stream)
        stream.close()
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["stream_end"] == "closed"
    with intercept(store) as session:
        stream, _ = first_words(openai.OpenAI(api_key="k", base_url="http://sim.invalid/v1"))
    session.after_end = ended
    with pytest.raises(SessionEndedError, match=read_on):
        list(stream)


def test_a_plain_body_left_unread_is_named_and_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim, httpx2.Client(base_url=sim.url) as client:
        sent = client.build_request(
            "POST", "/v1/messages", json={"n": 1}, headers={"x-api-key": "k"}
        )
        with pytest.warns(ResponseLeftOpenWarning, match=r"POST /v1/messages was not read") as w:
            block = contextlib.ExitStack()  # shown where it entered the block, not contextlib
            block.enter_context(intercept(store, "record-missing", approve_live=True, source="sim"))
            with block:
                response = client.send(sent, stream=True)
        (warned,) = w
        lines = Path(__file__).read_text(encoding="utf-8").splitlines()
        assert warned.filename == __file__
        assert "block.enter_context(intercept(" in lines[warned.lineno - 1]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            response.read()  # read after the block: nothing is written then
            response.close()
    assert not store.exists() or len(FixtureStore.open(store)) == 0


LEFT_OPEN_IN_A_TEST = """
KEPT = []


def test_takes_the_first_words(openai_client):
    stream = openai_client().chat.completions.create(
        model="g", stream=True, messages=[{"role": "user", "content": "b"}]
    )
    KEPT.append(stream)  # alive past the test: only the test's end can record it
    assert next(iter(stream)).choices
"""


@pytest.mark.slow  # a pytest session of its own
def test_a_stream_a_test_leaves_open_is_recorded_by_the_test_s_end(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_left=LEFT_OPEN_IN_A_TEST)
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest(*record, "--replaygate-simulator=echo").assert_outcomes(passed=1)
    store = pytester.path / "tests/fixtures/test_left/test_takes_the_first_words.jsonl"
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["stream_end"] == "closed"
    pytester.runpytest().assert_outcomes(passed=1)  # replayed offline


class _NotText(ChunkedEvents):
    CHUNKS: ClassVar[dict[str, list[bytes]]] = {"/v1/messages": [b"data: \xff\n\n"]}


def test_a_stream_refused_as_it_is_read_is_over_and_not_held(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with (
        serving(_NotText) as base,
        httpx2.Client(base_url=base) as client,
        intercept(store, "record-missing", approve_live=True) as session,
    ):
        sent = client.build_request("POST", "/v1/messages", json={}, headers={"x-api-key": "k"})
        response = client.send(sent, stream=True)
        with pytest.raises(WireFormatError, match="the live answer to POST /v1/messages was not"):
            response.read()
        response.close()
        held = set(session.unfinished)
    assert held == set()  # refused: nothing left for the block's end to finish
    assert not store.exists() or len(FixtureStore.open(store)) == 0


@pytest.fixture(scope="module")
def echo_sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo") as sim:
        yield sim


async def first_words_async(
    client: openai.AsyncOpenAI,
) -> tuple[openai.AsyncStream[object], str]:
    """:func:`first_words` through the async client."""
    stream = await client.chat.completions.create(model="gpt-sim-1", messages=ASKED, stream=True)
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:  # type: ignore[attr-defined]
            return stream, chunk.choices[0].delta.content  # type: ignore[attr-defined]
    raise AssertionError("no words in the stream")


def recording_session(store: Path, sim: Simulator) -> tuple[Exchange, openai.OpenAI]:
    """A session recording ``sim``'s answers into ``store``, and an OpenAI client of it."""
    session = Exchange(store, mode="record-missing", approve_live=True, source="sim")
    http = replaygate.http.httpx2_client(session)
    return session, openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http)


def closed_where_read(store: Path) -> None:
    """Assert ``store`` holds one fixture: a stream recorded ``closed``."""
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["stream_end"] == "closed"


@pytest.mark.parametrize("library", ["httpx2", "httpx"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_broken_off_is_recorded_as_the_factory_s_client_closes(
    tmp_path: Path, echo_sim: Simulator, library: str
) -> None:
    store = tmp_path / "s.jsonl"
    factory = getattr(replaygate.http, f"{library}_client")
    recording = factory(store, "record-missing", approve_live=True, source="sim")
    url = echo_sim.openai_base_url
    with openai.OpenAI(api_key="k", base_url=url, max_retries=0, http_client=recording) as client:
        stream, live = first_words(client)  # kept alive: only closing the client ends it
    closed_where_read(store)
    stream.close()  # late: writes nothing more
    closed_where_read(store)
    with block_network():
        replaying = openai.OpenAI(api_key="k", max_retries=0, http_client=factory(store))
        assert first_words(replaying)[1] == live


@pytest.mark.parametrize("library", ["httpx2", "httpx"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_async_stream_broken_off_is_recorded_as_the_factory_s_client_closes(
    tmp_path: Path, echo_sim: Simulator, library: str
) -> None:
    store = tmp_path / "s.jsonl"
    factory = getattr(replaygate.http, f"{library}_async_client")

    async def record() -> None:
        recording = factory(store, "record-missing", approve_live=True, source="sim")
        url = echo_sim.openai_base_url
        client = openai.AsyncOpenAI(api_key="k", base_url=url, max_retries=0, http_client=recording)
        async with client:
            stream, _ = await first_words_async(client)
        closed_where_read(store)  # while the loop still runs, the stream not closed
        await stream.close()

    asyncio.run(record())
    closed_where_read(store)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_closing_one_client_of_a_shared_session_leaves_the_other_s_stream(
    tmp_path: Path, echo_sim: Simulator
) -> None:
    store = tmp_path / "s.jsonl"
    session = Exchange(store, mode="record-missing", approve_live=True, source="sim")
    url = echo_sim.openai_base_url
    reading = openai.OpenAI(
        api_key="k", base_url=url, max_retries=0, http_client=replaygate.http.httpx2_client(session)
    )
    stream, _ = first_words(reading)
    replaygate.http.httpx2_client(session).close()  # another client of the session
    assert not store.exists() or len(FixtureStore.open(store)) == 0
    assert len(list(stream)) > 1  # read on to its end
    reading.close()
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["stream_end"] == "complete"


class _ClosingOnAdd(set[Any]):
    """The session's set of held sends, whose next ``add`` (made under the session's own
    lock) first closes ``stream``: where the collector may close a dropped stream."""

    def __init__(self, held: set[Any], stream: Any) -> None:
        super().__init__(held)
        self.stream = stream

    def add(self, item: Any) -> None:
        if not self.stream.response.is_closed:
            self.stream.response.close()
        super().add(item)


@pytest.mark.parametrize("where", ["a write", "the session's count of its sends"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_closed_in_the_middle_of_the_session_s_work_is_stored_after_it(
    tmp_path: Path, echo_sim: Simulator, where: str
) -> None:
    # the garbage collector closes a dropped stream whenever it runs: in the middle of the
    # write of another answer of the same session too, or as the session counts a send
    # under its lock, in the same thread
    store = tmp_path / "s.jsonl"
    session, client = recording_session(store, echo_sim)
    stream, _ = first_words(client)
    if where == "a write":
        store_prepared = session.session.store_prepared

        def collected_while_writing(*args: Any, **kwargs: Any) -> None:
            stream.response.close()  # as the collector would
            store_prepared(*args, **kwargs)

        session.session.store_prepared = collected_while_writing  # type: ignore[method-assign]
    else:
        session._held = _ClosingOnAdd(session._held, stream)
    done = threading.Event()

    def send() -> None:
        client.chat.completions.create(model="gpt-sim-1", messages=[*ASKED, *ASKED])
        done.set()

    threading.Thread(target=send, daemon=True).start()
    assert done.wait(10), "the session waited for itself"
    ends = sorted(f.responses[0].get("stream_end", "-") for f in FixtureStore.open(store))
    assert ends == ["-", "closed"]


NEVER_CLOSED = """
import openai, replaygate.http
from replaygate.sim import Simulator

with Simulator(behavior="echo", chunk_size=3) as sim:
    http = replaygate.http.httpx2_client("s.jsonl", "record-missing", approve_live=True)
    client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http)
    with client.responses.stream(model="gpt-sim-1", input="first") as events:
        for event in events:
            pass
    asked = [{"role": "user", "content": "stop me after the first words"}]
    stream = client.chat.completions.create(model="gpt-sim-1", messages=asked, stream=True)
    for i, chunk in enumerate(stream):
        if i == 1:
            break  # the stream left open till the interpreter exits, the client never closed
"""


@pytest.fixture(scope="module")
def forker() -> Iterator[Forker]:
    """The interpreter the scripts' processes are forked from, openai (and its chat
    completions, which every script streams), replaygate's recording and the simulator's
    server imported once and frozen out of the collector's reach: what the tests look at
    is how such a process ends (tests/forked_cli.py), with what it made after the fork,
    not how its interpreter starts."""
    preload = [
        "openai",
        "openai.resources.chat.completions",
        "replaygate.http",
        "replaygate.sim.server",
    ]
    forker = Forker(preload, freeze=True)
    yield forker
    forker.close()


def run_script(forker: Forker, code: str, args: list[str], cwd: Path) -> tuple[int, str]:
    """The exit status and stderr of ``python -c CODE ARGS`` run in ``cwd``, its process
    forked from ``forker``: it ends as that interpreter would, its exit handlers run."""
    with open(os.devnull, "wb") as out, tempfile.TemporaryFile() as err:
        started = forker.start(args, stdout=out.fileno(), stderr=err.fileno(), cwd=cwd, code=code)
        status = started.wait(60)
        err.seek(0)
        return status, err.read().decode()


@pytest.mark.slow  # a process of its own, ending as its interpreter exits
def test_a_stream_of_a_client_never_closed_is_recorded_as_the_interpreter_exits(
    forker: Forker, tmp_path: Path
) -> None:
    assert run_script(forker, NEVER_CLOSED, [], tmp_path) == (0, "")
    ends = [f.responses[0]["stream_end"] for f in FixtureStore.open(tmp_path / "s.jsonl")]
    assert sorted(ends) == ["closed", "complete"]


IN_A_WORKER = """
import multiprocessing, sys
import openai, replaygate.http

def stop_early(url):
    http = replaygate.http.httpx2_client("s.jsonl", "record-missing", approve_live=True)
    client = openai.OpenAI(api_key="k", base_url=url, http_client=http)
    asked = [{"role": "user", "content": "stop me after the first words"}]
    stream = client.chat.completions.create(model="gpt-sim-1", messages=asked, stream=True)
    for i, chunk in enumerate(stream):
        if i == 1:
            break  # left open as the worker ends, its client never closed

if __name__ == "__main__":
    from replaygate.sim import Simulator  # not imported again by forkserver's server

    with Simulator(behavior="echo", chunk_size=3) as sim:
        worker = multiprocessing.get_context(sys.argv[1]).Process(
            target=stop_early, args=(sim.openai_base_url,)
        )
        worker.start()
        worker.join()
        sys.exit(worker.exitcode)
"""


@pytest.mark.slow  # processes of their own; forkserver's server is a fresh interpreter
@pytest.mark.parametrize("start", ["fork", "forkserver"])
def test_a_stream_a_multiprocessing_worker_leaves_open_is_recorded_as_it_ends(
    forker: Forker, tmp_path: Path, start: str
) -> None:
    # Such a worker ends with os._exit: the interpreter's exit handlers never run in it.
    # The script runs as `python worker.py START` runs it (its __main__ a file, which the
    # forkserver's fresh interpreter imports to find the worker's target).
    script = tmp_path / "worker.py"
    script.write_text(IN_A_WORKER)
    as_a_file = f"import runpy\nrunpy.run_path({str(script)!r}, run_name='__main__')"
    assert run_script(forker, as_a_file, [start], tmp_path) == (0, "")
    [fixture] = FixtureStore.open(tmp_path / "s.jsonl")
    assert fixture.responses[0]["stream_end"] == "closed"


@pytest.mark.slow  # forks a process
def test_a_forked_child_leaves_the_streams_its_parent_left_open_to_the_parent(
    tmp_path: Path, echo_sim: Simulator
) -> None:
    store = tmp_path / "s.jsonl"
    http = replaygate.http.httpx2_client(store, "record-missing", approve_live=True)
    client = openai.OpenAI(api_key="k", base_url=echo_sim.openai_base_url, http_client=http)
    stream, _ = first_words(client)
    with warnings.catch_warnings():  # forking with the simulator's threads running
        warnings.simplefilter("ignore", DeprecationWarning)
        child = os.fork()
    if child == 0:  # the child ends as a script does, its exit handlers run
        os._exit(_exit_handlers_status())
    assert os.waitpid(child, 0)[1] == 0
    assert not store.exists() or not FixtureStore.open(store)  # not written by the child
    exchange_module._finish_at_exit()  # as the parent's interpreter exits
    [fixture] = FixtureStore.open(store)
    assert fixture.responses[0]["stream_end"] == "closed"
    stream.close()


def _exit_handlers_status() -> int:
    """In a forked child: 0 when finishing what sessions left open (as the interpreter's
    exit does) finds nothing of its parent's to finish, else 1."""
    try:
        exchange_module._finish_at_exit()
        return 0 if not list(exchange_module._LEFT_OPEN) else 1
    except BaseException:
        return 1


def test_a_stream_that_cannot_be_written_at_exit_is_told_in_one_line(
    tmp_path: Path, echo_sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    http = replaygate.http.httpx2_client(folder / "s.jsonl", "record-missing", approve_live=True)
    client = openai.OpenAI(api_key="k", base_url=echo_sim.openai_base_url, http_client=http)
    stream, _ = first_words(client)  # the client never closed
    folder.rmdir()
    folder.write_text("")  # the store's folder gone: a file in its place
    exchange_module._finish_at_exit()  # as the interpreter exits: no traceback
    told = capsys.readouterr().err
    assert told.startswith("replaygate: a stream left open was not recorded at interpreter exit: ")
    assert "cannot write a fixture" in told and told.count("\n") == 1
    stream.close()  # late: writes nothing, raises nothing


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_whose_store_folder_was_removed_is_stored_at_exit_in_it_made_again(
    tmp_path: Path, echo_sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    http = replaygate.http.httpx2_client(folder / "s.jsonl", "record-missing", approve_live=True)
    client = openai.OpenAI(api_key="k", base_url=echo_sim.openai_base_url, http_client=http)
    stream, _ = first_words(client)  # the client never closed
    folder.rmdir()  # the store's folder gone, nothing in its place
    exchange_module._finish_at_exit()  # as the interpreter exits
    assert capsys.readouterr().err == ""
    [fixture] = FixtureStore.open(folder / "s.jsonl")
    assert fixture.responses[0]["stream_end"] == "closed"
    stream.close()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_closed_in_a_lookup_while_another_thread_writes_is_stored_after_it(
    tmp_path: Path, echo_sim: Simulator
) -> None:
    # thread A writes an answer and waits for the store, which thread B holds as it looks
    # up a request; the collector closes a dropped stream in B's lookup: B must not wait
    # for A's write, which waits for B
    store = tmp_path / "s.jsonl"
    session, client = recording_session(store, echo_sim)
    stream, _ = first_words(client)
    writing, looking = threading.Event(), threading.Event()
    store_prepared, lookup = session.session.store_prepared, session.session.lookup

    def write_once_b_looks(*args: Any, **kwargs: Any) -> Any:
        writing.set()
        looking.wait(5)
        return store_prepared(*args, **kwargs)

    def look_while_a_writes(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name != "B":
            return lookup(*args, **kwargs)
        with session.store._mutex:  # as the store holds it while it finds a request
            looking.set()
            writing.wait(5)  # A holds the session's write and goes for the store's lock
            stream.response.close()  # the collector closes the dropped stream here
            return lookup(*args, **kwargs)

    session.session.store_prepared = write_once_b_looks  # type: ignore[method-assign]
    session.session.lookup = look_while_a_writes  # type: ignore[method-assign]
    done: list[str] = []

    def send(name: str, asked: list[dict[str, str]]) -> None:
        client.chat.completions.create(model="gpt-sim-1", messages=asked)
        done.append(name)

    a = threading.Thread(target=send, args=("A", [*ASKED, *ASKED]), daemon=True)
    b = threading.Thread(target=send, args=("B", ASKED * 3), name="B", daemon=True)
    a.start()
    writing.wait(5)
    b.start()
    a.join(10)
    b.join(10)
    assert sorted(done) == ["A", "B"], "the threads waited for each other"
    ends = sorted(f.responses[0].get("stream_end", "-") for f in FixtureStore.open(store))
    assert ends == ["-", "-", "closed"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_every_stream_left_open_is_recorded_when_one_of_them_cannot_be(
    tmp_path: Path, echo_sim: Simulator
) -> None:
    store = tmp_path / "s.jsonl"
    session, client = recording_session(store, echo_sim)
    kept = [first_words(client, [{"role": "user", "content": f"ask {n}"}])[0] for n in (1, 2)]
    store_prepared = session.session.store_prepared
    failed: list[object] = []

    def fails_once(*args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(args)
            raise StoreWriteError(str(store), 0, "cannot write a fixture: disk full")
        return store_prepared(*args, **kwargs)

    session.session.store_prepared = fails_once  # type: ignore[method-assign]
    with pytest.raises(StoreWriteError, match="disk full"):
        client.close()  # the first refused: the other one is recorded all the same
    assert session.unfinished == set()
    closed_where_read(store)
    assert len(kept) == 2


def test_a_recorded_stream_closed_after_its_library_s_module_was_emptied_ends_quietly() -> None:
    """A stream a test module's global held was closed as the interpreter exited, after it
    emptied httpx2's module: 'Exception ignored in: <generator object
    BoundSyncStream.__iter__>' and a TypeError (catching classes that do not inherit from
    BaseException), as the errors that end a body were read from the module then."""
    library = types.SimpleNamespace(
        TransportError=httpx2.TransportError, DecodingError=httpx2.DecodingError
    )

    class Tee(TeeByteStream):
        pass

    Tee.library = library
    recording = types.SimpleNamespace(stream=False)
    stream = Tee(types.SimpleNamespace(), recording)  # type: ignore[arg-type]
    library.TransportError = library.DecodingError = None  # as the interpreter empties it
    with pytest.raises(GeneratorExit), stream._recorded():
        raise GeneratorExit
