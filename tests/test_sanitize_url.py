"""The request's URL sanitized as its body is: each path segment and query value.

Recorded through ``httpx2`` (and the ``openai`` SDK) over loopback, then replayed with
the network blocked: personal data in the URL never reaches the fixture, and the same
request, sanitized again at replay, finds it.
"""

from __future__ import annotations

import json
from pathlib import Path

from loopback import Handler, serving
from replaygate.http import Exchange, block_network, httpx2_client
from replaygate.sanitize import RedactionRule, SanitizeConfig, Sanitizer
from sdks import openai

CONFIG = SanitizeConfig(
    personal_data=("email",), rules=(RedactionRule(literal="Alice Liddell", replace="Jane Doe"),)
)
EMAIL = "alice@corp-mail.com"


class Customers(Handler):
    """Answers a look-up with the customer it names."""

    def do_GET(self) -> None:
        self.answer_json({"name": "Alice Liddell", "email": EMAIL})


def test_personal_data_in_the_path_and_query_never_reaches_the_fixture(tmp_path: Path) -> None:
    store = tmp_path / "fx"
    params = {"email": EMAIL, "name": "Alice Liddell", "page": "2"}
    with serving(Customers) as base:
        url = f"{base}/v1/customers/{EMAIL}/orders"
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=CONFIG)
        with httpx2_client(exchange) as client:
            assert client.get(url, params=params).json()["email"] == EMAIL
    (fixture,) = store.rglob("*.json")
    data = fixture.read_bytes()
    assert b"alice" not in data and b"Alice" not in data
    path = json.loads(data)["request"]["path"]
    bare, _, query = path.partition("?")
    assert bare.startswith("/v1/customers/user-") and bare.endswith("@example.com/orders")
    assert query.endswith("%40example.com&name=Jane+Doe&page=2")
    with block_network(), httpx2_client(Exchange(store, sanitize=CONFIG)) as client:
        assert client.get(url, params=params).json()["name"] == "Jane Doe"


def test_a_replacement_never_splits_a_path_segment() -> None:
    sanitizer = Sanitizer(SanitizeConfig(rules=(RedactionRule(literal="bob", replace="a/b?c#d"),)))
    envelope = {"method": "GET", "path": "/v1/users/bob/x", "headers": {}, "body": None}
    stored = sanitizer.envelope(envelope)
    assert stored["path"] == "/v1/users/a%2Fb%3Fc%23d/x"
    assert sanitizer.envelope(stored) == stored


LIVE_ID = "resp_68af0c1e2d3b4a5f"
RESPONSE = {
    "id": LIVE_ID,
    "object": "response",
    "created_at": 1700000000,
    "status": "completed",
    "model": "gpt-4o",
    "output": [
        {
            "type": "message",
            "id": "msg_68af0c1e9",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hello", "annotations": []}],
        }
    ],
    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
}


class Background(Handler):
    """The Responses API's background mode: a create answered ``queued``, then the
    response retrieved by its id."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.answer_json({**RESPONSE, "status": "queued"})

    def do_GET(self) -> None:
        if self.path == f"/v1/responses/{LIVE_ID}":
            self.answer_json(RESPONSE)
        else:
            self.answer_json({"error": {"message": f"no response at {self.path}"}}, 404)


def poll(client: openai.OpenAI) -> str:
    created = client.responses.create(model="gpt-4o", input="hi", background=True)
    return client.responses.retrieve(created.id).output_text


def test_an_id_the_client_puts_in_the_path_is_stored_stable_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "fx"
    config = SanitizeConfig(ids=True)
    with serving(Background) as base:
        exchange = Exchange(store, mode="record-missing", approve_live=True, sanitize=config)
        http = httpx2_client(exchange)
        with openai.OpenAI(api_key="k", base_url=base + "/v1", http_client=http) as client:
            assert poll(client) == "hello"
    data = b"".join(path.read_bytes() for path in store.rglob("*.json"))
    assert LIVE_ID.encode() not in data
    http = httpx2_client(Exchange(store, sanitize=config))
    with block_network(), openai.OpenAI(api_key="k", base_url=base + "/v1", http_client=http) as c:
        assert poll(c) == "hello"
