"""The same request sent again before its first answer ended: each send is answered on
replay with the answer it got while recording. Answers were stored in the order they
ended and handed out on replay in the order the sends were made, so two identical
requests whose answers ended the other way round (a stream read slowly, a live API
answering the second first) swapped answers on replay, silently."""

from __future__ import annotations

import asyncio
import sys
import threading
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest

from replaygate.errors import LiveSendFailedWarning, SentAtOnceWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client, intercept
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.sim import FaultPlan, Simulator
from sdks import openai

pytestmark = [
    pytest.mark.slow,  # concurrent sends recorded and replayed
    pytest.mark.filterwarnings("ignore::replaygate.errors.SentAtOnceWarning"),  # on purpose
]

ASK = [{"role": "user", "content": "Pick a number."}]


class Counter:
    """Each arrival gets its own answer, as a sampled model does."""

    def __init__(self) -> None:
        self.n = 0

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.n += 1
        return ModelResponse(text=f"answer {self.n}")


async def _streamed(base_url: str, delays: Sequence[float]) -> list[str]:
    """Identical streamed requests sent in turn, each read at its own pace. A send starts
    once the one before it has its answer's head, so the order of the sends is the same
    in every run (a timer alone does not fix it: the SDK's first call of a process waits
    on a thread before it sends, which a loaded machine makes later than the next call's
    timer)."""
    client = openai.AsyncOpenAI(api_key="k", base_url=base_url, max_retries=0)
    sent = [asyncio.Event() for _ in delays]

    async def ask(order: int, per_chunk: float) -> str:
        if order:
            await sent[order - 1].wait()
        stream = await client.chat.completions.create(model="g", messages=ASK, stream=True)
        sent[order].set()
        text = ""
        async for chunk in stream:
            text += chunk.choices[0].delta.content or "" if chunk.choices else ""
            await asyncio.sleep(per_chunk)
        return text

    return list(await asyncio.gather(*(ask(i, d) for i, d in enumerate(delays))))


async def _plain(base_url: str, count: int) -> list[str]:
    """Identical requests sent in turn: each once the one before it is on its way (its
    client's request hook ran), for the reason :func:`_streamed` gives."""
    sent = [asyncio.Event() for _ in range(count)]

    async def on_request(request: Any) -> None:
        next(event for event in sent if not event.is_set()).set()

    http_client = openai.DefaultAsyncHttpxClient(event_hooks={"request": [on_request]})
    client = openai.AsyncOpenAI(
        api_key="k", base_url=base_url, max_retries=0, http_client=http_client
    )

    async def ask(order: int) -> str:
        if order:
            await sent[order - 1].wait()
            await asyncio.sleep(0.05)  # and reaches the server after it
        reply = await client.chat.completions.create(model="g", messages=ASK)
        return reply.choices[0].message.content or ""

    return list(await asyncio.gather(*(ask(i) for i in range(count))))


def _recorded_then_replayed(store: Path, run: Any, sim: Simulator) -> tuple[list[str], list[str]]:
    with intercept(store, "record-missing", approve_live=True):
        recorded = asyncio.run(run(sim.openai_base_url))
    with intercept(store):
        replayed = asyncio.run(run("http://127.0.0.1:9/v1"))
    return recorded, replayed


def test_identical_streams_read_at_their_own_pace_replay_their_own_answers(
    tmp_path: Path,
) -> None:
    def run(url: str) -> Any:
        return _streamed(url, [0.03, 0.0, 0.01])  # the first sent ends last

    with Simulator(behavior=Counter()) as sim:
        recorded, replayed = _recorded_then_replayed(tmp_path / "s.jsonl", run, sim)
    assert sorted(recorded) == ["answer 1", "answer 2", "answer 3"]
    assert replayed == recorded


def test_identical_requests_answered_out_of_order_replay_their_own_answers(
    tmp_path: Path,
) -> None:
    """The live API answers the second send before the first (the first is slow)."""
    faults = FaultPlan.sequence(["slow", None], slow_delay=0.2)
    with Simulator(behavior=Counter(), faults=faults) as sim:
        recorded, replayed = _recorded_then_replayed(
            tmp_path / "p.jsonl", lambda u: _plain(u, 2), sim
        )
    assert recorded == ["answer 1", "answer 2"]
    assert replayed == recorded


def test_a_send_that_fails_does_not_hold_back_the_answers_sent_after_it(tmp_path: Path) -> None:
    """The first send fails (its server is gone); the second, identical, is stored at once:
    the store holds it before the block ends."""
    store = tmp_path / "f.jsonl"
    with (
        Simulator(behavior=Counter()) as sim,
        intercept(store, "record-missing", approve_live=True) as session,
    ):
        dead = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0)
        with (
            pytest.warns(LiveSendFailedWarning, match="ConnectError"),
            pytest.raises(openai.APIConnectionError),
        ):
            dead.chat.completions.create(model="g", messages=ASK)
        alive = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
        assert (
            alive.chat.completions.create(model="g", messages=ASK).choices[0].message.content
            == "answer 1"
        )
        assert session.recorded == 1
        (fixture,) = FixtureStore.open(store)
        assert fixture.samples == 1
    with intercept(store):
        replay = openai.OpenAI(api_key="k", max_retries=0)
        assert (
            replay.chat.completions.create(model="g", messages=ASK).choices[0].message.content
            == "answer 1"
        )


