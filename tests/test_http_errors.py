"""Errors, retries, cut streams and misses, through the official SDKs over loopback HTTP."""

from __future__ import annotations

import asyncio
import bdb
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest

from loopback import ChunkedEvents, serving
from replaygate.errors import FixtureFormatError, FixtureMismatchError, ReplayErrorCaughtWarning
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.http import (
    Httpx2Transport,
    block_network,
    httpx2_async_client,
    httpx2_client,
    intercept,
)
from replaygate.sim import FaultPlan, Simulator
from sdks import anthropic, openai

CLAUDE = "claude-sim-1"
GPT = "gpt-sim-1"
HI = [{"role": "user", "content": "hi"}]


def claude(store: Path | FixtureStore, mode: str, base_url: str | None = None, **kw: Any) -> Any:
    http = httpx2_client(store, mode, approve_live=mode != "replay")
    return anthropic.Anthropic(api_key="test", base_url=base_url, http_client=http, **kw)


def gpt(store: Path | FixtureStore, mode: str, base_url: str | None = None, **kw: Any) -> Any:
    http = httpx2_client(store, mode, approve_live=mode != "replay")
    return openai.OpenAI(api_key="test", base_url=base_url, http_client=http, **kw)


def outcome(call: Any) -> tuple[str, Any]:
    """The exception class and message of a call, or its result."""
    try:
        return "ok", call()
    except Exception as err:
        return type(err).__name__, str(err)


def anthropic_call(client: Any, stream: bool = False, **overrides: Any) -> Any:
    args: dict[str, Any] = {"model": CLAUDE, "max_tokens": 64, "messages": HI, **overrides}
    if stream:
        return [e.model_dump(mode="json") for e in client.messages.create(stream=True, **args)]
    return client.messages.create(**args).model_dump(mode="json")


def openai_call(client: Any, stream: bool = False, **overrides: Any) -> Any:
    args: dict[str, Any] = {"model": GPT, "messages": HI, **overrides}
    if stream:
        return [
            c.model_dump(mode="json") for c in client.chat.completions.create(stream=True, **args)
        ]
    return client.chat.completions.create(**args).model_dump(mode="json")


