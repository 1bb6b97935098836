"""A test's request to its own app served in this process, over loopback.

Django's ``LiveServerTestCase`` and pytest-django's ``live_server``, a Flask or FastAPI
app run in a thread of the test: the test reaches the app with a real client
(``requests``, ``httpx``, a browser) at ``http://localhost:PORT``. Such a request is the
test's call of the code under test, as a ``TestClient``'s is, never a model call: it
reaches the app, in replay too, and is neither recorded nor answered from the store; the
model calls the app makes while serving it are. A server that runs no application (an
``http.server`` handler standing in for a remote API), a model API's path served there
(a fake model server of the test's own) and the simulator are recorded as before.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from replaygate.http.envelope import is_api_call
from replaygate.http.learners import learner_at
from replaygate.network import is_loopback, server_at

APP_ATTRIBUTES = ("application", "app")
"""Where a server keeps the application it serves: ``wsgiref``'s ``WSGIServer`` (Django's
live server), werkzeug's and uvicorn's (its ``Config``)."""


def own_app(url: str) -> bool:
    """Whether a request to ``url`` is the test's call of an application this process
    serves on a loopback port (:func:`~replaygate.network.server_at`), at a path of no
    model API and not the simulator's."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return False
    if host is None or port is None or not is_loopback(host):
        return False
    server = server_at(port)
    if not any(getattr(server, name, None) is not None for name in APP_ATTRIBUTES):
        return False
    return learner_at(host, port) is None and not is_api_call(host, parts.path)