def test_identical_requests_sent_by_a_library_s_worker_threads_warn_at_the_waiting_line(
    tmp_path: Path,
) -> None:
    """LangChain's ``batch`` sends from its thread pool, whose threads run no line of the
    application's: the warning pointed at replaygate's own exchange.py. It points at the
    line of the thread that entered the block, waiting for the pool (the ``batch`` call)."""
    barrier = threading.Barrier(2)

    def answer(request: httpx2.Request) -> httpx2.Response:
        barrier.wait(timeout=10)  # the two sends are under way together
        return httpx2.Response(200, json={"id": "c"})

    url, store = "https://api.openai.com/v1/chat/completions", tmp_path / "s.jsonl"
    transport = httpx2.MockTransport(answer)
    with (
        httpx2_client(store, "record-missing", approve_live=True, transport=transport) as client,
        warnings.catch_warnings(record=True) as told,
        ThreadPoolExecutor(2) as pool,
    ):
        warnings.simplefilter("always")
        waited = sys._getframe().f_lineno + 1  # the line that sends and waits, as batch() does
        answered = list(pool.map(client.post, [url, url]))  # no line of the test in the pool
        assert [response.status_code for response in answered] == [200, 200]
    (warned,) = [w for w in told if issubclass(w.category, SentAtOnceWarning)]
    assert (warned.filename, warned.lineno) == (__file__, waited)


@pytest.mark.parametrize("at_once", [2, 1])
def test_identical_requests_recorded_at_once_warn_that_a_replay_may_answer_them_crosswise(
    tmp_path: Path, at_once: int
) -> None:
    """Branches of a LangGraph graph asked one prompt at once: a replay gave one branch the
    answer another was recorded with, and the test passed or failed by the order the
    threads sent in, with no word of why. Sent one after another, nothing is said."""
    barrier = threading.Barrier(at_once)
    answers = iter(range(3))

    def answer(request: httpx2.Request) -> httpx2.Response:
        barrier.wait(timeout=10)  # the two sends are under way together
        return httpx2.Response(200, json={"id": "c", "n": next(answers)})

    url, store = "https://api.openai.com/v1/chat/completions", tmp_path / "s.jsonl"
    transport = httpx2.MockTransport(answer)
    with (
        httpx2_client(store, "record-missing", approve_live=True, transport=transport) as client,
        warnings.catch_warnings(record=True) as told,
        ThreadPoolExecutor(at_once) as pool,
    ):
        warnings.simplefilter("always")
        for _ in range(2 // at_once):
            list(pool.map(lambda _: client.post(url, json={"messages": ASK}), range(at_once)))
    said = [str(w.message) for w in told if issubclass(w.category, SentAtOnceWarning)]
    if at_once == 1:
        assert said == []
        return
    assert said == [
        "identical requests (POST /v1/chat/completions, key "
        f"{FixtureStore.open(store).keys()[0]}) were sent at once while "
        "recording: their answers are stored in the order they were sent, and a replay gives "
        "them out in the order they are sent then, which senders running at once (the "
        "parallel branches of a LangGraph graph, a batch, an asyncio.gather, a thread pool) "
        "change from run to run, so one may get the answer another was given. Make each "
        "request its own (the item it works on in its prompt), or send them one after "
        "another (docs/frameworks.md#langchain)."
    ]


def test_a_miss_carrying_another_sender_s_answer_says_they_were_answered_crosswise(
    tmp_path: Path,
) -> None:
    # parallel branches asking the same first question, each writing with its answer next:
    # a replay handing the answers out otherwise than recorded sends a next request no
    # recording holds, which the miss named as a changed prompt ('cats ... banana')
    store = tmp_path / "branches.jsonl"

    def run(base_url: str, order: Sequence[str]) -> None:
        client = openai.OpenAI(api_key="k", base_url=base_url, max_retries=0)
        words = {}
        for topic in order:
            reply = client.chat.completions.create(model="g", messages=ASK)
            words[topic] = reply.choices[0].message.content
        for topic in ("cats", "dogs"):
            said = f"Write about {topic} with the word {words[topic]}"
            client.chat.completions.create(model="g", messages=[{"role": "user", "content": said}])

    with (
        Simulator(behavior=Counter()) as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        run("https://api.openai.com/v1", ["cats", "dogs"])
    with pytest.raises(Exception, match="no fixture recorded") as raised, intercept(store):
        run("https://api.openai.com/v1", ["dogs", "cats"])
    said = str(raised.value)
    recorded = next(f for f in FixtureStore.open(store) if "cats" in str(f.request)).key
    assert f"differs from a recorded one (key {recorded} at " in said
    assert "only in which answer of 2 identical requests it carries" in said
    assert "a replay gives their answers out in the order they are sent" in said
    assert "docs/frameworks.md#langchain" in said

    # a change of its own, beside an answer carried as recorded, is no such thing
    with pytest.raises(Exception, match="no fixture recorded") as raised, intercept(store):
        client = openai.OpenAI(api_key="k", base_url="https://api.openai.com/v1", max_retries=0)
        word = client.chat.completions.create(model="g", messages=ASK).choices[0].message.content
        said = f"Write about cats, briefly, with the word {word}"
        client.chat.completions.create(model="g", messages=[{"role": "user", "content": said}])
    assert "identical requests it carries" not in str(raised.value)