@pytest.mark.parametrize(
    ("sdk", "fault", "stream", "expected"),
    [
        ("anthropic", "429", False, "RateLimitError"),
        ("anthropic", "529", False, "OverloadedError"),
        ("anthropic", "500", False, "InternalServerError"),
        ("anthropic", "sse-error", True, "APIStatusError"),
        ("anthropic", "429", True, "RateLimitError"),
        ("openai", "429", False, "RateLimitError"),
        ("openai", "529", False, "InternalServerError"),
        ("openai", "500", True, "InternalServerError"),
    ],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_error_replays_as_the_same_exception(
    tmp_path: Path, sdk: str, fault: str, stream: bool, expected: str
) -> None:
    store = tmp_path / "errors.jsonl"
    make, call = (claude, anthropic_call) if sdk == "anthropic" else (gpt, openai_call)
    faults = FaultPlan.sequence([fault], retry_after=0.01)
    with Simulator(behavior="echo", faults=faults) as sim:
        url = sim.url if sdk == "anthropic" else sim.openai_base_url
        with make(store, "record-missing", url, max_retries=0) as client:
            live = outcome(lambda: call(client, stream))
    assert live[0] == expected
    with block_network(), make(store, "replay", max_retries=0) as client:
        replayed = outcome(lambda: call(client, stream))
    assert replayed == live


def no_auth_anthropic() -> dict[str, Any]:
    """Headers leaving out the Anthropic SDK's key (anthropic.Omit())."""
    return {"Authorization": anthropic.Omit(), "X-Api-Key": anthropic.Omit()}


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_bad_request_errors_replay_and_auth_errors_are_not_recorded(
    tmp_path: Path, sdk: str
) -> None:
    store = tmp_path / "errors.jsonl"
    bogus = [{"role": "bogus", "content": "x"}]

    def calls(client: Any) -> list[tuple[str, Any]]:
        if sdk == "anthropic":
            return [
                outcome(lambda: anthropic_call(client, messages=bogus)),
                outcome(lambda: anthropic_call(client, extra_headers=no_auth_anthropic())),
            ]
        no_auth = client.with_options(default_headers={"Authorization": ""})
        return [
            outcome(lambda: openai_call(client, messages=bogus)),
            outcome(lambda: openai_call(no_auth)),
        ]

    make = claude if sdk == "anthropic" else gpt
    with Simulator(behavior="echo") as sim:
        url = sim.url if sdk == "anthropic" else sim.openai_base_url
        with make(store, "record-missing", url, max_retries=0) as client:
            live = calls(client)
    assert [name for name, _ in live] == ["BadRequestError", "CredentialsRefusedError"]
    with block_network(), make(store, "replay", max_retries=0) as client:
        replayed = calls(client)
    assert replayed[0] == live[0]
    assert replayed[1][0] == "FixtureMismatchError"  # the refusal was not kept


class SleepsRecorded:
    """The ``time`` module as an SDK sees it, with ``sleep`` recorded instead of slept."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_retries_replay_in_order_without_sleeping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "retries.jsonl"
    faults = FaultPlan.sequence(["429", "529"], retry_after=0.25)
    backoff = SleepsRecorded()
    with Simulator(behavior="echo", faults=faults) as sim, monkeypatch.context() as patch:
        patch.setattr("anthropic._base_client.time", backoff)  # recording: the waits, not slept
        with claude(store, "record-missing", sim.url) as client:
            live = anthropic_call(client)
        assert len(sim.requests) == 3
    assert backoff.slept == [0.25, 0.25]  # live, the SDK waits as long as each answer asks
    (fixture,) = FixtureStore.open(store)
    assert [r["status"] for r in fixture.responses] == [429, 529, 200]
    assert fixture.responses[0]["headers"]["retry-after-ms"] == "250"
    with block_network(), claude(store, "replay") as client:
        started = time.perf_counter()
        replayed = anthropic_call(client)
        seconds = time.perf_counter() - started
    assert replayed == live
    assert seconds < 0.2


@pytest.fixture(scope="module")
def repeats(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, Any]]]:
    """A store where one request was sent twice: a 500, then an answer."""
    store = tmp_path_factory.mktemp("repeats") / "repeats.jsonl"
    faults = FaultPlan.sequence(["500"], retry_after=0.01)
    with (
        Simulator(behavior="echo", faults=faults) as sim,
        claude(store, "record-missing", sim.url, max_retries=0) as client,
    ):
        sent = [outcome(lambda: anthropic_call(client)) for _ in range(2)]
    assert [name for name, _ in sent] == ["InternalServerError", "ok"]
    return store, sent


def test_one_send_more_than_recorded_is_a_loud_miss(
    repeats: tuple[Path, list[tuple[str, Any]]],
) -> None:
    store, sent = repeats
    with claude(store, "replay", max_retries=0) as client, block_network():
        assert [outcome(lambda: anthropic_call(client)) for _ in range(2)] == sent
        with pytest.raises(FixtureMismatchError) as info:
            anthropic_call(client)
    (fixture,) = FixtureStore.open(store)
    err = info.value
    assert err.key == fixture.key and err.store == str(store)
    message = str(err)
    assert "recorded 2 times and sent 3 times in this session" in message
    assert f"key {fixture.key} in {store} (1 fixture)" in message
    assert "repeat_last=True" in message
    assert "or more senders at once (the parallel branches of a graph, a batch)" in message
    assert 'Re-record it (`mode="rerecord", approve_live=True` on the client factory' in message


def test_an_sdk_retry_past_the_recording_reaches_the_test_once(
    repeats: tuple[Path, list[tuple[str, Any]]],
) -> None:
    store = repeats[0]
    http = httpx2_client(store)
    with (
        anthropic.Anthropic(api_key="t", http_client=http, max_retries=3) as client,
        block_network(),
    ):
        assert anthropic_call(client) == repeats[1][1][1]  # the 500, retried: the answer
        with pytest.raises(FixtureMismatchError, match="sent 3 times"):
            anthropic_call(client)  # not retried by the SDK
    exchange = http._transport.exchange  # type: ignore[attr-defined]
    assert exchange.replays == 2 and sum(exchange._sent.values()) == 3


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_retry_past_a_recorded_overload_says_the_client_retries_more(
    tmp_path: Path, repeats: tuple[Path, list[tuple[str, Any]]]
) -> None:
    # recorded with max_retries=0, the 529 ended the call; replayed with retries, the miss
    # said only "a retry or a loop", not that the client now retries the overload
    store = tmp_path / "overloaded.jsonl"
    with (
        Simulator(behavior="echo", faults=FaultPlan.sequence(["529"])) as sim,
        claude(store, "record-missing", sim.url, max_retries=0) as live,
        pytest.raises(anthropic.InternalServerError),
    ):
        anthropic_call(live)
    missed = pytest.raises(FixtureMismatchError, match="sent 2 times")
    with claude(store, "replay", max_retries=1) as client, block_network(), missed as info:
        anthropic_call(client)
    assert info.value.__notes__ == [
        "replaygate: the last answer recorded for it is a 529, which the SDKs retry: the "
        "client retried it more often now than when it was recorded (its max_retries raised "
        "since, or the recording made with fewer retries ended on that error). Give the "
        "client the max_retries it was recorded with, or record it again."
    ]
    with claude(repeats[0], "replay", max_retries=0) as ended, block_network():
        assert [outcome(lambda: anthropic_call(ended)) for _ in range(2)] == repeats[1]
        with pytest.raises(FixtureMismatchError) as plain:  # past the 200 it ended on
            anthropic_call(ended)
    assert not getattr(plain.value, "__notes__", None)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_repeat_last_is_an_explicit_opt_in(repeats: tuple[Path, list[tuple[str, Any]]]) -> None:
    store, sent = repeats
    http = httpx2_client(store, repeat_last=True)
    with (
        anthropic.Anthropic(api_key="t", http_client=http, max_retries=0) as client,
        block_network(),
    ):
        assert [outcome(lambda: anthropic_call(client)) for _ in range(4)] == [*sent, *sent[1:] * 2]
    openai_store = store.with_name("openai-repeats.jsonl")
    with (
        Simulator(behavior="echo") as sim,
        gpt(openai_store, "record-missing", sim.openai_base_url) as live,
    ):
        recorded = openai_call(live)
    with gpt(openai_store, "replay") as once, block_network():
        assert openai_call(once) == recorded
        with pytest.raises(FixtureMismatchError, match="recorded 1 time and sent 2 times"):
            openai_call(once)
        http = httpx2_client(openai_store, repeat_last=True)
        with openai.OpenAI(api_key="t", http_client=http) as repeated:
            assert [openai_call(repeated) for _ in range(3)] == [recorded] * 3


def test_repeat_last_given_as_text_is_refused(
    repeats: tuple[Path, list[tuple[str, Any]]],
) -> None:
    # "false" from a config or an environment variable, truthy: it turned repeats on, and a
    # send past the recording got the last answer again instead of a miss
    with pytest.raises(TypeError, match="repeat_last must be True or False, got 'false'"):
        httpx2_client(repeats[0], repeat_last="false")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "named"),
    [
        ({"interface": []}, "interface must be a string, got list"),
        ({"note": 5}, "note must be a string, got int"),
    ],
)
def test_a_session_setting_of_the_wrong_type_is_refused_naming_it(
    repeats: tuple[Path, list[tuple[str, Any]]], option: dict[str, Any], named: str
) -> None:
    with pytest.raises(TypeError, match=named):
        httpx2_client(repeats[0], **option)


def test_record_missing_records_a_send_past_the_recorded_ones(
    repeats: tuple[Path, list[tuple[str, Any]]], tmp_path: Path
) -> None:
    store = tmp_path / "more.jsonl"
    store.write_bytes(repeats[0].read_bytes())
    with Simulator(behavior="echo") as sim:
        with claude(store, "record-missing", sim.url, max_retries=0) as client:
            sent = [outcome(lambda: anthropic_call(client))[0] for _ in range(3)]
        assert len(sim.requests) == 1  # only the third send went live
    assert sent == ["InternalServerError", "ok", "ok"]
    (fixture,) = FixtureStore.open(store)
    assert [r["status"] for r in fixture.responses] == [500, 200, 200]


@pytest.mark.parametrize(
    ("sdk", "is_async"), [("anthropic", False), ("anthropic", True), ("openai", False)]
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_cut_stream_replays_as_cut(tmp_path: Path, sdk: str, is_async: bool) -> None:
    store = tmp_path / "cut.jsonl"
    long_question = [{"role": "user", "content": "a " * 40}]
    seen: list[Any] = []

    async def consume_async(client: Any) -> None:
        async with client:
            raw = await client.messages.create(
                model=CLAUDE, max_tokens=64, messages=long_question, stream=True
            )
            async for event in raw:
                seen.append(event.model_dump(mode="json"))

    def consume(mode: str, url: str | None) -> tuple[str, bool]:
        seen.clear()
        approve = mode != "replay"
        try:
            if sdk == "openai":
                with gpt(store, mode, url and url + "/v1", max_retries=0) as client:
                    stream = client.chat.completions.create(
                        model=GPT, messages=long_question, stream=True
                    )
                    seen.extend(chunk.model_dump(mode="json") for chunk in stream)
            elif is_async:
                http = httpx2_async_client(store, mode, approve_live=approve)
                aclient = anthropic.AsyncAnthropic(
                    api_key="t", base_url=url, http_client=http, max_retries=0
                )
                asyncio.run(consume_async(aclient))
            else:
                with claude(store, mode, url, max_retries=0) as client:
                    for event in client.messages.create(
                        model=CLAUDE, max_tokens=64, messages=long_question, stream=True
                    ):
                        seen.append(event.model_dump(mode="json"))
        except Exception as err:
            cut = err if isinstance(err, httpx2.RemoteProtocolError) else err.__cause__
            return type(err).__name__, isinstance(cut, httpx2.RemoteProtocolError)
        return "ok", False

    with Simulator(behavior="echo", faults=FaultPlan.sequence(["cut-stream"])) as sim:
        live = consume("record-missing", sim.url), list(seen)
    # anthropic before 2.17 lets the transport's error through; later ones and openai wrap it
    wrapped = {"APIConnectionError"} | ({"RemoteProtocolError"} if sdk == "anthropic" else set())
    assert live[0][0] in wrapped and live[0][1], live[0]
    assert live[1]
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "cut"
    assert fixture.response["stream_error"]["type"] == "RemoteProtocolError"
    with block_network():
        replayed = consume("replay", None), list(seen)
    assert replayed == live


class CutEvents(ChunkedEvents):
    """An Anthropic stream that breaks off after its first event (its content-length
    promises more)."""

    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        "/v1/messages": [
            b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
            b'"type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,'
            b'"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n'
        ]
    }

    def end_headers(self) -> None:
        self._headers_buffer = [h for h in self._headers_buffer if b"content-length" not in h]
        self.send_header("content-length", "4096")
        self.close_connection = True
        super().end_headers()


def test_a_replayed_cut_says_it_was_recorded_so_and_keeps_its_type(tmp_path: Path) -> None:
    """Replayed offline, the cut read as a network failure of this run."""
    store = tmp_path / "cut.jsonl"

    def read(mode: str, base: str | None) -> BaseException:
        with claude(store, mode, base, max_retries=0) as client, pytest.raises(Exception) as err:
            list(client.messages.create(model=CLAUDE, max_tokens=8, messages=HI, stream=True))
        cut = err.value if isinstance(err.value, httpx2.RemoteProtocolError) else None
        return cut or err.value.__cause__ or err.value  # anthropic from 2.17 wraps it

    with serving(CutEvents) as base:
        live = read("record-missing", base)
    (fixture,) = FixtureStore.open(store)
    with block_network():
        again = read("replay", None)
    assert type(again) is type(live) is httpx2.RemoteProtocolError
    assert str(again) == (
        f"{live}: this replays a cut recorded in fixture {fixture.key} of {store} (the stream "
        "broke off after 1 event(s) while it was recorded), not a network failure now. "
        'Re-record it (`mode="rerecord", approve_live=True` on the client factory or '
        "intercept(); under pytest, `mode=replaygate_mode, approve_live=True` there, set by "
        "pytest `--replaygate-record-mode=rerecord --replaygate-approve-live`) to record it "
        "whole."
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_stream_closed_early_replays_up_to_where_the_client_stopped(tmp_path: Path) -> None:
    store = tmp_path / "closed.jsonl"
    body = {"model": "m", "max_tokens": 8, "stream": True, "messages": HI}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}

    def first_line(client: httpx2.Client) -> str:
        with client, client.stream("POST", "/v1/messages", json=body, headers=headers) as response:
            return next(response.iter_lines())

    with Simulator(behavior="echo") as sim:
        url = sim.url
        live = first_line(httpx2_client(store, "record-missing", approve_live=True, base_url=url))
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "closed"
    with block_network():
        assert first_line(httpx2_client(store, base_url=url)) == live
        with (
            httpx2_client(store, base_url=url) as client,
            pytest.raises(FixtureMismatchError, match="closed this stream") as caught,
        ):
            client.post("/v1/messages", json=body, headers=headers)
    # named with its store, as a cut is: one store of many under the pytest plugin
    assert str(caught.value).startswith(f"fixture {fixture.key} of {store}: the client closed")
    # the way to record it anew through a client factory, not the CLI's flags
    assert 'Re-record it (`mode="rerecord", approve_live=True` on the client' in str(caught.value)
    # the simulator answered it (sent to as the base URL): the way to record from it again
    assert "to record from the simulator again" in str(caught.value)
    # the run's list of misses advised record-missing, which replays it from the store again
    assert (caught.value.kind, caught.value.record_mode) == ("other", "rerecord")


PYTEST_TIMEOUT: dict[str, Any] = {"__name__": "pytest_timeout", "pytest": pytest}
exec(
    "def handler(signum, frame):\n    pytest.fail('Timeout (>1.0s) from pytest-timeout.')\n",
    PYTEST_TIMEOUT,
)
"""pytest-timeout's stand-in: its signal method fails the test from a handler of its module."""


def _stop(interrupt: type[BaseException]) -> None:
    """Raise ``interrupt`` where the reader is, pytest-timeout's failure as it raises it."""
    if interrupt is pytest.fail.Exception:
        PYTEST_TIMEOUT["handler"](14, None)
    raise interrupt


@pytest.mark.parametrize(
    "interrupt",
    [KeyboardInterrupt, SystemExit, pytest.fail.Exception, bdb.BdbQuit, pytest.exit.Exception],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_closed_by_an_interrupt_is_not_recorded_and_records_whole_next_time(
    tmp_path: Path, interrupt: type[BaseException]
) -> None:
    # Ctrl-C mid-stream was stored as the client's own close: the next record-missing
    # run failed on it ("the client closed this stream after 3 event(s)"); so was a stream
    # pytest-timeout's limit stopped (--timeout-method=signal), cut where the clock was,
    # and one a debugger's quit stopped (q in pdb: BdbQuit; under pytest --pdb, --trace or
    # at a breakpoint(): the Exit of pytest.exit)
    store = tmp_path / "interrupted.jsonl"
    question = [{"role": "user", "content": "word " * 300}]

    def read(url: str, mode: str = "record-missing", stop: int | None = None) -> list[str]:
        with claude(store, mode, url, max_retries=0) as client:
            events = []
            with client.messages.stream(model=CLAUDE, max_tokens=4000, messages=question) as s:
                for event in s:
                    events.append(event.type)
                    if len(events) == stop:
                        _stop(interrupt)
            return events

    with Simulator(behavior="echo") as sim:
        url = sim.url
        with pytest.raises(interrupt):
            read(url, stop=3)
        assert list(FixtureStore.open(store)) == []
        whole = read(url)
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "complete"
    with block_network():
        assert read(url, "replay") == whole


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_closed_early_from_the_simulator_says_how_to_record_it_from_there(
    tmp_path: Path,
) -> None:
    """The command a stream closed early names records from the live API: a stream
    recorded from the simulator says so and how to record it from the simulator again,
    as a miss whose nearest fixture came from it does."""
    store = tmp_path / "closed.jsonl"
    body = {"model": "m", "max_tokens": 8, "stream": True, "messages": HI}
    key = {"x-api-key": "k", "anthropic-version": "2023-06-01"}

    def first_line(client: httpx2.Client) -> str:
        with client, client.stream("POST", "/v1/messages", json=body, headers=key) as response:
            return next(response.iter_lines())

    with Simulator(behavior="echo") as sim:
        url = sim.url
        with intercept(store, "record-missing", approve_live=True, source="sim"):
            first_line(httpx2.Client(base_url=url))
    with (
        intercept(store),
        httpx2.Client(base_url=url) as client,
        pytest.raises(FixtureMismatchError, match="closed this stream") as caught,
    ):
        client.post("/v1/messages", json=body, headers=key)
    message = str(caught.value)
    assert 'It was recorded from the simulator (meta.source "sim")' in message, message
    assert "pytest `--replaygate-simulator=NAME`" in message, message


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_read_further_than_recorded_that_the_code_caught_is_raised_again(
    tmp_path: Path,
) -> None:
    # code that fell back on any error read past a stream closed early: the run was green
    store = tmp_path / "closed.jsonl"
    body = {"model": "m", "max_tokens": 8, "stream": True, "messages": HI}
    key = {"x-api-key": "k", "anthropic-version": "2023-06-01"}

    def lines(client: httpx2.Client, stop: int | None = None) -> list[str]:
        try:
            with client, client.stream("POST", "/v1/messages", json=body, headers=key) as answer:
                read = answer.iter_lines()
                return [next(read)] if stop else list(read)
        except Exception:
            return ["fallback"]

    with Simulator(behavior="echo") as sim:
        url = sim.url
        with intercept(store, "record-missing", approve_live=True):
            lines(httpx2.Client(base_url=url), stop=1)
    with pytest.warns(ReplayErrorCaughtWarning), intercept(store) as session:
        assert lines(httpx2.Client(base_url=url)) == ["fallback"]
    (error,) = session.raised
    assert "closed this stream after 1 event(s)" in str(error)
    with pytest.raises(FixtureMismatchError, match="closed this stream"):
        session.raise_caught()


@pytest.mark.parametrize("first", ["endpoint", "message"])
def test_an_mcp_sse_transport_read_past_its_recording_says_it_cannot_replay(
    tmp_path: Path, first: str
) -> None:
    # an MCP server's SSE transport, recorded green, failed every replay asking to record
    # it anew, which records the same stream again
    store = tmp_path / "sse.jsonl"
    request = {"method": "GET", "path": "/sse", "headers": {}, "body": None}
    posts = "/messages/?session_id=1"
    events = [{"event": first, "data": posts}, {"event": "message", "data": "{}"}]
    answer = {"status": 200, "headers": {"content-type": "text/event-stream"}, "events": events}
    FixtureStore.open(store).put(Fixture.create(request, [{**answer, "stream_end": "closed"}]))
    with (
        httpx2_client(store) as client,
        client.stream("GET", "http://127.0.0.1:9/sse") as sse,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        list(sse.iter_lines())
    told = str(caught.value)
    assert ("streamable HTTP instead" in told) is (first == "endpoint")
    assert ("Re-record it" in told) is (first != "endpoint")


def test_a_malformed_http_fixture_is_reported_with_file_and_line(tmp_path: Path) -> None:
    store = tmp_path / "bad.jsonl"
    envelope = {
        "method": "POST",
        "path": "/v1/messages",
        "headers": {},
        "body": {"model": "m"},
    }
    fixture = Fixture.create(envelope, [{"status": "teapot"}])
    store.write_bytes(fixture.to_line())
    with (
        httpx2_client(store) as client,
        pytest.raises(FixtureFormatError, match=r"bad\.jsonl:1: .*response\.status"),
    ):
        client.post("https://api.anthropic.com/v1/messages", json={"model": "m"})
    # a one-fixture .json file, one field a line: named at the field's line, not at line 1
    with FixtureStore.open(tmp_path / "fold") as folder:
        folder.put(fixture)
    (pretty,) = (tmp_path / "fold").rglob("*.json")
    lines = pretty.read_text().splitlines()
    at = next(n for n, text in enumerate(lines, 1) if '"status": "teapot"' in text)
    with (
        httpx2_client(tmp_path / "fold") as client,
        pytest.raises(FixtureFormatError, match=rf"{pretty.name}:{at}: .*response\.status"),
    ):
        client.post("https://api.anthropic.com/v1/messages", json={"model": "m"})


async def _closing(client: Any, call: Callable[[Any], Awaitable[Any]]) -> Any:
    """``call(client)``, then the async client closed, in the loop that used it."""
    async with client:
        return await call(client)


def _miss(sdk: str, is_async: bool, store: FixtureStore) -> None:
    if sdk == "anthropic":
        args: dict[str, Any] = {"model": CLAUDE, "max_tokens": 64, "messages": HI}
        if is_async:
            client = anthropic.AsyncAnthropic(api_key="t", http_client=httpx2_async_client(store))
            asyncio.run(_closing(client, lambda c: c.messages.create(**args)))
        else:
            with anthropic.Anthropic(api_key="t", http_client=httpx2_client(store)) as sync:
                sync.messages.create(**args)
    else:
        args = {"model": GPT, "messages": HI}
        if is_async:
            client_o = openai.AsyncOpenAI(api_key="t", http_client=httpx2_async_client(store))
            asyncio.run(_closing(client_o, lambda c: c.chat.completions.create(**args)))
        else:
            with openai.OpenAI(api_key="t", http_client=httpx2_client(store)) as sync_o:
                sync_o.chat.completions.create(**args)


class CountingStore(FixtureStore):
    """A real store that counts its lookups."""

    finds = 0

    def find(self, request: Any, **options: Any) -> Any:
        self.finds += 1
        return super().find(request, **options)


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_miss_reaches_the_test_unwrapped_at_once(tmp_path: Path, sdk: str, is_async: bool) -> None:
    path = tmp_path / "miss.jsonl"
    with Simulator(behavior="echo") as sim:
        if sdk == "anthropic":
            with claude(path, "record-missing", sim.url) as client:
                anthropic_call(client, max_tokens=99)
        else:
            with gpt(path, "record-missing", sim.openai_base_url) as client:
                openai_call(client, model="gpt-other")
    store = CountingStore(path)
    store.refresh()
    with block_network():
        started = time.perf_counter()
        with pytest.raises(FixtureMismatchError) as caught:
            _miss(sdk, is_async, store)
        seconds = time.perf_counter() - started
    assert seconds < 0.3  # the SDKs' first retry backoff is at least 0.375 s
    assert store.finds == 2  # one send: looked up, and again after reading what was added
    err = caught.value
    assert isinstance(err, anthropic.AnthropicError if sdk == "anthropic" else openai.OpenAIError)
    assert err.__cause__ is None
    assert err.store == str(path)
    diff = (
        "body.max_tokens: 99 != 64"
        if sdk == "anthropic"
        else "body.model: 'gpt-other' != 'gpt-sim-1'"
    )
    assert diff in err.differences
    assert diff in str(err)
    sent = (
        "POST https://api.anthropic.com/v1/messages"
        if sdk == "anthropic"
        else "POST https://api.openai.com/v1/chat/completions"
    )
    assert str(err).startswith(f"no fixture recorded for this HTTP request ({sent}): key ")


def test_miss_through_a_plain_client_names_key_and_store(tmp_path: Path) -> None:
    transport = Httpx2Transport(tmp_path / "empty.jsonl")
    with (
        httpx2.Client(transport=transport) as client,
        pytest.raises(FixtureMismatchError, match="there is no store at") as caught,
    ):
        client.post("https://api.anthropic.com/v1/messages", json={"model": "m"})
    assert caught.value.key in str(caught.value)
    assert not (tmp_path / "empty.jsonl").exists()


@pytest.mark.parametrize(
    ("url", "named"),
    [
        (
            "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
            "GET https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        ),
        # the query as kept: sorted, the API key left out; the port when the URL names one
        (
            "http://user:pw@Localhost:8080/v1beta/models/g:generateContent?key=SECRET&b=2&a=1",
            "GET http://localhost:8080/v1beta/models/g:generateContent?a=1&b=2",
        ),
        ("https://[::1]:8443/x", "GET https://[::1]:8443/x"),
    ],
)
@pytest.mark.parametrize("held", ["missing", "empty", "other"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_names_the_request_whatever_the_store_holds(
    tmp_path: Path, url: str, named: str, held: str
) -> None:
    path = tmp_path / "f.jsonl"
    if held == "empty":
        path.write_text("")
    elif held == "other":
        with Simulator(behavior="echo") as sim, claude(path, "record-missing", sim.url) as client:
            anthropic_call(client)
    with (
        httpx2.Client(transport=Httpx2Transport(path)) as client,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        client.get(url)
    message = str(caught.value)
    assert message.startswith(f"no fixture recorded for this HTTP request ({named}): key ")
    assert "SECRET" not in message and "user:pw" not in message


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_on_an_ipv6_host_names_it_in_brackets_in_the_host_it_matches(
    tmp_path: Path,
) -> None:
    # the matched host was "::1:PORT", which is also how the address ::1:PORT reads
    path = tmp_path / "f.jsonl"
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(path, "record-missing", approve_live=True, match_host=True)
        anthropic_call(anthropic.Anthropic(api_key="test", base_url=sim.url, http_client=http))
        port = sim.port
    ipv6 = f"http://[::1]:{port}"
    http = httpx2_client(path, match_host=True)
    client = anthropic.Anthropic(api_key="test", base_url=ipv6, http_client=http, max_retries=0)
    with pytest.raises(FixtureMismatchError) as caught:
        anthropic_call(client)
    message = str(caught.value)
    assert f"(POST {ipv6}/v1/messages)" in message
    assert f"host: '127.0.0.1:{port}' != '[::1]:{port}'" in message


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_retried_stream_request_records_the_error_body_the_sdk_left_unread(tmp_path: Path) -> None:
    store = tmp_path / "retried-stream.jsonl"
    faults = FaultPlan.sequence(["429"], retry_after=0.01)
    with (
        Simulator(behavior="echo", faults=faults) as sim,
        claude(store, "record-missing", sim.url) as client,
    ):
        live = anthropic_call(client, stream=True)
    (fixture,) = FixtureStore.open(store)
    first, second = fixture.responses
    assert first["status"] == 429
    assert first["body"]["error"]["type"] == "rate_limit_error"
    assert second["stream_end"] == "complete"
    with block_network(), claude(store, "replay") as client:
        assert anthropic_call(client, stream=True) == live


def _sent_twice(store: Path, answers: list[Any]) -> None:
    """A store whose request was sent twice, its two answers then made ``answers`` (its
    first line holding them all)."""
    live = httpx2.MockTransport(lambda _: httpx2.Response(200, json={"id": "msg_1"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=live) as client:
        for _ in range(2):
            client.post("https://api.anthropic.com/v1/messages", json={"n": 1})
    (fixture,) = FixtureStore.open(store)
    line = {"key": fixture.key, "request": fixture.request, "responses": answers}
    store.write_text(json.dumps(line) + "\n")


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (
            [None, {"status": 200, "headers": {}, "body": {"id": "msg_2"}}],
            r"s\.jsonl:1: fixture \w+ has no answer for send 1 of this request: its answer 0 "
            r"\(responses\[0\], .*\) is null, .* \(answers recorded: \[1\]\)\. Re-record it",
        ),
        ([None, None], r"holds no response at all .* `replaygate verify "),
    ],
    ids=["one", "all"],
)
def test_a_null_answer_is_named_with_its_line_and_field(
    tmp_path: Path, answers: list[Any], message: str
) -> None:
    store = tmp_path / "s.jsonl"
    _sent_twice(store, answers)
    with (
        block_network(),
        httpx2_client(store) as client,
        pytest.raises(FixtureMismatchError, match=message),
    ):
        client.post("https://api.anthropic.com/v1/messages", json={"n": 1})


def test_a_stream_cancelled_by_its_consumer_task_replays_as_recorded(tmp_path: Path) -> None:
    # the OpenAI Agents SDK's run_streamed reads the stream in a task of its own and
    # cancel() stops it from the task consuming its events: recorded from a live stream,
    # which kept the reader waiting, the close came after the first event; replayed, every
    # event came at once and the reader went past the recorded close before the consumer's
    # turn, failing 'the client closed this stream ..., and this run reads further'
    store = tmp_path / "closed.jsonl"
    request = {"method": "GET", "path": "/events", "headers": {}, "body": None}
    events = [{"event": "message", "data": "one"}]
    answer = {"status": 200, "headers": {"content-type": "text/event-stream"}, "events": events}
    FixtureStore.open(store).put(Fixture.create(request, [{**answer, "stream_end": "closed"}]))

    async def run() -> list[str]:
        lines: asyncio.Queue[str] = asyncio.Queue()

        async def reader(client: httpx2.AsyncClient) -> None:
            async with client.stream("GET", "http://127.0.0.1:9/events") as stream:
                async for line in stream.aiter_lines():
                    lines.put_nowait(line)

        async with httpx2.AsyncClient() as client:
            task = asyncio.create_task(reader(client))
            first = await lines.get()
            task.cancel()  # the consumer stops the run after its first event
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return [first]

    with intercept(store) as session:
        assert asyncio.run(run()) == ["event: message"]
    assert session.raised == []
