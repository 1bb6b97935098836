"""A test's request to its own app served in this process, over loopback.

Django's ``LiveServerTestCase`` and pytest-django's ``live_server``, a Flask or FastAPI
app run in a thread of the test: the test reaches the app with a real client
(``requests``, ``httpx``, a browser) at ``http://localhost:PORT``. Such a request is the
test's call of the code under test, as a ``TestClient``'s is, never a model call: it
reaches the app, in replay too, and is neither recorded nor answered from the store; the
model calls the app makes while serving it are. A server that runs no application (an
``http.server`` handler standing in for a remote API), a model API's path served there
(a fake model server of the test's own), an MCP server's calls (a JSON-RPC body, an
``mcp-session-id`` header: a tool server run in a thread, whose answers a replay takes
from the store) and the simulator are recorded as before.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from urllib.parse import urlsplit

from replaygate.addresses import is_loopback
from replaygate.http.envelope import is_api_call
from replaygate.http.learners import learner_at
from replaygate.interfaces import json_rpc
from replaygate.network import server_at

APP_ATTRIBUTES = ("application", "app")
"""Where a server keeps the application it serves: ``wsgiref``'s ``WSGIServer`` (Django's
live server), werkzeug's and uvicorn's (its ``Config``, which its ``Server`` holds)."""


def _serves_app(server: object) -> bool:
    """Whether ``server`` holds an application (:data:`APP_ATTRIBUTES`), itself or in its
    ``config`` (uvicorn's ``Server``)."""
    holders = (server, getattr(server, "config", None))
    return any(getattr(h, name, None) is not None for h in holders for name in APP_ATTRIBUTES)


MCP_HEADERS = ("mcp-session-id", "mcp-protocol-version")
"""Headers an MCP client sends its server after the handshake, on bodiless sends too."""


def _tool_server_call(headers: Container[str], body: bytes) -> bool:
    """Whether a request is an MCP client's call of its server (:data:`MCP_HEADERS`, or
    a JSON-RPC body: :func:`~replaygate.interfaces.json_rpc`)."""
    if any(name in headers for name in MCP_HEADERS):
        return True
    if b'"jsonrpc"' not in body:
        return False
    try:
        return json_rpc(json.loads(body))
    except ValueError:
        return False


def own_app(url: str, headers: Container[str], body: bytes) -> bool:
    """Whether a request to ``url`` is the test's call of an application this process
    serves on a loopback port (:func:`~replaygate.network.server_at`), at a path of no
    model API, to no tool server and not the simulator; ``headers`` a case-insensitive
    mapping, ``body`` what it sends (empty where it streams)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return False
    if host is None or port is None or not is_loopback(host):
        return False
    server = server_at(port)
    if not _serves_app(server):
        return False
    if learner_at(host, port) is not None or is_api_call(host, parts.path):
        return False
    return not _tool_server_call(headers, body)


def websocket_handshake(headers: Mapping[str, str]) -> bool:
    """Whether a request opens a WebSocket (``Upgrade: websocket``: aiohttp's
    ``ws_connect``, httpx-ws), which no fixture can stand for: it is sent as it is, to a
    server of the test's own on loopback, or refused beyond it while replaying."""
    return "websocket" in headers.get("upgrade", "").lower()


def sent_as_is(url: str, headers: Mapping[str, str], body: bytes) -> bool:
    """Whether a request is sent as it is, neither recorded nor answered from the store:
    the test's call of its own app (:func:`own_app`) or a WebSocket handshake
    (:func:`websocket_handshake`)."""
    return websocket_handshake(headers) or own_app(url, headers, body)
