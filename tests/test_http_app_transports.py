"""intercept(): a test's call of its own app in process (ASGI, WSGI) is no model call.

A web service's tests call it through ``httpx.ASGITransport(app)``, ``WSGITransport``,
Starlette's ``TestClient``, or over loopback from a server of the test's process
(Django's live server); what the app sends inside (its model calls) is what is
recorded and replayed, and the app itself runs on replay, so a change to it is seen.
"""

from __future__ import annotations

import asyncio
import json
import threading
import wsgiref.simple_server
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import httpx2
import pytest

from forked_cli import Forker
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.http.own_app import own_app

MODEL = "https://api.example.com/v1/messages"


def ask_model(question: str, live: bool) -> str:
    """The app's model call, through a client of its own (answered by a stub when live)."""

    def stub(request: httpx2.Request) -> httpx2.Response:
        assert live, "a replay must not reach the client's transport"
        asked = json.loads(request.content)["q"]
        return httpx2.Response(200, json={"answer": f"about {asked}"})

    with httpx2.Client(transport=httpx2.MockTransport(stub)) as client:
        return str(client.post(MODEL, json={"q": question}).json()["answer"])


def wsgi_app(prefix: str, live: bool) -> Callable[..., Iterable[bytes]]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        question = environ["wsgi.input"].read(length).decode()
        start_response("200 OK", [("content-type", "text/plain")])
        return [ask_model(prefix + question, live).encode()]

    return app


def asgi_app(prefix: str, live: bool) -> Callable[..., Any]:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        question = (await receive())["body"].decode()
        answer = ask_model(prefix + question, live).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": answer})

    return app


def call_wsgi(prefix: str, live: bool) -> str:
    transport = httpx2.WSGITransport(app=wsgi_app(prefix, live))
    with httpx2.Client(transport=transport, base_url="http://testserver") as client:
        return client.post("/ask", content=b"RAG").text


def call_asgi(prefix: str, live: bool) -> str:
    async def call() -> str:
        transport = httpx.ASGITransport(app=asgi_app(prefix, live))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return (await c.post("/ask", content=b"RAG")).text

    return asyncio.run(call())


class _Quiet(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def call_live_server(prefix: str, live: bool) -> str:
    """The app served from a thread on a loopback port, as Django's live server does; an
    error of the app is raised to the caller, as the server's log shows it."""
    app, errors = wsgi_app(prefix, live), []

    def serving(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        try:
            return app(environ, start_response)
        except Exception as err:
            errors.append(err)
            raise

    server = wsgiref.simple_server.make_server("127.0.0.1", 0, serving, handler_class=_Quiet)
    thread = threading.Thread(target=server.handle_request)
    thread.start()
    try:
        answer = httpx2.post(f"http://127.0.0.1:{server.server_port}/ask", content=b"RAG")
    finally:
        thread.join()
        server.server_close()
    if errors:
        raise errors[0]
    return answer.text


@pytest.mark.parametrize(
    "call", [call_wsgi, call_asgi, call_live_server], ids=["wsgi", "asgi", "live-server"]
)
def test_the_app_runs_and_its_model_calls_are_recorded(
    tmp_path: Path, call: Callable[[str, bool], str]
) -> None:
    store = tmp_path / "app.jsonl"
    with intercept(store, mode="record-missing", approve_live=True):
        assert call("", True) == "about RAG"
    assert [f.request["path"] for f in FixtureStore.open(store)] == ["/v1/messages"]

    with intercept(store):  # replay: the app runs, its model call is answered
        assert call("", False) == "about RAG"
    with intercept(store), pytest.raises(FixtureMismatchError, match="'RAG' != 'new RAG'"):
        call("new ", False)  # a change to the app reaches its model call, and misses


@pytest.mark.slow
def test_an_app_served_before_the_first_block_is_reached(tmp_path: Path, forker: Forker) -> None:
    """A ``LiveServerTestCase`` starts its server in ``setUpClass``, before its tests enter
    ``intercept()``: a server bound after ``intercept`` was imported is known as the app."""
    script = f"""
import threading, wsgiref.simple_server, httpx2
from replaygate.http import intercept
from replaygate.http.own_app import own_app

def app(environ, start_response):
    start_response("200 OK", [("content-type", "text/plain")])
    return [b"from the app"]

server = wsgiref.simple_server.make_server("127.0.0.1", 0, app)
threading.Thread(target=server.handle_request, daemon=True).start()
with intercept({str(tmp_path / "none.jsonl")!r}):
    print(httpx2.get(f"http://127.0.0.1:{{server.server_port}}/page").text)
"""
    done = forker.capture([], cwd=tmp_path, code=script)  # imported replaygate.cli alone
    assert done.stdout.strip() == b"from the app", done.stderr.decode()


def test_a_tool_server_served_in_process_is_recorded_not_reached(tmp_path: Path) -> None:
    """An MCP server the test runs in a thread (a JSON-RPC body) is a tool's, recorded and
    replayed with the model calls, whatever application serves it."""

    def tools(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response("200 OK", [("content-type", "application/json")])
        return [b'{"jsonrpc": "2.0", "id": 1, "result": {"served": true}}']

    server = wsgiref.simple_server.make_server("127.0.0.1", 0, tools, handler_class=_Quiet)
    threading.Thread(target=server.handle_request, daemon=True).start()
    url, call = f"http://127.0.0.1:{server.server_port}/mcp", {"jsonrpc": "2.0", "id": 1}
    store = tmp_path / "tools.jsonl"
    with server, intercept(store, mode="record-missing", approve_live=True):
        assert httpx2.post(url, json={**call, "method": "tools/list"}).json()["result"]
    with intercept(store):  # the server answers no more: the store does
        assert httpx2.post(url, json={**call, "method": "tools/list"}).json()["result"]


def test_an_app_served_by_an_event_loop_s_server_is_the_test_s_own() -> None:
    """uvicorn's ``Server`` (run in a thread of the test) binds its port through the event
    loop's ``create_server``, its application in its ``config``: it is the test's app."""

    class Served:  # as uvicorn.Server
        def __init__(self) -> None:
            self.config = SimpleNamespace(app=asgi_app("", False))

        async def startup(self) -> asyncio.Server:
            loop = asyncio.get_running_loop()
            return await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)

    async def served() -> bool:
        served = Served()  # kept while it serves, as a test keeps its server
        async with await served.startup() as server:
            port = server.sockets[0].getsockname()[1]
            return own_app(f"http://127.0.0.1:{port}/page", {}, b"")

    assert asyncio.run(served())
