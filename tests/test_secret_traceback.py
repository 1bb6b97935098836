"""A recording refused for a secret the answer holds shows none of replaygate's frames in a
pytest report: their locals hold the live answer, which ``pytest -l`` (``--showlocals``)
would print to the terminal and the CI log, key included. The plugin clears the locals of
the other frames the answer went through (the HTTP client's, the SDK's)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import httpx2
import pytest

from replaygate.errors import FixtureMismatchError, SecretInFixtureError
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx2_async_client, httpx2_client
from replaygate.models.types import ModelResponse
from replaygate.pytest_plugin.secret_locals import forget_secret_locals
from replaygate.sim import Simulator
from replaygate.sim.behaviors import ScriptBehavior
from sdks import anthropic

KEY = "sk-ant-api03-" + "Xy7Kq2Lm9Np4Rs6Tv8Wz1Ab3Cd5Ef7Gh" * 3 + "AA-AbCdEfAA"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    answers = [ModelResponse(text=f"your key is {KEY}")] * 4
    with Simulator(behavior=ScriptBehavior(answers)) as server:
        yield server


def shown_replaygate_frames(traceback: TracebackType | None) -> list[str]:
    """The frames of replaygate's code that a pytest report would show (not hidden)."""
    shown = []
    while traceback is not None:
        frame = traceback.tb_frame
        if "/replaygate/" in frame.f_code.co_filename and not frame.f_locals.get(
            "__tracebackhide__"
        ):
            shown.append(f"{frame.f_code.co_filename}:{traceback.tb_lineno}")
        traceback = traceback.tb_next
    return shown


def locals_holding(traceback: TracebackType | None, value: str) -> list[str]:
    """The frames whose locals, as ``pytest -l`` prints them, hold ``value``."""
    holding = []
    while traceback is not None:
        frame = traceback.tb_frame
        if any(value in repr(local) for local in frame.f_locals.values()):
            holding.append(f"{frame.f_code.co_filename}:{traceback.tb_lineno}")
        traceback = traceback.tb_next
    return holding


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
def test_a_refused_answer_leaves_no_frame_of_replaygate_in_the_report(
    sim: Simulator, tmp_path: Path, stream: bool
) -> None:
    http = httpx2_client(tmp_path / "s.jsonl", "record-missing", approve_live=True)
    with (
        anthropic.Anthropic(api_key="t", base_url=sim.url, http_client=http) as client,
        pytest.raises(SecretInFixtureError, match="Anthropic API key found at response") as err,
    ):
        request = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "x"}]}
        if stream:
            with client.messages.stream(**request) as events:  # type: ignore[arg-type]
                events.get_final_text()
        else:
            client.messages.create(**request)  # type: ignore[arg-type]
    assert shown_replaygate_frames(err.value.__traceback__) == []
    forget_secret_locals(err.value)
    assert err.value.__traceback__ is not None  # from this test's frame, still running
    assert locals_holding(err.value.__traceback__.tb_next, KEY[20:60]) == []


def test_a_refused_answer_streamed_to_an_async_client_leaves_no_frame_of_replaygate(
    sim: Simulator, tmp_path: Path
) -> None:
    async def ask() -> None:
        http = httpx2_async_client(tmp_path / "a.jsonl", "record-missing", approve_live=True)
        async with (
            anthropic.AsyncAnthropic(api_key="t", base_url=sim.url, http_client=http) as client,
            client.messages.stream(
                model="m", max_tokens=64, messages=[{"role": "user", "content": "x"}]
            ) as events,
        ):
            await events.get_final_text()

    with pytest.raises(SecretInFixtureError, match="Anthropic API key found at response") as err:
        asyncio.run(ask())
    assert shown_replaygate_frames(err.value.__traceback__) == []


def test_a_refused_answer_the_code_caught_is_raised_again(sim: Simulator, tmp_path: Path) -> None:
    # code that fell back on any error went on green, its answer recorded nowhere
    def ask(client: httpx2.Client) -> str:
        body = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "x"}]}
        try:
            return client.post("/v1/messages", json=body).text
        except Exception:
            return "fallback"

    store = tmp_path / "c.jsonl"
    exchange = Exchange(store, mode="record-missing", approve_live=True)
    headers = {"x-api-key": "t", "anthropic-version": "2023-06-01"}
    with httpx2_client(exchange, base_url=sim.url, headers=headers) as client:
        assert ask(client) == "fallback"
    (refused,) = exchange.raised
    assert isinstance(refused, SecretInFixtureError)
    with pytest.raises(SecretInFixtureError, match="Anthropic API key found at response"):
        exchange.raise_caught()
    assert not store.exists()


def test_a_miss_of_a_request_holding_a_key_leaves_no_locals_in_the_report(tmp_path: Path) -> None:
    # its message masked the key, but pytest --tb=long and -l printed the SDK's and the
    # HTTP client's locals and arguments, the request's body among them
    store = tmp_path / "m.jsonl"
    recorded = {"messages": [{"role": "user", "content": "x"}]}
    request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": recorded}
    FixtureStore.open(store).put(Fixture.create(request, [{"status": 200, "body": {}}]))
    missed = {}
    for content in (f"my key is {KEY}", "y"):
        with httpx2_client(store) as client, pytest.raises(FixtureMismatchError) as err:
            client.post("http://127.0.0.1:9/v1/messages", json={"messages": [{"content": content}]})
        assert err.value.__traceback__ is not None  # from this test's frame, still running
        forget_secret_locals(err.value)
        missed[content[:1]] = (
            err.value.masked,
            locals_holding(err.value.__traceback__.tb_next, content),
        )
    assert missed["m"] == (True, [])
    assert missed["y"][0] is False and missed["y"][1]  # a miss holding no key keeps its locals


def test_a_request_refused_for_a_key_leaves_no_locals_in_the_report(tmp_path: Path) -> None:
    # recording, its message named the field alone, but --tb=long and -l printed the key
    # from the frames that held the request
    store = tmp_path / "r.jsonl"
    body = {"messages": [{"content": f"my key is {KEY}"}]}
    with (
        httpx2_client(store, "record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError, match="refusing to send this request") as err,
    ):
        client.post("http://127.0.0.1:9/v1/messages", json=body)
    assert err.value.__traceback__ is not None  # from this test's frame, still running
    forget_secret_locals(err.value)
    assert locals_holding(err.value.__traceback__.tb_next, KEY[20:60]) == []
