"""A recording's model call that an HTTP mock of the test answered is refused, not stored.

Neither respx nor pytest-httpx is among the test dependencies: stand-ins of their public
shapes (respx's mockers' registry and each router's ``calls``, ``httpx_mock``'s
``get_requests()``) answer below the client, as their catch-alls do.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

import httpx
import pytest

from replaygate.errors import MockAnsweredError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx_client, intercept
from replaygate.pytest_plugin.httpx_mock_plays import HttpxMockPlays


class Call(NamedTuple):
    request: httpx.Request
    optional_response: httpx.Response | None


class Router:
    def __init__(self) -> None:
        self.calls: list[Call] = []

    def get_requests(self) -> list[httpx.Request]:
        """What pytest-httpx's ``httpx_mock`` tells of the requests it was sent."""
        return [call.request for call in self.calls]

    def answer(self, request: httpx.Request) -> httpx.Response:
        """What a mock does below the client: answer, and note the call."""
        response = httpx.Response(200, json={"sky": "blue"})
        self.calls.append(Call(request, response))
        return response


@pytest.fixture
def respx_router(monkeypatch: pytest.MonkeyPatch) -> Router:
    router = Router()
    mocker: Any = type("HTTPCoreMocker", (), {"routers": [router]})
    mocks: Any = types.ModuleType("respx.mocks")
    mocks.Mocker = type("Mocker", (), {"registry": {"httpcore": mocker}})
    monkeypatch.setitem(sys.modules, "respx.mocks", mocks)
    return router


def test_a_model_call_respx_answered_is_not_recorded(tmp_path: Path, respx_router: Router) -> None:
    store = tmp_path / "app.jsonl"
    question = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    with (
        intercept(store, mode="record-missing", approve_live=True),
        httpx.Client(transport=httpx.MockTransport(respx_router.answer)) as client,
    ):
        assert client.get("https://weather.example.com/today").json() == {"sky": "blue"}
        with pytest.raises(MockAnsweredError, match="chat/completions was answered by respx"):
            client.post("https://api.openai.com/v1/chat/completions", json=question)
    assert [f.request["path"] for f in FixtureStore.open(store)] == ["/today"]


def test_a_model_call_httpx_mock_answered_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "app.jsonl"
    httpx_mock = Router()
    exchange = Exchange(store, mode="record-missing", approve_live=True)
    item: Any = SimpleNamespace(funcargs={"httpx_mock": httpx_mock})
    exchange.live_guard = HttpxMockPlays(item)
    question = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    with httpx_client(exchange, transport=httpx.MockTransport(httpx_mock.answer)) as client:
        assert client.get("https://weather.example.com/today").json() == {"sky": "blue"}
        with pytest.raises(MockAnsweredError, match="answered by pytest-httpx's httpx_mock"):
            client.post("https://api.openai.com/v1/chat/completions", json=question)
    assert [f.request["path"] for f in FixtureStore.open(store)] == ["/today"]


class Registered:
    """A response registered with a mock of responses: the calls it answered."""

    passthrough = False

    def __init__(self) -> None:
        self.calls: list[SimpleNamespace] = []


def test_a_model_call_responses_answered_is_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = pytest.importorskip("requests")
    registered = Registered()
    mock: Any = type("RequestsMock", (), {"__module__": "responses"})()
    mock.registered = lambda: [registered]

    def send(adapter: Any, request: Any, **kwargs: Any) -> Any:
        """responses' stand-in for ``HTTPAdapter.send``, closing over its mock."""
        assert mock.registered() == [registered]
        response = requests.Response()
        response.status_code, response.request, response.url = 200, request, request.url
        response._content, response._content_consumed = b'{"sky": "blue"}', True
        response.headers["content-type"] = "application/json"
        registered.calls.append(SimpleNamespace(request=request, response=response))
        return response

    monkeypatch.setitem(sys.modules, "responses", types.ModuleType("responses"))
    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    store = tmp_path / "app.jsonl"
    question = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    with intercept(store, mode="record-missing", approve_live=True):
        assert requests.get("https://weather.example.com/today").json() == {"sky": "blue"}
        with pytest.raises(MockAnsweredError, match="chat/completions was answered by responses"):
            requests.post("https://api.openai.com/v1/chat/completions", json=question)
    assert [f.request["path"] for f in FixtureStore.open(store)] == ["/today"]
