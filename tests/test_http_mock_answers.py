"""A recording's model call that respx answered in the process is refused, not stored.

respx is not among the test dependencies: a stand-in of its public shape (its mockers'
registry, each router's ``calls``) answers below the client, as respx's catch-all does.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest

from replaygate.errors import MockAnsweredError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept


class Call(NamedTuple):
    request: httpx.Request
    optional_response: httpx.Response | None


class Router:
    def __init__(self) -> None:
        self.calls: list[Call] = []

    def answer(self, request: httpx.Request) -> httpx.Response:
        """What a respx router does below the client: answer, and note the call."""
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
